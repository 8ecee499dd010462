/*
 * combine.c - small puts to a peer reached over TCP, combined into one active
 * message (the reasons are below).
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

/* ------------------------------------------------------------ combining
 *
 * Where UCX has no RMA lane to a peer (TCP), it emulates every put with an
 * active message that the target answers with one of its own: two system
 * calls on each side per put, whatever its size (perf: 86% of a stream of
 * 4 KiB puts spent in the kernel's TCP path).  Small puts to such a peer
 * are therefore combined: copied into a buffer per peer that leaves as one
 * active message when full, at a quiet, before any other operation to that
 * peer, when the PE polls or waits, or (sent by the serving thread) once
 * it is CMB_AGE_NS old.  The target applies the records in order and
 * answers with the count of puts it applied, once per progress pass; quiet
 * waits for those counts.  Order: one peer's messages travel on UCX's one
 * active-message lane in order, and everything else to that peer (its
 * other puts, gets, atomics, UCX's own emulated ones) goes on the same lane
 * after the buffer is sent and a worker fence. */

/* Our active messages go eager: a rendezvous would need the receiver to
 * fetch the data, and the handlers apply what they are handed. */
static const ucp_request_param_t am_eager = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                             .flags = UCP_AM_SEND_FLAG_EAGER};

/* Whether puts to q are combined: not where it is mapped, nor where UCX
 * has an RMA lane to it (its puts are then one-sided); SHMEMU_UCX_COMBINE=0
 * turns it off. */
int cmb_wanted(struct peer *q)
{
    const char *e = getenv("SHMEMU_UCX_COMBINE");
    if ((e && e[0] == '0') || q->mapped || !q->ep)
        return 0;
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return 0;
    ucp_ep_print_info(q->ep, f); /* a "put[lane]" line per RMA lane */
    int emulated = fclose(f) == 0 && text && !strstr(text, "put[");
    free(text);
    return emulated;
}

/* Send q's buffer (under its lock; not empty), then make the other one
 * ready to fill.  The serving thread (server) does not wait for the other
 * one to leave: it sends nothing while it is still on the wire. */
static ucs_status_t cmb_send(struct shmemu_ucx_pe *p, struct peer *q, struct cmb *c, int server)
{
    int b = c->cur;
    if (server && c->req[b ^ 1]) {
        if (ucp_request_check_status(c->req[b ^ 1]) == UCS_INPROGRESS)
            return UCS_OK;
        ucp_request_free(c->req[b ^ 1]);
        c->req[b ^ 1] = NULL;
    }
    c->hdr[b] = (struct cmb_hdr){.src = p->pe, .nputs = c->nputs, .upto = c->appended};
    if (!server)
        busy(p);
    /* Counted before it leaves: its acknowledgement may come (to another
     * thread) before the send returns. */
    uint64_t was = atomic_exchange(&c->sent, c->appended);
    atomic_fetch_add(&p->cmb_sent_total, c->appended - was);
    ucs_status_ptr_t r = ucp_am_send_nbx(q->ep, AM_PUTS, &c->hdr[b], sizeof(c->hdr[b]),
                                         c->buf[b], atomic_load_explicit(&c->used,
                                                                         memory_order_relaxed),
                                         &am_eager);
    if (UCS_PTR_IS_ERR(r))
        return UCS_PTR_STATUS(r); /* the peer is gone: quiet gives up on it with the job */
    c->req[b] = r;
    c->cur = b ^ 1;
    c->nputs = 0;
    atomic_store_explicit(&c->used, 0, memory_order_relaxed);
    ucs_status_ptr_t prev = c->req[c->cur];
    c->req[c->cur] = NULL;
    return wait_req(p, prev); /* its buffer is ours again */
}

/* Buffer one put to q (its data copied: the caller's source is free on
 * return, as a blocking put's must be). */
int cmb_put(struct shmemu_ucx_pe *p, struct peer *q, const struct shmemu_tl_rma *d,
                   char *why, size_t len)
{
    struct cmb *c = q->cmb;
    size_t need = sizeof(struct cmb_rec) + ((d->nbytes + 7) & ~(size_t)7);
    ucs_status_t s = UCS_OK;
    pthread_mutex_lock(&c->lock);
    if (!c->buf[0]) {
        c->buf[0] = malloc(p->cmb_bytes);
        c->buf[1] = malloc(p->cmb_bytes);
        if (!c->buf[0] || !c->buf[1]) {
            free(c->buf[0]);
            free(c->buf[1]);
            c->buf[0] = c->buf[1] = NULL;
            pthread_mutex_unlock(&c->lock);
            snprintf(why, len, "no memory for two %zu-byte buffers of puts to PE %d",
                     p->cmb_bytes, d->pe);
            return SHMEMU_ENOMEM;
        }
    }
    size_t used = atomic_load_explicit(&c->used, memory_order_relaxed);
    if (used + need > p->cmb_bytes) {
        s = cmb_send(p, q, c, 0);
        used = 0;
    }
    if (s == UCS_OK) {
        if (!used)
            c->since = now_ns();
        struct cmb_rec r = {.off = d->off, .len = d->nbytes};
        memcpy(c->buf[c->cur] + used, &r, sizeof(r));
        memcpy(c->buf[c->cur] + used + sizeof(r), d->local, d->nbytes);
        atomic_store_explicit(&c->used, used + need, memory_order_relaxed);
        c->nputs++;
        c->appended++;
        atomic_fetch_add(&p->cmb_buffered, 1);
    }
    pthread_mutex_unlock(&c->lock);
    return s == UCS_OK ? SHMEMU_TL_DEFERRED : ucs_fail(why, len, "ucp_am_send_nbx", s);
}

/* Send q's buffered puts, if any; with older_than > 0, only a buffer that
 * old, and only if its lock is free (the serving thread's sweep). */
ucs_status_t cmb_push(struct shmemu_ucx_pe *p, struct peer *q, int64_t older_than)
{
    struct cmb *c = q->cmb;
    if (!atomic_load_explicit(&c->used, memory_order_relaxed))
        return UCS_OK;
    if (older_than) {
        if (pthread_mutex_trylock(&c->lock))
            return UCS_OK;
    } else {
        pthread_mutex_lock(&c->lock);
    }
    ucs_status_t s = UCS_OK;
    if (atomic_load_explicit(&c->used, memory_order_relaxed) &&
        (!older_than || now_ns() - c->since >= older_than))
        s = cmb_send(p, q, c, older_than != 0);
    pthread_mutex_unlock(&c->lock);
    return s;
}

/* Send every peer's buffered puts. */
ucs_status_t cmb_push_all(struct shmemu_ucx_pe *p, int64_t older_than)
{
    ucs_status_t first = UCS_OK;
    if (atomic_load(&p->cmb_sent_total) == atomic_load(&p->cmb_buffered))
        return UCS_OK;
    for (int i = 0; i < p->npes; i++)
        if (p->peers[i].cmb) {
            ucs_status_t s = cmb_push(p, &p->peers[i], older_than);
            if (first == UCS_OK)
                first = s;
        }
    return first;
}

/* Before any other operation to q: its buffered puts go first (they are
 * ordered with what follows on the one lane, behind a fence). */
ucs_status_t cmb_before(struct shmemu_ucx_pe *p, struct peer *q)
{
    struct cmb *c = q->cmb;
    if (!c || (atomic_load(&c->acked) == atomic_load_explicit(&c->sent, memory_order_relaxed) &&
               !atomic_load_explicit(&c->used, memory_order_relaxed)))
        return UCS_OK;
    ucs_status_t s = cmb_push(p, q, 0);
    return s == UCS_OK ? ucp_worker_fence(p->worker) : s;
}

static int cmb_acked_upto(const void *arg)
{
    const struct cmb *c = arg;
    return atomic_load(&c->acked) >= atomic_load(&c->sent);
}

/* Every sent put acknowledged. */
int cmb_all_acked(struct shmemu_ucx_pe *p)
{
    return atomic_load(&p->cmb_acked_total) == atomic_load(&p->cmb_buffered);
}

/* Quiet's part: send what is buffered, wait until the peers applied it. */
ucs_status_t cmb_quiet(struct shmemu_ucx_pe *p)
{
    if (!p->ncmb || cmb_all_acked(p))
        return UCS_OK;
    ucs_status_t s = cmb_push_all(p, 0);
    for (int i = 0; s == UCS_OK && i < p->npes; i++)
        if (p->peers[i].cmb)
            s = wait_for(p, cmb_acked_upto, p->peers[i].cmb);
    return s;
}

/* A message of combined puts from a peer: apply them in order. */
static ucs_status_t on_puts(void *arg, const void *header, size_t header_length, void *data,
                            size_t length, const ucp_am_recv_param_t *param)
{
    struct shmemu_ucx_pe *p = arg;
    struct cmb_hdr h;
    if (header_length != sizeof(h) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
        return UCS_OK; /* not ours: we send eager messages with this header */
    memcpy(&h, header, sizeof(h));
    if (h.src < 0 || h.src >= p->npes || h.src == p->pe)
        return UCS_OK;
    const char *at = data, *end = at + length;
    for (uint32_t i = 0; i < h.nputs; i++) {
        struct cmb_rec r;
        if ((size_t)(end - at) < sizeof(r))
            break;
        memcpy(&r, at, sizeof(r));
        at += sizeof(r);
        /* The sender's core checked the bounds; a damaged message still
         * never writes outside the heap. */
        if (r.len > (size_t)(end - at) || r.off > p->heap_size || r.len > p->heap_size - r.off)
            break;
        /* a flag word moves in one atomic access, as mapped_rma moves it */
        if (!shmemu_small_put(p->heap + r.off, at, r.len))
            memcpy(p->heap + r.off, at, r.len);
        at += (r.len + 7) & ~(uint64_t)7;
    }
    atomic_store(&p->peers[h.src].applied, h.upto);
    atomic_store(&p->acks_owed, 1);
    return UCS_OK;
}

/* A peer applied our puts up to a count. */
static ucs_status_t on_ack(void *arg, const void *header, size_t header_length, void *data,
                           size_t length, const ucp_am_recv_param_t *param)
{
    (void)data, (void)length, (void)param;
    struct shmemu_ucx_pe *p = arg;
    struct cmb_ack a;
    if (header_length != sizeof(a))
        return UCS_OK;
    memcpy(&a, header, sizeof(a));
    if (a.src < 0 || a.src >= p->npes || !p->peers[a.src].cmb)
        return UCS_OK;
    struct cmb *c = p->peers[a.src].cmb;
    /* Handlers run one at a time (the worker's lock). */
    uint64_t was = atomic_load(&c->acked);
    if (a.upto > was) {
        atomic_store(&c->acked, a.upto);
        atomic_fetch_add(&p->cmb_acked_total, a.upto - was);
    }
    return UCS_OK;
}

/* Answer the peers whose puts we applied (after each progress pass: not
 * inside the handler, which runs under the worker's lock). */
void send_acks(struct shmemu_ucx_pe *p)
{
    if (!atomic_load_explicit(&p->acks_owed, memory_order_relaxed) ||
        !atomic_exchange(&p->acks_owed, 0))
        return;
    pthread_mutex_lock(&p->ack_lock);
    for (int i = 0; i < p->npes; i++) {
        struct peer *q = &p->peers[i];
        uint64_t v = atomic_load(&q->applied);
        if (v == q->ack_sent || !q->ep)
            continue;
        if (q->ack_req) {
            if (ucp_request_check_status(q->ack_req) == UCS_INPROGRESS) {
                atomic_store(&p->acks_owed, 1); /* its header is still on the wire */
                continue;
            }
            ucp_request_free(q->ack_req);
            q->ack_req = NULL;
        }
        q->ack = (struct cmb_ack){.src = p->pe, .upto = v};
        ucs_status_ptr_t r = ucp_am_send_nbx(q->ep, AM_ACK, &q->ack, sizeof(q->ack), NULL, 0,
                                             &am_eager);
        /* A failure is a peer gone: its quiet is not waiting any more. */
        if (!UCS_PTR_IS_ERR(r))
            q->ack_req = r;
        q->ack_sent = v;
    }
    pthread_mutex_unlock(&p->ack_lock);
}

ucs_status_t cmb_handlers(struct shmemu_ucx_pe *p)
{
    ucp_am_recv_callback_t cbs[] = {[AM_PUTS] = on_puts, [AM_ACK] = on_ack};
    for (unsigned id = AM_PUTS; id <= AM_ACK; id++) {
        ucp_am_handler_param_t hp = {
            .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                          UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG,
            .id = id,
            .flags = UCP_AM_FLAG_WHOLE_MSG,
            .cb = cbs[id],
            .arg = p};
        ucs_status_t s = ucp_worker_set_am_recv_handler(p->worker, &hp);
        if (s != UCS_OK)
            return s;
    }
    return UCS_OK;
}

/* At close: wait for the buffers on the wire, and free them. */
void cmb_close(struct shmemu_ucx_pe *p, struct peer *q)
{
    if (q->ack_req)
        (void)wait_req(p, q->ack_req);
    struct cmb *c = q->cmb;
    if (!c)
        return;
    for (int b = 0; b < 2; b++)
        if (c->req[b])
            (void)wait_req(p, c->req[b]);
    free(c->buf[0]);
    free(c->buf[1]);
    pthread_mutex_destroy(&c->lock);
    free(c);
}
