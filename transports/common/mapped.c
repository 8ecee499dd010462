/* mapped.c - copies, CPU atomics and futexes on mapped heaps (mapped.h). */
#include "mapped.h"

#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shmemu.h"
#include "small_copy.h"

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
    return shmemu_mapped_rma_at(shmemu_tl_lib_heap(job, d->pe), d);
}

int shmemu_mapped_rma_at(char *heap, const struct shmemu_tl_rma *d)
{
    char *remote = heap + d->off;
    if (d->op == SHMEMU_TL_GET) {
        if (!shmemu_small_get(d->local, remote, d->nbytes))
            bulk_copy(d->local, remote, d->nbytes);
        return SHMEMU_OK;
    }
    if (!shmemu_small_put(remote, d->local, d->nbytes))
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
    return shmemu_tl_cpu_amo(shmemu_tl_lib_heap(job, d->pe) + d->off, d) == 0 ? SHMEMU_OK
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
