/* topo.c - machine topology through hwloc, loaded once per process. */
#include <hwloc.h>
#include <pthread.h>

#include "platform.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static hwloc_topology_t topo;
static int ncpus = 1;

static void load(void)
{
    if (hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        topo = NULL;
        return;
    }
    /* The PUs this process may use (cgroups and affinity masks included). */
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
        hwloc_bitmap_and(set, set, allowed);
        int n = hwloc_bitmap_weight(set);
        if (n > 0)
            ncpus = n;
    } else {
        int n = hwloc_bitmap_weight(allowed);
        if (n > 0)
            ncpus = n;
    }
    hwloc_bitmap_free(set);
}

int shmemu__topo_ncpus(void)
{
    pthread_once(&once, load);
    return ncpus;
}

__attribute__((destructor)) static void unload(void)
{
    if (topo)
        hwloc_topology_destroy(topo);
    topo = NULL;
}
