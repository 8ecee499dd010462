/*
 * livelock.h - livelock detection: PEs that poll words nobody will change.
 *
 * Deadlock detection (wait.c) sees PEs asleep in the library.  A PE that
 * polls instead -- shmemu_test, shmemu_signal_fetch, a _g of a flag, an
 * atomic_fetch, in a loop -- stays awake and was invisible to it.  Every
 * such read goes through shmemu__polled: the fast path compares the word
 * and value with the last poll's; every 64th repeat, and on a change, the
 * slow path (livelock.c) publishes what the PE polls and since when nothing
 * changed, and when that is longer than SHMEMU_LIVELOCK it checks whether
 * every live PE is asleep or polls unchanged words too.  Anything else a PE
 * does in the library (a put, an AMO, a sync, a wait that ends) counts as
 * progress, and so does CPU time spent between polls.
 */
#ifndef SHMEMU_LIVELOCK_H
#define SHMEMU_LIVELOCK_H

#include "core.h"

void shmemu__poll_slow(shmemu__pe *me, const char *call, void *site, int pe, size_t off,
                       size_t nbytes, uint64_t value) SHMEMU__HIDDEN;

/* "polls CALL on heap+OFF of PE P ... for T s": what PE pe polls. */
void shmemu__poll_describe(struct shmemu__job *job, int pe, char *buf, size_t len)
    SHMEMU__HIDDEN;

/* me read nbytes at off of pe's heap, seeing value (or a hash of what it
 * saw), as a poll that call made at site. */
static inline void shmemu__polled(shmemu__pe *me, const char *call, void *site, int pe,
                                  size_t off, size_t nbytes, uint64_t value)
{
    uint64_t key = (uint64_t)off << 24 ^ (uint64_t)(uint32_t)pe ^ (uint64_t)nbytes << 56;
    if (SHMEMU__LIKELY(key == me->poll.key && value == me->poll.val &&
                       (++me->poll.reps & 63) != 0))
        return;
    if (me->poll.limit_ns)
        shmemu__poll_slow(me, call, site, pe, off, nbytes, value);
}

/* me did something besides polling: the polls since are not a livelock. */
static inline void shmemu__poll_progress(shmemu__pe *me)
{
    me->poll.activity++;
}

#endif /* SHMEMU_LIVELOCK_H */
