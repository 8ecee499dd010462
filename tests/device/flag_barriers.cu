/*
 * flag_barriers.cu - allreduce kernels synchronised the way vLLM's and
 * SGLang's custom allreduce kernels are: each block keeps a counter in
 * symmetric memory, and a barrier is every thread t < npes storing the
 * next count into PE t's slot for this PE, then spinning with volatile
 * loads on its own slot for PE t.  Behind the collective's signature, for
 * shmemu-verify --lib (test_kernels: test_verify_flag_barriers).
 *
 * Two things in it rely on how a GPU runs a warp, and must run on the CPU
 * as they do there:
 * - the last barrier has no __syncthreads after its spin: thread 0 stores
 *   the block's new count a few branches after every thread of its warp
 *   read the old one, with nothing ordering the read and the store but the
 *   warp running them together (shmemu-devcc runs a warp in step after
 *   __syncthreads: src/device/launch.c, LOCKSTEP);
 * - the data a barrier announces is ordered by the cumulativity of a
 *   system-scope fence: the block's stores, __syncthreads, then each
 *   flag thread's __threadfence_system() before its flag.
 *
 * flag_twoshot's barriers wait until the slot reaches the count (>=), not
 * until it equals it: its last two barriers raise the same slots, and a PE
 * that passed the middle one may raise its slot again before a peer's
 * spinning thread saw the first value (on the CPU a PE's threads take
 * turns and its process may sleep; a wait for equality then never ends).
 */
#include <stdint.h>

#include "shmemu_device.h"

#define FB_BLOCKS 2
#define FB_MAX_PES 8

struct fb_signals {
    uint32_t start[FB_BLOCKS][FB_MAX_PES]; /* [block][from PE] */
    uint32_t end[FB_BLOCKS][FB_MAX_PES];
    uint32_t count[FB_BLOCKS]; /* barriers this block passed */
};

struct fb_args {
    const float *src;
    float *dest;
    size_t n;
    int npes, me;
    struct fb_signals *sig; /* symmetric: the user's half of the team's workspace */
};

SHMEMU_DEVICE void raise_volatile(uint32_t *slot, uint32_t v) { *(volatile uint32_t *)slot = v; }

SHMEMU_DEVICE uint32_t look(const uint32_t *slot) { return *(const volatile uint32_t *)slot; }

/* Nothing before the kernel needs announcing (the inputs were written
 * before the launch on every PE), so volatile flags and no fence. */
SHMEMU_DEVICE void barrier_at_start(const struct fb_args *a)
{
    uint32_t next = a->sig->count[blockIdx.x] + 1;
    if ((int)threadIdx.x < a->npes) {
        struct fb_signals *peer = (struct fb_signals *)shmemu_dev_ptr(a->sig, (int)threadIdx.x);
        raise_volatile(&peer->start[blockIdx.x][a->me], next);
        while (look(&a->sig->start[blockIdx.x][threadIdx.x]) != next) {
        }
    }
    __syncthreads();
    if (threadIdx.x == 0)
        a->sig->count[blockIdx.x] = next;
}

/* announce: the block's stores before it are read by peers after it (a
 * system-scope fence before the flag, and one after seeing the peer's).
 * last: nothing is read after it; it only keeps a PE from returning (and
 * its caller from changing src) while peers still read. */
SHMEMU_DEVICE void barrier_at_end(const struct fb_args *a, int last, int at_least)
{
    __syncthreads();
    uint32_t next = a->sig->count[blockIdx.x] + 1;
    if ((int)threadIdx.x < a->npes) {
        struct fb_signals *peer = (struct fb_signals *)shmemu_dev_ptr(a->sig, (int)threadIdx.x);
        uint32_t *mine = &a->sig->end[blockIdx.x][threadIdx.x];
        if (!last)
            __threadfence_system();
        raise_volatile(&peer->end[blockIdx.x][a->me], next);
        if (at_least)
            while ((int32_t)(look(mine) - next) < 0) {
            }
        else
            while (look(mine) != next) {
            }
        if (!last)
            __threadfence_system();
    }
    if (!last)
        __syncthreads();
    if (threadIdx.x == 0) /* the warp read the old count together */
        a->sig->count[blockIdx.x] = next;
}

/* Every PE sums every PE's src, in PE order (the same bits everywhere). */
SHMEMU_KERNEL(flag_oneshot_kernel, struct fb_args, a)
{
    size_t first = blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    barrier_at_start(&a);
    for (size_t i = first; i < a.n; i += step) {
        float s = 0;
        for (int p = 0; p < a.npes; p++)
            s += ((const float *)shmemu_dev_ptr(a.src, p))[i];
        a.dest[i] = s;
    }
    barrier_at_end(&a, 1, 0);
}

/* PE p sums part p of every src into its dest, then copies the other
 * parts out of their owners' dest.  A part is read after the barrier by
 * the same thread index that wrote it before (the flags' cumulativity
 * reaches the block, and the block's threads are the same on every PE). */
SHMEMU_KERNEL(flag_twoshot_kernel, struct fb_args, a)
{
    size_t first = blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    size_t part = a.n / (size_t)a.npes;
    barrier_at_start(&a);
    size_t lo = (size_t)a.me * part, hi = a.me == a.npes - 1 ? a.n : lo + part;
    for (size_t i = lo + first; i < hi; i += step) {
        float s = 0;
        for (int p = 0; p < a.npes; p++)
            s += ((const float *)shmemu_dev_ptr(a.src, p))[i];
        a.dest[i] = s;
    }
    barrier_at_end(&a, 0, 1);
    for (int p = 0; p < a.npes; p++) {
        if (p == a.me)
            continue;
        const float *theirs = (const float *)shmemu_dev_ptr(a.dest, p);
        size_t plo = (size_t)p * part, phi = p == a.npes - 1 ? a.n : plo + part;
        for (size_t i = plo + first; i < phi; i += step)
            a.dest[i] = theirs[i];
    }
    barrier_at_end(&a, 1, 1);
}

static int run(shmemu_team_t team, void *dest, const void *src, size_t count,
               shmemu_dtype_t dtype, shmemu_op_t op, int twoshot)
{
    int n = shmemu_team_n_pes(team);
    /* The flags are indexed by world PE: the world team only. */
    if (dtype != SHMEMU_FLOAT || op != SHMEMU_SUM || dest == src || team != SHMEMU_TEAM_WORLD ||
        n > FB_MAX_PES)
        return SHMEMU_ENOTSUP;
    struct fb_args a = {(const float *)src, (float *)dest, count, n, shmemu_my_pe(),
                        (struct fb_signals *)((char *)shmemu_team_workspace(team) +
                                              SHMEMU_TEAM_WORKSPACE_BYTES / 2)};
    return twoshot ? shmemu_launch_kernel(flag_twoshot_kernel, FB_BLOCKS, 64, &a)
                   : shmemu_launch_kernel(flag_oneshot_kernel, FB_BLOCKS, 64, &a);
}

SHMEMU_HOST int flag_oneshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int flag_oneshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, 0);
}

SHMEMU_HOST int flag_twoshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int flag_twoshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, 1);
}
