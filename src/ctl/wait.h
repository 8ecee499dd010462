/*
 * wait.h - how PEs block and wake.
 *
 * A PE that must wait spins briefly (when it has a core to itself), yields a
 * few times (when PEs outnumber cores), then sleeps in the kernel on a futex
 * word of the control area.  Value waits sleep on the PE's own wake_seq and
 * are woken by whoever updates that PE's heap (shmemu__notify); team syncs
 * sleep on the team's generation word and are woken by the last arrival.
 *
 * Deadlock detection: a sleeping PE is counted in ctl->nconfirmed.  When the
 * count reaches the number of live PEs, the PE that made it so takes two
 * snapshots of every PE's (token, state); if both agree that every live PE
 * sleeps on a condition nothing can change, no PE can ever run again: the
 * job is aborted with SHMEMU_EDEADLOCK (or SHMEMU_EABORTED when a departed PE
 * is what they wait for) and a report of what each PE waits for.
 */
#ifndef SHMEMU_WAIT_H
#define SHMEMU_WAIT_H

#include <stdatomic.h>

#include "runtime/core.h"
#include "runtime/dispatch.h"

/* True once the awaited condition holds; called repeatedly, never blocks. */
typedef int (*shmemu__ready_fn)(shmemu__pe *me, void *arg);

/*
 * Block until ready(me, arg).  d says what is awaited (for reports; its
 * kind is VALUE or ARRAY).  Returns SHMEMU_OK, or the job's abort status
 * (SHMEMU_EDEADLOCK, SHMEMU_EABORTED, ...) without reporting it.
 */
int shmemu__wait_ready(shmemu__pe *me, const struct shmemu__wait_desc *d,
                       shmemu__ready_fn ready, void *arg) SHMEMU__HIDDEN;

/* Wake PE pe if it sleeps on a value: call after every update of pe's heap
 * (put, p, AMO, signal). */
static inline void shmemu__notify(shmemu__pe *me, int pe)
{
    /* Dekker with shmemu__wait_ready: either the waiter sees our update when
     * it re-checks, or we see that it registered.  Our side needs a full
     * fence unless the waiter pays for both with a membarrier. */
    if (SHMEMU__LIKELY(me->notify_light))
        shmemu__compiler_barrier();
    else
        shmemu__full_fence();
    struct shmemu__ctl_pe *cp = shmemu__ctl_pe(me->ctl, pe);
    uint32_t s = shmemu__ws_state(atomic_load_explicit(&cp->wstate, memory_order_relaxed));
    if (SHMEMU__UNLIKELY(s == SHMEMU__WS_DATA_REG || s == SHMEMU__WS_DATA_CONF ||
                         atomic_load_explicit(&cp->mt_sleepers, memory_order_relaxed)))
        shmemu__notify_slow(me->job, pe);
}

void shmemu__notify_delivered_slow(shmemu__pe *me) SHMEMU__HIDDEN;

/* A nonblocking put to pe that the transport may deliver later (quiet,
 * progress): its target is notified again then, or a PE asleep on the
 * value would never learn that it arrived. */
static inline void shmemu__nbi_issued(shmemu__pe *me, int pe)
{
    if (me->nbi_dirty) { /* atomics: several threads may issue as me */
        __atomic_fetch_or(&me->nbi_dirty[pe / 64], (uint64_t)1 << (pe % 64), __ATOMIC_RELAXED);
        __atomic_store_n(&me->nbi_any, 1, __ATOMIC_RELAXED);
    }
}

/* After quiet or progress: wake the targets of the puts it delivered. */
static inline void shmemu__notify_delivered(shmemu__pe *me)
{
    if (SHMEMU__UNLIKELY(__atomic_load_n(&me->nbi_any, __ATOMIC_RELAXED)))
        shmemu__notify_delivered_slow(me);
}

/* Let the transport move what this PE has outstanding, then wake the PEs
 * whose puts that delivered: what a PE does before it polls or sleeps.
 * Puts still in flight keep their targets marked for the quiet.  Returns 1
 * when the transport moved something (traffic is flowing). */
static inline int shmemu__drive(shmemu__pe *me)
{
    if (SHMEMU__LIKELY(!me->progress))
        return 0;
    int st = shmemu__tl_progress(me);
    if ((st & ~SHMEMU_TL_MOVED) == SHMEMU_OK)
        shmemu__notify_delivered(me);
    return (st & SHMEMU_TL_MOVED) != 0;
}

/* Barrier over the members of team slot (arrival only; no quiet).  Returns
 * SHMEMU_OK or a failure status, already reported through shmemu__fail. */
int shmemu__team_sync(shmemu__pe *me, int slot, const char *call) SHMEMU__HIDDEN;
/* The same, saying whether this PE is in a control collective (ctl = 1:
 * allocation, free, team split) or a plain sync (0).  A generation in which
 * members differ is a mismatch: a plain sync reports it, syncs once more
 * (as the control call does) and returns SHMEMU_EMISMATCH; a control sync
 * returns SHMEMU_EMISMATCH unreported, for shmemu__agree. */
int shmemu__team_sync_as(shmemu__pe *me, int slot, const char *call, int ctl)
    SHMEMU__HIDDEN;

/* After a PE departed: wake team sleepers so they notice, and end the job if
 * every PE left alive now sleeps. */
void shmemu__after_departure(shmemu__pe *me) SHMEMU__HIDDEN;

/* A member of the team (world PEs start + i * stride, i < size) that left
 * the job, as this PE's control area records departures, or -1.  Scans
 * only when the departure count moved since it last found none. */
int shmemu__departed_member(shmemu__pe *me, int start, int stride, int size) SHMEMU__HIDDEN;

/* Ready when the generation gen of team slot t's syncs has ended. */
struct shmemu__gen_moved {
    struct shmemu__ctl_team *t;
    uint32_t gen;
};
int shmemu__gen_moved(shmemu__pe *me, void *arg) SHMEMU__HIDDEN;

/* The shared control area's side of the plane's table (plane.h): a value
 * wait once spinning is over, one sync of team slot's members, waking
 * every sleeper. */
int shmemu__shared_wait(shmemu__pe *me, const struct shmemu__wait_desc *d,
                        shmemu__ready_fn ready, void *arg) SHMEMU__HIDDEN;
int shmemu__shared_team_sync(shmemu__pe *me, int slot, const char *call, int ctl)
    SHMEMU__HIDDEN;
void shmemu__shared_wake_all(struct shmemu__job *job) SHMEMU__HIDDEN;

/* A PE was handed an address in a peer's heap (shmemu_ptr, a kernel's peer
 * pointer): stores through it reach words peers may wait on, and nobody
 * is told.  From then on, PEs asleep in a wait look again now and then,
 * as on device heaps, and deadlock detection reads the words sleepers
 * wait on before it judges (deadlock.c). */
void shmemu__direct_stores(shmemu__pe *me) SHMEMU__HIDDEN;

/* The members of a sync of team slot differed in kind of call (a control
 * call against a plain sync): a control call returns SHMEMU_EMISMATCH
 * (shmemu__agree reports it); a plain sync reports it (leader: this PE
 * speaks for the team) and returns it. */
int shmemu__sync_mismatch(shmemu__pe *me, int slot, const char *call, int ctl, int leader)
    SHMEMU__HIDDEN;

#endif /* SHMEMU_WAIT_H */
