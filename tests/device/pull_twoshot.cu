/*
 * pull_twoshot.cu - vLLM's two-shot allreduce in the form its data takes
 * there: each PE's block reduces its part of every src into a buffer of
 * its own, raises the peers' flags with volatile stores through peer
 * pointers, and the peers pull the parts with float4 loads through peer
 * pointers.  The handle (signal pad, part buffer, call count) is kept in
 * statics, as a GPU rank keeps it.  Behind the collective's signature, for
 * shmemu-verify --lib (test_kernels: test_verify_pull_twoshot).
 *
 * pull_twoshot orders the parts as the GPU's memory model asks: a
 * system-scope fence between a part and its flag, and one between seeing
 * a flag and pulling.  pull_twoshot_devfence fences the writer's side
 * with __threadfence() (vLLM's issue 2760), pull_twoshot_noacq the
 * reader's (aiter's issue 4786): device scope orders nothing for another
 * GPU, and the checker says which fence is missing.
 */
#include <stdint.h>
#include <string.h>

#include "shmemu_device.h"

#define PT_BLOCKS 2
#define PT_MAX_PES 8

struct pt_pad {
    uint32_t start[PT_BLOCKS][PT_MAX_PES]; /* [block][from PE]: the call it reached */
    uint32_t mid[PT_BLOCKS][PT_MAX_PES];
    uint32_t end[PT_BLOCKS][PT_MAX_PES];
};

enum { PT_OK, PT_DEVFENCE, PT_NOACQ };

struct pt_args {
    const float4 *src;
    float4 *dest, *part; /* part: symmetric, this PE's reduced part */
    size_t n4;
    struct pt_pad *pad;
    uint32_t call;
    int me, npes, bug;
};

/* Threads t < npes raise PE t's slot for this PE and wait for PE t's in
 * their own pad.  release, acquire: the system-scope fence before the
 * flag (what the block stored before it is seen first) and after seeing
 * the peer's (what the peer stored is seen after), each dropped by one
 * of the planted bugs at the middle barrier. */
SHMEMU_DEVICE void pt_barrier(const struct pt_args *a, uint32_t (*slots)[PT_MAX_PES],
                              int release, int acquire)
{
    __syncthreads();
    if ((int)threadIdx.x < a->npes) {
        struct pt_pad *peer = (struct pt_pad *)shmemu_dev_ptr(a->pad, (int)threadIdx.x);
        size_t at = (size_t)((char *)slots - (char *)a->pad);
        uint32_t(*theirs)[PT_MAX_PES] = (uint32_t(*)[PT_MAX_PES])((char *)peer + at);
        if (release)
            __threadfence_system();
        else
            __threadfence();
        *(volatile uint32_t *)&theirs[blockIdx.x][a->me] = a->call;
        while (*(volatile uint32_t *)&slots[blockIdx.x][threadIdx.x] != a->call) {
        }
        if (acquire)
            __threadfence_system();
        else
            __threadfence();
    }
    __syncthreads();
}

SHMEMU_KERNEL(pt_kernel, struct pt_args, a)
{
    size_t first = blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    size_t chunk = (a.n4 + (size_t)a.npes - 1) / (size_t)a.npes;
    pt_barrier(&a, a.pad->start, 1, 1); /* every src is ready */
    size_t lo = chunk * (size_t)a.me, hi = lo + chunk < a.n4 ? lo + chunk : a.n4;
    for (size_t i = lo + first; i < hi; i += step) {
        float4 s = make_float4(0, 0, 0, 0);
        for (int p = 0; p < a.npes; p++) {
            float4 v = ((const float4 *)shmemu_dev_ptr(a.src, p))[i];
            s = make_float4(s.x + v.x, s.y + v.y, s.z + v.z, s.w + v.w);
        }
        /* one 16-byte move whatever the compiler's options: a float4
         * assigned may become four 4-byte stores (gcc with ASan), which
         * the checker cannot tell from flags (docs/CHECK.md) */
        memcpy(&a.part[i], &s, sizeof(s));
    }
    pt_barrier(&a, a.pad->mid, a.bug != PT_DEVFENCE, a.bug != PT_NOACQ); /* parts ready */
    for (int p = 0; p < a.npes; p++) {
        const float4 *theirs = (const float4 *)shmemu_dev_ptr(a.part, p);
        size_t plo = chunk * (size_t)p, phi = plo + chunk < a.n4 ? plo + chunk : a.n4;
        for (size_t i = plo + first; i < phi; i += step)
            a.dest[i] = theirs[i];
    }
    pt_barrier(&a, a.pad->end, 1, 1); /* nobody reads my part or src any more */
}

/* The handle, made on the first call (never freed, as a process's). */
static struct pt_pad *pad;
static float4 *part;
static size_t part_n4;
static uint32_t calls;

static int run(shmemu_team_t team, void *dest, const void *src, size_t count,
               shmemu_dtype_t dtype, shmemu_op_t op, int bug)
{
    int n = shmemu_team_n_pes(team);
    if (dtype != SHMEMU_FLOAT || op != SHMEMU_SUM || dest == src || team != SHMEMU_TEAM_WORLD ||
        n > PT_MAX_PES || count % 4 || ((uintptr_t)dest | (uintptr_t)src) % sizeof(float4))
        return SHMEMU_ENOTSUP; /* whole float4s, world team, out of place */
    if (!pad && !(pad = (struct pt_pad *)shmemu_calloc(1, sizeof(*pad))))
        return SHMEMU_ENOMEM;
    if (part_n4 < count / 4) { /* every PE asks the same: a collective call */
        shmemu_free(part);
        part_n4 = count / 4;
        if (!(part = (float4 *)shmemu_malloc(part_n4 * sizeof(float4))))
            return SHMEMU_ENOMEM;
    }
    struct pt_args a = {(const float4 *)src, (float4 *)dest, part, count / 4, pad, ++calls,
                        shmemu_my_pe(), n, bug};
    return shmemu_launch_kernel(pt_kernel, PT_BLOCKS, 32, &a);
}

SHMEMU_HOST int pull_twoshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int pull_twoshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, PT_OK);
}

SHMEMU_HOST int pull_twoshot_devfence(shmemu_team_t team, void *dest, const void *src,
                                      size_t count, shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int pull_twoshot_devfence(shmemu_team_t team, void *dest, const void *src,
                                      size_t count, shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, PT_DEVFENCE);
}

SHMEMU_HOST int pull_twoshot_noacq(shmemu_team_t team, void *dest, const void *src, size_t count,
                                   shmemu_dtype_t dtype, shmemu_op_t op);
SHMEMU_HOST int pull_twoshot_noacq(shmemu_team_t team, void *dest, const void *src, size_t count,
                                   shmemu_dtype_t dtype, shmemu_op_t op)
{
    return run(team, dest, src, count, dtype, op, PT_NOACQ);
}
