/*
 * ll_allgather.cu - an allgather over NCCL's low-latency (LL) protocol, as
 * a user writes it: each 8-byte line carries 4 bytes of data and a 4-byte
 * flag, stored with one volatile store straight into the receiver's lines
 * through shmemu_dev_ptr, with no fence (a line is whole or not there);
 * the receiver polls its own lines until the flag is the round's.  Behind
 * the collective's signature, for shmemu-verify --lib (test_kernels:
 * test_verify_ll_allgather).
 *
 * A call moves its data in three rounds, one launch each, over two sets of
 * lines used in turn: round 3 writes the lines of round 1 again, with a
 * new flag, which is safe because a PE starts round 3 only once it has
 * every peer's round 2, which each peer sent only after it had finished
 * round 1 (reading its lines of round 1).  Nothing here may be reported:
 * it is correct on a GPU.
 */
#include <stddef.h>
#include <stdint.h>

#include "shmemu_device.h"

struct ll_args {
    const unsigned char *src;
    unsigned char *dest;
    size_t nbytes, nlines, lo, hi; /* this round's lines: [lo, hi) */
    int npes, me;
    uint32_t round;
    uint64_t *lines; /* symmetric: [2][npes][nlines] */
};

SHMEMU_DEVICE uint32_t pack(const unsigned char *src, size_t nbytes, size_t line)
{
    uint32_t v = 0;
    for (size_t b = 0; b < 4 && 4 * line + b < nbytes; b++)
        v |= (uint32_t)src[4 * line + b] << (8 * b);
    return v;
}

SHMEMU_DEVICE void unpack(unsigned char *dest, size_t nbytes, size_t line, uint32_t v)
{
    for (size_t b = 0; b < 4 && 4 * line + b < nbytes; b++)
        dest[4 * line + b] = (unsigned char)(v >> (8 * b));
}

SHMEMU_KERNEL(ll_kernel, struct ll_args, a)
{
    size_t first = blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
    uint64_t *set = a.lines + (size_t)(a.round & 1) * (size_t)a.npes * a.nlines;
    for (int p = 0; p < a.npes; p++) {
        uint64_t *theirs = (uint64_t *)shmemu_dev_ptr(set + (size_t)a.me * a.nlines, p);
        for (size_t i = a.lo + first; i < a.hi; i += step)
            ((volatile uint64_t *)theirs)[i] = (uint64_t)a.round << 32 | pack(a.src, a.nbytes, i);
    }
    for (int p = 0; p < a.npes; p++)
        for (size_t i = a.lo + first; i < a.hi; i += step) {
            const volatile uint64_t *line = set + (size_t)p * a.nlines + i;
            uint64_t v;
            do
                v = *line;
            while ((uint32_t)(v >> 32) != a.round);
            unpack(a.dest + (size_t)p * a.nbytes, a.nbytes, i, (uint32_t)v);
        }
}

SHMEMU_HOST int ll_allgather(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype);
SHMEMU_HOST int ll_allgather(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype)
{
    /* Lines are indexed by world PE: the world team only. */
    size_t es = shmemu_dtype_size(dtype);
    if (team != SHMEMU_TEAM_WORLD || !es)
        return SHMEMU_ENOTSUP;
    int n = shmemu_n_pes();
    size_t nbytes = count * es, nlines = (nbytes + 3) / 4;
    uint64_t *lines = (uint64_t *)shmemu_calloc(2 * (size_t)n * (nlines ? nlines : 1),
                                                sizeof(uint64_t));
    if (!lines)
        return SHMEMU_ENOMEM;
    int st = SHMEMU_OK;
    for (uint32_t r = 1; r <= 3 && st == SHMEMU_OK; r++) {
        struct ll_args a = {(const unsigned char *)src, (unsigned char *)dest, nbytes, nlines,
                            nlines * (r - 1) / 3, nlines * r / 3, n, shmemu_my_pe(), r, lines};
        st = shmemu_launch_kernel(ll_kernel, 2, 32, &a);
    }
    shmemu_free(lines); /* a sync: every peer has its lines */
    return st;
}
