/*
 * dispatch.h - the one way from the core into a transport.
 *
 * No other core file names a member of struct shmemu_transport_ops: the
 * existence checks (SHMEMU_TL_HAS for members added later), the fallbacks
 * (no fence: quiet; no nbi: blocking; no progress: nothing to drive) and the
 * one-line error for a failed transport call live here, once.
 *
 * Two tables: job->ops is the one the job runs on (the checker's layer when
 * checker mode is on, which wraps the transport's data path and copies the
 * rest), job->transport the transport itself (its name, and what the core
 * reads behind the checker's back, such as its own heap).  The data path is
 * inline and reaches the table through pointers cached in the PE (me->rma,
 * me->amo), so a put costs one indirect call, as before this layer existed.
 */
#ifndef SHMEMU_DISPATCH_H
#define SHMEMU_DISPATCH_H

#include "runtime/core.h"

/* ------------------------------------------------------------ lifecycle */

/* Can ops run here?  SHMEMU_OK, or a status with a one-line reason in why. */
int shmemu__tl_probe(const struct shmemu_transport_ops *ops, char *why, size_t len)
    SHMEMU__HIDDEN;
int shmemu__tl_job_create(struct shmemu__job *job) SHMEMU__HIDDEN;
/* SHMEMU_ENOTSUP when the transport cannot attach an SPMD program. */
int shmemu__tl_job_attach(struct shmemu__job *job, int pe) SHMEMU__HIDDEN;
int shmemu__tl_job_run(struct shmemu__job *job, int (*entry)(struct shmemu_tl_job *, int))
    SHMEMU__HIDDEN;
/* Can ops join a job that a launcher started (job_join)? */
int shmemu__tl_can_join(const struct shmemu_transport_ops *ops) SHMEMU__HIDDEN;
/* Join it, as PE pe (the bootstrap said where this process is). */
int shmemu__tl_job_join(struct shmemu__job *job, int pe) SHMEMU__HIDDEN;
void shmemu__tl_job_destroy(struct shmemu__job *job) SHMEMU__HIDDEN;
int shmemu__tl_pe_enter(struct shmemu__job *job, int pe) SHMEMU__HIDDEN;
/* SHMEMU_ENOTSUP when the transport cannot hand a PE to an exec'd program. */
int shmemu__tl_pe_export(struct shmemu__job *job, int pe) SHMEMU__HIDDEN;
/* The wire-up phase (pe.c runs it): the bytes each PE publishes (0: no
 * wire-up), publishing this PE's, connecting to everyone's. */
size_t shmemu__tl_blob_size(const struct shmemu_transport_ops *ops) SHMEMU__HIDDEN;
int shmemu__tl_wireup_publish(shmemu__pe *me, void *blob) SHMEMU__HIDDEN;
int shmemu__tl_wireup_connect(shmemu__pe *me, const void *const *blobs) SHMEMU__HIDDEN;
/* Bytes of control area the wire-up phase needs (blobs of every PE). */
size_t shmemu__tl_wireup_size(const struct shmemu__job *job) SHMEMU__HIDDEN;

static inline const char *shmemu__tl_name(const struct shmemu__job *job)
{
    return job->transport->name;
}

static inline unsigned shmemu__tl_caps(const struct shmemu__job *job)
{
    return job->ops->caps;
}

static inline const char *shmemu__tl_table_name(const struct shmemu_transport_ops *ops)
{
    return ops->name;
}

static inline size_t shmemu__tl_priv_size(const struct shmemu_transport_ops *ops)
{
    return ops->job_priv_size;
}

/* Bind the PE's data path to the job's table (at PE start; a layer that
 * wraps the transport rebinds it). */
static inline void shmemu__tl_bind(shmemu__pe *me)
{
    const struct shmemu_transport_ops *ops = me->job->ops, *t = me->job->transport;
    me->rma = ops->rma;
    me->amo = ops->amo;
    /* The core's own loads of its own heap (a wait's value) go around any
     * layer: they are not remote accesses.  Inlined AMOs only where the
     * job's table allows them (a layer must see every AMO). */
    me->direct = (t->caps & SHMEMU_TL_CAP_LOAD_STORE) && SHMEMU_TL_HAS(t, ptr);
    me->cpu_amo = me->direct && (ops->caps & SHMEMU_TL_CAP_CPU_ATOMICS);
    me->nbi_ok = (ops->caps & SHMEMU_TL_CAP_NBI) != 0;
    me->progress = (ops->caps & SHMEMU_TL_CAP_PROGRESS) && SHMEMU_TL_HAS(ops, progress);
    me->coop = me->job->coop;
}

/* Map [addr, addr + len) of this process onto PE pe's heap at off (the
 * program's static data, shmemu__static_attach): the table must have
 * alias (SHMEMU_TL_HAS). */
static inline int shmemu__tl_alias(struct shmemu__job *job, int pe, size_t off, void *addr,
                                   size_t len)
{
    return job->ops->alias(&job->tl, pe, off, addr, len);
}

/* ------------------------------------------------------------ data path */

/* Report a failed transport call: "the T transport failed <what>". */
int shmemu__tl_failed(shmemu__pe *me, int status, const char *call, const char *fmt, ...)
    SHMEMU__PRINTF(4, 5) SHMEMU__HIDDEN;

static SHMEMU__ALWAYS_INLINE int shmemu__tl_rma(shmemu__pe *me, struct shmemu_tl_rma *d)
{
    if (!me->nbi_ok)
        d->nbi = 0; /* the transport completes every put before returning */
    return me->rma(me->tlj, d);
}

static SHMEMU__ALWAYS_INLINE int shmemu__tl_amo(shmemu__pe *me, const struct shmemu_tl_amo *d)
{
    if (SHMEMU__LIKELY(me->cpu_amo)) /* inlined: op and width are constants at the call */
        return shmemu_tl_cpu_amo(me->tlj->heap_base[d->pe] + d->off, d) ? SHMEMU_EINVAL
                                                                         : SHMEMU_OK;
    return me->amo(me->tlj, d);
}

/* Complete (quiet = 1) or order (quiet = 0) what this PE issued; a
 * transport without fence gets quiet, which implies it. */
int shmemu__tl_complete(shmemu__pe *me, int quiet) SHMEMU__HIDDEN;
/* Complete everything this PE issued, the control plane's unacked atomics
 * included (the transport table's ctl_flush). */
int shmemu__tl_ctl_flush(shmemu__pe *me) SHMEMU__HIDDEN;

/* Does the transport itself hold nonblocking puts past the call (and the
 * job run on it directly)?  A checking layer delivers, and wakes, itself. */
static inline int shmemu__tl_defers(const struct shmemu__job *job)
{
    return job->ops == job->transport && (job->transport->caps & SHMEMU_TL_CAP_NBI);
}

/* Must a sleeping waiter look again by itself (no notify for every
 * change: device heaps)?  Then it sleeps at most this long at a time,
 * starting from the shorter nap and doubling. */
#define SHMEMU__DEVICE_POLL_NS 1000000
#define SHMEMU__DEVICE_POLL_MIN_NS 16000
static inline int shmemu__tl_device_writes(const struct shmemu__job *job)
{
    return (job->transport->caps & SHMEMU_TL_CAP_DEVICE_WRITES) != 0;
}

/* Let the transport move what this PE has outstanding (a PE that waits
 * drives progress where the transport needs it). */
static inline int shmemu__tl_progress(shmemu__pe *me)
{
    if (SHMEMU__UNLIKELY(me->progress))
        return me->job->ops->progress(me->tlj, me->pe);
    return SHMEMU_OK;
}

/* A draw in [0, n) from the transport's schedule (sched_draw): 0, or -1
 * where the transport has none. */
int shmemu__tl_sched_draw(struct shmemu__job *job, uint64_t n, uint64_t *out) SHMEMU__HIDDEN;

/* The address of [off] in pe's heap for the user (shmemu_ptr): a host
 * address, or a device address on a GPU transport; NULL where the
 * transport has no direct access (staged) or a layer must see every
 * access. */
void *shmemu__tl_ptr(struct shmemu__job *job, int pe, size_t off) SHMEMU__HIDDEN;
/* The same from the transport itself, for the core's own reads (reports,
 * its own heap): never through a layer. */
void *shmemu__tl_ptr_direct(struct shmemu__job *job, int pe, size_t off) SHMEMU__HIDDEN;
/* Copy n bytes between local memory and this PE's own heap at off, now and
 * around any layer: the core's own writes (calloc's zeros, realloc's move). */
int shmemu__tl_own_rma(shmemu__pe *me, int op, size_t off, void *local, size_t n)
    SHMEMU__HIDDEN;

/* n bytes at heap offset off of PE pe, read through the transport itself
 * (no checking layer): for reports that show a value another process
 * holds.  Only from a PE. */
int shmemu__tl_heap_get(struct shmemu__job *job, int pe, size_t off, void *local, size_t n)
    SHMEMU__HIDDEN;
/* The control plane's remote accesses where the control area is not shared
 * (tl.ctl_remote): an RMA or AMO on [off] of PE pe's copy of the area
 * (off counted from the area's start), straight to the transport, around
 * any layer -- they are the runtime's, not the program's. */
int shmemu__tl_ctl_rma(struct shmemu__job *job, int op, int pe, size_t off, void *local,
                       size_t n) SHMEMU__HIDDEN;
int shmemu__tl_ctl_amo(struct shmemu__job *job, struct shmemu_tl_amo *d) SHMEMU__HIDDEN;

/* Local compute inside the transport, for heaps the host cannot touch: each
 * pointer is in a heap or in host memory (the contract's local_copy and
 * local_reduce); SHMEMU_ENOTSUP when the transport has none. */
int shmemu__tl_local_copy(shmemu__pe *me, void *dst, const void *src, size_t n) SHMEMU__HIDDEN;
int shmemu__tl_local_reduce(shmemu__pe *me, const struct shmemu_tl_reduce *d) SHMEMU__HIDDEN;
/* Stream-ordered work (the contract's stream_op); SHMEMU_ENOTSUP without. */
int shmemu__tl_stream(shmemu__pe *me, struct shmemu_tl_stream *d) SHMEMU__HIDDEN;

/* ---------------------------------------------------- control words */

static inline void shmemu__tl_ctl_wait(struct shmemu__job *job, void *word, uint32_t expected,
                                       int64_t timeout_ns)
{
    job->ops->ctl_wait(&job->tl, (uint32_t *)word, expected, timeout_ns);
}

static inline void shmemu__tl_ctl_wake(struct shmemu__job *job, void *word, int nwake)
{
    job->ops->ctl_wake(&job->tl, (uint32_t *)word, nwake);
}

#endif /* SHMEMU_DISPATCH_H */
