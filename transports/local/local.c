/*
 * local.c - the `local` transport: threads + private host memory.
 *
 * Every PE is a thread of this process (common/runners.c), with its heap in
 * one private reservation, guard gaps between neighbours
 * (common/hostmem.c); puts and gets are copies and atomics the CPU's on the
 * mapped word, sleeping a process-private futex (common/mapped.c).
 */
#include "../common/hostmem.h"
#include "../common/mapped.h"
#include "../common/runners.h"
#include "shmemu.h"

static void local_job_destroy(struct shmemu_tl_job *job)
{
    shmemu_tl_hostmem_destroy(job->priv, job);
}

static int local_job_create(struct shmemu_tl_job *job)
{
    struct shmemu_tl_hostmem *hm = job->priv;
    int st = shmemu_tl_hostmem_create(hm, job->npes, job->heap_size, job->ctl_size,
                                      job->ctl_hot_size, job->views, job->heap_base);
    if (st == SHMEMU_OK)
        job->ctl = hm->ctl;
    if (st == SHMEMU_OK && job->aliases &&
        (st = shmemu_tl_hostmem_alias(hm, job->npes, job->lib_base)) != SHMEMU_OK)
        shmemu_tl_hostmem_destroy(hm, job);
    return st;
}

static int local_map_view(struct shmemu_tl_job *job, int pe, size_t off, void *addr,
                          size_t len, int writable)
{
    return shmemu_tl_hostmem_map_view(job->priv, pe, off, addr, len, writable);
}

const struct shmemu_transport_ops shmemu_local_ops = {
    .size = sizeof(struct shmemu_transport_ops),
    .name = "local",
    .caps = SHMEMU_TL_CAP_LOAD_STORE | SHMEMU_TL_CAP_CPU_ATOMICS | SHMEMU_TL_CAP_SHARED_CTL,
    .job_priv_size = sizeof(struct shmemu_tl_hostmem),
    .probe = NULL,
    .job_create = local_job_create,
    .job_run = shmemu_tl_run_threads,
    .job_destroy = local_job_destroy,
    .job_attach = NULL,
    .pe_enter = NULL,
    .rma = shmemu_mapped_rma,
    .amo = shmemu_mapped_amo,
    .ptr = shmemu_mapped_ptr,
    .quiet = NULL,
    .fence = NULL,
    .ctl_wait = shmemu_mapped_wait_private,
    .ctl_wake = shmemu_mapped_wake_private,
    .map_view = local_map_view,
};
