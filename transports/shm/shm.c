/*
 * shm.c - the `shm` transport: every PE is a process; the control area and
 * every heap live in one POSIX shared-memory segment (common/segment.c).
 *
 * Each process maps the heaps into one reservation with an inaccessible gap
 * after each, as the local transport does; the data path and the futexes
 * (process-shared here) come from transports/common.  With
 * SHMEMU_CHECK=device the heaps behave as device memory (shm_device_ops).
 */
#include "shm.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/mapped.h"
#include "../common/runners.h"
#include "../common/say.h"
#include "shmemu.h"

static int shm_job_create(struct shmemu_tl_job *job)
{
    return shmemu_shm_seg_create(job, job->priv);
}

static void shm_job_destroy(struct shmemu_tl_job *job)
{
    shmemu_shm_seg_destroy(job, job->priv);
}

/* ------------------------------------------------------------- SPMD */

static int shm_pe_export(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    return shmemu_shm_seg_export(job, job->priv);
}

static int shm_job_attach(struct shmemu_tl_job *job, int pe)
{
    return shmemu_shm_seg_attach(job, job->priv, pe);
}

/* The process's static data onto its own heap range in the segment. */
static int shm_alias(struct shmemu_tl_job *job, int pe, size_t off, void *addr, size_t len)
{
    struct shmemu_shm_seg *sj = job->priv;
    if (mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, sj->fd,
             (off_t)(sj->ctl_len + (size_t)pe * job->heap_size + off)) == MAP_FAILED) {
        shmemu_tl_say(job, "mapping the program's static data (%zu bytes at %p) into PE %d's heap "
                 "failed: %s",
            len, addr, pe, strerror(errno));
        return SHMEMU_ENOMEM;
    }
    return SHMEMU_OK;
}

/* A view of any PE's heap for checker mode's pointers (map_view). */
static int shm_map_view(struct shmemu_tl_job *job, int pe, size_t off, void *addr, size_t len,
                        int writable)
{
    struct shmemu_shm_seg *sj = job->priv;
    int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
    return mmap(addr, len, prot, MAP_SHARED | MAP_FIXED, sj->fd,
                (off_t)(sj->ctl_len + (size_t)pe * job->heap_size + off)) == MAP_FAILED
               ? SHMEMU_ENOMEM
               : SHMEMU_OK;
}

const struct shmemu_transport_ops shmemu_shm_ops = {
    .size = sizeof(struct shmemu_transport_ops),
    .name = "shm",
    .caps = SHMEMU_TL_CAP_LOAD_STORE | SHMEMU_TL_CAP_CPU_ATOMICS | SHMEMU_TL_CAP_SHARED_CTL |
            SHMEMU_TL_CAP_PROCESSES | SHMEMU_TL_CAP_SPMD,
    .job_priv_size = sizeof(struct shmemu_shm_seg),
    .probe = shmemu_shm_probe,
    .job_create = shm_job_create,
    .job_run = shmemu_tl_run_procs,
    .job_destroy = shm_job_destroy,
    .job_attach = shm_job_attach,
    .pe_enter = NULL,
    .rma = shmemu_mapped_rma,
    .amo = shmemu_mapped_amo,
    .ptr = shmemu_mapped_ptr,
    .quiet = NULL,
    .fence = NULL,
    .ctl_wait = shmemu_mapped_wait_shared,
    .ctl_wake = shmemu_mapped_wake_shared,
    .pe_export = shm_pe_export,
    .alias = shm_alias,
    .map_view = shm_map_view,
};

/* ------------------------------------------------------ the device view */

static int dev_job_create(struct shmemu_tl_job *job)
{
    struct shmemu_shm_seg *sj = job->priv;
    sj->device_view = 1;
    return shmemu_shm_seg_create(job, sj);
}

static int dev_job_attach(struct shmemu_tl_job *job, int pe)
{
    struct shmemu_shm_seg *sj = job->priv;
    sj->device_view = 1;
    return shmemu_shm_seg_attach(job, sj, pe);
}

/* An address in the view as its bytes' address (NULL when [p, p+n) is not
 * inside one heap); others are host memory. */
static void *real(const struct shmemu_tl_job *job, const void *p, size_t n)
{
    const struct shmemu_shm_seg *sj = job->priv;
    uintptr_t a = (uintptr_t)p, v = (uintptr_t)sj->view;
    if (a < v || a - v >= sj->stride * (size_t)job->npes)
        return (void *)(uintptr_t)p;
    size_t off = (size_t)(a - v) % sj->stride;
    if (off > job->heap_size || n > job->heap_size - off)
        return NULL;
    return sj->heaps + (a - v);
}

static int dev_rma(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d)
{
    const struct shmemu_shm_seg *sj = job->priv;
    struct shmemu_tl_rma r = *d;
    if (d->nbytes && !(r.local = real(job, d->local, d->nbytes)))
        return SHMEMU_ERANGE;
    return shmemu_mapped_rma_at(sj->heaps + (size_t)d->pe * sj->stride, &r);
}

static int dev_amo(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d)
{
    const struct shmemu_shm_seg *sj = job->priv;
    return shmemu_tl_cpu_amo(sj->heaps + (size_t)d->pe * sj->stride + d->off, d) == 0
               ? SHMEMU_OK
               : SHMEMU_EINVAL;
}

static int dev_local_copy(struct shmemu_tl_job *job, int pe, void *dst, const void *src,
                          size_t n)
{
    (void)pe;
    return shmemu_tl_real_copy(job, real, dst, src, n);
}

static int dev_local_reduce(struct shmemu_tl_job *job, int pe,
                            const struct shmemu_tl_reduce *d)
{
    (void)pe;
    return shmemu_tl_real_reduce(job, real, d);
}

const struct shmemu_transport_ops shmemu_shm_device_ops = {
    .size = sizeof(struct shmemu_transport_ops),
    .name = "shm",
    .caps = SHMEMU_TL_CAP_SHARED_CTL | SHMEMU_TL_CAP_PROCESSES | SHMEMU_TL_CAP_SPMD,
    .job_priv_size = sizeof(struct shmemu_shm_seg),
    .probe = shmemu_shm_probe,
    .job_create = dev_job_create,
    .job_run = shmemu_tl_run_procs,
    .job_destroy = shm_job_destroy,
    .job_attach = dev_job_attach,
    .pe_enter = NULL,
    .rma = dev_rma,
    .amo = dev_amo,
    .ptr = shmemu_mapped_ptr, /* an address in the view: like a device's */
    .quiet = NULL,
    .fence = NULL,
    .ctl_wait = shmemu_mapped_wait_shared,
    .ctl_wake = shmemu_mapped_wake_shared,
    .pe_export = shm_pe_export,
    .local_copy = dev_local_copy,
    .local_reduce = dev_local_reduce,
};
