/* platform.c - what the core asks of the machine: topology (hwloc, loaded
 * once per process) and membarrier(2). */
#include <hwloc.h>
#include <stdio.h>

#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static hwloc_topology_t topo;
static hwloc_bitmap_t avail; /* PUs this process may run on */
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
    avail = hwloc_bitmap_alloc();
    if (!avail)
        return;
    if (hwloc_get_cpubind(topo, avail, HWLOC_CPUBIND_PROCESS) == 0)
        hwloc_bitmap_and(avail, avail, allowed);
    else
        hwloc_bitmap_copy(avail, allowed);
    int n = hwloc_bitmap_weight(avail);
    if (n > 0)
        ncpus = n;
}

void shmemu__bind_pe(int mode, int pe, int npes, void *heap, size_t len)
{
    pthread_once(&once, load);
    if (mode == SHMEMU__BIND_NONE || !topo || !avail)
        return;
    int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, avail, HWLOC_OBJ_CORE);
    if (ncores <= 0 || (mode == SHMEMU__BIND_AUTO && npes > ncores))
        return;
    if (npes > ncores && pe == 0)
        fprintf(stderr, "shmemu: binding %d PEs round-robin over %d cores (up to %d per "
                        "core)\n",
                npes, ncores, (npes + ncores - 1) / ncores);
    hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(topo, avail, HWLOC_OBJ_CORE,
                                                           (unsigned)(pe % ncores));
    if (!core)
        return;
    hwloc_bitmap_t set = hwloc_bitmap_dup(core->cpuset);
    if (!set)
        return;
    hwloc_bitmap_and(set, set, avail);
    (void)hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
    /* Pages not yet touched land on the core's node; shared pages already
     * reserved move there. */
    if (heap && len && core->nodeset)
        (void)hwloc_set_area_membind(topo, heap, len, core->nodeset, HWLOC_MEMBIND_BIND,
                                     HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_MIGRATE);
    hwloc_bitmap_free(set);
}

int shmemu__topo_ncpus(void)
{
    pthread_once(&once, load);
    return ncpus;
}

__attribute__((destructor)) static void unload(void)
{
    if (avail)
        hwloc_bitmap_free(avail);
    if (topo)
        hwloc_topology_destroy(topo);
    avail = NULL;
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
