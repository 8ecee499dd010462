/*
 * check.h - checker mode: a layer between the core and any transport that
 * changes when remote effects become visible, never what OpenSHMEM
 * guarantees (docs/CHECK.md).
 *
 * Delivery fuzzing: a PE's puts, puts with signal, non-fetching AMOs and
 * nonblocking gets are held in a private queue and delivered later, in a
 * seeded order that keeps exactly the promised orderings: fence orders
 * operations to one PE, quiet (and barrier_all, and the collective
 * allocation calls, and leaving the job) completes everything, a put with
 * signal is delivered as one unit, data first; fetching AMOs and blocking
 * gets complete on return.  A PE delivers what it holds at its own library
 * calls and while it waits, so holding never creates a deadlock.
 *
 * Schedule perturbation: seeded yields and short sleeps on entry to the
 * library and after operations.
 *
 * Notes: patterns that explain a wrong result (a flag delivered before the
 * data it announces, a buffer overwritten before its reader synchronised,
 * a sync entered with puts in flight) are kept in the shared control area
 * for shmemu_check_notes() and printed when a checked job fails.
 */
#ifndef SHMEMU_CHECK_H
#define SHMEMU_CHECK_H

#include "core.h"
#include "wait.h"

/* Bytes the checker adds to the shared control area for this job (0 when
 * checker mode is off); they follow the core's part. */
size_t shmemu__check_ctl_size(const struct shmemu__job *job) SHMEMU__HIDDEN;

/* Set up checker mode for PE me (me->chk), interposing on its dispatch.
 * Returns 0, or -1 when out of memory. */
int shmemu__check_pe_init(shmemu__pe *me) SHMEMU__HIDDEN;
/* Forget whatever is still held (the PE drained first, or the job was
 * aborted) and free the PE's checker state. */
void shmemu__check_pe_fini(shmemu__pe *me) SHMEMU__HIDDEN;

/* Deliver everything held (quiet, barrier_all, collective allocation,
 * leaving the job), in a fuzzed order that respects fences. */
void shmemu__check_quiet(shmemu__pe *me) SHMEMU__HIDDEN;
/* Operations issued after this are delivered after those before it, per
 * destination PE. */
void shmemu__check_fence(shmemu__pe *me) SHMEMU__HIDDEN;

/* While me waits: deliver held operations (each after its hold time) until
 * ready(me, arg) holds (1), nothing is held any more (0: wait normally), or
 * the job is aborted (its status). */
int shmemu__check_progress(shmemu__pe *me, shmemu__ready_fn ready, void *arg)
    SHMEMU__HIDDEN;

/* A wait of me on [off, off + nbytes) of its own heap completed. */
void shmemu__check_woke(shmemu__pe *me, const char *call, size_t off, size_t nbytes)
    SHMEMU__HIDDEN;
/* me arrives at a sync of team slot (one that completes nothing). */
void shmemu__check_sync_arrive(shmemu__pe *me, int slot, const char *call) SHMEMU__HIDDEN;
/* me passed a sync. */
void shmemu__check_synced(shmemu__pe *me) SHMEMU__HIDDEN;

/* Team syncs (every kind, the internal ones too): on arrival at generation
 * gen of team slot, and once passed. */
void shmemu__check_sync_enter(shmemu__pe *me, int slot, uint32_t gen) SHMEMU__HIDDEN;
void shmemu__check_sync_exit(shmemu__pe *me, int slot, uint32_t gen) SHMEMU__HIDDEN;

/* In the launching process, before the PEs start. */
void shmemu__check_ctl_init(struct shmemu__job *job) SHMEMU__HIDDEN;
/* In the launching process after a checked job ended with status rc: keep
 * its notes for shmemu_check_notes(), print them when the job failed, and
 * return rc, or SHMEMU_ERACE when it otherwise succeeded but conflicts
 * were found. */
int shmemu__check_job_end(struct shmemu__job *job, int rc) SHMEMU__HIDDEN;

/* Keep a note for the job (the same text only once). */
void shmemu__check_note(struct shmemu__job *job, const char *fmt, ...) SHMEMU__PRINTF(2, 3)
    SHMEMU__HIDDEN;
/* "function+0x1c" for a return address (cached per PE). */
const char *shmemu__check_site(shmemu__pe *me, void *addr) SHMEMU__HIDDEN;

#endif /* SHMEMU_CHECK_H */
