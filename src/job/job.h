/*
 * job.h - the job layer's entry points among its own files (job.c, pe.c,
 * run.c, threads.c): making, attaching to and joining a job, a PE's life,
 * and the callbacks the transports reach through job->calls.
 */
#ifndef SHMEMU_JOB_H
#define SHMEMU_JOB_H

#include "runtime/core.h"

/* Seconds after which a job of this process ends with a report of where
 * each PE is: $SHMEMU_TIMEOUT, or 300 in checker mode; 0: never. */
double shmemu__job_timeout(const struct shmemu__job *job) SHMEMU__HIDDEN;
/* Check opts, create the job's heaps and control area (errors reported as
 * coming from call). */
int shmemu__job_create(const shmemu_opts *opts, const char *call,
                       struct shmemu__job **job_p) SHMEMU__HIDDEN;
void shmemu__job_free(struct shmemu__job *job) SHMEMU__HIDDEN;
/* Every PE (thread or process) runs this: pe_main between an implicit init
 * and an implicit finalize. */
int shmemu__pe_entry(struct shmemu_tl_job *tl, int pe) SHMEMU__HIDDEN;
/* Supervision callbacks for process transports (run.c). */
void shmemu__pe_exited(struct shmemu_tl_job *tl, int pe, int how, int code)
    SHMEMU__HIDDEN;
int shmemu__tick(struct shmemu_tl_job *tl) SHMEMU__HIDDEN;
/* The job ran past its timeout: report where each PE is and abort it with
 * SHMEMU_ETIMEDOUT. */
void shmemu__timeout_report(struct shmemu__job *job) SHMEMU__HIDDEN;

/* SPMD: create this process's view of the job shmemu-run started (boot:
 * its environment's bootstrap). */
struct shmemu__boot;

int shmemu__job_attach_env(const char *call, const struct shmemu__boot *boot,
                           struct shmemu__job **job_p, int *pe_p) SHMEMU__HIDDEN;
/* SPMD under another launcher (mpirun: boot is PMIx's): 1 with the job
 * joined, else a status (reported). */
int shmemu__job_join_launched(const char *call, const struct shmemu__boot *boot,
                              struct shmemu__job **job_p, int *pe_p) SHMEMU__HIDDEN;
/* Ask the launcher that started the job to end every process of it with
 * status (SHMEMU_ENOTSUP: it has no such call; the core's abort does it). */
int shmemu__job_launcher_abort(struct shmemu__job *job, int status, const char *msg)
    SHMEMU__HIDDEN;

/* The core's per-thread state as one PE's (job->tl.pe_ctx). */
void shmemu__pe_ctx(struct shmemu_tl_job *tl, void *ctx, int save) SHMEMU__HIDDEN;
size_t shmemu__pe_ctx_size(void) SHMEMU__HIDDEN;
void shmemu__pe_ctx_prefetch(struct shmemu_tl_job *tl, const void *ctx) SHMEMU__HIDDEN;
/* A cooperative job's array of PE structures (job->pe_slab): 0, or -1 when
 * out of memory; nothing for other jobs. */
int shmemu__pe_slab_alloc(struct shmemu__job *job, int npes) SHMEMU__HIDDEN;
void shmemu__pe_slab_free(struct shmemu__job *job) SHMEMU__HIDDEN;

#endif
