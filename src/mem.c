/* mem.c - symmetric memory: collective allocation, bounds checks, ptr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core.h"
#include "wait.h"



/* ---------------------------------------------------------------- checks */

int shmemu__check_sym_slow(shmemu__pe *me, const char *call, const char *what,
                           const void *addr, size_t nbytes, size_t *off_p)
{
    if (!addr)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "%s is NULL with %zu bytes",
                            what, nbytes);
    size_t off = (size_t)((uintptr_t)addr - (uintptr_t)me->heap);
    if (off >= me->heap_size)
        return shmemu__fail(me, SHMEMU_ERANGE, call,
                            "%s %p+%zu is outside the symmetric heap (heap %p+%zu)",
                            what, addr, nbytes, (void *)me->heap, me->heap_size);
    const struct shmemu__blk *b = shmemu__heap_find(&me->alloc, off);
    if (!b->used)
        return shmemu__fail(me, SHMEMU_ERANGE, call,
                            "%s %p+%zu is outside the symmetric heap (not in an "
                            "allocated block: heap offset %#zx is free)",
                            what, addr, nbytes, off);
    if (nbytes > b->off + b->req - off)
        return shmemu__fail(me, SHMEMU_ERANGE, call,
                            "%s %p+%zu is outside the symmetric heap (block %p+%zu)",
                            what, addr, nbytes, (void *)(me->heap + b->off), b->req);
    me->blk_off = b->off;
    me->blk_req = b->req;
    *off_p = off;
    return SHMEMU_OK;
}

static void forget_block_cache(shmemu__pe *me)
{
    me->blk_off = 0;
    me->blk_req = 0;
}

/* ---------------------------------------------------------- agreement */

static const char *rec_name(int kind)
{
    switch (kind) {
    case REC_ALLOC: return "allocation";
    case REC_FREE: return "free";
    case REC_REALLOC: return "realloc";
    case REC_SPLIT_STRIDED: return "strided team split";
    case REC_SPLIT_2D: return "2-D team split";
    default: return "control call";
    }
}

static void describe(const struct shmemu__rec *r, char *buf, size_t len)
{
    switch (r->kind) {
    case REC_ALLOC:
        snprintf(buf, len, "size %lld, alignment %lld", (long long)r->a[0],
                 (long long)r->a[1]);
        break;
    case REC_FREE:
        snprintf(buf, len, "block at heap offset %#llx", (long long)r->a[0]);
        break;
    case REC_REALLOC:
        snprintf(buf, len, "block at heap offset %#llx, size %lld",
                 (long long)r->a[0], (long long)r->a[1]);
        break;
    case REC_SPLIT_STRIDED:
        snprintf(buf, len, "start %lld, stride %lld, size %lld", (long long)r->a[0],
                 (long long)r->a[1], (long long)r->a[2]);
        break;
    case REC_SPLIT_2D:
        snprintf(buf, len, "xrange %lld", (long long)r->a[0]);
        break;
    default:
        snprintf(buf, len, "%s #%u", rec_name(r->kind), r->seq);
    }
}

int shmemu__agree(shmemu__pe *me, const char *call, int slot, struct shmemu__rec *rec,
                  int nargs)
{
    /* Allocation and team calls end with a barrier_all: complete first. */
    shmemu__check_quiet(me);
    const struct shmemu__ctl_team *t = shmemu__ctl_team(me->ctl, slot);
    rec->seq = ++me->rec_seq;
    rec->team = slot;
    me->ctl_me->rec = *rec;
    int st = shmemu__team_sync(me, slot, call);
    if (st)
        return st;
    int first = t->start;
    for (int i = 0; i < t->size; i++) {
        int p = t->start + i * t->stride;
        const struct shmemu__rec *r = &shmemu__ctl_pe(me->ctl, p)->rec;
        if (r->seq == rec->seq && r->kind == rec->kind && r->team == rec->team &&
            memcmp(r->a, rec->a, (size_t)nargs * sizeof(rec->a[0])) == 0)
            continue;
        char mine[96], theirs[112];
        describe(rec, mine, sizeof(mine));
        if (r->seq != rec->seq || r->team != rec->team)
            snprintf(theirs, sizeof(theirs),
                     "is not in this call (its control call #%u, team slot %d; "
                     "ours #%u, slot %d)",
                     r->seq, r->team, rec->seq, rec->team);
        else if (r->kind != rec->kind)
            snprintf(theirs, sizeof(theirs), "is in a %s", rec_name(r->kind));
        else {
            char d[80];
            describe(r, d, sizeof(d));
            snprintf(theirs, sizeof(theirs), "passed %s", d);
        }
        shmemu__collective_fail(me, me->pe == first, SHMEMU_EMISMATCH, call,
                                "PEs disagree: PE %d passed %s but PE %d %s", me->pe,
                                mine, p, theirs);
        /* Sync again so that no PE reuses its record while others read it. */
        (void)shmemu__team_sync(me, slot, call);
        return shmemu__last_status = SHMEMU_EMISMATCH;
    }
    return SHMEMU_OK;
}

/* ---------------------------------------------------------- allocation */

static int barrier_all(shmemu__pe *me, const char *call)
{
    const struct shmemu_transport_ops *ops = me->job->ops;
    int st;
    if (SHMEMU_TL_HAS(ops, quiet) && (st = ops->quiet(me->tlj, me->pe)) != SHMEMU_OK)
        return shmemu__fail(me, st, call, "completing outstanding operations failed");
    shmemu__full_fence();
    return shmemu__team_sync(me, 0, call);
}

void shmemu__own_heap_fill(shmemu__pe *me, size_t off, const void *src_or_null, size_t n)
{
    const struct shmemu_transport_ops *ops = me->job->ops;
    if (ops->caps & SHMEMU_TL_CAP_LOAD_STORE) {
        char *p = ops->ptr(me->tlj, me->pe, off);
        if (src_or_null)
            memmove(p, src_or_null, n);
        else
            memset(p, 0, n);
        return;
    }
    /* No load/store access (device memory): stage through private memory. */
    char buf[1 << 16];
    if (!src_or_null)
        memset(buf, 0, sizeof(buf));
    for (size_t done = 0; done < n;) {
        size_t chunk = n - done < sizeof(buf) ? n - done : sizeof(buf);
        struct shmemu_tl_rma d = {.op = SHMEMU_TL_PUT, .pe = me->pe,
                                  .off = off + done, .local = buf, .nbytes = chunk};
        if (src_or_null) {
            struct shmemu_tl_rma g = {.op = SHMEMU_TL_GET, .pe = me->pe,
                                      .off = (size_t)((const char *)src_or_null - me->heap) + done,
                                      .local = buf, .nbytes = chunk};
            ops->rma(me->tlj, &g); /* not through a checker: our own heap, now */
        }
        ops->rma(me->tlj, &d);
        done += chunk;
    }
}

static void *alloc_common(const char *call, size_t size, size_t align, int zero)
{
    SHMEMU__ENTER(me, call, NULL);
    struct shmemu__rec rec = {.kind = REC_ALLOC, .a = {(int64_t)size, (int64_t)align}};
    if (shmemu__agree(me, call, 0, &rec, 6) != SHMEMU_OK)
        return NULL;
    void *p = NULL;
    int st = SHMEMU_OK;
    size_t off;
    if (align == 0 || (align & (align - 1)) || align > SHMEMU_TL_HEAP_ALIGN) {
        st = shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, call,
                             "alignment %zu is not a power of two in 1..%zu", align,
                             SHMEMU_TL_HEAP_ALIGN);
    } else if (size && shmemu__heap_alloc(&me->alloc, size, align, &off) != 0) {
        size_t free_b, largest;
        shmemu__heap_stats(&me->alloc, &free_b, &largest);
        st = shmemu__collective_fail(me, me->pe == 0, SHMEMU_ENOMEM, call,
                             "no room for %zu bytes (heap %zu bytes, %zu free, largest "
                             "free block %zu); raise SHMEMU_HEAP_SIZE or "
                             "opts.heap_size",
                             size, me->heap_size - SHMEMU__WORKSPACE_TOTAL, free_b,
                             largest);
    } else if (size) {
        p = me->heap + off;
        if (zero)
            shmemu__own_heap_fill(me, off, NULL, size);
    }
    int bst = barrier_all(me, call);
    if (st || bst) {
        if (p)
            shmemu__heap_free(&me->alloc, off);
        return NULL;
    }
    shmemu__ok();
    return p;
}

void *shmemu_malloc(size_t size)
{
    return alloc_common("shmemu_malloc", size, SHMEMU__HEAP_GRAIN, 0);
}

void *shmemu_align(size_t alignment, size_t size)
{
    return alloc_common("shmemu_align", size, alignment, 0);
}

void *shmemu_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) {
        /* Every PE computes the same overflow: fail as an allocation would,
         * after the agreement, so a PE alone in its error still meets the
         * others. */
        SHMEMU__ENTER(me, "shmemu_calloc", NULL);
        struct shmemu__rec rec = {.kind = REC_ALLOC, .a = {-1, (int64_t)count}};
        if (shmemu__agree(me, "shmemu_calloc", 0, &rec, 6) == SHMEMU_OK) {
            shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, "shmemu_calloc",
                            "count %zu times size %zu overflows size_t", count, size);
            (void)shmemu__team_sync(me, 0, "shmemu_calloc");
        }
        shmemu__last_status = SHMEMU_EINVAL;
        return NULL;
    }
    return alloc_common("shmemu_calloc", count * size, SHMEMU__HEAP_GRAIN, 1);
}

/* ptr must be the start of a used block: its offset, or (size_t)-1. */
static size_t block_start(shmemu__pe *me, const void *ptr)
{
    size_t off = (size_t)((uintptr_t)ptr - (uintptr_t)me->heap);
    const struct shmemu__blk *b = off < me->heap_size ? shmemu__heap_find(&me->alloc, off)
                                                      : NULL;
    return b && b->used && b->off == off ? off : (size_t)-1;
}

void shmemu_free(void *ptr)
{
    static const char call[] = "shmemu_free";
    SHMEMU__ENTER(me, call, );
    if (barrier_all(me, call) != SHMEMU_OK)
        return;
    size_t off = ptr ? block_start(me, ptr) : (size_t)-2;
    struct shmemu__rec rec = {.kind = REC_FREE, .a = {(int64_t)off}};
    if (shmemu__agree(me, call, 0, &rec, 6) != SHMEMU_OK)
        return;
    int st = SHMEMU_OK;
    if (off == (size_t)-1)
        st = shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, call,
                             "ptr %p is not a block returned by shmemu_malloc", ptr);
    else if (ptr)
        shmemu__heap_free(&me->alloc, off);
    forget_block_cache(me);
    if (shmemu__team_sync(me, 0, call) == SHMEMU_OK && st == SHMEMU_OK)
        shmemu__ok();
}

void *shmemu_realloc(void *ptr, size_t size)
{
    static const char call[] = "shmemu_realloc";
    if (!ptr)
        return alloc_common(call, size, SHMEMU__HEAP_GRAIN, 0);
    if (size == 0) {
        shmemu_free(ptr);
        return NULL;
    }
    SHMEMU__ENTER(me, call, NULL);
    if (barrier_all(me, call) != SHMEMU_OK)
        return NULL;
    size_t off = block_start(me, ptr);
    struct shmemu__rec rec = {.kind = REC_REALLOC, .a = {(int64_t)off, (int64_t)size}};
    if (shmemu__agree(me, call, 0, &rec, 6) != SHMEMU_OK)
        return NULL;
    void *p = NULL;
    int st = SHMEMU_OK;
    size_t noff;
    if (off == (size_t)-1) {
        st = shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, call,
                             "ptr %p is not a block returned by shmemu_malloc", ptr);
    } else if (shmemu__heap_resize(&me->alloc, off, size) == 0) {
        p = ptr;
    } else if (shmemu__heap_alloc(&me->alloc, size, SHMEMU__HEAP_GRAIN, &noff) == 0) {
        size_t old = shmemu__heap_find(&me->alloc, off)->req;
        shmemu__own_heap_fill(me, noff, me->heap + off, old < size ? old : size);
        shmemu__heap_free(&me->alloc, off);
        p = me->heap + noff;
    } else {
        st = shmemu__collective_fail(me, me->pe == 0, SHMEMU_ENOMEM, call,
                             "no room to grow the block to %zu bytes; raise "
                             "SHMEMU_HEAP_SIZE",
                             size);
    }
    forget_block_cache(me);
    if (barrier_all(me, call) != SHMEMU_OK || st)
        return NULL;
    shmemu__ok();
    return p;
}

/* --------------------------------------------------------- direct access */

void *shmemu_ptr(const void *dest, int pe)
{
    SHMEMU__ENTER(me, "shmemu_ptr", NULL);
    size_t off = (size_t)((uintptr_t)dest - (uintptr_t)me->heap);
    const struct shmemu_transport_ops *ops = me->job->ops;
    if ((unsigned)pe >= (unsigned)me->npes) {
        shmemu__last_status = SHMEMU_EPE;
        return NULL;
    }
    if (!dest || off >= me->heap_size) {
        shmemu__last_status = SHMEMU_ERANGE;
        return NULL;
    }
    /* In checker mode every access goes through the library, where the
     * checker sees it: as on a transport with no load/store access. */
    if (!(ops->caps & SHMEMU_TL_CAP_LOAD_STORE) || !SHMEMU_TL_HAS(ops, ptr) || me->chk) {
        shmemu__last_status = SHMEMU_ENOTSUP;
        return NULL;
    }
    shmemu__ok();
    return ops->ptr(me->tlj, pe, off);
}

size_t shmemu_sym_extent(const void *addr)
{
    SHMEMU__ENTER(me, "shmemu_sym_extent", 0);
    size_t off = (size_t)((uintptr_t)addr - (uintptr_t)me->heap);
    shmemu__ok();
    if (!addr || off >= me->heap_size)
        return 0;
    const struct shmemu__blk *b = shmemu__heap_find(&me->alloc, off);
    return b->used && off < b->off + b->req ? b->off + b->req - off : 0;
}

int shmemu_addr_accessible(const void *addr, int pe)
{
    SHMEMU__ENTER(me, "shmemu_addr_accessible", 0);
    size_t off = (size_t)((uintptr_t)addr - (uintptr_t)me->heap);
    shmemu__ok();
    return addr && off < me->heap_size && (unsigned)pe < (unsigned)me->npes;
}
