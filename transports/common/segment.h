/*
 * segment.h - the shared host segment of a process job (segment.c): what
 * shm, cuda and ucx share.
 */
#ifndef SHMEMU_SEGMENT_H
#define SHMEMU_SEGMENT_H

#include <stddef.h>

#include "../transport.h"

/* The segment behind a job: the control area, then (unless no_heaps) every
 * PE's heap.  Other process transports whose heaps live elsewhere (cuda)
 * keep their control area in one, with no_heaps set before create/attach. */
struct shmemu_shm_seg {
    int no_heaps;
    /* SHMEMU_CHECK=device: heap_base[] points into `view`, an inaccessible
     * reservation, as device addresses are to the host; the bytes are
     * reached at `heaps` by the device-view table alone. */
    int device_view;
    char *view;
    char *alias; /* the heaps again, for the transport's own accesses
                  * (shmemu_tl_job.aliases) */
    int fd;
    void *ctl;
    size_t ctl_len; /* page-rounded; the heaps follow it in the segment */
    char *heaps;    /* npes * stride bytes of address space */
    size_t stride;  /* heap + guard gap */
    size_t seg_size;
};

/* A process transport's job_create, job_attach, pe_export, job_destroy
 * and probe, on a segment the caller holds (job->ctl and, with heaps, job->heap_base set). */
int shmemu_shm_seg_create(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj);
int shmemu_shm_seg_attach(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj, int pe);
int shmemu_shm_seg_export(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj);
void shmemu_shm_seg_destroy(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj);
/* For jobs without a launching process (mpirun): one process creates the
 * segment under a fresh name it hands the others (who open it by that
 * name), and unlinks the name once all have. */
int shmemu_shm_seg_create_named(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj,
                                char *name, size_t name_len);
int shmemu_shm_seg_open_named(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj, int pe,
                              const char *name);
int shmemu_shm_probe(char *why, size_t why_len);

/*
 * Create a segment of size bytes with shm_open(O_CREAT|O_EXCL, 0600) under a
 * fresh unguessable name (written to name), reserve its pages, and unlink it
 * unless keep_name (the tests keep it to check who may open it).  Sets *fd_p.
 * On failure returns SHMEMU_ENOMEM or SHMEMU_ENODEV with why filled.
 */
int shmemu_shm_segment_create(size_t size, int keep_name, char *name, size_t name_len,
                              int *fd_p, char *why, size_t why_len);

#endif
