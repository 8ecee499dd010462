/*
 * race.h - conflicting-access detection (SHMEMU_CHECK=race), part of the
 * checker (check.h).
 *
 * Happens-before is tracked with vector clocks.  Each PE keeps its own
 * clock vector; it is published (joined into shared vectors) where another
 * PE can learn of this PE's past: on the word an operation that can serve
 * as a flag writes (put with signal, AMO, put of at most 8 bytes), and on
 * arrival at a team sync.  It is acquired where a PE learns: a wait or test
 * satisfied on such a word, a fetching AMO or a small get of one, the end
 * of a team sync.  Every put and get is recorded per 64-byte granule of its
 * destination heap (the last write and the last read, with their PE, clock,
 * bytes and call site); an access that overlaps a recorded one from another
 * PE that does not happen before it is a conflict, reported once per pair
 * of call sites as a checker note, and the job ends with SHMEMU_ERACE.
 *
 * A PE's own plain stores to its heap are seen by own.c (the program's view
 * of its heap is read-only under race detection), in host code and in its
 * kernels' device threads, and device calls' puts and gets
 * (src/device/calls.c, through scope.c); not its loads, nor loads through
 * shmemu_ptr (stores through it are held and recorded as puts:
 * pointers.c).  Shadow records keep one writer and one reader per
 * granule, so some conflicts are missed; none is invented.
 */
#ifndef SHMEMU_RACE_H
#define SHMEMU_RACE_H

#include "runtime/core.h"

struct shmemu__race;
struct shmemu__who; /* check.h: the device thread of an access, NULL: host */

/* Shared bytes for a job of npes PEs with heap_size-byte heaps. */
size_t shmemu__race_ctl_size(int npes, size_t heap_size) SHMEMU__HIDDEN;
/* In the launching process, before any PE runs: lay out the shared part. */
void shmemu__race_ctl_init(void *area, int npes, size_t heap_size) SHMEMU__HIDDEN;

/* Per PE: the clock vector and caches.  NULL when out of memory. */
struct shmemu__race *shmemu__race_new(shmemu__pe *me, void *area) SHMEMU__HIDDEN;
void shmemu__race_free(struct shmemu__race *r) SHMEMU__HIDDEN;

/* This PE's own clock: what its accesses are stamped with. */
uint32_t shmemu__race_clock(const struct shmemu__race *r) SHMEMU__HIDDEN;
/* The GPU's scopes for a kernel's plain stores of data (race.c, "the
 * GPU's scopes"): a kernel of me starts (running 1) or ends (0); one of
 * its threads made a system-scope fence, which releases the data stored
 * so far; 1 if a store of n bytes by the running device thread is data,
 * with *stamp its clock (else 0, *stamp untouched). */
void shmemu__race_dev_kernel(shmemu__pe *me, struct shmemu__race *r, int running) SHMEMU__HIDDEN;
void shmemu__race_dev_fence(shmemu__pe *me, struct shmemu__race *r) SHMEMU__HIDDEN;
int shmemu__race_dev_data(shmemu__pe *me, struct shmemu__race *r, size_t n,
                          uint32_t *stamp) SHMEMU__HIDDEN;
/* A system-scope acquire by one of the running kernel's threads (a
 * fence, a _system atomic, a device wait or barrier): what the PE's plain
 * loads saw so far may order the data they read next. */
void shmemu__race_dev_acquire(shmemu__pe *me, struct shmemu__race *r) SHMEMU__HIDDEN;
/* A device thread's plain store of data through a peer pointer, landing
 * (stamp from shmemu__race_dev_data): recorded as shmemu__race_access
 * records a put's, and named, where a read conflicts with it, with the
 * missing fence. */
void shmemu__race_dev_store(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                            size_t n, uint32_t clock, const char *call, void *addr,
                            const struct shmemu__who *who) SHMEMU__HIDDEN;

/* A copy of the clock vector for an operation that will publish it when
 * delivered (freed by the caller), then move the own clock on.  NULL when
 * out of memory (the release is then lost: conflicts may be invented, so
 * detection stops). */
uint32_t *shmemu__race_release_begin(shmemu__pe *me, struct shmemu__race *r) SHMEMU__HIDDEN;
/* Publish vc (from release_begin) on word off of pe's heap. */
void shmemu__race_release(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                          const uint32_t *vc) SHMEMU__HIDDEN;
/* The same, telling where the release was made (reports name it). */
void shmemu__race_release_by(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                             const uint32_t *vc, const char *where) SHMEMU__HIDDEN;
/* Learn what was published on the words of [off, off + n) of pe's heap. */
void shmemu__race_acquire(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                          size_t n) SHMEMU__HIDDEN;

/* A PE other than me whose release on a word of [off, off + n) of pe's
 * heap me has not learned, or -1; site[len]: that PE's last write there
 * ("call (at where)"), "" if unknown. */
int shmemu__race_unlearned(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off, size_t n,
                           char *site, size_t len) SHMEMU__HIDDEN;

/* Record an access by me (stamped clock, from call at site) of [off, off +
 * n) of pe's heap, and report a conflict with what was recorded before. */
void shmemu__race_access(shmemu__pe *me, struct shmemu__race *r, int write, int pe,
                         size_t off, size_t n, uint32_t clock, const char *call,
                         void *site, const struct shmemu__who *who) SHMEMU__HIDDEN;

/* A copy of the clock vector (freed by the caller), for a write recorded
 * later with shmemu__race_write_since; NULL when out of memory. */
uint32_t *shmemu__race_vc_copy(shmemu__pe *me, const struct shmemu__race *r) SHMEMU__HIDDEN;
/* Record a write by me that may have landed any time from when this PE's
 * clock vector was then (shmemu__race_vc_copy) until now: it conflicts
 * with what was recorded before unless that was ordered before then, and
 * with what comes after unless ordered after now. */
void shmemu__race_write_since(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                              size_t n, const uint32_t *then, const char *call,
                              void *site, const struct shmemu__who *who) SHMEMU__HIDDEN;

/* me could load pe's heap until now (a run of its view closes) or read it
 * by a call: it may know all that was published there so far.  Where its
 * loads of its view of pe's heap are watched, it is judged to know what
 * was published there only up to its last look (jobs of at most 64 PEs;
 * in larger ones, all that was published counts).  Safe in a signal
 * handler. */
void shmemu__race_heap_seen(shmemu__pe *me, struct shmemu__race *r, int pe) SHMEMU__HIDDEN;

/* A PE's own plain stores (own.c), where tracked (shmemu__race_tracks_own:
 * jobs of at most 1024 PEs).  A store of [off, off + n) of me's heap made
 * at addr, recorded as a write and published on its page: the store
 * may have been a release (a flag) that a peer's acquire of any word of
 * the page then learns.  Conflicts of a plain store are judged against
 * all that either side may have learned by plain loads (every clock
 * published on its own heap and on those it has views of). */
int shmemu__race_tracks_own(const struct shmemu__race *r) SHMEMU__HIDDEN;
void shmemu__race_own_store(shmemu__pe *me, struct shmemu__race *r, size_t off, size_t n,
                            const char *call, void *addr,
                            const struct shmemu__who *who) SHMEMU__HIDDEN;
/* A plain load of [off, off + n) of pe's heap (me's own, or a peer's
 * through a view) made at addr, recorded as a read.  It may have been a
 * poll of a flag: a later write conflicts with it only if it cannot have
 * been the flag's raise (a put, or a plain store by one instruction, of
 * more than 8 bytes), judged against all the writer may have
 * learned by plain loads. */
void shmemu__race_plain_load(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                             size_t n, const char *call, void *addr,
                             const struct shmemu__who *who) SHMEMU__HIDDEN;
/* Publish me's clock vector on the page of off of its own heap: the
 * library wrote there for it, and the program's stores that follow on
 * that page until its clock moves are not seen. */
void shmemu__race_page_release(shmemu__pe *me, struct shmemu__race *r, size_t off) SHMEMU__HIDDEN;
/* A device call's access (device.c's RMA: write 1 a put landing, 0 a
 * get), stamped clock, judged as a plain access is (a device thread's
 * flags may be plain loads and stores), named "call (at file:line)". */
void shmemu__race_dev_access(shmemu__pe *me, struct shmemu__race *r, int write, int pe,
                             size_t off, size_t n, uint32_t clock, const char *call,
                             const char *file, int line, const char *why,
                             const struct shmemu__who *who) SHMEMU__HIDDEN;
/* The device barrier of all PEs (its gen-th), on arrival and once passed,
 * as a team sync. */
void shmemu__race_dev_barrier(shmemu__pe *me, struct shmemu__race *r, int done, uint32_t gen)
    SHMEMU__HIDDEN;
/* The same for all of me's heap (the later stores to a run of pages
 * opened at once, unseen). */
void shmemu__race_heap_release(shmemu__pe *me, struct shmemu__race *r) SHMEMU__HIDDEN;
/* Team syncs: on arrival (generation gen of team slot), and once passed. */
void shmemu__race_sync_arrive(shmemu__pe *me, struct shmemu__race *r, int slot, uint32_t gen)
    SHMEMU__HIDDEN;
void shmemu__race_sync_done(shmemu__pe *me, struct shmemu__race *r, int slot, uint32_t gen)
    SHMEMU__HIDDEN;

/* A conflict the granule records cannot show (the program's store to a
 * nonblocking put's source before the put read it), reported by the
 * caller: counted, so that the job ends with SHMEMU_ERACE. */
void shmemu__race_count_found(struct shmemu__race *r) SHMEMU__HIDDEN;

/* Conflicts found in the job so far (any process). */
uint32_t shmemu__race_count(void *area) SHMEMU__HIDDEN;

#endif /* SHMEMU_RACE_H */
