/* rma.c - put and get: the checks every call makes, then one dispatch. */
#include <stdint.h>
#include <string.h>

#include "rma.h"
#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "ctl/livelock.h"
#include "ctl/wait.h"

/* Every RMA entry point funnels here.  sym: the symmetric address, local:
 * the private buffer; nelems * elsize bytes. */
static SHMEMU__ALWAYS_INLINE int rma_op(const char *call, int op, int nbi, const void *sym,
                         const void *local, size_t nelems, size_t elsize, int pe, int poll)
{
    SHMEMU__ENTER(me, call, shmemu__last_status);
    int st;
    if ((st = shmemu__check_pe(me, call, pe)))
        return st;
    if (SHMEMU__UNLIKELY(nelems > SIZE_MAX / elsize))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "nelems %zu of %zu bytes overflows size_t", nelems, elsize);
    size_t nbytes = nelems * elsize;
    if (SHMEMU__UNLIKELY(nbytes == 0))
        return shmemu__ok();
    struct shmemu_tl_rma d;
    if ((st = shmemu__rma_prepare(me, call, op, nbi, sym, local, nbytes, pe, &d)))
        return st;
    /* Where the transport may hold puts, a blocking one may wait for the
     * next quiet too (OpenSHMEM asks only that src be reusable). */
    d.lazy = op == SHMEMU_TL_PUT && me->nbi_dirty != NULL;
    int64_t t0 = poll ? shmemu__poll_tl_enter(me) : 0;
    st = shmemu__tl_rma(me, &d);
    if (poll)
        shmemu__poll_tl_leave(me, t0);
    if (SHMEMU__UNLIKELY(st < 0))
        return shmemu__tl_failed(me, st, call, "a %zu-byte %s", nbytes,
                                 op == SHMEMU_TL_PUT ? "put" : "get");
    if (op == SHMEMU_TL_PUT) {
        if (st != SHMEMU_TL_DEFERRED) /* else woken once it is delivered */
            shmemu__notify(me, pe);
        if (d.nbi || st == SHMEMU_TL_DEFERRED)
            shmemu__nbi_issued(me, pe);
    } else if (poll) { /* a _g: the way a flag is polled (livelock.h) */
        if (shmemu__poll_due(me)) {
            uint64_t v = 0;
            memcpy(&v, local, nbytes);
            shmemu__poll_slow(me, call, __builtin_return_address(0), pe, d.off, nbytes, v);
        }
    } else if (nbytes > 8) {
        shmemu__poll_progress(me); /* bulk data moved: not a poll */
    }
    return shmemu__ok();
}

int shmemu_putmem(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma_op("shmemu_putmem", SHMEMU_TL_PUT, 0, dest, src, nbytes, 1, pe, 0);
}

int shmemu_getmem(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma_op("shmemu_getmem", SHMEMU_TL_GET, 0, src, dest, nbytes, 1, pe, 0);
}

int shmemu_putmem_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma_op("shmemu_putmem_nbi", SHMEMU_TL_PUT, 1, dest, src, nbytes, 1, pe, 0);
}

int shmemu_getmem_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma_op("shmemu_getmem_nbi", SHMEMU_TL_GET, 1, src, dest, nbytes, 1, pe, 0);
}

#define X(NAME, TYPE)                                                          \
    int shmemu_##NAME##_put(TYPE *dest, const TYPE *src, size_t nelems, int pe) \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_put", SHMEMU_TL_PUT, 0, dest, src,     \
                      nelems, sizeof(TYPE), pe, 0);                            \
    }                                                                          \
    int shmemu_##NAME##_get(TYPE *dest, const TYPE *src, size_t nelems, int pe) \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_get", SHMEMU_TL_GET, 0, src, dest,     \
                      nelems, sizeof(TYPE), pe, 0);                            \
    }                                                                          \
    int shmemu_##NAME##_put_nbi(TYPE *dest, const TYPE *src, size_t nelems,    \
                                int pe)                                        \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_put_nbi", SHMEMU_TL_PUT, 1, dest, src, \
                      nelems, sizeof(TYPE), pe, 0);                            \
    }                                                                          \
    int shmemu_##NAME##_get_nbi(TYPE *dest, const TYPE *src, size_t nelems,    \
                                int pe)                                        \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_get_nbi", SHMEMU_TL_GET, 1, src, dest, \
                      nelems, sizeof(TYPE), pe, 0);                            \
    }                                                                          \
    int shmemu_##NAME##_p(TYPE *dest, TYPE value, int pe)                      \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_p", SHMEMU_TL_PUT, 0, dest, &value, 1, \
                      sizeof(TYPE), pe, 0);                                    \
    }                                                                          \
    TYPE shmemu_##NAME##_g(const TYPE *src, int pe)                            \
    {                                                                          \
        TYPE value = 0;                                                        \
        (void)rma_op("shmemu_" #NAME "_g", SHMEMU_TL_GET, 0, src, &value, 1,   \
                     sizeof(TYPE), pe, 1);                                     \
        return value;                                                          \
    }
SHMEMU_RMA_TYPES(X)
#undef X

/* -------------------------------------------------------------- strided */

/* |stride| * elsize * (nblocks - 1) in bytes, or -1 if it overflows. */
static ptrdiff_t stride_span(ptrdiff_t stride, size_t elsize, size_t nblocks)
{
    size_t mag = stride < 0 ? (size_t)0 - (size_t)stride : (size_t)stride;
    size_t steps = nblocks - 1;
    if (mag && steps &&
        (elsize > (size_t)PTRDIFF_MAX / mag || mag * elsize > (size_t)PTRDIFF_MAX / steps))
        return -1;
    return (ptrdiff_t)(mag * elsize * steps);
}

/* nblocks blocks of bsize elements between sym (on pe; written by a put)
 * and local, sym_stride and local_stride elements apart.  The written side
 * is dest, whichever side that is: its blocks must not overlap, or the
 * result would depend on the order the blocks land in. */
static int strided_op(const char *call, int op, void *sym, const void *local,
                      ptrdiff_t sym_stride, ptrdiff_t local_stride, size_t bsize,
                      size_t nblocks, size_t elsize, int pe)
{
    SHMEMU__ENTER(me, call, shmemu__last_status);
    int st;
    if ((st = shmemu__check_pe(me, call, pe)))
        return st;
    int put = op == SHMEMU_TL_PUT;
    const char *sym_name = put ? "dst" : "sst", *local_name = put ? "sst" : "dst";
    ptrdiff_t dstride = put ? sym_stride : local_stride;
    if (SHMEMU__UNLIKELY(elsize == 0))
        return shmemu__fail(me, SHMEMU_EINVAL, call, "elsize is 0");
    if (bsize == 0 || nblocks == 0)
        return shmemu__ok();
    if (nblocks == 1) /* strides unused: one contiguous block */
        sym_stride = local_stride = (ptrdiff_t)bsize;
    if (SHMEMU__UNLIKELY(bsize > SIZE_MAX / elsize))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "bsize %zu of %zu bytes overflows size_t", bsize, elsize);
    size_t bbytes = bsize * elsize;
    size_t dmag = dstride < 0 ? (size_t)0 - (size_t)dstride : (size_t)dstride;
    if (SHMEMU__UNLIKELY(nblocks > 1 && dmag < bsize))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "dst %td is shorter than a block (bsize %zu): the blocks "
                            "written would overlap",
                            dstride, bsize);
    ptrdiff_t sspan = stride_span(sym_stride, elsize, nblocks);
    ptrdiff_t lspan = stride_span(local_stride, elsize, nblocks);
    if (SHMEMU__UNLIKELY(sspan < 0 || lspan < 0 ||
                         (size_t)sspan > SIZE_MAX - bbytes))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "%s %td over %zu blocks of %zu-byte elements overflows "
                            "the address space",
                            sspan < 0 ? sym_name : local_name,
                            sspan < 0 ? sym_stride : local_stride, nblocks, elsize);
    if (SHMEMU__UNLIKELY(!local))
        return shmemu__fail(me, SHMEMU_EINVAL, call, "%s is NULL with %zu blocks",
                            put ? "src" : "dest", nblocks);
    /* The whole remote extent first: one bad block moves nothing. */
    uintptr_t lo = (uintptr_t)sym - (sym_stride < 0 ? (uintptr_t)sspan : 0);
    size_t off0;
    if ((st = shmemu__check_sym(me, call, put ? "dest" : "src", (const void *)lo,
                                (size_t)sspan + bbytes, &off0)))
        return st;
    off0 += sym_stride < 0 ? (size_t)sspan : 0;
    ptrdiff_t sstep = sym_stride * (ptrdiff_t)elsize, lstep = local_stride * (ptrdiff_t)elsize;
    size_t count = nblocks;
    if (sym_stride == (ptrdiff_t)bsize && local_stride == (ptrdiff_t)bsize &&
        nblocks <= SIZE_MAX / bbytes) { /* contiguous on both sides: one transfer */
        bbytes *= nblocks;
        count = 1;
    }
    int delivered = 0, deferred = 0;
    for (size_t i = 0; i < count; i++) {
        struct shmemu_tl_rma d = {
            .op = op, .pe = pe, .nbi = 0,
            .off = off0 + (size_t)((ptrdiff_t)i * sstep),
            .local = (void *)((uintptr_t)local + (uintptr_t)((ptrdiff_t)i * lstep)),
            .nbytes = bbytes};
        d.lazy = put && me->nbi_dirty != NULL;
        st = shmemu__tl_rma(me, &d);
        if (SHMEMU__UNLIKELY(st < 0))
            return shmemu__tl_failed(me, st, call, "block %zu of %zu (%zu bytes)", i,
                                     count, bbytes);
        if (st == SHMEMU_TL_DEFERRED)
            deferred = 1;
        else
            delivered = 1;
    }
    if (put) {
        if (delivered)
            shmemu__notify(me, pe);
        if (deferred)
            shmemu__nbi_issued(me, pe);
    } else {
        shmemu__poll_progress(me); /* data moved: not a poll */
    }
    return shmemu__ok();
}

int shmemu_ibput(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                 size_t nblocks, size_t elsize, int pe)
{
    return strided_op("shmemu_ibput", SHMEMU_TL_PUT, dest, src, dst, sst, bsize, nblocks,
                      elsize, pe);
}

int shmemu_ibget(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                 size_t nblocks, size_t elsize, int pe)
{
    return strided_op("shmemu_ibget", SHMEMU_TL_GET, (void *)(uintptr_t)src, dest, sst, dst,
                      bsize, nblocks, elsize, pe);
}

#define X(NAME, TYPE)                                                          \
    int shmemu_##NAME##_iput(TYPE *dest, const TYPE *src, ptrdiff_t dst,      \
                             ptrdiff_t sst, size_t nelems, int pe)             \
    {                                                                          \
        return strided_op("shmemu_" #NAME "_iput", SHMEMU_TL_PUT, dest, src,   \
                          dst, sst, 1, nelems, sizeof(TYPE), pe);              \
    }                                                                          \
    int shmemu_##NAME##_iget(TYPE *dest, const TYPE *src, ptrdiff_t dst,      \
                             ptrdiff_t sst, size_t nelems, int pe)             \
    {                                                                          \
        return strided_op("shmemu_" #NAME "_iget", SHMEMU_TL_GET,              \
                          (void *)(uintptr_t)src, dest, sst, dst, 1, nelems,   \
                          sizeof(TYPE), pe);                                   \
    }                                                                          \
    int shmemu_##NAME##_ibput(TYPE *dest, const TYPE *src, ptrdiff_t dst,     \
                              ptrdiff_t sst, size_t bsize, size_t nblocks,     \
                              int pe)                                          \
    {                                                                          \
        return strided_op("shmemu_" #NAME "_ibput", SHMEMU_TL_PUT, dest, src,  \
                          dst, sst, bsize, nblocks, sizeof(TYPE), pe);         \
    }                                                                          \
    int shmemu_##NAME##_ibget(TYPE *dest, const TYPE *src, ptrdiff_t dst,     \
                              ptrdiff_t sst, size_t bsize, size_t nblocks,     \
                              int pe)                                          \
    {                                                                          \
        return strided_op("shmemu_" #NAME "_ibget", SHMEMU_TL_GET,             \
                          (void *)(uintptr_t)src, dest, sst, dst, bsize,       \
                          nblocks, sizeof(TYPE), pe);                          \
    }
SHMEMU_RMA_TYPES(X)
#undef X

/* ------------------------------------------------------ put with signal */

static SHMEMU__ALWAYS_INLINE int put_signal(const char *call, int nbi, void *dest, const void *src,
                             size_t nelems, size_t elsize, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe)
{
    SHMEMU__ENTER(me, call, shmemu__last_status);
    int st;
    if ((st = shmemu__check_pe(me, call, pe)))
        return st;
    if (SHMEMU__UNLIKELY(nelems > SIZE_MAX / elsize))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "nelems %zu of %zu bytes overflows size_t", nelems, elsize);
    struct shmemu_tl_rma d;
    if ((st = shmemu__put_signal_prepare(me, call, nbi, dest, src, nelems * elsize, sig_addr,
                                         signal, sig_op, pe, &d)))
        return st;
    if (SHMEMU__UNLIKELY((st = shmemu__tl_rma(me, &d))))
        return shmemu__tl_failed(me, st, call, "a put with signal");
    shmemu__notify(me, pe);
    if (d.nbi)
        shmemu__nbi_issued(me, pe);
    return shmemu__ok();
}

int shmemu_putmem_signal(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe)
{
    return put_signal("shmemu_putmem_signal", 0, dest, src, nbytes, 1, sig_addr, signal,
                      sig_op, pe);
}

int shmemu_putmem_signal_nbi(void *dest, const void *src, size_t nbytes,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    return put_signal("shmemu_putmem_signal_nbi", 1, dest, src, nbytes, 1, sig_addr,
                      signal, sig_op, pe);
}

int shmemu_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    return put_signal("shmemu_signal_set", 0, NULL, NULL, 0, 1, sig_addr, signal,
                      SHMEMU_SIGNAL_SET, pe);
}

int shmemu_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    return put_signal("shmemu_signal_add", 0, NULL, NULL, 0, 1, sig_addr, signal,
                      SHMEMU_SIGNAL_ADD, pe);
}

#define X(NAME, TYPE)                                                          \
    int shmemu_##NAME##_put_signal(TYPE *dest, const TYPE *src, size_t nelems, \
                                   uint64_t *sig_addr, uint64_t signal,        \
                                   int sig_op, int pe)                         \
    {                                                                          \
        return put_signal("shmemu_" #NAME "_put_signal", 0, dest, src, nelems, \
                          sizeof(TYPE), sig_addr, signal, sig_op, pe);         \
    }                                                                          \
    int shmemu_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *src,           \
                                       size_t nelems, uint64_t *sig_addr,      \
                                       uint64_t signal, int sig_op, int pe)    \
    {                                                                          \
        return put_signal("shmemu_" #NAME "_put_signal_nbi", 1, dest, src,     \
                          nelems, sizeof(TYPE), sig_addr, signal, sig_op, pe); \
    }
SHMEMU_RMA_TYPES(X)
#undef X
