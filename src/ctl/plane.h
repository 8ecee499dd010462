/*
 * plane.h - the control plane, as the rest of the core sees it.
 *
 * Everything PEs must agree on outside the data path goes through this
 * interface and wait.h: the job's abort state and its one report, PE life
 * (start, departure, how a PE process ended), team slots (claim, look up,
 * leave), the records members exchange in control collectives (allocation,
 * team split, argument agreement), and -- in wait.h -- team syncs, value
 * waits, wake-ups and deadlock detection.  No file outside src/ctl/ reads
 * the control area's layout (ctl.h declares it, for src/ctl/ alone).
 *
 * The one implementation today runs on a control area every PE maps and
 * does atomics on (SHMEMU_TL_CAP_SHARED_CTL): plane.c, wait.c, livelock.c.
 * The calls are shaped so that a transport without shared memory (a
 * network) can be given a plane of its own, built on its remote atomics and
 * messages: a dissemination barrier on AMOs for the syncs, an allgather of
 * records for the exchanges, an abort message that sets each PE's local
 * abort word, deadlock reports gathered when every PE is blocked.  So no
 * caller keeps a pointer into the area across a sync (records are read
 * between the two syncs of an exchange), and the abort test on every call's
 * hot path reads a word the plane hands each PE (me->abort_word).
 */
#ifndef SHMEMU_PLANE_H
#define SHMEMU_PLANE_H

#include "plane_ops.h"
#include "runtime/core.h"

/* ---------------------------------------------------------------- the job */

/* Bytes of control area the plane needs for npes PEs. */
size_t shmemu__plane_size(int npes) SHMEMU__HIDDEN;
/* Lay out a zeroed area (launching process): the predefined teams, the
 * error mode, fence-free notification if every process can take part. */
void shmemu__plane_init(struct shmemu__job *job, int error_mode) SHMEMU__HIDDEN;
/* What shmemu_launch returns: the abort's result, else the first PE that
 * returned nonzero. */
int shmemu__plane_result(struct shmemu__job *job) SHMEMU__HIDDEN;
/* The status the job was aborted with, 0 if it runs. */
int shmemu__plane_abort_status(struct shmemu__job *job) SHMEMU__HIDDEN;
/* 1 if a PE ended the job with shmem_global_exit, its status in *code. */
int shmemu__plane_global_exit(struct shmemu__job *job, int *code) SHMEMU__HIDDEN;
/* Claim the job's one report of a job-wide failure: 1 for the first
 * caller, who prints it. */
int shmemu__plane_claim_report(struct shmemu__job *job) SHMEMU__HIDDEN;
/* A job joined through shmemu-run's environment: 1 if its control area
 * was laid out by this version for this job's npes and heap size. */
int shmemu__plane_matches(struct shmemu__job *job) SHMEMU__HIDDEN;
/* SHMEMU_ERRORS_ABORT or _RETURN, job-wide. */
int shmemu__plane_error_mode(struct shmemu__job *job) SHMEMU__HIDDEN;
void shmemu__plane_set_error_mode(struct shmemu__job *job, int mode) SHMEMU__HIDDEN;
/* (shmemu__abort_job, core.h, is the plane's too: plane.c.) */

/* What a failure on a PE does to its job (core.h): the job layer sets it. */
extern const struct shmemu__fail_policy shmemu__plane_fail_policy SHMEMU__HIDDEN;

/* ----------------------------------------------------------------- a PE */

/* Bind me to the plane (me->abort_word, its slot).  Fails (nonzero) when
 * this process cannot take part in the fence-free wake-ups the job relies
 * on. */
int shmemu__plane_pe_start(shmemu__pe *me) SHMEMU__HIDDEN;
/* me is set up: it runs, in this process, as the others now see. */
void shmemu__plane_pe_running(shmemu__pe *me) SHMEMU__HIDDEN;
/* The process that runs PE pe (shmemu-run's reports). */
void shmemu__plane_set_pid(struct shmemu__job *job, int pe, int pid) SHMEMU__HIDDEN;
int shmemu__plane_pid(struct shmemu__job *job, int pe) SHMEMU__HIDDEN;
/* Checker mode: the library call PE me is in and its call site, for the
 * watchdog's report of where each PE is. */
void shmemu__plane_last_call(shmemu__pe *me, const char *call, void *site) SHMEMU__HIDDEN;
/* PE me leaves the job (life: SHMEMU__LIFE_DEPARTED or _FAILED) with
 * pe_main's rc; syncs and waits that counted on it are released. */
void shmemu__depart(shmemu__pe *me, int life, int rc) SHMEMU__HIDDEN;
/* A PE process ended (launching process).  pe_left: 1 if it had left
 * through the library.  pe_failed: mark it failed (the survivors then see
 * it gone: abort first, so that the report is the launcher's). */
int shmemu__plane_pe_left(struct shmemu__job *job, int pe) SHMEMU__HIDDEN;
void shmemu__plane_pe_failed(struct shmemu__job *job, int pe) SHMEMU__HIDDEN;

/* --------------------------------------------------------------- teams */

/* A team as every member sees it: world PEs start + i * stride, i < size. */
struct shmemu__team_geom {
    int start, stride, size;
    int num_contexts;
    uint32_t epoch; /* changes each time the slot is taken again */
};

/* g as slot t of a control area describes it. */
static inline void shmemu__plane_geom(const struct shmemu__ctl_team *t,
                                      struct shmemu__team_geom *g)
{
    g->epoch = atomic_load(&t->epoch);
    g->start = t->start;
    g->stride = t->stride;
    g->size = t->size;
    g->num_contexts = t->num_contexts;
}

/* Fill g for slot: 0, or -1 when no team holds it. */
int shmemu__plane_team(shmemu__pe *me, int slot, struct shmemu__team_geom *g)
    SHMEMU__HIDDEN;
/* Take a free slot for a new team with g's members (g->epoch is set):
 * the slot, or -1 when all are in use. */
int shmemu__plane_team_claim(shmemu__pe *me, struct shmemu__team_geom *g) SHMEMU__HIDDEN;
/* This member is done with slot; the last one frees it. */
void shmemu__plane_team_leave(shmemu__pe *me, int slot) SHMEMU__HIDDEN;

/* ------------------------------------------------------------ exchanges */

/* A control collective's exchange: each member publishes its record, syncs
 * (shmemu__team_sync_as), then reads everyone's; results a member hands the
 * others after that first sync go in out[k]. */
void shmemu__plane_publish(shmemu__pe *me, const struct shmemu__rec *rec) SHMEMU__HIDDEN;
const struct shmemu__rec *shmemu__plane_record(shmemu__pe *me, int pe) SHMEMU__HIDDEN;
void shmemu__plane_publish_out(shmemu__pe *me, int k, int32_t value) SHMEMU__HIDDEN;
int32_t shmemu__plane_out(shmemu__pe *me, int pe, int k) SHMEMU__HIDDEN;

/* ----------------------------------------------------- the two planes */

extern const struct shmemu__plane_ops shmemu__net_plane SHMEMU__HIDDEN;    /* net.c */

/* Set job->plane from what the transport made of the job. */
void shmemu__plane_choose(struct shmemu__job *job) SHMEMU__HIDDEN;

#endif /* SHMEMU_PLANE_H */
