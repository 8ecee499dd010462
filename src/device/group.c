/*
 * group.c - the _block and _warp forms' groups: which slice of a copy each
 * thread takes, where a warp meets, and NVSHMEM's rule that every thread
 * of the group makes the call, with the same arguments.
 */
#include <string.h>

#include "device.h"

/* The slice of [0, n) that thread r of a group of g copies: cut at
 * 16-byte multiples so that no two threads share an element. */
void shmemu__dev_slice(size_t n, unsigned r, unsigned g, size_t *lo, size_t *len)
{
    size_t units = (n + 15) / 16, per = (units + g - 1) / g;
    size_t a = (size_t)r * per * 16, b = a + per * 16;
    if (a > n)
        a = n;
    if (b > n)
        b = n;
    *lo = a;
    *len = b - a;
}

/* The warp of t: its first rank and its size. */
unsigned shmemu__dev_warp_of(const struct dev_thread *t, unsigned *first)
{
    unsigned w0 = t->rank / 32 * 32, per = t->L->per_block;
    *first = w0;
    return per - w0 < 32 ? per - w0 : 32;
}

/* Every thread of t's warp has arrived here (a group call's end). */
void shmemu__dev_warp_sync(struct dev_thread *t, const char *call)
{
    unsigned first, g = shmemu__dev_warp_of(t, &first);
    struct dev_launch *L = t->L;
    size_t base = (size_t)(t->blk - L->blk) * L->per_block + first;
    unsigned seq = ++t->warp_calls;
    for (;;) {
        unsigned behind = 0;
        for (unsigned i = 0; i < g; i++) {
            const struct dev_thread *o = &L->th[base + i];
            if (o->state != DT_DONE && o->warp_calls < seq)
                behind++;
        }
        if (!behind)
            break;
        shmemu__dev_yield(t, call);
    }
}

/* Thread t enters a _block (warp 0) or _warp call: the group's first
 * thread there records the arguments, the others must pass the same
 * (every thread of the group calls with the same arguments: NVSHMEM's
 * rule; a thread that passes others, or a different call, copies the wrong
 * slice).  Returns the group's record and t's call number in it. */
struct dev_group *shmemu__dev_group_enter(struct dev_thread *t, int warp, const char *call,
                                     const void *a, const void *b, size_t n, int pe,
                                     unsigned *seq_p)
{
    struct dev_group *g = warp ? &t->blk->warps[t->rank / 32] : &t->blk->group;
    unsigned seq = warp ? t->warp_calls + 1 : ++t->block_calls;
    *seq_p = seq;
    if (g->seq != seq) {
        unsigned prev = g->arrived;
        *g = (struct dev_group){seq, t->rank, 1, prev, call, a, b, n, pe};
        return g;
    }
    g->arrived++;
    const char *what = strcmp(g->call, call) ? "the routine"
                       : g->a != a           ? "the first address"
                       : g->b != b           ? "the second address"
                       : g->n != n           ? "the size"
                       : g->pe != pe         ? "the PE"
                                             : NULL;
    if (what)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call,
                         "%s differs from thread %u's, which called %s(%p, %p, %zu, pe %d) at "
                         "this point (here: %p, %p, %zu, pe %d): every thread of the %s calls "
                         "a %s routine with the same arguments",
                         what, g->rank, g->call, g->a, g->b, g->n, g->pe, a, b, n, pe,
                         warp ? "warp" : "block", warp ? "_warp" : "_block");
    return g;
}

/* After the group met: every one of its threads must have entered the
 * call (a thread that ended, or skipped it, leaves its slice undone). */
void shmemu__dev_group_check(struct dev_thread *t, const struct dev_group *g, unsigned seq,
                        unsigned size, int warp, const char *call)
{
    unsigned arrived = g->seq == seq ? g->arrived : g->prev_arrived;
    const char *grp = warp ? "warp" : "block";
    if (arrived < size)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call,
                         "only %u of the %u threads of its %s called it: every thread of the "
                         "%s calls a _%s routine",
                         arrived, size, grp, grp, grp);
}

