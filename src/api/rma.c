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
