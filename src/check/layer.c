/* layer.c - the checker as a layer over the transport: the table a checked
 * job runs on, each PE's checker state, and the hooks (hooks.h). */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "check.h"
#include "ctl/plane.h"
#include "ctl/wait.h"
#include "runtime/dispatch.h"
#include "hooks.h"
#include "internal.h"
#include "race.h"

/* ------------------------------------------------------------ the table */

/* The bytes at src as the program sees them now: copied by the transport
 * where they may be symmetric memory the host cannot touch.  0: done. */
int shmemu__chk_read_local(shmemu__pe *me, void *dst, const void *src, size_t n)
{
    if (me->direct) { /* past the watch on the PE's own memory (own.c) */
        memcpy(dst, shmemu__own_lib_addr(me, (void *)(uintptr_t)src, n), n);
        return 0;
    }
    return shmemu__tl_local_copy(me, dst, src, n) != SHMEMU_OK;
}

static int chk_rma_held(struct shmemu_tl_job *tl, const struct shmemu_tl_rma *d)
{
    (void)tl;
    shmemu__pe *me = shmemu__self;
    struct shmemu__chk *k = me->chk;
    shmemu__chk_bump_activity(me, 1);
    struct held h = {.kind = d->op == SHMEMU_TL_GET ? H_GET : H_PUT, .rma = *d,
                     .ctx = shmemu__ctx_id, .view = k->view_store};
    h.rma.nbi = 0;
    int flag = d->op == SHMEMU_TL_PUT && (d->sig_op != SHMEMU_TL_SIG_NONE || d->nbytes <= 8);
    shmemu__chk_stamp(me, &h, flag, d->sig_op != SHMEMU_TL_SIG_NONE ? d->sig_off : d->off);
    if (!k->fuzz || (d->op == SHMEMU_TL_GET && !d->nbi)) {
        /* At once: a blocking get completes on return, and without fuzzing
         * everything does.  A get after a fence reads what the fence
         * ordered before it to that PE, as a fetching AMO does: OpenSHMEM's
         * fence names puts and AMOs only, but UCX's and libfabric's order
         * gets too, and programs (SOS's micro_unit_shmem) rely on it. */
        if (k->fuzz)
            shmemu__chk_deliver_fenced(me, d->pe);
        /* Unfuzzed, a put that is no flag, on a context a barrier does not
         * complete: its write counts from that context's quiet or fence. */
        h.race_later = k->race && d->op == SHMEMU_TL_PUT && h.ctx != SHMEMU_CTX_DEFAULT &&
                       !h.rel && !h.view;
        shmemu__chk_perform(me, &h);
        free(h.rel);
        if (k->race && d->op == SHMEMU_TL_GET && d->nbytes <= 8) /* polling a flag */
            shmemu__race_acquire(me, k->race, d->pe, d->off, d->nbytes);
        return SHMEMU_OK;
    }
    if (d->op == SHMEMU_TL_PUT && !d->nbi && d->nbytes) {
        /* A blocking put returns with its source reusable: keep a copy.  A
         * nonblocking one reads its source when delivered, as a NIC would. */
        h.copy = malloc(d->nbytes);
        if (h.copy && shmemu__chk_read_local(me, h.copy, d->local, d->nbytes)) {
            free(h.copy);
            h.copy = NULL;
        }
        if (!h.copy) { /* no copy to hold: delivered now */
            shmemu__chk_perform(me, &h);
            free(h.rel);
            return SHMEMU_OK;
        }
        h.rma.local = h.copy;
    } else if (d->op == SHMEMU_TL_PUT && d->nbytes && d->nbytes <= SOURCE_SNAPSHOT_MAX &&
               !k->view_store) {
        /* What the source was at the call, kept beside it: the program may
         * not change it before the put completes, and shmemu__chk_perform
         * tells it if it did.  Without a copy the put goes on unwatched. */
        h.copy = malloc(d->nbytes);
        if (h.copy && shmemu__chk_read_local(me, h.copy, d->local, d->nbytes)) {
            free(h.copy);
            h.copy = NULL;
        }
    } else if (d->op == SHMEMU_TL_GET && d->nbytes && me->direct && d->pe != me->pe &&
               !shmemu__chk_in_view(me, d->local)) {
        /* A nonblocking get's destination is undefined until the get
         * completes: poisoned meanwhile, a value read early is wrong even
         * where the buffer still held the right one from an earlier round,
         * and a store into it shows (shmemu__chk_perform).  Not from this
         * PE (the source may be the destination) nor into a peer's heap. */
        memset(d->local, GET_POISON, d->nbytes);
        h.poisoned = 1;
    }
    shmemu__chk_perturb_exit(k, shmemu__chk_enqueue(me, &h));
    return SHMEMU_OK;
}

static int chk_amo_held(struct shmemu_tl_job *tl, const struct shmemu_tl_amo *d)
{
    (void)tl;
    shmemu__pe *me = shmemu__self;
    struct shmemu__chk *k = me->chk;
    shmemu__chk_bump_activity(me, 1);
    struct held h = {.kind = H_AMO, .amo = *d, .ctx = shmemu__ctx_id};
    shmemu__chk_stamp(me, &h, d->op != SHMEMU_TL_AMO_FETCH, d->off);
    if (k->fuzz)
        shmemu__chk_deliver_fenced(me, d->pe);
    if (!k->fuzz || d->result) { /* a fetching AMO completes on return */
        shmemu__chk_perform(me, &h);
        free(h.rel);
        if (k->race && d->result)
            shmemu__race_acquire(me, k->race, d->pe, d->off, d->width);
        if (k->fuzz)
            shmemu__chk_perturb_exit(k, 1);
        return SHMEMU_OK;
    }
    shmemu__chk_perturb_exit(k, shmemu__chk_enqueue(me, &h));
    return SHMEMU_OK;
}

/* A device thread's atomic (what) on pe while its PE's stores through
 * peer pointers to pe are held: on a GPU it may land first.  The note
 * names the fix (it is printed only if the job then fails). */
/* Does the running device thread's atomic follow held store h?  Its own
 * stores, and its block-mates' up to the __syncthreads it passed last, it
 * does; other blocks' maybe (a grid-wide handshake); not stores its
 * block-mates made since (a next round's data, say, which the flag does
 * not announce). */
static int kernel_follows(shmemu__pe *me, const struct held *h)
{
    const struct shmemu__who *w = shmemu__chk_who(me->chk);
    if (!w || !h->who.dev || memcmp(h->who.block, w->block, sizeof(w->block)) != 0)
        return 1;
    return memcmp(h->who.thread, w->thread, sizeof(w->thread)) == 0 ||
           h->seq <= me->kernel_synced;
}

static int kernel_overtake_note(shmemu__pe *me, int pe, const char *what, const char *why)
{
    struct shmemu__chk *k = me->chk;
    const struct held *y = NULL;
    for (size_t i = 0; i < k->n; i++)
        if (k->q[i].view && k->q[i].kind == H_PUT && k->q[i].rma.pe == pe &&
            (!y || k->q[i].seq < y->seq) && kernel_follows(me, &k->q[i]))
            y = &k->q[i];
    if (!y || !me->kernel_where)
        return 0;
    char where[256], ysite[CHK_SITE + 100];
    me->kernel_where(me, where, sizeof(where));
    shmemu__chk_site_line(k, y->site, ysite, sizeof(ysite));
    shmemu__check_note(me->job,
                       "%s: %s on PE %d may land there before this PE's stores through a "
                       "peer pointer to PE %d (the first at %s): %s, and a GPU's stores reach "
                       "another GPU in order only after a system-scope fence; __threadfence() "
                       "orders them within PE %d's GPU only: put __threadfence_system() (or "
                       "shmemu_dev_fence()) between the stores and the flag",
                       where, what, pe, pe, ysite, why, me->pe);
    return 1;
}

void shmemu__chk_release_told(shmemu__pe *me, int pe, size_t off, const uint32_t *rel)
{
    struct shmemu__chk *k = me->chk;
    if (!me->in_kernel || !me->kernel_where) {
        shmemu__race_release(me, k->race, pe, off, rel);
        return;
    }
    char where[200], by[240];
    me->kernel_where(me, where, sizeof(where));
    snprintf(by, sizeof(by), "the atomic of %s", where);
    shmemu__race_release_by(me, k->race, pe, off, rel, by);
}

/* Fuzz: atomic h on pe goes out now, past what it may overtake (dev_call:
 * a device call's signal or AMO, else an atomic instruction).  A
 * lock-prefixed instruction is a full barrier on x86, and the program's
 * atomic may be a release (C11 cannot be told from the instruction): the
 * stores through pointers before it land first.  Not a device thread's:
 * CUDA's atomics are relaxed, and its stores to another GPU land at a
 * system-scope fence (src/device), so a flag raised after a
 * __threadfence() of device scope may be seen before the data.  The puts
 * of the library's own it may overtake, as an AMO may. */
static void atomic_issued(shmemu__pe *me, struct held *h, int pe, const char *dev_call)
{
    struct shmemu__chk *k = me->chk;
    if (!me->in_kernel)
        shmemu__chk_land_views(me);
    shmemu__chk_deliver_fenced(me, pe);
    h->seq = k->seq + 1; /* newer than everything held */
    h->epoch = shmemu__chk_fence_epoch(k, h->ctx);
    /* The stores it passed land only after the other PEs had turns to
     * read (shmemu__dev_land_views), as a flag's overtaking do. */
    if (me->in_kernel &&
        kernel_overtake_note(me, pe, dev_call ? dev_call : "an atomic",
                             dev_call ? "a signal or AMO is not ordered after earlier stores "
                                        "without a fence (NVSHMEM)"
                                      : "CUDA's atomics are relaxed"))
        k->views_passed = pe + 1;
    if (shmemu__chk_record_overtake(me, h))
        shmemu__chk_pause_for(me, pe, 0);
}

/* An 8-byte SET of pe's word at off, as the checker holds an atomic
 * through a pointer (stamped: its release where flag). */
static struct held word_set(shmemu__pe *me, int pe, size_t off, int flag)
{
    struct held h = {.kind = H_AMO, .ctx = shmemu__ctx_id};
    h.amo.op = SHMEMU_TL_AMO_SET;
    h.amo.pe = pe;
    h.amo.off = off;
    h.amo.width = 8;
    shmemu__chk_stamp(me, &h, flag, off);
    return h;
}

void shmemu__check_dev_amo(shmemu__pe *me, int pe, size_t off, const char *call)
{
    struct shmemu__chk *k = me->chk;
    if (!k || !k->fuzz)
        return;
    shmemu__chk_enter(me);
    const char *was_call = k->call;
    void *was_site = k->site;
    k->call = call;
    k->site = NULL;
    struct held h = word_set(me, pe, off, 0);
    atomic_issued(me, &h, pe, call);
    k->call = was_call;
    k->site = was_site;
    shmemu__chk_leave(me);
}

void shmemu__chk_view_amo_begin(shmemu__pe *me, int pe, size_t off)
{
    struct shmemu__chk *k = me->chk;
    shmemu__chk_bump_activity(me, 1);
    struct held h = word_set(me, pe, off, 1);
    if (k->fuzz)
        atomic_issued(me, &h, pe, NULL);
    if (k->race && h.rel)
        shmemu__chk_release_told(me, pe, off, h.rel);
    free(h.rel);
}

/* ... and once it ran: it landed, and it read the word (a fetching AMO). */
void shmemu__chk_view_amo_end(shmemu__pe *me, int pe, size_t off)
{
    struct shmemu__chk *k = me->chk;
    if (me->job->check_ctl_off)
        atomic_fetch_add_explicit(&shmemu__chk_tgt(me, pe)->landed, 1, memory_order_release);
    shmemu__notify(me, pe);
    if (k->race)
        shmemu__race_acquire(me, k->race, pe, off, 8);
    if (k->fuzz)
        shmemu__chk_perturb_exit(k, 1);
}

/* Deliver what this PE holds of the calling thread's context, then
 * complete in the transport (which has one stream for all). */
static int chk_quiet_held(struct shmemu_tl_job *tl, int pe)
{
    shmemu__pe *me = shmemu__self;
    shmemu__chk_quiet(me, shmemu__ctx_id);
    const struct shmemu_transport_ops *inner = me->job->transport;
    return SHMEMU_TL_HAS(inner, quiet) ? inner->quiet(tl, pe) : SHMEMU_OK;
}

/* Held operations after this go after those before it, per destination;
 * then the transport's own ordering. */
static int chk_fence_held(struct shmemu_tl_job *tl, int pe)
{
    shmemu__pe *me = shmemu__self;
    shmemu__chk_fence(me->chk, shmemu__ctx_id);
    shmemu__chk_late_flush(me, shmemu__ctx_id);
    const struct shmemu_transport_ops *inner = me->job->transport;
    if (SHMEMU_TL_HAS(inner, fence))
        return inner->fence(tl, pe);
    return SHMEMU_TL_HAS(inner, quiet) ? inner->quiet(tl, pe) : SHMEMU_OK;
}

/* The table's entries: each holds the calling PE's checker state. */
#define CHK_HOLDING(name, type)                                                \
    static int name(struct shmemu_tl_job *tl, type d)                          \
    {                                                                          \
        shmemu__pe *me = shmemu__self;                                         \
        shmemu__chk_enter(me);                                                 \
        int st = name##_held(tl, d);                                           \
        shmemu__chk_leave(me);                                                 \
        return st;                                                             \
    }
CHK_HOLDING(chk_rma, const struct shmemu_tl_rma *)
CHK_HOLDING(chk_amo, const struct shmemu_tl_amo *)
CHK_HOLDING(chk_quiet, int)
CHK_HOLDING(chk_fence, int)

void shmemu__check_layer(struct shmemu__job *job)
{
    if (!job->check.fuzz && !job->check.race)
        return;
    const struct shmemu_transport_ops *t = job->transport;
    struct shmemu_transport_ops *l = &job->layer;
    /* A transport built against an older, shorter table: what it lacks
     * stays NULL, as SHMEMU_TL_HAS expects. */
    memset(l, 0, sizeof(*l));
    memcpy(l, t, t->size < sizeof(*l) ? t->size : sizeof(*l));
    l->size = sizeof(*l);
    l->rma = chk_rma;
    l->amo = chk_amo;
    l->quiet = chk_quiet;
    l->fence = chk_fence;
    /* Every access must pass here: no pointers for the user (shmemu_ptr),
     * no AMOs inlined by the core; puts may stay held until quiet. */
    l->ptr = NULL;
    l->caps = (t->caps & ~(unsigned)SHMEMU_TL_CAP_CPU_ATOMICS) | SHMEMU_TL_CAP_NBI;
    job->ops = l;
}

/* ------------------------------------------------------------- PE state */

int shmemu__check_pe_init(shmemu__pe *me)
{
    struct shmemu__job *job = me->job;
    if (!job->check.fuzz && !job->check.race)
        return 0;
    struct shmemu__chk *k = calloc(1, sizeof(*k));
    if (!k)
        return -1;
    k->fuzz = job->check.fuzz;
    size_t n = (size_t)me->npes;
    k->next_ns = calloc(n, sizeof(*k->next_ns));
    k->last_seq = calloc(n, sizeof(*k->last_seq));
    k->last_call = calloc(n, sizeof(*k->last_call));
    k->last_site = calloc(n, sizeof(*k->last_site));
    k->ahead = calloc(n, sizeof(*k->ahead));
    if (job->check.race)
        k->race = shmemu__race_new(me, shmemu__chk_race_area(job));
    if (!k->next_ns || !k->last_seq || !k->last_call || !k->last_site || !k->ahead ||
        (job->check.race && !k->race)) {
        shmemu__race_free(k->race);
        free(k->next_ns);
        free(k->last_seq);
        free(k->last_call);
        free(k->last_site);
        free(k->ahead);
        free(k);
        return -1;
    }
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&k->mu, &ma);
    pthread_mutexattr_destroy(&ma);
    k->rng = job->check.seed * 0x9e3779b97f4a7c15ull + (uint64_t)me->pe * 0xd1b54a32d192ed03ull;
    k->budget = BUDGET_MAX_NS;
    k->budget_at = shmemu__time();
    /* Short naps must be short: the default slack of 50 us would stretch
     * every one of them (this thread only). */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    k->rma = job->transport->rma;
    k->amo = job->transport->amo;
    /* Waits end in sleeps far more often here, and a membarrier before
     * each costs more than a fence on every update: every PE of the job
     * (all of them checked) takes the fenced side. */
    me->notify_light = 0;
    static const struct shmemu__check_waits waits = {
        .progress = shmemu__check_progress,
        .sync_enter = shmemu__check_sync_enter,
        .sync_exit = shmemu__check_sync_exit,
    };
    me->chk_waits = &waits;
    me->chk = k;
    return 0;
}

void shmemu__check_pe_fini(shmemu__pe *me)
{
    struct shmemu__chk *k = me->chk;
    if (!k)
        return;
    shmemu__own_stop(me);
    shmemu__check_ptr_fini(me);
    while (k->n)
        shmemu__chk_remove_at(k, k->n - 1);
    free(k->q);
    for (size_t i = 0; i < k->nlate; i++)
        free(k->late[i].then);
    free(k->late);
    free(k->fence_at);
    free(k->next_ns);
    free(k->last_seq);
    free(k->last_call);
    free(k->last_site);
    free(k->ahead);
    shmemu__race_free(k->race);
    pthread_mutex_destroy(&k->mu);
    free(k);
    me->chk = NULL;
    me->chk_waits = NULL;
}

/* ----------------------------------------------------- waits and syncs */

static void check_woke_held(shmemu__pe *me, const char *call, size_t off, size_t nbytes)
{
    shmemu__chk_bump_activity(me, 0);
    if (me->chk->race)
        shmemu__race_acquire(me, me->chk->race, me->pe, off, nbytes);
    if (!me->job->check_ctl_off)
        return;
    struct chk_tgt *t = shmemu__chk_tgt(me, me->pe);
    struct chk_ot hit;
    int found = 0;
    shmemu__chk_lock(&t->lock);
    uint64_t acts = atomic_load_explicit(&t->acts, memory_order_relaxed);
    for (int i = 0; i < CHK_OT; i++) {
        struct chk_ot *o = &t->ot[i];
        if (o->active && o->x_lo < off + nbytes && off < o->x_hi) {
            if (!found)
                memcpy(&hit, o, sizeof(hit));
            found = 1;
            if (!atomic_load_explicit(&o->seen, memory_order_relaxed))
                atomic_store_explicit(&o->seen, acts + 1, memory_order_release);
        }
    }
    shmemu__chk_unlock(&t->lock);
    if (found)
        shmemu__check_note(me->job,
             "flag before data: PE %d woke in %s on bytes [%#llx, %#llx) written by PE %d's "
             "%s (at %s) while PE %d's earlier %s (at %s) of bytes [%#llx, %#llx) to PE %d "
             "was still in flight: nothing orders two operations to one PE without "
             "%s_fence() (or %s_quiet()) between them",
             me->pe, call, (unsigned long long)hit.x_lo, (unsigned long long)hit.x_hi,
             hit.src, hit.x_call, hit.x_site, hit.src, hit.y_call, hit.y_site,
             (unsigned long long)hit.y_lo, (unsigned long long)hit.y_hi, me->pe,
             shmemu__api_of(hit.x_call), shmemu__api_of(hit.x_call));
}

static int in_team(const struct shmemu__team_geom *t, int p)
{
    int rel = p - t->start;
    if (!t->stride)
        return rel == 0;
    return rel % t->stride == 0 && rel / t->stride >= 0 && rel / t->stride < t->size;
}

static void check_sync_arrive_held(shmemu__pe *me, int slot, const char *call)
{
    struct shmemu__chk *k = me->chk;
    shmemu__chk_bump_activity(me, 1);
    if (!k->n || !me->job->check_ctl_off)
        return;
    struct shmemu__team_geom g, *t = &g;
    if (shmemu__plane_team(me, slot, &g))
        return;
    size_t inflight = 0, first = SIZE_MAX;
    for (size_t j = 0; j < k->n; j++) {
        int p = shmemu__chk_target_of(&k->q[j]);
        if (k->q[j].kind == H_GET || p == me->pe || !in_team(t, p))
            continue;
        inflight++;
        if (first == SIZE_MAX || k->q[j].seq < k->q[first].seq)
            first = j;
        if (k->fuzz)
            shmemu__chk_pause_for(me, p, 1);
    }
    if (!inflight)
        return;
    /* Held on another context: the sync's quiet (if any) left it alone. */
    int ctx = k->q[first].ctx;
    char on[32] = "";
    if (ctx != SHMEMU_CTX_DEFAULT)
        snprintf(on, sizeof(on), ", on context %d", ctx);
    const char *api = shmemu__api_of(call);
    char fix[96];
    if (ctx != SHMEMU_CTX_DEFAULT)
        snprintf(fix, sizeof(fix), "%s_ctx_quiet() on that context before the sync", api);
    else
        snprintf(fix, sizeof(fix), "%s_quiet() before the sync, or %s_barrier_all()", api,
                 api);
    shmemu__check_note(me->job,
         "sync with puts in flight: PE %d entered %s (at %s) with %zu operation%s to "
         "other members still in flight (the first: %s at %s, to PE %d%s); %s, so a "
         "member that reads after it may see old data: %s",
         me->pe, call, shmemu__chk_site_name(k, k->site), inflight, inflight > 1 ? "s" : "",
         k->q[first].call ? k->q[first].call : "?", shmemu__chk_site_name(k, k->q[first].site),
         shmemu__chk_target_of(&k->q[first]), on,
         ctx != SHMEMU_CTX_DEFAULT ? "a barrier completes the default context only"
                                   : "a sync completes nothing",
         fix);
}

static void check_synced_held(shmemu__pe *me)
{
    shmemu__chk_bump_activity(me, 0);
    if (!me->job->check_ctl_off)
        return;
    struct chk_tgt *t = shmemu__chk_tgt(me, me->pe);
    atomic_store_explicit(&t->exit_acts, atomic_load_explicit(&t->acts, memory_order_relaxed),
                          memory_order_release);
    atomic_fetch_add_explicit(&t->exits, 1, memory_order_release);
}

static void check_sync_enter_held(shmemu__pe *me, int slot, uint32_t gen)
{
    struct shmemu__chk *k = me->chk;
    if (k->npads && slot == 0) /* the world team's */
        shmemu__chk_pads_check(me, k->call ? shmemu__user_call(k->call) : "a sync of all PEs");
    if (k->race)
        shmemu__race_sync_arrive(me, k->race, slot, gen);
}

static void check_sync_exit_held(shmemu__pe *me, int slot, uint32_t gen)
{
    if (me->chk->race)
        shmemu__race_sync_done(me, me->chk->race, slot, gen);
}

/* The hooks, each holding the PE's checker state. */

void shmemu__check_woke(shmemu__pe *me, const char *call, size_t off, size_t nbytes)
{
    call = shmemu__user_call(call);
    shmemu__chk_enter(me);
    check_woke_held(me, call, off, nbytes);
    shmemu__chk_leave(me);
}

void shmemu__check_sync_arrive(shmemu__pe *me, int slot, const char *call)
{
    call = shmemu__user_call(call);
    shmemu__chk_enter(me);
    check_sync_arrive_held(me, slot, call);
    shmemu__chk_leave(me);
}

void shmemu__check_synced(shmemu__pe *me)
{
    shmemu__chk_enter(me);
    check_synced_held(me);
    shmemu__chk_leave(me);
}

void shmemu__check_sync_enter(shmemu__pe *me, int slot, uint32_t gen)
{
    shmemu__chk_enter(me);
    check_sync_enter_held(me, slot, gen);
    shmemu__chk_leave(me);
}

void shmemu__check_sync_exit(shmemu__pe *me, int slot, uint32_t gen)
{
    shmemu__chk_enter(me);
    check_sync_exit_held(me, slot, gen);
    shmemu__chk_leave(me);
}

void shmemu__check_thread_exit(shmemu__pe *me)
{
    shmemu__chk_enter(me);
    shmemu__chk_quiet(me, SHMEMU__CTX_ALL);
    shmemu__chk_leave(me);
}
