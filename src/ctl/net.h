/*
 * net.h - the control plane where the job's processes share no memory
 * (PEs on several nodes: tl.ctl_remote), for src/ctl/ alone.
 *
 * Every process keeps a copy of the control area with the shared plane's
 * layout (ctl.h), inside its heap's registration, and peers reach it with
 * the transport's RMA and atomics.  Each word has one home:
 *
 *  - a PE's block (life, records, wait state): its own copy; a departure
 *    is also written into every copy, so that syncs see it locally;
 *  - the abort word: every copy (each PE tests its own on every call); PE
 *    0's decides which abort wins, and the winner writes every copy;
 *  - team slots' membership, references and the report claim: PE 0's;
 *  - a team's arrival counter: its first member's copy; its release count
 *    and mismatch count: each member's copy, bumped by the last arrival.
 *
 * Nobody can wake a process across a network: a PE that waits here spins,
 * yields, then naps on its own word for at most NET_NAP_MAX_NS at a time,
 * driving the transport's progress in between.  Deadlock detection counts
 * napping PEs at PE 0 and proves a deadlock from their blocks (net.c).
 */
#ifndef SHMEMU_NET_H
#define SHMEMU_NET_H

#include "plane.h"
#include "wait.h"

static inline int shmemu__net(const struct shmemu__job *job)
{
    return job->tl.ctl_remote;
}

int shmemu__net_claim_report(struct shmemu__job *job) SHMEMU__HIDDEN;
int shmemu__net_abort_job(struct shmemu__job *job, int status, int pe, int rc,
                          const char *msg, const char *report) SHMEMU__HIDDEN;
void shmemu__net_depart(shmemu__pe *me) SHMEMU__HIDDEN;

int shmemu__net_team(shmemu__pe *me, int slot, struct shmemu__team_geom *g) SHMEMU__HIDDEN;
int shmemu__net_team_claim(shmemu__pe *me, struct shmemu__team_geom *g) SHMEMU__HIDDEN;
void shmemu__net_team_leave(shmemu__pe *me, int slot) SHMEMU__HIDDEN;

const struct shmemu__rec *shmemu__net_record(shmemu__pe *me, int pe) SHMEMU__HIDDEN;
int32_t shmemu__net_out(shmemu__pe *me, int pe, int k) SHMEMU__HIDDEN;

/* A value wait once spinning is over: poll, nap, drive progress. */
int shmemu__net_wait(shmemu__pe *me, const struct shmemu__wait_desc *d, shmemu__ready_fn ready,
                     void *arg) SHMEMU__HIDDEN;
/* One sync of team slot's members (arrival only).  *mixed: members
 * differed in kind of call (see shmemu__team_sync_as). */
int shmemu__net_team_sync(shmemu__pe *me, int slot, const char *call, int ctl, int *mixed)
    SHMEMU__HIDDEN;

#endif /* SHMEMU_NET_H */
