/* job.c - jobs and PEs: launch, init, finalize, departure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "wait.h"

/* More PEs than this is surely a typo, and would exhaust threads anyway. */
#define SHMEMU__NPES_MAX 65536

static int process_error_mode = -1; /* set_error_mode outside a PE */

/* ------------------------------------------------------------- transports */

int shmemu_transport_info(int index, const char **name_p, int *usable_p,
                          char *why, size_t why_len)
{
    int n = 0;
    while (shmemu__transports[n])
        n++;
    if (index < 0 || index >= n)
        return shmemu__last_status = SHMEMU_EINVAL;
    const struct shmemu_transport_ops *ops = shmemu__transports[index];
    char buf[256] = "";
    int usable = !ops->probe || ops->probe(buf, sizeof(buf)) == SHMEMU_OK;
    if (name_p)
        *name_p = ops->name;
    if (usable_p)
        *usable_p = usable;
    if (why && why_len)
        snprintf(why, why_len, "%s", usable ? "" : buf);
    return shmemu__ok();
}

static const struct shmemu_transport_ops *find_transport(const char *name,
                                                         char *why, size_t len)
{
    for (int i = 0; shmemu__transports[i]; i++)
        if (strcmp(shmemu__transports[i]->name, name) == 0)
            return shmemu__transports[i];
    size_t used = (size_t)snprintf(why, len, "unknown transport '%s' (known:", name);
    for (int i = 0; shmemu__transports[i] && used < len; i++)
        used += (size_t)snprintf(why + used, len - used, "%s %s", i ? "," : "",
                                 shmemu__transports[i]->name);
    if (used < len)
        snprintf(why + used, len - used, ")");
    return NULL;
}

/* ------------------------------------------------------------------- jobs */

static void job_free(struct shmemu__job *job)
{
    if (!job)
        return;
    if (job->tl.ctl)
        job->ops->job_destroy(&job->tl);
    free(job->tl.heap_base);
    free(job->tl.priv);
    free(job);
}

static void ctl_init(struct shmemu__job *job, int error_mode)
{
    struct shmemu__ctl *c = job->tl.ctl;
    c->magic = SHMEMU__CTL_MAGIC;
    c->layout = SHMEMU__CTL_LAYOUT;
    c->npes = job->tl.npes;
    c->teams_max = SHMEMU__TEAMS_MAX;
    c->heap_size = job->tl.heap_size;
    atomic_store(&c->error_mode, error_mode);
    atomic_store(&c->abort_pe, -1);
    /* Slots 0 and 1: SHMEMU_TEAM_WORLD and SHMEMU_TEAM_SHARED (every PE of a
     * job shares memory on the transports that exist), epoch 0. */
    atomic_store(&c->team_used[0], 3);
    for (int slot = 0; slot < 2; slot++) {
        struct shmemu__ctl_team *t = shmemu__ctl_team(c, slot);
        t->start = 0;
        t->stride = 1;
        t->size = job->tl.npes;
        atomic_store(&t->refs, job->tl.npes);
    }
}

static void pick_wait_policy(struct shmemu__job *job)
{
    int oversubscribed = job->tl.npes > shmemu__topo_ncpus();
    job->spin_ns = job->params.SPIN_NS >= 0 ? job->params.SPIN_NS
                                            : (oversubscribed ? 0 : 20000);
    job->yields = job->params.YIELDS >= 0 ? job->params.YIELDS
                                          : (oversubscribed ? 16 : 0);
}

/* Validate opts and create the job's heaps and control area.  Errors are
 * reported as coming from call. */
static int job_create(const shmemu_opts *opts, const char *call,
                      struct shmemu__job **job_p)
{
    char why[512];
    *job_p = NULL;
    if (!opts)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call, "opts is NULL");
    if (opts->npes < 1 || opts->npes > SHMEMU__NPES_MAX)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "opts->npes is %d (must be 1..%d)", opts->npes,
                            SHMEMU__NPES_MAX);
    struct shmemu__job *job = calloc(1, sizeof(*job));
    if (!job)
        return shmemu__fail(NULL, SHMEMU_ENOMEM, call, "out of memory");
    int st = shmemu__params_load(&job->params, why, sizeof(why));
    if (st) {
        free(job);
        return shmemu__fail(NULL, st, call, "%s", why);
    }
    const char *name = opts->transport ? opts->transport : job->params.TRANSPORT;
    job->ops = find_transport(name, why, sizeof(why));
    if (!job->ops) {
        free(job);
        return shmemu__fail(NULL, SHMEMU_EINVAL, call, "%s", why);
    }
    if (job->ops->probe && (st = job->ops->probe(why, sizeof(why))) != SHMEMU_OK) {
        free(job);
        return shmemu__fail(NULL, SHMEMU_ENODEV, call,
                            "transport '%s' is unavailable here: %s", name, why);
    }
    size_t heap = opts->heap_size ? opts->heap_size : job->params.HEAP_SIZE;
    if (heap == 0 || heap > SIZE_MAX / 4 / (size_t)opts->npes) {
        free(job);
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "heap size %zu bytes per PE is %s (set it with "
                            "opts.heap_size or SHMEMU_HEAP_SIZE)",
                            heap, heap ? "too large" : "zero");
    }
    job->tl.npes = opts->npes;
    job->tl.heap_size = SHMEMU__ROUND_UP(heap, SHMEMU_TL_HEAP_ALIGN);
    job->tl.ctl_size = shmemu__ctl_size(opts->npes);
    job->tl.core = job;
    job->tl.priv = calloc(1, job->ops->job_priv_size ? job->ops->job_priv_size : 1);
    job->tl.heap_base = calloc((size_t)opts->npes, sizeof(char *));
    if (!job->tl.priv || !job->tl.heap_base) {
        job_free(job);
        return shmemu__fail(NULL, SHMEMU_ENOMEM, call, "out of memory");
    }
    if ((st = job->ops->job_create(&job->tl)) != SHMEMU_OK) {
        job->tl.ctl = NULL; /* nothing to destroy */
        job_free(job);
        return shmemu__fail(NULL, st, call,
                            "transport '%s' could not create a job of %d PEs with "
                            "%zu-byte heaps",
                            name, opts->npes, heap);
    }
    int mode = process_error_mode >= 0 ? process_error_mode : job->params.ERRORS;
    ctl_init(job, mode);
    pick_wait_policy(job);
    job->notify_global = (job->ops->caps & SHMEMU_TL_CAP_PROCESSES) != 0;
    job->notify_light = shmemu__membarrier_register(job->notify_global);
    *job_p = job;
    return SHMEMU_OK;
}

/* -------------------------------------------------------------------- PEs */

static void pe_free(shmemu__pe *me)
{
    shmemu__heap_fini(&me->alloc);
    free(me);
}

static shmemu__pe *pe_new(struct shmemu__job *job, int pe)
{
    shmemu__pe *me = calloc(1, sizeof(*me));
    if (!me || shmemu__heap_init(&me->alloc, job->tl.heap_size) != 0) {
        free(me);
        return NULL;
    }
    me->job = job;
    me->pe = pe;
    me->npes = job->tl.npes;
    me->heap = job->tl.heap_base[pe];
    me->heap_size = job->tl.heap_size;
    me->ctl = job->tl.ctl;
    me->ctl_me = shmemu__ctl_pe(me->ctl, pe);
    me->tlj = &job->tl;
    me->rma = job->ops->rma;
    me->amo = job->ops->amo;
    me->refs = 1;
    /* A PE process forked or exec'd from the creator registers anew; if it
     * cannot, the job's fence-free updates would be unsafe: refuse. */
    if (job->notify_light && !shmemu__membarrier_register(job->notify_global)) {
        shmemu__heap_fini(&me->alloc);
        free(me);
        return NULL;
    }
    me->notify_light = job->notify_light;
    me->direct = (job->ops->caps & SHMEMU_TL_CAP_LOAD_STORE) && SHMEMU_TL_HAS(job->ops, ptr);
    me->cpu_amo = me->direct && (job->ops->caps & SHMEMU_TL_CAP_CPU_ATOMICS);
    atomic_store(&me->ctl_me->pid, (int32_t)getpid());
    atomic_store(&me->ctl_me->life, SHMEMU__LIFE_RUNNING);
    return me;
}

void shmemu__depart(shmemu__pe *me, int life, int rc)
{
    struct shmemu__ctl_pe *cp = me->ctl_me;
    cp->rc = rc;
    atomic_store(&cp->rc_set, 1);
    atomic_store(&cp->life, (uint32_t)life);
    atomic_fetch_add(&me->ctl->ndeparted, 1);
    shmemu__after_departure(me);
}

/* Complete what this PE left outstanding before it leaves. */
static void drain(shmemu__pe *me)
{
    const struct shmemu_transport_ops *ops = me->job->ops;
    if (SHMEMU_TL_HAS(ops, quiet))
        (void)ops->quiet(me->tlj, me->pe);
    shmemu__full_fence();
}

/* Runs on every PE (its thread or process): the user's pe_main between an
 * implicit init and an implicit finalize. */
static int pe_entry(struct shmemu_tl_job *tl, int pe)
{
    struct shmemu__job *job = tl->core;
    shmemu__pe *me = pe_new(job, pe);
    if (!me) {
        shmemu__abort_job(job, SHMEMU_EABORTED, pe, SHMEMU_ENOMEM,
                          "out of memory starting a PE", NULL);
        return SHMEMU_ENOMEM;
    }
    shmemu__self = me;
    int rc;
    jmp_buf jb;
    me->abort_jmp = &jb;
    if (job->ops->pe_enter && (rc = job->ops->pe_enter(tl, pe)) != SHMEMU_OK) {
        shmemu__abort_job(job, SHMEMU_EABORTED, pe, rc, "a PE could not start", NULL);
        shmemu__depart(me, SHMEMU__LIFE_FAILED, rc);
    } else if (setjmp(jb) == 0) {
        rc = job->pe_main(job->arg);
        if (me->refs > 0) { /* not finalized by pe_main itself */
            if (rc != 0 && !shmemu__aborted(me)) {
                char msg[128], report[160];
                snprintf(msg, sizeof(msg), "PE %d/%d returned %d from pe_main; ending the job",
                         pe, me->npes, rc);
                snprintf(report, sizeof(report), "shmemu: %s\n", msg);
                shmemu__abort_job(job, SHMEMU_EABORTED, pe, rc, msg, report);
            }
            drain(me);
            shmemu__depart(me, rc ? SHMEMU__LIFE_FAILED : SHMEMU__LIFE_DEPARTED, rc);
        }
    } else { /* an error in ABORT mode unwound the PE */
        rc = shmemu__last_status;
        shmemu__depart(me, SHMEMU__LIFE_FAILED, rc);
    }
    shmemu__self = NULL;
    pe_free(me);
    return rc;
}

/* A process transport saw PE pe end (in the launching process). */
static void pe_exited(struct shmemu_tl_job *tl, int pe, int how, int code)
{
    struct shmemu__job *job = tl->core;
    struct shmemu__ctl *c = tl->ctl;
    struct shmemu__ctl_pe *cp = shmemu__ctl_pe(c, pe);
    uint32_t life = atomic_load(&cp->life);
    if (how == SHMEMU_TL_EXIT_CODE && code == 0 && life == SHMEMU__LIFE_DEPARTED)
        return; /* a clean end */
    char msg[160];
    if (how == SHMEMU_TL_EXIT_SIGNAL)
        snprintf(msg, sizeof(msg), "PE %d (pid %d) was killed by signal %d", pe,
                 (int)atomic_load(&cp->pid), code);
    else if (how == SHMEMU_TL_EXIT_NOSTART)
        snprintf(msg, sizeof(msg), "PE %d could not be started: %s", pe,
                 strerror(code));
    else
        snprintf(msg, sizeof(msg), "PE %d (pid %d) exited with status %d", pe,
                 (int)atomic_load(&cp->pid), code);
    if (life != SHMEMU__LIFE_DEPARTED && life != SHMEMU__LIFE_FAILED) {
        atomic_store(&cp->life, SHMEMU__LIFE_FAILED);
        atomic_fetch_add(&c->ndeparted, 1);
    }
    int rc = how == SHMEMU_TL_EXIT_CODE && code ? code : SHMEMU_EABORTED;
    if (cp->rc_set && cp->rc)
        rc = cp->rc;
    shmemu__abort_job(job, SHMEMU_EABORTED, pe, rc, msg, NULL);
}

/* What shmemu_launch returns: the abort's result, else the first PE that
 * returned nonzero. */
static int job_result(struct shmemu__job *job)
{
    struct shmemu__ctl *c = job->tl.ctl;
    if (atomic_load(&c->abort_status))
        return atomic_load(&c->abort_rc) ? atomic_load(&c->abort_rc)
                                         : atomic_load(&c->abort_status);
    for (int p = 0; p < c->npes; p++) {
        struct shmemu__ctl_pe *cp = shmemu__ctl_pe(c, p);
        if (cp->rc_set && cp->rc)
            return cp->rc;
    }
    return SHMEMU_OK;
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
    int st = job_create(opts, call, &job);
    if (st)
        return st;
    job->pe_main = pe_main;
    job->arg = arg;
    job->tl.pe_exited = pe_exited;
    st = job->ops->job_run(&job->tl, pe_entry);
    if (st == SHMEMU_OK)
        st = job_result(job);
    job_free(job);
    return shmemu__last_status = st;
}

/* ------------------------------------------------------------------- SPMD */

int shmemu_init(void)
{
    static const char call[] = "shmemu_init";
    if (shmemu__self) {
        shmemu__self->refs++;
        return shmemu__ok();
    }
    shmemu_opts opts = {.npes = 1};
    struct shmemu__job *job;
    int st = job_create(&opts, call, &job);
    if (st)
        return st;
    shmemu__pe *me = pe_new(job, 0);
    if (!me) {
        job_free(job);
        return shmemu__fail(NULL, SHMEMU_ENOMEM, call, "out of memory");
    }
    if (job->ops->pe_enter && (st = job->ops->pe_enter(&job->tl, 0)) != SHMEMU_OK) {
        pe_free(me);
        job_free(job);
        return shmemu__fail(NULL, st, call, "the PE could not start");
    }
    me->owns_job = 1;
    shmemu__self = me;
    return shmemu__ok();
}

int shmemu_finalize(void)
{
    SHMEMU__ENTER(me, "shmemu_finalize", shmemu__last_status);
    if (--me->refs > 0)
        return shmemu__ok();
    drain(me);
    shmemu__depart(me, SHMEMU__LIFE_DEPARTED, 0);
    shmemu__self = NULL;
    if (me->owns_job) {
        struct shmemu__job *job = me->job;
        pe_free(me);
        job_free(job);
    }
    return shmemu__ok();
}

/* ------------------------------------------------------------------ query */

int shmemu_my_pe(void) { return shmemu__self ? shmemu__self->pe : -1; }
int shmemu_n_pes(void) { return shmemu__self ? shmemu__self->npes : -1; }

const char *shmemu_transport_name(void)
{
    return shmemu__self ? shmemu__self->job->ops->name : NULL;
}

int shmemu_set_error_mode(int mode)
{
    if (mode != SHMEMU_ERRORS_ABORT && mode != SHMEMU_ERRORS_RETURN)
        return shmemu__fail(shmemu__self, SHMEMU_EINVAL, "shmemu_set_error_mode",
                            "mode %d is neither SHMEMU_ERRORS_ABORT nor "
                            "SHMEMU_ERRORS_RETURN",
                            mode);
    if (shmemu__self)
        atomic_store(&shmemu__self->ctl->error_mode, mode);
    else
        process_error_mode = mode;
    return shmemu__ok();
}
