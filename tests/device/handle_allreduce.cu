/*
 * handle_allreduce.cu - a one-shot allreduce that keeps its state the way
 * GPU collectives do (vLLM's CustomAllreduce, an NCCL communicator): in a
 * handle made on the first call and kept in static variables - the
 * signal pad's address and how many calls this rank has made.  On GPUs
 * every rank is a process with statics of its own; shmemu-verify gives
 * each PE of local and sim a copy of the library to match
 * (tools/verify-isolate.h; test_verify: test_tool_own_statics).
 *
 * handle_allreduce_crash faults on PE 1 at count 7, and
 * handle_allreduce_spin spins forever on a plain static at count 7: the
 * verifier fails those cases and goes on with the others.
 */
#include <stdint.h>

#include "shmemu_device.h"

#define HA_BLOCKS 2
#define HA_MAX_PES 16

struct ha_pad {
    uint32_t start[HA_BLOCKS][HA_MAX_PES]; /* [block][from PE]: the call it reached */
    uint32_t end[HA_BLOCKS][HA_MAX_PES];
};

struct ha_args {
    const float *src;
    float *dest;
    size_t n;
    int npes, me;
    uint32_t call;
    struct ha_pad *pad;
};

/* The handle: made once per rank, never freed (as a process's would be). */
static struct ha_pad *pad;
static uint32_t calls;
static volatile int never;
static int *volatile nowhere; /* NULL, unknown to the compiler */

SHMEMU_DEVICE void ha_barrier(const struct ha_args *a, int end)
{
    __syncthreads();
    if ((int)threadIdx.x < a->npes) {
        struct ha_pad *peer = (struct ha_pad *)shmemu_dev_ptr(a->pad, (int)threadIdx.x);
        volatile uint32_t *theirs = end ? &peer->end[blockIdx.x][a->me]
                                        : &peer->start[blockIdx.x][a->me];
        volatile uint32_t *mine = end ? &a->pad->end[blockIdx.x][threadIdx.x]
                                      : &a->pad->start[blockIdx.x][threadIdx.x];
        __threadfence_system();
        *theirs = a->call;
        while (*mine != a->call) {
        }
        __threadfence_system();
    }
    __syncthreads();
}

SHMEMU_KERNEL(ha_oneshot, struct ha_args, a)
{
    size_t first = blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    ha_barrier(&a, 0);
    for (size_t i = first; i < a.n; i += step) {
        float s = 0;
        for (int p = 0; p < a.npes; p++)
            s += ((const float *)shmemu_dev_ptr(a.src, p))[i];
        a.dest[i] = s;
    }
    ha_barrier(&a, 1); /* nobody reads my src any more */
}

static int run(shmemu_team_t team, void *dest, const void *src, size_t count,
               shmemu_dtype_t dtype, shmemu_op_t op, int bug)
{
    int n = shmemu_team_n_pes(team), me = shmemu_my_pe();
    if (dtype != SHMEMU_FLOAT || op != SHMEMU_SUM || dest == src || team != SHMEMU_TEAM_WORLD ||
        n > HA_MAX_PES)
        return SHMEMU_ENOTSUP;
    if (!pad && !(pad = (struct ha_pad *)shmemu_calloc(1, sizeof(*pad))))
        return SHMEMU_ENOMEM;
    if (bug == 1 && count == 7 && me == 1)
        *nowhere = 1;
    while (bug == 2 && count == 7 && !never) {
    }
    struct ha_args a = {(const float *)src, (float *)dest, count, n, me, ++calls, pad};
    return shmemu_launch_kernel(ha_oneshot, HA_BLOCKS, 32, &a);
}

SHMEMU_HOST int handle_allreduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                                 shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int handle_allreduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                                 shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, 0);
}

SHMEMU_HOST int handle_allreduce_crash(shmemu_team_t team, void *dest, const void *src,
                                       size_t count, shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int handle_allreduce_crash(shmemu_team_t team, void *dest, const void *src,
                                       size_t count, shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, 1);
}

SHMEMU_HOST int handle_allreduce_spin(shmemu_team_t team, void *dest, const void *src,
                                      size_t count, shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int handle_allreduce_spin(shmemu_team_t team, void *dest, const void *src,
                                      size_t count, shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, 2);
}
