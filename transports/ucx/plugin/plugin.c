/*
 * plugin.c - libshmemu-ucx.so: every UCP call of the ucx transport.
 *
 * One UCP context and worker per PE process.  The heap is the pages of a
 * memfd of the PE's, aligned as the contract asks, registered with
 * ucp_mem_map; its packed rkey and the worker's address are what a PE
 * publishes.  Endpoints go to every peer.  The PE's own heap, and the heap
 * of a peer on the same machine (mapped here through its memfd), are
 * reached with memcpy and the CPU's atomics: the fast path, as OSHMEM's
 * mapped segments are.  Those atomics agree with UCX's only when UCX's are the CPU's
 * too (shared memory does them so, TCP emulates them so at the target), so
 * the context asks for CPU atomics on every fabric (ATOMIC_MODE=cpu): a
 * NIC's atomics are not atomic against the CPU's on the same word.  (UCX's
 * own loopback, the `self` transport, is also avoided so: in UCX 1.13 its
 * fetching AND, OR and XOR ignore their operand.)
 *
 * A peer whose process died never answers.  UCX's peer error mode would
 * say so, but its shared-memory transports refuse that mode (1.13), so
 * every wait for a request also asks the core whether the job still runs
 * (the launcher or a peer ends it when a PE dies) and gives up once it
 * does not (SHMEMU_EABORTED).
 *
 * Networks such as TCP move a peer's put into this heap only when this
 * worker is progressed.  A PE computing, or asleep in a barrier, would stall
 * its peers' puts, so a thread per PE serves the worker while the PE is
 * away: it polls a little after traffic, then sleeps on the worker's event
 * descriptor (ucp_worker_arm), and keeps off while the PE drives the worker
 * itself.  The worker is created thread-safe for that reason.
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

#define BLOB_MAGIC 0x75637831u /* "ucx1" */

struct blob_hdr {
    uint32_t magic;
    int32_t pe;
    uint64_t heap;      /* the heap's address in its process */
    uint64_t heap_size;
    uint32_t addr_len;  /* worker address bytes, then rkey bytes */
    uint32_t rkey_len;
    /* For a peer on the same machine: where its heap's pages are. */
    uint64_t machine;   /* a hash of the boot id and host name */
    int32_t pid, memfd;
};

/* Small puts combined into one active message (see "Combining" below). */
struct cmb_hdr {
    int32_t src;    /* the sending PE */
    uint32_t nputs; /* records in the message */
    uint64_t upto;  /* the sender's count of puts to us, this message's last included */
};
struct cmb_rec {
    uint64_t off; /* in the target's heap */
    uint64_t len; /* then len bytes, padded to 8 */
};
struct cmb_ack {
    int32_t src;
    int32_t unused;
    uint64_t upto; /* puts from src applied here */
};

/* The sending side, for a peer whose puts are combined. */
struct cmb {
    pthread_mutex_t lock; /* threads of the PE and its serving thread */
    char *buf[2];         /* filled in turn: one may still be on the wire */
    ucs_status_ptr_t req[2];
    struct cmb_hdr hdr[2];
    int cur;
    uint32_t nputs;
    _Atomic size_t used; /* bytes in buf[cur]; read unlocked as a hint */
    int64_t since;       /* when buf[cur]'s first put came */
    uint64_t appended;   /* puts to this peer ever buffered */
    _Atomic uint64_t sent;  /* of them, sent */
    _Atomic uint64_t acked; /* of them, applied at the peer */
};

struct peer {
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    uint64_t heap;
    char *mapped;  /* the peer's heap mapped here, or NULL */
    void *own_map; /* the reservation behind mapped, when we made it */
    size_t own_len;
    struct cmb *cmb; /* our puts to it are combined, or NULL */
    /* Its combined puts to us: how many we applied, acknowledged. */
    _Atomic uint64_t applied;
    uint64_t ack_sent;
    struct cmb_ack ack; /* the acknowledgement on the wire */
    ucs_status_ptr_t ack_req;
};

struct shmemu_ucx_pe {
    int pe, npes;
    size_t heap_size;
    char *heap;
    void *map_base; /* the reservation around heap (over-allocated to align it) */
    size_t map_len;
    int memfd; /* the heap's pages */
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_mem_h memh;
    struct peer *peers;
    /* Puts left to a flush (nbi, lazy): issued counts them, done is the
     * count a completed flush covered (threads of the PE may issue at
     * once).  quiet skips the worker flush when they agree; progress keeps
     * one nonblocking flush in flight (flush_req, covering flush_upto) so
     * that a PE that only polls still delivers what it issued. */
    _Atomic uint64_t issued, done;
    /* Unacked atomics (the control plane's "I arrived"): quiet leaves them
     * out, flush covers them the same way. */
    _Atomic uint64_t unacked, unacked_done;
    _Atomic int64_t issued_ns; /* when the last of them was issued */
    atomic_flag flush_lock;
    ucs_status_ptr_t flush_req;
    uint64_t flush_upto;
    int (*gone)(void *arg);
    void *gone_arg;
    /* Bumped (and futex-woken) by the serving thread each time its progress
     * moved something: what a thread waiting for its own request sleeps
     * on, since the server, not it, drains the worker's event descriptor. */
    _Atomic uint32_t arrivals;
    _Atomic int arrival_sleepers; /* threads asleep on arrivals: wake only then */
    _Atomic(_Atomic uint32_t *) arrival_word; /* set_arrival's, or NULL */
    /* The serving thread. */
    pthread_t server;
    int server_up;
    int efd;  /* the worker's event descriptor */
    int stop; /* eventfd that ends the server */
    _Atomic int stopping; /* set before stop is written */
    /* 1 once a thread of the PE drove the worker since the server last
     * cleared it: the PE serves itself, and the server keeps off the worker
     * (and off its event descriptor, whose every message would wake it for
     * nothing) until the PE stops driving or goes to sleep (idle). */
    _Atomic uint32_t driving;
    _Atomic int parked;          /* the server sleeps on park_seq */
    _Atomic uint32_t park_seq;   /* bumped by idle */
    int local;          /* the other PEs on this machine */
    int64_t serve_spin; /* how long the server polls after traffic, ns */
    /* Combining: how many peers, their buffers' size, the largest put
     * combined; puts ever buffered, sent and acknowledged, over all peers
     * (buffered counts under the peer's lock, before the put can leave, so
     * that acked_total <= sent_total <= buffered always holds). */
    int ncmb;
    size_t cmb_bytes, cmb_put_max;
    _Atomic uint64_t cmb_buffered, cmb_sent_total, cmb_acked_total;
    _Atomic int acks_owed; /* a peer's puts were applied since we last acknowledged */
    pthread_mutex_t ack_lock;
};

/* Progress starts a flush of what was left to one once the last such put
 * is this old (a peer asleep on it is woken after the flush). */
#define FLUSH_AFTER_NS 50000

/* While the PE drives the worker, the server looks again this often: a
 * request that reaches a PE which used the worker and then went off to
 * compute waits at most this long (without the server: until the PE's next
 * call).  Shorter looks cost the PEs that poll a CPU they need: 200 us made
 * a ping-pong over TCP 30% slower. */
#define PARK_NS 1000000
/* After it moved something, the server polls this long before it sleeps
 * on the event descriptor (a wake-up costs 20-50 us on a small VM, a
 * round trip over TCP loopback as much): unless the machine's PEs
 * outnumber its CPUs, where that time is another PE's. */
#define SERVE_SPIN_NS 100000

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* A thread of the PE uses the worker: the server keeps off (a PE that
 * streams puts must not share its core, nor the worker's lock, with a
 * server polling for nothing). */
static void busy(struct shmemu_ucx_pe *p)
{
    if (!atomic_load_explicit(&p->driving, memory_order_relaxed))
        atomic_store_explicit(&p->driving, 1, memory_order_relaxed);
}

static void send_acks(struct shmemu_ucx_pe *p);

/* A thread of the PE drives the worker itself.  Acknowledgements of what
 * the last pass applied leave first, from the pass after: not between a
 * PE's receiving the data it waits for and its seeing it (nobody waits for
 * them but a quiet). */
static unsigned drive(struct shmemu_ucx_pe *p)
{
    busy(p);
    send_acks(p);
    return ucp_worker_progress(p->worker);
}

/* The PE stops driving (it is about to sleep): the server takes over now. */
static void idle_pe(struct shmemu_ucx_pe *p)
{
    atomic_store(&p->driving, 0);
    atomic_fetch_add(&p->park_seq, 1);
    if (atomic_load(&p->parked))
        syscall(SYS_futex, &p->park_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static int ucs_fail(char *why, size_t len, const char *call, ucs_status_t s)
{
    snprintf(why, len, "%s: %s", call, ucs_status_string(s));
    switch (s) {
    case UCS_ERR_NO_MEMORY:
        return SHMEMU_ENOMEM;
    case UCS_ERR_INVALID_PARAM:
        return SHMEMU_EINVAL;
    case UCS_ERR_CONNECTION_RESET: /* the peer's process is gone */
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_CANCELED:
        return SHMEMU_EABORTED;
    default:
        return SHMEMU_ENODEV;
    }
}

/* A round trip over TCP is tens of microseconds, a sleeping thread's
 * wake-up as much again: a requester polls that long before it sleeps. */
#define SPIN_NS 50000

/* A put is left to a flush. */
static void left_to_flush(struct shmemu_ucx_pe *p)
{
    atomic_store_explicit(&p->issued_ns, now_ns(), memory_order_relaxed);
    atomic_fetch_add(&p->issued, 1);
}

/* Before a get or an atomic: puts left to a flush land first (as they did
 * when every blocking put was flushed at once), so that a PE reads back
 * what it wrote. */
static void after_puts(struct shmemu_ucx_pe *p)
{
    if (atomic_load_explicit(&p->done, memory_order_relaxed) <
        atomic_load_explicit(&p->issued, memory_order_relaxed))
        (void)ucp_worker_fence(p->worker);
}

/* Drive the worker until ready(arg); give up (UCS_ERR_CANCELED) once the
 * job has ended, as a dead peer never answers. */
static ucs_status_t wait_for(struct shmemu_ucx_pe *p, int (*ready)(const void *), const void *arg)
{
    /* Spin briefly, then sleep on the worker's events (at most 1 ms at a
     * time): what we wait for is often a peer that needs the core -- PEs
     * outnumber cores in our usual jobs -- and a PE that polls a remote
     * flag must not look busy to livelock detection (its CPU time is what
     * tells work from polling). */
    struct pollfd pfd = {.fd = p->efd, .events = POLLIN};
    int64_t t0 = now_ns();
    for (unsigned i = 1, idle = 0; !ready(arg); i++) {
        uint32_t seen = atomic_load(&p->arrivals);
        if (drive(p)) { /* moving: a large transfer keeps us polling */
            idle = 0;
            t0 = now_ns();
            continue;
        }
        if (++idle <= 16 || (idle % 8 && now_ns() - t0 < SPIN_NS))
            continue;
        idle_pe(p);
        if (!p->server_up) {
            if (ucp_worker_arm(p->worker) == UCS_OK)
                (void)poll(&pfd, 1, 1);
        } else if (!ready(arg)) {
            struct timespec ms = {0, 1000000};
            atomic_fetch_add(&p->arrival_sleepers, 1);
            syscall(SYS_futex, &p->arrivals, FUTEX_WAIT_PRIVATE, seen, &ms, NULL, 0);
            atomic_fetch_sub(&p->arrival_sleepers, 1);
        }
        if (i % 64 == 0 && p->gone(p->gone_arg))
            return UCS_ERR_CANCELED;
    }
    return UCS_OK;
}

static int req_ended(const void *r)
{
    return ucp_request_check_status((void *)(uintptr_t)r) != UCS_INPROGRESS;
}

/* Wait for a request (NULL: done at once). */
static ucs_status_t wait_req(struct shmemu_ucx_pe *p, ucs_status_ptr_t r)
{
    if (r == NULL)
        return UCS_OK;
    if (UCS_PTR_IS_ERR(r))
        return UCS_PTR_STATUS(r);
    ucs_status_t s = wait_for(p, req_ended, r);
    if (s == UCS_OK)
        s = ucp_request_check_status(r);
    ucp_request_free(r); /* one still in flight is released when it ends */
    return s;
}

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
#define AM_PUTS 1
#define AM_ACK 2
/* The most a PE's combining buffers may take (two per peer it puts to),
 * and a peer's buffer's bounds: 64 KiB less our header is one TCP segment
 * as the plugin sets them. */
#define CMB_BUDGET (8u << 20)
#define CMB_BYTES_MAX (65536 - 64)
#define CMB_BYTES_MIN 16384
/* The serving thread sends a buffer this old (a PE that put and went off to
 * compute). */
#define CMB_AGE_NS 200000

/* Our active messages go eager: a rendezvous would need the receiver to
 * fetch the data, and the handlers apply what they are handed. */
static const ucp_request_param_t am_eager = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                             .flags = UCP_AM_SEND_FLAG_EAGER};

/* Whether puts to q are combined: not where it is mapped, nor where UCX
 * has an RMA lane to it (its puts are then one-sided); SHMEMU_UCX_COMBINE=0
 * turns it off. */
static int cmb_wanted(struct peer *q)
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
static int cmb_put(struct shmemu_ucx_pe *p, struct peer *q, const struct shmemu_tl_rma *d,
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
static ucs_status_t cmb_push(struct shmemu_ucx_pe *p, struct peer *q, int64_t older_than)
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
static ucs_status_t cmb_push_all(struct shmemu_ucx_pe *p, int64_t older_than)
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
static ucs_status_t cmb_before(struct shmemu_ucx_pe *p, struct peer *q)
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
static int cmb_all_acked(struct shmemu_ucx_pe *p)
{
    return atomic_load(&p->cmb_acked_total) == atomic_load(&p->cmb_buffered);
}

/* Quiet's part: send what is buffered, wait until the peers applied it. */
static ucs_status_t cmb_quiet(struct shmemu_ucx_pe *p)
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
static void send_acks(struct shmemu_ucx_pe *p)
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

static ucs_status_t cmb_handlers(struct shmemu_ucx_pe *p)
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
static void cmb_close(struct shmemu_ucx_pe *p, struct peer *q)
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

static void *serve(void *arg)
{
    struct shmemu_ucx_pe *p = arg;
    struct pollfd fds[2] = {{.fd = p->efd, .events = POLLIN}, {.fd = p->stop, .events = POLLIN}};
    int64_t last = 0; /* when our progress last moved something */
    for (;;) {
        uint32_t seq = atomic_load(&p->park_seq);
        if (atomic_exchange(&p->driving, 0)) {
            /* The PE drove since we last looked: it serves itself. */
            atomic_store(&p->parked, 1);
            struct timespec park = {PARK_NS / 1000000000, PARK_NS % 1000000000};
            syscall(SYS_futex, &p->park_seq, FUTEX_WAIT_PRIVATE, seq, &park, NULL, 0);
            atomic_store(&p->parked, 0);
            if (atomic_load(&p->stopping))
                return NULL;
            /* a PE that put or received, then went off to compute */
            if (p->ncmb)
                (void)cmb_push_all(p, CMB_AGE_NS);
            send_acks(p); /* owed whether or not our own puts are combined */
            continue;
        }
        unsigned moved = 0;
        while (ucp_worker_progress(p->worker))
            moved++;
        send_acks(p);
        if (p->ncmb)
            (void)cmb_push_all(p, CMB_AGE_NS);
        if (moved) {
            last = now_ns();
            /* A sleeper counted after our bump sees it in the futex word;
             * one counted before is woken. */
            atomic_fetch_add(&p->arrivals, 1);
            if (atomic_load(&p->arrival_sleepers))
                syscall(SYS_futex, &p->arrivals, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
            _Atomic uint32_t *w = atomic_load(&p->arrival_word);
            if (w) {
                atomic_fetch_add(w, 1);
                syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
            }
        }
        if (p->serve_spin && now_ns() - last < p->serve_spin) {
            if (atomic_load(&p->stopping))
                return NULL;
            sched_yield(); /* a PE woken on this core runs first */
            continue; /* more traffic is likely: answer it without a wake-up */
        }
        ucs_status_t s = ucp_worker_arm(p->worker);
        if (s == UCS_ERR_BUSY)
            continue;
        /* A bounded sleep as well: a wake-up UCX did not signal costs at
         * most this much, not a hang. */
        int n = poll(fds, 2, s == UCS_OK ? 100 : 1);
        if (n > 0 && (fds[1].revents & POLLIN))
            return NULL;
    }
}

/* The heap: pages of a memfd, mapped shared at an address aligned to align
 * inside a reservation, so that alias() can map the same pages once more
 * over the program's global variables. */
static char *map_heap(struct shmemu_ucx_pe *p, size_t size, size_t align)
{
    p->map_len = size + align;
    char *m = mmap(NULL, p->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    p->map_base = m;
    char *at = (char *)(((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1));
    if ((p->memfd = memfd_create("shmemu-heap", MFD_CLOEXEC)) < 0 ||
        ftruncate(p->memfd, (off_t)size) != 0 ||
        mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, p->memfd,
             0) == MAP_FAILED)
        return NULL;
    return at;
}

static int alias(struct shmemu_ucx_pe *p, size_t off, void *addr, size_t len, char *why,
                 size_t wlen)
{
    if (mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->memfd, (off_t)off) ==
        MAP_FAILED) {
        snprintf(why, wlen, "mmap of heap bytes %zu..%zu at %p: %s", off, off + len, addr,
                 strerror(errno));
        return SHMEMU_ENOMEM;
    }
    return SHMEMU_OK;
}

static void pe_close(struct shmemu_ucx_pe *p)
{
    if (!p)
        return;
    if (p->server_up) {
        uint64_t one = 1;
        atomic_store(&p->stopping, 1);
        idle_pe(p); /* a parked server looks at once */
        if (write(p->stop, &one, sizeof(one)) < 0) {
            /* an eventfd write fails only on overflow: the server is woken */
        }
        pthread_join(p->server, NULL);
    }
    if (p->stop >= 0)
        close(p->stop);
    if (p->peers) {
        if (p->worker) {
            if (p->flush_req)
                (void)wait_req(p, p->flush_req);
            ucs_status_ptr_t r = ucp_worker_flush_nbx(p->worker, &(ucp_request_param_t){0});
            (void)wait_req(p, r);
        }
        for (int i = 0; i < p->npes; i++) {
            cmb_close(p, &p->peers[i]);
            if (p->peers[i].rkey)
                ucp_rkey_destroy(p->peers[i].rkey);
            if (p->peers[i].own_map)
                munmap(p->peers[i].own_map, p->peers[i].own_len);
            if (p->peers[i].ep) {
                ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                           .flags = UCP_EP_CLOSE_FLAG_FORCE};
                (void)wait_req(p, ucp_ep_close_nbx(p->peers[i].ep, &prm));
            }
        }
        free(p->peers);
    }
    if (p->memh)
        ucp_mem_unmap(p->ctx, p->memh);
    if (p->worker)
        ucp_worker_destroy(p->worker);
    if (p->ctx)
        ucp_cleanup(p->ctx);
    if (p->map_base)
        munmap(p->map_base, p->map_len);
    if (p->memfd >= 0)
        close(p->memfd);
    pthread_mutex_destroy(&p->ack_lock);
    free(p);
}

/* UCX's shared-memory transport attaches a peer's FIFO through
 * /proc/PID/fd the first time it talks to it, and logs an error when that
 * process has ended: "open(/proc/PID/fd/N) failed", then "mm ep failed to
 * connect".  A peer that died, or left a job that is ending, is shmemu's
 * to report (it names the PE); those two lines are dropped when PID has
 * ended, and everything else UCX logs passes. */
static _Thread_local int dropped_open;

/* Ended: no such process, or a zombie its parent has not reaped yet. */
static int process_ended(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close = strrchr(buf, ')');
    return close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
}

__attribute__((format(printf, 6, 0))) /* message and ap: UCX's printf pair */
static ucs_log_func_rc_t drop_gone_peers(const char *file, unsigned line, const char *function,
                                         ucs_log_level_t level,
                                         const ucs_log_component_config_t *comp,
                                         const char *message, va_list ap)
{
    (void)line, (void)function, (void)level, (void)comp;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    int was = dropped_open, pid, shmid;
    dropped_open = 0;
    int posix = !strcmp(base, "mm_posix.c"), sysv = !strcmp(base, "mm_sysv.c");
    if (posix || sysv) {
        char text[320];
        va_list c;
        va_copy(c, ap);
        vsnprintf(text, sizeof(text), message, c);
        va_end(c);
        /* posix: the peer's /proc file; sysv: its segment, which shmctl no
         * longer knows once it went with the peer */
        const char *at = strstr(text, posix ? "/proc/" : "shmid=");
        struct shmid_ds ds;
        int gone = 0;
        if (at && posix)
            gone = sscanf(at, "/proc/%d/", &pid) == 1 && pid > 0 && process_ended(pid);
        else if (at)
            gone = sscanf(at, "shmid=%d", &shmid) == 1 && shmid >= 0 &&
                   shmctl(shmid, IPC_STAT, &ds) != 0 && (errno == EINVAL || errno == EIDRM);
        if (gone) {
            dropped_open = 1;
            return UCS_LOG_FUNC_RC_STOP;
        }
    } else if (was && !strcmp(base, "mm_ep.c") && strstr(message, "failed to connect")) {
        return UCS_LOG_FUNC_RC_STOP;
    }
    return UCS_LOG_FUNC_RC_CONTINUE;
}

static void push_log_filter(void) { ucs_log_push_handler(drop_gone_peers); }

static int pe_open(int pe, int npes, size_t heap_size, int (*gone)(void *arg), void *arg,
                   struct shmemu_ucx_pe **pe_p, void **heap_p, char *why, size_t len)
{
    struct shmemu_ucx_pe *p = calloc(1, sizeof(*p));
    int st = SHMEMU_ENOMEM;
    ucs_status_t s;
    if (!p) {
        snprintf(why, len, "out of memory");
        return st;
    }
    p->pe = pe;
    p->npes = npes;
    p->heap_size = heap_size;
    p->gone = gone;
    p->gone_arg = arg;
    p->stop = -1;
    pthread_mutex_init(&p->ack_lock, NULL);
    p->peers = calloc((size_t)npes, sizeof(*p->peers));
    p->memfd = -1;
    p->heap = map_heap(p, heap_size, SHMEMU_TL_BASE_ALIGN);
    if (!p->peers || !p->heap) {
        snprintf(why, len, "no memory for a %zu-byte heap: %s", heap_size, strerror(errno));
        goto fail;
    }

    static pthread_once_t filter_once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&filter_once, push_log_filter);
    ucp_config_t *cfg;
    if ((s = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_config_read", s);
        goto fail;
    }
    /* Unless the user chose otherwise: CPU atomics (see the header
     * comment); a mutex, not a spinlock, around the worker, which the
     * serving thread shares with the PE (two threads on few cores: a
     * preempted holder left the other spinning, and puts over TCP ran at
     * 0.47 GB/s against 0.8 with the mutex); TCP segments of 64 KiB, not
     * 8 (a large put then costs an eighth of the sends and wake-ups:
     * 1.2-3 GB/s against 0.8); one rendezvous lane (below). */
    static const char *const defaults[][3] = {
        /* the name ucp_config_modify takes, its value, the user's variable */
        {"ATOMIC_MODE", "cpu", "UCX_ATOMIC_MODE"},
        {"USE_MT_MUTEX", "y", "UCX_USE_MT_MUTEX"},
        {"TX_SEG_SIZE", "64k", "UCX_TCP_TX_SEG_SIZE"}, /* only TCP reads it */
        {"RX_SEG_SIZE", "64k", "UCX_TCP_RX_SEG_SIZE"},
        /* One lane for an active message's rendezvous, which we never use
         * (combined puts go eager): with the active-message feature UCX
         * 1.13 otherwise adds a second TCP lane (another device, eth0
         * beside lo) whose wire-up, still pending when a peer leaves at a
         * job's end, fails an assertion in UCX's error path and aborts the
         * process. */
        {"MAX_RNDV_RAILS", "1", "UCX_MAX_RNDV_RAILS"},
    };
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        if (!getenv(defaults[i][2]))
            (void)ucp_config_modify(cfg, defaults[i][0], defaults[i][1]);
    ucp_params_t cp = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                      UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                    UCP_FEATURE_WAKEUP | UCP_FEATURE_AM,
        .estimated_num_eps = (size_t)npes,
        .mt_workers_shared = 0,
    };
    s = ucp_init(&cp, cfg, &p->ctx);
    ucp_config_release(cfg);
    if (s != UCS_OK) {
        st = ucs_fail(why, len, "ucp_init", s);
        goto fail;
    }
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_MULTI};
    if ((s = ucp_worker_create(p->ctx, &wp, &p->worker)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_worker_create", s);
        goto fail;
    }
    if ((s = cmb_handlers(p)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_worker_set_am_recv_handler", s);
        goto fail;
    }
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = p->heap,
                               .length = heap_size};
    if ((s = ucp_mem_map(p->ctx, &mp, &p->memh)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_mem_map", s);
        goto fail;
    }
    if ((s = ucp_worker_get_efd(p->worker, &p->efd)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_worker_get_efd", s);
        goto fail;
    }
    if ((p->stop = eventfd(0, EFD_CLOEXEC)) < 0) {
        snprintf(why, len, "eventfd: %s", strerror(errno));
        st = SHMEMU_ENODEV;
        goto fail;
    }
    *pe_p = p;
    *heap_p = p->heap;
    return SHMEMU_OK;
fail:
    pe_close(p);
    return st;
}

/* Which machine this is: peers with the same value share its memory. */
static uint64_t machine_id(void)
{
    char buf[128] = "";
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(buf, sizeof(buf), f))
            buf[0] = '\0';
        fclose(f);
    }
    size_t n = strlen(buf);
    gethostname(buf + n, sizeof(buf) - n - 1);
    for (const char *c = buf; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

/* Same-machine peers are mapped only where the user lets UCX use shared
 * memory: UCX_TLS unset, or naming a shared-memory transport.  UCX_TLS=tcp
 * keeps every byte on TCP, as asked. */
static int shared_memory_allowed(void)
{
    const char *t = getenv("UCX_TLS");
    if (!t || !*t)
        return 1;
    if (*t == '^') /* an exclusion list: allowed unless it names them */
        return !strstr(t, "sm") && !strstr(t, "posix") && !strstr(t, "shm");
    return strstr(t, "all") || strstr(t, "sm") || strstr(t, "posix") || strstr(t, "sysv");
}

/* A peer on this machine: map its heap's pages here (through its memfd,
 * as UCX's own shared-memory transport reaches a peer's segment), at an
 * address aligned as heaps are, so that puts, gets and atomics on it are
 * loads, stores and the CPU's atomics.  Where /proc refuses (another user,
 * a hardened kernel), the peer is reached through UCX. */
static void map_peer(struct shmemu_ucx_pe *p, struct peer *q, const struct blob_hdr *h)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)h->pid, (int)h->memfd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t len = p->heap_size + SHMEMU_TL_BASE_ALIGN;
    char *m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m != MAP_FAILED) {
        char *at = (char *)(((uintptr_t)m + SHMEMU_TL_BASE_ALIGN - 1) &
                            ~(uintptr_t)(SHMEMU_TL_BASE_ALIGN - 1));
        if (mmap(at, p->heap_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
            MAP_FAILED) {
            munmap(m, len);
        } else {
            q->mapped = at;
            q->own_map = m;
            q->own_len = len;
        }
    }
    close(fd);
}

static int publish(struct shmemu_ucx_pe *p, void *out, size_t cap, char *why, size_t len)
{
    ucp_address_t *addr;
    size_t alen, rlen;
    void *rkey;
    ucs_status_t s;
    if ((s = ucp_worker_get_address(p->worker, &addr, &alen)) != UCS_OK)
        return ucs_fail(why, len, "ucp_worker_get_address", s);
    if ((s = ucp_rkey_pack(p->ctx, p->memh, &rkey, &rlen)) != UCS_OK) {
        ucp_worker_release_address(p->worker, addr);
        return ucs_fail(why, len, "ucp_rkey_pack", s);
    }
    struct blob_hdr h = {.machine = machine_id(), .pid = (int32_t)getpid(), .memfd = p->memfd,
                         .magic = BLOB_MAGIC, .pe = p->pe, .heap = (uintptr_t)p->heap,
                         .heap_size = p->heap_size, .addr_len = (uint32_t)alen,
                         .rkey_len = (uint32_t)rlen};
    int st = SHMEMU_OK;
    if (sizeof(h) + alen + rlen > cap) {
        snprintf(why, len,
                 "the worker address (%zu bytes) and heap key (%zu bytes) exceed the %zu "
                 "bytes a PE may publish",
                 alen, rlen, cap - sizeof(h));
        st = SHMEMU_ENOMEM;
    } else {
        memcpy(out, &h, sizeof(h));
        memcpy((char *)out + sizeof(h), addr, alen);
        memcpy((char *)out + sizeof(h) + alen, rkey, rlen);
    }
    ucp_rkey_buffer_release(rkey);
    ucp_worker_release_address(p->worker, addr);
    return st;
}

static int connect_peer(struct shmemu_ucx_pe *p, int peer, const void *blob, size_t cap,
                        char *why, size_t len)
{
    struct blob_hdr h;
    memcpy(&h, blob, sizeof(h));
    if (h.magic != BLOB_MAGIC || h.pe != peer || h.heap_size != p->heap_size ||
        sizeof(h) + (size_t)h.addr_len + h.rkey_len > cap) {
        snprintf(why, len, "PE %d published no ucx heap of %zu bytes", peer, p->heap_size);
        return SHMEMU_EINVAL;
    }
    struct peer *q = &p->peers[peer];
    if (peer == p->pe) {
        q->heap = (uintptr_t)p->heap;
        q->mapped = p->heap;
        return SHMEMU_OK;
    }
    ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                          .address = (const ucp_address_t *)((const char *)blob + sizeof(h))};
    ucs_status_t s;
    if ((s = ucp_ep_create(p->worker, &ep, &q->ep)) != UCS_OK) {
        q->ep = NULL;
        return ucs_fail(why, len, "ucp_ep_create", s);
    }
    if ((s = ucp_ep_rkey_unpack(q->ep, (const char *)blob + sizeof(h) + h.addr_len,
                                &q->rkey)) != UCS_OK) {
        q->rkey = NULL;
        return ucs_fail(why, len, "ucp_ep_rkey_unpack", s);
    }
    q->heap = h.heap;
    p->local += h.machine == machine_id();
    if (shared_memory_allowed() && h.machine == machine_id())
        map_peer(p, q, &h);
    void *m;
    if (!q->mapped && ucp_rkey_ptr(q->rkey, h.heap, &m) == UCS_OK)
        q->mapped = m;
    if (cmb_wanted(q)) {
        if (!(q->cmb = calloc(1, sizeof(*q->cmb)))) {
            snprintf(why, len, "out of memory");
            return SHMEMU_ENOMEM;
        }
        pthread_mutex_init(&q->cmb->lock, NULL);
        p->ncmb++;
    }
    return SHMEMU_OK;
}

static int start(struct shmemu_ucx_pe *p, char *why, size_t len)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    p->serve_spin = p->local + 1 <= ncpu ? SERVE_SPIN_NS : 0;
    if (p->ncmb) {
        size_t b = CMB_BUDGET / 2 / (size_t)p->ncmb;
        p->cmb_bytes = b > CMB_BYTES_MAX ? CMB_BYTES_MAX : b < CMB_BYTES_MIN ? CMB_BYTES_MIN : b;
        p->cmb_put_max = p->cmb_bytes / 8; /* 8 KiB with the largest buffers */
    }
    int e = p->server_up ? 0 : pthread_create(&p->server, NULL, serve, p);
    if (e) {
        snprintf(why, len, "pthread_create: %s", strerror(e));
        return SHMEMU_ENOMEM;
    }
    p->server_up = 1;
    return SHMEMU_OK;
}

/* Operations on a heap mapped here: the PE's own, a same-machine peer's
 * (see the header comment). */
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

static int rma(struct shmemu_ucx_pe *p, const struct shmemu_tl_rma *d, char *why, size_t len)
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

static int amo(struct shmemu_ucx_pe *p, const struct shmemu_tl_amo *d, char *why, size_t len)
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

static int quiet(struct shmemu_ucx_pe *p, char *why, size_t len)
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

static int flush(struct shmemu_ucx_pe *p, char *why, size_t len)
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

static int fence(struct shmemu_ucx_pe *p, char *why, size_t len)
{
    full_fence();
    ucs_status_t s = ucp_worker_fence(p->worker);
    return s == UCS_OK ? SHMEMU_OK : ucs_fail(why, len, "ucp_worker_fence", s);
}

static int progress(struct shmemu_ucx_pe *p)
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

static void *peer_ptr(struct shmemu_ucx_pe *p, int peer, size_t off)
{
    char *m = p->peers[peer].mapped;
    return m ? m + off : NULL;
}

/* ------------------------------------------------------------ PMIx */

#ifdef SHMEMU_HAVE_PMIX
static pmix_proc_t self_proc;

static int pmix_fail(char *why, size_t len, const char *call, pmix_status_t rc)
{
    snprintf(why, len, "%s: %s", call, PMIx_Error_string(rc));
    return SHMEMU_ENODEV;
}

/* An integer job attribute of proc, whatever width the server gives it. */
static int get_int(const pmix_proc_t *proc, const char *key, int *out)
{
    pmix_value_t *v;
    if (PMIx_Get(proc, key, NULL, 0, &v) != PMIX_SUCCESS)
        return -1;
    int ok = 0;
    switch (v->type) {
    case PMIX_UINT32: *out = (int)v->data.uint32; break;
    case PMIX_UINT16: *out = (int)v->data.uint16; break;
    case PMIX_INT: *out = v->data.integer; break;
    case PMIX_UINT: *out = (int)v->data.uint; break;
    case PMIX_INT32: *out = (int)v->data.int32; break;
    default: ok = -1;
    }
    PMIX_VALUE_RELEASE(v);
    return ok;
}

static int pmix_init(struct shmemu_ucx_launch *l, char *why, size_t len)
{
    pmix_status_t rc = PMIx_Init(&self_proc, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(why, len, "PMIx_Init", rc);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, self_proc.nspace, PMIX_RANK_WILDCARD);
    l->rank = (int)self_proc.rank;
    if (get_int(&wild, PMIX_JOB_SIZE, &l->size) != 0) {
        snprintf(why, len, "PMIx_Get(%s): the launcher does not say", PMIX_JOB_SIZE);
        return SHMEMU_ENODEV;
    }
    if (get_int(&wild, PMIX_LOCAL_SIZE, &l->local_size) != 0)
        l->local_size = l->size;
    if (get_int(&wild, PMIX_NUM_NODES, &l->nnodes) != 0)
        l->nnodes = l->local_size == l->size ? 1 : 2;
    return SHMEMU_OK;
}

static int pmix_fence(const char *key, const char *value, char *why, size_t len)
{
    pmix_status_t rc;
    if (key) {
        pmix_value_t v;
        PMIX_VALUE_LOAD(&v, value, PMIX_STRING);
        rc = PMIx_Put(PMIX_GLOBAL, key, &v); /* every node: peers may be anywhere */
        PMIX_VALUE_DESTRUCT(&v);
        if (rc != PMIX_SUCCESS)
            return pmix_fail(why, len, "PMIx_Put", rc);
        if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
            return pmix_fail(why, len, "PMIx_Commit", rc);
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, self_proc.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc == PMIX_SUCCESS ? SHMEMU_OK : pmix_fail(why, len, "PMIx_Fence", rc);
}

static int pmix_get(int rank, const char *key, char *out, size_t cap, char *why, size_t len)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, self_proc.nspace, (pmix_rank_t)rank);
    pmix_value_t *v;
    pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(why, len, "PMIx_Get", rc);
    int st = SHMEMU_OK;
    if (v->type != PMIX_STRING || !v->data.string || strlen(v->data.string) >= cap) {
        snprintf(why, len, "PMIx_Get(%s) of process %d: not a string of under %zu bytes", key,
                 rank, cap);
        st = SHMEMU_EINVAL;
    } else {
        strcpy(out, v->data.string);
    }
    PMIX_VALUE_RELEASE(v);
    return st;
}

static void pmix_fini(void) { (void)PMIx_Finalize(NULL, 0); }

static int pmix_abort(int status, const char *msg)
{
    return PMIx_Abort(status, msg, NULL, 0) == PMIX_SUCCESS ? SHMEMU_OK : SHMEMU_EINVAL;
}
#else
static int no_pmix(char *why, size_t len)
{
    snprintf(why, len, "the UCX plugin was built without PMIx (install Debian's libpmix-dev "
                       "and rebuild)");
    return SHMEMU_ENODEV;
}
static int pmix_init(struct shmemu_ucx_launch *l, char *why, size_t len)
{
    (void)l;
    return no_pmix(why, len);
}
static int pmix_fence(const char *key, const char *value, char *why, size_t len)
{
    (void)key, (void)value;
    return no_pmix(why, len);
}
static int pmix_get(int rank, const char *key, char *out, size_t cap, char *why, size_t len)
{
    (void)rank, (void)key, (void)out, (void)cap;
    return no_pmix(why, len);
}
static void pmix_fini(void) {}
static int pmix_abort(int status, const char *msg)
{
    (void)status, (void)msg;
    return SHMEMU_ENODEV;
}
#endif

static const char *version(void) { return ucp_get_version_string(); }

static void set_arrival(struct shmemu_ucx_pe *p, uint32_t *word)
{
    atomic_store(&p->arrival_word, (_Atomic uint32_t *)word);
}

static const struct shmemu_ucx_plugin plugin = {
    .size = sizeof(struct shmemu_ucx_plugin),
    .abi = SHMEMU_UCX_PLUGIN_ABI,
    .version = version,
    .pe_open = pe_open,
    .pe_close = pe_close,
    .publish = publish,
    .connect = connect_peer,
    .start = start,
    .rma = rma,
    .amo = amo,
    .quiet = quiet,
    .fence = fence,
    .progress = progress,
    .peer_ptr = peer_ptr,
    .pmix_init = pmix_init,
    .pmix_fence = pmix_fence,
    .pmix_get = pmix_get,
    .pmix_fini = pmix_fini,
    .alias = alias,
    .set_arrival = set_arrival,
    .idle = idle_pe,
    .pmix_abort = pmix_abort,
    .flush = flush,
};

const struct shmemu_ucx_plugin *shmemu_ucx_plugin(void) __attribute__((visibility("default")));
const struct shmemu_ucx_plugin *shmemu_ucx_plugin(void) { return &plugin; }
