/*
 * mapped.h - the data path shared by transports whose peer heaps are mapped
 * into this process (local: threads; shm: processes over shared memory).
 *
 * Puts and gets are copies, atomics are the CPU's atomics on the mapped word,
 * and sleeping is a futex.  The transports differ only in how heaps are
 * created and mapped, and whether futexes are process-private or shared.
 */
#ifndef SHMEMU_MAPPED_H
#define SHMEMU_MAPPED_H

#include <stddef.h>
#include <stdint.h>

#include "../transport.h"

int shmemu_mapped_rma(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d);
/* The same with pe's heap at heap in this process (a transport whose
 * heap_base holds other addresses: shm's device view). */
int shmemu_mapped_rma_at(char *heap, const struct shmemu_tl_rma *d);
int shmemu_mapped_amo(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d);
void *shmemu_mapped_ptr(struct shmemu_tl_job *job, int pe, size_t off);

void shmemu_mapped_wait_private(struct shmemu_tl_job *job, uint32_t *word,
                                uint32_t expected, int64_t timeout_ns);
void shmemu_mapped_wake_private(struct shmemu_tl_job *job, uint32_t *word, int n);
void shmemu_mapped_wait_shared(struct shmemu_tl_job *job, uint32_t *word,
                               uint32_t expected, int64_t timeout_ns);
void shmemu_mapped_wake_shared(struct shmemu_tl_job *job, uint32_t *word, int n);

/* Map size bytes of anonymous memory (prot: PROT_* flags; PROT_NONE to
 * reserve address space only), aligned to align (a power of two), committed
 * lazily; NULL on failure. */
void *shmemu_mapped_reserve(size_t size, size_t align, int prot);

/* local_copy and local_reduce for a transport whose heap addresses
 * translate to bytes the host can touch: real(job, p, n) gives the bytes of
 * [p, p+n) (p itself for host memory), NULL when the range leaves a heap
 * (then SHMEMU_ERANGE).  staged and shm's device view. */
typedef void *(*shmemu_tl_real_fn)(const struct shmemu_tl_job *job, const void *p, size_t n);
int shmemu_tl_real_copy(struct shmemu_tl_job *job, shmemu_tl_real_fn real, void *dst,
                        const void *src, size_t n);
int shmemu_tl_real_reduce(struct shmemu_tl_job *job, shmemu_tl_real_fn real,
                          const struct shmemu_tl_reduce *d);

#endif /* SHMEMU_MAPPED_H */
