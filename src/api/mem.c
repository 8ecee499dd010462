/* mem.c - symmetric memory: collective allocation, bounds checks, ptr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "check/check.h"
#include "ctl/agree.h"
#include "ctl/plane.h"
#include "ctl/wait.h"



/* ---------------------------------------------------------------- checks */

int shmemu__check_sym_slow(shmemu__pe *me, const char *call, const char *what,
                           const void *addr, size_t nbytes, size_t *off_p)
{
    if (!addr)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "%s is NULL with %zu bytes",
                            what, nbytes);
    size_t off = (size_t)((uintptr_t)addr - (uintptr_t)me->heap);
    if (off >= me->heap_size) {
        int in = shmemu__static_off(me, addr, &off);
        if (in > 0 && nbytes <= me->static_off + me->static_len - off) {
            *off_p = off; /* the program's static data, a heap range here */
            return SHMEMU_OK;
        }
        if (in > 0) {
            char name[160];
            shmemu__variable_note(addr, name, sizeof(name));
            return shmemu__fail(me, SHMEMU_ERANGE, call,
                                "%s %p+%zu%s runs past the end of the program's static data, "
                                "which are symmetric (%zu bytes from %p)",
                                what, addr, nbytes, name, me->static_len,
                                (const void *)((const char *)addr - (off - me->static_off)));
        }
        if (in) {
            char why[400];
            shmemu__static_why(me, addr, why, sizeof(why));
            return shmemu__fail(me, SHMEMU_ERANGE, call, "%s %s", what, why);
        }
    }
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
    if (!shmemu__mt(me)) { /* two threads would tear the pair */
        me->blk_off = b->off;
        me->blk_req = b->req;
    }
    *off_p = off;
    return SHMEMU_OK;
}

static void forget_block_cache(shmemu__pe *me)
{
    me->blk_off = 0;
    me->blk_req = 0;
}

/* ---------------------------------------------------------- allocation */

/* The sync that ends a control collective: the new or changed block is
 * ready on every PE before any of them uses it. */
static int closing_sync(shmemu__pe *me, const char *call)
{
    shmemu__full_fence();
    return shmemu__team_sync_as(me, 0, call, 1);
}

void shmemu__own_heap_fill(shmemu__pe *me, size_t off, const void *src_or_null, size_t n)
{
    char *p = shmemu__tl_ptr_direct(me->job, me->pe, off);
    if (p) {
        if (src_or_null)
            memmove(p, src_or_null, n);
        else
            memset(p, 0, n);
        return;
    }
    /* No load/store access (device memory): a copy inside the transport,
     * or staged through private memory. */
    size_t src_off = src_or_null ? (size_t)((const char *)src_or_null - me->heap) : 0;
    if (src_or_null && shmemu__tl_local_copy(me, me->heap + off, src_or_null, n) == SHMEMU_OK)
        return;
    char buf[1 << 16];
    if (!src_or_null)
        memset(buf, 0, sizeof(buf));
    for (size_t done = 0; done < n;) {
        size_t chunk = n - done < sizeof(buf) ? n - done : sizeof(buf);
        if (src_or_null)
            (void)shmemu__tl_own_rma(me, SHMEMU_TL_GET, src_off + done, buf, chunk);
        (void)shmemu__tl_own_rma(me, SHMEMU_TL_PUT, off + done, buf, chunk);
        done += chunk;
    }
}

int shmemu__alloc_any_size;

static void *alloc_common(const char *call, size_t size, size_t align, int zero)
{
    SHMEMU__ENTER(me, call, NULL);
    /* Alignment first: with any size allowed, only it is compared. */
    struct shmemu__rec rec = {.kind = REC_ALLOC, .a = {(int64_t)align, (int64_t)size}};
    int any = shmemu__alloc_any_size;
    if (shmemu__agree_ctl(me, call, 0, &rec, any ? 1 : 6) != SHMEMU_OK)
        return NULL;
    if (any) /* every PE takes the largest: one block, one address everywhere */
        for (int p = 0; p < me->npes; p++) {
            int64_t s = shmemu__plane_record(me, p)->a[1];
            if (s > (int64_t)size)
                size = (size_t)s;
        }
    void *p = NULL;
    int st = SHMEMU_OK;
    size_t off;
    if (align == 0 || (align & (align - 1))) {
        st = shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, call,
                                     "alignment %zu is not a power of two", align);
    } else if (align > SHMEMU_TL_BASE_ALIGN) {
        st = shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, call,
                                     "alignment %zu is larger than the largest supported, "
                                     "%zu (the alignment of every PE's heap base)",
                                     align, SHMEMU_TL_BASE_ALIGN);
    } else if (size && shmemu__heap_alloc(&me->alloc, size, align, &off) != 0) {
        size_t free_b, largest;
        shmemu__heap_stats(&me->alloc, &free_b, &largest);
        st = shmemu__collective_refuse(me, me->pe == 0, SHMEMU_ENOMEM, call,
                             "no room for %zu bytes (heap %zu bytes, %zu free, largest "
                             "free block %zu); raise SHMEMU_HEAP_SIZE "
                             "(OpenSHMEM: SHMEM_SYMMETRIC_SIZE) or opts.heap_size",
                             size, me->heap_size - SHMEMU__WORKSPACE_TOTAL, free_b,
                             largest);
    } else if (size) {
        p = me->heap + off;
        if (zero)
            shmemu__own_heap_fill(me, off, NULL, size);
    }
    int bst = closing_sync(me, call);
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
        struct shmemu__rec rec = {.kind = REC_ALLOC, .a = {0, -1}}; /* no allocation agrees */
        if (shmemu__agree_ctl(me, "shmemu_calloc", 0, &rec, 6) == SHMEMU_OK) {
            shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, "shmemu_calloc",
                            "count %zu times size %zu overflows size_t", count, size);
            (void)closing_sync(me, "shmemu_calloc");
        }
        shmemu__last_status = SHMEMU_EINVAL;
        return NULL;
    }
    return alloc_common("shmemu_calloc", count * size, SHMEMU__HEAP_GRAIN, 1);
}

/* ptr must be the start of a block the user allocated: its offset,
 * (size_t)-1 for any other address, or SHMEMU__REC_WORKSPACE. */
static size_t block_start(shmemu__pe *me, const void *ptr)
{
    size_t off = (size_t)((uintptr_t)ptr - (uintptr_t)me->heap);
    if (off < me->heap_size && off >= me->heap_size - SHMEMU__WORKSPACE_TOTAL)
        return SHMEMU__REC_WORKSPACE;
    const struct shmemu__blk *b = off < me->heap_size ? shmemu__heap_find(&me->alloc, off)
                                                      : NULL;
    return b && b->used && b->off == off ? off : (size_t)-1;
}

/* The error for a ptr that block_start refused, reported by PE 0 alone
 * (every PE refuses alike: the calls agreed). */
static int not_a_block(shmemu__pe *me, const char *call, const void *ptr, size_t off)
{
    const char *api = shmemu__api_of(shmemu__user_call(call));
    if (off == SHMEMU__REC_WORKSPACE)
        return shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, call,
                                       "ptr %p is in a team workspace, which the library "
                                       "reserves (not a block returned by %s_malloc)",
                                       ptr, api);
    /* Say which mistake it is: a double free and a pointer into the middle
     * of a block are the common ones. */
    size_t at = (size_t)((uintptr_t)ptr - (uintptr_t)me->heap);
    const struct shmemu__blk *b = at < me->heap_size ? shmemu__heap_find(&me->alloc, at) : NULL;
    if (!b)
        return shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, call,
                                       "ptr %p is not in the symmetric heap (not a block "
                                       "returned by %s_malloc)",
                                       ptr, api);
    if (!b->used)
        return shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, call,
                                       "ptr %p is not an allocated block: it was freed "
                                       "already, or never returned by %s_malloc",
                                       ptr, api);
    return shmemu__collective_fail(me, me->pe == 0, SHMEMU_EINVAL, call,
                                   "ptr %p is %zu bytes into the block at %p: pass the "
                                   "address %s_malloc returned",
                                   ptr, at - b->off, (void *)(me->heap + b->off), api);
}

void shmemu_free(void *ptr)
{
    static const char call[] = "shmemu_free";
    SHMEMU__ENTER(me, call, );
    size_t off = ptr ? block_start(me, ptr) : (size_t)-2;
    struct shmemu__rec rec = {.kind = REC_FREE, .a = {(int64_t)off}};
    if (shmemu__agree_ctl(me, call, 0, &rec, 6) != SHMEMU_OK)
        return;
    int st = SHMEMU_OK;
    if (off == (size_t)-1 || off == SHMEMU__REC_WORKSPACE)
        st = not_a_block(me, call, ptr, off);
    else if (ptr)
        shmemu__heap_free(&me->alloc, off);
    forget_block_cache(me);
    if (closing_sync(me, call) == SHMEMU_OK && st == SHMEMU_OK)
        shmemu__ok();
}

/* ---------------------------------------------------- private scratch */

void *shmemu_scratch_malloc(size_t size)
{
    static const char call[] = "shmemu_scratch_malloc";
    /* Not a checker's point (no perturbation, no delivery): private memory
     * moves nothing, and the collectives that take it keep the schedules
     * of a plain malloc. */
    SHMEMU__ENTER_UNCHECKED(me, call, NULL);
    void *p = shmemu__scratch_take(&me->scratch, size);
    if (!p) {
        (void)shmemu__collective_refuse(me, 1, SHMEMU_ENOMEM, call,
                                        "out of (private) memory for %zu bytes", size);
        return NULL;
    }
    shmemu__ok();
    return p;
}

int shmemu_scratch_free(void *ptr)
{
    static const char call[] = "shmemu_scratch_free";
    /* Not SHMEMU__ENTER: after an abort in RETURN mode, the code that saw
     * the error still releases its blocks. */
    shmemu__pe *me = shmemu__self;
    if (!me && !(me = shmemu__adopt()))
        return shmemu__enter_fail(NULL, call);
    if (shmemu__retired(me)) /* its blocks went with it */
        return shmemu__enter_fail(me, call);
    if (!ptr || shmemu__scratch_give(&me->scratch, ptr))
        return shmemu__ok();
    return shmemu__fail(me, SHMEMU_EINVAL, call,
                        "ptr %p is not a live block of shmemu_scratch_malloc on this PE "
                        "(freed already, another PE's, or from another allocator)",
                        ptr);
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
    size_t off = block_start(me, ptr);
    struct shmemu__rec rec = {.kind = REC_REALLOC, .a = {(int64_t)off, (int64_t)size}};
    if (shmemu__agree_ctl(me, call, 0, &rec, 6) != SHMEMU_OK)
        return NULL;
    void *p = NULL;
    int st = SHMEMU_OK;
    size_t noff;
    if (off == (size_t)-1 || off == SHMEMU__REC_WORKSPACE) {
        st = not_a_block(me, call, ptr, off);
    } else if (shmemu__heap_resize(&me->alloc, off, size) == 0) {
        p = ptr;
    } else if (shmemu__heap_alloc(&me->alloc, size, SHMEMU__HEAP_GRAIN, &noff) == 0) {
        size_t old = shmemu__heap_find(&me->alloc, off)->req;
        shmemu__own_heap_fill(me, noff, me->heap + off, old < size ? old : size);
        shmemu__heap_free(&me->alloc, off);
        p = me->heap + noff;
    } else {
        st = shmemu__collective_refuse(me, me->pe == 0, SHMEMU_ENOMEM, call,
                             "no room to grow the block to %zu bytes; raise "
                             "SHMEMU_HEAP_SIZE",
                             size);
    }
    forget_block_cache(me);
    if (closing_sync(me, call) != SHMEMU_OK || st)
        return NULL;
    shmemu__ok();
    return p;
}

/* --------------------------------------------------------- direct access */

void *shmemu_ptr(const void *dest, int pe)
{
    SHMEMU__ENTER_NOPOINT(me, "shmemu_ptr", NULL);
    size_t off = (size_t)((uintptr_t)dest - (uintptr_t)me->heap);
    if ((unsigned)pe >= (unsigned)me->npes) {
        shmemu__last_status = SHMEMU_EPE;
        return NULL;
    }
    if (dest && off >= me->heap_size)
        (void)shmemu__static_off(me, dest, &off); /* static data: its heap offset */
    if (!dest || off >= me->heap_size || !shmemu__heap_find(&me->alloc, off)->used) {
        shmemu__last_status = SHMEMU_ERANGE; /* not in an allocated block */
        return NULL;
    }
    /* NULL where heaps are not host-addressable.  In checker mode, whose
     * layer must see every access, a view whose stores the checker sees
     * (check.h). */
    void *p = SHMEMU__CHECKED(me) ? shmemu__check_ptr(me, pe, off)
                                  : shmemu__tl_ptr(me->job, pe, off);
    if (!p) {
        shmemu__last_status = SHMEMU_ENOTSUP;
        return NULL;
    }
    if (pe != me->pe)
        shmemu__direct_stores(me);
    shmemu__ok();
    return p;
}

int shmemu_heap_host_accessible(void)
{
    shmemu__pe *me = shmemu__self;
    return me && me->direct;
}

size_t shmemu_sym_extent(const void *addr)
{
    SHMEMU__ENTER_NOPOINT(me, "shmemu_sym_extent", 0);
    size_t off = (size_t)((uintptr_t)addr - (uintptr_t)me->heap);
    shmemu__ok();
    if (addr && off >= me->heap_size)
        (void)shmemu__static_off(me, addr, &off);
    if (!addr || off >= me->heap_size)
        return 0;
    const struct shmemu__blk *b = shmemu__heap_find(&me->alloc, off);
    return b->used && off < b->off + b->req ? b->off + b->req - off : 0;
}

int shmemu_addr_accessible(const void *addr, int pe)
{
    SHMEMU__ENTER_NOPOINT(me, "shmemu_addr_accessible", 0);
    size_t off = (size_t)((uintptr_t)addr - (uintptr_t)me->heap);
    shmemu__ok();
    if (addr && off >= me->heap_size)
        (void)shmemu__static_off(me, addr, &off);
    return addr && off < me->heap_size && (unsigned)pe < (unsigned)me->npes;
}

int shmemu_check_zero_pads(const void *sym, size_t bytes)
{
    static const char call[] = "shmemu_check_zero_pads";
    SHMEMU__ENTER(me, call, shmemu__last_status);
    size_t off;
    int st = shmemu__check_sym(me, call, "sym", sym, bytes ? bytes : 1, &off);
    if (st != SHMEMU_OK)
        return st;
    if ((st = shmemu__chk_pads_set(me, off, bytes)) != SHMEMU_OK)
        return shmemu__fail(me, st, call,
                            "PE %d names more than %d ranges of signal pads (sym %p, bytes %zu)",
                            me->pe, SHMEMU__PADS_MAX, sym, bytes);
    return shmemu__ok();
}
