/*
 * sim.c - the `sim` transport: every PE a fiber of the launching thread,
 * run one at a time by a seeded scheduler.
 *
 * A PE runs until it reaches a scheduling point -- every rma and amo, every
 * public call (sched_point), every wait -- where the strategy picks who runs
 * next: uniformly at random, round-robin, or PCT (Burckhardt et al., ASPLOS
 * 2010: random priorities, d - 1 priority drops at random steps, the
 * highest-priority runnable PE always runs).  Nothing else decides: the
 * same SHMEMU_SIM string gives the same interleaving, bit for bit.
 *
 * Heaps are private host memory as on `local`.  A PE that waits on a word
 * sleeps in a wait queue keyed by the word's address and is woken by
 * ctl_wake; the core's deadlock detection then sees exactly "no PE can
 * run".  Time, for the core, is virtual: steps taken (clock_ns), so every
 * decision taken on time replays too.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../common/hostmem.h"
#include "../common/mapped.h"
#include "../common/fiber.h"
#include "shmemu.h"
#include "internal.h"

/* -------------------------------------------------------------- run queue */

static void q_push(struct sim *s, struct sim_pe *p)
{
    p->state = PE_RUNNABLE;
    s->q[(s->qhead + s->qlen++) & s->qmask] = p;
}

/* Take the i-th runnable PE out of the ring. */
static struct sim_pe *q_take(struct sim *s, size_t i)
{
    struct sim_pe **a = &s->q[(s->qhead + i) & s->qmask], *p = *a;
    *a = s->q[s->qhead];
    s->qhead = (s->qhead + 1) & s->qmask;
    s->qlen--;
    return p;
}

/* The strategy's choice among the runnable PEs and cur (when cur still can
 * run): NULL means cur goes on.  Takes the choice out of the ring. */
static struct sim_pe *choose(struct sim *s, int cur_runs)
{
    if (s->qlen == 0)
        return NULL;
    struct sim_pe *cur = s->cur;
    switch (s->o.strategy) {
    case STRAT_RR:
        if (cur_runs)
            q_push(s, cur);
        return q_take(s, 0);
    case STRAT_PCT: {
        size_t best = 0;
        for (size_t i = 1; i < s->qlen; i++)
            if (s->q[(s->qhead + i) & s->qmask]->prio > s->q[(s->qhead + best) & s->qmask]->prio)
                best = i;
        if (cur_runs && cur->prio > s->q[(s->qhead + best) & s->qmask]->prio)
            return NULL;
        struct sim_pe *p = q_take(s, best);
        if (cur_runs)
            q_push(s, cur);
        return p;
    }
    default: {
        uint64_t r = rnd(s) % (s->qlen + (cur_runs ? 1 : 0));
        if (r == s->qlen)
            return NULL;
        struct sim_pe *p = q_take(s, r);
        if (cur_runs)
            q_push(s, cur);
        /* Thousands of PEs: each one's stack, record and core state are
         * cache (and TLB) misses when it comes to run.  Guess the next two
         * choices (right when the PEs keep blocking, as in a barrier, and a
         * mere hint otherwise: the draws are not taken) and fetch ahead,
         * as a pipeline: for the one after next, its record and saved core
         * state (both addressed from its slot alone); for the next, whose
         * record and core state the previous choice fetched, its saved
         * frames and, through that core state, the core's PE structure
         * (pe_ctx_prefetch).  Each stage took 10-20% off a 4,096-PE
         * barrier; eight lines of frames rather than twelve, which filled
         * the line-fill buffers (docs/PERFORMANCE.md). */
        if (s->qlen > 64) {
            size_t i1 = (s->qhead + rnd_peek(s, 1) % s->qlen) & s->qmask;
            size_t i2 = (s->qhead + 1 + rnd_peek(s, 2) % (s->qlen - 1)) & s->qmask;
            struct sim_pe *g1 = s->q[i1], *g2 = s->q[i2 == i1 ? s->qhead : i2];
            __builtin_prefetch(&g2->fib, 0, 3);
            __builtin_prefetch(s->ctx_mem + (size_t)(g2 - s->pes) * s->ctx_stride, 0, 3);
            for (int l = 0; l < 8; l++)
                __builtin_prefetch((char *)g1->fib.ctx + 64 * l, 1, 3);
            if (s->job->calls->pe_ctx_prefetch)
                s->job->calls->pe_ctx_prefetch(s->job, g1->ctx);
        }
        return p;
    }
    }
}

/* --------------------------------------------------------------- switching */

static void save(struct sim *s, struct sim_pe *p)
{
    if (p) {
        p->err = errno;
        s->job->calls->pe_ctx(s->job, p->ctx, 1);
    } else {
        s->job->calls->pe_ctx(s->job, s->root_ctx, 1);
    }
}

static void load(struct sim *s, struct sim_pe *p)
{
    if (p) {
        s->job->calls->pe_ctx(s->job, p->ctx, 0);
        errno = p->err;
    } else {
        s->job->calls->pe_ctx(s->job, s->root_ctx, 0);
    }
}

static struct shmemu_fiber *fib(struct sim *s, struct sim_pe *p)
{
    return p ? &p->fib : &s->root;
}

/* The running PE hands the thread to next (NULL: the root): the schedule's
 * record, and the outgoing PE's state put away. */
static void hand_over(struct sim *s, struct sim_pe *next)
{
    s->hash = (s->hash ^ (uint64_t)(next ? next->pe + 1 : 0)) * 0x100000001b3ULL;
    /* Only this thread counts (the watchdog reads): no lock prefix. */
    atomic_store_explicit(&s->switches,
                          atomic_load_explicit(&s->switches, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    save(s, s->cur);
    __atomic_store_n(&s->cur, next, __ATOMIC_RELAXED); /* the watchdog reads it */
    if (next)
        next->state = PE_RUNNING;
}

/* Run next (NULL: the root) instead of the caller, until someone switches
 * back to the caller. */
static void go(struct sim *s, struct sim_pe *next)
{
    struct sim_pe *cur = s->cur;
    if (next == cur)
        return;
    hand_over(s, next);
    shmemu_fiber_switch(fib(s, cur), fib(s, next));
    load(s, cur);
}

static void wake_all_blocked(struct sim *s);

/* A scheduling point of the running PE: it stays runnable. */
static void point(struct sim *s)
{
    s->steps++;
    if (atomic_load_explicit(&s->foreign_wake, memory_order_relaxed))
        wake_all_blocked(s);
    if (s->o.strategy == STRAT_PCT && s->changed < s->nchange &&
        s->steps >= s->change[s->changed]) {
        /* PCT: the running PE drops below every initial priority. */
        s->cur->prio = (uint64_t)(s->nchange - s->changed);
        s->changed++;
    }
    struct sim_pe *next = choose(s, 1);
    if (next)
        go(s, next);
}

/* The running PE cannot go on: run someone else (the root when nobody can
 * run: it finds the job done or stuck). */
static void leave(struct sim *s)
{
    s->steps++;
    if (atomic_load_explicit(&s->foreign_wake, memory_order_relaxed))
        wake_all_blocked(s);
    go(s, choose(s, 0));
}

/* ----------------------------------------------------------- wait queues */

static size_t bucket(const struct sim *s, const uint32_t *w)
{
    return (size_t)(((uintptr_t)w >> 2) * 0x9e3779b97f4a7c15ULL >> 20) & s->bmask;
}

static void block_on(struct sim *s, const uint32_t *word)
{
    struct sim_pe *me = s->cur;
    size_t b = bucket(s, word);
    me->state = PE_BLOCKED;
    me->word = word;
    me->wnext = NULL;
    if (s->btail[b])
        s->btail[b]->wnext = me;
    else
        s->bhead[b] = me;
    s->btail[b] = me;
    s->nblocked++;
    leave(s);
}

static int wake_word(struct sim *s, const uint32_t *word, int n)
{
    size_t b = bucket(s, word);
    struct sim_pe *prev = NULL, *p = s->bhead[b];
    int woken = 0;
    while (p && woken < n) {
        struct sim_pe *nx = p->wnext;
        if (p->word == word) {
            if (prev)
                prev->wnext = nx;
            else
                s->bhead[b] = nx;
            if (s->btail[b] == p)
                s->btail[b] = prev;
            p->word = NULL;
            s->nblocked--;
            q_push(s, p);
            woken++;
        } else {
            prev = p;
        }
        p = nx;
    }
    return woken;
}

static void wake_all_blocked(struct sim *s)
{
    atomic_store(&s->foreign_wake, 0);
    for (int i = 0; i < s->npes; i++)
        if (s->pes[i].state == PE_BLOCKED)
            wake_word(s, s->pes[i].word, 1 << 30);
}

/* ------------------------------------------------------------ the contract */

static void sim_sched_point(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    struct sim *s = sim_of(job);
    if (s->cur)
        point(s);
}

/* PCT assumes threads that block: one that spins keeps the highest
 * priority and starves the PE it waits for.  A spinning PE goes below
 * every other (the priorities never rise again: what it loses is only
 * PCT's bias, not a schedule). */
static void sim_sched_spin(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    struct sim *s = sim_of(job);
    if (!s->cur)
        return;
    if (s->o.strategy == STRAT_PCT)
        s->cur->prio = 0;
    point(s);
}

static uint64_t sim_sched_draw(struct shmemu_tl_job *job, uint64_t n)
{
    struct sim *s = sim_of(job);
    uint64_t r = rnd(s) % n;
    s->hash = (s->hash ^ (r + 0x10000)) * 0x100000001b3ULL;
    /* The run goes on (the watchdog watches this count): only this thread
     * writes it. */
    atomic_store_explicit(&s->switches,
                          atomic_load_explicit(&s->switches, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    return r;
}

static int64_t sim_clock_ns(struct shmemu_tl_job *job)
{
    return (int64_t)(sim_of(job)->steps * SIM_STEP_NS);
}

static int sim_rma(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d)
{
    sim_sched_point(job, -1);
    return shmemu_mapped_rma(job, d);
}

static int sim_amo(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d)
{
    sim_sched_point(job, -1);
    return shmemu_mapped_amo(job, d);
}

static void sim_ctl_wait(struct shmemu_tl_job *job, uint32_t *word, uint32_t expected,
                         int64_t timeout_ns)
{
    struct sim *s = sim_of(job);
    if (!pthread_equal(pthread_self(), s->thread) || !s->cur)
        return; /* not a PE of this job: nothing to wait for here */
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != expected)
        return;
    if (timeout_ns >= 0) /* a bounded nap: let the others run a step */
        point(s);
    else
        block_on(s, word);
}

static void sim_ctl_wake(struct shmemu_tl_job *job, uint32_t *word, int nwake)
{
    struct sim *s = sim_of(job);
    if (!pthread_equal(pthread_self(), s->thread)) {
        /* The core's timeout watchdog: the scheduler wakes everyone at its
         * next step (sleepers re-check, as after any early return). */
        atomic_store(&s->foreign_wake, 1);
        return;
    }
    wake_word(s, word, nwake);
}

static void sim_job_destroy(struct shmemu_tl_job *job)
{
    struct sim *s = sim_of(job);
    shmemu_tl_hostmem_destroy(&s->hm, job);
}

static int sim_job_create(struct shmemu_tl_job *job)
{
    struct sim *s = sim_of(job);
    if (shmemu__sim_parse_opts(getenv("SHMEMU_SIM"), &s->o, job->why, sizeof(job->why)))
        return SHMEMU_EINVAL;
    if (!s->o.seed_given && job->seed) /* checker mode's seed decides both */
        s->o.seed = job->seed;
    int st = shmemu_tl_hostmem_create(&s->hm, job->npes, job->heap_size, job->ctl_size,
                                      job->ctl_hot_size, job->views, job->heap_base);
    if (st != SHMEMU_OK)
        return st;
    /* Thousands of PEs touch a page of their heaps each: small pages. */
    for (int pe = 0; pe < job->npes; pe++)
        (void)madvise(job->heap_base[pe], job->heap_size, MADV_NOHUGEPAGE);
    job->ctl = s->hm.ctl;
    if (job->aliases && (st = shmemu_tl_hostmem_alias(&s->hm, job->npes, job->lib_base)) != SHMEMU_OK)
        shmemu_tl_hostmem_destroy(&s->hm, job);
    return st;
}

/* For run.c: the scheduler's steps, static above so that the switch
 * path inlines them. */
void shmemu__sim_q_push(struct sim *s, struct sim_pe *p)
{
    q_push(s, p);
}

struct sim_pe *shmemu__sim_choose(struct sim *s, int cur_runs)
{
    return choose(s, cur_runs);
}

void shmemu__sim_load(struct sim *s, struct sim_pe *p)
{
    load(s, p);
}

struct shmemu_fiber *shmemu__sim_fib(struct sim *s, struct sim_pe *p)
{
    return fib(s, p);
}

void shmemu__sim_hand_over(struct sim *s, struct sim_pe *next)
{
    hand_over(s, next);
}

void shmemu__sim_go(struct sim *s, struct sim_pe *next)
{
    go(s, next);
}

void shmemu__sim_wake_all_blocked(struct sim *s)
{
    wake_all_blocked(s);
}

static int sim_map_view(struct shmemu_tl_job *job, int pe, size_t off, void *addr, size_t len,
                        int writable)
{
    return shmemu_tl_hostmem_map_view(&sim_of(job)->hm, pe, off, addr, len, writable);
}

const struct shmemu_transport_ops shmemu_sim_ops = {
    .size = sizeof(struct shmemu_transport_ops),
    .name = "sim",
    .caps = SHMEMU_TL_CAP_LOAD_STORE | SHMEMU_TL_CAP_SHARED_CTL | SHMEMU_TL_CAP_COOPERATIVE,
    .job_priv_size = sizeof(struct sim),
    .job_create = sim_job_create,
    .job_run = shmemu__sim_job_run,
    .job_destroy = sim_job_destroy,
    .rma = sim_rma,
    .amo = sim_amo,
    .ptr = shmemu_mapped_ptr,
    .ctl_wait = sim_ctl_wait,
    .ctl_wake = sim_ctl_wake,
    .sched_point = sim_sched_point,
    .sched_draw = sim_sched_draw,
    .sched_spin = sim_sched_spin,
    .map_view = sim_map_view,
    .clock_ns = sim_clock_ns,
};
