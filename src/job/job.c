/* job.c - a job's life in the launching process: create its heaps and
 * control area through the transport, run its PEs, enforce its time limit,
 * collect its result.  (A PE's own life is in pe.c.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check/check.h"
#include "boot.h"
#include "job.h"
#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "ctl/plane.h"
#include "ctl/wait.h"

/* ------------------------------------------------------------------- jobs */

static void launcher_watch_stop(struct shmemu__job *job);

void shmemu__job_free(struct shmemu__job *job)
{
    if (!job)
        return;
    launcher_watch_stop(job);
    if (job->tl.ctl)
        shmemu__tl_job_destroy(job);
    shmemu__pe_slab_free(job);
    free(job->tl.heap_base);
    free(job->tl.lib_base);
    free(job->tl.priv);
    free(job);
}

static void pick_wait_policy(struct shmemu__job *job)
{
    if (job->coop) { /* a spinning PE would stop every other one */
        job->spin_ns = job->yield_ns = 0;
        return;
    }
    int oversubscribed = job->tl.npes > shmemu__topo_ncpus();
    /* Where a network's round trip (tens of us over TCP) is what a PE
     * waits for, it spins that long: a nap would turn every round trip
     * into two wake-ups. */
    int64_t spin = job->transport->caps & SHMEMU_TL_CAP_PROGRESS ? 100000 : 20000;
    job->spin_ns = job->params.SPIN_NS >= 0 ? job->params.SPIN_NS
                                            : (oversubscribed ? 0 : spin);
    /* Oversubscribed, a waiter first hands its core to PEs that still have
     * work (those it waits for, most likely); a full turn of the others
     * takes longer the more there are, so the budget grows with them
     * (measured: 1 ms at 64 PEs halves the barrier against 100 us). */
    int64_t budget = 16000 * (int64_t)job->tl.npes;
    /* Over a network control plane (several nodes), what a waiter waits
     * for is a message across the network, taken in by a serving thread:
     * a nap costs two wake-ups a hop, so the waiter yields (driving
     * progress) for more than a hop first.  Measured, 3 and 4 PEs across
     * two namespaces on 2 vCPUs: 48-64 us made a barrier 0.6-0.7 ms,
     * 400 us 0.1-0.17 ms. */
    if (job->tl.ctl_remote && budget < 500000)
        budget = 500000;
    job->yield_ns = job->params.YIELD_NS >= 0 ? job->params.YIELD_NS
                    : oversubscribed          ? (budget < 2000000 ? budget : 2000000)
                                              : 0;
}

static int tl_aborted(struct shmemu_tl_job *tl)
{
    struct shmemu__job *job = tl->core;
    if (shmemu__net_orphaned(job)) /* a peer it started may be gone */
        return 1;
    return job->tl.ctl && shmemu__plane_abort_status(job) != 0 &&
           shmemu__now_ns() >= atomic_load(&job->net_grace_ns);
}

static void ctl_init(struct shmemu_tl_job *tl);

/* The bootstrap's exchange and barrier, for a transport joining a job. */
static int tl_boot_allgather(struct shmemu_tl_job *tl, const void *mine, void *all, size_t len,
                             char *why, size_t wlen)
{
    const struct shmemu__boot *b = ((struct shmemu__job *)tl->core)->boot;
    if (!b || !b->allgather) {
        snprintf(why, wlen, "the %s bootstrap exchanges nothing", b ? b->name : "job's");
        return SHMEMU_ENOTSUP;
    }
    return b->allgather(b, mine, all, len, why, wlen);
}

static int tl_boot_barrier(struct shmemu_tl_job *tl, char *why, size_t wlen)
{
    const struct shmemu__boot *b = ((struct shmemu__job *)tl->core)->boot;
    if (!b || !b->barrier) {
        snprintf(why, wlen, "the %s bootstrap has no barrier", b ? b->name : "job's");
        return SHMEMU_ENOTSUP;
    }
    return b->barrier(b, why, wlen);
}

/* What transports call back (transport.h); ctl_init and the bootstrap's
 * calls only job_join calls. */
static const struct shmemu_tl_core core_calls = {
    .pe_exited = shmemu__pe_exited,
    .tick = shmemu__tick,
    .pe_ctx = shmemu__pe_ctx,
    .aborted = tl_aborted,
    .ctl_init = ctl_init,
    .pe_ctx_prefetch = shmemu__pe_ctx_prefetch,
    .boot_allgather = tl_boot_allgather,
    .boot_barrier = tl_boot_barrier,
};

int shmemu__job_launcher_abort(struct shmemu__job *job, int status, const char *msg)
{
    const struct shmemu__boot *b = job->boot;
    return b && b->abort ? b->abort(b, status, msg) : SHMEMU_ENOTSUP;
}

/* What creating and joining a job share: parameters, transport, sizes and
 * the process-local job object, with nothing created or mapped yet. */
/* heap: what the user asked for (0: the default), or with exact, the full
 * per-PE size a launcher already computed. */
static int job_prepare(const char *transport, int npes, size_t heap, int exact,
                       const char *check, const char *call, struct shmemu__job **job_p)
{
    char why[512];
    *job_p = NULL;
    struct shmemu__job *job = calloc(1, sizeof(*job));
    if (!job)
        return shmemu__fail(NULL, SHMEMU_ENOMEM, call, "out of memory");
    /* Until the transport says whether its processes share the control
     * area (then shmemu__plane_choose). */
    job->plane = &shmemu__shared_plane;
    int st = shmemu__params_load(&job->params, why, sizeof(why));
    if (st) {
        free(job);
        return shmemu__fail(NULL, st, call, "%s", why);
    }
    if (check && shmemu__parse_check(check, &job->params.CHECK) != 0) {
        free(job);
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "opts->check '%s' is malformed (off, or a comma-separated list "
                            "of fuzz[:SEED], race, device)",
                            check);
    }
    job->check = job->params.CHECK;
    const char *name = transport ? transport : job->params.TRANSPORT;
    job->ops = job->transport = shmemu__find_transport(name, why, sizeof(why));
    if (!job->ops) {
        free(job);
        return shmemu__fail(NULL, SHMEMU_EINVAL, call, "%s", why);
    }
    if (job->check.device) {
        /* Device discipline: the transport's variant whose symmetric
         * memory the host cannot touch. */
        const struct shmemu_transport_ops *dev = shmemu__device_view_of(job->ops);
        if (!dev) {
            free(job);
            return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                                "SHMEMU_CHECK=device runs on the shm transport, not '%s' "
                                "(select it with SHMEMU_TRANSPORT=shm or opts.transport)",
                                name);
        }
        job->ops = job->transport = dev;
    }
    if ((st = shmemu__tl_probe(job->ops, why, sizeof(why))) != SHMEMU_OK) {
        free(job);
        return shmemu__fail(NULL, SHMEMU_ENODEV, call,
                            "transport '%s' is unavailable here: %s", name, why);
    }
    if (heap == 0)
        heap = job->params.HEAP_SIZE;
    if (heap == 0 || heap > SIZE_MAX / 4 / (size_t)npes) {
        free(job);
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "heap size %zu bytes per PE is %s (set it with "
                            "opts.heap_size or SHMEMU_HEAP_SIZE)",
                            heap, heap ? "too large" : "zero");
    }
    job->who = "shmemu";
    job->tl.npes = npes;
    /* The team workspaces come on top of what the user asked for. */
    job->tl.heap_size =
        exact ? heap : SHMEMU__ROUND_UP(heap + SHMEMU__WORKSPACE_TOTAL, SHMEMU_TL_HEAP_ALIGN);
    job->tl.heap_top = SHMEMU__WORKSPACE_TOTAL;
    job->tl.ctl_size = job->tl.ctl_hot_size = shmemu__plane_size(npes);
    shmemu__check_layer(job);
    size_t check_bytes = shmemu__check_ctl_size(job);
    if (check_bytes) {
        job->check_ctl_off = SHMEMU__ROUND_UP(job->tl.ctl_size, 64);
        job->tl.ctl_size = job->check_ctl_off + check_bytes;
    }
    size_t wire_bytes = shmemu__tl_wireup_size(job);
    if (wire_bytes) {
        job->wireup_ctl_off = SHMEMU__ROUND_UP(job->tl.ctl_size, 64);
        job->tl.ctl_size = job->wireup_ctl_off + wire_bytes;
    }
    job->tl.core = job;
    job->coop = (job->transport->caps & SHMEMU_TL_CAP_COOPERATIVE) != 0;
    job->tl.pe_ctx_size = shmemu__pe_ctx_size();
    job->tl.seed = job->check.fuzz ? job->check.seed : 0;
    job->tl.views = job->check.fuzz || job->check.race; /* shmemu_ptr's, for peers */
    /* the program's own stores, for race detection (not where its heap is
     * a device's: device discipline faults on every access anyway; not
     * under ThreadSanitizer, which would see a flag the transport raises
     * through the alias and the program's wait on it as two words) */
#if defined(SHMEMU__TSAN)
    job->tl.aliases = 0;
#else
    job->tl.aliases = job->check.race && !job->check.device;
#endif
    job->tl.calls = &core_calls;
    size_t priv = shmemu__tl_priv_size(job->ops);
    job->tl.priv = calloc(1, priv ? priv : 1);
    job->tl.heap_base = calloc((size_t)npes, sizeof(char *));
    job->tl.lib_base = calloc((size_t)npes, sizeof(char *));
    if (!job->tl.priv || !job->tl.heap_base || !job->tl.lib_base ||
        shmemu__pe_slab_alloc(job, npes) != 0) {
        shmemu__job_free(job);
        return shmemu__fail(NULL, SHMEMU_ENOMEM, call, "out of memory");
    }
    pick_wait_policy(job);
    *job_p = job;
    return SHMEMU_OK;
}

int shmemu__job_create(const shmemu_opts *opts, const char *call,
                       struct shmemu__job **job_p)
{
    shmemu__set_fail_policy(&shmemu__plane_fail_policy);
    *job_p = NULL;
    if (!opts)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call, "opts is NULL");
    if (opts->npes < 1 || opts->npes > SHMEMU__NPES_MAX)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "opts->npes is %d (must be 1..%d)", opts->npes,
                            SHMEMU__NPES_MAX);
    if (!(opts->timeout >= 0))
        return shmemu__fail(NULL, SHMEMU_EINVAL, call, "opts->timeout is %g (must be >= 0)",
                            opts->timeout);
    struct shmemu__job *job;
    int st = job_prepare(opts->transport, opts->npes, opts->heap_size, 0, opts->check, call,
                         &job);
    if (st)
        return st;
    if (opts->timeout > 0)
        job->params.TIMEOUT = opts->timeout;
    if ((st = shmemu__tl_job_create(job)) != SHMEMU_OK) {
        char why[sizeof(job->tl.why)];
        shmemu__strlcpy(why, job->tl.why, sizeof(why));
        job->tl.ctl = NULL; /* nothing to destroy */
        const char *name = shmemu__tl_name(job);
        size_t heap = job->tl.heap_size;
        shmemu__job_free(job);
        return shmemu__fail(NULL, st, call,
                            "transport '%s' could not create a job of %d PEs with "
                            "%zu-byte heaps: %s",
                            name, opts->npes, heap, *why ? why : shmemu_strerror(st));
    }
    shmemu__plane_choose(job);
    shmemu__plane_init(job, shmemu__process_error_mode >= 0 ? shmemu__process_error_mode
                                                  : job->params.ERRORS);
    shmemu__check_ctl_init(job);
    *job_p = job;
    return SHMEMU_OK;
}

/* Join the job that shmemu-run started this process for. */
int shmemu__job_attach_env(const char *call, const struct shmemu__boot *boot,
                           struct shmemu__job **job_p, int *pe_p)
{
    shmemu__set_fail_policy(&shmemu__plane_fail_policy);
    int npes = boot->size, pe = boot->rank;
    size_t heap;
    const char *transport = getenv("SHMEMU_RUN_TRANSPORT"), *hs = getenv("SHMEMU_RUN_HEAP_SIZE");
    int st;
    if (!hs || shmemu__parse_size(hs, &heap) != 0 || heap == 0 ||
        heap % SHMEMU_TL_HEAP_ALIGN)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "SHMEMU_RUN_HEAP_SIZE='%s' is malformed (a positive multiple "
                            "of 2 MiB): this program was started by shmemu-run with a "
                            "damaged environment",
                            hs ? hs : "");
    if (!transport || !*transport)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call, "SHMEMU_RUN_TRANSPORT is not set");
    struct shmemu__job *job;
    if ((st = job_prepare(transport, npes, heap, 1, NULL, call, &job)))
        return st;
    job->boot = boot;
    if ((st = shmemu__tl_job_attach(job, pe)) == SHMEMU_ENOTSUP) {
        shmemu__job_free(job);
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "transport '%s' cannot start processes with shmemu-run",
                            transport);
    }
    if (st != SHMEMU_OK) {
        char why[sizeof(job->tl.why)];
        shmemu__strlcpy(why, job->tl.why, sizeof(why));
        job->tl.ctl = NULL;
        shmemu__job_free(job);
        return shmemu__fail(NULL, st, call, "PE %d could not join the job: %s", pe, why);
    }
    shmemu__plane_choose(job);
    if (!shmemu__plane_matches(job)) {
        shmemu__job_free(job);
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "the job's control area does not match this program's "
                            "environment (a different shmemu version?)");
    }
    job->notify_global = (shmemu__tl_caps(job) & SHMEMU_TL_CAP_PROCESSES) != 0;
    job->exec_pes = 1;
    *job_p = job;
    *pe_p = pe;
    return SHMEMU_OK;
}

/* ------------------------------------------------------- helper threads */

/* A thread that sleeps until a deadline or until stopped: the watchdog's
 * and the launcher watch's. */
struct timed_thread {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pthread_t thread;
};

static int timed_start(struct timed_thread *t, void *(*fn)(void *), void *arg)
{
    t->done = 0;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&t->lock, NULL);
    if (pthread_create(&t->thread, NULL, fn, arg) != 0) {
        pthread_cond_destroy(&t->cond);
        pthread_mutex_destroy(&t->lock);
        return -1;
    }
    return 0;
}

/* With t->lock held: wait until t->done or the monotonic time deadline. */
static void timed_sleep(struct timed_thread *t, int64_t deadline)
{
    while (!t->done) {
        int64_t left = deadline - shmemu__now_ns();
        if (left <= 0)
            return;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t at = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + left;
        ts.tv_sec = (time_t)(at / 1000000000);
        ts.tv_nsec = (long)(at % 1000000000);
        pthread_cond_timedwait(&t->cond, &t->lock, &ts);
    }
}

static void timed_stop(struct timed_thread *t)
{
    pthread_mutex_lock(&t->lock);
    t->done = 1;
    pthread_cond_signal(&t->cond);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    pthread_cond_destroy(&t->cond);
    pthread_mutex_destroy(&t->lock);
}

/* ----------------------------------------------------------- launcher watch */

/*
 * mpirun killed outright (SIGKILL, a lost node) ends nothing by itself: its
 * PE processes are reparented and a PE computing outside the library runs
 * on forever.  One thread a process looks at its parent four times a
 * second and ends the process when it has changed.  (PR_SET_PDEATHSIG,
 * which shmemu-run's PEs get, would fire on the exit of whichever thread
 * of mpirun forked us, and can only be set before exec.)
 */
#define LAUNCHER_WATCH_NS 250000000LL

struct shmemu__launcher_watch {
    struct timed_thread t;
    int pe;
    pid_t ppid;
};

static void *launcher_watch_main(void *arg)
{
    struct shmemu__launcher_watch *w = arg;
    pthread_mutex_lock(&w->t.lock);
    while (!w->t.done) {
        timed_sleep(&w->t, shmemu__now_ns() + LAUNCHER_WATCH_NS);
        if (!w->t.done && getppid() != w->ppid) {
            /* Where the launcher carried our output, this line dies with
             * it (and SIGPIPE ends us as surely as the exit). */
            char msg[200];
            snprintf(msg, sizeof(msg),
                     "shmemu: PE %d: the launcher that started this process (pid %d) is "
                     "gone; ending the process\n",
                     w->pe, (int)w->ppid);
            shmemu__emit(msg);
            _exit(EXIT_FAILURE);
        }
    }
    pthread_mutex_unlock(&w->t.lock);
    return NULL;
}

static void launcher_watch_start(struct shmemu__job *job, int pe)
{
    struct shmemu__launcher_watch *w = calloc(1, sizeof(*w));
    if (!w)
        return; /* a watch less: waits still notice the launcher's end */
    w->pe = pe;
    w->ppid = getppid();
    if (w->ppid <= 1 || timed_start(&w->t, launcher_watch_main, w) != 0) {
        free(w);
        return;
    }
    job->launcher_watch = w;
}

static void launcher_watch_stop(struct shmemu__job *job)
{
    struct shmemu__launcher_watch *w = job->launcher_watch;
    if (!w)
        return;
    job->launcher_watch = NULL;
    timed_stop(&w->t);
    free(w);
}

/* The control area of a job that its processes made themselves: laid out
 * as job_create's is. */
static void ctl_init(struct shmemu_tl_job *tl)
{
    struct shmemu__job *job = tl->core;
    shmemu__plane_choose(job);
    shmemu__plane_init(job, shmemu__process_error_mode >= 0 ? shmemu__process_error_mode
                                                            : job->params.ERRORS);
    shmemu__check_ctl_init(job);
}

/* The transport for a job of a launcher's: SHMEMU_TRANSPORT's, or the first
 * that can join one. */
static const struct shmemu_transport_ops *join_transport(const char *call, const char **name_p)
{
    const char *want = getenv("SHMEMU_TRANSPORT");
    for (int i = 0; shmemu__transports[i]; i++) {
        const struct shmemu_transport_ops *ops = shmemu__transports[i];
        const char *name = shmemu__tl_table_name(ops);
        if (want && *want && strcmp(want, name))
            continue;
        if (!shmemu__tl_can_join(ops)) {
            if (want && *want)
                break;
            continue;
        }
        *name_p = name;
        return ops;
    }
    if (want && *want)
        shmemu__fail(NULL, SHMEMU_EINVAL, call,
                     "SHMEMU_TRANSPORT=%s cannot run a job that a launcher (mpirun) started: "
                     "its processes share nothing to start from (ucx can)",
                     want);
    else
        shmemu__fail(NULL, SHMEMU_ENODEV, call,
                     "no transport built here joins a job that a launcher (mpirun) started "
                     "(ucx does: build it where Debian's libucx-dev is)");
    return NULL;
}

int shmemu__job_join_launched(const char *call, const struct shmemu__boot *boot,
                              struct shmemu__job **job_p, int *pe_p)
{
    shmemu__set_fail_policy(&shmemu__plane_fail_policy);
    const char *name = NULL;
    int npes = boot->size, pe = boot->rank;
    if (!join_transport(call, &name))
        return shmemu_last_status();
    struct shmemu__job *job;
    int st = job_prepare(name, npes, 0, 0, NULL, call, &job);
    if (st)
        return st;
    job->boot = boot;
    job->tl.nnodes = boot->nnodes;
    if ((st = shmemu__tl_job_join(job, pe)) != SHMEMU_OK) {
        char jwhy[sizeof(job->tl.why)];
        shmemu__strlcpy(jwhy, job->tl.why, sizeof(jwhy));
        job->tl.ctl = NULL;
        shmemu__job_free(job);
        return shmemu__fail(NULL, st, call, "PE %d could not join the %s job: %s", pe, name,
                            jwhy);
    }
    shmemu__plane_choose(job);
    pick_wait_policy(job); /* again, now that the plane is known */
    if (job->tl.ctl_remote && job->check_ctl_off) {
        shmemu__job_free(job);
        return shmemu__fail(NULL, SHMEMU_ENOTSUP, call,
                            "checker mode needs a control area every PE shares, and "
                            "this %s job's processes share no memory (several nodes, "
                            "or SHMEMU_UCX_CONTROL=network)",
                            name);
    }
    if (!shmemu__plane_matches(job)) {
        shmemu__job_free(job);
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "the job's control area does not match this process's "
                            "(PEs built with different shmemu versions, or given "
                            "different SHMEMU_HEAP_SIZE?)");
    }
    job->notify_global = (shmemu__tl_caps(job) & SHMEMU_TL_CAP_PROCESSES) != 0;
    job->exec_pes = 1;
    job->check_told_by_pe = 1;
    launcher_watch_start(job, pe);
    *job_p = job;
    *pe_p = pe;
    return 1;
}

/* ---------------------------------------------------------------- watchdog */

/* PEs that are threads cannot be killed: past the timeout the watchdog
 * reports and aborts the job, which releases every PE waiting in the
 * library; one still running outside it after a grace period can only be
 * stopped with the whole process. */
#define WATCHDOG_GRACE_NS 2000000000LL

struct watchdog {
    struct timed_thread t;
    struct shmemu__job *job;
};

static void *watchdog_main(void *arg)
{
    struct watchdog *w = arg;
    struct shmemu__job *job = w->job;
    pthread_mutex_lock(&w->t.lock);
    timed_sleep(&w->t, job->deadline_ns);
    if (w->t.done) {
        pthread_mutex_unlock(&w->t.lock);
        return NULL;
    }
    pthread_mutex_unlock(&w->t.lock);
    shmemu__timeout_report(job);
    pthread_mutex_lock(&w->t.lock);
    timed_sleep(&w->t, shmemu__now_ns() + WATCHDOG_GRACE_NS);
    int done = w->t.done;
    pthread_mutex_unlock(&w->t.lock);
    if (!done) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "shmemu: PEs still run outside the library %.1f s after the job was ended "
                 "(threads cannot be stopped alone): exiting the process with status 124\n",
                 (double)WATCHDOG_GRACE_NS / 1e9);
        shmemu__emit(msg);
        _exit(124);
    }
    return NULL;
}

static int watchdog_start(struct watchdog *w, struct shmemu__job *job)
{
    memset(w, 0, sizeof(*w));
    w->job = job;
    return timed_start(&w->t, watchdog_main, w);
}

static void watchdog_stop(struct watchdog *w) { timed_stop(&w->t); }

/* SHMEMU_TIMEOUT: seconds, 0 off, -1: 300 in checker mode, else off. */
double shmemu__job_timeout(const struct shmemu__job *job)
{
    double t = job->params.TIMEOUT;
    if (t < 0)
        t = job->check.fuzz || job->check.race ? 300 : 0;
    return t;
}

int shmemu_launch(const shmemu_opts *opts, int (*pe_main)(void *arg), void *arg)
{
    static const char call[] = "shmemu_launch";
    if (shmemu__self)
        return shmemu__fail(shmemu__self, SHMEMU_EINVAL, call,
                            "cannot launch a job from inside a PE");
    if (!pe_main)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call, "pe_main is NULL");
    struct shmemu__job *job;
    int st = shmemu__job_create(opts, call, &job);
    if (st)
        return st;
    job->pe_main = pe_main;
    job->arg = arg;
    job->bind = 1;
    double timeout = shmemu__job_timeout(job);
    struct watchdog wd;
    int watching = 0;
    if (timeout > 0) {
        /* Process PEs: the supervisor's tick enforces the deadline (and
         * kills what is left); thread PEs: a watchdog thread. */
        job->timeout_ns = (int64_t)(timeout * 1e9);
        job->deadline_ns = shmemu__now_ns() + job->timeout_ns;
        if (!(shmemu__tl_caps(job) & SHMEMU_TL_CAP_PROCESSES))
            watching = watchdog_start(&wd, job) == 0;
    }
    st = shmemu__tl_job_run(job, shmemu__pe_entry);
    if (watching)
        watchdog_stop(&wd);
    if (st == SHMEMU_OK)
        st = shmemu__plane_result(job);
    st = shmemu__check_job_end(job, st);
    shmemu__job_free(job);
    return shmemu__last_status = st;
}

