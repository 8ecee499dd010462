/* bcast.c - broadcast (binomial tree, pipelined chain), alltoall and the
 * dissemination barrier. */
#include <string.h>

#include "coll.h"

#define CHAIN_PIPE_BYTES ((size_t)128 << 10)

static int begin_bcast(struct coll *c, const char *call, shmemu_team_t team, void *dest,
                       const void *src, size_t count, shmemu_dtype_t dtype, int root)
{
    int st = shmemu__coll_begin(c, call, team, dtype, SHMEMU_SUM, 0, dest, src, count, 0, root);
    if (!st && (root < 0 || root >= c->n)) {
        shmemu__coll_end(c);
        st = shmemu_error(SHMEMU_EINVAL, call, "root %d is not a PE of the team (0..%d)",
                          root, c->n - 1);
    }
    return st;
}

int shmemu_broadcast_tree(shmemu_team_t team, void *dest, const void *src, size_t count,
                          shmemu_dtype_t dtype, int root)
{
    struct coll c;
    int st = begin_bcast(&c, "shmemu_broadcast_tree", team, dest, src, count, dtype, root);
    if (st)
        return st;
    if (c.me == root)
        st = shmemu__coll_copy_in(&c, dest, src, count);
    if (!st && c.n > 1 && count) {
        if (!(st = shmemu__coll_sync(&c)))
            st = shmemu__coll_tree_bcast(&c, dest, count, root);
        if (!st)
            st = shmemu__coll_sync(&c);
    }
    shmemu__coll_end(&c);
    return st;
}

/* A chain root -> root+1 -> ...: each PE forwards every granule with a
 * put-with-signal as soon as it has it, so the chain works as a pipeline. */
int shmemu_broadcast_chain(shmemu_team_t team, void *dest, const void *src, size_t count,
                           shmemu_dtype_t dtype, int root)
{
    struct coll c;
    int st = begin_bcast(&c, "shmemu_broadcast_chain", team, dest, src, count, dtype, root);
    if (st)
        return st;
    int n = c.n, v = (c.me - root + n) % n, next = (c.me + 1) % n;
    if (v == 0)
        st = shmemu__coll_copy_in(&c, dest, src, count);
    if (!st && n > 1 && count) {
        size_t pipe = CHAIN_PIPE_BYTES / c.esize;
        st = shmemu__coll_sync(&c);
        for (uint64_t k = 0; k * pipe < count && !st; k++) {
            size_t o = k * pipe, l = count - o < pipe ? count - o : pipe;
            if (v > 0)
                st = shmemu__coll_wait(&c, W_PUSH, k);
            if (!st && v < n - 1)
                st = shmemu__coll_push(&c, next, elem(dest, &c, o), elem(dest, &c, o), l * c.esize,
                               W_PUSH, k);
        }
        if (!st)
            st = shmemu__coll_sync(&c);
    }
    shmemu__coll_end(&c);
    return st;
}

/* Pairwise exchange: at step s fetch block me of PE me+s's src.  Sources do
 * not change during the call, so the entry and exit syncs are all it takes. */
int shmemu_alltoall_pairwise(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, "shmemu_alltoall_pairwise", team, dtype, SHMEMU_SUM, 0, dest,
                        src, count, COLL_DEST_PER_PE | COLL_SRC_PER_PE, -1);
    if (st)
        return st;
    size_t total = count * (size_t)c.n;
    if (dest == src && total) {
        shmemu__coll_end(&c);
        return shmemu_error(SHMEMU_EINVAL, c.call, "dest and src are the same buffer");
    }
    size_t mine = (size_t)c.me * count;
    st = coll_copy(&c, elem(dest, &c, mine), elem((void *)(uintptr_t)src, &c, mine), count);
    if (!st && c.n > 1 && count) {
        st = shmemu__coll_sync(&c);
        for (int s = 1; s < c.n && !st; s++) {
            int from = (c.me + s) % c.n;
            st = shmemu__coll_pull(&c, elem(dest, &c, (size_t)from * count),
                           elem((void *)(uintptr_t)src, &c, mine), count, from);
        }
        if (!st)
            st = shmemu__coll_sync(&c);
    }
    shmemu__coll_end(&c);
    return st;
}

/* Dissemination: in round r, signal PE me + 2^r and wait for PE me - 2^r. */
int shmemu_barrier_dissemination(shmemu_team_t team)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, "shmemu_barrier_dissemination", team, SHMEMU_UINT8, SHMEMU_SUM,
                        0, NULL, NULL, 0, 0, -1);
    if (st)
        return st;
    for (int r = 0; (1 << r) < c.n && !st; r++) {
        st = shmemu__coll_signal(&c, (c.me + (1 << r)) % c.n, W_ROUND + r, 0);
        if (!st)
            st = shmemu__coll_wait(&c, W_ROUND + r, 0);
    }
    shmemu__coll_end(&c);
    return st;
}
