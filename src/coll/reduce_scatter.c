/* reduce_scatter.c - reduce-scatter by ring and by recursive halving. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

static int begin(struct coll *c, const char *call, shmemu_team_t team, void *dest,
                 const void *src, size_t recvcount, shmemu_dtype_t dtype, shmemu_op_t op)
{
    return shmemu__coll_begin(c, call, team, dtype, op, 1, dest, src, recvcount, COLL_SRC_PER_PE,
                      -1);
}

/*
 * Ring: at step s my partial of chunk me-2-s is (left's partial) OP (my src
 * chunk); after n-1 steps the partial is chunk me, finished.  dest holds one
 * chunk, so each partial overwrites the last: I copy my left neighbour's
 * partial out (telling it so) before waiting for my right neighbour to have
 * copied mine -- waiting first would make the ring wait on itself.
 */
int shmemu_reduce_scatter_ring(shmemu_team_t team, void *dest, const void *src,
                               size_t recvcount, shmemu_dtype_t dtype, shmemu_op_t op)
{
    struct coll c;
    int st = begin(&c, "shmemu_reduce_scatter_ring", team, dest, src, recvcount, dtype, op);
    if (st)
        return st;
    int n = c.n, me = c.me, left = (me + n - 1) % n, right = (me + 1) % n;
    if (n == 1 || !recvcount) {
        st = shmemu__coll_copy_in(&c, dest, src, recvcount);
        shmemu__coll_end(&c);
        return st;
    }
    void *tmp = shmemu_scratch_malloc(recvcount * c.esize);
    if (!tmp) {
        shmemu__coll_end(&c);
        return shmemu_error(SHMEMU_ENOMEM, c.call, "out of memory");
    }
    st = shmemu__coll_sync(&c);
    for (int s = 0; s < n - 1 && !st; s++) {
        int ch = (me + 2 * n - 2 - s) % n;
        const char *mine = (const char *)src + (size_t)ch * recvcount * c.esize;
        if (s == 0) {
            st = shmemu__coll_pull(&c, tmp, mine, recvcount, left); /* left's src chunk */
        } else if (!(st = shmemu__coll_wait(&c, W_PROD, (uint64_t)s - 1)) &&
                   !(st = shmemu__coll_pull(&c, tmp, dest, recvcount, left))) {
            st = shmemu__coll_signal(&c, left, W_CONS, (uint64_t)s - 1);
            if (!st)
                st = shmemu__coll_wait(&c, W_CONS, (uint64_t)s - 1); /* right copied mine */
        }
        if (!st) {
            st = coll_reduce(&c, dest, tmp, mine, recvcount);
            if (!st)
                st = shmemu__coll_signal(&c, right, W_PROD, (uint64_t)s);
        }
    }
    if (!st)
        st = shmemu__coll_sync(&c);
    shmemu_scratch_free(tmp);
    shmemu__coll_end(&c);
    return st;
}

/*
 * Recursive halving, a block at a time: the working vector (one block of
 * every PE's chunk) must be readable by the partner, so it lives in the
 * team workspace's scratch; each round halves the set of chunks a PE is
 * responsible for.  Folded-away PEs hand their data in first and take their
 * chunk back at the end.
 */
int shmemu_reduce_scatter_rhalving(shmemu_team_t team, void *dest, const void *src,
                                   size_t recvcount, shmemu_dtype_t dtype, shmemu_op_t op)
{
    struct coll c;
    int st = begin(&c, "shmemu_reduce_scatter_rhalving", team, dest, src, recvcount, dtype,
                   op);
    if (st)
        return st;
    int n = c.n, me = c.me;
    if (n == 1 || !recvcount) {
        st = shmemu__coll_copy_in(&c, dest, src, recvcount);
        shmemu__coll_end(&c);
        return st;
    }
    char *work = (char *)&c.ws[W_SCRATCH];
    size_t block = COLL_SCRATCH_BYTES / ((size_t)n * c.esize);
    if (!block) {
        shmemu__coll_end(&c);
        return shmemu_error(SHMEMU_ENOTSUP, c.call,
                            "%d PEs of %zu-byte elements do not fit the team workspace "
                            "(use the ring)",
                            n, c.esize);
    }
    struct fold f = fold_of(n, me);
    int rounds = 0;
    while ((1 << rounds) < f.p2)
        rounds++;
    uint64_t step = 0; /* one signal step per phase of each block */
    for (size_t at = 0; at < recvcount && !st; at += block) {
        size_t b = recvcount - at < block ? recvcount - at : block;
        /* work[ch * b ..] = my src's block of chunk ch */
        for (int ch = 0; ch < n && !st; ch++)
            st = coll_copy(&c, work + (size_t)ch * b * c.esize,
                           (const char *)src + ((size_t)ch * recvcount + at) * c.esize, b);
        if (st || (st = shmemu__coll_sync(&c)))
            break;
        if (me < 2 * f.rem) { /* fold in */
            if (f.newrank < 0)
                st = shmemu__coll_signal(&c, me + 1, W_UP, step);
            else if (!(st = shmemu__coll_wait(&c, W_UP, step)))
                st = shmemu__coll_pull_reduce(&c, work, work, work, (size_t)n * b, me - 1);
        }
        int lo = 0, hi = f.p2; /* newranks whose chunks I still hold partials of */
        for (int r = 0; r < rounds && f.newrank >= 0 && !st; r++) {
            int dist = f.p2 >> (r + 1), partner = fold_real(&f, f.newrank ^ dist);
            int mid = lo + (hi - lo) / 2;
            if (f.newrank & dist)
                lo = mid;
            else
                hi = mid;
            size_t from = (size_t)fold_lo(&f, lo) * b, len = (size_t)fold_lo(&f, hi) * b - from;
            if (!(st = shmemu__coll_signal(&c, partner, W_ROUND + r, step)) &&
                !(st = shmemu__coll_wait(&c, W_ROUND + r, step)))
                st = shmemu__coll_pull_reduce(&c, work + from * c.esize, work + from * c.esize,
                                      work + from * c.esize, len, partner);
        }
        char *out = (char *)dest + at * c.esize;
        if (!st && f.newrank >= 0) {
            st = coll_copy(&c, out, work + (size_t)me * b * c.esize, b);
            if (!st && me < 2 * f.rem)
                st = shmemu__coll_signal(&c, me - 1, W_DOWN, step);
        } else if (!st && !(st = shmemu__coll_wait(&c, W_DOWN, step))) {
            st = shmemu__coll_pull(&c, out, work + (size_t)me * b * c.esize, b, me + 1);
        }
        step++;
        if (!st)
            st = shmemu__coll_sync(&c); /* the scratch is reused by the next block */
    }
    shmemu__coll_end(&c);
    return st;
}
