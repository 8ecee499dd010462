/* small_copy.h - word-sized copies to and from mapped heaps, shared by the
 * mapped data path (mapped.c) and the ucx plugin's same-machine path. */
#ifndef SHMEMU_SMALL_COPY_H
#define SHMEMU_SMALL_COPY_H

#include <stddef.h>
#include <stdint.h>

/* Naturally aligned 1/2/4/8-byte moves are single atomic accesses, as a
 * NIC or GPU delivers them: a waiter never sees a torn flag, and the thread
 * sanitizer sees the pairing with atomic loads.  Puts store with release
 * order (an earlier put stays ahead on weakly ordered machines too), gets
 * load with acquire.  The orders must be constants: GCC turns a variable
 * order into seq_cst, a full barrier per call. */
/* One naturally aligned move of a T (a misaligned one is not ours: 0). */
#define SMALL_MOVE(T, dst, src, store_order, load_order)                       \
    do {                                                                       \
        if (((uintptr_t)(dst) | (uintptr_t)(src)) & (sizeof(T) - 1))           \
            return 0;                                                          \
        __atomic_store_n((T *)(dst), __atomic_load_n((const T *)(src), load_order), \
                         store_order);                                         \
        return 1;                                                              \
    } while (0)

#define SMALL_COPY(dst, src, n, store_order, load_order)                       \
    do {                                                                       \
        switch (n) {                                                           \
        case 0: /* nothing to move; src may legally be NULL */                 \
            return 1;                                                          \
        case 1:                                                                \
            SMALL_MOVE(uint8_t, dst, src, store_order, load_order);            \
        case 2:                                                                \
            SMALL_MOVE(uint16_t, dst, src, store_order, load_order);           \
        case 4:                                                                \
            SMALL_MOVE(uint32_t, dst, src, store_order, load_order);           \
        case 8:                                                                \
            SMALL_MOVE(uint64_t, dst, src, store_order, load_order);           \
        default:                                                               \
            return 0;                                                          \
        }                                                                      \
    } while (0)

static inline int shmemu_small_put(void *remote, const void *local, size_t n)
{
    SMALL_COPY(remote, local, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static inline int shmemu_small_get(void *local, const void *remote, size_t n)
{
    SMALL_COPY(local, remote, n, __ATOMIC_RELAXED, __ATOMIC_ACQUIRE);
}

#endif /* SHMEMU_SMALL_COPY_H */
