/* mapped.c - copies, CPU atomics and futexes on mapped heaps (mapped.h). */
#include "mapped.h"

#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shmemu.h"

/* Naturally aligned 1/2/4/8-byte moves are single atomic accesses, as a
 * NIC or GPU delivers them: a waiter never sees a torn flag, and the thread
 * sanitizer sees the pairing with atomic loads.  Puts store with release
 * order (an earlier put stays ahead on weakly ordered machines too), gets
 * load with acquire.  The orders must be constants: GCC turns a variable
 * order into seq_cst, a full barrier per call. */
#define SMALL_COPY(dst, src, n, store_order, load_order)                       \
    do {                                                                       \
        uintptr_t a_ = (uintptr_t)(dst) | (uintptr_t)(src);                    \
        switch (n) {                                                           \
        case 0: /* nothing to move; src may legally be NULL */                 \
            return 1;                                                          \
        case 1:                                                                \
            __atomic_store_n((uint8_t *)(dst),                                 \
                             __atomic_load_n((const uint8_t *)(src), load_order), \
                             store_order);                                     \
            return 1;                                                          \
        case 2:                                                                \
            if (a_ & 1)                                                        \
                return 0;                                                      \
            __atomic_store_n((uint16_t *)(dst),                                \
                             __atomic_load_n((const uint16_t *)(src), load_order), \
                             store_order);                                     \
            return 1;                                                          \
        case 4:                                                                \
            if (a_ & 3)                                                        \
                return 0;                                                      \
            __atomic_store_n((uint32_t *)(dst),                                \
                             __atomic_load_n((const uint32_t *)(src), load_order), \
                             store_order);                                     \
            return 1;                                                          \
        case 8:                                                                \
            if (a_ & 7)                                                        \
                return 0;                                                      \
            __atomic_store_n((uint64_t *)(dst),                                \
                             __atomic_load_n((const uint64_t *)(src), load_order), \
                             store_order);                                     \
            return 1;                                                          \
        default:                                                               \
            return 0;                                                          \
        }                                                                      \
    } while (0)

static inline int small_put(void *remote, const void *local, size_t n)
{
    SMALL_COPY(remote, local, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static inline int small_get(void *local, const void *remote, size_t n)
{
    SMALL_COPY(local, remote, n, __ATOMIC_RELAXED, __ATOMIC_ACQUIRE);
}

/* Bulk copies: from 2 KiB up, an inline `rep movsb` (fast-string moves on
 * every x86-64 since Ivy Bridge) is at least as fast as glibc's memmove here
 * and saves a call; shorter or overlapping copies (a put to self within one
 * block) go to memmove. */
static inline void bulk_copy(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
    const char *d = dst, *s = src;
    if (n >= 2048 && (d + n <= s || s + n <= d)) {
        __asm__ __volatile__("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
        return;
    }
#endif
    memmove(dst, src, n);
}

int shmemu_mapped_rma(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d)
{
    return shmemu_mapped_rma_at(job->heap_base[d->pe], d);
}

int shmemu_mapped_rma_at(char *heap, const struct shmemu_tl_rma *d)
{
    char *remote = heap + d->off;
    if (d->op == SHMEMU_TL_GET) {
        if (!small_get(d->local, remote, d->nbytes))
            bulk_copy(d->local, remote, d->nbytes);
        return SHMEMU_OK;
    }
    if (!small_put(remote, d->local, d->nbytes))
        bulk_copy(remote, d->local, d->nbytes);
    if (d->sig_op != SHMEMU_TL_SIG_NONE) {
        uint64_t *sig = (uint64_t *)(void *)(heap + d->sig_off);
        /* Release: the data above is visible before the signal is. */
        if (d->sig_op == SHMEMU_TL_SIG_SET)
            __atomic_store_n(sig, d->sig_value, __ATOMIC_SEQ_CST);
        else
            __atomic_fetch_add(sig, d->sig_value, __ATOMIC_SEQ_CST);
    }
    return SHMEMU_OK;
}

int shmemu_mapped_amo(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d)
{
    return shmemu_tl_cpu_amo(job->heap_base[d->pe] + d->off, d) == 0 ? SHMEMU_OK
                                                                     : SHMEMU_EINVAL;
}

void *shmemu_mapped_ptr(struct shmemu_tl_job *job, int pe, size_t off)
{
    return job->heap_base[pe] + off;
}

static void futex_wait(uint32_t *word, int op, uint32_t expected, int64_t timeout_ns)
{
    struct timespec ts, *tp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000);
        ts.tv_nsec = (long)(timeout_ns % 1000000000);
        tp = &ts;
    }
    /* EAGAIN (value changed), EINTR and ETIMEDOUT all mean "look again". */
    syscall(SYS_futex, word, op, expected, tp, NULL, 0);
}

void shmemu_mapped_wait_private(struct shmemu_tl_job *job, uint32_t *word,
                                uint32_t expected, int64_t timeout_ns)
{
    (void)job;
    futex_wait(word, FUTEX_WAIT_PRIVATE, expected, timeout_ns);
}

void shmemu_mapped_wake_private(struct shmemu_tl_job *job, uint32_t *word, int n)
{
    (void)job;
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void shmemu_mapped_wait_shared(struct shmemu_tl_job *job, uint32_t *word,
                               uint32_t expected, int64_t timeout_ns)
{
    (void)job;
    futex_wait(word, FUTEX_WAIT, expected, timeout_ns);
}

void shmemu_mapped_wake_shared(struct shmemu_tl_job *job, uint32_t *word, int n)
{
    (void)job;
    syscall(SYS_futex, word, FUTEX_WAKE, n, NULL, NULL, 0);
}

void *shmemu_mapped_reserve(size_t size, size_t align, int prot)
{
    size_t span = size + align;
    char *raw = mmap(NULL, span, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *start = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    if (start > raw)
        munmap(raw, (size_t)(start - raw));
    size_t tail = (size_t)(raw + span - (start + size));
    if (tail)
        munmap(start + size, tail);
    return start;
}

int shmemu_tl_real_copy(struct shmemu_tl_job *job, shmemu_tl_real_fn real, void *dst,
                        const void *src, size_t n)
{
    void *d = real(job, dst, n);
    const void *s = real(job, src, n);
    if (!d || !s)
        return SHMEMU_ERANGE;
    memmove(d, s, n);
    return SHMEMU_OK;
}

/* As a device would: the operands made visible to the compute unit (here,
 * the CPU), then the kernel the core hands over. */
int shmemu_tl_real_reduce(struct shmemu_tl_job *job, shmemu_tl_real_fn real,
                          const struct shmemu_tl_reduce *r)
{
    size_t bytes = r->n * r->esize;
    void *d = real(job, r->dst, bytes);
    const void *a = real(job, r->a, bytes), *b = real(job, r->b, bytes);
    if (!d || !a || !b)
        return SHMEMU_ERANGE;
    r->cpu(d, a, b, r->n);
    return SHMEMU_OK;
}
