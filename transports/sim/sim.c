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
#include "fiber.h"
#include "shmemu.h"

/* Virtual time a scheduling point takes: 1 us, so that the core's time
 * limits (SHMEMU_LIVELOCK's 2 s) are a fixed number of steps. */
#define SIM_STEP_NS 1000

enum { STRAT_RANDOM, STRAT_RR, STRAT_PCT };
enum { PE_RUNNABLE, PE_RUNNING, PE_BLOCKED, PE_DONE };

struct sim_pe {
    struct shmemu_fiber fib;
    struct sim *sim;
    int pe;
    int state;
    int err;                /* errno while switched out */
    uint64_t prio;          /* PCT */
    const uint32_t *word;   /* what it sleeps on */
    struct sim_pe *wnext;   /* wait queue */
    void *ctx;              /* the core's per-PE state (job->pe_ctx) */
};

struct sim_opts {
    int strategy;
    int depth;        /* PCT: bug depth d */
    uint64_t seed;
    uint64_t steps;   /* PCT: the schedule length its change points cover */
    size_t stack;     /* bytes per fiber */
    double watchdog;  /* seconds a PE may run without a scheduling point */
    int guard;        /* a page that faults below each stack */
    int seed_given;
};

struct sim {
    struct shmemu_tl_hostmem hm; /* first: the heaps, as on local */
    struct sim_opts o;
    struct shmemu_tl_job *job;
    int (*entry)(struct shmemu_tl_job *job, int pe);
    int npes;
    struct sim_pe *pes;
    struct sim_pe *cur;          /* NULL: the root (job_run's own context) */
    struct shmemu_fiber root;
    char *ctx_mem;    /* every PE's pe_ctx, ctx_stride bytes apart */
    size_t ctx_stride;
    void *root_ctx;
    char *stacks; /* every PE's guard and stack */
    size_t stacks_len, stack_stride, guard;
    int in_gaps; /* stacks in the gaps after the heaps */
    /* Runnable PEs (the running one excluded): a ring. */
    struct sim_pe **q;
    size_t qhead, qlen, qmask;
    /* Wait queues: buckets by word address, FIFO within. */
    struct sim_pe **bhead, **btail;
    size_t bmask;
    int nblocked, ndone;
    uint64_t rng;
    uint64_t change[16]; /* PCT: steps at which the running PE's priority drops */
    int nchange, changed;
    /* What the run did (shmemu_sim_last). */
    uint64_t steps, hash;
    _Atomic uint64_t switches;
    _Atomic int foreign_wake; /* ctl_wake from another thread: wake all */
    pthread_t thread;
};

/* The job of this thread, for the fault handler. */
static _Thread_local struct sim *running;
static shmemu_sim_stats last_stats;
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- options */

/* The value rnd() will give k draws from now, without drawing it
 * (splitmix64). */
static uint64_t rnd_peek(const struct sim *s, uint64_t k)
{
    uint64_t z = s->rng + k * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rnd(struct sim *s)
{
    uint64_t z = rnd_peek(s, 1);
    s->rng += 0x9e3779b97f4a7c15ULL;
    return z;
}

static int parse_size(const char *v, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || end == v)
        return -1;
    if (*end == 'K' || *end == 'k')
        n <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        n <<= 20, end++;
    if (*end || n < 16384 || n > ((size_t)1 << 30))
        return -1;
    *out = (size_t)n;
    return 0;
}

static int parse_u64(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || end == v || *end || *v == '-')
        return -1;
    *out = n;
    return 0;
}

/* SHMEMU_SIM: comma-separated items (docs/SIM.md). */
static int parse_opts(const char *spec, struct sim_opts *o, char *why, size_t len)
{
    *o = (struct sim_opts){.strategy = STRAT_RANDOM, .depth = 3, .seed = 1, .steps = 0,
                           .stack = (size_t)256 << 10, .watchdog = 10, .guard = 1};
    if (!spec)
        return 0;
    char buf[256];
    if (strlen(spec) >= sizeof(buf)) {
        snprintf(why, len, "SHMEMU_SIM is longer than %zu characters", sizeof(buf) - 1);
        return -1;
    }
    strcpy(buf, spec);
    for (char *save = NULL, *it = strtok_r(buf, ",", &save); it;
         it = strtok_r(NULL, ",", &save)) {
        char *v = strchr(it, ':');
        if (v)
            *v++ = '\0';
        uint64_t n = 0;
        int bad = 0;
        if (!strcmp(it, "random") && !v) {
            o->strategy = STRAT_RANDOM;
        } else if (!strcmp(it, "rr") && !v) {
            o->strategy = STRAT_RR;
        } else if (!strcmp(it, "pct")) {
            o->strategy = STRAT_PCT;
            if (v && (parse_u64(v, &n) || n < 1 || n > 16))
                bad = 1;
            else if (v)
                o->depth = (int)n;
        } else if (!strcmp(it, "seed") && v) {
            bad = parse_u64(v, &o->seed);
            o->seed_given = 1;
        } else if (!strcmp(it, "steps") && v) {
            bad = parse_u64(v, &o->steps) || o->steps == 0;
        } else if (!strcmp(it, "stack") && v) {
            bad = parse_size(v, &o->stack);
        } else if (!strcmp(it, "guard") && v) {
            bad = parse_u64(v, &n) || n > 1;
            o->guard = (int)n;
        } else if (!strcmp(it, "watchdog") && v) {
            char *end;
            o->watchdog = strtod(v, &end);
            bad = end == v || *end || !(o->watchdog >= 0);
        } else {
            snprintf(why, len,
                     "SHMEMU_SIM '%s': unknown item '%s' (known: random, rr, pct[:DEPTH], "
                     "seed:N, steps:N, stack:SIZE, guard:0|1, watchdog:SECONDS)",
                     spec, it);
            return -1;
        }
        if (bad) {
            snprintf(why, len,
                     "SHMEMU_SIM '%s': bad value '%s' for %s (pct:1..16, seed:N, steps:N>0, "
                     "stack:16K..1G, guard:0|1, watchdog:SECONDS>=0)",
                     spec, v ? v : "", it);
            return -1;
        }
    }
    return 0;
}

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
            if (s->job->pe_ctx_prefetch)
                s->job->pe_ctx_prefetch(s->job, g1->ctx);
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
        s->job->pe_ctx(s->job, p->ctx, 1);
    } else {
        s->job->pe_ctx(s->job, s->root_ctx, 1);
    }
}

static void load(struct sim *s, struct sim_pe *p)
{
    if (p) {
        s->job->pe_ctx(s->job, p->ctx, 0);
        errno = p->err;
    } else {
        s->job->pe_ctx(s->job, s->root_ctx, 0);
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
    s->cur = next;
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

static struct sim *sim_of(struct shmemu_tl_job *job) { return job->priv; }

static void sim_sched_point(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    struct sim *s = sim_of(job);
    if (s->cur)
        point(s);
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
    if (!s->cur || !pthread_equal(pthread_self(), s->thread))
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
    shmemu_tl_hostmem_destroy(&s->hm, job->npes);
}

static int sim_job_create(struct shmemu_tl_job *job)
{
    struct sim *s = sim_of(job);
    if (parse_opts(getenv("SHMEMU_SIM"), &s->o, job->why, sizeof(job->why)))
        return SHMEMU_EINVAL;
    if (!s->o.seed_given && job->seed) /* checker mode's seed decides both */
        s->o.seed = job->seed;
    int st = shmemu_tl_hostmem_create(&s->hm, job->npes, job->heap_size, job->ctl_size,
                                      job->ctl_hot_size, job->heap_base);
    if (st != SHMEMU_OK)
        return st;
    /* Thousands of PEs touch a page of their heaps each: small pages. */
    for (int pe = 0; pe < job->npes; pe++)
        (void)madvise(job->heap_base[pe], job->heap_size, MADV_NOHUGEPAGE);
    job->ctl = s->hm.ctl;
    return SHMEMU_OK;
}

/* ------------------------------------------------------------- watchdog */

struct watch {
    struct sim *s;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
};

static void *watch_main(void *arg)
{
    struct watch *w = arg;
    struct sim *s = w->s;
    uint64_t seen = atomic_load(&s->switches);
    int64_t still = 0, limit = (int64_t)(s->o.watchdog * 1000);
    pthread_mutex_lock(&w->lock);
    while (!w->done) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&w->cond, &w->lock, &ts);
        uint64_t now = atomic_load(&s->switches);
        still = now == seen ? still + 100 : 0;
        seen = now;
        if (!w->done && still >= limit) {
            /* Only the running PE could switch; it has not called the
             * library since: nothing else can ever run. */
            struct sim_pe *cur = __atomic_load_n(&s->cur, __ATOMIC_RELAXED);
            char msg[320];
            snprintf(msg, sizeof(msg),
                     "shmemu: PE %d/%d has run for %.1f s without calling shmemu "
                     "(sim transport: PEs take turns, so no other PE can run until it "
                     "does; a spin on a plain load?): ending the process with status "
                     "124 (SHMEMU_SIM=watchdog:SECONDS sets the limit)\n",
                     cur ? cur->pe : -1, s->npes, s->o.watchdog);
            if (write(STDERR_FILENO, msg, strlen(msg)) < 0)
                _exit(124);
            _exit(124);
        }
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* ----------------------------------------------------------- stack guard */

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    struct sim *s = running;
    struct sim_pe *cur = s ? s->cur : NULL;
    if (cur && shmemu_fiber_in_guard(&cur->fib, si->si_addr)) {
        char msg[256];
        int n = snprintf(msg, sizeof(msg),
                         "shmemu: PE %d/%d: stack overflow: its fiber's %zu KiB stack (sim "
                         "transport) is used up; raise it with SHMEMU_SIM=stack:SIZE\n",
                         cur->pe, s->npes, cur->fib.stack_size >> 10);
        if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0)
            _exit(128 + SIGSEGV);
        _exit(128 + SIGSEGV);
    }
    /* Not ours: the previous disposition takes the fault when it recurs. */
    signal(sig, SIG_DFL);
}

/* ------------------------------------------------------------------ run */

static void pe_main_fiber(void *arg)
{
    struct sim_pe *p = arg;
    struct sim *s = p->sim;
    load(s, p); /* a PE that has not started: the core's state empty */
    s->entry(s->job, p->pe);
    p->state = PE_DONE;
    s->ndone++;
    s->steps++;
    struct sim_pe *next = choose(s, 0);
    hand_over(s, next);
    shmemu_fiber_exit(&p->fib, fib(s, next));
}

/* Mappings this process has, and how many the kernel allows. */
static long maps_now(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static long maps_max(void)
{
    long n = 65530; /* the kernel's default */
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &n) != 1)
            n = 65530;
        fclose(f);
    }
    return n;
}

/* Every PE's stack above a guard that faults (unless guard:0), committed as
 * touched.  The stacks lie side by side in one region, where a TLB miss on
 * one walks page-table lines that its neighbours keep cached: a 4,096-PE
 * barrier took 0.86-0.99 ms so, against 1.3-2.1 ms with each stack in the
 * gap after its heap (one per 256 MiB heap stride, a page-table page and a
 * page-directory page each).  But each guard splits the region, two
 * mappings per PE beside the heaps' two: where that would pass the
 * kernel's limit (vm.max_map_count, 65,530 by default: about 16,000 PEs),
 * each stack takes the top of the gap after its PE's heap instead, the rest
 * of the gap its guard, merged with the next heap into one mapping. */
static int map_stacks(struct sim *s)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    s->o.stack = (s->o.stack + pg - 1) / pg * pg;
    size_t heap = s->job->heap_size, stride = s->hm.stride;
    long now = s->o.guard ? maps_now() : 0;
    int fits = now >= 0 && now + 2L * s->npes + 1024 <= maps_max();
    if (s->o.guard && !fits && stride >= heap + 2 * SHMEMU_TL_HEAP_ALIGN + s->o.stack) {
        s->guard = stride - heap - s->o.stack;
        s->in_gaps = 1;
        for (int i = 0; i < s->npes; i++) {
            char *st = s->job->heap_base[i] + heap + s->guard;
            if (mprotect(st, s->o.stack, PROT_READ | PROT_WRITE) != 0)
                return -1;
            (void)madvise(st, s->o.stack, MADV_NOHUGEPAGE); /* as the heaps: one mapping */
        }
        return 0;
    }
    s->guard = s->o.guard ? pg : 0;
    s->stack_stride = s->guard + s->o.stack;
    s->stacks_len = s->stack_stride * (size_t)s->npes;
    s->stacks = mmap(NULL, s->stacks_len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (s->stacks == MAP_FAILED) {
        s->stacks = NULL;
        return -1;
    }
    if (!s->guard) /* nothing splits it: huge pages, few TLB misses */
        (void)madvise(s->stacks, s->stacks_len, MADV_HUGEPAGE);
    for (int i = 0; s->guard && i < s->npes; i++)
        if (mprotect(s->stacks + (size_t)i * s->stack_stride, s->guard, PROT_NONE) != 0)
            return -1;
    return 0;
}

static void free_run(struct sim *s)
{
    if (s->pes)
        for (int i = 0; i < s->npes; i++)
            shmemu_fiber_free(&s->pes[i].fib);
    if (s->stacks)
        munmap(s->stacks, s->stacks_len);
    s->stacks = NULL;
    free(s->pes);
    free(s->q);
    free(s->bhead);
    free(s->btail);
    free(s->ctx_mem);
    s->pes = NULL;
    s->q = s->bhead = s->btail = NULL;
    s->ctx_mem = NULL;
}

static size_t pow2_above(size_t n)
{
    size_t p = 1;
    while (p <= n)
        p <<= 1;
    return p;
}

static int sim_job_run(struct shmemu_tl_job *job,
                       int (*entry)(struct shmemu_tl_job *job, int pe))
{
    struct sim *s = sim_of(job);
    int n = job->npes;
    s->job = job;
    s->entry = entry;
    s->npes = n;
    s->thread = pthread_self();
    s->rng = s->o.seed;
    s->qmask = pow2_above((size_t)n) - 1;
    s->bmask = pow2_above((size_t)n) * 2 - 1;
    size_t cs = (job->pe_ctx_size + 15) & ~(size_t)15;
    s->ctx_stride = cs;
    s->pes = calloc((size_t)n, sizeof(*s->pes));
    s->q = calloc(s->qmask + 1, sizeof(*s->q));
    s->bhead = calloc(s->bmask + 1, sizeof(*s->bhead));
    s->btail = calloc(s->bmask + 1, sizeof(*s->btail));
    s->ctx_mem = calloc((size_t)n + 1, cs ? cs : 16);
    if (!s->pes || !s->q || !s->bhead || !s->btail || !s->ctx_mem || !job->pe_ctx) {
        free_run(s);
        return SHMEMU_ENOMEM;
    }
    s->root_ctx = s->ctx_mem + (size_t)n * cs;
    if (map_stacks(s) != 0) {
        int e = errno;
        snprintf(job->why, sizeof(job->why),
                 "cannot map %d fiber stacks of %zu KiB: %s", n, s->o.stack >> 10,
                 strerror(e));
        free_run(s);
        for (int q = 0; q < n; q++)
            job->pe_exited(job, q, SHMEMU_TL_EXIT_NOSTART, e);
        return SHMEMU_OK;
    }
    for (int i = 0; i < n; i++) {
        struct sim_pe *p = &s->pes[i];
        p->sim = s;
        p->pe = i;
        p->ctx = s->ctx_mem + (size_t)i * cs;
        char *mem = s->in_gaps ? job->heap_base[i] + job->heap_size
                               : s->stacks + (size_t)i * s->stack_stride;
        shmemu_fiber_make(&p->fib, mem, s->o.stack, s->guard, pe_main_fiber, p);
    }
    /* PCT: distinct random priorities above the d - 1 that the change
     * points hand out, and the steps at which those drop. */
    if (s->o.strategy == STRAT_PCT) {
        int *perm = malloc(((size_t)s->npes + 1) * sizeof(int));
        if (!perm) {
            free_run(s);
            return SHMEMU_ENOMEM;
        }
        for (int i = 0; i < n; i++)
            perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(rnd(s) % (uint64_t)(i + 1)), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        s->nchange = s->o.depth - 1;
        for (int i = 0; i < n; i++)
            s->pes[i].prio = (uint64_t)s->nchange + 1 + (uint64_t)perm[i];
        free(perm);
        uint64_t k = s->o.steps ? s->o.steps : 200 * (uint64_t)(n ? n : 1);
        for (int i = 0; i < s->nchange; i++)
            s->change[i] = 1 + rnd(s) % k;
        for (int i = 1; i < s->nchange; i++) /* in order of the steps */
            for (int j = i; j > 0 && s->change[j] < s->change[j - 1]; j--) {
                uint64_t t = s->change[j];
                s->change[j] = s->change[j - 1];
                s->change[j - 1] = t;
            }
    }
    for (int i = 0; i < n; i++)
        q_push(s, &s->pes[i]);

    struct sigaction sa = {0}, old_sa;
    stack_t alt = {0}, old_alt;
    alt.ss_size = 64 << 10;
    alt.ss_sp = malloc(alt.ss_size);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    int guarded = alt.ss_sp && sigaltstack(&alt, &old_alt) == 0;
    if (guarded)
        sigaction(SIGSEGV, &sa, &old_sa);
    struct sim *outer = running;
    running = s;

    struct watch w = {.s = s};
    pthread_t wt;
    int watching = 0;
    if (s->o.watchdog > 0) {
        pthread_mutex_init(&w.lock, NULL);
        pthread_cond_init(&w.cond, NULL);
        watching = pthread_create(&wt, NULL, watch_main, &w) == 0;
    }

    shmemu_fiber_root(&s->root);
    int stuck_rounds = 0;
    while (s->ndone < n) {
        if (s->qlen == 0) {
            /* Everyone left sleeps and the core did not end the job: wake
             * them to look again (the core's deadlock check runs as the
             * last one goes back to sleep); never forever. */
            if (++stuck_rounds > 1000) {
                fprintf(stderr, "shmemu: sim: %d PEs wait and none can ever run; "
                                "ending the process\n", s->nblocked);
                abort();
            }
            wake_all_blocked(s);
            continue;
        }
        s->steps++;
        go(s, choose(s, 0));
    }
    shmemu_fiber_root_fini(&s->root);

    if (watching) {
        pthread_mutex_lock(&w.lock);
        w.done = 1;
        pthread_cond_signal(&w.cond);
        pthread_mutex_unlock(&w.lock);
        pthread_join(wt, NULL);
        pthread_cond_destroy(&w.cond);
        pthread_mutex_destroy(&w.lock);
    }
    running = outer;
    if (guarded) {
        sigaction(SIGSEGV, &old_sa, NULL);
        sigaltstack(&old_alt, NULL);
    }
    free(alt.ss_sp);
    pthread_mutex_lock(&last_lock);
    last_stats = (shmemu_sim_stats){.schedule = s->hash,
                                    .steps = s->steps,
                                    .switches = atomic_load(&s->switches)};
    pthread_mutex_unlock(&last_lock);
    free_run(s);
    return SHMEMU_OK;
}

int shmemu_sim_last(shmemu_sim_stats *out)
{
    if (!out)
        return shmemu_error(SHMEMU_EINVAL, "shmemu_sim_last", "out is NULL");
    pthread_mutex_lock(&last_lock);
    *out = last_stats;
    pthread_mutex_unlock(&last_lock);
    return SHMEMU_OK;
}

const struct shmemu_transport_ops shmemu_sim_ops = {
    .size = sizeof(struct shmemu_transport_ops),
    .name = "sim",
    .caps = SHMEMU_TL_CAP_LOAD_STORE | SHMEMU_TL_CAP_SHARED_CTL | SHMEMU_TL_CAP_COOPERATIVE,
    .job_priv_size = sizeof(struct sim),
    .job_create = sim_job_create,
    .job_run = sim_job_run,
    .job_destroy = sim_job_destroy,
    .rma = sim_rma,
    .amo = sim_amo,
    .ptr = shmemu_mapped_ptr,
    .ctl_wait = sim_ctl_wait,
    .ctl_wake = sim_ctl_wake,
    .sched_point = sim_sched_point,
    .clock_ns = sim_clock_ns,
};
