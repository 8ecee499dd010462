/* dispatch.c - the transport calls that are not on the hot path, and the
 * one message for a transport's failure (see dispatch.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "dispatch.h"

int shmemu__tl_probe(const struct shmemu_transport_ops *ops, char *why, size_t len)
{
    if (!SHMEMU_TL_HAS(ops, probe))
        return SHMEMU_OK;
    return ops->probe(why, len);
}

int shmemu__tl_job_create(struct shmemu__job *job)
{
    return job->ops->job_create(&job->tl);
}

int shmemu__tl_job_attach(struct shmemu__job *job, int pe)
{
    const struct shmemu_transport_ops *ops = job->ops;
    if (!(ops->caps & SHMEMU_TL_CAP_SPMD) || !SHMEMU_TL_HAS(ops, job_attach))
        return SHMEMU_ENOTSUP;
    return ops->job_attach(&job->tl, pe);
}

int shmemu__tl_can_join(const struct shmemu_transport_ops *ops)
{
    return SHMEMU_TL_HAS(ops, job_join);
}

int shmemu__tl_job_join(struct shmemu__job *job, int pe)
{
    return job->ops->job_join(&job->tl, pe);
}

int shmemu__tl_job_run(struct shmemu__job *job, int (*entry)(struct shmemu_tl_job *, int))
{
    return job->ops->job_run(&job->tl, entry);
}

void shmemu__tl_job_destroy(struct shmemu__job *job)
{
    job->ops->job_destroy(&job->tl);
}

int shmemu__tl_pe_enter(struct shmemu__job *job, int pe)
{
    if (!SHMEMU_TL_HAS(job->ops, pe_enter))
        return SHMEMU_OK;
    return job->ops->pe_enter(&job->tl, pe);
}

int shmemu__tl_pe_export(struct shmemu__job *job, int pe)
{
    const struct shmemu_transport_ops *ops = job->ops;
    if (!(ops->caps & SHMEMU_TL_CAP_SPMD) || !SHMEMU_TL_HAS(ops, pe_export))
        return SHMEMU_ENOTSUP;
    return ops->pe_export(&job->tl, pe);
}

/* ------------------------------------------------------------- wire-up */

size_t shmemu__tl_blob_size(const struct shmemu_transport_ops *ops)
{
    if (!SHMEMU_TL_HAS(ops, wireup_connect) || !SHMEMU_TL_HAS(ops, wireup_publish))
        return 0;
    return ops->blob_size;
}

size_t shmemu__tl_wireup_size(const struct shmemu__job *job)
{
    size_t b = shmemu__tl_blob_size(job->ops);
    return b ? SHMEMU__ROUND_UP(b, 64) * (size_t)job->tl.npes : 0;
}

int shmemu__tl_wireup_publish(shmemu__pe *me, void *blob)
{
    return me->job->ops->wireup_publish(me->tlj, me->pe, blob);
}

int shmemu__tl_wireup_connect(shmemu__pe *me, const void *const *blobs)
{
    return me->job->ops->wireup_connect(me->tlj, me->pe, blobs);
}

/* ----------------------------------------------------------- data path */

int shmemu__tl_failed(shmemu__pe *me, int status, const char *call, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    /* A transport says why in tl.why (the failing call, its error). */
    char why[sizeof(me->tlj->why)];
    snprintf(why, sizeof(why), "%s", me->tlj->why);
    me->tlj->why[0] = '\0';
    return shmemu__fail(me, status, call, "the %s transport failed %s%s%s",
                        shmemu__tl_name(me->job), what, why[0] ? ": " : "", why);
}

int shmemu__tl_complete(shmemu__pe *me, int quiet)
{
    const struct shmemu_transport_ops *ops = me->job->ops;
    if (!quiet && SHMEMU_TL_HAS(ops, fence))
        return ops->fence(me->tlj, me->pe);
    if (SHMEMU_TL_HAS(ops, quiet))
        return ops->quiet(me->tlj, me->pe);
    return SHMEMU_OK;
}

int shmemu__tl_ctl_flush(shmemu__pe *me)
{
    /* The transport itself, as for the control plane's atomics (a layer
     * never sees those). */
    const struct shmemu_transport_ops *t = me->job->transport;
    if (SHMEMU_TL_HAS(t, ctl_flush))
        return t->ctl_flush(&me->job->tl, me->pe);
    return shmemu__tl_complete(me, 1);
}

/* What shmemu_ptr hands the user: a host address where heaps are
 * host-addressable, a device address where they are device memory. */
void *shmemu__tl_ptr(struct shmemu__job *job, int pe, size_t off)
{
    if (!SHMEMU_TL_HAS(job->ops, ptr))
        return NULL;
    return job->ops->ptr(&job->tl, pe, off);
}

/* What the core itself may load and store: through the transport's alias
 * where it has one (the program's own view may then be read-only). */
void *shmemu__tl_ptr_direct(struct shmemu__job *job, int pe, size_t off)
{
    const struct shmemu_transport_ops *ops = job->transport;
    if (!(ops->caps & SHMEMU_TL_CAP_LOAD_STORE) || !SHMEMU_TL_HAS(ops, ptr))
        return NULL;
    if (job->tl.lib_base && job->tl.lib_base[pe])
        return job->tl.lib_base[pe] + off;
    return ops->ptr(&job->tl, pe, off);
}

int shmemu__tl_stream(shmemu__pe *me, struct shmemu_tl_stream *d)
{
    const struct shmemu_transport_ops *t = me->job->transport;
    if (!SHMEMU_TL_HAS(t, stream_op))
        return SHMEMU_ENOTSUP;
    return t->stream_op(me->tlj, me->pe, d);
}

/* Local compute goes to the transport itself, not through a checking
 * layer: it is this PE's own memory, as a memmove would be on a heap the
 * host can touch. */
int shmemu__tl_local_copy(shmemu__pe *me, void *dst, const void *src, size_t n)
{
    const struct shmemu_transport_ops *t = me->job->transport;
    if (!SHMEMU_TL_HAS(t, local_copy))
        return SHMEMU_ENOTSUP;
    return t->local_copy(me->tlj, me->pe, dst, src, n);
}

int shmemu__tl_local_reduce(shmemu__pe *me, const struct shmemu_tl_reduce *d)
{
    const struct shmemu_transport_ops *t = me->job->transport;
    if (!SHMEMU_TL_HAS(t, local_reduce))
        return SHMEMU_ENOTSUP;
    return t->local_reduce(me->tlj, me->pe, d);
}

int shmemu__tl_own_rma(shmemu__pe *me, int op, size_t off, void *local, size_t n)
{
    struct shmemu_tl_rma d = {.op = op, .pe = me->pe, .off = off, .local = local,
                              .nbytes = n};
    return me->job->transport->rma(me->tlj, &d);
}

int shmemu__tl_ctl_rma(struct shmemu__job *job, int op, int pe, size_t off, void *local,
                       size_t n)
{
    struct shmemu_tl_rma d = {.op = op, .pe = pe, .off = job->tl.ctl_off + off,
                              .local = local, .nbytes = n};
    return job->transport->rma(&job->tl, &d);
}

int shmemu__tl_heap_get(struct shmemu__job *job, int pe, size_t off, void *local, size_t n)
{
    struct shmemu_tl_rma d = {.op = SHMEMU_TL_GET, .pe = pe, .off = off, .local = local,
                              .nbytes = n};
    return job->transport->rma(&job->tl, &d);
}

int shmemu__tl_ctl_amo(struct shmemu__job *job, struct shmemu_tl_amo *d)
{
    d->off += job->tl.ctl_off;
    return job->transport->amo(&job->tl, d);
}

/* ------------------------------------------------ PEs that take turns */

void shmemu__coop_point(shmemu__pe *me)
{
    const struct shmemu_transport_ops *t = me->job->transport;
    if (SHMEMU_TL_HAS(t, sched_point))
        t->sched_point(me->tlj, me->pe);
}

void shmemu__coop_spin(shmemu__pe *me)
{
    const struct shmemu_transport_ops *t = me->job->transport;
    if (SHMEMU_TL_HAS(t, sched_spin))
        t->sched_spin(me->tlj, me->pe);
    else
        shmemu__coop_point(me);
}

int shmemu__tl_sched_draw(struct shmemu__job *job, uint64_t n, uint64_t *out)
{
    if (!SHMEMU_TL_HAS(job->transport, sched_draw) || n == 0)
        return -1;
    *out = job->transport->sched_draw(&job->tl, n);
    return 0;
}

int64_t shmemu__clock(struct shmemu__job *job)
{
    if (job->coop && SHMEMU_TL_HAS(job->transport, clock_ns))
        return job->transport->clock_ns(&job->tl);
    return shmemu__now_ns();
}

int64_t shmemu__time(void)
{
    shmemu__pe *me = shmemu__self;
    return me ? shmemu__clock(me->job) : shmemu__now_ns();
}

void shmemu__relax(void)
{
    shmemu__pe *me = shmemu__self;
    if (me && me->coop)
        shmemu__coop_point(me);
    else
        sched_yield();
}

void shmemu__nap(int64_t ns)
{
    shmemu__pe *me = shmemu__self;
    if (me && me->coop) {
        shmemu__coop_point(me); /* the others run meanwhile; time is theirs */
        return;
    }
    if (ns <= 0)
        return;
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    nanosleep(&ts, NULL);
}
