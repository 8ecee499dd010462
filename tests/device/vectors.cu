/*
 * vectors.cu - a one-shot allreduce that moves its data as GPU kernels do,
 * 16 bytes a thread at a time (float4, as vLLM's packed types; int4 and
 * uint2 for the flags' words), with a scalar tail.  Behind the
 * collective's signature, for shmemu-verify --lib (test_kernels:
 * test_verify_vectors); CUDA's vector types on the CPU come from
 * shmemu_device.h.
 */
#include <stdint.h>

#include "shmemu_device.h"

#define VEC_BLOCKS 2

struct vec_args {
    const float *src;
    float *dest;
    size_t n;
    int npes, me;
    uint64_t *arrived; /* symmetric: arrivals at this PE's barrier */
    uint64_t round;
};

SHMEMU_DEVICE void vec_barrier(const struct vec_args *a, uint64_t round)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        for (int p = 0; p < a->npes; p++)
            shmemu_dev_signal_op(a->arrived, 1, SHMEMU_SIGNAL_ADD, p);
        shmemu_dev_signal_wait_until(a->arrived, SHMEMU_CMP_GE,
                                     round * gridDim.x * (uint64_t)a->npes);
    }
    __syncthreads();
}

SHMEMU_KERNEL(vec_oneshot_kernel, struct vec_args, a)
{
    size_t first = blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    vec_barrier(&a, a.round + 1);
    /* whole float4s where both buffers allow them, then the tail */
    int aligned = ((uintptr_t)a.src | (uintptr_t)a.dest) % sizeof(float4) == 0;
    size_t nv = aligned ? a.n / 4 : 0;
    for (size_t i = first; i < nv; i += step) {
        float4 s = make_float4(0, 0, 0, 0);
        for (int p = 0; p < a.npes; p++) {
            float4 v = ((const float4 *)shmemu_dev_ptr(a.src, p))[i];
            s = make_float4(s.x + v.x, s.y + v.y, s.z + v.z, s.w + v.w);
        }
        ((float4 *)a.dest)[i] = s;
    }
    for (size_t i = nv * 4 + first; i < a.n; i += step) {
        float s = 0;
        for (int p = 0; p < a.npes; p++)
            s += ((const float *)shmemu_dev_ptr(a.src, p))[i];
        a.dest[i] = s;
    }
    vec_barrier(&a, a.round + 2); /* nobody reads my src any more */
}

SHMEMU_HOST int vec_oneshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                            shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int vec_oneshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                            shmemu_dtype_t dtype, shmemu_op_t op)
{
    if (dtype != SHMEMU_FLOAT || op != SHMEMU_SUM || dest == src || team != SHMEMU_TEAM_WORLD)
        return SHMEMU_ENOTSUP;
    /* word 0 of the user's half of the workspace counts arrivals, word 1
     * this PE's calls (an atomic: on a GPU the host cannot load it) */
    uint64_t *ws = (uint64_t *)shmemu_team_workspace(team) + SHMEMU_TEAM_WORKSPACE_BYTES / 16;
    uint64_t calls = shmemu_uint64_atomic_fetch_inc(&ws[1], shmemu_my_pe());
    struct vec_args a = {(const float *)src, (float *)dest, count, shmemu_team_n_pes(team),
                         shmemu_my_pe(), ws, calls * 2};
    return shmemu_launch_kernel(vec_oneshot_kernel, VEC_BLOCKS, 64, &a);
}
