/* stream.c - stream-ordered operations (include/shmemu_cuda.h): the checks
 * every RMA makes (rma.h), then the transport's stream_op. */
#include <stdint.h>

#include "rma.h"
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

/* Hand d to the transport's stream_op, saying what failed in one line. */
static int submit(shmemu__pe *me, const char *call, struct shmemu_tl_stream *d,
                  const char *what)
{
    int st = shmemu__tl_stream(me, d);
    if (st == SHMEMU_ENOTSUP)
        return no_streams(me, call);
    if (st)
        return shmemu__tl_failed(me, st, call, "%s", what);
    return shmemu__ok();
}

/* The checks and descriptor of the blocking forms (rma.h), then the
 * stream.  nbi: completion is the stream's business. */
static int stream_rma(const char *call, int op, const void *sym, const void *local,
                      size_t nbytes, int pe, shmemu_stream_t stream)
{
    SHMEMU__ENTER(me, call, shmemu__last_status);
    struct shmemu_tl_stream d = {.kind = SHMEMU_TL_STREAM_RMA, .stream = stream};
    int st = shmemu__check_pe(me, call, pe);
    if (st || !nbytes)
        return st ? st : shmemu__ok();
    if ((st = shmemu__rma_prepare(me, call, op, 1, sym, local, nbytes, pe, &d.rma)))
        return st;
    return submit(me, call, &d, op == SHMEMU_TL_PUT ? "to enqueue a put" : "to enqueue a get");
}

int shmemu_putmem_on_stream(void *dest, const void *src, size_t nbytes, int pe,
                            shmemu_stream_t stream)
{
    return stream_rma("shmemu_putmem_on_stream", SHMEMU_TL_PUT, dest, src, nbytes, pe, stream);
}

int shmemu_getmem_on_stream(void *dest, const void *src, size_t nbytes, int pe,
                            shmemu_stream_t stream)
{
    return stream_rma("shmemu_getmem_on_stream", SHMEMU_TL_GET, src, dest, nbytes, pe, stream);
}

int shmemu_putmem_signal_on_stream(void *dest, const void *src, size_t nbytes,
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                   shmemu_stream_t stream)
{
    static const char call[] = "shmemu_putmem_signal_on_stream";
    SHMEMU__ENTER(me, call, shmemu__last_status);
    struct shmemu_tl_stream d = {.kind = SHMEMU_TL_STREAM_RMA, .stream = stream};
    int st;
    if ((st = shmemu__check_pe(me, call, pe)) ||
        (st = shmemu__put_signal_prepare(me, call, 1, dest, src, nbytes, sig_addr, signal,
                                         sig_op, pe, &d.rma)))
        return st;
    return submit(me, call, &d, "to enqueue a put with signal");
}

static int stream_simple(shmemu__pe *me, const char *call, int kind, shmemu_stream_t stream)
{
    struct shmemu_tl_stream d = {.kind = kind, .stream = stream};
    return submit(me, call, &d, "to order work on a stream");
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
