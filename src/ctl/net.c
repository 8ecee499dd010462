/* net.c - the control plane over the transport's RMA and atomics, for jobs
 * whose processes share no memory (net.h says where each word lives). */
#include "net.h"

#include "describe.h"
#include "net_deadlock.h"
#include "net_wire.h"

#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "livelock.h"
#include "runtime/dispatch.h"




/* Tell PE pe that we arrived: an OR of value into the word, unacked (the
 * target sees it come; a quiet of the user's need not wait for it). */
static int arrive(struct shmemu__job *job, int pe, const volatile _Atomic uint32_t *word,
                  uint32_t value)
{
    struct shmemu_tl_amo d = {.op = SHMEMU_TL_AMO_OR, .pe = pe, .width = 4,
                              .off = off_of(job, word), .value = value, .lazy = 1,
                              .unacked = 1};
    return shmemu__tl_ctl_amo(job, &d);
}


/* Wake PE pe if it naps (idle): where its copy is mapped here (a peer on
 * this node), bump its wake_seq and wake it; a remote one is woken by its
 * own progress thread when our update arrives. */
static void poke(struct shmemu__job *job, int pe)
{
    struct shmemu__ctl *c = job->tl.ctl;
    _Atomic uint32_t *w = &shmemu__ctl_pe(c, pe)->wake_seq;
    if (pe != job->net_pe &&
        !(w = shmemu__tl_ptr_direct(job, pe, job->tl.ctl_off + off_of(job, w))))
        return;
    atomic_fetch_add(w, 1);
    shmemu__tl_ctl_wake(job, (void *)w, INT_MAX);
}

static int net_abort_job(struct shmemu__job *job, int status, int pe, int rc,
                         const char *msg, const char *report);

/* A peer did not answer: the job cannot go on coherently. */
static void lost(struct shmemu__job *job, int st, int pe)
{
    char msg[160];
    snprintf(msg, sizeof(msg), "PE %d lost contact with PE %d's control area (%s)",
             job->net_pe, pe, shmemu_strerror(st));
    net_abort_job(job, SHMEMU_EABORTED, job->net_pe, st, msg, NULL);
}

/* ---------------------------------------------------------------- aborts */

static int net_claim_report(struct shmemu__job *job)
{
    struct shmemu__ctl *c = job->tl.ctl;
    uint64_t old = 1;
    /* PE 0 out of reach (the job is ending): the winner of the abort has
     * claimed already, or is speaking for itself. */
    if (amo(job, 0, SHMEMU_TL_AMO_SWAP, 4, &c->reported, 1, 0, &old))
        return 0;
    return old == 0;
}

/*
 * PE 0 decides which abort wins, on a word of its own.  The winner says
 * its report, then writes its reason and status into every copy; a loser
 * waits (a while) for them to arrive.  Nobody learns of the abort before
 * the report is out: PEs that learn of it may exit, and their launcher
 * then ends the reporter's process too.  With PE 0 out of reach, a PE
 * goes on alone.
 */
static int net_abort_job(struct shmemu__job *job, int status, int pe, int rc,
                          const char *msg, const char *report)
{
    struct shmemu__ctl *c = job->tl.ctl;
    if (atomic_load(&c->abort_status) || atomic_exchange(&job->net_aborting, 1))
        return 0;
    /* Waits on the network still wait, for a while, for what follows. */
    atomic_store(&job->net_grace_ns, shmemu__now_ns() + NET_GRACE_NS);
    uint64_t old = 0;
    int st = amo(job, 0, SHMEMU_TL_AMO_CSWAP, 4, &c->abort_won, (uint32_t)status, 0, &old);
    int won = st != SHMEMU_OK || old == 0;
    if (won) {
        atomic_store(&c->abort_pe, pe);
        atomic_store(&c->abort_rc, rc);
        shmemu__strlcpy(c->abort_msg, msg ? msg : "", sizeof(c->abort_msg));
        if (report && (st != SHMEMU_OK || net_claim_report(job)))
            shmemu__emit(report);
        int32_t zero = 0;
        atomic_compare_exchange_strong(&c->abort_status, &zero, status);
        for (int p = 0; p < job->tl.npes; p++) {
            if (p == job->net_pe)
                continue;
            /* Reason first, status last: a PE that sees the status finds
             * the reason with it.  A peer that does not answer is skipped. */
            if (rma(job, SHMEMU_TL_PUT, p, c->abort_msg, c->abort_msg,
                    sizeof(c->abort_msg)) == SHMEMU_OK &&
                rma(job, SHMEMU_TL_PUT, p, &c->abort_pe, (void *)&c->abort_pe,
                    2 * sizeof(int32_t)) == SHMEMU_OK)
                (void)amo(job, p, SHMEMU_TL_AMO_SET, 4, &c->abort_status, (uint32_t)status, 0,
                          NULL);
            poke(job, p);
        }
    } else {
        int64_t until = shmemu__now_ns() + NET_GRACE_NS;
        while (!atomic_load(&c->abort_status) && shmemu__now_ns() < until)
            shmemu__nap(NET_NAP_MAX_NS);
        int32_t zero = 0; /* the winner fell silent: its status, here at least */
        atomic_compare_exchange_strong(&c->abort_status, &zero, (int32_t)old);
    }
    atomic_store(&job->net_grace_ns, 0);
    return won;
}

/* ---------------------------------------------------------------- waiting */

struct idle {
    int64_t start, ns;
    const struct shmemu__wait_desc *d; /* what is awaited; NULL: never counted */
    shmemu__ready_fn ready;            /* ... and whether it came */
    void *arg;
    int conf;                          /* counted asleep */
    uint32_t nap_seq;                  /* wake_seq when the last nap began */
    int64_t next_check;
};

/* The launcher (mpirun) that started this process died without ending it:
 * nobody will, and peers may be gone with it. */
static void launcher_gone(shmemu__pe *me)
{
    struct shmemu__job *job = me->job;
    if (!shmemu__net_orphaned(job) || shmemu__aborted(me))
        return;
    char msg[160];
    snprintf(msg, sizeof(msg), "PE %d: the process that launched it (pid %d) is gone", me->pe,
             job->net_ppid);
    char line[200];
    snprintf(line, sizeof(line), "shmemu: %s\n", msg);
    net_abort_job(job, SHMEMU_EABORTED, me->pe, SHMEMU_EABORTED, msg, line);
}

/* Count ourselves asleep (see above); run the check if we made the count. */
static void confirm(shmemu__pe *me, struct idle *s)
{
    struct shmemu__ctl_pe *mine = me->ctl_me;
    if (shmemu__tl_ctl_flush(me) != SHMEMU_OK) /* nothing of ours in flight */
        return;
    mine->wait = *s->d;
    if (s->d->kind == SHMEMU__WAIT_SYNC) {
        atomic_store(&mine->sync_team, s->d->team);
        atomic_store(&mine->sync_gen, s->d->gen);
    }
    uint32_t state = s->d->kind == SHMEMU__WAIT_SYNC ? SHMEMU__WS_SYNC_CONF : SHMEMU__WS_DATA_CONF;
    atomic_store(&mine->wstate, shmemu__ws_pack(++me->wtoken, state));
    uint64_t old = 0;
    if (amo(me->job, 0, SHMEMU_TL_AMO_ADD, 4, &me->ctl->nconfirmed, 1, 0, &old)) {
        atomic_store(&mine->wstate, shmemu__ws_pack(me->wtoken, SHMEMU__WS_RUNNING));
        return;
    }
    s->conf = 1;
    s->next_check = shmemu__now_ns() + NET_CHECK_EVERY_NS;
    if ((uint32_t)old + 1 >= shmemu__net_nlive(me))
        shmemu__net_check_stuck(me, s->ready, s->arg);
}

/* Leave the count: the condition came true, or the job ended. */
static void unconfirm(shmemu__pe *me, struct idle *s)
{
    if (!s->conf)
        return;
    atomic_store(&me->ctl_me->wstate, shmemu__ws_pack(me->wtoken, SHMEMU__WS_RUNNING));
    (void)amo(me->job, 0, SHMEMU_TL_AMO_ADD, 4, &me->ctl->nconfirmed, (uint32_t)-1, 0, NULL);
    s->conf = 0;
}

/* Wait a little, after a look that found the condition false: spin
 * (driving progress) while the job's spin budget lasts, then yield, then
 * nap on our wake_seq until it leaves seq (read before the look): bumped
 * and woken by a same-node peer after its update here (poke), or by the
 * transport's progress thread when something arrived from the network
 * (tl.arrival_word), and at most NET_NAP_MAX_NS in any case. */
static void idle(shmemu__pe *me, struct idle *s, uint32_t seq)
{
    struct shmemu__job *job = me->job;
    int moved = shmemu__drive(me);
    int64_t now = shmemu__now_ns();
    /* While traffic flows (peers' gets and atomics served here), this PE
     * moving it is work: the spin starts over, even after it had ended,
     * instead of leaving each request to the serving thread, which wakes
     * the PE, which naps again (4 KiB gets from a PE in a barrier, across
     * two namespaces: 0.35 GB/s so, 0.54 spinning; OSHMEM's 0.55).  A nap
     * that something arriving ended (the serving thread took it and woke
     * us) counts as traffic too (s->ns: the last call napped). */
    if (!s->start) {
        s->start = now;
    } else if (job->spin_ns > 0 && (moved || (s->ns && seq != s->nap_seq))) {
        if (now - s->start >= job->spin_ns) { /* the spin had ended */
            unconfirm(me, s); /* busy again: not asleep for deadlock detection */
            s->ns = 0;
        }
        s->start = now;
    }
    if (now - s->start < job->spin_ns) {
        shmemu__cpu_relax();
        return;
    }
    if (now - s->start < job->spin_ns + job->yield_ns) {
        sched_yield();
        return;
    }
    if (s->d && !shmemu__mt(me)) {
        atomic_fetch_add(&me->ctl_me->looks, 1); /* one more look */
        if (!s->conf) {
            confirm(me, s);
        } else if (now >= s->next_check) {
            s->next_check = now + NET_CHECK_EVERY_NS;
            launcher_gone(me);
            uint64_t n = 0;
            if (!amo(job, 0, SHMEMU_TL_AMO_FETCH, 4, &me->ctl->nconfirmed, 0, 0, &n) &&
                (uint32_t)n >= shmemu__net_nlive(me))
                shmemu__net_check_stuck(me, s->ready, s->arg);
        }
    }
    s->nap_seq = seq;
    s->ns = s->ns ? (s->ns * 2 < NET_NAP_MAX_NS ? s->ns * 2 : NET_NAP_MAX_NS) : NET_NAP_MIN_NS;
    shmemu__tl_ctl_wait(job, (void *)&me->ctl_me->wake_seq, seq, s->ns);
}

static int net_wait(shmemu__pe *me, const struct shmemu__wait_desc *d, shmemu__ready_fn ready,
                     void *arg)
{
    struct idle s = {.d = d, .ready = ready, .arg = arg};
    int st;
    for (;;) {
        uint32_t seq = atomic_load(&me->ctl_me->wake_seq);
        if (ready(me, arg)) {
            st = SHMEMU_OK;
            break;
        }
        if ((st = shmemu__aborted(me)))
            break;
        /* What the PE's other threads issued since is held by the checker
         * until a thread of this PE delivers it (wait.c). */
        if (SHMEMU__CHECKED(me) && shmemu__mt(me) &&
            (st = me->chk_waits->progress(me, ready, arg))) {
            st = st > 0 ? SHMEMU_OK : st;
            break;
        }
        idle(me, &s, seq);
    }
    unconfirm(me, &s);
    return st;
}

/* ---------------------------------------------------------------- PE life */

static void net_depart(shmemu__pe *me)
{
    struct shmemu__job *job = me->job;
    struct shmemu__ctl *c = me->ctl;
    uint32_t life = atomic_load(&me->ctl_me->life);
    for (int p = 0; p < me->npes; p++) {
        if (p == me->pe)
            continue;
        if (amo(job, p, SHMEMU_TL_AMO_SET, 4, &me->ctl_me->life, life, 0, NULL) ||
            amo(job, p, SHMEMU_TL_AMO_ADD, 4, &c->ndeparted, 1, 0, NULL))
            break; /* the job ended */
        poke(job, p);
    }
    atomic_fetch_add(&c->ndeparted, 1);
    /* Peers reach our heap until they leave too (SHMEMU_TL_CAP_OWN_HEAPS). */
    struct idle s = {0};
    uint32_t nd;
    for (;;) {
        uint32_t seq = atomic_load(&me->ctl_me->wake_seq);
        if ((nd = atomic_load(&c->ndeparted)) >= (uint32_t)me->npes || shmemu__aborted(me))
            break;
        idle(me, &s, seq);
    }
}

/* ------------------------------------------------------------------ teams */

static int slot_cached(const struct shmemu__ctl *c, int slot)
{
    return (int)(atomic_load(&c->team_used[slot / 64]) >> (slot % 64) & 1);
}

/* As the API numbers members (src/api/team.c): a stride may be negative
 * (start 3, stride -1 is PEs 3, 2, 1, 0) or 0 for a team of one. */
static int member(const struct shmemu__team_geom *g, int pe)
{
    int d = pe - g->start;
    if (g->stride == 0)
        return d == 0 && g->size > 0;
    return d % g->stride == 0 && d / g->stride >= 0 && d / g->stride < g->size;
}

/* Slots 0 and 1 are the same everywhere (plane_init); others are read
 * from PE 0 and kept while this PE is a member (it drops them when it
 * leaves, before the slot can be taken again).  On PE 0 the copy is the
 * slots' home, so what it holds is always current. */
static int net_team(shmemu__pe *me, int slot, struct shmemu__team_geom *g)
{
    struct shmemu__job *job = me->job;
    struct shmemu__ctl *c = me->ctl;
    if (slot < 0 || slot >= SHMEMU__TEAMS_MAX)
        return -1;
    struct shmemu__ctl_team *t = shmemu__ctl_team(c, slot);
    if (!slot_cached(c, slot)) {
        uint64_t used = 0;
        struct shmemu__ctl_team f; /* start .. num_contexts, in one get */
        size_t from = offsetof(struct shmemu__ctl_team, start);
        size_t n = offsetof(struct shmemu__ctl_team, num_contexts) + sizeof(f.num_contexts) - from;
        int st;
        if ((st = amo(job, 0, SHMEMU_TL_AMO_FETCH, 8, &c->team_used[slot / 64], 0, 0, &used)) ||
            !(used >> (slot % 64) & 1) ||
            (st = rma(job, SHMEMU_TL_GET, 0, &t->start, (char *)&f + from, n))) {
            if (st)
                lost(job, st, 0);
            return -1;
        }
        shmemu__plane_geom(&f, g);
        if (member(g, me->pe)) {
            t->start = g->start;
            t->stride = g->stride;
            t->size = g->size;
            t->num_contexts = g->num_contexts;
            atomic_store(&t->epoch, g->epoch);
            atomic_fetch_or(&c->team_used[slot / 64], (uint64_t)1 << (slot % 64));
        }
        return 0;
    }
    shmemu__plane_geom(t, g);
    return 0;
}

static int net_team_claim(shmemu__pe *me, struct shmemu__team_geom *g)
{
    struct shmemu__job *job = me->job;
    struct shmemu__ctl *c = me->ctl;
    for (int slot = 0; slot < SHMEMU__TEAMS_MAX; slot++) {
        uint64_t bit = (uint64_t)1 << (slot % 64), old = 0;
        int st = amo(job, 0, SHMEMU_TL_AMO_OR, 8, &c->team_used[slot / 64], bit, 0, &old);
        if (st) {
            lost(job, st, 0);
            return -1;
        }
        if (old & bit)
            continue;
        struct shmemu__ctl_team *t = shmemu__ctl_team(c, slot);
        int32_t f[3] = {g->start, g->stride, g->size};
        uint64_t epoch = 0;
        if ((st = rma(job, SHMEMU_TL_PUT, 0, &t->start, f, sizeof(f))) ||
            (st = amo(job, 0, SHMEMU_TL_AMO_SET, 4, &t->num_contexts,
                      (uint32_t)g->num_contexts, 0, NULL)) ||
            (st = amo(job, 0, SHMEMU_TL_AMO_SET, 4, &t->refs, (uint32_t)g->size, 0, NULL)) ||
            (st = amo(job, 0, SHMEMU_TL_AMO_ADD, 4, &t->epoch, 1, 0, &epoch))) {
            lost(job, st, 0);
            return -1;
        }
        g->epoch = (uint32_t)epoch + 1;
        return slot;
    }
    return -1;
}

static void net_team_leave(shmemu__pe *me, int slot)
{
    struct shmemu__job *job = me->job;
    struct shmemu__ctl *c = me->ctl;
    uint64_t bit = (uint64_t)1 << (slot % 64), old = 0;
    if (slot >= 2 && me->pe != 0) /* PE 0's copy is every PE's map of slots */
        atomic_fetch_and(&c->team_used[slot / 64], ~bit);
    struct shmemu__ctl_team *t = shmemu__ctl_team(c, slot);
    /* Every sync of ours is over: what was told us was read. */
    for (int par = 0; par < 2; par++)
        for (int k = 0; k < SHMEMU__DISS_ROUNDS; k++)
            atomic_store(&t->diss[par][k], 0);
    atomic_store(&t->syncs, 0);
    int st = amo(job, 0, SHMEMU_TL_AMO_ADD, 4, &t->refs, (uint32_t)-1, 0, &old);
    if (st == SHMEMU_OK && (int32_t)old == 1) /* the last member frees the slot */
        st = amo(job, 0, SHMEMU_TL_AMO_AND, 8, &c->team_used[slot / 64], ~bit, 0, NULL);
    if (st)
        lost(job, st, 0);
}

/* ---------------------------------------------------------------- exchanges */

/* Read into our copy's block of pe, which nobody else writes. */
static const struct shmemu__rec *net_record(shmemu__pe *me, int pe)
{
    struct shmemu__rec *r = &shmemu__ctl_pe(me->ctl, pe)->rec;
    if (pe == me->pe)
        return r;
    int st = rma(me->job, SHMEMU_TL_GET, pe, r, r, sizeof(*r));
    if (st) {
        memset(r, 0xff, sizeof(*r)); /* matches no one's: a mismatch at worst */
        lost(me->job, st, pe);
    }
    return r;
}

static int32_t net_out(shmemu__pe *me, int pe, int k)
{
    _Atomic int32_t *w = &shmemu__ctl_pe(me->ctl, pe)->rec.out[k];
    if (pe == me->pe)
        return atomic_load(w);
    uint64_t v = (uint64_t)-1;
    int st = amo(me->job, pe, SHMEMU_TL_AMO_FETCH, 4, w, 0, 0, &v);
    if (st)
        lost(me->job, st, pe);
    return (int32_t)v;
}

/* -------------------------------------------------------------- team sync */

/*
 * A dissemination barrier (Hensgen, Finkel and Manber, 1988): in round k,
 * member i tells member i + 2^k (mod size) that it arrived, with a posted
 * atomic OR into that member's copy, then waits to be told by member
 * i - 2^k.  After ceil(log2 size) rounds every member has heard, directly
 * or not, from every other: one message a round and no round trip, where
 * a counter at one member cost a round trip to arrive and a release per
 * member after the last arrival.  What a member tells carries what it
 * knows of the kinds of call the members are in (a control call, a plain
 * sync), so that every member learns whether they were mixed.
 *
 * A member that departed is asked how many syncs of the team it passed:
 * one more than this member, and it saw every member arrive, so what this
 * one waits for is on its way; as many, and it left without this sync.
 */
#define DISS_TOLD 1u  /* a told word is never 0 */
#define DISS_CTL 2u   /* some member arrived in a control call */
#define DISS_PLAIN 4u /* ... some in a plain sync */

static int told(shmemu__pe *me, void *word)
{
    (void)me;
    return atomic_load_explicit((_Atomic uint32_t *)word, memory_order_acquire) != 0;
}

static int net_team_sync(shmemu__pe *me, int slot, const char *call, int ctl, int *mixed,
                          int *first)
{
    struct shmemu__job *job = me->job;
    struct shmemu__team_geom g;
    *mixed = *first = 0;
    if (net_team(me, slot, &g))
        return shmemu__fail(me, shmemu__aborted(me) ? shmemu__aborted(me) : SHMEMU_EINVAL,
                            call, "team slot %d is not in use", slot);
    if (!member(&g, me->pe))
        return shmemu__fail(me, SHMEMU_EINVAL, call, "this PE is not a member of team slot %d",
                            slot);
    *first = me->pe == g.start;
    if (g.size <= 1) {
        shmemu__full_fence();
        return SHMEMU_OK;
    }
    shmemu__drive(me);
    struct shmemu__ctl_team *t = shmemu__ctl_team(me->ctl, slot);
    _Atomic uint32_t *gen_w = (_Atomic uint32_t *)shmemu__team_gen_word(t);
    uint32_t gen = atomic_load(gen_w), syncs = atomic_load(&t->syncs);
    uint32_t know = ctl ? DISS_CTL : DISS_PLAIN;
    int i = (me->pe - g.start) / g.stride, st = SHMEMU_OK, p = -1, passed = 0;
    struct shmemu__wait_desc d = {.kind = SHMEMU__WAIT_SYNC, .team = slot, .gen = gen};
    shmemu__strlcpy(d.call, shmemu__user_call(call), sizeof(d.call));
    for (int k = 0, dist = 1; dist < g.size; k++, dist *= 2) {
        int to = g.start + (int)(((int64_t)i + dist) % g.size) * g.stride;
        _Atomic uint32_t *w = &t->diss[syncs & 1][k];
        if ((st = arrive(job, to, w, know | DISS_TOLD)) < 0) {
            lost(job, st, to);
            st = shmemu__aborted(me) ? shmemu__aborted(me) : SHMEMU_EABORTED;
            break;
        }
        poke(job, to);
        /* Each round is a wait of its own: a member counted asleep in an
         * earlier one, with a round's message posted since, would look
         * stuck while that message travels. */
        struct idle s = {.d = &d, .ready = told, .arg = (void *)w};
        for (st = SHMEMU_OK;;) {
            uint32_t seq = atomic_load(&me->ctl_me->wake_seq);
            if (told(me, (void *)w))
                break;
            if ((st = shmemu__aborted(me)))
                break;
            /* p is set only when it names the member that left without
             * this sync: a departure seen as the word was told means
             * nothing (it once stayed set then, and a PE whose round had
             * completed reported the departed member as blocking it). */
            int dep = passed ? -1 : shmemu__departed_member(me, g.start, g.stride, g.size);
            if (dep >= 0 && !told(me, (void *)w)) {
                uint64_t theirs = 0;
                if ((st = amo(job, dep, SHMEMU_TL_AMO_FETCH, 4, &t->syncs, 0, 0, &theirs))) {
                    lost(job, st, dep);
                    st = shmemu__aborted(me) ? shmemu__aborted(me) : SHMEMU_EABORTED;
                    break;
                }
                if ((uint32_t)theirs != syncs + 1) {
                    p = dep; /* it left before this sync could complete */
                    break;
                }
                passed = 1;
            }
            idle(me, &s, seq);
        }
        unconfirm(me, &s);
        if (st || p >= 0)
            break;
        know |= atomic_exchange(w, 0);
    }
    if (st)
        return shmemu__fail(me, st, call, "job aborted while waiting");
    if (p >= 0)
        return shmemu__fail(me, SHMEMU_EABORTED, call,
                            "PE %d left the job while this PE waits for it (team slot %d)", p,
                            slot);
    atomic_store(&t->syncs, syncs + 1);
    atomic_fetch_add_explicit(gen_w, 1, memory_order_release);
    *mixed = (know & (DISS_CTL | DISS_PLAIN)) == (DISS_CTL | DISS_PLAIN);
    return SHMEMU_OK;
}

/* One sync of team slot's members; where they differed in kind of call,
 * the mismatch is reported and a plain sync's members sync once more, as
 * over the shared area (shmemu__team_sync_as). */
static int net_sync(shmemu__pe *me, int slot, const char *call, int ctl)
{
    int mixed, first, st = net_team_sync(me, slot, call, ctl, &mixed, &first);
    if (st || !mixed)
        return st;
    if (ctl)
        return shmemu__sync_mismatch(me, slot, call, ctl, 0);
    (void)shmemu__sync_mismatch(me, slot, call, ctl, first);
    (void)net_team_sync(me, slot, call, 0, &mixed, &first);
    return shmemu__last_status = SHMEMU_EMISMATCH;
}

/* Nobody sleeps here unbounded (net.h): naps end by themselves. */
static void net_wake_all(struct shmemu__job *job) { (void)job; }

const struct shmemu__plane_ops shmemu__net_plane = {
    .name = "network",
    .claim_report = net_claim_report,
    .abort_job = net_abort_job,
    .wake_all = net_wake_all,
    .depart = net_depart,
    .team = net_team,
    .team_claim = net_team_claim,
    .team_leave = net_team_leave,
    .record = net_record,
    .out = net_out,
    .block = shmemu__net_block,
    .wait = net_wait,
    .team_sync = net_sync,
};
