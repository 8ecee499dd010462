/*
 * check.h - checker mode as a layer between the core and any transport: it
 * changes when remote effects become visible, never what OpenSHMEM
 * guarantees (docs/CHECK.md).  What the runtime calls to set it up; the
 * core's calls during a job go through hooks.h.
 *
 * When checker mode is on, the job runs on the checker's table (layer.c),
 * which wraps the transport's data path (rma, amo, quiet, fence) and copies
 * the rest:
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

#include "runtime/core.h"

/* Bytes the checker adds to the shared control area for this job (0 when
 * checker mode is off); they follow the core's part. */
size_t shmemu__check_ctl_size(const struct shmemu__job *job) SHMEMU__HIDDEN;

/* When job->check asks for checking: build the layer's table in job->layer
 * over job->transport and make it the job's (job->ops). */
void shmemu__check_layer(struct shmemu__job *job) SHMEMU__HIDDEN;

/* Set up checker mode for PE me (me->chk).  Returns 0, or -1 when out of
 * memory. */
int shmemu__check_pe_init(shmemu__pe *me) SHMEMU__HIDDEN;
/* Forget whatever is still held (the PE drained first, or the job was
 * aborted) and free the PE's checker state. */
void shmemu__check_pe_fini(shmemu__pe *me) SHMEMU__HIDDEN;

/* Keep a note that explains a wrong result (printed when the job fails;
 * shmemu_check_notes), e.g. from the device layer. */
void shmemu__check_note(struct shmemu__job *job, const char *fmt, ...) SHMEMU__PRINTF(2, 3)
    SHMEMU__HIDDEN;

/* In the launching process, before the PEs start. */
void shmemu__check_ctl_init(struct shmemu__job *job) SHMEMU__HIDDEN;
/* In the launching process after a checked job ended with status rc: keep
 * its notes for shmemu_check_notes(), print them when the job failed, and
 * return rc, or SHMEMU_ERACE when it otherwise succeeded but conflicts
 * were found. */
int shmemu__check_job_end(struct shmemu__job *job, int rc) SHMEMU__HIDDEN;
/* A PE of a job no shmemu launcher ends (check_told_by_pe) finalizes:
 * the last one to do so tells what the checker found, as the launcher
 * would, and gets SHMEMU_ERACE when it found a race. */
int shmemu__check_pe_end(struct shmemu__job *job) SHMEMU__HIDDEN;

/* shmemu_ptr in checker mode: for a peer, an address in a read-only view
 * of its heap whose stores the checker turns into held puts
 * (pointers.c); for me, its own heap.  NULL where the transport maps no
 * views (map_view), more PEs of this process have views than it keeps, or
 * the machine is not x86-64. */
void *shmemu__check_ptr(shmemu__pe *me, int pe, size_t off) SHMEMU__HIDDEN;
/* What me stored through its views of peers' heaps lands now (a device
 * thread's system-scope fence: only that orders such stores for other
 * GPUs; a no-op where nothing is held). */
void shmemu__check_land_views(shmemu__pe *me) SHMEMU__HIDDEN;
/* Where the device threads' stores through peer pointers land (a
 * system-scope fence, a kernel's end, every thread waiting, the
 * scheduler's draws, under fuzzing): one of them lands first, chosen as
 * a GPU may deliver them.  Returns the PE it landed on if it was a word (a flag)
 * that overtook earlier stores there (the other PEs should get turns to
 * read what it announced before the rest lands), else -1. */
int shmemu__check_land_view_first(shmemu__pe *me) SHMEMU__HIDDEN;
/* The PE that a device thread's signal or atomic reached while me's
 * stores through views of its heap were held (they should land only after
 * the other PEs had turns to read), else -1. */
int shmemu__check_views_passed(shmemu__pe *me) SHMEMU__HIDDEN;
/* The checker's count of the operations it has held for me (0: none):
 * one held later has a higher sequence number. */
uint64_t shmemu__check_seq(shmemu__pe *me) SHMEMU__HIDDEN;
/* Whether p lies in me's checker views of peers' heaps (a peer pointer
 * under the checker). */
int shmemu__check_in_view(shmemu__pe *me, const void *p) SHMEMU__HIDDEN;
/* Whether me holds stores through views of peers' heaps. */
int shmemu__check_views_held(shmemu__pe *me) SHMEMU__HIDDEN;
/* Whether a pause for a reader on pe that an overtaking flag began is
 * still on (it ends once that PE acted, or after a bounded time). */
int shmemu__check_paused(shmemu__pe *me, int pe) SHMEMU__HIDDEN;
/* A device thread's signal or AMO went to pe while its puts to other PEs
 * were still held (a fence orders per PE): pe's reader gets time to act
 * before they land (fuzz; until pe passes a sync and acts, or a bound). */
void shmemu__check_pause_reader(shmemu__pe *me, int pe) SHMEMU__HIDDEN;
/* A device thread's atomic on addr (scope.c), before it runs (done 0)
 * and once it ran (done 1).  narrow: the name of its scope where that is
 * not system ("device", "block"), else NULL. */
void shmemu__check_dev_atomic(shmemu__pe *me, const void *addr, const char *narrow, int done)
    SHMEMU__HIDDEN;
/* The PE leaves: its views go (from shmemu__check_pe_fini). */
void shmemu__check_ptr_fini(shmemu__pe *me) SHMEMU__HIDDEN;
/* How deep the calling thread is in its PE's checker state: a store
 * through a checked pointer made from inside (the library writing where the
 * program asked it to) cannot be held then.  Part of a PE's per-thread
 * state where PEs take turns in one thread (job/pe.c). */
extern _Thread_local int shmemu__chk_depth SHMEMU__HIDDEN;

/* Which device thread made an access, for reports: dev 0 is the host. */
struct shmemu__who {
    unsigned dev, block[3], thread[3];
};
struct shmemu_dev_self; /* shmemu_device.h: a device thread (NULL: the host) */

/* Device calls under race detection (scope.c, for src/device/calls.c;
 * nothing outside it): the PE's clock now (for a put held until it
 * lands); a device RMA's access of [off, off + n) of pe's heap (write: a
 * put landing, stamped with its clock at issue; else a get), named "call
 * (at file:line)"; a signal's or AMO's release on word off of pe's heap
 * before it acts, and its acquire once it has read the word (an AMO that
 * fetches, a wait or test satisfied); the gen-th device barrier of all
 * PEs, on arrival and once passed. */
uint32_t shmemu__check_dev_clock(shmemu__pe *me) SHMEMU__HIDDEN;
void shmemu__check_dev_access(shmemu__pe *me, int write, int pe, size_t off, size_t n,
                              uint32_t clock, const char *call, const char *file, int line,
                              const struct shmemu_dev_self *self) SHMEMU__HIDDEN;
/* The same for a put landing that a report explains with why where it
 * conflicts (NULL: as shmemu__check_dev_access). */
void shmemu__check_dev_landed(shmemu__pe *me, int pe, size_t off, size_t n, uint32_t clock,
                              const char *call, const char *file, int line,
                              const struct shmemu_dev_self *self, const char *why) SHMEMU__HIDDEN;
/* The device thread that runs on the PE from now (NULL: the host again),
 * named by the race reports of what it stores through views and to its
 * own heap (src/device/launch.c tells, at each switch). */
void shmemu__check_dev_who(shmemu__pe *me, const struct shmemu_dev_self *self) SHMEMU__HIDDEN;
void shmemu__check_dev_release(shmemu__pe *me, int pe, size_t off) SHMEMU__HIDDEN;
/* A device call's signal or AMO (call) on the word at off of pe's heap
 * goes out (fuzz): it may land before the PE's stores through peer
 * pointers to pe, as an atomic instruction through one may. */
void shmemu__check_dev_amo(shmemu__pe *me, int pe, size_t off, const char *call) SHMEMU__HIDDEN;
/* The GPU's scopes for a kernel's plain stores of data (race.c): a
 * kernel of this PE starts (1) or ends (0); one of its threads made a
 * system-scope fence (__threadfence_system, shmemu_dev_fence, _quiet, a
 * device barrier). */
void shmemu__check_dev_kernel(shmemu__pe *me, int running) SHMEMU__HIDDEN;
void shmemu__check_dev_sys_fence(shmemu__pe *me) SHMEMU__HIDDEN;
void shmemu__check_dev_acquire(shmemu__pe *me, int pe, size_t off) SHMEMU__HIDDEN;
void shmemu__check_dev_barrier(shmemu__pe *me, int done, uint32_t gen) SHMEMU__HIDDEN;

/* A PE's own plain stores under race detection (own.c): watched from
 * when the program runs (start) until the PE leaves (stop); a kernel
 * whose code is at code (the library's built-ins, or the program's; NULL:
 * the program's) starts (running 1) and ends (0). */
void shmemu__own_start(shmemu__pe *me) SHMEMU__HIDDEN;
void shmemu__own_stop(shmemu__pe *me) SHMEMU__HIDDEN;
void shmemu__own_kernel(shmemu__pe *me, int running, const void *code) SHMEMU__HIDDEN;

/* shmemu_check_zero_pads (src/api): [off, off + bytes) of me's heap are
 * signal pads (bytes 0: the range at off is not); SHMEMU_ENOMEM past
 * SHMEMU__PADS_MAX ranges.  Outside race detection nothing is kept. */
#define SHMEMU__PADS_MAX 16
int shmemu__chk_pads_set(shmemu__pe *me, size_t off, size_t bytes) SHMEMU__HIDDEN;

/* SHMEMU_CHECK=device: turn this process's faults on symmetric memory into
 * the job's report (device.c).  Once per process; -1 if the handler could
 * not be installed. */
int shmemu__device_check_start(shmemu__pe *me) SHMEMU__HIDDEN;

#endif /* SHMEMU_CHECK_H */
