/*
 * runners.h - how PEs run, apart from where their heaps live: a transport's
 * job_run is one of these (or its own), whatever its memory.
 *
 *   threads: every PE a thread of the launching process (local, staged);
 *   procs:   every PE a forked process, supervised (shm; cuda next):
 *            each end reported through job->calls->pe_exited, job->calls->tick asked
 *            every ~20 ms which signal the survivors get.
 *
 * A third kind, processes started by an outside launcher (shmemu-run's
 * exec, PMIx for ucx), is job_attach's side of the contract.
 */
#ifndef SHMEMU_TL_RUNNERS_H
#define SHMEMU_TL_RUNNERS_H

#include "../transport.h"

/* Run entry(job, pe) for every PE on its own thread; return once all have
 * ended.  A thread that cannot start is reported as SHMEMU_TL_EXIT_NOSTART. */
int shmemu_tl_run_threads(struct shmemu_tl_job *job,
                          int (*entry)(struct shmemu_tl_job *job, int pe));

/* Run entry(job, pe) for every PE in a forked child (which dies with its
 * parent) and supervise them until all have been reaped. */
int shmemu_tl_run_procs(struct shmemu_tl_job *job,
                        int (*entry)(struct shmemu_tl_job *job, int pe));

#endif /* SHMEMU_TL_RUNNERS_H */
