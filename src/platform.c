/* platform.c - what the core asks of the machine: topology (hwloc, loaded
 * once per process) and membarrier(2). */
#include <hwloc.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* Registration is per process (and lost across fork), so remember the pid
 * that registered. */
static pid_t registered[2];

int shmemu__membarrier_register(int global)
{
    pid_t me = getpid();
    if (__atomic_load_n(&registered[global], __ATOMIC_ACQUIRE) == me)
        return 1;
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    int want = global ? MEMBARRIER_CMD_GLOBAL_EXPEDITED : MEMBARRIER_CMD_PRIVATE_EXPEDITED;
    int reg = global ? MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED
                     : MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED;
    if (cmds < 0 || !(cmds & want) || syscall(SYS_membarrier, reg, 0, 0) != 0)
        return 0;
    __atomic_store_n(&registered[global], me, __ATOMIC_RELEASE);
    return 1;
}

int shmemu__membarrier(int global)
{
    int cmd = global ? MEMBARRIER_CMD_GLOBAL_EXPEDITED : MEMBARRIER_CMD_PRIVATE_EXPEDITED;
    return syscall(SYS_membarrier, cmd, 0, 0) == 0 ? 0 : -1;
}
