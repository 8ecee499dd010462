/*
 * local.c - the `local` transport: every PE is a thread of this process,
 * each with its own heap.  Heaps sit in one reservation with an inaccessible
 * gap between neighbours, so a stray pointer past one PE's heap faults
 * instead of silently landing in the next PE's.  Sleeping uses
 * process-private futexes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/mapped.h"
#include "shmemu.h"

struct local_job {
    char *heaps; /* npes * stride bytes */
    size_t stride;
    void *ctl;
    size_t ctl_len;
};

struct local_thread {
    struct shmemu_tl_job *job;
    int (*entry)(struct shmemu_tl_job *job, int pe);
    int pe;
    pthread_t tid;
};

static size_t page_round(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

static void local_job_destroy(struct shmemu_tl_job *job)
{
    struct local_job *lj = job->priv;
    if (lj->heaps)
        munmap(lj->heaps, lj->stride * (size_t)job->npes);
    if (lj->ctl)
        munmap(lj->ctl, lj->ctl_len);
    lj->heaps = NULL;
    lj->ctl = NULL;
}

static int local_job_create(struct shmemu_tl_job *job)
{
    struct local_job *lj = job->priv;
    lj->stride = shmemu_tl_heap_stride(job->heap_size);
    lj->ctl_len = page_round(job->ctl_size);
    lj->ctl = mmap(NULL, lj->ctl_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (lj->ctl == MAP_FAILED) {
        lj->ctl = NULL;
        return SHMEMU_ENOMEM;
    }
    lj->heaps = shmemu_mapped_reserve(lj->stride * (size_t)job->npes,
                                      SHMEMU_TL_BASE_ALIGN, PROT_NONE);
    if (!lj->heaps) {
        local_job_destroy(job);
        return SHMEMU_ENOMEM;
    }
    for (int pe = 0; pe < job->npes; pe++) {
        char *base = lj->heaps + (size_t)pe * lj->stride;
        if (mprotect(base, job->heap_size, PROT_READ | PROT_WRITE) != 0) {
            local_job_destroy(job);
            return SHMEMU_ENOMEM;
        }
        /* Huge pages where the kernel offers them: a large put touches a
         * fresh heap 512 times less often (a hint; failure is harmless). */
        (void)madvise(base, job->heap_size, MADV_HUGEPAGE);
        job->heap_base[pe] = base;
    }
    job->ctl = lj->ctl;
    return SHMEMU_OK;
}

static void *thread_main(void *arg)
{
    struct local_thread *t = arg;
    t->entry(t->job, t->pe);
    return NULL;
}

static int local_job_run(struct shmemu_tl_job *job,
                         int (*entry)(struct shmemu_tl_job *job, int pe))
{
    struct local_thread *t = calloc((size_t)job->npes, sizeof(*t));
    if (!t)
        return SHMEMU_ENOMEM;
    int started = 0;
    for (int pe = 0; pe < job->npes; pe++) {
        t[pe] = (struct local_thread){.job = job, .entry = entry, .pe = pe};
        int err = pthread_create(&t[pe].tid, NULL, thread_main, &t[pe]);
        if (err) {
            /* The PEs already running learn of it through the abort. */
            for (int q = pe; q < job->npes; q++)
                job->pe_exited(job, q, SHMEMU_TL_EXIT_NOSTART, err);
            break;
        }
        started++;
    }
    for (int pe = 0; pe < started; pe++)
        pthread_join(t[pe].tid, NULL);
    free(t);
    return SHMEMU_OK;
}

const struct shmemu_transport_ops shmemu_local_ops = {
    .size = sizeof(struct shmemu_transport_ops),
    .name = "local",
    .caps = SHMEMU_TL_CAP_LOAD_STORE | SHMEMU_TL_CAP_CPU_ATOMICS,
    .job_priv_size = sizeof(struct local_job),
    .probe = NULL,
    .job_create = local_job_create,
    .job_run = local_job_run,
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
};
