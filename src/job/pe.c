/* pe.c - a PE's life: start (launched, or shmemu_init in an SPMD program),
 * wire-up, pe_main, drain and departure, finalize; and the queries about
 * the calling PE. */
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check/check.h"
#include "boot.h"
#include "job.h"
#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "ctl/livelock.h"
#include "ctl/agree.h"
#include "ctl/plane.h"
#include "ctl/wait.h"

/* The core's per-thread state, kept per PE where PEs take turns in one
 * thread (the contract's pe_ctx). */
struct pe_ctx {
    shmemu__pe *self;
    int last_status;
    const char *agree_names;
    const char *compat_call;
    int ctx_id;
    int chk_depth; /* inside the checker: its handlers may wait in sim's scheduler */
    void *above[2]; /* shmemu__pe_state's */
};

size_t shmemu__pe_ctx_size(void) { return sizeof(struct pe_ctx); }

void shmemu__pe_ctx(struct shmemu_tl_job *tl, void *ctx, int save)
{
    (void)tl;
    struct pe_ctx *c = ctx;
    const struct shmemu__pe_state_hooks *h =
        atomic_load_explicit(&shmemu__pe_state, memory_order_acquire);
    if (save) {
        *c = (struct pe_ctx){shmemu__self, shmemu__last_status, shmemu__agree_names,
                             shmemu_compat_call, shmemu__ctx_id, shmemu__chk_depth, {0}};
        if (h)
            h->save(c->above);
    } else {
        shmemu__self = c->self;
        shmemu__last_status = c->last_status;
        shmemu__agree_names = c->agree_names;
        shmemu_compat_call = c->compat_call;
        shmemu__ctx_id = c->ctx_id;
        shmemu__chk_depth = c->chk_depth;
        if (h)
            h->load(c->above);
    }
}

void shmemu__pe_ctx_prefetch(struct shmemu_tl_job *tl, const void *ctx)
{
    (void)tl;
    const shmemu__pe *me = ((const struct pe_ctx *)ctx)->self;
    if (me) /* the 128 bytes every call reads (core.h) */
        for (int l = 0; l < 128; l += 64)
            __builtin_prefetch((const char *)me + l, 1, 3);
}

/* -------------------------------------------------------------------- PEs */

/* Wire-up: every PE publishes its blob in its slot of the control area,
 * a world sync, then each connects to the others' blobs. */
static int wireup(shmemu__pe *me)
{
    struct shmemu__job *job = me->job;
    size_t b = shmemu__tl_blob_size(job->ops);
    if (!b) /* static data just copied into the heap: none may be written before */
        return me->static_mapped ? shmemu__team_sync(me, 0, "shmemu_init (static data)")
                                 : SHMEMU_OK;
    size_t slot = SHMEMU__ROUND_UP(b, 64);
    char *area = (char *)job->tl.ctl + job->wireup_ctl_off;
    /* The PE's scratch: the sync may see an abort, which unwinds the PE
     * past the free below. */
    const void **blobs = shmemu__scratch_take(&me->scratch, (size_t)me->npes * sizeof(*blobs));
    if (!blobs)
        return SHMEMU_ENOMEM;
    int st = shmemu__tl_wireup_publish(me, area + slot * (size_t)me->pe);
    if (st == SHMEMU_OK)
        st = shmemu__team_sync(me, 0, "shmemu_init (wire-up)");
    if (st == SHMEMU_OK) {
        for (int p = 0; p < me->npes; p++)
            blobs[p] = area + slot * (size_t)p;
        st = shmemu__tl_wireup_connect(me, blobs);
    }
    shmemu__scratch_give(&me->scratch, (void *)blobs);
    return st;
}

/* Finalized PEs that other threads had joined: those threads still point
 * at them, so each stays (a thousand bytes), its entry check failing, and
 * reachable from here. */
static shmemu__pe *retired;
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;

/* A cooperative job's PE structures: see shmemu__job.pe_slab. */
#define PE_STRIDE SHMEMU__ROUND_UP(sizeof(shmemu__pe), SHMEMU__CACHELINE)
#define HUGE_PAGE ((size_t)2 << 20)

int shmemu__pe_slab_alloc(struct shmemu__job *job, int npes)
{
    if (!job->coop)
        return 0;
    size_t len = SHMEMU__ROUND_UP((size_t)npes * PE_STRIDE, HUGE_PAGE);
    char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return -1;
    char *start = (char *)SHMEMU__ROUND_UP((uintptr_t)raw, HUGE_PAGE);
    if (start > raw)
        munmap(raw, (size_t)(start - raw));
    if (raw + HUGE_PAGE > start)
        munmap(start + len, (size_t)(raw + HUGE_PAGE - start));
    if ((size_t)npes * PE_STRIDE >= HUGE_PAGE / 2) /* a hint; a few PEs need none */
        (void)madvise(start, len, MADV_HUGEPAGE);
    job->pe_slab = start;
    job->pe_slab_len = len;
    return 0;
}

void shmemu__pe_slab_free(struct shmemu__job *job)
{
    if (job->pe_slab)
        munmap(job->pe_slab, job->pe_slab_len);
    job->pe_slab = NULL;
}

static shmemu__pe *pe_alloc(struct shmemu__job *job, int pe)
{
    if (!job->pe_slab)
        return calloc(1, sizeof(shmemu__pe));
    shmemu__pe *me = (shmemu__pe *)(void *)(job->pe_slab + (size_t)pe * PE_STRIDE);
    memset(me, 0, sizeof(*me));
    return me;
}

static void pe_release(shmemu__pe *me)
{
    if (me && !me->job->pe_slab)
        free(me);
}

static void pe_free(shmemu__pe *me)
{
    shmemu__check_pe_fini(me);
    shmemu__heap_fini(&me->alloc);
    /* After the checker's fini, which may still land held data into them. */
    shmemu__scratch_fini(&me->scratch);
    free(me->nbi_dirty);
    me->nbi_dirty = NULL;
    /* No other thread joins a cooperative job's PE (threads.c: a process
     * with one PE only), so a slab's PE is never retired. */
    if (!__atomic_load_n(&me->joined, __ATOMIC_RELAXED) || me->job->pe_slab) {
        pe_release(me);
        return;
    }
    me->abort_word = &shmemu__retired_word;
    pthread_mutex_lock(&retired_lock);
    me->retired_next = retired;
    retired = me;
    pthread_mutex_unlock(&retired_lock);
}

static shmemu__pe *pe_new(struct shmemu__job *job, int pe)
{
    shmemu__pe *me = pe_alloc(job, pe);
    if (!me)
        return NULL;
    me->job = job;
    if (shmemu__heap_init(&me->alloc, job->tl.heap_size, SHMEMU__WORKSPACE_TOTAL,
                          &job->tl.heap_low) != 0) {
        pe_release(me);
        return NULL;
    }
    me->pe = pe;
    me->npes = job->tl.npes;
    me->heap = job->tl.heap_base[pe];
    me->heap_size = job->tl.heap_size;
    me->tlj = &job->tl;
    me->refs = 1;
    me->pid = (int)getpid();
    shmemu__poll_init(me, (int64_t)(job->params.LIVELOCK * 1e9));
    if (shmemu__plane_pe_start(me)) {
        shmemu__heap_fini(&me->alloc);
        pe_release(me);
        return NULL;
    }
    if (job->bind && !job->coop) /* one thread runs every PE: no binding */
        shmemu__bind_pe(job->params.BIND, pe, me->npes, me->heap, me->heap_size);
    shmemu__tl_bind(me);
    if (shmemu__device_check_start(me) != 0 || shmemu__check_pe_init(me) != 0) {
        shmemu__heap_fini(&me->alloc);
        pe_release(me);
        return NULL;
    }
    /* A transport that may hold nonblocking puts: their targets are woken
     * again when they are delivered (wait.h). */
    if (shmemu__tl_defers(job) &&
        !(me->nbi_dirty = calloc((size_t)(me->npes + 63) / 64, sizeof(uint64_t)))) {
        shmemu__check_pe_fini(me);
        shmemu__heap_fini(&me->alloc);
        pe_release(me);
        return NULL;
    }
    shmemu__plane_pe_running(me);
    return me;
}

/* Complete what this PE left outstanding before it leaves. */
static void drain(shmemu__pe *me)
{
    shmemu__ctx_id = SHMEMU__CTX_ALL; /* every context's */
    (void)shmemu__tl_complete(me, 1);
    shmemu__ctx_id = SHMEMU_CTX_DEFAULT;
    shmemu__full_fence();
    shmemu__notify_delivered(me);
    shmemu__own_stop(me); /* the program's memory its own again */
}

/* The process no longer hosts me: threads that call later join no PE. */
static void leave_process(shmemu__pe *me)
{
    shmemu__pe *expect = me;
    atomic_compare_exchange_strong(&shmemu__proc_pe, &expect, NULL);
}

/* Runs on every PE (its thread or process): the user's pe_main between an
 * implicit init and an implicit finalize. */
int shmemu__pe_entry(struct shmemu_tl_job *tl, int pe)
{
    struct shmemu__job *job = tl->core;
    shmemu__pe *me = pe_new(job, pe);
    if (!me) {
        shmemu__abort_job(job, SHMEMU_EABORTED, pe, SHMEMU_ENOMEM,
                          "out of memory starting a PE", NULL);
        return SHMEMU_ENOMEM;
    }
    shmemu__self = me;
    shmemu__ctx_id = SHMEMU_CTX_DEFAULT; /* a thread that ran a PE before starts over */
    shmemu_compat_call = NULL; /* named by a routine an abort jumped out of */
    if (job->notify_global) /* a process of its own: its other threads are this PE */
        atomic_store(&shmemu__proc_pe, me);
    int rc;
    jmp_buf jb;
    me->abort_jmp = &jb;
    if ((rc = shmemu__tl_pe_enter(job, pe)) != SHMEMU_OK) {
        char msg[320];
        snprintf(msg, sizeof(msg), "PE %d could not start: %s", pe,
                 job->tl.why[0] ? job->tl.why : shmemu_strerror(rc));
        shmemu__abort_job(job, SHMEMU_EABORTED, pe, rc, msg, NULL);
        shmemu__depart(me, SHMEMU__LIFE_FAILED, rc);
    } else if (setjmp(jb) == 0) {
        me->heap = job->tl.heap_base[pe]; /* a device heap exists from pe_enter */
        /* Static data join the heap before the wire-up sync (no peer can
         * write them before they are in place); the sync itself may see an
         * abort, which unwinds to the setjmp above, as from pe_main. */
        const char *step = "start";
        if ((rc = shmemu__static_attach(me)) != SHMEMU_OK ||
            (step = "wire up", rc = wireup(me)) != SHMEMU_OK) {
            char msg[400];
            snprintf(msg, sizeof(msg), "PE %d could not %s: %s", pe, step,
                     job->tl.why[0] ? job->tl.why : shmemu_strerror(rc));
            shmemu__abort_job(job, SHMEMU_EABORTED, pe, rc, msg, NULL);
            shmemu__depart(me, SHMEMU__LIFE_FAILED, rc);
            shmemu__self = NULL;
            leave_process(me);
            pe_free(me);
            return rc;
        }
        shmemu__own_start(me);
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
        if (me->kernel_abandon) /* out of a kernel's device thread */
            me->kernel_abandon(me);
        shmemu__depart(me, SHMEMU__LIFE_FAILED, rc);
    }
    shmemu__self = NULL;
    leave_process(me);
    pe_free(me);
    return rc;
}

/* ------------------------------------------------------------------- SPMD */

/* Set when this process's PE, the last of a job no shmemu launcher ends,
 * found that the checker saw a race: the process then exits 1, whatever
 * main returned, so that mpirun fails the job (as shmemu-run would). */
static int exit_failing;

/* A program that returns from main (or calls exit) without finalizing still
 * leaves the job cleanly instead of looking like a crash. */
static void finalize_at_exit(void)
{
    shmemu__pe *me = shmemu__self;
    if (me && me->owns_job && !shmemu__aborted(me)) {
        me->refs = 1;
        shmemu_finalize();
    }
    if (exit_failing) {
        fflush(NULL);
        _exit(1);
    }
}

int shmemu_init(void)
{
    static const char call[] = "shmemu_init";
    static int atexit_done;
    shmemu__pe *cur = shmemu__cur(); /* another thread of an initialised PE */
    if (cur && cur->pid != (int)getpid()) /* fork()'s copy of its memory */
        return shmemu__fail(NULL, SHMEMU_ENOTSUP, call,
                            "this process (pid %d) is a fork of PE %d's process (pid %d), "
                            "not a PE of its job: only the processes the job started call "
                            "the library (a child that needs a job of its own must exec a "
                            "program)",
                            (int)getpid(), cur->pe, cur->pid);
    if (cur) {
        cur->refs++;
        return shmemu__ok();
    }
    struct shmemu__job *job;
    const struct shmemu__boot *boot;
    int pe = 0, st = shmemu__boot_detect(call, &boot);
    if (st < 0)
        return st;
    if (st && boot->attach) {
        st = shmemu__job_attach_env(call, boot, &job, &pe);
        if (st == SHMEMU_OK)
            job->bind = 1;
    } else if (st) { /* mpirun's job (it binds processes itself) */
        st = shmemu__job_join_launched(call, boot, &job, &pe);
        if (st == 1)
            st = SHMEMU_OK;
    } else { /* alone: a job of one PE */
        shmemu_opts opts = {.npes = 1};
        st = shmemu__job_create(&opts, call, &job);
    }
    if (st)
        return st;
    shmemu__pe *me = pe_new(job, pe);
    if (!me) {
        shmemu__job_free(job);
        return shmemu__fail(NULL, SHMEMU_ENOMEM, call,
                            "out of memory, or membarrier(2) refused this process");
    }
    if ((st = shmemu__tl_pe_enter(job, pe)) != SHMEMU_OK ||
        (me->heap = job->tl.heap_base[pe], st = shmemu__static_attach(me)) != SHMEMU_OK ||
        (st = wireup(me)) != SHMEMU_OK) {
        char why[sizeof(job->tl.why)];
        snprintf(why, sizeof(why), "%s", job->tl.why[0] ? job->tl.why : shmemu_strerror(st));
        pe_free(me);
        shmemu__job_free(job);
        return shmemu__fail(NULL, st, call, "the PE could not start: %s", why);
    }
    me->heap = job->tl.heap_base[pe];
    me->owns_job = 1;
    shmemu__self = me;
    shmemu__ctx_id = SHMEMU_CTX_DEFAULT;
    atomic_store(&shmemu__proc_pe, me);
    shmemu__own_start(me);
    if (!atexit_done && atexit(finalize_at_exit) == 0)
        atexit_done = 1;
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
    leave_process(me);
    if (me->owns_job && shmemu__check_pe_end(me->job) != SHMEMU_OK)
        exit_failing = 1;
    if (me->owns_job) {
        struct shmemu__job *job = me->job;
        pe_free(me);
        shmemu__job_free(job);
    }
    return shmemu__ok();
}

/* ------------------------------------------------------------------ query */

int shmemu_my_pe(void)
{
    shmemu__pe *me = shmemu__cur();
    return me ? me->pe : -1;
}

int shmemu_n_pes(void)
{
    shmemu__pe *me = shmemu__cur();
    return me ? me->npes : -1;
}

const char *shmemu_transport_name(void)
{
    shmemu__pe *me = shmemu__cur();
    return me ? shmemu__tl_name(me->job) : NULL;
}

const char *shmemu_coll_algo(shmemu_coll_t coll)
{
    shmemu__pe *me = shmemu__cur();
    if (!me)
        return NULL;
    const struct shmemu__params *p = &me->job->params;
    const char *v;
    switch (coll) {
    case SHMEMU_COLL_ALLREDUCE: v = p->ALLREDUCE_ALGO; break;
    case SHMEMU_COLL_REDUCE: v = p->REDUCE_ALGO; break;
    case SHMEMU_COLL_REDUCE_SCATTER: v = p->REDUCE_SCATTER_ALGO; break;
    case SHMEMU_COLL_ALLGATHER: v = p->ALLGATHER_ALGO; break;
    case SHMEMU_COLL_BROADCAST: v = p->BROADCAST_ALGO; break;
    case SHMEMU_COLL_ALLTOALL: v = p->ALLTOALL_ALGO; break;
    default:
        (void)shmemu__fail(me, SHMEMU_EINVAL, "shmemu_coll_algo",
                           "coll is %d, not a collective (0..%d)", (int)coll,
                           SHMEMU_COLL_COUNT - 1);
        return NULL;
    }
    return v && *v ? v : "auto";
}

int shmemu_set_error_mode(int mode)
{
    if (mode != SHMEMU_ERRORS_ABORT && mode != SHMEMU_ERRORS_RETURN)
        return shmemu__fail(shmemu__self, SHMEMU_EINVAL, "shmemu_set_error_mode",
                            "mode %d is neither SHMEMU_ERRORS_ABORT nor "
                            "SHMEMU_ERRORS_RETURN",
                            mode);
    if (shmemu__self)
        shmemu__plane_set_error_mode(shmemu__self->job, mode);
    else
        shmemu__process_error_mode = mode;
    return shmemu__ok();
}

