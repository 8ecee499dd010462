/* fuzz.c - delivery fuzzing and schedule perturbation: when a held
 * operation goes, how long a PE naps, what quiet and a wait deliver. */
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
#include "hooks.h"
#include "internal.h"
#include "race.h"


uint64_t shmemu__chk_rnd(struct shmemu__chk *k)
{
    /* splitmix64: tiny state, good enough to pick delivery orders */
    uint64_t z = (k->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* True with probability 1/n. */
int shmemu__chk_one_in(struct shmemu__chk *k, unsigned n)
{
    return shmemu__chk_rnd(k) % n == 0;
}

/* Every delay the checker imposes (holds, gaps, naps) is paid from a
 * budget that refills at a quarter of the PE's running time, up to 3 ms:
 * a short test meets every kind of delay at once, and a long program is
 * slowed by a bounded factor rather than once per step. */
int64_t shmemu__chk_afford(struct shmemu__chk *k, int64_t want)
{
    /* PEs that take turns (sim): a delay is a scheduling point, not time
     * spent; nothing to ration. */
    if (shmemu__self && shmemu__self->coop)
        return want;
    int64_t now = shmemu__time();
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
void shmemu__chk_repay(struct shmemu__chk *k, int64_t spent, int64_t paid)
{
    if (spent <= paid)
        return;
    shmemu__chk_afford(k, 0); /* bring the budget up to now first */
    k->budget -= spent - paid;
}

static void sleep_ns(int64_t ns)
{
    if (ns > 0)
        shmemu__nap(ns);
}

/* Waiting on another PE's progress since `from`: with a core to itself
 * the PE spins a little (20 us); then, or sharing a core, it sleeps, so
 * that the PEs it waits for run (a storm of yields would cost more than
 * the work) and a long pause does not burn a core. */
void shmemu__chk_nap(shmemu__pe *me, int64_t from)
{
    if (me->job->yield_ns == 0 && !me->coop && shmemu__time() - from < 20000)
        shmemu__cpu_relax();
    else
        sleep_ns(20000);
}

/* "function+0x1c" (or "module+0x1c" when the symbol is not exported) for a
 * return address: reports name where a call was made. */
/* The same, cached per PE: the checker asks for the same few sites often. */
const char *shmemu__chk_site_name(struct shmemu__chk *k, void *addr)
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

const char *shmemu__chk_site_line(struct shmemu__chk *k, void *addr, char *buf, size_t len)
{
    /* (a site is one past its instruction, as a return address is) */
    char line[96];
    if (addr && shmemu__format_line((const char *)addr - 1, line, sizeof(line)))
        snprintf(buf, len, "%s, %s", shmemu__chk_site_name(k, addr), line);
    else
        snprintf(buf, len, "%s", shmemu__chk_site_name(k, addr));
    return buf;
}

void shmemu__chk_who_text(const struct shmemu__who *who, char *buf, size_t len)
{
    if (who && who->dev)
        snprintf(buf, len, " by block (%u,%u,%u) thread (%u,%u,%u)", who->block[0],
                 who->block[1], who->block[2], who->thread[0], who->thread[1], who->thread[2]);
    else if (len)
        buf[0] = '\0';
}

const char *shmemu__check_site(shmemu__pe *me, void *addr)
{
    return shmemu__chk_site_name(me->chk, addr);
}

struct chk_tgt *shmemu__chk_tgt(shmemu__pe *me, int pe)
{
    return &shmemu__chk_shared(me->job)->tgt[pe];
}

/* acted: an operation or a sync, not a wait that returned */
void shmemu__chk_bump_activity(shmemu__pe *me, int acted)
{
    if (!me->job->check_ctl_off)
        return;
    atomic_fetch_add_explicit(&shmemu__chk_tgt(me, me->pe)->activity, 1, memory_order_relaxed);
    if (acted)
        atomic_fetch_add_explicit(&shmemu__chk_tgt(me, me->pe)->acts, 1, memory_order_release);
}

/* --------------------------------------------------------------- delivery */

static int of_ctx(const struct held *h, int ctx)
{
    return ctx == SHMEMU__CTX_ALL || h->ctx == ctx;
}

void shmemu__chk_quiet(shmemu__pe *me, int ctx)
{
    struct shmemu__chk *k = me->chk;
    shmemu__chk_late_flush(me, ctx);
    /* Puts and AMOs first; gets complete last (any time before quiet
     * returns is theirs), after a pause that lets the others act. */
    int gets = 0;
    for (;;) {
        size_t i = SIZE_MAX;
        for (size_t tries = 0; tries < 4 && i == SIZE_MAX; tries++) {
            size_t c = k->n ? shmemu__chk_pick(me, SIZE_MAX) : SIZE_MAX;
            if (c != SIZE_MAX && k->q[c].kind != H_GET && of_ctx(&k->q[c], ctx))
                i = c;
        }
        for (size_t j = 0; j < k->n && i == SIZE_MAX; j++)
            if (k->q[j].kind != H_GET && of_ctx(&k->q[j], ctx) && shmemu__chk_deliverable(k, j))
                i = j;
        if (i == SIZE_MAX)
            break;
        /* Something newer to the same PE went first: a reader there may be
         * about to act on it; give it the time to, before this lands. */
        int dst = k->q[i].kind != H_GET ? shmemu__chk_target_of(&k->q[i]) : -1;
        for (int64_t from = shmemu__time(); dst >= 0 && shmemu__chk_paused(me, dst, shmemu__time());) {
            if (shmemu__aborted(me))
                break;
            shmemu__chk_nap(me, from);
        }
        shmemu__chk_deliver(me, i);
    }
    for (size_t j = 0; j < k->n; j++)
        gets += k->q[j].kind == H_GET && of_ctx(&k->q[j], ctx);
    if (gets && k->fuzz)
        sleep_ns(shmemu__chk_afford(k, 10000 + (int64_t)(shmemu__chk_rnd(k) % 40000)));
    /* What is left of ctx: its gets (and, should a pick have failed, any
     * put of it), newest first. */
    for (size_t j = k->n; j-- > 0;) {
        if (j >= k->n || !of_ctx(&k->q[j], ctx))
            continue;
        if (shmemu__chk_check_get_overtaken(me, &k->q[j]) && k->fuzz)
            shmemu__chk_await_landing(me, &k->q[j]);
        shmemu__chk_deliver(me, j);
    }
}

/* When the held operation j may go: its hold is over and the gap since
 * the last delivery to its destination too. */
static int64_t ready_at(shmemu__pe *me, size_t j, int64_t now)
{
    const struct shmemu__chk *k = me->chk;
    int dst = shmemu__chk_target_of(&k->q[j]);
    if (shmemu__chk_paused(me, dst, now))
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
    size_t i = shmemu__chk_pick(me, due);
    int dst = shmemu__chk_target_of(&k->q[i]);
    shmemu__chk_deliver(me, i);
    /* A gap before the next one to the same PE: time for a reader there to
     * see this one alone. */
    int64_t gap = now + shmemu__chk_afford(k, (int64_t)(shmemu__chk_rnd(k) % 30000));
    if (k->next_ns[dst] < gap)
        k->next_ns[dst] = gap;
    return 1;
}

static void check_enter_held(shmemu__pe *me, const char *call, void *site);

int shmemu__check_progress(shmemu__pe *me, int (*ready)(shmemu__pe *me, void *arg),
                           void *arg)
{
    struct shmemu__chk *k = me->chk;
    /* The state is held for each round, not across ready() or a nap: the
     * PE's other threads may be what the wait waits for. */
    for (;;) {
        if (ready(me, arg))
            return 1;
        int st = shmemu__aborted(me);
        if (st)
            return st;
        int64_t now = shmemu__time(), next, left = 0;
        shmemu__chk_enter(me);
        size_t held = k->n;
        int delivered = held && deliver_due(me, now, &next);
        if (held && !delivered) {
            left = next - now < 200000 ? next - now : 200000;
            for (int p = 0; p < me->npes; p++) /* a pause ends on an event */
                if (k->ahead[p].until && left > 20000)
                    left = 20000;
        }
        shmemu__chk_leave(me);
        if (!held)
            break;
        if (!delivered) {
            if (me->job->yield_ns == 0 && !me->coop && left < 20000)
                shmemu__cpu_relax();
            else
                sleep_ns(left > 2000 ? left : 2000);
        }
    }
    return 0;
}

void shmemu__check_enter(shmemu__pe *me, const char *call, void *site)
{
    call = shmemu__user_call(call);
    shmemu__chk_enter(me);
    check_enter_held(me, call, site);
    shmemu__chk_leave(me);
}

static void check_enter_held(shmemu__pe *me, const char *call, void *site)
{
    struct shmemu__chk *k = me->chk;
    k->call = call;
    k->site = site;
    shmemu__plane_last_call(me, call, site);
    if (!k->fuzz)
        return;
    /* Progress for a PE that polls (test, g) instead of waiting: what has
     * been held a while goes out.  Fresh operations stay held across calls,
     * so that a sync or a flag right after them finds them in flight. */
    if (k->n) {
        int64_t now = shmemu__time();
        for (size_t j = 0; j < k->n; j++)
            if (now - k->q[j].issued_ns > 1000000 && now >= ready_at(me, j, now)) {
                deliver_due(me, now, NULL);
                break;
            }
    }
    /* Perturb the schedule: interleavings a lucky one hides show up. */
    uint64_t r = shmemu__chk_rnd(k) % 256;
    if (r < 16)
        shmemu__relax();
    else if (r < 18)
        sleep_ns(shmemu__chk_afford(k, 1000 + (int64_t)(shmemu__chk_rnd(k) % 50000)));
}

/* After an operation.  One that was just made visible to another PE is
 * often followed by a nap, so that PE acts before this one goes on (an
 * acknowledgement sent before the data it acknowledges was consumed shows
 * up this way); otherwise, now and then, a yield. */
void shmemu__chk_perturb_exit(struct shmemu__chk *k, int delivered)
{
    if (delivered && shmemu__chk_one_in(k, 4))
        sleep_ns(shmemu__chk_afford(k, 1000 + (int64_t)(shmemu__chk_rnd(k) % 50000)));
    else if (shmemu__chk_one_in(k, 32))
        shmemu__relax();
}

static int64_t hold_ns(struct shmemu__chk *k, int64_t now)
{
    /* Mostly none (the order of delivery is fuzzed anyway), sometimes long
     * enough for a reader on another core, or asleep, to act first.  Long
     * holds are rationed (one per 2 ms of a PE's time), or a program of
     * many small steps would pay one at nearly every step. */
    uint64_t r = shmemu__chk_rnd(k) % 100;
    if (r >= 90 && now - k->last_long_ns >= 2000000) {
        k->last_long_ns = now;
        return 50000 + (int64_t)(shmemu__chk_rnd(k) % 250000);
    }
    return r < 60 ? 0 : (int64_t)(shmemu__chk_rnd(k) % 50000);
}

/* Hold h; or, sometimes, carry it out at once (as a NIC may), when no fence
 * orders something still held before it.  Returns 1 if carried out. */
int shmemu__chk_enqueue(shmemu__pe *me, struct held *h)
{
    struct shmemu__chk *k = me->chk;
    while (k->n && (k->n >= HOLD_MAX_OPS || k->bytes > HOLD_MAX_BYTES))
        shmemu__chk_deliver(me, shmemu__chk_pick(me, SIZE_MAX));
    h->seq = ++k->seq;
    h->epoch = shmemu__chk_fence_epoch(k, h->ctx);
    int64_t now = shmemu__time();
    h->issued_ns = now;
    h->due_ns = now + shmemu__chk_afford(k, hold_ns(k, now));
    int fenced = 0;
    for (size_t j = 0; j < k->n && !fenced; j++)
        fenced = shmemu__chk_orders(&k->q[j], h);
    if (!fenced && shmemu__chk_one_in(k, 8)) {
        int relaxed_flag = shmemu__chk_relaxed_flag(me, h);
        if (shmemu__chk_record_overtake(me, h) &&
            (shmemu__chk_relaxed(h) ? relaxed_flag >= 0 : shmemu__chk_is_flag(h)))
            shmemu__chk_pause_for(me, shmemu__chk_target_of(h), 0);
        shmemu__chk_perform(me, h);
        free(h->copy);
        free(h->rel);
        return 1;
    }
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 32;
        struct held *q = realloc(k->q, cap * sizeof(*q));
        if (!q) { /* cannot hold it: carry it out, in order */
            shmemu__chk_quiet(me, SHMEMU__CTX_ALL);
            shmemu__chk_perform(me, h);
            free(h->copy);
            free(h->rel);
            return 1;
        }
        k->q = q;
        k->cap = cap;
    }
    if (h->view)
        shmemu__chk_view_held(me, h);
    k->q[k->n++] = *h;
    if (h->kind == H_PUT)
        k->bytes += h->rma.nbytes;
    return 0;
}

/* Fences are per context: an epoch counts them all, and each context
 * remembers the stamp of its own last one, so that held operations compare
 * stamps only within a context (a fence on one orders no other). */
void shmemu__chk_fence(struct shmemu__chk *k, int ctx)
{
    uint64_t stamp = ++k->epoch;
    if (ctx < 0) {
        k->fence_floor = stamp;
        return;
    }
    if ((size_t)ctx >= k->nfence_at) {
        size_t n = (size_t)ctx + 8;
        uint64_t *a = realloc(k->fence_at, n * sizeof(*a));
        if (!a) {
            k->fence_floor = stamp;
            return;
        }
        memset(a + k->nfence_at, 0, (n - k->nfence_at) * sizeof(*a));
        k->fence_at = a;
        k->nfence_at = n;
    }
    k->fence_at[ctx] = stamp;
}

uint64_t shmemu__chk_fence_epoch(const struct shmemu__chk *k, int ctx)
{
    uint64_t e = ctx >= 0 && (size_t)ctx < k->nfence_at ? k->fence_at[ctx] : 0;
    return e > k->fence_floor ? e : k->fence_floor;
}

/* Deliver what a fence ordered before an operation to pe. */
void shmemu__chk_deliver_fenced(shmemu__pe *me, int pe)
{
    struct shmemu__chk *k = me->chk;
    for (;;) {
        size_t best = SIZE_MAX;
        for (size_t j = 0; j < k->n; j++)
            if (k->q[j].kind != H_GET && shmemu__chk_target_of(&k->q[j]) == pe &&
                k->q[j].epoch < shmemu__chk_fence_epoch(k, shmemu__ctx_id) &&
                k->q[j].ctx == shmemu__ctx_id &&
                shmemu__chk_deliverable(k, j))
                best = j;
        if (best == SIZE_MAX)
            return;
        shmemu__chk_deliver(me, best);
    }
}

/* ------------------------------------------------------ the interposition */

/* Stamp h for the race detector; one that can serve as a flag (a put with
 * signal, a put of at most 8 bytes, an AMO that writes) publishes this PE's
 * clock vector on the word it writes when it lands. */
void shmemu__chk_stamp(shmemu__pe *me, struct held *h, int flag, size_t flag_off)
{
    struct shmemu__chk *k = me->chk;
    h->call = k->call;
    h->site = k->site;
    const struct shmemu__who *who = shmemu__chk_who(k);
    h->who = who ? *who : (struct shmemu__who){0};
    if (me->job->check_ctl_off)
        h->tact = atomic_load_explicit(h->kind == H_GET ? &shmemu__chk_tgt(me, h->rma.pe)->landed
                                                        : &shmemu__chk_tgt(me, shmemu__chk_target_of(h))->activity,
                                       memory_order_relaxed);
    if (!k->race)
        return;
    h->clock = shmemu__race_clock(k->race);
    /* A kernel's store of data through a peer pointer: the GPU's scopes
     * (race.c) */
    if (k->view_store && !flag && shmemu__race_dev_data(me, k->race, h->rma.nbytes, &h->clock)) {
        h->dev_data = 1;
    } else if (flag) {
        h->rel = shmemu__race_release_begin(me, k->race);
        h->rel_off = flag_off;
    }
}

