/*
 * device.c - the device-initiated built-ins' host entries: the checks and
 * sequence number every collective takes (coll.h), then one kernel launch
 * on the calling PE (device_kernels.cu), which returns when the kernel
 * has ended.  The kernels run where device code runs on the CPU (local,
 * shm, sim); elsewhere the launch says why not.
 */
#include "coll.h"
#include "device.h"
#include "shmemu_device.h" /* the device barrier's words */

_Static_assert((int)DC_W_PROD == (int)W_PROD && (int)DC_W_CONS == (int)W_CONS &&
                   (int)DC_W_PUSH == (int)W_PUSH && (int)DC_W_ROUND == (int)W_ROUND &&
                   (int)DC_MAX_ROUNDS == COLL_MAX_ROUNDS,
               "device.h repeats coll.h's words");
_Static_assert((int)DC_W_ARRIVE >= SHMEMU_DEVRT_W_ROUND + SHMEMU_DEVRT_ROUNDS &&
                   (int)DC_W_RELEASE < (int)W_SCRATCH,
               "the kernels' words sit between the device barrier's and the scratch");

static int dev_coll(int kind, const char *call, shmemu_team_t team, void *dest, const void *src,
                    size_t count, shmemu_dtype_t dtype, shmemu_op_t op, int need_op,
                    unsigned per_pe, int root)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, call, team, dtype, op, need_op, dest, src, count, per_pe, root);
    if (!st && kind == DC_BCAST_PULL && root < 0) { /* begin's -1 is "no root" */
        shmemu__coll_end(&c);
        st = shmemu_error(SHMEMU_EINVAL, call, "root %d is not a PE of the team (0..%d)", root,
                          c.n - 1);
    }
    if (st)
        return st;
    struct shmemu__devcoll a = {
        .kind = kind, .dtype = (int)dtype, .op = (int)op, .dest = dest, .src = src,
        .count = count, .esize = c.esize, .n = c.n, .me = c.me, .pe0 = c.pe0,
        .stride = c.pe_stride, .root = root < 0 ? 0 : root, .ws = c.ws, .seq = c.seq};
    /* The kernels' signals share words with the host algorithms' (the
     * same tags): what an earlier call put lands before they are reused. */
    st = shmemu_quiet();
    if (!st)
        st = shmemu__devcoll_launch(&a);
    shmemu__coll_end(&c);
    return st;
}

int shmemu_allreduce_dev_oneshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                                 shmemu_dtype_t dtype, shmemu_op_t op)
{
    return dev_coll(DC_ONESHOT, "shmemu_allreduce_dev_oneshot", team, dest, src, count, dtype,
                    op, 1, 0, -1);
}

int shmemu_allreduce_dev_twoshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                                 shmemu_dtype_t dtype, shmemu_op_t op)
{
    return dev_coll(DC_TWOSHOT, "shmemu_allreduce_dev_twoshot", team, dest, src, count, dtype,
                    op, 1, 0, -1);
}

int shmemu_allgather_dev_ring(shmemu_team_t team, void *dest, const void *src, size_t sendcount,
                              shmemu_dtype_t dtype)
{
    return dev_coll(DC_AG_RING, "shmemu_allgather_dev_ring", team, dest, src, sendcount, dtype,
                    SHMEMU_SUM, 0, COLL_DEST_PER_PE, -1);
}

int shmemu_reduce_scatter_dev_ring(shmemu_team_t team, void *dest, const void *src,
                                   size_t recvcount, shmemu_dtype_t dtype, shmemu_op_t op)
{
    return dev_coll(DC_RS_RING, "shmemu_reduce_scatter_dev_ring", team, dest, src, recvcount,
                    dtype, op, 1, COLL_SRC_PER_PE, -1);
}

int shmemu_broadcast_dev_pull(shmemu_team_t team, void *dest, const void *src, size_t count,
                              shmemu_dtype_t dtype, int root)
{
    return dev_coll(DC_BCAST_PULL, "shmemu_broadcast_dev_pull", team, dest, src, count, dtype,
                    SHMEMU_SUM, 0, 0, root);
}
