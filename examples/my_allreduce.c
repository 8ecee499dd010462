/*
 * my_allreduce.c - a user's own allreduce, written against the public API
 * and checked with shmemu-verify (docs/TUTORIAL.md walks through it):
 *
 *   cc -shared -fPIC -Iinclude -o libmy_allreduce.so examples/my_allreduce.c
 *   build/shmemu-verify --lib ./libmy_allreduce.so --symbol my_allreduce \
 *       --collective allreduce
 *
 * Each PE owns a slice of the vector: it reads that slice of every PE's
 * src, reduces it, and puts the finished slice into every PE's dest.
 */
#include <string.h>

#include "shmemu.h"

/* Exported for shmemu-verify --symbol: the generic allreduce signature. */
int my_allreduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                 shmemu_dtype_t dtype, shmemu_op_t op);

int my_allreduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                 shmemu_dtype_t dtype, shmemu_op_t op)
{
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    size_t es = shmemu_dtype_size(dtype);
    /* My slice: [lo, hi).  Slices differ by at most one element. */
    size_t lo = count * (size_t)me / (size_t)n, hi = count * (size_t)(me + 1) / (size_t)n;
    size_t len = hi - lo;
    /* Scratch, not malloc: in ABORT mode another PE's error unwinds this
     * PE out of the calls below, and the PE then releases them itself. */
    char *acc = shmemu_scratch_malloc(len * es), *tmp = shmemu_scratch_malloc(len * es);
    int st = acc && tmp ? shmemu_quiet() : SHMEMU_ENOMEM;
    if (!st)
        st = shmemu_team_sync(team); /* every src is ready */
    if (!st)
        memcpy(acc, (const char *)src + lo * es, len * es);
    for (int k = 1; k < n && !st; k++) {
        int pe = shmemu_team_translate_pe(team, (me + k) % n, SHMEMU_TEAM_WORLD);
        st = shmemu_getmem(tmp, (const char *)src + lo * es, len * es, pe);
        if (!st)
            st = shmemu_reduce_local(dtype, op, acc, acc, tmp, len);
    }
    /* dest may be src (in place): nobody may still be reading it. */
    if (!st)
        st = shmemu_team_sync(team);
    for (int k = 0; k < n && !st; k++) {
        int pe = shmemu_team_translate_pe(team, (me + k) % n, SHMEMU_TEAM_WORLD);
        st = shmemu_putmem((char *)dest + lo * es, acc, len * es, pe);
    }
    if (!st)
        st = shmemu_quiet(); /* the puts are delivered ... */
    if (!st)
        st = shmemu_team_sync(team); /* ... before anyone returns */
    shmemu_scratch_free(acc);
    shmemu_scratch_free(tmp);
    return st;
}
