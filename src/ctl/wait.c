/* wait.c - blocking, waking, team sync and deadlock detection (see wait.h). */
#include "wait.h"

#include <limits.h>

#include "deadlock.h"
#include "livelock.h"
#include "plane_ops.h"
#include "runtime/dispatch.h"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct shmemu__ctl_pe *ctl_pe(shmemu__pe *me, int pe)
{
    return shmemu__ctl_pe(me->ctl, pe);
}

/* PEs that take turns in one thread (me->coop: the sim transport) never
 * touch the control words at once: their read-modify-writes need no lock
 * prefix and their stores no fence (a 2-PE sim barrier: 0.121 -> 0.104
 * us).  Another thread writes these words only to end the job (the
 * timeout's watchdog bumps generations to wake sleepers), and the
 * scheduler then wakes every sleeper to see the abort; a count lost to
 * that race no longer matters. */
static uint32_t add32(const shmemu__pe *me, _Atomic uint32_t *w, uint32_t v)
{
    if (!me->coop)
        return atomic_fetch_add(w, v);
    uint32_t old = atomic_load_explicit(w, memory_order_relaxed);
    atomic_store_explicit(w, old + v, memory_order_relaxed);
    return old;
}

static uint64_t add64(const shmemu__pe *me, _Atomic uint64_t *w, uint64_t v)
{
    if (!me->coop)
        return atomic_fetch_add_explicit(w, v, memory_order_acq_rel);
    uint64_t old = atomic_load_explicit(w, memory_order_relaxed);
    atomic_store_explicit(w, old + v, memory_order_relaxed);
    return old;
}

static uint64_t xchg64(const shmemu__pe *me, _Atomic uint64_t *w, uint64_t v)
{
    if (!me->coop)
        return atomic_exchange_explicit(w, v, memory_order_acq_rel);
    uint64_t old = atomic_load_explicit(w, memory_order_relaxed);
    atomic_store_explicit(w, v, memory_order_relaxed);
    return old;
}

#define STORE(me, w, v)                                                              \
    ((me)->coop ? atomic_store_explicit((w), (v), memory_order_relaxed)               \
                : atomic_store((w), (v)))

static uint32_t nlive(const struct shmemu__ctl *c)
{
    return (uint32_t)c->npes - atomic_load(&c->ndeparted);
}

static void wait_word(struct shmemu__job *job, _Atomic uint32_t *w, uint32_t v)
{
    shmemu__tl_ctl_wait(job, (void *)w, v, -1);
}

/* ------------------------------------------------------------ value waits */

void shmemu__notify_delivered_slow(shmemu__pe *me)
{
    __atomic_store_n(&me->nbi_any, 0, __ATOMIC_RELAXED);
    for (int w = 0; w < (me->npes + 63) / 64; w++) {
        uint64_t bits = __atomic_exchange_n(&me->nbi_dirty[w], 0, __ATOMIC_RELAXED);
        while (bits) {
            int b = __builtin_ctzll(bits);
            bits &= bits - 1;
            shmemu__notify(me, w * 64 + b);
        }
    }
}

void shmemu__notify_slow(struct shmemu__job *job, int pe)
{
    struct shmemu__ctl *c = job->tl.ctl;
    struct shmemu__ctl_pe *cp = shmemu__ctl_pe(c, pe);
    if (atomic_load(&cp->mt_sleepers)) {
        atomic_fetch_add(&cp->wake_seq, 1);
        shmemu__tl_ctl_wake(job, (void *)&cp->wake_seq, INT_MAX);
    }
    uint64_t w = atomic_load(&cp->wstate);
    for (;;) {
        uint32_t s = shmemu__ws_state(w);
        if (s != SHMEMU__WS_DATA_REG && s != SHMEMU__WS_DATA_CONF)
            return;
        uint64_t run = (w & ~(uint64_t)UINT32_MAX) | SHMEMU__WS_RUNNING;
        if (atomic_compare_exchange_weak(&cp->wstate, &w, run)) {
            if (s == SHMEMU__WS_DATA_CONF) {
                atomic_fetch_sub(&c->nconfirmed, 1);
                atomic_fetch_add(&cp->wake_seq, 1);
                shmemu__tl_ctl_wake(job, (void *)&cp->wake_seq, 1);
            }
            return;
        }
    }
}

/* Leave a confirmed sleep on our own (abort): undo our count if no updater
 * did. */
static void leave_conf(shmemu__pe *me, uint32_t tok, uint32_t state)
{
    uint64_t w = shmemu__ws_pack(tok, state);
    if (atomic_compare_exchange_strong(&me->ctl_me->wstate, &w,
                                       shmemu__ws_pack(tok, SHMEMU__WS_RUNNING)))
        atomic_fetch_sub(&me->ctl->nconfirmed, 1);
}

/* Make our registration visible before we re-check the value, and any
 * update an updater made before it looked at our state visible to us. */
static void store_load_barrier(shmemu__pe *me)
{
    if (!me->notify_light || shmemu__membarrier(me->job->notify_global) != 0)
        shmemu__full_fence();
}

/* Spin, then yield, while !ready.  1 when ready, 0 when it is time to sleep,
 * or a negative status when the job was aborted. */
static int spin_phase(shmemu__pe *me, shmemu__ready_fn ready, void *arg)
{
    struct shmemu__job *job = me->job;
    if (job->spin_ns > 0) {
        int64_t deadline = shmemu__now_ns() + job->spin_ns;
        for (unsigned i = 1;; i++) {
            shmemu__cpu_relax();
            /* While traffic flows, this PE moving it is work, not a burnt
             * core: the spin lasts until spin_ns pass with nothing moved. */
            if (shmemu__drive(me))
                deadline = shmemu__now_ns() + job->spin_ns;
            if (ready(me, arg))
                return 1;
            if ((i & 63) == 0) {
                int st = shmemu__aborted(me);
                if (st)
                    return st;
                if (shmemu__now_ns() > deadline)
                    break;
            }
        }
    }
    if (job->yield_ns > 0) {
        int64_t deadline = shmemu__now_ns() + job->yield_ns;
        do {
            sched_yield();
            if (ready(me, arg))
                return 1;
        } while (shmemu__now_ns() < deadline);
    }
    return 0;
}

/* Before a PE counts itself asleep, what it left outstanding (nbi or lazy
 * puts a transport holds) must have reached its targets and woken them:
 * else the count could call a put still on the wire a deadlock. */
static void settle(shmemu__pe *me)
{
    if (me->nbi_dirty) {
        (void)shmemu__tl_complete(me, 1); /* a failure shows at the next quiet */
        shmemu__notify_delivered(me);
    }
}

/* How a thread of a PE that several threads drive waits once spinning is
 * over: asleep on word (a futex word that moves when what it waits for
 * may have come) while it still holds expected, announced in *sleepers so
 * that whoever moves the word wakes it, a little longer each time (1 us
 * doubling to 256 us: a change nobody announces -- a sibling thread's plain
 * store -- is still seen that soon).  Such a PE never sleeps counted in
 * deadlock detection: that one of its threads sleeps says nothing of what
 * the others will do.  ready is looked at after the announcement, so that
 * a waker either sees it or is seen. */
static int mt_sleep(shmemu__pe *me, _Atomic uint32_t *sleepers, void *word, uint32_t expected,
                    int64_t *ns, shmemu__ready_fn ready, void *arg)
{
    atomic_fetch_add(sleepers, 1);
    store_load_barrier(me);
    int done = ready(me, arg);
    if (!done)
        shmemu__tl_ctl_wait(me->job, word, expected, *ns);
    atomic_fetch_sub(sleepers, 1);
    if (*ns < 256000)
        *ns *= 2;
    return done;
}

int shmemu__wait_ready(shmemu__pe *me, const struct shmemu__wait_desc *d,
                       shmemu__ready_fn ready, void *arg)
{
    shmemu__drive(me); /* what we issued must move before we sleep */
    if (ready(me, arg))
        return SHMEMU_OK;
    int st;
    if (SHMEMU__CHECKED(me) && (st = me->chk_waits->progress(me, ready, arg)))
        return st > 0 ? SHMEMU_OK : st;
    st = spin_phase(me, ready, arg);
    if (st)
        return st > 0 ? SHMEMU_OK : st;
    /* The shared plane called directly (the common case, inlined): a
     * 4,096-PE sim barrier is thousands of these per step. */
    const struct shmemu__plane_ops *plane = me->job->plane;
    if (SHMEMU__LIKELY(plane == &shmemu__shared_plane))
        return shmemu__shared_wait(me, d, ready, arg);
    return plane->wait(me, d, ready, arg);
}

void shmemu__direct_stores(shmemu__pe *me)
{
    struct shmemu__ctl *c = me->ctl;
    if (me->job->plane != &shmemu__shared_plane ||
        atomic_load_explicit(&c->direct_stores, memory_order_relaxed) ||
        atomic_exchange(&c->direct_stores, 1) || me->coop)
        return;
    /* those asleep already sleep until told: told now, they sleep again
     * looking now and then */
    for (int p = 0; p < me->npes; p++)
        shmemu__notify_slow(me->job, p);
}

/* Words change where nobody tells a sleeping waiter: device heaps, or
 * stores through pointers to peers' heaps.  PEs that take turns (sim)
 * stay asleep until told, and deadlock detection looks at their words
 * for them (a PE that spins on a plain load never gives up its turn:
 * there is nothing to gain from looking sooner). */
static int untold_writes(shmemu__pe *me)
{
    return shmemu__tl_device_writes(me->job) ||
           (!me->coop && atomic_load_explicit(&me->ctl->direct_stores, memory_order_relaxed));
}

int shmemu__shared_wait(shmemu__pe *me, const struct shmemu__wait_desc *d,
                        shmemu__ready_fn ready, void *arg)
{
    int st;
    if (shmemu__mt(me)) {
        struct shmemu__ctl_pe *mine = me->ctl_me;
        for (int64_t ns = 1000;;) {
            uint32_t seq = atomic_load_explicit(&mine->wake_seq, memory_order_acquire);
            shmemu__drive(me);
            if (ready(me, arg))
                return SHMEMU_OK;
            /* The PE's other threads may have issued since: the checker
             * holds their operations until a thread of this PE delivers
             * them, and those threads may now be blocked outside the
             * library (a pthread barrier) waiting for this one. */
            if (SHMEMU__CHECKED(me) && (st = me->chk_waits->progress(me, ready, arg)))
                return st > 0 ? SHMEMU_OK : st;
            if ((st = shmemu__aborted(me)))
                return st;
            if (mt_sleep(me, &mine->mt_sleepers, (void *)&mine->wake_seq, seq, &ns, ready, arg))
                return SHMEMU_OK;
        }
    }

    struct shmemu__ctl_pe *mine = me->ctl_me;
    atomic_store_explicit(&mine->woke_on, 0, memory_order_relaxed); /* deadlock.c: this wait's */
    for (;;) {
        if ((st = shmemu__aborted(me)))
            return st;
        settle(me);
        uint32_t seq = atomic_load_explicit(&mine->wake_seq, memory_order_acquire);
        uint32_t tok = ++me->wtoken;
        shmemu__wait_desc_copy(&mine->wait, d);
        atomic_store(&mine->wstate, shmemu__ws_pack(tok, SHMEMU__WS_DATA_REG));
        store_load_barrier(me); /* pairs with shmemu__notify */
        uint64_t w = shmemu__ws_pack(tok, SHMEMU__WS_DATA_REG);
        if (ready(me, arg)) {
            atomic_compare_exchange_strong(&mine->wstate, &w,
                                           shmemu__ws_pack(tok, SHMEMU__WS_RUNNING));
            return SHMEMU_OK;
        }
        if (!atomic_compare_exchange_strong(&mine->wstate, &w,
                                            shmemu__ws_pack(tok, SHMEMU__WS_DATA_CONF)))
            continue; /* an update came in meanwhile: look again */
        const uint64_t conf = shmemu__ws_pack(tok, SHMEMU__WS_DATA_CONF);
        if (atomic_fetch_add(&me->ctl->nconfirmed, 1) + 1 >= nlive(me->ctl) &&
            (st = shmemu__check_stuck(me))) {
            leave_conf(me, tok, SHMEMU__WS_DATA_CONF);
            return st;
        }
        int polls = untold_writes(me);
        /* Device heaps: the notify comes when a put is issued, the data when
         * the GPU moves it (microseconds later), or a kernel stores it with
         * nobody told (as a store through shmemu_ptr does anywhere): look
         * again soon, then less often. */
        int64_t nap = SHMEMU__DEVICE_POLL_MIN_NS;
        while (atomic_load(&mine->wstate) == conf) {
            if (polls) {
                shmemu__tl_ctl_wait(me->job, (void *)&mine->wake_seq, seq, nap);
                if (ready(me, arg)) {
                    leave_conf(me, tok, SHMEMU__WS_DATA_CONF);
                    return SHMEMU_OK;
                }
                atomic_fetch_add(&mine->looks, 1); /* device_waiters_looked */
                nap = nap >= SHMEMU__DEVICE_POLL_NS / 2 ? SHMEMU__DEVICE_POLL_NS : 2 * nap;
            } else {
                wait_word(me->job, &mine->wake_seq, seq);
            }
            if ((st = shmemu__aborted(me))) {
                leave_conf(me, tok, SHMEMU__WS_DATA_CONF);
                return st;
            }
            uint32_t now = atomic_load_explicit(&mine->wake_seq, memory_order_acquire);
            if (now != seq) /* notified: what it announced may still be on its way */
                nap = SHMEMU__DEVICE_POLL_MIN_NS;
            seq = now;
        }
        if (ready(me, arg))
            return SHMEMU_OK;
    }
}

/* -------------------------------------------------------------- team sync */

/* A member of the team left: the sync can never complete. */
int shmemu__departed_member(shmemu__pe *me, int start, int stride, int size)
{
    uint32_t nd = atomic_load(&me->ctl->ndeparted);
    if (nd == me->seen_departed)
        return -1;
    for (int i = 0; i < size; i++) {
        int p = start + i * stride;
        if (shmemu__life_gone(atomic_load(&ctl_pe(me, p)->life)))
            return p;
    }
    me->seen_departed = nd; /* departures elsewhere: remember, skip next time */
    return -1;
}

/* Why a sync waiter cannot go on (abort, departed member), or SHMEMU_OK.
 * gen: the generation waited out; it is checked again after a departure is
 * seen, since a member departs only after the sync it took part in ended. */
static int sync_blocked(shmemu__pe *me, struct shmemu__ctl_team *t, uint32_t gen,
                        const char *call, int slot)
{
    int st = shmemu__aborted(me);
    if (st)
        return shmemu__fail(me, st, call, "job aborted while waiting");
    int p = shmemu__departed_member(me, t->start, t->stride, t->size);
    if (p < 0 || (uint32_t)atomic_load(&t->sleep) != gen)
        return SHMEMU_OK;
    return shmemu__fail(me, SHMEMU_EABORTED, call,
                        "PE %d left the job while this PE waits for it (team "
                        "slot %d)",
                        p, slot);
}

/* Spin until the generation moves; 1 when it did, 0 to sleep, <0 on abort. */
static int sync_spin(shmemu__pe *me, struct shmemu__ctl_team *t, uint32_t gen)
{
    struct shmemu__job *job = me->job;
    if (job->spin_ns > 0) {
        int64_t deadline = shmemu__now_ns() + job->spin_ns;
        for (unsigned i = 1;; i++) {
            shmemu__cpu_relax();
            /* A transport that needs progress gets it from the waiter: what
             * arrives meanwhile (puts to this PE) is received here, not by
             * a thread woken for it, for as long as it keeps arriving. */
            if (shmemu__drive(me))
                deadline = shmemu__now_ns() + job->spin_ns;
            if ((uint32_t)atomic_load_explicit(&t->sleep, memory_order_acquire) != gen)
                return 1;
            if ((i & 63) == 0 && shmemu__now_ns() > deadline)
                break;
        }
    }
    if (job->yield_ns > 0) {
        int64_t deadline = shmemu__now_ns() + job->yield_ns;
        do {
            sched_yield();
            if ((uint32_t)atomic_load_explicit(&t->sleep, memory_order_acquire) != gen)
                return 1;
        } while (shmemu__now_ns() < deadline);
    }
    return 0;
}

int shmemu__gen_moved(shmemu__pe *me, void *arg)
{
    (void)me;
    const struct shmemu__gen_moved *g = arg;
    return (uint32_t)atomic_load_explicit(&g->t->sleep, memory_order_acquire) != g->gen;
}

static int sync_wait(shmemu__pe *me, struct shmemu__ctl_team *t, int slot,
                     uint32_t gen, const char *call)
{
    int st;
    if (SHMEMU__CHECKED(me)) { /* deliver what the checker holds while the others arrive */
        struct shmemu__gen_moved g = {t, gen};
        if ((st = me->chk_waits->progress(me, shmemu__gen_moved, &g)) < 0)
            return sync_blocked(me, t, gen, call, slot);
        if (st > 0)
            return shmemu__aborted(me) ? sync_blocked(me, t, gen, call, slot) : SHMEMU_OK;
    }
    if (sync_spin(me, t, gen) > 0)
        return shmemu__aborted(me) ? sync_blocked(me, t, gen, call, slot) : SHMEMU_OK;
    if (shmemu__mt(me)) {
        struct shmemu__gen_moved g = {t, gen};
        for (int64_t ns = 1000;;) {
            shmemu__drive(me); /* nobody else delivers what this PE holds */
            if ((uint32_t)atomic_load_explicit(&t->sleep, memory_order_acquire) != gen)
                return shmemu__aborted(me) ? sync_blocked(me, t, gen, call, slot)
                                           : SHMEMU_OK;
            if ((st = sync_blocked(me, t, gen, call, slot)))
                return st;
            (void)mt_sleep(me, &t->mt_sleepers, shmemu__team_gen_word(t), gen, &ns,
                           shmemu__gen_moved, &g);
        }
    }

    settle(me);
    struct shmemu__ctl_pe *mine = me->ctl_me;
    uint32_t tok = ++me->wtoken;
    /* (word by word: deadlock detection may be reading the last one) */
    shmemu__wait_desc_sync(&mine->wait, shmemu__user_call(call), slot, gen);
    STORE(me, &mine->sync_team, slot);
    STORE(me, &mine->sync_gen, gen);
    STORE(me, &mine->wstate, shmemu__ws_pack(tok, SHMEMU__WS_SYNC_CONF));
    /* Count ourselves before joining the generation's sleepers, so the PE
     * that ends the generation never subtracts a count not yet added. */
    uint32_t n = add32(me, &me->ctl->nconfirmed, 1) + 1;
    uint64_t w = atomic_load_explicit(&t->sleep, memory_order_acquire);
    for (;;) {
        if ((uint32_t)w != gen) { /* ended before we joined its sleepers */
            leave_conf(me, tok, SHMEMU__WS_SYNC_CONF);
            return shmemu__aborted(me) ? sync_blocked(me, t, gen, call, slot)
                                       : SHMEMU_OK;
        }
        if ((st = sync_blocked(me, t, gen, call, slot))) {
            leave_conf(me, tok, SHMEMU__WS_SYNC_CONF);
            return st;
        }
        if (me->coop) {
            atomic_store_explicit(&t->sleep, w + ((uint64_t)1 << 32), memory_order_relaxed);
            break;
        }
        if (atomic_compare_exchange_weak(&t->sleep, &w, w + ((uint64_t)1 << 32)))
            break;
    }
    if (n >= nlive(me->ctl) && shmemu__check_stuck(me))
        return shmemu__fail(me, shmemu__aborted(me), call, "deadlock");
    for (;;) {
        shmemu__tl_ctl_wait(me->job, shmemu__team_gen_word(t), gen, -1);
        w = atomic_load_explicit(&t->sleep, memory_order_acquire);
        if ((uint32_t)w != gen && !shmemu__aborted(me)) {
            /* The PE that ended the generation took us off the count. */
            STORE(me, &mine->wstate, shmemu__ws_pack(tok, SHMEMU__WS_RUNNING));
            return SHMEMU_OK;
        }
        if ((st = sync_blocked(me, t, gen, call, slot)))
            return st;
    }
}

static int team_sync(shmemu__pe *me, int slot, const char *call, uint32_t gen, int ctl);

/* The members differed in kind of call (a control call against a plain
 * sync): see shmemu__team_sync_as. */
int shmemu__sync_mismatch(shmemu__pe *me, int slot, const char *call, int ctl, int leader)
{
    if (ctl)
        return SHMEMU_EMISMATCH; /* shmemu__agree reports it */
    me->rec_seq[slot]++; /* as the members in the control call counted it */
    shmemu__collective_fail(me, leader, SHMEMU_EMISMATCH, call,
                            "PEs disagree: this PE is in a barrier or team sync while "
                            "others of the team are in a collective allocation, free or "
                            "team split");
    return SHMEMU_EMISMATCH;
}

int shmemu__team_sync_as(shmemu__pe *me, int slot, const char *call, int ctl)
{
    shmemu__poll_progress(me);
    const struct shmemu__plane_ops *plane = me->job->plane;
    if (SHMEMU__LIKELY(plane == &shmemu__shared_plane))
        return shmemu__shared_team_sync(me, slot, call, ctl);
    return plane->team_sync(me, slot, call, ctl);
}

int shmemu__shared_team_sync(shmemu__pe *me, int slot, const char *call, int ctl)
{
    struct shmemu__ctl_team *t = shmemu__ctl_team(me->ctl, slot);
    uint32_t gen = (uint32_t)atomic_load_explicit(&t->sleep, memory_order_acquire);
    int st;
    if (!SHMEMU__CHECKED(me)) {
        st = team_sync(me, slot, call, gen, ctl);
    } else {
        /* The race detector: what each member knew on arrival, every
         * member knows once through. */
        me->chk_waits->sync_enter(me, slot, gen);
        st = team_sync(me, slot, call, gen, ctl);
        if (st == SHMEMU_OK)
            me->chk_waits->sync_exit(me, slot, gen);
    }
    /* The generation's end published mixed_gen before moving the
     * generation, which we saw move. */
    atomic_thread_fence(memory_order_acquire);
    if (st || atomic_load_explicit(&t->mixed_gen, memory_order_relaxed) != gen + 1)
        return st;
    if (ctl)
        return shmemu__sync_mismatch(me, slot, call, ctl, 0);
    (void)shmemu__sync_mismatch(me, slot, call, ctl, me->pe == t->start);
    /* One more sync, as the members in the control call do: the team stays
     * in step for the calls that follow. */
    (void)team_sync(me, slot, call,
                    (uint32_t)atomic_load_explicit(&t->sleep, memory_order_acquire), 0);
    return shmemu__last_status = SHMEMU_EMISMATCH;
}

int shmemu__team_sync(shmemu__pe *me, int slot, const char *call)
{
    return shmemu__team_sync_as(me, slot, call, 0);
}

static int team_sync(shmemu__pe *me, int slot, const char *call, uint32_t gen, int ctl)
{
    struct shmemu__ctl_team *t = shmemu__ctl_team(me->ctl, slot);
    uint32_t size = (uint32_t)t->size;
    if (size <= 1) {
        shmemu__full_fence();
        return SHMEMU_OK;
    }
    shmemu__drive(me);
    uint64_t add = 1 + ((uint64_t)ctl << 32);
    uint64_t old = add64(me, &t->arrived, add);
    if ((uint32_t)old != size - 1)
        return sync_wait(me, t, slot, gen, call);

    uint32_t nctl = (uint32_t)(old >> 32) + (uint32_t)ctl;
    if (SHMEMU__UNLIKELY(nctl != 0 && nctl != size))
        atomic_store_explicit(&t->mixed_gen, gen + 1, memory_order_relaxed);
    atomic_store_explicit(&t->arrived, 0, memory_order_relaxed);
    uint64_t prev = xchg64(me, &t->sleep, (uint64_t)(uint32_t)(gen + 1));
    uint32_t sleepers = (uint32_t)(prev >> 32);
    if (sleepers)
        (void)add32(me, &me->ctl->nconfirmed, -sleepers);
    if (sleepers || atomic_load_explicit(&t->mt_sleepers, memory_order_seq_cst))
        shmemu__tl_ctl_wake(me->job, shmemu__team_gen_word(t), INT_MAX);
    return SHMEMU_OK;
}

/* ------------------------------------------------------------- departure */

static void wake_team_sleepers(struct shmemu__job *job, int bump)
{
    struct shmemu__ctl *c = job->tl.ctl;
    for (int slot = 0; slot < SHMEMU__TEAMS_MAX; slot++) {
        if (!(atomic_load(&c->team_used[slot / 64]) >> (slot % 64) & 1))
            continue;
        struct shmemu__ctl_team *t = shmemu__ctl_team(c, slot);
        if (bump) {
            /* Move the generation (low half only) so that a sleeper about to
             * sleep sees it changed; it then finds the abort. */
            uint64_t w = atomic_load(&t->sleep);
            while (!atomic_compare_exchange_weak(
                &t->sleep, &w,
                (w & ~(uint64_t)UINT32_MAX) | (uint32_t)((uint32_t)w + 1)))
                ;
        }
        shmemu__tl_ctl_wake(job, shmemu__team_gen_word(t), INT_MAX);
    }
}

void shmemu__wake_all(struct shmemu__job *job)
{
    job->plane->wake_all(job);
}

void shmemu__shared_wake_all(struct shmemu__job *job)
{
    struct shmemu__ctl *c = job->tl.ctl;
    for (int p = 0; p < c->npes; p++) {
        struct shmemu__ctl_pe *cp = shmemu__ctl_pe(c, p);
        atomic_fetch_add(&cp->wake_seq, 1);
        shmemu__tl_ctl_wake(job, (void *)&cp->wake_seq, INT_MAX);
    }
    wake_team_sleepers(job, 1);
}

void shmemu__after_departure(shmemu__pe *me)
{
    wake_team_sleepers(me->job, 0);
    uint32_t live = nlive(me->ctl);
    if (live > 0 && atomic_load(&me->ctl->nconfirmed) >= live)
        (void)shmemu__check_stuck(me);
}
