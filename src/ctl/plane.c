/* plane.c - the control plane on a shared control area (plane.h): the job's
 * abort state, PE life, team slots and the records of control collectives.
 * Syncs, waits and deadlock detection on the same area are in wait.c. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plane.h"
#include "runtime/dispatch.h"
#include "wait.h"

/* ---------------------------------------------------------------- the job */

size_t shmemu__plane_size(int npes)
{
    return shmemu__ctl_size(npes);
}

void shmemu__plane_init(struct shmemu__job *job, int error_mode)
{
    struct shmemu__ctl *c = job->tl.ctl;
    c->magic = SHMEMU__CTL_MAGIC;
    c->layout = SHMEMU__CTL_LAYOUT;
    c->npes = job->tl.npes;
    c->teams_max = SHMEMU__TEAMS_MAX;
    c->heap_size = job->tl.heap_size;
    c->ctl_size = job->tl.ctl_size;
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
    /* Fence-free updates need every process of the job to take part. */
    job->notify_global = (shmemu__tl_caps(job) & SHMEMU_TL_CAP_PROCESSES) != 0;
    /* PEs that take turns in one thread never race: a plain fence. */
    c->notify_light = !job->coop && shmemu__membarrier_register(job->notify_global);
}

int shmemu__plane_result(struct shmemu__job *job)
{
    struct shmemu__ctl *c = job->tl.ctl;
    int st = atomic_load(&c->abort_status);
    if (st == SHMEMU__GLOBAL_EXIT)
        return atomic_load(&c->abort_rc);
    if (st)
        return atomic_load(&c->abort_rc) ? atomic_load(&c->abort_rc) : st;
    for (int p = 0; p < c->npes; p++) {
        struct shmemu__ctl_pe *cp = shmemu__ctl_pe(c, p);
        if (cp->rc_set && cp->rc)
            return cp->rc;
    }
    return SHMEMU_OK;
}

int shmemu__plane_matches(struct shmemu__job *job)
{
    const struct shmemu__ctl *c = job->tl.ctl;
    return c->magic == SHMEMU__CTL_MAGIC && c->layout == SHMEMU__CTL_LAYOUT &&
           c->npes == job->tl.npes && c->heap_size == job->tl.heap_size &&
           c->ctl_size == job->tl.ctl_size;
}

int shmemu__plane_abort_status(struct shmemu__job *job)
{
    return atomic_load(&((struct shmemu__ctl *)job->tl.ctl)->abort_status);
}

int shmemu__plane_global_exit(struct shmemu__job *job, int *code)
{
    struct shmemu__ctl *c = job->tl.ctl;
    if (!c || atomic_load(&c->abort_status) != SHMEMU__GLOBAL_EXIT)
        return 0;
    *code = atomic_load(&c->abort_rc);
    return 1;
}

int shmemu__plane_claim_report(struct shmemu__job *job)
{
    return job->plane->claim_report(job);
}

static int shared_claim_report(struct shmemu__job *job)
{
    return atomic_exchange(&((struct shmemu__ctl *)job->tl.ctl)->reported, 1) == 0;
}

int shmemu__plane_error_mode(struct shmemu__job *job)
{
    return atomic_load(&((struct shmemu__ctl *)job->tl.ctl)->error_mode);
}

void shmemu__plane_set_error_mode(struct shmemu__job *job, int mode)
{
    atomic_store(&((struct shmemu__ctl *)job->tl.ctl)->error_mode, mode);
}

int shmemu__abort_job(struct shmemu__job *job, int status, int pe, int rc,
                      const char *msg, const char *report)
{
    return job->plane->abort_job(job, status, pe, rc, msg, report);
}

static int shared_abort_job(struct shmemu__job *job, int status, int pe, int rc,
                            const char *msg, const char *report)
{
    struct shmemu__ctl *c = job->tl.ctl;
    int expected = 0, won = 0;
    /* Claim the report before the abort is visible: a PE that sees the
     * abort prints a line of its own ("the job was aborted") unless the
     * report is claimed, and one that looked between the two would take
     * the report's place (a livelock ended with no livelock report). */
    int claimed = report && atomic_exchange(&c->reported, 1) == 0;
    if (atomic_compare_exchange_strong(&c->abort_status, &expected, status)) {
        won = 1;
        atomic_store(&c->abort_pe, pe);
        atomic_store(&c->abort_rc, rc);
        shmemu__strlcpy(c->abort_msg, msg ? msg : "", sizeof(c->abort_msg));
    }
    if (claimed) /* true whoever aborted first: what the detector found */
        shmemu__emit(report);
    shmemu__shared_wake_all(job);
    return won;
}

/* ----------------------------------------------------------------- a PE */

int shmemu__plane_pe_start(shmemu__pe *me)
{
    me->ctl = me->job->tl.ctl;
    me->ctl_me = shmemu__ctl_pe(me->ctl, me->pe);
    me->abort_word = &me->ctl->abort_status;
    if (shmemu__net(me->job)) { /* one PE per process there */
        me->job->net_pe = me->pe;
        me->job->net_ppid = (int)getppid();
        me->job->tl.arrival_word = (uint32_t *)(void *)&me->ctl_me->wake_seq;
    }
    /* A PE process forked or exec'd from the creator registers anew; if it
     * cannot, the job's fence-free updates would be unsafe: refuse. */
    me->notify_light = me->ctl->notify_light;
    return me->notify_light && !shmemu__membarrier_register(me->job->notify_global);
}

void shmemu__plane_pe_running(shmemu__pe *me)
{
    atomic_store(&me->ctl_me->pid, (int32_t)getpid());
    atomic_store(&me->ctl_me->life, SHMEMU__LIFE_RUNNING);
}

void shmemu__plane_set_pid(struct shmemu__job *job, int pe, int pid)
{
    atomic_store(&shmemu__ctl_pe(job->tl.ctl, pe)->pid, (int32_t)pid);
}

int shmemu__plane_pid(struct shmemu__job *job, int pe)
{
    return (int)atomic_load(&shmemu__ctl_pe(job->tl.ctl, pe)->pid);
}

void shmemu__plane_last_call(shmemu__pe *me, const char *call, void *site)
{
    atomic_store_explicit(&me->ctl_me->last_call, (uintptr_t)call, memory_order_relaxed);
    atomic_store_explicit(&me->ctl_me->last_site, (uintptr_t)site, memory_order_relaxed);
}

/* Peers reach this PE's heap until they leave too (SHMEMU_TL_CAP_OWN_HEAPS):
 * stay until all have, or the job ended.  Each departure wakes the others;
 * the timeout only bounds a wake-up lost to a PE killed mid-departure. */
static void await_departures(shmemu__pe *me)
{
    struct shmemu__ctl *c = me->ctl;
    shmemu__tl_ctl_wake(me->job, (void *)&c->ndeparted, INT_MAX);
    uint32_t nd;
    while ((nd = atomic_load(&c->ndeparted)) < (uint32_t)c->npes &&
           !atomic_load(&c->abort_status))
        shmemu__tl_ctl_wait(me->job, (void *)&c->ndeparted, nd, 100000000);
}

void shmemu__depart(shmemu__pe *me, int life, int rc)
{
    struct shmemu__ctl_pe *cp = me->ctl_me;
    cp->rc = rc;
    atomic_store(&cp->rc_set, 1);
    atomic_store(&cp->life, (uint32_t)life);
    me->job->plane->depart(me);
}

static void shared_depart(shmemu__pe *me)
{
    atomic_fetch_add(&me->ctl->ndeparted, 1);
    shmemu__after_departure(me);
    if (shmemu__tl_caps(me->job) & SHMEMU_TL_CAP_OWN_HEAPS)
        await_departures(me);
}

int shmemu__plane_pe_left(struct shmemu__job *job, int pe)
{
    uint32_t life = atomic_load(&shmemu__ctl_pe(job->tl.ctl, pe)->life);
    return shmemu__life_gone(life);
}

void shmemu__plane_pe_failed(struct shmemu__job *job, int pe)
{
    struct shmemu__ctl *c = job->tl.ctl;
    atomic_store(&shmemu__ctl_pe(c, pe)->life, SHMEMU__LIFE_FAILED);
    atomic_fetch_add(&c->ndeparted, 1);
    shmemu__tl_ctl_wake(job, (void *)&c->ndeparted, INT_MAX);
}

/* --------------------------------------------------------------- teams */

static int slot_used(const struct shmemu__ctl *c, int slot)
{
    return (int)(atomic_load(&c->team_used[slot / 64]) >> (slot % 64) & 1);
}

int shmemu__plane_team(shmemu__pe *me, int slot, struct shmemu__team_geom *g)
{
    return me->job->plane->team(me, slot, g);
}

static int shared_team(shmemu__pe *me, int slot, struct shmemu__team_geom *g)
{
    if (slot < 0 || slot >= SHMEMU__TEAMS_MAX || !slot_used(me->ctl, slot))
        return -1;
    shmemu__plane_geom(shmemu__ctl_team(me->ctl, slot), g);
    return 0;
}

int shmemu__plane_team_claim(shmemu__pe *me, struct shmemu__team_geom *g)
{
    return me->job->plane->team_claim(me, g);
}

static int shared_team_claim(shmemu__pe *me, struct shmemu__team_geom *g)
{
    struct shmemu__ctl *c = me->ctl;
    for (int slot = 0; slot < SHMEMU__TEAMS_MAX; slot++) {
        _Atomic uint64_t *word = &c->team_used[slot / 64];
        uint64_t bit = (uint64_t)1 << (slot % 64), w = atomic_load(word);
        if ((w & bit) || !atomic_compare_exchange_strong(word, &w, w | bit))
            continue;
        struct shmemu__ctl_team *t = shmemu__ctl_team(c, slot);
        t->start = g->start;
        t->stride = g->stride;
        t->size = g->size;
        t->num_contexts = g->num_contexts;
        atomic_store(&t->arrived, 0);
        /* keep the generation, drop any stale sleeper count */
        atomic_store(&t->sleep, (uint64_t)(uint32_t)atomic_load(&t->sleep));
        atomic_store(&t->refs, g->size);
        g->epoch = atomic_fetch_add(&t->epoch, 1) + 1; /* publishes the fields above */
        return slot;
    }
    return -1;
}

void shmemu__plane_team_leave(shmemu__pe *me, int slot)
{
    me->job->plane->team_leave(me, slot);
}

static void shared_team_leave(shmemu__pe *me, int slot)
{
    struct shmemu__ctl_team *t = shmemu__ctl_team(me->ctl, slot);
    if (atomic_fetch_sub(&t->refs, 1) == 1) /* the last member frees the slot */
        atomic_fetch_and(&me->ctl->team_used[slot / 64], ~((uint64_t)1 << (slot % 64)));
}

/* ------------------------------------------------------------ exchanges */

void shmemu__plane_publish(shmemu__pe *me, const struct shmemu__rec *rec)
{
    me->ctl_me->rec = *rec;
}

const struct shmemu__rec *shmemu__plane_record(shmemu__pe *me, int pe)
{
    return me->job->plane->record(me, pe);
}

static const struct shmemu__rec *shared_record(shmemu__pe *me, int pe)
{
    return &shmemu__ctl_pe(me->ctl, pe)->rec;
}

void shmemu__plane_publish_out(shmemu__pe *me, int k, int32_t value)
{
    atomic_store(&me->ctl_me->rec.out[k], value);
}

int32_t shmemu__plane_out(shmemu__pe *me, int pe, int k)
{
    return me->job->plane->out(me, pe, k);
}

static int32_t shared_out(shmemu__pe *me, int pe, int k)
{
    return atomic_load(&shmemu__ctl_pe(me->ctl, pe)->rec.out[k]);
}

static struct shmemu__ctl_pe *shared_block(shmemu__pe *me, int p)
{
    return shmemu__ctl_pe(me->ctl, p);
}

const struct shmemu__plane_ops shmemu__shared_plane = {
    .name = "shared",
    .claim_report = shared_claim_report,
    .abort_job = shared_abort_job,
    .wake_all = shmemu__shared_wake_all,
    .depart = shared_depart,
    .team = shared_team,
    .team_claim = shared_team_claim,
    .team_leave = shared_team_leave,
    .record = shared_record,
    .out = shared_out,
    .block = shared_block,
    .wait = shmemu__shared_wait,
    .team_sync = shmemu__shared_team_sync,
};

void shmemu__plane_choose(struct shmemu__job *job)
{
    job->plane = job->tl.ctl_remote ? &shmemu__net_plane : &shmemu__shared_plane;
}

const struct shmemu__fail_policy shmemu__plane_fail_policy = {
    .global_exit = shmemu__plane_global_exit,
    .claim_report = shmemu__plane_claim_report,
    .error_mode = shmemu__plane_error_mode,
    .abort_job = shmemu__abort_job,
};
