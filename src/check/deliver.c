/* deliver.c - what happens to an operation the checker held back: its
 * delivery, and the overtakes and writes it records for the notes. */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "check.h"
#include "ctl/wait.h"
#include "hooks.h"
#include "internal.h"
#include "race.h"

static const struct held *relaxed_overtaken(const struct shmemu__chk *k, const struct held *x);

int shmemu__chk_target_of(const struct held *h)
{
    return h->kind == H_AMO ? h->amo.pe : h->rma.pe;
}

/* Gets are ordered by nothing but quiet; puts and AMOs to one PE by a
 * fence on their context. */
int shmemu__chk_orders(const struct held *a, const struct held *h)
{
    if (a->kind == H_GET || h->kind == H_GET)
        return 0;
    /* The host's stores through pointers land in program order, whatever
     * their target: on x86 a release store is a plain mov, and C11 orders
     * earlier stores before it, so the checker cannot tell a flag that
     * needs a fence from one that has none.  A device thread's are a
     * GPU's plain stores (CUDA's volatile and plain stores are relaxed;
     * shmemu_device.h has no release store): they reach another GPU in
     * any order until a system-scope fence, which lands them all, but
     * for stores to the same bytes (coherence). */
    if (h->view && a->view && a->seq < h->seq) {
        if (!shmemu__chk_relaxed(a) || !shmemu__chk_relaxed(h))
            return 1;
        return a->rma.pe == h->rma.pe && a->rma.off < h->rma.off + h->rma.nbytes &&
               h->rma.off < a->rma.off + a->rma.nbytes;
    }
    return a->epoch < h->epoch && a->ctx == h->ctx &&
           shmemu__chk_target_of(a) == shmemu__chk_target_of(h);
}

int shmemu__chk_deliverable(const struct shmemu__chk *k, size_t i)
{
    for (size_t j = 0; j < k->n; j++)
        if (shmemu__chk_orders(&k->q[j], &k->q[i]))
            return 0;
    return 1;
}

/* Bytes of the destination an operation writes: [lo, hi). */
void shmemu__chk_written(const struct held *h, uint64_t *lo, uint64_t *hi)
{
    if (h->kind == H_AMO) {
        *lo = h->amo.off;
        *hi = h->amo.off + h->amo.width;
    } else if (h->rma.sig_op != SHMEMU_TL_SIG_NONE) {
        *lo = h->rma.sig_off; /* the flag of a put with signal */
        *hi = h->rma.sig_off + 8;
    } else {
        *lo = h->rma.off;
        *hi = h->rma.off + h->rma.nbytes;
    }
}

/* The oldest held put that X (issued seq x_seq on context x_ctx after fence
 * epoch x_epoch, to pe) overtakes: one with no fence between them on
 * their one context (no fence at all orders two contexts); skip: X itself
 * or the one that just landed.  NULL: none. */
static const struct held *oldest_overtaken(const struct shmemu__chk *k, const struct held *skip,
                                           int pe, uint64_t x_seq, int x_ctx, uint64_t x_epoch)
{
    const struct held *y = NULL;
    for (size_t j = 0; j < k->n; j++) {
        const struct held *c = &k->q[j];
        if (c != skip && c->kind == H_PUT && c->rma.nbytes && c->seq < x_seq &&
            (c->ctx != x_ctx || c->epoch == x_epoch) && c->rma.pe == pe &&
            (!y || c->seq < y->seq))
            y = c;
    }
    return y;
}

/* The overtake now waits for y (the caller holds the target's lock). */
static void set_y(struct shmemu__chk *k, struct chk_ot *o, const struct held *y)
{
    o->y_seq = y->seq;
    o->y_lo = y->rma.off;
    o->y_hi = y->rma.off + y->rma.nbytes;
    shmemu__strlcpy(o->y_call, y->call ? y->call : "?", sizeof(o->y_call));
    shmemu__strlcpy(o->y_site, shmemu__chk_site_name(k, y->site), sizeof(o->y_site));
}

/* X (index x) is about to be delivered: if it overtakes an earlier put to
 * the same PE from the same fence epoch, remember it on the destination,
 * so that a wait woken by X while that put is still in flight is noted. */
int shmemu__chk_record_overtake(shmemu__pe *me, const struct held *h)
{
    struct shmemu__chk *k = me->chk;
    if (h->kind == H_GET || !me->job->check_ctl_off)
        return 0;
    int pe = shmemu__chk_target_of(h);
    const struct held *y = oldest_overtaken(k, h, pe, h->seq, h->ctx, h->epoch);
    if (!y)
        return 0;
    struct chk_tgt *t = shmemu__chk_tgt(me, pe);
    struct chk_ot *o = &t->ot[me->pe % CHK_OT];
    char xs[CHK_SITE];
    shmemu__strlcpy(xs, shmemu__chk_site_name(k, h->site), sizeof(xs));
    shmemu__chk_lock(&t->lock);
    o->src = me->pe;
    o->active = 1;
    atomic_store_explicit(&o->seen, 0, memory_order_relaxed);
    o->x_seq = h->seq;
    o->x_ctx = h->ctx;
    o->x_epoch = h->epoch;
    shmemu__chk_written(h, &o->x_lo, &o->x_hi);
    shmemu__strlcpy(o->x_call, h->call ? h->call : "?", sizeof(o->x_call));
    memcpy(o->x_site, xs, sizeof(xs));
    set_y(k, o, y);
    shmemu__chk_unlock(&t->lock);
    return 1;
}

/* A put of data landed: was it written over an earlier put of ours that
 * its reader cannot have consumed (it has done nothing at all since)? */
static void record_write(shmemu__pe *me, const struct held *h)
{
    /* Stores through a pointer write the same bytes again in program order
     * (a memcpy, then a patch): not a buffer's reuse. */
    if (h->kind != H_PUT || !h->rma.nbytes || !me->job->check_ctl_off || h->view)
        return;
    /* A flag written again (a step number or a count the reader waits for
     * the last of) is no buffer's reuse. */
    if (shmemu__chk_is_flag(h))
        return;
    struct shmemu__chk *k = me->chk;
    int dst = h->rma.pe;
    if (dst == me->pe)
        return;
    struct chk_tgt *t = shmemu__chk_tgt(me, dst);
    uint64_t lo = h->rma.off, hi = lo + h->rma.nbytes;
    const char *here = shmemu__chk_site_name(k, h->site);
    char prev_call[CHK_CALL] = "", prev_site[CHK_SITE] = "";
    uint64_t plo = 0, phi = 0;
    /* The reader's activity when each write was issued: equal means it
     * did nothing at all in between. */
    uint64_t act = h->tact;
    shmemu__chk_lock(&t->lock);
    for (int i = 0; i < CHK_RW; i++) {
        struct chk_rw *r = &t->rw[i];
        if (r->src == me->pe && r->activity == act && r->lo < hi && lo < r->hi && r->hi) {
            memcpy(prev_call, r->call, sizeof(prev_call));
            memcpy(prev_site, r->site, sizeof(prev_site));
            plo = r->lo;
            phi = r->hi;
            break;
        }
    }
    struct chk_rw *r = &t->rw[t->rw_next++ % CHK_RW];
    r->src = me->pe;
    r->lo = lo;
    r->hi = hi;
    r->activity = act;
    shmemu__strlcpy(r->call, h->call ? h->call : "?", sizeof(r->call));
    shmemu__strlcpy(r->site, here, sizeof(r->site));
    shmemu__chk_unlock(&t->lock);
    if (prev_call[0])
        shmemu__check_note(me->job,
             "buffer reused before it was consumed: PE %d's %s (at %s) overwrote bytes "
             "[%#llx, %#llx) of PE %d's heap that its %s (at %s) had written to "
             "[%#llx, %#llx), and PE %d had not synchronised at all in between: wait "
             "for the reader's acknowledgement before reusing a buffer",
             me->pe, h->call ? h->call : "?", here, (unsigned long long)lo,
             (unsigned long long)hi, dst, prev_call, prev_site, (unsigned long long)plo,
             (unsigned long long)phi, dst);
}

/* Y was delivered: an overtake that waited for it is over, unless another
 * put that X overtook as well is still in flight: the overtake then waits
 * for that one (a flag after many puts has overtaken all of them, not the
 * oldest alone). */
static void clear_overtake(shmemu__pe *me, const struct held *h)
{
    if (h->kind != H_PUT || !me->job->check_ctl_off)
        return;
    struct shmemu__chk *k = me->chk;
    struct chk_tgt *t = shmemu__chk_tgt(me, h->rma.pe);
    struct chk_ot *o = &t->ot[me->pe % CHK_OT];
    shmemu__chk_lock(&t->lock);
    if (o->src == me->pe && o->active && o->y_seq == h->seq) {
        const struct held *y =
            oldest_overtaken(k, h, h->rma.pe, o->x_seq, o->x_ctx, o->x_epoch);
        if (y)
            set_y(k, o, y);
        else
            o->active = 0;
    }
    shmemu__chk_unlock(&t->lock);
}

void shmemu__chk_remove_at(struct shmemu__chk *k, size_t i)
{
    struct held *h = &k->q[i];
    if (h->kind == H_PUT)
        k->bytes -= h->rma.nbytes;
    free(h->copy);
    free(h->rel);
    k->q[i] = k->q[--k->n];
}

/* A nonblocking operation found its local buffer changed from byte at on
 * since the call: the program's store against the operation's access, a
 * race whatever the values, so a job checked for races fails on it. */
static void tell_buffer_race(shmemu__pe *me, const struct held *h, size_t at)
{
    if (!me->job->check_ctl_off)
        return;
    struct shmemu__chk *k = me->chk;
    const char *api = shmemu__api_of(h->call);
    int put = h->kind == H_PUT;
    shmemu__check_note(me->job,
                       "race: the %s of PE %d's %s (at %s) of %zu bytes %s PE %d %s before the "
                       "%s completed (from byte %zu on): a nonblocking %s until %s_quiet() "
                       "(%s_ctx_quiet() on its context) returns; %s only after that",
                       put ? "source" : "destination", me->pe, h->call ? h->call : "?",
                       shmemu__chk_site_name(k, h->site), h->rma.nbytes, put ? "to" : "from",
                       h->rma.pe, put ? "changed" : "was written", put ? "put" : "get", at,
                       put ? "put reads its source" : "get's destination is undefined", api, api,
                       put ? "reuse the buffer" : "use it");
    if (k->race)
        shmemu__race_count_found(k->race);
}

/* A nonblocking put reads its source when it is carried out, as a NIC
 * does: if the program changed the source since the call (h->copy), it
 * reused the buffer before the put completed, and the put sends what is
 * there now. */
static void check_source(shmemu__pe *me, const struct held *h)
{
    size_t n = h->rma.nbytes, at = 0;
    const unsigned char *was = h->copy, *now = shmemu__own_lib_addr(me, h->rma.local, n);
    unsigned char *read = NULL;
    if (!me->direct) { /* maybe symmetric memory the host cannot touch */
        if (!(read = malloc(n)) || shmemu__chk_read_local(me, read, h->rma.local, n)) {
            free(read);
            return;
        }
        now = read;
    }
    if (memcmp(was, now, n))
        while (was[at] == now[at])
            at++;
    else
        at = n;
    free(read);
    if (at < n)
        tell_buffer_race(me, h, at);
}

/* A poisoned get (layer.c) is about to be carried out: if its destination
 * no longer holds the poison, the program (or a late write it did not wait
 * for) wrote there before the get completed, and the get overwrites it. */
static void check_destination(shmemu__pe *me, const struct held *h)
{
    const unsigned char *now = h->rma.local;
    size_t n = h->rma.nbytes, at = 0;
    while (at < n && now[at] == GET_POISON)
        at++;
    if (at < n)
        tell_buffer_race(me, h, at);
}

/* A get of ours writes [p, p + n) now: poisoned gets held with a
 * destination there would find their poison gone through no fault of the
 * program's (two gets into one buffer): not checked any more. */
static void unpoison_overlapping(struct shmemu__chk *k, const char *p, size_t n)
{
    for (size_t i = 0; i < k->n; i++) {
        struct held *o = &k->q[i];
        const char *q = o->rma.local;
        if (o->kind == H_GET && o->poisoned && q < p + n && p < q + o->rma.nbytes)
            o->poisoned = 0;
    }
}

/* Puts whose writes wait for their context (struct late_write), at most:
 * past that they are recorded at once (a report missed, never a false
 * one: recorded early, a write is ordered before more). */
#define LATE_MAX 1024

static int late_keep(shmemu__pe *me, struct shmemu__chk *k, const struct held *h)
{
    if (k->nlate == k->caplate) {
        size_t cap = k->caplate ? k->caplate * 2 : 16;
        struct late_write *a = cap <= LATE_MAX ? realloc(k->late, cap * sizeof(*a)) : NULL;
        if (!a)
            return 0;
        k->late = a;
        k->caplate = cap;
    }
    uint32_t *then = shmemu__race_vc_copy(me, k->race);
    if (!then)
        return 0;
    k->late[k->nlate++] = (struct late_write){h->ctx, h->rma.pe, h->rma.off, h->rma.nbytes,
                                              h->call, h->site, h->who, then};
    return 1;
}

void shmemu__chk_late_flush(shmemu__pe *me, int ctx)
{
    struct shmemu__chk *k = me->chk;
    if (!k->race || !k->nlate)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < k->nlate; i++) {
        struct late_write *w = &k->late[i];
        if (ctx == SHMEMU__CTX_ALL || w->ctx == ctx) {
            shmemu__race_write_since(me, k->race, w->pe, w->off, w->nbytes, w->then, w->call,
                                     w->site, &w->who);
            free(w->then);
        } else {
            k->late[kept++] = *w;
        }
    }
    k->nlate = kept;
}

/* Carry out an operation (now, or held until now) and tell the race
 * detector what it touched and published. */
void shmemu__chk_perform(shmemu__pe *me, struct held *h)
{
    struct shmemu__chk *k = me->chk;
    /* The race detector first: a reader that sees the data, or the flag,
     * must find the write and the published clock already recorded.  The
     * clock before the write: a plain load polling the flag (unseen, it may
     * fault at any time) then never finds the write without its release. */
    if (k->race) {
        if (h->rel)
            shmemu__race_release(me, k->race, shmemu__chk_target_of(h), h->rel_off, h->rel);
        if (h->dev_data)
            shmemu__race_dev_store(me, k->race, h->rma.pe, h->rma.off, h->rma.nbytes, h->clock,
                                   h->call, h->site, &h->who);
        else if (h->kind != H_AMO && h->rma.nbytes && !(h->race_later && late_keep(me, k, h)))
            shmemu__race_access(me, k->race, h->kind == H_PUT, h->rma.pe, h->rma.off,
                                h->rma.nbytes, h->clock, h->call, h->site, &h->who);
    }
    if (h->kind == H_PUT && h->copy && h->rma.local != h->copy)
        check_source(me, h);
    if (h->kind == H_GET && h->poisoned)
        check_destination(me, h);
    if (h->kind == H_GET && h->rma.nbytes)
        unpoison_overlapping(k, h->rma.local, h->rma.nbytes);
    if (h->kind == H_AMO) {
        (void)k->amo(me->tlj, &h->amo);
    } else {
        /* a get into the PE's own watched memory, a put from it: past the
         * watch (own.c) */
        struct shmemu_tl_rma r = h->rma;
        r.local = shmemu__own_lib_addr(me, r.local, r.nbytes);
        (void)k->rma(me->tlj, &r);
    }
    if (h->view)
        shmemu__chk_view_landed(me, h);
    if (h->kind != H_GET) {
        if (me->job->check_ctl_off)
            atomic_fetch_add_explicit(&shmemu__chk_tgt(me, shmemu__chk_target_of(h))->landed, 1, memory_order_release);
        record_write(me, h);
        clear_overtake(me, h);
        shmemu__notify(me, shmemu__chk_target_of(h));
        int dst = shmemu__chk_target_of(h);
        if (h->seq > k->last_seq[dst]) {
            k->last_seq[dst] = h->seq;
            k->last_call[dst] = h->call;
            k->last_site[dst] = h->site;
        }
    }
}

/* A flag (an operation that carries no data of its own: a small put, a
 * signal alone, an AMO) overtook an earlier put to the same PE: keep the
 * put away for a while, so that a reader there meets the flag alone.  Not
 * for data overtaking data (a pipeline of puts with signal), where it
 * would only slow correct code down. */
int shmemu__chk_is_flag(const struct held *h)
{
    if (h->kind == H_AMO)
        return 1;
    if (h->kind != H_PUT)
        return 0;
    return h->rma.sig_op == SHMEMU_TL_SIG_NONE ? h->rma.nbytes <= 8 : h->rma.nbytes == 0;
}

/* The longest a pause waits for its reader: one that sleeps on a loaded
 * machine (sanitizers, 64 PEs on 2 cores) may take a few scheduler ticks
 * to run.  What a pause takes beyond what the budget gave is paid back. */
#define PAUSE_MAX_NS 50000000

void shmemu__chk_pause_for(shmemu__pe *me, int dst, int sync)
{
    struct shmemu__chk *k = me->chk;
    if (k->ahead[dst].until || !me->job->check_ctl_off)
        return; /* already paused (or nowhere to watch): nothing to pay for */
    int64_t paid = shmemu__chk_afford(k, 200000 + (int64_t)(shmemu__chk_rnd(k) % 300000)), now = shmemu__time();
    if (!paid)
        return;
    k->ahead[dst] = (struct pause){
        .from = now, .until = now + PAUSE_MAX_NS, .paid = paid, .sync = sync,
        .exits = atomic_load_explicit(&shmemu__chk_tgt(me, dst)->exits, memory_order_acquire)};
}

/* Is the reader at dst still to act, as a pause of that kind waits for? */
static int reader_pending(shmemu__pe *me, int dst, const struct pause *a)
{
    struct chk_tgt *t = shmemu__chk_tgt(me, dst);
    uint64_t acts = atomic_load_explicit(&t->acts, memory_order_acquire);
    if (a->sync)
        return atomic_load_explicit(&t->exits, memory_order_acquire) == a->exits ||
               acts <= atomic_load_explicit(&t->exit_acts, memory_order_acquire);
    struct chk_ot *o = &t->ot[me->pe % CHK_OT];
    shmemu__chk_lock(&t->lock);
    int mine = o->src == me->pe && o->active;
    uint64_t seen = atomic_load_explicit(&o->seen, memory_order_relaxed);
    shmemu__chk_unlock(&t->lock);
    return mine && (!seen || acts < seen);
}

/* Is delivery to dst still paused?  Until the reader there has done what
 * the pause waits for (acting shows it used the stale data: a put, a
 * sync), or the pause ran out, or our record of an overtake was taken
 * over by another PE's (then nothing can be noted: no use waiting). */
int shmemu__chk_paused(shmemu__pe *me, int dst, int64_t now)
{
    struct shmemu__chk *k = me->chk;
    struct pause *a = &k->ahead[dst];
    if (!a->until)
        return 0;
    if (now < a->until && reader_pending(me, dst, a))
        return 1;
    shmemu__chk_repay(k, now - a->from, a->paid);
    a->until = 0;
    return 0;
}

void shmemu__chk_deliver(shmemu__pe *me, size_t i)
{
    struct shmemu__chk *k = me->chk;
    struct held h = k->q[i];
    /* (a device thread's words overtake each other all the time: only one
     * that may be a flag before its data pauses) */
    if (shmemu__chk_record_overtake(me, &k->q[i]) &&
        (shmemu__chk_relaxed(&h) ? relaxed_overtaken(k, &k->q[i]) != NULL
                                 : shmemu__chk_is_flag(&h)))
        shmemu__chk_pause_for(me, shmemu__chk_target_of(&h), 0);
    k->q[i].copy = NULL; /* ours now */
    k->q[i].rel = NULL;
    shmemu__chk_remove_at(k, i);
    shmemu__chk_perform(me, &h);
    free(h.copy);
    free(h.rel);
}

/* h (to the PE landed for) writes bytes of [lo, hi). */
static int writes_into(const struct held *h, size_t lo, size_t hi)
{
    uint64_t a, b;
    shmemu__chk_written(h, &a, &b);
    if (a < hi && lo < b)
        return 1;
    /* a put with signal: its data too */
    return h->kind == H_PUT && h->rma.nbytes && h->rma.off < hi && lo < h->rma.off + h->rma.nbytes;
}

/* Deliver, oldest first, what this PE holds (for pe; -1: for any PE) while
 * something held matches. */
static void land_while(shmemu__pe *me, int pe, int (*match)(const struct held *h, size_t lo,
                                                             size_t hi),
                       size_t lo, size_t hi)
{
    struct shmemu__chk *k = me->chk;
    for (;;) {
        size_t oldest = SIZE_MAX;
        int any = 0;
        for (size_t j = 0; j < k->n; j++) {
            const struct held *h = &k->q[j];
            if (h->kind == H_GET || (pe >= 0 && shmemu__chk_target_of(h) != pe))
                continue;
            any |= match(h, lo, hi);
            if (oldest == SIZE_MAX || h->seq < k->q[oldest].seq)
                oldest = j;
        }
        if (!any)
            return;
        shmemu__chk_deliver(me, oldest);
    }
}

static int is_view(const struct held *h, size_t lo, size_t hi)
{
    (void)lo, (void)hi;
    return h->view != 0;
}

void shmemu__chk_land_views(shmemu__pe *me)
{
    land_while(me, -1, is_view, 0, 0);
    me->chk->views_passed = 0;
}

/* A device thread's store y through a peer pointer is still held where x,
 * a later one of this PE's, lands first: the note names both and the fence
 * (printed only if the job then fails). */
static void relaxed_note(shmemu__pe *me, const struct held *x, const struct held *y)
{
    struct shmemu__chk *k = me->chk;
    char xw[64], xs[CHK_SITE + 100], ys[CHK_SITE + 100];
    shmemu__chk_who_text(&x->who, xw, sizeof(xw));
    /* (the same text for every round and thread: one note) */
    shmemu__check_note(
        me->job,
        "flag before data: PE %d's store%s (at %s) through a peer pointer landed on PE %d "
        "while earlier stores of PE %d's threads there (at %s) were still in flight: a GPU's "
        "plain and volatile stores reach another GPU in any order until a system-scope "
        "fence, and __threadfence() orders them within PE %d's GPU only: put "
        "__threadfence_system() (or shmemu_dev_fence()) between the data and the flag",
        me->pe, xw, shmemu__chk_site_line(k, x->site, xs, sizeof(xs)), x->rma.pe, me->pe,
        shmemu__chk_site_line(k, y->site, ys, sizeof(ys)), me->pe);
}

int shmemu__chk_land_view_first(shmemu__pe *me)
{
    struct shmemu__chk *k = me->chk;
    /* Mostly the newest word stored elsewhere in the code than the oldest
     * store held for its PE (a flag raised after its data without a
     * system-scope fence, by this thread or another one of the PE), else
     * the newest of all: the orders that break code relying on the order
     * of relaxed stores.  Each choice is a scan, not one per candidate:
     * held stores number hundreds at a fence. */
    int flagged = !shmemu__chk_one_in(k, 4);
    size_t best = SIZE_MAX;
    for (size_t j = 0; j < k->n; j++) {
        const struct held *h = &k->q[j];
        if (!shmemu__chk_relaxed(h) || (best != SIZE_MAX && h->seq < k->q[best].seq))
            continue;
        if (flagged) {
            const struct held *first = NULL;
            for (size_t i = 0; i < k->n; i++)
                if (shmemu__chk_relaxed(&k->q[i]) && k->q[i].rma.pe == h->rma.pe &&
                    (!first || k->q[i].seq < first->seq))
                    first = &k->q[i];
            if (!shmemu__chk_is_flag(h) || first->site == h->site)
                continue;
        }
        best = j;
    }
    if (best == SIZE_MAX || !shmemu__chk_deliverable(k, best))
        return -1;
    int dst = shmemu__chk_relaxed_flag(me, &k->q[best]);
    shmemu__chk_deliver(me, best);
    return dst;
}

/* The oldest store held for x's PE, made elsewhere in the code, that x (a
 * device thread's word through a peer pointer) overtakes if it lands now:
 * a flag before its data, maybe (one store of a loop overtaking another is
 * not worth a pause).  NULL: none. */
static const struct held *relaxed_overtaken(const struct shmemu__chk *k, const struct held *x)
{
    const struct held *y = NULL;
    if (!shmemu__chk_relaxed(x) || !shmemu__chk_is_flag(x))
        return NULL;
    for (size_t j = 0; j < k->n; j++)
        if (k->q[j].view && k->q[j].kind == H_PUT && k->q[j].rma.pe == x->rma.pe &&
            k->q[j].seq < x->seq && k->q[j].site != x->site && (!y || k->q[j].seq < y->seq))
            y = &k->q[j];
    return y;
}

int shmemu__chk_relaxed_flag(shmemu__pe *me, const struct held *x)
{
    const struct held *y = relaxed_overtaken(me->chk, x);
    if (!y)
        return -1;
    relaxed_note(me, x, y);
    return x->rma.pe;
}

void shmemu__check_land_views(shmemu__pe *me)
{
    if (me->chk && me->chk->fuzz)
        shmemu__chk_land_views(me);
}

int shmemu__check_land_view_first(shmemu__pe *me)
{
    return me->chk && me->chk->fuzz ? shmemu__chk_land_view_first(me) : -1;
}

uint64_t shmemu__check_seq(shmemu__pe *me) { return me->chk ? me->chk->seq : 0; }

int shmemu__check_in_view(shmemu__pe *me, const void *p)
{
    return me->chk && shmemu__chk_in_view(me, p);
}

int shmemu__check_views_passed(shmemu__pe *me)
{
    return me->chk && me->chk->fuzz ? me->chk->views_passed - 1 : -1;
}

int shmemu__check_paused(shmemu__pe *me, int pe)
{
    return me->chk && me->chk->fuzz && me->chk->ahead[pe].until &&
           shmemu__chk_paused(me, pe, shmemu__time());
}

void shmemu__check_pause_reader(shmemu__pe *me, int pe)
{
    if (!me->chk || !me->chk->fuzz)
        return;
    shmemu__chk_enter(me);
    shmemu__chk_pause_for(me, pe, 1);
    shmemu__chk_leave(me);
}

void shmemu__chk_land_range(shmemu__pe *me, int pe, size_t lo, size_t hi)
{
    land_while(me, pe, writes_into, lo, hi);
}

/* Which held operation goes next: mostly the newest one allowed (the order
 * that breaks code relying on issue order), sometimes any allowed one.
 * first: a candidate to start from (SIZE_MAX: none). */
size_t shmemu__chk_pick(shmemu__pe *me, size_t first)
{
    struct shmemu__chk *k = me->chk;
    size_t best = SIZE_MAX;
    if (first != SIZE_MAX && shmemu__chk_one_in(k, 8))
        best = first;
    else if (shmemu__chk_one_in(k, 4)) { /* any allowed one */
        size_t start = (size_t)(shmemu__chk_rnd(k) % k->n);
        for (size_t j = 0; j < k->n && best == SIZE_MAX; j++)
            if (shmemu__chk_deliverable(k, (start + j) % k->n))
                best = (start + j) % k->n;
    } else { /* the newest allowed, to first's destination if given */
        for (size_t j = 0; j < k->n; j++)
            if ((first == SIZE_MAX || (k->q[j].kind != H_GET &&
                                       shmemu__chk_target_of(&k->q[j]) == shmemu__chk_target_of(&k->q[first]))) &&
                shmemu__chk_deliverable(k, j) && (best == SIZE_MAX || k->q[j].seq > k->q[best].seq))
                best = j;
    }
    if (best == SIZE_MAX || !shmemu__chk_deliverable(k, best)) { /* fall back: the oldest */
        best = 0;
        for (size_t j = 1; j < k->n; j++)
            if (k->q[j].seq < k->q[best].seq)
                best = j;
    }
    return best;
}

/* A nonblocking get reads when it is performed: if a later operation of
 * ours to the same PE went first (an acknowledgement, say), that PE may
 * have changed the bytes already. */
int shmemu__chk_check_get_overtaken(shmemu__pe *me, const struct held *g)
{
    struct shmemu__chk *k = me->chk;
    int later = -1; /* the PE the newest operation issued after g went to */
    for (int p = 0; p < me->npes; p++)
        if (k->last_seq[p] > g->seq && (later < 0 || k->last_seq[p] > k->last_seq[later]))
            later = p;
    if (later >= 0 && me->job->check_ctl_off)
        shmemu__check_note(
            me->job,
            "get not complete (a missing %s_quiet): PE %d's %s (at %s) of bytes "
            "[%#zx, %#zx) on PE %d was still in flight when PE %d's later %s (at %s) "
            "reached PE %d, which may then change those bytes (reuse the buffer) before "
            "the get reads them; a nonblocking get completes only at %s_quiet(): "
            "call it after the get, before that %s",
            shmemu__api_of(g->call), me->pe, g->call ? g->call : "?",
            shmemu__chk_site_name(k, g->site), g->rma.off,
            g->rma.off + g->rma.nbytes, g->rma.pe, me->pe,
            k->last_call[later] ? k->last_call[later] : "?", shmemu__chk_site_name(k, k->last_site[later]),
            later, shmemu__api_of(g->call),
            k->last_call[later] ? k->last_call[later] : "operation");
    return later >= 0;
}

/* A get that a later operation overtook waits (within the budget, and at
 * most GET_PAUSE_NS) until something is written where it reads: the PE
 * told may react by reusing the buffer, and the get should see that. */
#define GET_PAUSE_NS 10000000
void shmemu__chk_await_landing(shmemu__pe *me, const struct held *g)
{
    struct shmemu__chk *k = me->chk;
    int64_t paid = shmemu__chk_afford(k, 10000 + (int64_t)(shmemu__chk_rnd(k) % 40000));
    if (!paid || !me->job->check_ctl_off)
        return;
    int64_t from = shmemu__time(), now = from;
    _Atomic uint64_t *landed = &shmemu__chk_tgt(me, g->rma.pe)->landed;
    while (now - from < GET_PAUSE_NS &&
           atomic_load_explicit(landed, memory_order_acquire) == g->tact && !shmemu__aborted(me)) {
        shmemu__chk_nap(me, from);
        now = shmemu__time();
    }
    shmemu__chk_repay(k, now - from, paid);
}

