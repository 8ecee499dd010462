/*
 * agree.h - argument agreement of control collectives (agree.c).
 */
#ifndef SHMEMU_AGREE_H
#define SHMEMU_AGREE_H

#include "runtime/core.h"

/* The labels of a REC_COLL record's values (shmemu_team_agree), for the
 * report of the agreement in progress on this thread. */
extern _Thread_local const char *shmemu__agree_names SHMEMU__HIDDEN;

/* Control collective over the members of team slot: publish rec, sync, and
 * compare the first nargs arguments (and the kind) of every member's record
 * with ours: SHMEMU_EMISMATCH, reported once, after a second sync.  On
 * success the caller syncs again before any member may reuse its record.
 * Completing what this PE issued first is the caller's. */
int shmemu__agree(shmemu__pe *me, const char *call, int slot, struct shmemu__rec *rec,
                  int nargs) SHMEMU__HIDDEN;

/* A control collective (allocation, free, resize, team split) starts as a
 * barrier does: what this PE issued is complete before the others go on;
 * then its arguments are agreed.  Inline, so that the completion (the
 * API's) is the caller's: shmemu_team_agree alone agrees without it. */
static inline int shmemu__agree_ctl(shmemu__pe *me, const char *call, int slot,
                                    struct shmemu__rec *rec, int nargs)
{
    int st = shmemu__complete(me, call, 1);
    return st ? st : shmemu__agree(me, call, slot, rec, nargs);
}

#endif
