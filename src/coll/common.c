/* common.c - the machinery every reference collective uses (coll.h). */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* An element range [p, p + bytes) must be symmetric: inside one object of
 * the symmetric heap, so that a wrong count cannot spill into the next. */
static int sym_ok(const void *p, size_t bytes)
{
    return !bytes || shmemu_sym_extent(p) >= bytes;
}

/* The error for a buffer sym_ok refused: not symmetric at all, or too
 * short (the usual mistake: a dest sized for one PE's share). */
int shmemu__coll_not_sym(const char *call, const char *what, const void *p, size_t bytes)
{
    size_t ext = shmemu_sym_extent(p);
    if (!ext)
        return shmemu_error(SHMEMU_ERANGE, call,
                            "%s %p is not symmetric (in no block of the symmetric heap, nor "
                            "in symmetric static data)",
                            what, p);
    return shmemu_error(SHMEMU_ERANGE, call,
                        "%s %p+%zu runs past the end of its symmetric block (%zu bytes from "
                        "%s)",
                        what, p, bytes, ext, what);
}

int shmemu__coll_begin(struct coll *c, const char *call, shmemu_team_t team, shmemu_dtype_t dtype,
               shmemu_op_t op, int need_op, const void *dest, const void *src, size_t count,
               unsigned per_pe, int root)
{
    memset(c, 0, sizeof(*c));
    c->call = call;
    c->team = team;
    c->dtype = dtype;
    c->op = op;
    c->esize = shmemu_dtype_size(dtype);
    if (!c->esize)
        return shmemu_error(SHMEMU_EINVAL, call, "dtype %d is not a shmemu_dtype_t", dtype);
    if (need_op && !shmemu_op_valid(op, dtype))
        return shmemu_error(SHMEMU_EINVAL, call, "op %s (%d) does not apply to %s",
                            shmemu_op_name(op), op, shmemu_dtype_name(dtype));
    c->n = shmemu_team_n_pes(team);
    c->me = shmemu_team_my_pe(team);
    if (c->n < 1 || c->me < 0)
        return shmemu_error(SHMEMU_EINVAL, call, "team %d is not a team of this PE", team);
    /* Every byte count below derives from count * esize, times n for the
     * per-member buffers: check it once, here, so that no algorithm sees
     * a wrapped size. */
    size_t times = per_pe & (COLL_DEST_PER_PE | COLL_SRC_PER_PE) ? (size_t)c->n : 1;
    if (count > SIZE_MAX / c->esize / times)
        return shmemu_error(SHMEMU_EINVAL, call,
                            times > 1 ? "count %zu of %zu-byte elements times %d PEs overflows "
                                     "size_t"
                                   : "count %zu of %zu-byte elements overflows size_t",
                            count, c->esize, c->n);
    size_t dest_bytes = count * c->esize * (per_pe & COLL_DEST_PER_PE ? times : 1);
    size_t src_bytes = count * c->esize * (per_pe & COLL_SRC_PER_PE ? times : 1);
    if (!(per_pe & COLL_DEST_LATER) && !sym_ok(dest, dest_bytes))
        return shmemu__coll_not_sym(call, "dest", dest, dest_bytes);
    if (!sym_ok(src, src_bytes))
        return shmemu__coll_not_sym(call, "src", src, src_bytes);
    /* The same buffer (in place, where the collective allows it) or apart:
     * a partial overlap has the algorithm read what it already wrote. */
    if (!(per_pe & COLL_DEST_LATER) && dest != src && dest_bytes && src_bytes &&
        (const char *)dest < (const char *)src + src_bytes &&
        (const char *)src < (const char *)dest + dest_bytes)
        return shmemu_error(SHMEMU_EINVAL, call,
                            "dest %p+%zu and src %p+%zu overlap without being the same "
                            "buffer",
                            dest, dest_bytes, src, src_bytes);
    if (root >= c->n)
        return shmemu_error(SHMEMU_EINVAL, call, "root %d is not a PE of the team (0..%d)",
                            root, c->n - 1);
    /* Checker mode: members that disagree on the arguments would pair
     * their steps wrongly; say which differ instead. */
    if (shmemu_check_enabled()) {
        /* collectmem's counts differ by design (COLL_DEST_LATER) */
        /* the byte forms' uint8 is theirs, not the user's: left unsaid */
        long long v[4] = {per_pe & COLL_DEST_LATER ? -1 : (long long)count, root,
                          c->esize == 1 && !need_op ? -1 : (long long)dtype,
                          need_op ? (long long)op : -1};
        int st = shmemu_team_agree(team, call,
                                   c->esize == 1 ? "bytes,root,dtype,op" : "count,root,dtype,op",
                                   v, 4);
        if (st)
            return st;
    }
    c->pe0 = shmemu_team_translate_pe(team, 0, SHMEMU_TEAM_WORLD);
    c->pe_stride = c->n > 1 ? shmemu_team_translate_pe(team, 1, SHMEMU_TEAM_WORLD) - c->pe0 : 1;
    c->ws = shmemu_team_workspace(team);
    c->seq = shmemu_uint64_atomic_fetch_inc(&c->ws[W_SEQ], shmemu_my_pe()) + 1;
    int st = shmemu_last_status();
    if (st)
        shmemu__coll_end(c);
    return st;
}

void shmemu__coll_end(struct coll *c)
{
    /* Nothing is held between begin and end today; every algorithm's exit
     * still passes here, so state a call takes later has one place to go. */
    (void)c;
}

int shmemu__coll_sync(struct coll *c)
{
    int st = shmemu_quiet();
    return st ? st : shmemu_team_sync(c->team);
}

/* Signals SET a word to the step's tag and waiters compare with >=, so the
 * signals one PE sends to another must land in issue order: without a
 * fence, OpenSHMEM may deliver step k+1's before step k's, and the word
 * would go back (found by SHMEMU_CHECK=fuzz: a deadlock, or a reader
 * taking step k's data for arrived when only step k+1's had). */
int shmemu__coll_signal(struct coll *c, int member, int word, uint64_t step)
{
    int st = shmemu_fence();
    return st ? st
              : shmemu_putmem_signal(NULL, NULL, 0, &c->ws[word], coll_tag(c, step),
                                     SHMEMU_SIGNAL_SET, coll_pe(c, member));
}

int shmemu__coll_wait(struct coll *c, int word, uint64_t step)
{
    shmemu_signal_wait_until(&c->ws[word], SHMEMU_CMP_GE, coll_tag(c, step));
    return shmemu_last_status();
}

int shmemu__coll_push(struct coll *c, int member, void *dest, const void *src, size_t nbytes,
              int word, uint64_t step)
{
    int st = shmemu_fence(); /* in order, as shmemu__coll_signal explains */
    return st ? st
              : shmemu_putmem_signal(dest, src, nbytes, &c->ws[word], coll_tag(c, step),
                                     SHMEMU_SIGNAL_SET, coll_pe(c, member));
}

int shmemu__coll_pull(struct coll *c, void *dst, const void *sym, size_t nelems, int member)
{
    size_t bytes = nelems * c->esize;
    if (!bytes)
        return SHMEMU_OK;
    /* shmemu_ptr may give a device address (cuda): shmemu_copy_local copies
     * between any two addresses of the heaps, with the copy engine there. */
    const void *peer = shmemu_ptr(sym, coll_pe(c, member));
    if (peer)
        return shmemu_copy_local(dst, peer, bytes);
    return shmemu_getmem(dst, sym, bytes, coll_pe(c, member));
}

int shmemu__coll_pull_reduce(struct coll *c, void *dst, const void *mine, const void *sym,
                     size_t nelems, int member)
{
    if (!nelems)
        return SHMEMU_OK;
    /* Straight out of the peer's memory, no copy: on cuda a kernel of this
     * PE's device reads the peer's heap through its IPC mapping. */
    const void *peer = shmemu_ptr(sym, coll_pe(c, member));
    if (peer)
        return coll_reduce(c, dst, peer, mine, nelems);
    /* No direct access: stage through private memory, a block at a time. */
    char buf[16384];
    size_t per = sizeof(buf) / c->esize;
    for (size_t done = 0; done < nelems; done += per) {
        size_t k = nelems - done < per ? nelems - done : per;
        int st = shmemu_getmem(buf, (const char *)sym + done * c->esize, k * c->esize,
                               coll_pe(c, member));
        if (st)
            return st;
        if ((st = coll_reduce(c, (char *)dst + done * c->esize, buf,
                              (const char *)mine + done * c->esize, k)))
            return st;
    }
    return SHMEMU_OK;
}
