/* ranges.c - address ranges found from a signal handler (internal.h). */
#include <stdatomic.h>

#include "internal.h"

void *shmemu__chk_range_find(struct chk_ranges *t, uintptr_t a)
{
    int top = atomic_load_explicit(&t->top, memory_order_acquire);
    for (int i = 0; i < top; i++) {
        struct chk_range *s = &t->slot[i];
        if (a >= atomic_load_explicit(&s->lo, memory_order_acquire) &&
            a < atomic_load_explicit(&s->hi, memory_order_acquire))
            return atomic_load_explicit(&s->owner, memory_order_acquire);
    }
    return NULL;
}

int shmemu__chk_range_add(struct chk_ranges *t, void *owner, uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; i < t->cap; i++) {
        void *none = NULL;
        if (!atomic_compare_exchange_strong(&t->slot[i].owner, &none, owner))
            continue;
        atomic_store_explicit(&t->slot[i].lo, lo, memory_order_release);
        atomic_store_explicit(&t->slot[i].hi, hi, memory_order_release);
        int top = atomic_load(&t->top);
        while (top < i + 1 && !atomic_compare_exchange_weak(&t->top, &top, i + 1)) {
        }
        return 0;
    }
    return -1;
}

void shmemu__chk_range_drop(struct chk_ranges *t, void *owner)
{
    for (int i = 0; i < t->cap; i++)
        if (atomic_load(&t->slot[i].owner) == owner) {
            atomic_store(&t->slot[i].hi, 0);
            atomic_store(&t->slot[i].lo, 0);
            atomic_store(&t->slot[i].owner, NULL);
        }
}
