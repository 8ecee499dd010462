/*
 * table.c - what a kernel built with nvcc gets from the library at each
 * launch (shmemu_device.h's GPU side): every PE's heap as this PE's device
 * addresses it, and the world team's workspace.  Plain C: the library
 * itself never links CUDA.
 */
#include "device.h"
#include "runtime/dispatch.h"
#include "shmemu_cuda.h"

int shmemu_devrt_cuda_table(struct shmemu_devrt_table *t)
{
    static const char call[] = "shmemu_launch_kernel";
    SHMEMU__ENTER(me, call, SHMEMU_EABORTED);
    if (!t)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "table is NULL");
    if (shmemu_my_device() < 0)
        return shmemu__fail(me, SHMEMU_ENOTSUP, call,
                            "a kernel built with nvcc runs on the cuda transport (this job runs "
                            "on %s: build the file with shmemu-devcc for the CPU transports)",
                            shmemu__tl_name(me->job));
    if (me->npes > SHMEMU_DEVRT_MAX_PES)
        return shmemu__fail(me, SHMEMU_ENOTSUP, call,
                            "%d PEs: device code reaches at most %d", me->npes,
                            SHMEMU_DEVRT_MAX_PES);
    t->heap = me->heap;
    t->heap_size = me->heap_size;
    t->me = me->pe;
    t->npes = me->npes;
    t->ws = shmemu_team_workspace(SHMEMU_TEAM_WORLD);
    for (int p = 0; p < me->npes; p++)
        if (!(t->base[p] = shmemu__tl_ptr(me->job, p, 0)))
            return shmemu__fail(me, SHMEMU_ENOTSUP, call, "PE %d's heap is not mapped here", p);
    return shmemu__ok();
}
