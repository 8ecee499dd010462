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

static inline int shmemu_small_put(void *remote, const void *local, size_t n)
{
    SMALL_COPY(remote, local, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static inline int shmemu_small_get(void *local, const void *remote, size_t n)
{
    SMALL_COPY(local, remote, n, __ATOMIC_RELAXED, __ATOMIC_ACQUIRE);
}

#endif /* SHMEMU_SMALL_COPY_H */
