/*
 * data.c - puts, gets, atomics, and their completion: loads and stores on a
 * mapped heap, UCP operations otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include <ucp/api/ucp.h>
#include <ucs/debug/log_def.h>
#ifdef SHMEMU_HAVE_PMIX
#include <pmix.h>
#endif

#include "../plugin.h"
#include "../../common/small_copy.h"
#include "shmemu.h"
#include "internal.h"

static void mapped_rma(char *heap, const struct shmemu_tl_rma *d)
{
    char *at = heap + d->off;
    /* a flag word moves in one atomic access, as mapped.c moves it */
    if (d->op == SHMEMU_TL_PUT ? !shmemu_small_put(at, d->local, d->nbytes)
                               : !shmemu_small_get(d->local, at, d->nbytes))
        memcpy(d->op == SHMEMU_TL_PUT ? at : d->local, d->op == SHMEMU_TL_PUT ? d->local : at,
               d->nbytes);
    if (d->op == SHMEMU_TL_PUT && d->sig_op != SHMEMU_TL_SIG_NONE) {
        uint64_t *w = (uint64_t *)(void *)(heap + d->sig_off);
        if (d->sig_op == SHMEMU_TL_SIG_SET)
            __atomic_store_n(w, d->sig_value, __ATOMIC_SEQ_CST);
        else
            __atomic_fetch_add(w, d->sig_value, __ATOMIC_SEQ_CST);
    }
}

static ucs_status_t sig(struct shmemu_ucx_pe *p, struct peer *q, const struct shmemu_tl_rma *d)
{
    uint64_t v = d->sig_value, old;
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE |
                                               UCP_OP_ATTR_FIELD_REPLY_BUFFER,
                               .datatype = ucp_dt_make_contig(8),
                               .reply_buffer = &old};
    return wait_req(p,
                    ucp_atomic_op_nbx(q->ep,
                                      d->sig_op == SHMEMU_TL_SIG_SET ? UCP_ATOMIC_OP_SWAP
                                                                     : UCP_ATOMIC_OP_ADD,
                                      &v, 1, q->heap + d->sig_off, q->rkey, &prm));
}

int rma(struct shmemu_ucx_pe *p, const struct shmemu_tl_rma *d, char *why, size_t len)
{
    struct peer *q = &p->peers[d->pe];
    if (q->mapped) {
        mapped_rma(q->mapped, d);
        return SHMEMU_OK;
    }
    if (q->cmb && d->op == SHMEMU_TL_PUT && (d->lazy || d->nbi) &&
        d->sig_op == SHMEMU_TL_SIG_NONE && d->nbytes <= p->cmb_put_max)
        return cmb_put(p, q, d, why, len);
    busy(p);
    ucp_request_param_t prm = {0};
    ucs_status_t s = cmb_before(p, q);
    if (s != UCS_OK)
        return ucs_fail(why, len, "ucp_am_send_nbx", s);
    const char *call = d->op == SHMEMU_TL_PUT ? "ucp_put_nbx" : "ucp_get_nbx";
    if (d->nbytes) {
        if (d->op == SHMEMU_TL_GET)
            after_puts(p);
        ucs_status_ptr_t r =
            d->op == SHMEMU_TL_PUT
                ? ucp_put_nbx(q->ep, d->local, d->nbytes, q->heap + d->off, q->rkey, &prm)
                : ucp_get_nbx(q->ep, d->local, d->nbytes, q->heap + d->off, q->rkey, &prm);
        if (d->nbi && !UCS_PTR_IS_ERR(r)) {
            /* Completed by the next flush; the request is not wanted. */
            left_to_flush(p);
            if (r)
                ucp_request_free(r);
        } else {
            s = wait_req(p, r); /* a lazy put: its source is free after */
            if (s == UCS_OK && d->lazy && d->sig_op == SHMEMU_TL_SIG_NONE) {
                /* Delivered by the next flush, as OpenSHMEM allows: a
                 * round trip a put (and the target's wake-up) saved. */
                left_to_flush(p);
                return SHMEMU_TL_DEFERRED;
            }
        }
    }
    if (s == UCS_OK && d->op == SHMEMU_TL_PUT && d->sig_op != SHMEMU_TL_SIG_NONE) {
        call = "ucp_worker_fence";
        if ((s = ucp_worker_fence(p->worker)) == UCS_OK) {
            call = "ucp_atomic_op_nbx";
            s = sig(p, q, d);
        }
    } else if (s == UCS_OK && d->op == SHMEMU_TL_PUT && !d->nbi) {
        /* A blocking put is complete at its target: the core wakes the
         * target right after. */
        call = "ucp_ep_flush_nbx";
        s = wait_req(p, ucp_ep_flush_nbx(q->ep, &prm));
    }
    return s == UCS_OK ? SHMEMU_OK : ucs_fail(why, len, call, s);
}

int amo(struct shmemu_ucx_pe *p, const struct shmemu_tl_amo *d, char *why, size_t len)
{
    struct peer *q = &p->peers[d->pe];
    if (q->mapped) {
        if (shmemu_tl_cpu_amo(q->mapped + d->off, d) == 0)
            return SHMEMU_OK;
        snprintf(why, len, "atomic operation %d of width %u is unknown", d->op, d->width);
        return SHMEMU_EINVAL;
    }
    ucp_atomic_op_t op;
    uint64_t v = d->value, reply = 0;
    uint32_t v4 = (uint32_t)d->value, reply4 = 0;
    switch (d->op) {
    case SHMEMU_TL_AMO_FETCH: /* adding 0 reads the word atomically */
        op = UCP_ATOMIC_OP_ADD;
        v = v4 = 0;
        break;
    case SHMEMU_TL_AMO_SET:
    case SHMEMU_TL_AMO_SWAP:
        op = UCP_ATOMIC_OP_SWAP;
        break;
    case SHMEMU_TL_AMO_CSWAP:
        /* buffer: the condition; reply buffer: the new value, then the old */
        op = UCP_ATOMIC_OP_CSWAP;
        reply = d->value;
        reply4 = (uint32_t)d->value;
        v = d->cond;
        v4 = (uint32_t)d->cond;
        break;
    case SHMEMU_TL_AMO_ADD:
        op = UCP_ATOMIC_OP_ADD;
        break;
    case SHMEMU_TL_AMO_AND:
        op = UCP_ATOMIC_OP_AND;
        break;
    case SHMEMU_TL_AMO_OR:
        op = UCP_ATOMIC_OP_OR;
        break;
    case SHMEMU_TL_AMO_XOR:
        op = UCP_ATOMIC_OP_XOR;
        break;
    default:
        snprintf(why, len, "atomic operation %d is unknown", d->op);
        return SHMEMU_EINVAL;
    }
    int w8 = d->width == 8;
    busy(p);
    ucs_status_t sc = cmb_before(p, q);
    if (sc != UCS_OK)
        return ucs_fail(why, len, "ucp_am_send_nbx", sc);
    if (d->lazy && !d->result &&
        (op == UCP_ATOMIC_OP_ADD || op == UCP_ATOMIC_OP_AND || op == UCP_ATOMIC_OP_OR ||
         op == UCP_ATOMIC_OP_XOR)) {
        /* Posted (no reply) and left to the next flush, like a lazy put
         * (a fence orders it, as it orders puts). */
        ucp_request_param_t post = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                                    .datatype = ucp_dt_make_contig(w8 ? 8 : 4)};
        ucs_status_t s = wait_req(p, ucp_atomic_op_nbx(q->ep, op, w8 ? (void *)&v : (void *)&v4,
                                                       1, q->heap + d->off, q->rkey, &post));
        if (s != UCS_OK)
            return ucs_fail(why, len, "ucp_atomic_op_nbx", s);
        if (d->unacked) { /* its target sees it come: nobody's quiet waits */
            atomic_fetch_add(&p->unacked, 1);
            return SHMEMU_OK;
        }
        left_to_flush(p);
        return SHMEMU_TL_DEFERRED;
    }
    after_puts(p);
    /* Always with a reply: its arrival is the operation's completion. */
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE |
                                               UCP_OP_ATTR_FIELD_REPLY_BUFFER,
                               .datatype = ucp_dt_make_contig(w8 ? 8 : 4),
                               .reply_buffer = w8 ? (void *)&reply : (void *)&reply4};
    ucs_status_t s = wait_req(p, ucp_atomic_op_nbx(q->ep, op, w8 ? (void *)&v : (void *)&v4,
                                                           1, q->heap + d->off, q->rkey, &prm));
    if (s != UCS_OK)
        return ucs_fail(why, len, "ucp_atomic_op_nbx", s);
    if (d->result)
        *d->result = w8 ? reply : reply4;
    return SHMEMU_OK;
}

/* A flush that started once a count was upto completed: so is everything
 * counted up to there. */
static void raise_to(_Atomic uint64_t *done, uint64_t upto)
{
    uint64_t d = atomic_load(done);
    while (d < upto && !atomic_compare_exchange_weak(done, &d, upto))
        ;
}

static void flushed(struct shmemu_ucx_pe *p, uint64_t upto)
{
    raise_to(&p->done, upto);
}

/* A full fence; ThreadSanitizer models none (gcc refuses to build one under
 * it), so there a seq_cst read-modify-write stands in. */
#if defined(__SANITIZE_THREAD__)
#define UCX_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UCX_TSAN 1
#endif
#endif

static void full_fence(void)
{
#if defined(UCX_TSAN)
    int dummy = 0;
    __atomic_fetch_add(&dummy, 0, __ATOMIC_SEQ_CST);
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

int quiet(struct shmemu_ucx_pe *p, char *why, size_t len)
{
    full_fence(); /* stores into mapped heaps */
    ucs_status_t s = cmb_quiet(p);
    if (s != UCS_OK)
        return ucs_fail(why, len, "ucp_am_send_nbx", s);
    uint64_t upto = atomic_load(&p->issued);
    if (atomic_load(&p->done) >= upto)
        return SHMEMU_OK; /* everything else completes before it returns */
    s = wait_req(p, ucp_worker_flush_nbx(p->worker, &(ucp_request_param_t){0}));
    if (s != UCS_OK)
        return ucs_fail(why, len, "ucp_worker_flush_nbx", s);
    flushed(p, upto);
    return SHMEMU_OK;
}

int flush(struct shmemu_ucx_pe *p, char *why, size_t len)
{
    uint64_t upto = atomic_load(&p->unacked);
    if (atomic_load(&p->unacked_done) >= upto)
        return quiet(p, why, len);
    uint64_t data = atomic_load(&p->issued);
    ucs_status_t s = cmb_quiet(p);
    if (s != UCS_OK)
        return ucs_fail(why, len, "ucp_am_send_nbx", s);
    s = wait_req(p, ucp_worker_flush_nbx(p->worker, &(ucp_request_param_t){0}));
    if (s != UCS_OK)
        return ucs_fail(why, len, "ucp_worker_flush_nbx", s);
    flushed(p, data);
    raise_to(&p->unacked_done, upto);
    return SHMEMU_OK;
}

int fence(struct shmemu_ucx_pe *p, char *why, size_t len)
{
    full_fence();
    ucs_status_t s = ucp_worker_fence(p->worker);
    return s == UCS_OK ? SHMEMU_OK : ucs_fail(why, len, "ucp_worker_fence", s);
}

int progress(struct shmemu_ucx_pe *p)
{
    /* The PE polls or waits: what it buffered leaves now, before the
     * worker's poll (a round trip's first half). */
    if (p->ncmb)
        (void)cmb_push_all(p, 0); /* a failure is quiet's to report */
    int moved = drive(p) ? SHMEMU_TL_MOVED : 0;
    int cmb_left = p->ncmb && !cmb_all_acked(p);
    uint64_t upto = atomic_load(&p->issued);
    if (atomic_load(&p->done) >= upto)
        return (cmb_left ? SHMEMU_TL_DEFERRED : SHMEMU_OK) | moved;
    if (!atomic_flag_test_and_set(&p->flush_lock)) { /* else another thread sees to it */
        if (p->flush_req) {
            ucs_status_t s = ucp_request_check_status(p->flush_req);
            if (s != UCS_INPROGRESS) {
                ucp_request_free(p->flush_req);
                p->flush_req = NULL;
                if (s == UCS_OK) /* a failure is quiet's to report */
                    flushed(p, p->flush_upto);
            }
        }
        /* Not at once: a peer that polls sees the data without it, and a
         * flush is one more message it must answer per put. */
        if (!p->flush_req && atomic_load(&p->done) < upto &&
            now_ns() - atomic_load_explicit(&p->issued_ns, memory_order_relaxed) > FLUSH_AFTER_NS) {
            ucs_status_ptr_t r = ucp_worker_flush_nbx(p->worker, &(ucp_request_param_t){0});
            if (r == NULL)
                flushed(p, upto);
            else if (!UCS_PTR_IS_ERR(r)) {
                p->flush_req = r;
                p->flush_upto = upto;
            }
        }
        atomic_flag_clear(&p->flush_lock);
    }
    return (atomic_load(&p->done) >= upto && !cmb_left ? SHMEMU_OK : SHMEMU_TL_DEFERRED) | moved;
}

void *peer_ptr(struct shmemu_ucx_pe *p, int peer, size_t off)
{
    char *m = p->peers[peer].mapped;
    return m ? m + off : NULL;
}
