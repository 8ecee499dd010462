/*
 * livelock.h - livelock detection: PEs that poll words nobody will change.
 *
 * Deadlock detection (wait.c) sees PEs asleep in the library.  A PE that
 * polls instead -- shmemu_test, shmemu_signal_fetch, a _g of a flag, an
 * atomic_fetch, in a loop -- stays awake and was invisible to it.  Every
 * such read counts down (the only cost on the hot path); about every 60th
 * -- the period varies, so that a loop over several words has each of them
 * sampled -- the slow path (livelock.c) compares the word and its value
 * with those it saw before, publishes what the PE polls and since when
 * nothing changed, and when that is longer than SHMEMU_LIVELOCK it checks
 * whether every live PE is asleep or polls unchanged words too.  The same
 * sampling gives the CPU away (sched_yield) once the words have not changed
 * for 50 us, detection on or off: with more PEs than cores the PE that
 * will change them needs a core (docs/DESIGN.md).  A word
 * that changes between samples has changed when next sampled; whoever
 * changed it is not stuck.  A sync, a wait that ends and a bulk get count
 * as progress, and so does CPU time spent between polls.
 */
#ifndef SHMEMU_LIVELOCK_H
#define SHMEMU_LIVELOCK_H

#include "runtime/core.h"

/* Set up a PE's polling state; limit_ns 0: no livelock detection. */
void shmemu__poll_init(shmemu__pe *me, int64_t limit_ns) SHMEMU__HIDDEN;
void shmemu__poll_slow(shmemu__pe *me, const char *call, void *site, int pe, size_t off,
                       size_t nbytes, uint64_t value) SHMEMU__HIDDEN;


int64_t shmemu__thread_cpu_ns(void) SHMEMU__HIDDEN;

/* Over a network plane, where each PE's block of the control area lives
 * in its own process: PE p's block as it is now, read into this PE's copy
 * (NULL: p did not answer); and whether p, asleep in a team sync according
 * to that block, has been released since.  Defined in net_deadlock.c. */
struct shmemu__ctl_pe;
struct shmemu__ctl_pe *shmemu__net_block(shmemu__pe *me, int p) SHMEMU__HIDDEN;
int shmemu__net_sync_released(shmemu__pe *me, int p, const struct shmemu__ctl_pe *cp)
    SHMEMU__HIDDEN;

/* Around the transport call of a poll: on a transport that needs progress
 * (a network), the round trip's CPU time is measured and set aside, since
 * livelock detection tells work between polls from polling by CPU time. */
static inline int64_t shmemu__poll_tl_enter(shmemu__pe *me)
{
    return SHMEMU__UNLIKELY(me->progress) ? shmemu__thread_cpu_ns() : 0;
}

static inline void shmemu__poll_tl_leave(shmemu__pe *me, int64_t t0)
{
    /* Relaxed: the threads of a PE (SHMEM_THREAD_MULTIPLE) may poll at
     * once, and a plain += was a data race (ThreadSanitizer, osh_threads
     * under mpirun on ucx). */
    if (SHMEMU__UNLIKELY(t0))
        __atomic_fetch_add(&me->poll_tl_cpu_ns, shmemu__thread_cpu_ns() - t0,
                           __ATOMIC_RELAXED);
}

/* Whether this poll is one to sample: then the caller passes what it saw
 * to shmemu__poll_slow. */
static inline int shmemu__poll_due(shmemu__pe *me)
{
    /* Relaxed loads and stores: plain code, yet no data race where several
     * threads drive the PE (a lost count only moves a sample). */
    uint32_t c = __atomic_load_n(&me->poll_countdown, __ATOMIC_RELAXED) - 1;
    __atomic_store_n(&me->poll_countdown, c, __ATOMIC_RELAXED);
    return SHMEMU__UNLIKELY(c == 0);
}

/* me read nbytes at off of pe's heap, seeing value (or a hash of what it
 * saw), as a poll that call made at site. */
static inline void shmemu__polled(shmemu__pe *me, const char *call, void *site, int pe,
                                  size_t off, size_t nbytes, uint64_t value)
{
    if (shmemu__poll_due(me))
        shmemu__poll_slow(me, call, site, pe, off, nbytes, value);
}

/* me did something besides polling: the polls since are not a livelock. */
static inline void shmemu__poll_progress(shmemu__pe *me)
{
    __atomic_store_n(&me->poll_activity, __atomic_load_n(&me->poll_activity, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

#endif /* SHMEMU_LIVELOCK_H */
