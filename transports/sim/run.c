/*
 * run.c - a sim job's run: every PE a fiber on stacks mapped side by side
 * (or in the gaps after the heaps), a watchdog for a PE that never yields,
 * a stack guard that names the PE, and the scheduler's main loop.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "sim.h"

static _Thread_local struct sim *running;
/* The SIGSEGV disposition before the innermost run's guard. */
static _Thread_local const struct sigaction *running_prev;
static shmemu_sim_stats last_stats;
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;

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
    /* Not ours: the disposition before the run's takes the fault when it
     * recurs (a handler of the program's: it may name the fault). */
    if (running_prev)
        sigaction(sig, running_prev, NULL);
    else
        signal(sig, SIG_DFL);
}

/* ------------------------------------------------------------------ run */

static void pe_main_fiber(void *arg)
{
    struct sim_pe *p = arg;
    struct sim *s = p->sim;
    shmemu__sim_load(s, p); /* a PE that has not started: the core's state empty */
    s->entry(s->job, p->pe);
    p->state = PE_DONE;
    s->ndone++;
    s->steps++;
    struct sim_pe *next = shmemu__sim_choose(s, 0);
    shmemu__sim_hand_over(s, next);
    shmemu_fiber_exit(&p->fib, shmemu__sim_fib(s, next));
}

/* Mappings this process has, and how many the kernel allows. */
static long maps_now(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    long n = 0;
    char buf[65536];
    for (size_t got; (got = fread(buf, 1, sizeof(buf), f)) > 0;)
        for (const char *p = buf; (p = memchr(p, '\n', got - (size_t)(p - buf))) != NULL; p++)
            n++;
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

/* The run's memory: PEs, run queue, wait-queue buckets, the core's per-PE
 * state (the root's last). */
static int alloc_run(struct sim *s, struct shmemu_tl_job *job)
{
    int n = job->npes;
    s->qmask = pow2_above((size_t)n) - 1;
    s->bmask = pow2_above((size_t)n) * 2 - 1;
    size_t cs = (job->pe_ctx_size + 15) & ~(size_t)15;
    s->ctx_stride = cs;
    s->pes = calloc((size_t)n, sizeof(*s->pes));
    s->q = calloc(s->qmask + 1, sizeof(*s->q));
    s->bhead = calloc(s->bmask + 1, sizeof(*s->bhead));
    s->btail = calloc(s->bmask + 1, sizeof(*s->btail));
    s->ctx_mem = calloc((size_t)n + 1, cs ? cs : 16);
    if (!s->pes || !s->q || !s->bhead || !s->btail || !s->ctx_mem || !job->calls->pe_ctx)
        return -1;
    s->root_ctx = s->ctx_mem + (size_t)n * cs;
    return 0;
}

static void make_fibers(struct sim *s, struct shmemu_tl_job *job)
{
    for (int i = 0; i < s->npes; i++) {
        struct sim_pe *p = &s->pes[i];
        p->sim = s;
        p->pe = i;
        p->ctx = s->ctx_mem + (size_t)i * s->ctx_stride;
        char *mem = s->in_gaps ? job->heap_base[i] + job->heap_size
                               : s->stacks + (size_t)i * s->stack_stride;
        shmemu_fiber_make(&p->fib, mem, s->o.stack, s->guard, pe_main_fiber, p);
    }
}

/* PCT: distinct random priorities above the d - 1 that the change points
 * hand out, and the steps at which those drop. */
static int pct_setup(struct sim *s)
{
    int n = s->npes;
    int *perm = malloc(((size_t)n + 1) * sizeof(int));
    if (!perm)
        return -1;
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
    return 0;
}

/* A stack overflow is reported (on_segv) while the run lasts. */
struct guard {
    struct sigaction old_sa;
    stack_t alt, old_alt;
    int on;
    struct sim *outer;
    const struct sigaction *outer_prev;
};

static void guard_on(struct guard *g, struct sim *s)
{
    struct sigaction sa = {0};
    g->alt = (stack_t){.ss_size = 64 << 10};
    g->alt.ss_sp = malloc(g->alt.ss_size);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    g->on = g->alt.ss_sp && sigaltstack(&g->alt, &g->old_alt) == 0;
    if (g->on)
        sigaction(SIGSEGV, &sa, &g->old_sa);
    g->outer = running;
    g->outer_prev = running_prev;
    running = s;
    running_prev = g->on ? &g->old_sa : running_prev;
}

static void guard_off(struct guard *g)
{
    running = g->outer;
    running_prev = g->outer_prev;
    if (g->on) {
        sigaction(SIGSEGV, &g->old_sa, NULL);
        sigaltstack(&g->old_alt, NULL);
    }
    free(g->alt.ss_sp);
}

static int watch_start(struct watch *w, pthread_t *t)
{
    if (w->s->o.watchdog <= 0)
        return 0;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    return pthread_create(t, NULL, watch_main, w) == 0;
}

static void watch_stop(struct watch *w, pthread_t t)
{
    pthread_mutex_lock(&w->lock);
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(t, NULL);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
}

/* Run PEs until all are done. */
static void schedule(struct sim *s)
{
    int stuck_rounds = 0;
    while (s->ndone < s->npes) {
        if (s->qlen == 0) {
            /* Everyone left sleeps and the core did not end the job: wake
             * them to look again (the core's deadlock check runs as the
             * last one goes back to sleep); never forever. */
            if (++stuck_rounds > 1000) {
                fprintf(stderr, "shmemu: sim: %d PEs wait and none can ever run; "
                                "ending the process\n", s->nblocked);
                abort();
            }
            shmemu__sim_wake_all_blocked(s);
            continue;
        }
        s->steps++;
        shmemu__sim_go(s, shmemu__sim_choose(s, 0));
    }
}

int shmemu__sim_job_run(struct shmemu_tl_job *job,
                        int (*entry)(struct shmemu_tl_job *job, int pe))
{
    struct sim *s = sim_of(job);
    int n = job->npes;
    s->job = job;
    s->entry = entry;
    s->npes = n;
    s->thread = pthread_self();
    s->rng = s->o.seed;
    if (alloc_run(s, job) != 0) {
        free_run(s);
        return SHMEMU_ENOMEM;
    }
    if (map_stacks(s) != 0) {
        int e = errno;
        snprintf(job->why, sizeof(job->why),
                 "cannot map %d fiber stacks of %zu KiB: %s", n, s->o.stack >> 10,
                 strerror(e));
        free_run(s);
        for (int q = 0; q < n; q++)
            job->calls->pe_exited(job, q, SHMEMU_TL_EXIT_NOSTART, e);
        return SHMEMU_OK;
    }
    make_fibers(s, job);
    if (s->o.strategy == STRAT_PCT && pct_setup(s) != 0) {
        free_run(s);
        return SHMEMU_ENOMEM;
    }
    for (int i = 0; i < n; i++)
        shmemu__sim_q_push(s, &s->pes[i]);

    struct guard g;
    guard_on(&g, s);
    struct watch w = {.s = s};
    pthread_t wt;
    int watching = watch_start(&w, &wt);
    shmemu_fiber_root(&s->root);
    schedule(s);
    shmemu_fiber_root_fini(&s->root);
    if (watching)
        watch_stop(&w, wt);
    guard_off(&g);

    pthread_mutex_lock(&last_lock);
    last_stats = (shmemu_sim_stats){.schedule = s->hash,
                                    .steps = s->steps,
                                    .switches = atomic_load(&s->switches)};
    pthread_mutex_unlock(&last_lock);
    free_run(s);
    return SHMEMU_OK;
}

void shmemu_sim_last_stats(shmemu_sim_stats *out)
{
    pthread_mutex_lock(&last_lock);
    *out = last_stats;
    pthread_mutex_unlock(&last_lock);
}
