/*
 * boot.h - bootstraps (NVSHMEM's word): how a process learns its place in
 * a job that a launcher started, and how that job's processes exchange
 * what they must before they share anything.  One table, one instance per
 * way of starting: shmemu-run's environment, a PMIx launcher (mpirun), and
 * none (the process makes a job of its own: shmemu_launch, or shmemu_init
 * alone).  Transports never call a launcher: what they exchange while
 * joining goes through the core's callbacks (transport.h), to these.
 */
#ifndef SHMEMU_BOOT_H
#define SHMEMU_BOOT_H

#include <stddef.h>

#include "runtime/platform.h"

/* The most PEs a job may have: more is surely a typo, and would exhaust
 * threads anyway. */
#define SHMEMU__NPES_MAX 65536

struct shmemu__boot {
    const char *name; /* "shmemu-run", "pmix", "self" */
    int rank, size;   /* this process's place in the job */
    int nnodes;       /* nodes the job's processes run on */
    /* The launcher made the job's memory before it started the processes:
     * they attach to it (job_attach), not make it together (job_join). */
    int attach;
    /* Every process's len bytes, in rank order, into all (size * len
     * bytes): a collective of every process of the job.  NULL where the
     * processes have nothing to exchange (shmemu-run made the segment
     * every process maps). */
    int (*allgather)(const struct shmemu__boot *b, const void *mine, void *all, size_t len,
                     char *why, size_t wlen);
    /* Every process of the job has called it.  NULL as for allgather. */
    int (*barrier)(const struct shmemu__boot *b, char *why, size_t wlen);
    /* End every process of the job with status, msg said by the launcher;
     * NULL where the launcher has no such call (the core's own abort
     * then ends the job). */
    int (*abort)(const struct shmemu__boot *b, int status, const char *msg);
};

/* The bootstrap this process was started with: 1 with *b set (the
 * launcher's: shmemu-run's environment or PMIx's); 0 where no launcher
 * started it (*b the self bootstrap); a status, with one line naming call,
 * where a launcher started it but it cannot join (a damaged environment,
 * PMIx missing, a fork of a launched process). */
int shmemu__boot_detect(const char *call, const struct shmemu__boot **b) SHMEMU__HIDDEN;

#endif /* SHMEMU_BOOT_H */
