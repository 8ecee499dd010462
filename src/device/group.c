/*
 * group.c - the _block and _warp forms' groups: which slice of a copy each
 * thread takes, where a warp meets, and NVSHMEM's rule that every thread
 * of the group makes the call, with the same arguments.
 */
#include <stdlib.h>
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

/* ------------------------------------------------------ warp functions */

#define SHMEMU__WARP_POISON 0xdeadbeefdeadbeefull

static const char *const warp_names[] = {"__syncwarp",      "__shfl_sync",   "__shfl_up_sync",
                                         "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
                                         "__any_sync",       "__all_sync"};

/* The lane whose value lane l reads, or l itself where CUDA gives the
 * caller its own value (a source past its group of width lanes). */
static unsigned shfl_source(int kind, unsigned l, int arg, unsigned width)
{
    unsigned base = l / width * width;
    switch (kind) {
    case SHMEMU_WARP_SHFL: return base + (unsigned)arg % width;
    case SHMEMU_WARP_SHFL_UP: return (unsigned)arg <= l - base ? l - (unsigned)arg : l;
    case SHMEMU_WARP_SHFL_DOWN: return l + (unsigned)arg < base + width ? l + (unsigned)arg : l;
    default: { /* xor: earlier groups may be read, later ones not */
        unsigned s = l ^ (unsigned)arg;
        return s < base + width ? s : l;
    }
    }
}

uint64_t shmemu_devrt_warp(int kind, unsigned mask, uint64_t v, int arg, int width)
{
    const char *call = kind >= 0 && kind <= SHMEMU_WARP_ALL ? warp_names[kind] : "warp function";
    struct dev_thread *t = shmemu__dev_me(call);
    if (!t)
        return v;
    struct dev_launch *L = t->L;
    unsigned first, size = shmemu__dev_warp_of(t, &first), lane = t->rank - first;
    unsigned lanes = size == 32 ? 0xffffffffu : (1u << size) - 1;
    if (!(mask & 1u << lane))
        shmemu__dev_fail(t, SHMEMU_EINVAL, call,
                         "mask 0x%08x leaves out the calling lane %u: a thread names itself "
                         "in the mask it passes",
                         mask, lane);
    if (kind != SHMEMU_WARP_SYNC && kind <= SHMEMU_WARP_SHFL_XOR &&
        (width < 1 || width > 32 || (width & (width - 1))))
        shmemu__dev_fail(t, SHMEMU_EINVAL, call,
                         "width %d: a power of two from 1 to warpSize (32)", width);
    /* Which meeting: lanes with the same mask meet at their n'th call with it. */
    unsigned k = 0;
    while (k < 4 && t->wx[k].n && t->wx[k].mask != mask)
        k++;
    if (k == 4)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call,
                         "a fifth mask (0x%08x) in one kernel: shmemu keeps the meetings of "
                         "four masks a thread",
                         mask);
    t->wx[k].mask = mask;
    unsigned inst = ++t->wx[k].n;
    struct dev_block *b = t->blk;
    struct dev_thread *warp = L->th + (size_t)(b - L->blk) * L->per_block + first;
    if (!b->wx && !(b->wx = calloc((L->per_block + 31) / 32 * DEV_WX_SLOTS, sizeof(*b->wx))))
        shmemu__dev_fail(t, SHMEMU_ENOMEM, call, "no memory for the warp's meetings");
    struct dev_wx *slots = b->wx + (size_t)(t->rank / 32) * DEV_WX_SLOTS, *m = NULL;
    for (;;) {
        for (unsigned i = 0; i < DEV_WX_SLOTS && !m; i++)
            if (slots[i].arrived && slots[i].mask == mask && slots[i].inst == inst)
                m = &slots[i];
        for (unsigned i = 0; i < DEV_WX_SLOTS && !m; i++)
            if (!slots[i].arrived) {
                m = &slots[i];
                *m = (struct dev_wx){.mask = mask, .inst = inst, .kind = kind};
            }
        if (m)
            break;
        shmemu__dev_yield(t, call); /* every slot holds a meeting not yet over */
    }
    t->waits = NULL;
    if (m->kind != kind)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call,
                         "lane %u calls %s where another lane of mask 0x%08x called %s: the "
                         "lanes named in a mask call the same warp function",
                         lane, call, mask, warp_names[m->kind]);
    m->v[lane] = v;
    m->arrived |= 1u << lane;
    /* All the lanes of the mask that have not ended must come. */
    for (;;) {
        unsigned live = 0;
        for (unsigned i = 0; i < size; i++)
            if (mask & 1u << i && warp[i].state != DT_DONE)
                live |= 1u << i;
        if ((m->arrived & live) == live)
            break;
        shmemu__dev_yield(t, call);
    }
    t->waits = NULL;
    if (!(m->left & ~(1u << lane) & m->arrived)) /* the first to go: the warp is together */
        for (unsigned i = 0; i < size; i++)
            if (m->arrived & 1u << i) {
                struct dev_thread *o = &warp[i];
                shmemu__dev_in_step(o);
                if (o != t && o->state == DT_READY)
                    o->waits = NULL;
            }
    uint64_t r = 0;
    if (kind == SHMEMU_WARP_SYNC) {
        r = 0;
    } else if (kind <= SHMEMU_WARP_SHFL_XOR) {
        /* A lane outside the mask, ended or not in the warp: CUDA leaves
         * the value undefined, and code that drops it is correct (lane 8 of
         * a 16-lane reduction reads lane 16).  A poison, so that a result
         * that uses it shows. */
        unsigned src = shfl_source(kind, lane, arg, (unsigned)width);
        r = src < size && m->arrived & 1u << src ? m->v[src] : SHMEMU__WARP_POISON;
    } else {
        unsigned yes = 0;
        for (unsigned i = 0; i < size; i++)
            if (m->arrived & 1u << i && m->v[i])
                yes |= 1u << i;
        r = kind == SHMEMU_WARP_BALLOT ? yes
            : kind == SHMEMU_WARP_ANY  ? yes != 0
                                       : yes == (m->arrived & lanes);
    }
    m->left |= 1u << lane;
    if ((m->left & m->arrived) == m->arrived)
        m->arrived = m->left = 0; /* over: the slot is free */
    return r;
}
