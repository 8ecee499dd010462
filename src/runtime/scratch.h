/*
 * scratch.h - a PE's private scratch blocks (shmemu_scratch_malloc).
 *
 * Code that allocates and then calls the library (a collective's staging
 * buffer, the verifier's record) loses a plain malloc when an error in
 * ABORT mode unwinds the PE out of that call.  A scratch block is linked to
 * its PE, so whatever is still held when the PE ends is released with it.
 */
#ifndef SHMEMU_SCRATCH_H
#define SHMEMU_SCRATCH_H

#include <stdatomic.h>
#include <stddef.h>

struct shmemu__scratch_blk;

struct shmemu__scratch {
    atomic_flag guard; /* threads of one PE (THREAD_MULTIPLE) share the list */
    struct shmemu__scratch_blk *head;
};

/* A block of bytes (0 gives a distinct block too), aligned as malloc's;
 * NULL when out of memory. */
void *shmemu__scratch_take(struct shmemu__scratch *s, size_t bytes)
    __attribute__((visibility("hidden")));
/* Releases p if it is a block of s: 1, else 0 (p untouched). */
int shmemu__scratch_give(struct shmemu__scratch *s, void *p)
    __attribute__((visibility("hidden")));
/* Releases every block still held: the PE ends. */
void shmemu__scratch_fini(struct shmemu__scratch *s) __attribute__((visibility("hidden")));

#endif
