/*
 * internal.h - what the ucx plugin's files share: the PE's and its peers'
 * state, and the calls one file makes into another.  plugin.c opens, wires
 * up and closes a PE; progress.c drives its worker (the PE's own threads
 * and the serving thread); combine.c combines small puts over TCP;
 * data.c moves data and completes it.
 */
#ifndef SHMEMU_UCX_PLUGIN_INTERNAL_H
#define SHMEMU_UCX_PLUGIN_INTERNAL_H

#include <stdatomic.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>

#include <ucp/api/ucp.h>

#include "../plugin.h"
#include "shmemu.h"


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

/* A round trip over TCP is tens of microseconds, a sleeping thread's
 * wake-up as much again: a requester polls that long before it sleeps. */
#define SPIN_NS 50000

/* Combining (combine.c) */
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

/* progress.c */
int64_t now_ns(void);
void busy(struct shmemu_ucx_pe *p);
unsigned drive(struct shmemu_ucx_pe *p);
void idle_pe(struct shmemu_ucx_pe *p);
int ucs_fail(char *why, size_t len, const char *call, ucs_status_t s);
void left_to_flush(struct shmemu_ucx_pe *p);
void after_puts(struct shmemu_ucx_pe *p);
ucs_status_t wait_for(struct shmemu_ucx_pe *p, int (*ready)(const void *), const void *arg);
ucs_status_t wait_req(struct shmemu_ucx_pe *p, ucs_status_ptr_t r);
void *serve(void *arg);

/* combine.c */
int cmb_wanted(struct peer *q);
int cmb_put(struct shmemu_ucx_pe *p, struct peer *q, const struct shmemu_tl_rma *d, char *why, size_t len);
ucs_status_t cmb_push(struct shmemu_ucx_pe *p, struct peer *q, int64_t older_than);
ucs_status_t cmb_push_all(struct shmemu_ucx_pe *p, int64_t older_than);
ucs_status_t cmb_before(struct shmemu_ucx_pe *p, struct peer *q);
ucs_status_t cmb_quiet(struct shmemu_ucx_pe *p);
void send_acks(struct shmemu_ucx_pe *p);
ucs_status_t cmb_handlers(struct shmemu_ucx_pe *p);
void cmb_close(struct shmemu_ucx_pe *p, struct peer *q);
int cmb_all_acked(struct shmemu_ucx_pe *p);

/* data.c */
int rma(struct shmemu_ucx_pe *p, const struct shmemu_tl_rma *d, char *why, size_t len);
int amo(struct shmemu_ucx_pe *p, const struct shmemu_tl_amo *d, char *why, size_t len);
int quiet(struct shmemu_ucx_pe *p, char *why, size_t len);
int flush(struct shmemu_ucx_pe *p, char *why, size_t len);
int fence(struct shmemu_ucx_pe *p, char *why, size_t len);
int progress(struct shmemu_ucx_pe *p);
void *peer_ptr(struct shmemu_ucx_pe *p, int peer, size_t off);


#endif
