/* stream.c - stream-ordered operations (include/shmemu_cuda.h): the checks
 * every RMA makes, then the transport's stream_op. */
#include <stdint.h>

#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "shmemu_cuda.h"

static int no_streams(shmemu__pe *me, const char *call)
{
    return shmemu__fail(me, SHMEMU_ENOTSUP, call,
                        "the %s transport has no streams (stream-ordered calls need "
                        "a GPU transport: cuda)",
                        shmemu__tl_name(me->job));
}

static int stream_rma(const char *call, int op, void *sym, void *local, size_t nbytes,
                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                      shmemu_stream_t stream)
{
    SHMEMU__ENTER(me, call, shmemu__last_status);
    int st;
    if ((st = shmemu__check_pe(me, call, pe)))
        return st;
    struct shmemu_tl_stream d = {.kind = SHMEMU_TL_STREAM_RMA, .stream = stream};
    d.rma = (struct shmemu_tl_rma){.op = op, .pe = pe, .nbi = 1, .local = local,
                                   .nbytes = nbytes};
    if (sig_addr) {
        if (sig_op != SHMEMU_SIGNAL_SET && sig_op != SHMEMU_SIGNAL_ADD)
            return shmemu__fail(me, SHMEMU_EINVAL, call,
                                "sig_op %d is neither SHMEMU_SIGNAL_SET nor _ADD", sig_op);
        if ((st = shmemu__check_sym(me, call, "sig_addr", sig_addr, 8, &d.rma.sig_off)))
            return st;
        d.rma.sig_op = sig_op == SHMEMU_SIGNAL_SET ? SHMEMU_TL_SIG_SET : SHMEMU_TL_SIG_ADD;
        d.rma.sig_value = signal;
    } else if (!nbytes) {
        return shmemu__ok();
    }
    if (nbytes) {
        if (!local)
            return shmemu__fail(me, SHMEMU_EINVAL, call, "%s is NULL with %zu bytes",
                                op == SHMEMU_TL_PUT ? "src" : "dest", nbytes);
        if ((st = shmemu__check_sym(me, call, op == SHMEMU_TL_PUT ? "dest" : "src", sym,
                                    nbytes, &d.rma.off)))
            return st;
    }
    if ((st = shmemu__tl_stream(me, &d)) == SHMEMU_ENOTSUP)
        return no_streams(me, call);
    if (st)
        return shmemu__tl_failed(me, st, call, "to enqueue a %zu-byte %s on a stream", nbytes,
                                 op == SHMEMU_TL_PUT ? "put" : "get");
    return shmemu__ok();
}

int shmemu_putmem_on_stream(void *dest, const void *src, size_t nbytes, int pe,
                            shmemu_stream_t stream)
{
    return stream_rma("shmemu_putmem_on_stream", SHMEMU_TL_PUT, dest, (void *)(uintptr_t)src,
                      nbytes, NULL, 0, 0, pe, stream);
}

int shmemu_getmem_on_stream(void *dest, const void *src, size_t nbytes, int pe,
                            shmemu_stream_t stream)
{
    return stream_rma("shmemu_getmem_on_stream", SHMEMU_TL_GET, (void *)(uintptr_t)src, dest,
                      nbytes, NULL, 0, 0, pe, stream);
}

int shmemu_putmem_signal_on_stream(void *dest, const void *src, size_t nbytes,
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                   shmemu_stream_t stream)
{
    static const char call[] = "shmemu_putmem_signal_on_stream";
    if (!sig_addr) {
        SHMEMU__ENTER(me, call, shmemu__last_status);
        return shmemu__fail(me, SHMEMU_EINVAL, call, "sig_addr is NULL");
    }
    return stream_rma(call, SHMEMU_TL_PUT, dest, (void *)(uintptr_t)src, nbytes, sig_addr,
                      signal, sig_op, pe, stream);
}

static int stream_simple(shmemu__pe *me, const char *call, int kind, shmemu_stream_t stream)
{
    struct shmemu_tl_stream d = {.kind = kind, .stream = stream};
    int st = shmemu__tl_stream(me, &d);
    if (st == SHMEMU_ENOTSUP)
        return no_streams(me, call);
    if (st)
        return shmemu__tl_failed(me, st, call, "to order work on a stream");
    return shmemu__ok();
}

int shmemu_quiet_on_stream(shmemu_stream_t stream)
{
    SHMEMU__ENTER(me, "shmemu_quiet_on_stream", shmemu__last_status);
    return stream_simple(me, "shmemu_quiet_on_stream", SHMEMU_TL_STREAM_QUIET, stream);
}

int shmemu_barrier_all_on_stream(shmemu_stream_t stream)
{
    SHMEMU__ENTER(me, "shmemu_barrier_all_on_stream", shmemu__last_status);
    int st = stream_simple(me, "shmemu_barrier_all_on_stream", SHMEMU_TL_STREAM_SYNC, stream);
    return st ? st : shmemu_barrier_all();
}

int shmemu_my_device(void)
{
    SHMEMU__ENTER(me, "shmemu_my_device", -1);
    struct shmemu_tl_stream d = {.kind = SHMEMU_TL_STREAM_DEVICE, .device = -1};
    if (shmemu__tl_stream(me, &d) != SHMEMU_OK) {
        shmemu__last_status = SHMEMU_ENOTSUP;
        return -1;
    }
    shmemu__ok();
    return d.device;
}
