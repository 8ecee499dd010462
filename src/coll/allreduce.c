/*
 * allreduce.c - allreduce five ways, reduce, and the binomial tree they
 * share with broadcast.
 *
 * All of them pull: a PE reads its peer's data (straight out of the peer's
 * memory where the transport maps it) once the peer's signal says it is
 * ready, so no PE ever needs a landing buffer of its own.  Every call but
 * the one-shot starts and ends with a sync of the team: at entry every
 * member's buffers are ready, at exit nobody still reads anyone's.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* Pipeline granule of the ring: enough to amortise a signal, small enough
 * that the next PE starts early. */
#define RING_PIPE_BYTES ((size_t)256 << 10)

int shmemu__coll_copy_in(struct coll *c, void *dest, const void *src, size_t count)
{
    return coll_copy(c, dest, src, count);
}

/* ------------------------------------------------------------------ ring */

int shmemu_allreduce_ring(shmemu_team_t team, void *dest, const void *src, size_t count,
                          shmemu_dtype_t dtype, shmemu_op_t op)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, "shmemu_allreduce_ring", team, dtype, op, 1, dest, src, count, 0,
                        -1);
    if (st)
        return st;
    int n = c.n, me = c.me, left = (me + n - 1) % n, right = (me + 1) % n;
    if (n == 1 || !count) {
        st = shmemu__coll_copy_in(&c, dest, src, count);
        shmemu__coll_end(&c);
        return st;
    }
    size_t pipe = RING_PIPE_BYTES / c.esize, maxlen = (count + (size_t)n - 1) / (size_t)n;
    uint64_t subs = (maxlen + pipe - 1) / pipe; /* steps per ring step: same on all PEs */
    if ((st = shmemu__coll_sync(&c)))
        goto out;

    /* Reduce-scatter: at step s, chunk me-2-s: my left neighbour's partial
     * (its src at step 0) OP my src, into my dest.  After n-1 steps, my dest
     * holds the finished chunk me.  A chunk is written once per PE, so in
     * place works: the chunk my right neighbour reads at its step 0 (me-1) is
     * one I never write. */
    for (int s = 0; s < n - 1 && !st; s++) {
        int ch = (me + 2 * n - 2 - s) % n;
        size_t off = chunk_off(count, n, ch), len = chunk_off(count, n, ch + 1) - off;
        for (uint64_t k = 0; k * pipe < len && !st; k++) {
            size_t o = off + k * pipe, l = len - k * pipe < pipe ? len - k * pipe : pipe;
            const void *from = s == 0 ? src : dest;
            if (s > 0)
                st = shmemu__coll_wait(&c, W_PROD, (uint64_t)(s - 1) * subs + k);
            if (!st)
                st = shmemu__coll_pull_reduce(&c, elem(dest, &c, o), elem((void *)(uintptr_t)src, &c, o),
                                      elem((void *)(uintptr_t)from, &c, o), l, left);
            if (!st)
                st = shmemu__coll_signal(&c, right, W_PROD, (uint64_t)s * subs + k);
        }
    }
    /* Every partial has been read: the allgather may overwrite them. */
    if (st || (st = shmemu__coll_sync(&c)))
        goto out;
    /* Allgather: push the chunk I finished (then each one I received) to my
     * right neighbour with a signal, granule by granule. */
    for (int s = 0; s < n && !st; s++) {
        int ch = (me + n - s) % n;
        size_t off = chunk_off(count, n, ch), len = chunk_off(count, n, ch + 1) - off;
        for (uint64_t k = 0; k * pipe < len && !st; k++) {
            size_t o = off + k * pipe, l = len - k * pipe < pipe ? len - k * pipe : pipe;
            if (s > 0)
                st = shmemu__coll_wait(&c, W_PUSH, (uint64_t)(s - 1) * subs + k);
            if (!st && s < n - 1)
                st = shmemu__coll_push(&c, right, elem(dest, &c, o), elem(dest, &c, o), l * c.esize,
                               W_PUSH, (uint64_t)s * subs + k);
        }
    }
    if (!st)
        st = shmemu__coll_sync(&c);
out:
    shmemu__coll_end(&c);
    return st;
}

/* --------------------------------------------------------------- one-shot */

/*
 * For small vectors the fixed costs dominate: one round, no syncs.  Every
 * PE puts its src into a slot of every peer's team scratch with a
 * signal-add, waits for n-1 arrivals and reduces all n slots in team order,
 * so that every PE computes the same bits.  Vectors larger than a slot go
 * block by block.
 *
 * With no sync at entry, a fast PE may write block k+1 while a slow one
 * still reads block k: so the slots alternate between two sets (parity of
 * the block count), and a PE can never get two blocks ahead, since block
 * k+1 needs data every peer sends only after finishing block k.  The calls
 * that use the scratch otherwise all begin and end with a sync, which
 * keeps them apart from these.
 */
int shmemu_allreduce_oneshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype, shmemu_op_t op)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, "shmemu_allreduce_oneshot", team, dtype, op, 1, dest, src, count, 0,
                        -1);
    if (st)
        return st;
    int n = c.n, me = c.me;
    size_t slot = coll_oneshot_slot(n), per = slot / c.esize;
    if (n == 1 || !count || !per) {
        shmemu__coll_end(&c);
        if (n == 1 || !count)
            return shmemu__coll_copy_in(&c, dest, src, count);
        /* beyond ~380 PEs a slot holds nothing: no one-shot possible */
        return shmemu_allreduce_rd(team, dest, src, count, dtype, op);
    }
    char *scratch = (char *)&c.ws[W_SCRATCH];
    for (size_t at = 0; at < count && !st; at += per) {
        size_t k = count - at < per ? count - at : per, bytes = k * c.esize;
        uint64_t blk = shmemu_uint64_atomic_fetch_inc(&c.ws[W_ONESHOT_N], shmemu_my_pe()) + 1;
        if ((st = shmemu_last_status()))
            break;
        int parity = (int)(blk & 1);
        char *set = scratch + (size_t)parity * (size_t)n * slot;
        const char *mine = (const char *)src + at * c.esize;
        /* my own slot too: in place, dest overwrites src as it goes */
        if ((st = shmemu_copy_local(set + (size_t)me * slot, mine, bytes)))
            break;
        for (int i = 1; i < n && !st; i++) {
            int p = (me + i) % n; /* spread the arrivals */
            st = shmemu_putmem_signal(set + (size_t)me * slot, mine, bytes,
                                      &c.ws[W_ONESHOT + parity], 1, SHMEMU_SIGNAL_ADD,
                                      coll_pe(&c, p));
        }
        if (st)
            break;
        shmemu_signal_wait_until(&c.ws[W_ONESHOT + parity], SHMEMU_CMP_GE,
                                 (blk + 1) / 2 * (uint64_t)(n - 1));
        if ((st = shmemu_last_status()))
            break;
        char *out = (char *)dest + at * c.esize;
        st = coll_reduce(&c, out, set, set + slot, k);
        for (int p = 2; p < n && !st; p++)
            st = coll_reduce(&c, out, out, set + (size_t)p * slot, k);
    }
    shmemu__coll_end(&c);
    return st;
}

/* ------------------------------------------------- folding to a power of 2 */

/* Fold in: the even PE of a pair signals, the odd one adds its data. */
static int fold_in(struct coll *c, void *dest, size_t count, const struct fold *f)
{
    if (c->me >= 2 * f->rem)
        return SHMEMU_OK;
    if (f->newrank < 0)
        return shmemu__coll_signal(c, c->me + 1, W_UP, 0);
    int st = shmemu__coll_wait(c, W_UP, 0);
    return st ? st : shmemu__coll_pull_reduce(c, dest, dest, dest, count, c->me - 1);
}

/* Fold out: the odd PE of a pair hands the result to the even one. */
static int fold_out(struct coll *c, void *dest, size_t lo, size_t count, const struct fold *f)
{
    if (c->me >= 2 * f->rem)
        return SHMEMU_OK;
    if (f->newrank >= 0)
        return shmemu__coll_signal(c, c->me - 1, W_DOWN, 0);
    int st = shmemu__coll_wait(c, W_DOWN, 0);
    return st ? st : shmemu__coll_pull(c, elem(dest, c, lo), elem(dest, c, lo), count, c->me + 1);
}

/* ------------------------------------------------------ recursive doubling */

int shmemu_allreduce_rd(shmemu_team_t team, void *dest, const void *src, size_t count,
                        shmemu_dtype_t dtype, shmemu_op_t op)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, "shmemu_allreduce_rd", team, dtype, op, 1, dest, src, count, 0,
                        -1);
    if (st)
        return st;
    if (c.n == 1 || !count) {
        st = shmemu__coll_copy_in(&c, dest, src, count);
        shmemu__coll_end(&c);
        return st;
    }
    void *tmp = shmemu_scratch_malloc(count * c.esize);
    if (!tmp) {
        shmemu__coll_end(&c);
        return shmemu_error(SHMEMU_ENOMEM, c.call, "out of memory for %zu bytes",
                            count * c.esize);
    }
    struct fold f = fold_of(c.n, c.me);
    st = shmemu__coll_copy_in(&c, dest, src, count);
    if (!st)
        st = shmemu__coll_sync(&c);
    if (!st)
        st = fold_in(&c, dest, count, &f);
    /* Each round: tell the partner my dest is ready, copy its dest, tell it
     * I have, wait until it has mine, and only then combine into my dest. */
    for (int r = 0; (1 << r) < f.p2 && f.newrank >= 0 && !st; r++) {
        int partner = fold_real(&f, f.newrank ^ (1 << r));
        if (!(st = shmemu__coll_signal(&c, partner, W_ROUND + r, 0)) &&
            !(st = shmemu__coll_wait(&c, W_ROUND + r, 0)) &&
            !(st = shmemu__coll_pull(&c, tmp, dest, count, partner)) &&
            !(st = shmemu__coll_signal(&c, partner, W_ROUND2 + r, 0)) &&
            !(st = shmemu__coll_wait(&c, W_ROUND2 + r, 0))) {
            /* Both partners combine the same pair: in team order, so they
             * get the same bits (a NaN keeps its first operand's payload). */
            st = partner < c.me ? coll_reduce(&c, dest, tmp, dest, count)
                                : coll_reduce(&c, dest, dest, tmp, count);
        }
    }
    if (!st)
        st = fold_out(&c, dest, 0, count, &f);
    if (!st)
        st = shmemu__coll_sync(&c);
    shmemu_scratch_free(tmp);
    shmemu__coll_end(&c);
    return st;
}

/* ------------------------------------------------------------- Rabenseifner */

int shmemu_allreduce_rabenseifner(shmemu_team_t team, void *dest, const void *src,
                                  size_t count, shmemu_dtype_t dtype, shmemu_op_t op)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, "shmemu_allreduce_rabenseifner", team, dtype, op, 1, dest, src,
                        count, 0, -1);
    if (st)
        return st;
    if (c.n == 1 || !count) {
        st = shmemu__coll_copy_in(&c, dest, src, count);
        shmemu__coll_end(&c);
        return st;
    }
    struct fold f = fold_of(c.n, c.me);
    st = shmemu__coll_copy_in(&c, dest, src, count);
    if (!st)
        st = shmemu__coll_sync(&c);
    if (!st)
        st = fold_in(&c, dest, count, &f);
    int rounds = 0;
    while ((1 << rounds) < f.p2)
        rounds++;
    size_t lo = 0, hi = count;
    size_t los[COLL_MAX_ROUNDS], his[COLL_MAX_ROUNDS];
    /* Reduce-scatter by recursive halving: keep one half of the segment,
     * adding the partner's copy of it; the partner keeps the other half. */
    for (int r = 0; r < rounds && f.newrank >= 0 && !st; r++) {
        int dist = f.p2 >> (r + 1), partner = fold_real(&f, f.newrank ^ dist);
        size_t mid = lo + (hi - lo) / 2;
        los[r] = lo;
        his[r] = hi;
        if (f.newrank & dist)
            lo = mid;
        else
            hi = mid;
        if (!(st = shmemu__coll_signal(&c, partner, W_ROUND + r, 0)) &&
            !(st = shmemu__coll_wait(&c, W_ROUND + r, 0)))
            st = shmemu__coll_pull_reduce(&c, elem(dest, &c, lo), elem(dest, &c, lo),
                                  elem(dest, &c, lo), hi - lo, partner);
    }
    /* Allgather by recursive doubling, in the reverse order: fetch the half
     * the partner finished. */
    for (int r = rounds - 1; r >= 0 && f.newrank >= 0 && !st; r--) {
        int dist = f.p2 >> (r + 1), partner = fold_real(&f, f.newrank ^ dist);
        size_t plo = lo == los[r] ? hi : los[r], phi = lo == los[r] ? his[r] : lo;
        if (!(st = shmemu__coll_signal(&c, partner, W_ROUND2 + r, 0)) &&
            !(st = shmemu__coll_wait(&c, W_ROUND2 + r, 0)))
            st = shmemu__coll_pull(&c, elem(dest, &c, plo), elem(dest, &c, plo), phi - plo, partner);
        lo = los[r];
        hi = his[r];
    }
    if (!st)
        st = fold_out(&c, dest, 0, count, &f);
    if (!st)
        st = shmemu__coll_sync(&c);
    shmemu__coll_end(&c);
    return st;
}

/* ----------------------------------------------------------- binomial tree */

/* Reduce every member's dest into root's along a binomial tree; a child
 * signals its parent once its subtree's sum is in its dest. */
int shmemu__coll_tree_reduce(struct coll *c, void *dest, size_t count, int root)
{
    int n = c->n, v = (c->me - root + n) % n, st = SHMEMU_OK;
    for (int bit = 0; (1 << bit) < n && !st; bit++) {
        int mask = 1 << bit;
        if (v & mask)
            return shmemu__coll_signal(c, (v - mask + root) % n, W_UP + bit, 0);
        if (v + mask < n && !(st = shmemu__coll_wait(c, W_UP + bit, 0)))
            st = shmemu__coll_pull_reduce(c, dest, dest, dest, count, (v + mask + root) % n);
    }
    return st;
}

/* Broadcast root's dest along a binomial tree: each PE pulls from its parent
 * once told, then tells its children. */
int shmemu__coll_tree_bcast(struct coll *c, void *dest, size_t count, int root)
{
    int n = c->n, v = (c->me - root + n) % n, st = SHMEMU_OK, top = 1;
    if (v) {
        while (top * 2 <= v)
            top *= 2;
        if ((st = shmemu__coll_wait(c, W_DOWN, 1)) ||
            (st = shmemu__coll_pull(c, dest, dest, count, (v - top + root) % n)))
            return st;
        top *= 2;
    }
    for (int mask = top; v + mask < n && !st; mask *= 2)
        st = shmemu__coll_signal(c, (v + mask + root) % n, W_DOWN, 1);
    return st;
}

int shmemu_allreduce_tree(shmemu_team_t team, void *dest, const void *src, size_t count,
                          shmemu_dtype_t dtype, shmemu_op_t op)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, "shmemu_allreduce_tree", team, dtype, op, 1, dest, src, count, 0,
                        -1);
    if (st)
        return st;
    st = shmemu__coll_copy_in(&c, dest, src, count);
    if (!st && c.n > 1 && count) {
        if (!(st = shmemu__coll_sync(&c)) && !(st = shmemu__coll_tree_reduce(&c, dest, count, 0)))
            st = shmemu__coll_tree_bcast(&c, dest, count, 0);
        if (!st)
            st = shmemu__coll_sync(&c);
    }
    shmemu__coll_end(&c);
    return st;
}

int shmemu_reduce_tree(shmemu_team_t team, void *dest, const void *src, size_t count,
                       shmemu_dtype_t dtype, shmemu_op_t op, int root)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, "shmemu_reduce_tree", team, dtype, op, 1, dest, src, count, 0,
                        root);
    if (st)
        return st;
    if (root < 0 || root >= c.n) {
        shmemu__coll_end(&c);
        return shmemu_error(SHMEMU_EINVAL, c.call, "root %d is not a PE of the team (0..%d)",
                            root, c.n - 1);
    }
    st = shmemu__coll_copy_in(&c, dest, src, count);
    if (!st && c.n > 1 && count) {
        if (!(st = shmemu__coll_sync(&c)))
            st = shmemu__coll_tree_reduce(&c, dest, count, root);
        if (!st)
            st = shmemu__coll_sync(&c);
    }
    shmemu__coll_end(&c);
    return st;
}
