/*
 * hostmem.h - heaps in host memory private to this process (PEs that are
 * threads): one reservation, each heap followed by an inaccessible gap, so
 * that a stray pointer past one PE's heap faults instead of landing in the
 * next PE's; and a private control area.
 */
#ifndef SHMEMU_TL_HOSTMEM_H
#define SHMEMU_TL_HOSTMEM_H

#include <stddef.h>
#include <stdint.h>

#include "../transport.h"

struct shmemu_tl_hostmem {
    char *heaps; /* npes * stride bytes of address space */
    size_t stride, heap_len; /* heap_len: each heap's accessible bytes */
    int reserved;            /* heaps in the reservation (npes or more) */
    size_t touched;          /* the most bytes of a heap any job had in reach */
    uint64_t *dirty;         /* per heap, a bit per 2 MiB: may hold a job's data */
    size_t dirty_words;      /* words of dirty per heap */
    void *ctl;
    size_t ctl_len;
    int views;               /* heaps are shared mappings of fd (map_view) */
    int fd;
    char *alias;             /* this job's heaps mapped again (aliases) */
    size_t alias_len;
};

/* Map npes heaps of heap_size bytes (bases[pe] set, each aligned to
 * SHMEMU_TL_BASE_ALIGN) and ctl_size zeroed bytes of control area, the
 * first ctl_hot of them (shmemu_tl_job.ctl_hot_size) rounded up to 2 MiB
 * on huge pages where ctl_hot is 1 MiB or more.  views (the job's
 * shmemu_tl_job.views): heaps in a memory file, so that map_view can map
 * them again (kept for a later job that asks for views too).
 * SHMEMU_ENOMEM leaves nothing behind. */
int shmemu_tl_hostmem_create(struct shmemu_tl_hostmem *hm, int npes, size_t heap_size,
                             size_t ctl_size, size_t ctl_hot, int views, char **bases);
/* The transport's map_view (transport.h) for heaps created with views;
 * SHMEMU_ENOTSUP for others.  Async-signal-safe. */
int shmemu_tl_hostmem_map_view(const struct shmemu_tl_hostmem *hm, int pe, size_t off,
                               void *addr, size_t len, int writable);
/* For a job that asks for aliases (shmemu_tl_job.aliases), with heaps
 * created with views: the npes heaps mapped a second time, lib_base[pe]
 * set to each.  Without views nothing is done (the program's view of its
 * heap then stays writable). */
int shmemu_tl_hostmem_alias(struct shmemu_tl_hostmem *hm, int npes, char **lib_base);
/* Unmap what create mapped (idempotent).  The heaps may be kept for the
 * process's next create, which gets them back zeroed (what job's
 * heap_low and heap_top say it may have written). */
void shmemu_tl_hostmem_destroy(struct shmemu_tl_hostmem *hm, const struct shmemu_tl_job *job);

#endif /* SHMEMU_TL_HOSTMEM_H */
