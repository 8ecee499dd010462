/* livelock.c - livelock detection: the slow path of shmemu__polled (livelock.h). */
#include "livelock.h"

#include "describe.h"
#include "plane_ops.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* CPU time a PE may spend per poll, on average, and still count as only
 * polling: a spin loop around shmemu_test costs well under a microsecond
 * per turn; a loop that does real work between polls is making progress
 * we cannot see. */
#define WORK_PER_POLL_NS 20000
/* How often a polling PE publishes what it polls. */
#define PUBLISH_NS 5000000
/* Polled words unchanged this long: each sampled poll gives the CPU away
 * (sched_yield), so that with more PEs than cores the PE that will change
 * them gets to run before this one's time slice ends.  A poll that ends
 * sooner never pays it. */
#define YIELD_AFTER_NS 50000
/* How long a check waits for every polling PE to show it still polls. */
#define CONFIRM_NS 300000000

int64_t shmemu__thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void publish(shmemu__pe *me, const char *call, void *site, int pe, size_t off,
                    size_t nbytes, uint64_t value, int64_t now)
{
    struct shmemu__ctl_pe *cp = me->ctl_me;
    uint64_t words[SHMEMU__CALL_LEN / 8] = {0};
    shmemu__strlcpy((char *)words, shmemu__user_call(call), sizeof(words));
    for (size_t i = 0; i < SHMEMU__CALL_LEN / 8; i++)
        atomic_store_explicit(&cp->poll.call[i], words[i], memory_order_relaxed);
    atomic_store_explicit(&cp->poll.pe, pe, memory_order_relaxed);
    atomic_store_explicit(&cp->poll.off, off, memory_order_relaxed);
    atomic_store_explicit(&cp->poll.nbytes, nbytes, memory_order_relaxed);
    atomic_store_explicit(&cp->poll.value, value, memory_order_relaxed);
    if (atomic_load_explicit(&cp->poll.site, memory_order_relaxed) != (uintptr_t)site) {
        uint64_t at[SHMEMU__SITE_LEN / 8] = {0};
        if (site)
            shmemu__strlcpy((char *)at, shmemu__site_name(site), sizeof(at));
        for (size_t i = 0; i < SHMEMU__SITE_LEN / 8; i++)
            atomic_store_explicit(&cp->poll.where[i], at[i], memory_order_relaxed);
        atomic_store_explicit(&cp->poll.site, (uintptr_t)site, memory_order_relaxed);
    }
    atomic_store_explicit(&cp->poll_since, me->poll.since_ns, memory_order_relaxed);
    atomic_store_explicit(&cp->poll_beat, now, memory_order_release);
}

/* Whether PE p polls unchanged words since long enough (its beat then),
 * or sleeps in the library (its wait state then). */
enum { P_NO, P_POLLS, P_SLEEPS, P_GONE };

static int classify(shmemu__pe *me, int p, uint64_t *snap)
{
    int net = shmemu__net(me->job);
    /* Over a network, p's block lives in its own process: read now. */
    struct shmemu__ctl_pe *cp = me->job->plane->block(me, p);
    if (!cp)
        return P_NO;
    uint32_t life = atomic_load(&cp->life);
    if (shmemu__life_gone(life))
        return P_GONE;
    if (life != SHMEMU__LIFE_RUNNING)
        return P_NO;
    uint64_t w = atomic_load(&cp->wstate);
    uint32_t s = shmemu__ws_state(w);
    if (s == SHMEMU__WS_DATA_CONF) {
        *snap = w;
        return P_SLEEPS;
    }
    if (s == SHMEMU__WS_SYNC_CONF) {
        struct shmemu__ctl_team *t = shmemu__ctl_team(me->ctl, atomic_load(&cp->sync_team));
        if (net ? shmemu__net_sync_released(me, p, cp)
                : (uint32_t)atomic_load(&t->sleep) != atomic_load(&cp->sync_gen))
            return P_NO; /* released, not yet running */
        *snap = w;
        return P_SLEEPS;
    }
    if (s != SHMEMU__WS_RUNNING)
        return P_NO;
    /* Polled unchanged words long enough, in its own clock: its last beat
     * against since (a PE that stopped polling does not beat again, below). */
    int64_t since = atomic_load_explicit(&cp->poll_since, memory_order_acquire);
    int64_t beat = atomic_load_explicit(&cp->poll_beat, memory_order_acquire);
    if (!since || beat - since < me->poll.limit_ns)
        return P_NO;
    *snap = (uint64_t)beat;
    return P_POLLS;
}

/* Every live PE polls unchanged words or sleeps: confirm that it stays so
 * while each poller polls on (its beat moves).  1 if it does. */
static int all_stuck(shmemu__pe *me, const char *call, void *site, int pe, size_t off,
                     size_t nbytes, uint64_t value)
{
    int n = me->npes, stuck = 0;
    int64_t now = shmemu__time();
    uint64_t *snap = calloc((size_t)n, sizeof(*snap));
    int *kind = calloc((size_t)n, sizeof(*kind)), *moved = calloc((size_t)n, sizeof(int));
    if (!snap || !kind || !moved)
        goto out;
    int pollers = 0;
    for (int p = 0; p < n; p++) {
        if (p == me->pe) {
            kind[p] = P_GONE; /* we know what we do */
            continue;
        }
        if ((kind[p] = classify(me, p, &snap[p])) == P_NO)
            goto out;
        pollers += kind[p] == P_POLLS;
    }
    int64_t until = now + CONFIRM_NS;
    for (int waiting = pollers;;) {
        shmemu__nap(10000000);
        now = shmemu__time();
        publish(me, call, site, pe, off, nbytes, value, now); /* we poll on, too */
        for (int p = 0; p < n; p++) {
            uint64_t again = 0;
            if (kind[p] == P_GONE)
                continue;
            int k = classify(me, p, &again);
            if (k != kind[p] || (k == P_SLEEPS && again != snap[p]))
                goto out; /* it moved on */
            if (k == P_POLLS && !moved[p] && again != snap[p]) {
                moved[p] = 1;
                waiting--;
            }
        }
        if (!waiting)
            break;
        if (now > until)
            goto out; /* a poller did not poll again: cannot tell */
    }
    stuck = !shmemu__aborted(me);
out:
    free(snap);
    free(kind);
    free(moved);
    return stuck;
}

/* End the job: every PE polls unchanged words or sleeps. */
static void declare_livelock(shmemu__pe *me)
{
    int n = me->npes;
    int64_t now = shmemu__time();
    size_t len = 512 + (size_t)n * 320, used = 0;
    char *buf = malloc(len);
    if (buf) {
        used += (size_t)snprintf(buf, len,
                                 "shmemu: livelock: for %.1f s every PE has polled words that "
                                 "did not change or slept in the library; nothing can change "
                                 "them (SHMEMU_LIVELOCK=%g s):\n",
                                 (double)(now - me->poll.since_ns) / 1e9,
                                 (double)me->poll.limit_ns / 1e9);
        for (int p = 0; p < n && used < len; p++) {
            char line[288];
            shmemu__describe_pe(me->job, p, line, sizeof(line));
            int w = snprintf(buf + used, len - used, "shmemu:   PE %d/%d %s\n", p, n, line);
            if (w > 0)
                used += (size_t)w;
        }
    }
    shmemu__abort_job(me->job, SHMEMU_EDEADLOCK, -1, SHMEMU_EDEADLOCK,
                      "livelock: every PE polls words that do not change, or sleeps", buf);
    free(buf);
}

/* Polls between samples: about 60, never the same period twice in a row,
 * so that a loop over a few words has every one of them sampled. */
static uint32_t next_period(struct shmemu__poll_state *s)
{
    static const uint8_t periods[] = {53, 59, 61, 67, 71, 73, 64, 47};
    return periods[s->turn++ % sizeof(periods)];
}

void shmemu__poll_init(shmemu__pe *me, int64_t limit_ns)
{
    me->poll.limit_ns = limit_ns;
    /* Sampled with detection off too: a poll of unchanged words yields. */
    me->poll_countdown = next_period(&me->poll);
}

void shmemu__poll_slow(shmemu__pe *me, const char *call, void *site, int pe, size_t off,
                       size_t nbytes, uint64_t value)
{
    struct shmemu__poll_state *s = &me->poll;
    uint64_t key = (uint64_t)off << 24 ^ (uint64_t)(uint32_t)pe ^ (uint64_t)nbytes << 56;
    if (shmemu__mt(me)) {
        /* No livelock detection: a poll's value may be another thread's to
         * change.  Give way all the same, per thread, once the word it
         * polls has not changed for a while: threads polling in a loop on
         * few cores otherwise spin out their time slices while the thread
         * or PE that will change the word waits for a core. */
        static _Thread_local struct {
            uint64_t key, val;
            int64_t since_ns;
        } mine;
        __atomic_store_n(&me->poll_countdown, 64, __ATOMIC_RELAXED);
        int64_t now = shmemu__time();
        if (key != mine.key || value != mine.val || !mine.since_ns) {
            mine.key = key;
            mine.val = value;
            mine.since_ns = now;
        } else if (!me->coop && now - mine.since_ns >= YIELD_AFTER_NS) {
            sched_yield();
        }
        return;
    }
    uint32_t period = me->poll_countdown == 0 ? next_period(s) : UINT32_MAX;
    uint32_t polls = s->polls_last ? s->polls_last : 1;
    s->polls_last = period;
    me->poll_countdown = period;
    int64_t now = shmemu__time();
    int moved = me->poll_activity != s->activity_seen;
    s->activity_seen = me->poll_activity;
    unsigned i = 0;
    while (i < s->nseen && s->seen[i].key != key)
        i++;
    if (i < s->nseen) {
        moved |= s->seen[i].val != value;
    } else if (s->nseen < sizeof(s->seen) / sizeof(s->seen[0])) {
        s->nseen++;
    } else { /* more words than we remember: cannot tell */
        i = s->next++ % s->nseen;
        moved = 1;
    }
    s->seen[i].key = key;
    s->seen[i].val = value;
    s->polls += polls;
    if (moved || !s->since_ns) {
        s->since_ns = now;
        s->stuck_ns = 0;
        s->nseen = 1;
        s->seen[0].key = key;
        s->seen[0].val = value;
    }
    if (!moved && !me->coop && now - s->since_ns >= YIELD_AFTER_NS)
        sched_yield();
    if (!s->limit_ns || (!moved && now - s->published_ns < PUBLISH_NS))
        return;
    /* Work between polls is progress we cannot see. */
    /* (coop: one thread runs every PE, its CPU time says nothing.) */
    int64_t cpu = me->coop ? 0
                           : shmemu__thread_cpu_ns() -
                                 __atomic_load_n(&me->poll_tl_cpu_ns, __ATOMIC_RELAXED);
    if (s->cpu_ns && s->polls && cpu - s->cpu_ns > (int64_t)s->polls * WORK_PER_POLL_NS)
        s->since_ns = now;
    s->cpu_ns = cpu;
    s->polls = 0;
    s->published_ns = now;
    publish(me, call, site, pe, off, nbytes, value, now);
    /* The value this PE polled may be older than what a check then sees of
     * the others: a peer that set the word and went to sleep in a barrier
     * looks stuck beside a value read before the set.  So a check that
     * finds every PE stuck is confirmed by the next one, after this PE
     * polled again (on a sample after it) and found its words unchanged. */
    if (now - s->since_ns >= s->limit_ns &&
        (s->stuck_ns || now - s->checked_ns >= s->limit_ns / 2)) {
        s->checked_ns = now;
        if (!all_stuck(me, call, site, pe, off, nbytes, value))
            s->stuck_ns = 0;
        else if (s->stuck_ns)
            declare_livelock(me);
        else
            s->stuck_ns = shmemu__time();
    }
}
