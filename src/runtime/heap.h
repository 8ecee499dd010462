/*
 * heap.h - symmetric heap bookkeeping.
 *
 * Every PE keeps its own copy of this table, outside the heap bytes (which
 * may live in GPU memory).  Allocation is collective and deterministic, so
 * the same calls in the same order give the same offsets on every PE; the
 * core checks that the calls agree before it runs them.
 */
#ifndef SHMEMU_HEAP_H
#define SHMEMU_HEAP_H

#include <stddef.h>

#include "platform.h"

/* Smallest alignment and size granule of a block: keeps distinct symmetric
 * objects off each other's cache lines. */
#define SHMEMU__HEAP_GRAIN 64

struct shmemu__blk {
    size_t off; /* start, in bytes from the heap base */
    size_t len; /* bytes the block spans (a multiple of the grain) */
    size_t req; /* bytes the user asked for; 0 when free */
    int used;
};

struct shmemu__heap {
    struct shmemu__blk *v; /* sorted by off, covering [0, size) exactly */
    size_t n;
    size_t cap;
    size_t size;
    /* where the end of every block handed out so far is raised to (an
     * atomic maximum; may be NULL): how much of the heap a job can have
     * written, which is all a heap kept for the next job must zero */
    size_t *high_water;
};

/* 0, or -1 when out of (private) memory.  The last `reserved` bytes form a
 * block that is always in use (the team workspaces).  high_water: see the
 * struct (the whole job's PEs may share one). */
int shmemu__heap_init(struct shmemu__heap *h, size_t size, size_t reserved,
                      size_t *high_water) SHMEMU__HIDDEN;
void shmemu__heap_fini(struct shmemu__heap *h) SHMEMU__HIDDEN;

/* Best fit.  align: a power of two.  Returns 0 and sets *off_p, or -1 when no
 * free block fits (or private memory for the table ran out). */
int shmemu__heap_alloc(struct shmemu__heap *h, size_t size, size_t align,
                       size_t *off_p) SHMEMU__HIDDEN;

/* Free the used block that starts at off, merging free neighbours.  Returns
 * 0, or -1 when no used block starts there. */
int shmemu__heap_free(struct shmemu__heap *h, size_t off) SHMEMU__HIDDEN;

/* Grow or shrink the used block at off in place when its neighbours allow;
 * returns 0, or -1 (nothing changed). */
int shmemu__heap_resize(struct shmemu__heap *h, size_t off, size_t size)
    SHMEMU__HIDDEN;

/* The block containing off (used or free), or NULL past the heap. */
const struct shmemu__blk *shmemu__heap_find(const struct shmemu__heap *h,
                                            size_t off) SHMEMU__HIDDEN;

/* Bytes in free blocks, and the largest free block. */
void shmemu__heap_stats(const struct shmemu__heap *h, size_t *free_p,
                        size_t *largest_p) SHMEMU__HIDDEN;

#endif /* SHMEMU_HEAP_H */
