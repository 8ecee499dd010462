/* check.c - checker mode: delivery fuzzing, schedule perturbation and the
 * notes that explain what went wrong (see check.h and docs/CHECK.md). */
#include "check.h"

#include "race.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------- shared part */

#define CHK_NOTES 8
#define CHK_NOTE_LEN 480
#define CHK_OT 8  /* overtakes remembered per destination PE */
#define CHK_RW 16 /* recent writes remembered per destination PE */
#define CHK_SITE 72
#define CHK_CALL 40

/* An operation X from PE src that was delivered before an earlier one, Y,
 * from the same PE to the same PE with no fence between them, while Y is
 * still in flight. */
struct chk_ot {
    int32_t src; /* -1: free */
    uint32_t active;
    /* Set by the destination when it woke on X while Y was in flight: its
     * count of acts (below) then, plus one.  0: not yet. */
    _Atomic uint64_t seen;
    uint64_t y_seq;
    uint64_t x_lo, x_hi; /* what X wrote (the flag) */
    uint64_t y_lo, y_hi; /* what Y will write (the data) */
    char x_call[CHK_CALL], y_call[CHK_CALL];
    char x_site[CHK_SITE], y_site[CHK_SITE];
};

/* A put that landed, and how busy its destination had been until then. */
struct chk_rw {
    int32_t src; /* -1: free */
    uint32_t pad;
    uint64_t lo, hi;
    uint64_t activity;
    char call[CHK_CALL];
    char site[CHK_SITE];
};

/* Per destination PE. */
struct chk_tgt {
    _Atomic uint32_t lock;
    uint32_t rw_next;
    /* Bumped whenever this PE completes a wait or a sync or issues an
     * operation: a writer can tell whether its reader did anything at all
     * since its previous write. */
    _Atomic uint64_t activity;
    /* The same, less the waits: an act is how a reader that woke on a flag
     * shows it has used what it read. */
    _Atomic uint64_t acts;
    /* Syncs this PE left, and its acts when it left the last one. */
    _Atomic uint64_t exits, exit_acts;
    _Atomic uint64_t landed; /* puts and AMOs carried out here */
    struct chk_ot ot[CHK_OT];
    struct chk_rw rw[CHK_RW];
};

struct chk_shared {
    _Atomic uint32_t lock;
    uint32_t nnotes;
    char notes[CHK_NOTES][CHK_NOTE_LEN];
    struct chk_tgt tgt[]; /* [npes] */
};

static size_t notes_size(int npes)
{
    return (sizeof(struct chk_shared) + (size_t)npes * sizeof(struct chk_tgt) + 63) & ~(size_t)63;
}

size_t shmemu__check_ctl_size(const struct shmemu__job *job)
{
    if (!job->check.fuzz && !job->check.race)
        return 0;
    return notes_size(job->tl.npes) +
           (job->check.race ? shmemu__race_ctl_size(job->tl.npes, job->tl.heap_size) : 0);
}

static struct chk_shared *shared(struct shmemu__job *job)
{
    return (struct chk_shared *)(void *)((char *)job->tl.ctl + job->check_ctl_off);
}

/* The race detector's part of the control area. */
static void *race_area(struct shmemu__job *job)
{
    return (char *)job->tl.ctl + job->check_ctl_off + notes_size(job->tl.npes);
}

void shmemu__check_ctl_init(struct shmemu__job *job)
{
    if (job->check_ctl_off && job->check.race)
        shmemu__race_ctl_init(race_area(job), job->tl.npes, job->tl.heap_size);
}

static void lock(_Atomic uint32_t *l)
{
    while (atomic_exchange_explicit(l, 1, memory_order_acquire))
        sched_yield();
}

static void unlock(_Atomic uint32_t *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

void shmemu__check_note(struct shmemu__job *job, const char *fmt, ...)
{
    char text[CHK_NOTE_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    struct chk_shared *sh = shared(job);
    lock(&sh->lock);
    uint32_t n = sh->nnotes, dup = 0;
    for (uint32_t i = 0; i < n && !dup; i++)
        dup = strcmp(sh->notes[i], text) == 0;
    if (!dup && n < CHK_NOTES) {
        memcpy(sh->notes[n], text, sizeof(text));
        sh->nnotes = n + 1;
    }
    unlock(&sh->lock);
}

int shmemu_check_enabled(void)
{
    shmemu__pe *me = shmemu__self;
    return me && me->chk != NULL;
}

static int notes_text(struct shmemu__job *job, char *buf, size_t len, const char *prefix)
{
    if (buf && len) /* a job without notes leaves none from the last one */
        buf[0] = '\0';
    if (!job->check_ctl_off)
        return 0;
    struct chk_shared *sh = shared(job);
    lock(&sh->lock);
    int n = (int)sh->nnotes;
    size_t used = 0;
    for (int i = 0; i < n && buf && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s\n", prefix, sh->notes[i]);
        if (w > 0)
            used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
    unlock(&sh->lock);
    return n;
}

/* The notes of the last checked job launched from this process. */
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_notes[CHK_NOTES * (CHK_NOTE_LEN + 2)];
static int last_count;

int shmemu_check_notes(char *buf, size_t len)
{
    if (buf && len)
        buf[0] = '\0';
    if (!shmemu__self) {
        pthread_mutex_lock(&last_lock);
        if (buf && len)
            shmemu__strlcpy(buf, last_notes, len);
        int n = last_count;
        pthread_mutex_unlock(&last_lock);
        return n;
    }
    SHMEMU__ENTER(me, "shmemu_check_notes", 0);
    shmemu__ok();
    return notes_text(me->job, buf, len, "");
}

int shmemu__check_job_end(struct shmemu__job *job, int rc)
{
    if (!job->check_ctl_off) { /* an unchecked job leaves no notes */
        pthread_mutex_lock(&last_lock);
        last_notes[0] = '\0';
        last_count = 0;
        pthread_mutex_unlock(&last_lock);
        return rc;
    }
    if (rc == SHMEMU_OK && job->check.race && shmemu__race_count(race_area(job)))
        rc = SHMEMU_ERACE;
    pthread_mutex_lock(&last_lock);
    last_count = notes_text(job, last_notes, sizeof(last_notes), "");
    pthread_mutex_unlock(&last_lock);
    char buf[CHK_NOTES * (CHK_NOTE_LEN + 24)];
    if (rc != SHMEMU_OK && notes_text(job, buf, sizeof(buf), "shmemu-check: note: ") > 0)
        shmemu__emit(buf);
    return rc;
}

/* --------------------------------------------------------------- PE state */

enum { H_PUT, H_AMO, H_GET };

struct held {
    int kind;
    struct shmemu_tl_rma rma; /* H_PUT, H_GET */
    struct shmemu_tl_amo amo; /* H_AMO */
    void *copy;               /* a blocking put's data, owned */
    uint64_t seq;             /* issue order */
    uint64_t epoch;           /* fences before it */
    int64_t issued_ns;
    int64_t due_ns;           /* not delivered while waiting before this */
    const char *call;
    void *site;
    uint64_t tact;            /* a put's destination's activity count at issue;
                                 a get's source's landed count */
    uint32_t clock;           /* race: the issuer's clock at issue */
    uint32_t *rel;            /* race: the clock vector it publishes, owned */
    size_t rel_off;           /*       on this word of the destination */
};

struct site_name {
    void *addr;
    char name[CHK_SITE];
};

/* Deliveries to one PE held back so that the reader there acts on what
 * it has without them: after a flag overtook a put there (until it woke
 * on the flag and acted), or after a sync that they were in flight across
 * (until it left the sync and acted). */
struct pause {
    int64_t from, until; /* 0: none */
    int64_t paid;        /* what the budget gave for it */
    int sync;            /* 1: the second kind */
    uint64_t exits;      /*    the reader's exits when it began */
};

struct shmemu__chk {
    uint64_t rng;
    struct held *q;
    size_t n, cap, bytes;
    uint64_t seq, epoch;
    int64_t *next_ns; /* [npes]: no delivery to that PE while waiting before
                         this (a gap after the last one) */
    uint64_t *last_seq; /* [npes]: the newest operation delivered there */
    struct pause *ahead; /* [npes] */
    const char **last_call;
    void **last_site;
    int fuzz;
    int64_t budget, budget_at; /* for delays: see afford() */
    struct shmemu__race *race; /* NULL: no race detection */
    int64_t last_long_ns; /* the last long hold began */
    int (*rma)(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d);
    int (*amo)(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d);
    const char *call; /* the library call in progress, and where from */
    void *site;
    struct site_name names[32];
    unsigned next_name;
};

/* Bounds on what one PE holds: past them the oldest goes out. */
#define HOLD_MAX_OPS 512
#define HOLD_MAX_BYTES ((size_t)64 << 20)

static uint64_t rnd(struct shmemu__chk *k)
{
    /* splitmix64: tiny state, good enough to pick delivery orders */
    uint64_t z = (k->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* True with probability 1/n. */
static int one_in(struct shmemu__chk *k, unsigned n)
{
    return rnd(k) % n == 0;
}

/* Every delay the checker imposes (holds, gaps, naps) is paid from a
 * budget that refills at a quarter of the PE's running time, up to 3 ms:
 * a short test meets every kind of delay at once, and a long program is
 * slowed by a bounded factor rather than once per step. */
#define BUDGET_MAX_NS 3000000
static int64_t afford(struct shmemu__chk *k, int64_t want)
{
    int64_t now = shmemu__now_ns();
    k->budget += (now - k->budget_at) / 4;
    if (k->budget > BUDGET_MAX_NS)
        k->budget = BUDGET_MAX_NS;
    k->budget_at = now;
    if (want > k->budget)
        return 0;
    k->budget -= want;
    return want;
}

/* A wait that ended on an event took `spent`, the budget gave `paid`: the
 * rest is owed, so that the budget still bounds the slowdown. */
static void repay(struct shmemu__chk *k, int64_t spent, int64_t paid)
{
    if (spent <= paid)
        return;
    afford(k, 0); /* bring the budget up to now first */
    k->budget -= spent - paid;
}

static void sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {0, (long)ns};
    nanosleep(&ts, NULL);
}

/* Waiting on another PE's progress since `from`: with a core to itself
 * the PE spins a little (20 us); then, or sharing a core, it sleeps, so
 * that the PEs it waits for run (a storm of yields would cost more than
 * the work) and a long pause does not burn a core. */
static void nap(shmemu__pe *me, int64_t from)
{
    if (me->job->yield_ns == 0 && shmemu__now_ns() - from < 20000)
        shmemu__cpu_relax();
    else
        sleep_ns(20000);
}

/* "function+0x1c" (or "module+0x1c" when the symbol is not exported) for a
 * return address: reports name where a call was made. */
/* The same, cached per PE: the checker asks for the same few sites often. */
static const char *site_name(struct shmemu__chk *k, void *addr)
{
    if (!addr)
        return "?";
    for (unsigned i = 0; i < 32; i++)
        if (k->names[i].addr == addr)
            return k->names[i].name;
    struct site_name *s = &k->names[k->next_name++ % 32];
    s->addr = addr;
    shmemu__format_site(addr, s->name, sizeof(s->name));
    return s->name;
}

const char *shmemu__check_site(shmemu__pe *me, void *addr)
{
    return site_name(me->chk, addr);
}

static struct chk_tgt *tgt(shmemu__pe *me, int pe)
{
    return &shared(me->job)->tgt[pe];
}

/* acted: an operation or a sync, not a wait that returned */
static void bump_activity(shmemu__pe *me, int acted)
{
    if (!me->job->check_ctl_off)
        return;
    atomic_fetch_add_explicit(&tgt(me, me->pe)->activity, 1, memory_order_relaxed);
    if (acted)
        atomic_fetch_add_explicit(&tgt(me, me->pe)->acts, 1, memory_order_release);
}

/* --------------------------------------------------------------- delivery */

static int target_of(const struct held *h)
{
    return h->kind == H_AMO ? h->amo.pe : h->rma.pe;
}

/* Gets are ordered by nothing but quiet; puts and AMOs to one PE by fence. */
static int deliverable(const struct shmemu__chk *k, size_t i)
{
    const struct held *h = &k->q[i];
    if (h->kind == H_GET)
        return 1;
    for (size_t j = 0; j < k->n; j++)
        if (k->q[j].kind != H_GET && k->q[j].epoch < h->epoch &&
            target_of(&k->q[j]) == target_of(h))
            return 0;
    return 1;
}

/* Bytes of the destination an operation writes: [lo, hi). */
static void written(const struct held *h, uint64_t *lo, uint64_t *hi)
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

/* X (index x) is about to be delivered: if it overtakes an earlier put to
 * the same PE from the same fence epoch, remember it on the destination,
 * so that a wait woken by X while that put is still in flight is noted. */
static int record_overtake(shmemu__pe *me, const struct held *h)
{
    struct shmemu__chk *k = me->chk;
    const struct held *y = NULL;
    if (h->kind == H_GET || !me->job->check_ctl_off)
        return 0;
    for (size_t j = 0; j < k->n; j++) {
        const struct held *c = &k->q[j];
        if (c != h && c->kind == H_PUT && c->rma.nbytes && c->seq < h->seq &&
            c->epoch == h->epoch && c->rma.pe == target_of(h) && (!y || c->seq < y->seq))
            y = c;
    }
    if (!y)
        return 0;
    struct chk_tgt *t = tgt(me, target_of(h));
    struct chk_ot *o = &t->ot[me->pe % CHK_OT];
    char xs[CHK_SITE], ys[CHK_SITE];
    shmemu__strlcpy(xs, site_name(k, h->site), sizeof(xs));
    shmemu__strlcpy(ys, site_name(k, y->site), sizeof(ys));
    lock(&t->lock);
    o->src = me->pe;
    o->active = 1;
    atomic_store_explicit(&o->seen, 0, memory_order_relaxed);
    o->y_seq = y->seq;
    written(h, &o->x_lo, &o->x_hi);
    o->y_lo = y->rma.off;
    o->y_hi = y->rma.off + y->rma.nbytes;
    shmemu__strlcpy(o->x_call, h->call ? h->call : "?", sizeof(o->x_call));
    shmemu__strlcpy(o->y_call, y->call ? y->call : "?", sizeof(o->y_call));
    memcpy(o->x_site, xs, sizeof(xs));
    memcpy(o->y_site, ys, sizeof(ys));
    unlock(&t->lock);
    return 1;
}

/* A put of data landed: was it written over an earlier put of ours that
 * its reader cannot have consumed (it has done nothing at all since)? */
static void record_write(shmemu__pe *me, const struct held *h)
{
    if (h->kind != H_PUT || !h->rma.nbytes || !me->job->check_ctl_off)
        return;
    struct shmemu__chk *k = me->chk;
    int dst = h->rma.pe;
    if (dst == me->pe)
        return;
    struct chk_tgt *t = tgt(me, dst);
    uint64_t lo = h->rma.off, hi = lo + h->rma.nbytes;
    const char *here = site_name(k, h->site);
    char prev_call[CHK_CALL] = "", prev_site[CHK_SITE] = "";
    uint64_t plo = 0, phi = 0;
    /* The reader's activity when each write was issued: equal means it
     * did nothing at all in between. */
    uint64_t act = h->tact;
    lock(&t->lock);
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
    unlock(&t->lock);
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

/* Y (index i) was delivered: an overtake that waited for it is over. */
static void clear_overtake(shmemu__pe *me, const struct held *h)
{
    if (h->kind != H_PUT || !me->job->check_ctl_off)
        return;
    struct chk_tgt *t = tgt(me, h->rma.pe);
    struct chk_ot *o = &t->ot[me->pe % CHK_OT];
    lock(&t->lock);
    if (o->src == me->pe && o->y_seq == h->seq)
        o->active = 0;
    unlock(&t->lock);
}

static void remove_at(struct shmemu__chk *k, size_t i)
{
    struct held *h = &k->q[i];
    if (h->kind == H_PUT)
        k->bytes -= h->rma.nbytes;
    free(h->copy);
    free(h->rel);
    k->q[i] = k->q[--k->n];
}

/* Carry out an operation (now, or held until now) and tell the race
 * detector what it touched and published. */
static void perform(shmemu__pe *me, struct held *h)
{
    struct shmemu__chk *k = me->chk;
    /* The race detector first: a reader that sees the data, or the flag,
     * must find the write and the published clock already recorded. */
    if (k->race) {
        if (h->kind != H_AMO && h->rma.nbytes)
            shmemu__race_access(me, k->race, h->kind == H_PUT, h->rma.pe, h->rma.off,
                                h->rma.nbytes, h->clock, h->call, h->site);
        if (h->rel)
            shmemu__race_release(me, k->race, target_of(h), h->rel_off, h->rel);
    }
    if (h->kind == H_AMO)
        (void)k->amo(me->tlj, &h->amo);
    else
        (void)k->rma(me->tlj, &h->rma);
    if (h->kind != H_GET) {
        if (me->job->check_ctl_off)
            atomic_fetch_add_explicit(&tgt(me, target_of(h))->landed, 1, memory_order_release);
        record_write(me, h);
        clear_overtake(me, h);
        shmemu__notify(me, target_of(h));
        int dst = target_of(h);
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
static int is_flag(const struct held *h)
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

static void pause_for(shmemu__pe *me, int dst, int sync)
{
    struct shmemu__chk *k = me->chk;
    if (k->ahead[dst].until || !me->job->check_ctl_off)
        return; /* already paused (or nowhere to watch): nothing to pay for */
    int64_t paid = afford(k, 200000 + (int64_t)(rnd(k) % 300000)), now = shmemu__now_ns();
    if (!paid)
        return;
    k->ahead[dst] = (struct pause){
        .from = now, .until = now + PAUSE_MAX_NS, .paid = paid, .sync = sync,
        .exits = atomic_load_explicit(&tgt(me, dst)->exits, memory_order_acquire)};
}

/* Is the reader at dst still to act, as a pause of that kind waits for? */
static int reader_pending(shmemu__pe *me, int dst, const struct pause *a)
{
    struct chk_tgt *t = tgt(me, dst);
    uint64_t acts = atomic_load_explicit(&t->acts, memory_order_acquire);
    if (a->sync)
        return atomic_load_explicit(&t->exits, memory_order_acquire) == a->exits ||
               acts <= atomic_load_explicit(&t->exit_acts, memory_order_acquire);
    struct chk_ot *o = &t->ot[me->pe % CHK_OT];
    lock(&t->lock);
    int mine = o->src == me->pe && o->active;
    uint64_t seen = atomic_load_explicit(&o->seen, memory_order_relaxed);
    unlock(&t->lock);
    return mine && (!seen || acts < seen);
}

/* Is delivery to dst still paused?  Until the reader there has done what
 * the pause waits for (acting shows it used the stale data: a put, a
 * sync), or the pause ran out, or our record of an overtake was taken
 * over by another PE's (then nothing can be noted: no use waiting). */
static int paused(shmemu__pe *me, int dst, int64_t now)
{
    struct shmemu__chk *k = me->chk;
    struct pause *a = &k->ahead[dst];
    if (!a->until)
        return 0;
    if (now < a->until && reader_pending(me, dst, a))
        return 1;
    repay(k, now - a->from, a->paid);
    a->until = 0;
    return 0;
}

static void deliver(shmemu__pe *me, size_t i)
{
    struct shmemu__chk *k = me->chk;
    struct held h = k->q[i];
    if (record_overtake(me, &k->q[i]) && is_flag(&h))
        pause_for(me, target_of(&h), 0);
    k->q[i].copy = NULL; /* ours now */
    k->q[i].rel = NULL;
    remove_at(k, i);
    perform(me, &h);
    free(h.copy);
    free(h.rel);
}

/* Which held operation goes next: mostly the newest one allowed (the order
 * that breaks code relying on issue order), sometimes any allowed one.
 * first: a candidate to start from (SIZE_MAX: none). */
static size_t pick(shmemu__pe *me, size_t first)
{
    struct shmemu__chk *k = me->chk;
    size_t best = SIZE_MAX;
    if (first != SIZE_MAX && one_in(k, 8))
        best = first;
    else if (one_in(k, 4)) { /* any allowed one */
        size_t start = (size_t)(rnd(k) % k->n);
        for (size_t j = 0; j < k->n && best == SIZE_MAX; j++)
            if (deliverable(k, (start + j) % k->n))
                best = (start + j) % k->n;
    } else { /* the newest allowed, to first's destination if given */
        for (size_t j = 0; j < k->n; j++)
            if ((first == SIZE_MAX || (k->q[j].kind != H_GET &&
                                       target_of(&k->q[j]) == target_of(&k->q[first]))) &&
                deliverable(k, j) && (best == SIZE_MAX || k->q[j].seq > k->q[best].seq))
                best = j;
    }
    if (best == SIZE_MAX || !deliverable(k, best)) { /* fall back: the oldest */
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
static int check_get_overtaken(shmemu__pe *me, const struct held *g)
{
    struct shmemu__chk *k = me->chk;
    int later = -1; /* the PE the newest operation issued after g went to */
    for (int p = 0; p < me->npes; p++)
        if (k->last_seq[p] > g->seq && (later < 0 || k->last_seq[p] > k->last_seq[later]))
            later = p;
    if (later >= 0 && me->job->check_ctl_off)
        shmemu__check_note(
            me->job,
            "get not complete (a missing shmemu_quiet): PE %d's %s (at %s) of bytes "
            "[%#zx, %#zx) on PE %d was still in flight when PE %d's later %s (at %s) "
            "reached PE %d, which may then change those bytes (reuse the buffer) before "
            "the get reads them; a nonblocking get completes only at shmemu_quiet(): "
            "call it after the get, before that %s",
            me->pe, g->call ? g->call : "?", site_name(k, g->site), g->rma.off,
            g->rma.off + g->rma.nbytes, g->rma.pe, me->pe,
            k->last_call[later] ? k->last_call[later] : "?", site_name(k, k->last_site[later]),
            later, k->last_call[later] ? k->last_call[later] : "operation");
    return later >= 0;
}

/* A get that a later operation overtook waits (within the budget, and at
 * most GET_PAUSE_NS) until something is written where it reads: the PE
 * told may react by reusing the buffer, and the get should see that. */
#define GET_PAUSE_NS 10000000
static void await_landing(shmemu__pe *me, const struct held *g)
{
    struct shmemu__chk *k = me->chk;
    int64_t paid = afford(k, 10000 + (int64_t)(rnd(k) % 40000));
    if (!paid || !me->job->check_ctl_off)
        return;
    int64_t from = shmemu__now_ns(), now = from;
    _Atomic uint64_t *landed = &tgt(me, g->rma.pe)->landed;
    while (now - from < GET_PAUSE_NS &&
           atomic_load_explicit(landed, memory_order_acquire) == g->tact && !shmemu__aborted(me)) {
        nap(me, from);
        now = shmemu__now_ns();
    }
    repay(k, now - from, paid);
}

void shmemu__check_quiet(shmemu__pe *me)
{
    struct shmemu__chk *k = me->chk;
    if (!k)
        return;
    /* Puts and AMOs first; gets complete last (any time before quiet
     * returns is theirs), after a pause that lets the others act. */
    int gets = 0;
    for (;;) {
        size_t i = SIZE_MAX;
        for (size_t tries = 0; tries < 4 && i == SIZE_MAX; tries++) {
            size_t c = k->n ? pick(me, SIZE_MAX) : SIZE_MAX;
            if (c != SIZE_MAX && k->q[c].kind != H_GET)
                i = c;
        }
        for (size_t j = 0; j < k->n && i == SIZE_MAX; j++)
            if (k->q[j].kind != H_GET && deliverable(k, j))
                i = j;
        if (i == SIZE_MAX)
            break;
        /* Something newer to the same PE went first: a reader there may be
         * about to act on it; give it the time to, before this lands. */
        int dst = k->q[i].kind != H_GET ? target_of(&k->q[i]) : -1;
        for (int64_t from = shmemu__now_ns(); dst >= 0 && paused(me, dst, shmemu__now_ns());) {
            if (shmemu__aborted(me))
                break;
            nap(me, from);
        }
        deliver(me, i);
    }
    for (size_t j = 0; j < k->n; j++)
        gets += k->q[j].kind == H_GET;
    if (gets && k->fuzz)
        sleep_ns(afford(k, 10000 + (int64_t)(rnd(k) % 40000)));
    while (k->n) {
        if (check_get_overtaken(me, &k->q[k->n - 1]) && k->fuzz)
            await_landing(me, &k->q[k->n - 1]);
        deliver(me, k->n - 1);
    }
}

void shmemu__check_fence(shmemu__pe *me)
{
    if (me->chk)
        me->chk->epoch++;
}

/* When the held operation j may go: its hold is over and the gap since
 * the last delivery to its destination too. */
static int64_t ready_at(shmemu__pe *me, size_t j, int64_t now)
{
    const struct shmemu__chk *k = me->chk;
    int dst = target_of(&k->q[j]);
    if (paused(me, dst, now))
        return k->ahead[dst].until;
    int64_t gap = k->next_ns[dst];
    return k->q[j].due_ns > gap ? k->q[j].due_ns : gap;
}

/* One operation whose time has come, if any; else 0 and *next_p: when the
 * next one's will. */
static int deliver_due(shmemu__pe *me, int64_t now, int64_t *next_p)
{
    struct shmemu__chk *k = me->chk;
    size_t due = SIZE_MAX;
    int64_t next = INT64_MAX;
    for (size_t j = 0; j < k->n; j++) {
        int64_t at = ready_at(me, j, now);
        if (at <= now && (due == SIZE_MAX || k->q[j].due_ns < k->q[due].due_ns))
            due = j;
        if (at < next)
            next = at;
    }
    if (next_p)
        *next_p = next;
    if (due == SIZE_MAX)
        return 0;
    size_t i = pick(me, due);
    int dst = target_of(&k->q[i]);
    deliver(me, i);
    /* A gap before the next one to the same PE: time for a reader there to
     * see this one alone. */
    int64_t gap = now + afford(k, (int64_t)(rnd(k) % 30000));
    if (k->next_ns[dst] < gap)
        k->next_ns[dst] = gap;
    return 1;
}

int shmemu__check_progress(shmemu__pe *me, shmemu__ready_fn ready, void *arg)
{
    struct shmemu__chk *k = me->chk;
    while (k->n) {
        if (ready(me, arg))
            return 1;
        int st = shmemu__aborted(me);
        if (st)
            return st;
        int64_t now = shmemu__now_ns(), next;
        if (!deliver_due(me, now, &next)) {
            int64_t left = next - now < 200000 ? next - now : 200000;
            for (int p = 0; p < me->npes; p++) /* a pause ends on an event */
                if (k->ahead[p].until && left > 20000)
                    left = 20000;
            if (me->job->yield_ns == 0 && left < 20000)
                shmemu__cpu_relax();
            else
                sleep_ns(left > 2000 ? left : 2000);
        }
    }
    return 0;
}

void shmemu__check_enter(shmemu__pe *me, const char *call, void *site)
{
    struct shmemu__chk *k = me->chk;
    k->call = call;
    k->site = site;
    atomic_store_explicit(&me->ctl_me->last_call, (uintptr_t)call, memory_order_relaxed);
    atomic_store_explicit(&me->ctl_me->last_site, (uintptr_t)site, memory_order_relaxed);
    if (!k->fuzz)
        return;
    /* Progress for a PE that polls (test, g) instead of waiting: what has
     * been held a while goes out.  Fresh operations stay held across calls,
     * so that a sync or a flag right after them finds them in flight. */
    if (k->n) {
        int64_t now = shmemu__now_ns();
        for (size_t j = 0; j < k->n; j++)
            if (now - k->q[j].issued_ns > 1000000 && now >= ready_at(me, j, now)) {
                deliver_due(me, now, NULL);
                break;
            }
    }
    /* Perturb the schedule: interleavings a lucky one hides show up. */
    uint64_t r = rnd(k) % 256;
    if (r < 16)
        sched_yield();
    else if (r < 18)
        sleep_ns(afford(k, 1000 + (int64_t)(rnd(k) % 50000)));
}

/* After an operation.  One that was just made visible to another PE is
 * often followed by a nap, so that PE acts before this one goes on (an
 * acknowledgement sent before the data it acknowledges was consumed shows
 * up this way); otherwise, now and then, a yield. */
static void perturb_exit(struct shmemu__chk *k, int delivered)
{
    if (delivered && one_in(k, 4))
        sleep_ns(afford(k, 1000 + (int64_t)(rnd(k) % 50000)));
    else if (one_in(k, 32))
        sched_yield();
}

static int64_t hold_ns(struct shmemu__chk *k, int64_t now)
{
    /* Mostly none (the order of delivery is fuzzed anyway), sometimes long
     * enough for a reader on another core, or asleep, to act first.  Long
     * holds are rationed (one per 2 ms of a PE's time), or a program of
     * many small steps would pay one at nearly every step. */
    uint64_t r = rnd(k) % 100;
    if (r >= 90 && now - k->last_long_ns >= 2000000) {
        k->last_long_ns = now;
        return 50000 + (int64_t)(rnd(k) % 250000);
    }
    return r < 60 ? 0 : (int64_t)(rnd(k) % 50000);
}

/* Hold h; or, sometimes, carry it out at once (as a NIC may), when no fence
 * orders something still held before it.  Returns 1 if carried out. */
static int enqueue(shmemu__pe *me, struct held *h)
{
    struct shmemu__chk *k = me->chk;
    while (k->n && (k->n >= HOLD_MAX_OPS || k->bytes > HOLD_MAX_BYTES))
        deliver(me, pick(me, SIZE_MAX));
    h->seq = ++k->seq;
    h->epoch = k->epoch;
    int64_t now = shmemu__now_ns();
    h->issued_ns = now;
    h->due_ns = now + afford(k, hold_ns(k, now));
    int fenced = 0;
    for (size_t j = 0; j < k->n && !fenced; j++)
        fenced = k->q[j].kind != H_GET && h->kind != H_GET && k->q[j].epoch < h->epoch &&
                 target_of(&k->q[j]) == target_of(h);
    if (!fenced && one_in(k, 8)) {
        if (record_overtake(me, h) && is_flag(h))
            pause_for(me, target_of(h), 0);
        perform(me, h);
        free(h->copy);
        free(h->rel);
        return 1;
    }
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 32;
        struct held *q = realloc(k->q, cap * sizeof(*q));
        if (!q) { /* cannot hold it: carry it out, in order */
            shmemu__check_quiet(me);
            perform(me, h);
            free(h->copy);
            free(h->rel);
            return 1;
        }
        k->q = q;
        k->cap = cap;
    }
    k->q[k->n++] = *h;
    if (h->kind == H_PUT)
        k->bytes += h->rma.nbytes;
    return 0;
}

/* Deliver what a fence ordered before an operation to pe. */
static void deliver_fenced(shmemu__pe *me, int pe)
{
    struct shmemu__chk *k = me->chk;
    for (;;) {
        size_t best = SIZE_MAX;
        for (size_t j = 0; j < k->n; j++)
            if (k->q[j].kind != H_GET && target_of(&k->q[j]) == pe &&
                k->q[j].epoch < k->epoch && deliverable(k, j))
                best = j;
        if (best == SIZE_MAX)
            return;
        deliver(me, best);
    }
}

/* ------------------------------------------------------ the interposition */

/* Stamp h for the race detector; one that can serve as a flag (a put with
 * signal, a put of at most 8 bytes, an AMO that writes) publishes this PE's
 * clock vector on the word it writes when it lands. */
static void stamp(shmemu__pe *me, struct held *h, int flag, size_t flag_off)
{
    struct shmemu__chk *k = me->chk;
    h->call = k->call;
    h->site = k->site;
    if (me->job->check_ctl_off)
        h->tact = atomic_load_explicit(h->kind == H_GET ? &tgt(me, h->rma.pe)->landed
                                                        : &tgt(me, target_of(h))->activity,
                                       memory_order_relaxed);
    if (!k->race)
        return;
    h->clock = shmemu__race_clock(k->race);
    if (flag) {
        h->rel = shmemu__race_release_begin(me, k->race);
        h->rel_off = flag_off;
    }
}

static int chk_rma(struct shmemu_tl_job *tl, const struct shmemu_tl_rma *d)
{
    (void)tl;
    shmemu__pe *me = shmemu__self;
    struct shmemu__chk *k = me->chk;
    bump_activity(me, 1);
    struct held h = {.kind = d->op == SHMEMU_TL_GET ? H_GET : H_PUT, .rma = *d};
    h.rma.nbi = 0;
    int flag = d->op == SHMEMU_TL_PUT && (d->sig_op != SHMEMU_TL_SIG_NONE || d->nbytes <= 8);
    stamp(me, &h, flag, d->sig_op != SHMEMU_TL_SIG_NONE ? d->sig_off : d->off);
    if (!k->fuzz || (d->op == SHMEMU_TL_GET && !d->nbi)) {
        /* At once: a blocking get completes on return, and without fuzzing
         * everything does. */
        perform(me, &h);
        free(h.rel);
        if (k->race && d->op == SHMEMU_TL_GET && d->nbytes <= 8) /* polling a flag */
            shmemu__race_acquire(me, k->race, d->pe, d->off, d->nbytes);
        return SHMEMU_OK;
    }
    if (d->op == SHMEMU_TL_PUT && !d->nbi && d->nbytes) {
        /* A blocking put returns with its source reusable: keep a copy.  A
         * nonblocking one reads its source when delivered, as a NIC would. */
        h.copy = malloc(d->nbytes);
        if (!h.copy) {
            perform(me, &h);
            free(h.rel);
            return SHMEMU_OK;
        }
        memcpy(h.copy, d->local, d->nbytes);
        h.rma.local = h.copy;
    }
    perturb_exit(k, enqueue(me, &h));
    return SHMEMU_OK;
}

static int chk_amo(struct shmemu_tl_job *tl, const struct shmemu_tl_amo *d)
{
    (void)tl;
    shmemu__pe *me = shmemu__self;
    struct shmemu__chk *k = me->chk;
    bump_activity(me, 1);
    struct held h = {.kind = H_AMO, .amo = *d};
    stamp(me, &h, d->op != SHMEMU_TL_AMO_FETCH, d->off);
    if (k->fuzz)
        deliver_fenced(me, d->pe);
    if (!k->fuzz || d->result) { /* a fetching AMO completes on return */
        perform(me, &h);
        free(h.rel);
        if (k->race && d->result)
            shmemu__race_acquire(me, k->race, d->pe, d->off, d->width);
        if (k->fuzz)
            perturb_exit(k, 1);
        return SHMEMU_OK;
    }
    perturb_exit(k, enqueue(me, &h));
    return SHMEMU_OK;
}

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
        k->race = shmemu__race_new(me, race_area(job));
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
    k->rng = job->check.seed * 0x9e3779b97f4a7c15ull + (uint64_t)me->pe * 0xd1b54a32d192ed03ull;
    k->budget = BUDGET_MAX_NS;
    k->budget_at = shmemu__now_ns();
    /* Short naps must be short: the default slack of 50 us would stretch
     * every one of them (this thread only). */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    k->rma = me->rma;
    k->amo = me->amo;
    me->rma = chk_rma;
    me->amo = chk_amo;
    me->cpu_amo = 0; /* every AMO through the checker */
    /* Waits end in sleeps far more often here, and a membarrier before
     * each costs more than a fence on every update: every PE of the job
     * (all of them checked) takes the fenced side. */
    me->notify_light = 0;
    me->chk = k;
    return 0;
}

void shmemu__check_pe_fini(shmemu__pe *me)
{
    struct shmemu__chk *k = me->chk;
    if (!k)
        return;
    while (k->n)
        remove_at(k, k->n - 1);
    free(k->q);
    free(k->next_ns);
    free(k->last_seq);
    free(k->last_call);
    free(k->last_site);
    free(k->ahead);
    shmemu__race_free(k->race);
    free(k);
    me->chk = NULL;
    me->rma = me->job->ops->rma;
    me->amo = me->job->ops->amo;
}

/* ----------------------------------------------------- waits and syncs */

void shmemu__check_woke(shmemu__pe *me, const char *call, size_t off, size_t nbytes)
{
    bump_activity(me, 0);
    if (me->chk->race)
        shmemu__race_acquire(me, me->chk->race, me->pe, off, nbytes);
    if (!me->job->check_ctl_off)
        return;
    struct chk_tgt *t = tgt(me, me->pe);
    struct chk_ot hit;
    int found = 0;
    lock(&t->lock);
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
    unlock(&t->lock);
    if (found)
        shmemu__check_note(me->job,
             "flag before data: PE %d woke in %s on bytes [%#llx, %#llx) written by PE %d's "
             "%s (at %s) while PE %d's earlier %s (at %s) of bytes [%#llx, %#llx) to PE %d "
             "was still in flight: nothing orders two operations to one PE without "
             "shmemu_fence() (or shmemu_quiet()) between them",
             me->pe, call, (unsigned long long)hit.x_lo, (unsigned long long)hit.x_hi,
             hit.src, hit.x_call, hit.x_site, hit.src, hit.y_call, hit.y_site,
             (unsigned long long)hit.y_lo, (unsigned long long)hit.y_hi, me->pe);
}

static int in_team(const struct shmemu__ctl_team *t, int p)
{
    int rel = p - t->start;
    if (!t->stride)
        return rel == 0;
    return rel % t->stride == 0 && rel / t->stride >= 0 && rel / t->stride < t->size;
}

void shmemu__check_sync_arrive(shmemu__pe *me, int slot, const char *call)
{
    struct shmemu__chk *k = me->chk;
    bump_activity(me, 1);
    if (!k->n || !me->job->check_ctl_off)
        return;
    const struct shmemu__ctl_team *t = shmemu__ctl_team(me->ctl, slot);
    size_t inflight = 0, first = SIZE_MAX;
    for (size_t j = 0; j < k->n; j++) {
        int p = target_of(&k->q[j]);
        if (k->q[j].kind == H_GET || p == me->pe || !in_team(t, p))
            continue;
        inflight++;
        if (first == SIZE_MAX || k->q[j].seq < k->q[first].seq)
            first = j;
        if (k->fuzz)
            pause_for(me, p, 1);
    }
    if (inflight)
        shmemu__check_note(me->job,
             "sync with puts in flight: PE %d entered %s (at %s) with %zu operation%s to "
             "other members still in flight (the first: %s at %s, to PE %d); a sync "
             "completes nothing, so a member that reads after it may see old data: "
             "shmemu_quiet() before the sync, or shmemu_barrier_all()",
             me->pe, call, site_name(k, k->site), inflight, inflight > 1 ? "s" : "",
             k->q[first].call ? k->q[first].call : "?", site_name(k, k->q[first].site),
             target_of(&k->q[first]));
}

void shmemu__check_synced(shmemu__pe *me)
{
    bump_activity(me, 0);
    if (!me->job->check_ctl_off)
        return;
    struct chk_tgt *t = tgt(me, me->pe);
    atomic_store_explicit(&t->exit_acts, atomic_load_explicit(&t->acts, memory_order_relaxed),
                          memory_order_release);
    atomic_fetch_add_explicit(&t->exits, 1, memory_order_release);
}

void shmemu__check_sync_enter(shmemu__pe *me, int slot, uint32_t gen)
{
    if (me->chk->race)
        shmemu__race_sync_arrive(me, me->chk->race, slot, gen);
}

void shmemu__check_sync_exit(shmemu__pe *me, int slot, uint32_t gen)
{
    if (me->chk->race)
        shmemu__race_sync_done(me, me->chk->race, slot, gen);
}
