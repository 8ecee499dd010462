/* allgather.c - allgather by ring, Bruck and recursive doubling. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

static int begin(struct coll *c, const char *call, shmemu_team_t team, void *dest,
                 const void *src, size_t sendcount, shmemu_dtype_t dtype)
{
    return shmemu__coll_begin(c, call, team, dtype, SHMEMU_SUM, 0, dest, src, sendcount,
                      COLL_DEST_PER_PE, -1);
}

/* Every variant starts with the caller's block in its own place. */
static int own_block(struct coll *c, void *dest, const void *src, size_t count)
{
    return coll_copy(c, elem(dest, c, (size_t)c->me * count), src, count);
}

/* Ring: at step s, fetch block me-1-s from my left neighbour, which holds
 * it from its previous step (or owns it). */
int shmemu_allgather_ring(shmemu_team_t team, void *dest, const void *src, size_t sendcount,
                          shmemu_dtype_t dtype)
{
    struct coll c;
    int st = begin(&c, "shmemu_allgather_ring", team, dest, src, sendcount, dtype);
    if (st)
        return st;
    int n = c.n, me = c.me, left = (me + n - 1) % n, right = (me + 1) % n;
    st = own_block(&c, dest, src, sendcount);
    if (!st && n > 1 && sendcount) {
        st = shmemu__coll_sync(&c);
        for (int s = 0; s < n - 1 && !st; s++) {
            size_t at = (size_t)((me + 2 * n - 1 - s) % n) * sendcount;
            if (s > 0)
                st = shmemu__coll_wait(&c, W_PROD, (uint64_t)s - 1);
            if (!st)
                st = shmemu__coll_pull(&c, elem(dest, &c, at), elem(dest, &c, at), sendcount, left);
            if (!st)
                st = shmemu__coll_signal(&c, right, W_PROD, (uint64_t)s);
        }
        if (!st)
            st = shmemu__coll_sync(&c);
    }
    shmemu__coll_end(&c);
    return st;
}

/* Bruck: in dest rotated so that slot i holds block me+i, at distance k fetch
 * the partner me+k's first min(k, n-k) slots; ceil(log2 n) rounds for any n.
 * A final local rotation puts the blocks in place, once nobody reads mine. */
int shmemu_allgather_bruck(shmemu_team_t team, void *dest, const void *src,
                           size_t sendcount, shmemu_dtype_t dtype)
{
    struct coll c;
    int st = begin(&c, "shmemu_allgather_bruck", team, dest, src, sendcount, dtype);
    if (st)
        return st;
    int n = c.n, me = c.me;
    if (n == 1 || !sendcount) {
        st = own_block(&c, dest, src, sendcount);
        shmemu__coll_end(&c);
        return st;
    }
    size_t bytes = sendcount * c.esize;
    st = coll_copy(&c, dest, src, sendcount); /* slot 0: my own block */
    if (!st)
        st = shmemu__coll_sync(&c);
    int r = 0;
    for (int k = 1; k < n && !st; k *= 2, r++) {
        int partner = (me + k) % n, take = k < n - k ? k : n - k;
        if (r > 0)
            st = shmemu__coll_wait(&c, W_ROUND + r - 1, 0); /* partner has its first k slots */
        if (!st)
            st = shmemu__coll_pull(&c, (char *)dest + (size_t)k * bytes, dest,
                           (size_t)take * sendcount, partner);
        if (!st && k * 2 < n) /* whoever fetches from me next round may */
            st = shmemu__coll_signal(&c, (me + n - 2 * k % n) % n, W_ROUND + r, 0);
    }
    char *tmp = st ? NULL : shmemu_scratch_malloc((size_t)n * bytes);
    if (!st && !tmp)
        st = shmemu_error(SHMEMU_ENOMEM, c.call, "out of memory");
    if (!st && !(st = shmemu__coll_sync(&c))) {
        st = shmemu_copy_local(tmp, dest, (size_t)n * bytes);
        for (int i = 0; i < n && !st; i++)
            st = shmemu_copy_local((char *)dest + (size_t)((me + i) % n) * bytes,
                                   tmp + (size_t)i * bytes, bytes);
    }
    shmemu_scratch_free(tmp);
    if (!st)
        st = shmemu__coll_sync(&c);
    shmemu__coll_end(&c);
    return st;
}

/* Recursive doubling over the folded power of two: each round swaps the
 * blocks gathered so far with the partner's group. */
int shmemu_allgather_rd(shmemu_team_t team, void *dest, const void *src, size_t sendcount,
                        shmemu_dtype_t dtype)
{
    struct coll c;
    int st = begin(&c, "shmemu_allgather_rd", team, dest, src, sendcount, dtype);
    if (st)
        return st;
    int n = c.n, me = c.me;
    st = own_block(&c, dest, src, sendcount);
    if (st || n == 1 || !sendcount) {
        shmemu__coll_end(&c);
        return st;
    }
    struct fold f = fold_of(n, me);
    st = shmemu__coll_sync(&c);
    if (!st && me < 2 * f.rem && f.newrank >= 0) /* fold in the even partner's block */
        st = shmemu__coll_pull(&c, elem(dest, &c, (size_t)(me - 1) * sendcount),
                       elem(dest, &c, (size_t)(me - 1) * sendcount), sendcount, me - 1);
    int lo = f.newrank, hi = f.newrank + 1; /* newranks whose blocks I hold */
    for (int r = 0; (1 << r) < f.p2 && f.newrank >= 0 && !st; r++) {
        int dist = 1 << r, pnr = f.newrank ^ dist, partner = fold_real(&f, pnr);
        int plo = pnr & ~(dist - 1), phi = plo + dist; /* the partner's group */
        size_t from = (size_t)fold_lo(&f, plo) * sendcount,
               len = (size_t)fold_lo(&f, phi) * sendcount - from;
        if (!(st = shmemu__coll_signal(&c, partner, W_ROUND + r, 0)) &&
            !(st = shmemu__coll_wait(&c, W_ROUND + r, 0)))
            st = shmemu__coll_pull(&c, elem(dest, &c, from), elem(dest, &c, from), len, partner);
        lo = lo < plo ? lo : plo;
        hi = hi > phi ? hi : phi;
    }
    (void)lo;
    (void)hi;
    if (!st && me < 2 * f.rem) { /* fold out: the whole vector to the even PE */
        if (f.newrank >= 0)
            st = shmemu__coll_signal(&c, me - 1, W_DOWN, 0);
        else if (!(st = shmemu__coll_wait(&c, W_DOWN, 0)))
            st = shmemu__coll_pull(&c, dest, dest, (size_t)n * sendcount, me + 1);
    }
    if (!st)
        st = shmemu__coll_sync(&c);
    shmemu__coll_end(&c);
    return st;
}
