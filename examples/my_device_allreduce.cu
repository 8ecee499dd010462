/*
 * my_device_allreduce.cu - the tutorial's kernel (docs/TUTORIAL.md,
 * chapter 5): a one-shot allreduce of floats, written as a GPU author
 * writes it, behind a host entry with the collective's signature so that
 * shmemu-verify can load it:
 *
 *   build/shmemu-devcc -shared -fPIC examples/my_device_allreduce.cu \
 *       -o libmy_device_allreduce.so
 *   build/shmemu-verify --lib ./libmy_device_allreduce.so \
 *       --symbol my_device_allreduce --collective allreduce \
 *       --dtype float --op sum --in-place no
 *
 * my_device_allreduce_buggy is the same kernel without its last barrier:
 * a PE returns while its peers still read its src, and the caller's next
 * inputs leak into their sums.
 */
#include <stdint.h>

#include "shmemu_device.h"

struct ar_args {
    const float *src; /* symmetric */
    float *dest;
    size_t n;
    int npes, pe0, stride; /* the team: member m is world PE pe0 + m * stride */
    uint64_t *arrived;     /* symmetric: barrier arrivals at this PE */
    uint64_t round;        /* barriers this PE passed before this call */
    int buggy;
};

/* Every block of every member meets: each block's first thread raises
 * every member's arrival count (after a system-scope fence, so that what
 * its block stored is seen first), then waits for its own count to show
 * every block of every member at this barrier. */
SHMEMU_DEVICE void team_barrier(const struct ar_args *a, uint64_t round)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        for (int m = 0; m < a->npes; m++)
            shmemu_dev_signal_op(a->arrived, 1, SHMEMU_SIGNAL_ADD, a->pe0 + m * a->stride);
        shmemu_dev_signal_wait_until(a->arrived, SHMEMU_CMP_GE,
                                     round * gridDim.x * (uint64_t)a->npes);
    }
    __syncthreads();
}

SHMEMU_KERNEL(my_oneshot, struct ar_args, a)
{
    size_t first = blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    team_barrier(&a, a.round + 1); /* every member's src is ready */
    for (int m = 0; m < a.npes; m++) { /* the same order on every PE: the same bits */
        const float *peer = (const float *)shmemu_dev_ptr(a.src, a.pe0 + m * a.stride);
        for (size_t i = first; i < a.n; i += step)
            a.dest[i] = m ? a.dest[i] + peer[i] : peer[i];
    }
    if (!a.buggy)
        team_barrier(&a, a.round + 2); /* nobody reads my src any more */
}

/* The host entry: the collective's signature (shmemu.h), so that the
 * verifier loads it with dlsym; it keeps its C name under nvcc. */
static int run(shmemu_team_t team, void *dest, const void *src, size_t count,
               shmemu_dtype_t dtype, shmemu_op_t op, int buggy)
{
    int n = shmemu_team_n_pes(team);
    if (n < 1)
        return SHMEMU_EINVAL;
    /* This kernel sums floats, out of place: it declines other cases. */
    if (dtype != SHMEMU_FLOAT || op != SHMEMU_SUM || dest == src)
        return SHMEMU_ENOTSUP;
    /* The user's half of the team's workspace: word 0 counts arrivals,
     * word 1 the calls this PE made (its own, through an atomic: on a GPU
     * the host cannot load the heap). */
    uint64_t *ws = (uint64_t *)shmemu_team_workspace(team) + SHMEMU_TEAM_WORKSPACE_BYTES / 16;
    uint64_t calls = shmemu_uint64_atomic_fetch_inc(&ws[1], shmemu_my_pe());
    int pe0 = shmemu_team_translate_pe(team, 0, SHMEMU_TEAM_WORLD);
    struct ar_args a = {(const float *)src, (float *)dest, count, n, pe0,
                        n > 1 ? shmemu_team_translate_pe(team, 1, SHMEMU_TEAM_WORLD) - pe0 : 1,
                        ws, calls * (buggy ? 1 : 2), buggy};
    return shmemu_launch_kernel(my_oneshot, 2, 64, &a);
}

SHMEMU_HOST int my_device_allreduce(shmemu_team_t team, void *dest, const void *src,
                                    size_t count, shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int my_device_allreduce(shmemu_team_t team, void *dest, const void *src,
                                    size_t count, shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, 0);
}

SHMEMU_HOST int my_device_allreduce_buggy(shmemu_team_t team, void *dest, const void *src,
                                          size_t count, shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int my_device_allreduce_buggy(shmemu_team_t team, void *dest, const void *src,
                                          size_t count, shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, 1);
}
