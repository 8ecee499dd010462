/* rma.h - the checks a put or get makes and the descriptor it becomes,
 * shared by the blocking and nbi forms (rma.c) and the stream-ordered ones
 * (stream.c).  Inline: the hot path stays one function. */
#ifndef SHMEMU_API_RMA_H
#define SHMEMU_API_RMA_H

#include <stdint.h>

#include "runtime/core.h"

/* nbytes (> 0) between local and sym on pe; the caller checked pe. */
static SHMEMU__ALWAYS_INLINE int shmemu__rma_prepare(shmemu__pe *me, const char *call, int op,
                                                     int nbi, const void *sym,
                                                     const void *local, size_t nbytes, int pe,
                                                     struct shmemu_tl_rma *d)
{
    if (SHMEMU__UNLIKELY(!local))
        return shmemu__fail(me, SHMEMU_EINVAL, call, "%s is NULL with %zu bytes",
                            op == SHMEMU_TL_PUT ? "src" : "dest", nbytes);
    size_t off;
    int st = shmemu__check_sym(me, call, op == SHMEMU_TL_PUT ? "dest" : "src", sym, nbytes,
                               &off);
    if (st)
        return st;
    *d = (struct shmemu_tl_rma){.op = op, .pe = pe, .nbi = nbi, .off = off,
                                .local = (void *)(uintptr_t)local, .nbytes = nbytes};
    return SHMEMU_OK;
}

/* A put of nbytes (0: signal only) with a signal; the caller checked pe. */
static SHMEMU__ALWAYS_INLINE int shmemu__put_signal_prepare(
    shmemu__pe *me, const char *call, int nbi, void *dest, const void *src, size_t nbytes,
    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, struct shmemu_tl_rma *d)
{
    int st;
    if (SHMEMU__UNLIKELY(sig_op != SHMEMU_SIGNAL_SET && sig_op != SHMEMU_SIGNAL_ADD)) {
        const char *api = shmemu__api_const_of(shmemu__user_call(call));
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "sig_op %d is neither %s_SIGNAL_SET nor %s_SIGNAL_ADD", sig_op, api,
                            api);
    }
    if (SHMEMU__UNLIKELY((uintptr_t)sig_addr & 7))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "sig_addr %p is not 8-byte aligned", (void *)sig_addr);
    size_t off = 0, sig_off;
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
    *d = (struct shmemu_tl_rma){.op = SHMEMU_TL_PUT, .pe = pe, .nbi = nbi, .off = off,
                                .local = (void *)(uintptr_t)src, .nbytes = nbytes,
                                .sig_op = sig_op == SHMEMU_SIGNAL_SET ? SHMEMU_TL_SIG_SET
                                                                      : SHMEMU_TL_SIG_ADD,
                                .sig_off = sig_off, .sig_value = signal};
    return SHMEMU_OK;
}

#endif /* SHMEMU_API_RMA_H */
