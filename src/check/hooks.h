/*
 * hooks.h - what the checker must learn from the core that no transport
 * call shows it: a call's entry and site, a wait that is spinning or that
 * woke, a sync's entry and exit.  This is the whole interface between the
 * core and the checker during a job (the data path reaches it through the
 * job's table, dispatch.h); every hook call stands behind SHMEMU__CHECKED,
 * one test when checker mode is off.
 *
 * Included by runtime/core.h; it needs nothing but the PE's type.
 */
#ifndef SHMEMU_CHECK_HOOKS_H
#define SHMEMU_CHECK_HOOKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct shmemu__pe shmemu__pe;

/* Is checker mode on for this PE?  Every hook call stands behind it. */
#define SHMEMU__CHECKED(me) __builtin_expect((me)->chk != NULL, 0)

/* On entry to every public call: note the call and its call site (for
 * reports), deliver what is due, perturb the schedule. */
void shmemu__check_enter(shmemu__pe *me, const char *call, void *site)
    __attribute__((visibility("hidden")));

/* A wait of me on [off, off + nbytes) of its own heap completed. */
void shmemu__check_woke(shmemu__pe *me, const char *call, size_t off, size_t nbytes)
    __attribute__((visibility("hidden")));

/* me arrives at a sync of team slot (one that completes nothing), and
 * passed it. */
void shmemu__check_sync_arrive(shmemu__pe *me, int slot, const char *call)
    __attribute__((visibility("hidden")));
void shmemu__check_synced(shmemu__pe *me) __attribute__((visibility("hidden")));

/* What the control plane asks of the checker while a PE waits or syncs.
 * The control plane sits below the checker (the checker reports and ends
 * jobs through it), so it reaches the checker through this table alone,
 * which the checker sets on each PE it checks (me->chk_waits, with
 * me->chk).
 *
 * progress: while me waits, deliver held operations (each after its hold
 * time) until ready(me, arg) holds (1), nothing is held any more (0: wait
 * normally), or the job is aborted (its status).
 * sync_enter, sync_exit: team syncs (every kind, the internal ones too),
 * on arrival at generation gen of team slot, and once passed. */
struct shmemu__check_waits {
    int (*progress)(shmemu__pe *me, int (*ready)(shmemu__pe *me, void *arg), void *arg);
    void (*sync_enter)(shmemu__pe *me, int slot, uint32_t gen);
    void (*sync_exit)(shmemu__pe *me, int slot, uint32_t gen);
};

/* Where the library may read [p, p + n) for the program (a reduction's
 * operands): past the watch on me's own memory and on peers' heaps through
 * views (unrecorded, and no fault per page and epoch), else p. */
const void *shmemu__check_read_past(shmemu__pe *me, const void *p, size_t n)
    __attribute__((visibility("hidden")));

/* Set by a public call while it stores into the caller's memory for the
 * program (shmemu_copy_local, shmemu_reduce_local): the call and its call
 * site, which name such a store where race detection records it (the
 * faulting instruction is the library's, not the program's). */
struct shmemu__lib_store {
    const char *call;
    void *site;
};
extern _Thread_local struct shmemu__lib_store shmemu__lib_store
    __attribute__((visibility("hidden")));

/* A thread that joined PE me (threads.c) ends: what it issued and the
 * checker holds goes out now, since that thread makes no later call that
 * would deliver it. */
void shmemu__check_thread_exit(shmemu__pe *me) __attribute__((visibility("hidden")));

#endif /* SHMEMU_CHECK_HOOKS_H */
