/*
 * platform.h - small portability helpers shared by the core and transports:
 * branch hints, cache-line alignment, a pause instruction and a clock.
 */
#ifndef SHMEMU_PLATFORM_H
#define SHMEMU_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define SHMEMU__LIKELY(x) __builtin_expect(!!(x), 1)
#define SHMEMU__UNLIKELY(x) __builtin_expect(!!(x), 0)
/* 128, not 64: x86 prefetches cache lines in adjacent pairs. */
#define SHMEMU__CACHELINE 128
#define SHMEMU__ALIGNED(n) __attribute__((aligned(n)))
#define SHMEMU__ROUND_UP(x, a) (((x) + ((a)-1)) / (a) * (a))
#define SHMEMU__HIDDEN __attribute__((visibility("hidden")))
#define SHMEMU__PRINTF(f, a) __attribute__((format(printf, f, a)))
/* For the funnels every typed call goes through: inlined, their op and width
 * arguments are constants and the dispatch folds away. */
#define SHMEMU__ALWAYS_INLINE inline __attribute__((always_inline))

static inline void shmemu__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

#if defined(__SANITIZE_THREAD__)
#define SHMEMU__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SHMEMU__TSAN 1
#endif
#endif

/* A full (store-load) memory barrier.  The sanitizer does not model fences,
 * so under it a locked read-modify-write stands in: the same barrier on the
 * hardware.  Data visibility never rests on this fence alone (flags use
 * release/acquire); it prevents lost wake-ups. */
static inline void shmemu__full_fence(void)
{
#if defined(SHMEMU__TSAN)
    int dummy = 0;
    __atomic_fetch_add(&dummy, 0, __ATOMIC_SEQ_CST);
#elif defined(__x86_64__)
    /* A locked no-op add below the stack pointer: half the cost of mfence
     * (or of the compiler's lock-or on the freshly pushed top of stack). */
    __asm__ __volatile__("lock; addl $0,-64(%%rsp)" ::: "memory", "cc");
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline int64_t shmemu__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Copy src into dst[len] (len > 0), truncating; always NUL-terminated. */
static inline void shmemu__strlcpy(char *dst, const char *src, size_t len)
{
    size_t n = 0;
    while (n + 1 < len && src[n]) {
        dst[n] = src[n];
        n++;
    }
    dst[n] = '\0';
}

/* The compiler may not move memory accesses across this. */
static inline void shmemu__compiler_barrier(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * Asymmetric fences (membarrier(2)): the rare side calls shmemu__membarrier,
 * which runs a full barrier on every CPU currently running a thread of this
 * process (global: of any registered process), so the hot side needs only a
 * compiler barrier.  register: 1 when this process may use it (idempotent,
 * per process), 0 when the kernel does not offer it.  membarrier: 0 or -1.
 */
int shmemu__membarrier_register(int global) SHMEMU__HIDDEN;
int shmemu__membarrier(int global) SHMEMU__HIDDEN;

/* Number of processing units this process may run on (hwloc; 1 at worst). */
int shmemu__topo_ncpus(void) SHMEMU__HIDDEN;

/* SHMEMU_BIND's values. */
enum { SHMEMU__BIND_AUTO = -1, SHMEMU__BIND_NONE = 0, SHMEMU__BIND_CORE = 1 };

/*
 * Bind the calling thread (a PE) to core pe % ncores of the cores this
 * process may use, and [heap, heap+len) to that core's NUMA node.  mode is
 * SHMEMU__BIND_*: auto binds only when npes fits the cores; core binds
 * round-robin otherwise (and says so once, from PE 0).  Failure to bind is
 * never an error: the PE runs unbound.
 */
void shmemu__bind_pe(int mode, int pe, int npes, void *heap, size_t len) SHMEMU__HIDDEN;

#endif /* SHMEMU_PLATFORM_H */
