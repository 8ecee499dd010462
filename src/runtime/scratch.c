/*
 * scratch.c - a PE's private scratch blocks: see scratch.h.
 */
#include "scratch.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>

/* The header before each block keeps the block aligned as malloc's is. */
struct shmemu__scratch_blk {
    alignas(max_align_t) struct shmemu__scratch_blk *prev;
    struct shmemu__scratch_blk *next;
};

static void lock(struct shmemu__scratch *s)
{
    while (atomic_flag_test_and_set_explicit(&s->guard, memory_order_acquire))
        ;
}

static void unlock(struct shmemu__scratch *s)
{
    atomic_flag_clear_explicit(&s->guard, memory_order_release);
}

void *shmemu__scratch_take(struct shmemu__scratch *s, size_t bytes)
{
    if (bytes > SIZE_MAX - sizeof(struct shmemu__scratch_blk))
        return NULL;
    struct shmemu__scratch_blk *b = malloc(sizeof(*b) + bytes);
    if (!b)
        return NULL;
    lock(s);
    b->prev = NULL;
    b->next = s->head;
    if (s->head)
        s->head->prev = b;
    s->head = b;
    unlock(s);
    return b + 1;
}

int shmemu__scratch_give(struct shmemu__scratch *s, void *p)
{
    /* Found by walking the list, not by reading a header before p: p may
     * be any pointer the program passes, and a PE holds few blocks. */
    lock(s);
    struct shmemu__scratch_blk *b = s->head;
    while (b && (void *)(b + 1) != p)
        b = b->next;
    if (b) {
        if (b->prev)
            b->prev->next = b->next;
        else
            s->head = b->next;
        if (b->next)
            b->next->prev = b->prev;
    }
    unlock(s);
    free(b);
    return b != NULL;
}

void shmemu__scratch_fini(struct shmemu__scratch *s)
{
    lock(s);
    struct shmemu__scratch_blk *b = s->head;
    s->head = NULL;
    unlock(s);
    while (b) {
        struct shmemu__scratch_blk *next = b->next;
        free(b);
        b = next;
    }
}
