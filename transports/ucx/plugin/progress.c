/*
 * progress.c - driving the worker: by the PE's own threads while they wait, and by
 * the serving thread while the PE is away (see plugin.c's header).
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

int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* A thread of the PE uses the worker: the server keeps off (a PE that
 * streams puts must not share its core, nor the worker's lock, with a
 * server polling for nothing). */
void busy(struct shmemu_ucx_pe *p)
{
    if (!atomic_load_explicit(&p->driving, memory_order_relaxed))
        atomic_store_explicit(&p->driving, 1, memory_order_relaxed);
}

/* A thread of the PE drives the worker itself.  Acknowledgements of what
 * the last pass applied leave first, from the pass after: not between a
 * PE's receiving the data it waits for and its seeing it (nobody waits for
 * them but a quiet). */
unsigned drive(struct shmemu_ucx_pe *p)
{
    busy(p);
    send_acks(p);
    return ucp_worker_progress(p->worker);
}

/* The PE stops driving (it is about to sleep): the server takes over now. */
void idle_pe(struct shmemu_ucx_pe *p)
{
    atomic_store(&p->driving, 0);
    atomic_fetch_add(&p->park_seq, 1);
    if (atomic_load(&p->parked))
        syscall(SYS_futex, &p->park_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

int ucs_fail(char *why, size_t len, const char *call, ucs_status_t s)
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


/* A put is left to a flush. */
void left_to_flush(struct shmemu_ucx_pe *p)
{
    atomic_store_explicit(&p->issued_ns, now_ns(), memory_order_relaxed);
    atomic_fetch_add(&p->issued, 1);
}

/* Before a get or an atomic: puts left to a flush land first (as they did
 * when every blocking put was flushed at once), so that a PE reads back
 * what it wrote. */
void after_puts(struct shmemu_ucx_pe *p)
{
    if (atomic_load_explicit(&p->done, memory_order_relaxed) <
        atomic_load_explicit(&p->issued, memory_order_relaxed))
        (void)ucp_worker_fence(p->worker);
}

/* Drive the worker until ready(arg); give up (UCS_ERR_CANCELED) once the
 * job has ended, as a dead peer never answers. */
ucs_status_t wait_for(struct shmemu_ucx_pe *p, int (*ready)(const void *), const void *arg)
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
ucs_status_t wait_req(struct shmemu_ucx_pe *p, ucs_status_ptr_t r)
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


void *serve(void *arg)
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
