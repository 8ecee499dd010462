/* rma.c - put and get: the checks every call makes, then one dispatch. */
#include <stdint.h>
#include <string.h>

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
    if (SHMEMU__UNLIKELY(!local))
        return shmemu__fail(me, SHMEMU_EINVAL, call, "%s is NULL with %zu bytes",
                            op == SHMEMU_TL_PUT ? "src" : "dest", nbytes);
    size_t off;
    if ((st = shmemu__check_sym(me, call, op == SHMEMU_TL_PUT ? "dest" : "src", sym,
                                nbytes, &off)))
        return st;
    struct shmemu_tl_rma d = {.op = op, .pe = pe, .nbi = nbi, .off = off,
                              .local = (void *)(uintptr_t)local, .nbytes = nbytes};
    if (SHMEMU__UNLIKELY((st = shmemu__tl_rma(me, &d))))
        return shmemu__tl_failed(me, st, call, "a %zu-byte %s", nbytes,
                                 op == SHMEMU_TL_PUT ? "put" : "get");
    if (op == SHMEMU_TL_PUT) {
        shmemu__notify(me, pe);
        if (d.nbi)
            shmemu__nbi_issued(me, pe);
    } else if (poll) { /* a _g: the way a flag is polled (livelock.h) */
        if (shmemu__poll_due(me)) {
            uint64_t v = 0;
            memcpy(&v, local, nbytes);
            shmemu__poll_slow(me, call, __builtin_return_address(0), pe, off, nbytes, v);
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
    if (SHMEMU__UNLIKELY(sig_op != SHMEMU_SIGNAL_SET && sig_op != SHMEMU_SIGNAL_ADD))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "sig_op %d is neither SHMEMU_SIGNAL_SET nor "
                            "SHMEMU_SIGNAL_ADD",
                            sig_op);
    if (SHMEMU__UNLIKELY((uintptr_t)sig_addr & 7))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "sig_addr %p is not 8-byte aligned", (void *)sig_addr);
    if (SHMEMU__UNLIKELY(nelems > SIZE_MAX / elsize))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "nelems %zu of %zu bytes overflows size_t", nelems, elsize);
    size_t nbytes = nelems * elsize, off = 0, sig_off;
    if ((st = shmemu__check_sym(me, call, "sig_addr", sig_addr, 8, &sig_off)))
        return st;
    if (nbytes) {
        if (SHMEMU__UNLIKELY(!src))
            return shmemu__fail(me, SHMEMU_EINVAL, call, "src is NULL with %zu bytes",
                                nbytes);
        if ((st = shmemu__check_sym(me, call, "dest", dest, nbytes, &off)))
            return st;
        if (SHMEMU__UNLIKELY(sig_off + 8 > off && off + nbytes > sig_off))
            return shmemu__fail(me, SHMEMU_EINVAL, call,
                                "sig_addr %p overlaps dest %p+%zu", (void *)sig_addr,
                                dest, nbytes);
    }
    struct shmemu_tl_rma d = {.op = SHMEMU_TL_PUT, .pe = pe, .nbi = nbi, .off = off,
                              .local = (void *)(uintptr_t)src, .nbytes = nbytes,
                              .sig_op = sig_op == SHMEMU_SIGNAL_SET ? SHMEMU_TL_SIG_SET
                                                                    : SHMEMU_TL_SIG_ADD,
                              .sig_off = sig_off, .sig_value = signal};
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
