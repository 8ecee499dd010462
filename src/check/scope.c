/* scope.c - a device thread's atomics under the GPU's memory model.
 *
 * CUDA's atomics carry a scope: an _block atomic synchronizes with the
 * threads of its block, a plain one with those of its GPU, a _system one
 * with every GPU's and the host's.  Accesses of two GPUs synchronize only
 * if both are of system scope (PTX: "morally strong"), so a waiter that
 * reads another GPU's flag with an atomic of device scope learns nothing
 * from it: the data the flag announces may still be stale there (ROCm
 * aiter 4786).  Each PE is a GPU here.  Under race detection a device
 * thread's system-scope atomic publishes its PE's clock on the word before
 * it runs and learns what was published there once it ran, as an AMO does;
 * one of narrower scope on a word where another PE published what this PE
 * has not learned is reported, naming the fix.  Where this PE has learned
 * it (a barrier, a system-scope wait in between), nothing is reported: the
 * atomic is then ordered after the other GPU's write, not racing with it.
 */
#include <stdlib.h>

#include "check.h"
#include "internal.h"
#include "race.h"
#include "runtime/dispatch.h"
#include "shmemu_device.h"

/* The PE whose heap addr lies in and its offset there: the PE's own heap,
 * its views of peers' heaps, or a peer's heap itself (no views). */
static int locate(shmemu__pe *me, const void *addr, int *pe, size_t *off)
{
    uintptr_t a = (uintptr_t)addr;
    if (a - (uintptr_t)me->heap < me->heap_size) {
        *pe = me->pe;
        *off = (size_t)(a - (uintptr_t)me->heap);
        return 1;
    }
    if (shmemu__chk_view_locate(me, addr, pe, off))
        return 1;
    for (int q = 0; q < me->npes; q++) {
        uintptr_t b = shmemu__tl_ptr_direct(me->job, q, 0) ? (uintptr_t)me->tlj->heap_base[q] : 0;
        if (b && a - b < me->heap_size) {
            *pe = q;
            *off = (size_t)(a - b);
            return 1;
        }
    }
    return 0;
}

#if defined(SHMEMU__TSAN)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

/* ThreadSanitizer keys synchronization by address.  Through a view (the
 * checker's other mapping of a peer's page) a device atomic and the
 * peer's own atomic on the page are two addresses to it, so the edge a
 * flag makes between them was missing, and the reader's load of data the
 * writer's fence had landed was reported as a race (test_kernels'
 * scope tests, under load).  It is made on the page's own address. */
static void tsan_atomic(shmemu__pe *me, const void *addr, int done)
{
    int pe;
    size_t off;
    void *at = locate(me, addr, &pe, &off) ? shmemu__tl_ptr_direct(me->job, pe, off) : NULL;
    if (at && done)
        __tsan_acquire(at);
    else if (at)
        __tsan_release(at);
}
#endif

void shmemu__check_dev_atomic(shmemu__pe *me, const void *addr, const char *narrow, int done)
{
    struct shmemu__chk *k = me->chk;
    int pe;
    size_t off;
#if defined(SHMEMU__TSAN)
    if (k)
        tsan_atomic(me, addr, done);
#endif
    if (!k || !k->race || (narrow && done) || !locate(me, addr, &pe, &off))
        return;
    shmemu__chk_enter(me);
    if (!narrow && !done) {
        uint32_t *rel = shmemu__race_release_begin(me, k->race);
        shmemu__chk_release_told(me, pe, off & ~(size_t)7, rel);
        free(rel);
    } else if (!narrow) {
        shmemu__race_acquire(me, k->race, pe, off, 1);
        shmemu__race_dev_acquire(me, k->race); /* of system scope */
    } else {
        char site[160], where[200] = "";
        int q = shmemu__race_unlearned(me, k->race, pe, off, 1, site, sizeof(site));
        if (q >= 0) {
            shmemu__race_count_found(k->race);
            if (me->kernel_where)
                me->kernel_where(me, where, sizeof(where));
            shmemu__check_note(
                me->job,
                "scope: %s: an atomic of %s scope reads the word at %#zx of PE %d's heap, "
                "where PE %d raised a flag%s%s%s that PE %d has not synchronized with: two "
                "GPUs synchronize only through accesses both of system scope, so PE %d's "
                "stores before the flag may be stale here: use a _system atomic "
                "(atomicAdd_system) or shmemu_dev_*_wait_until",
                where, narrow, off & ~(size_t)7, pe, q, site[0] ? " (" : "", site,
                site[0] ? ")" : "", me->pe, q);
        }
    }
    shmemu__chk_leave(me);
}

/* ------------------------------------------- device calls, for race.c */

static struct shmemu__race *dev_race(shmemu__pe *me)
{
    return me->chk ? me->chk->race : NULL;
}

uint32_t shmemu__check_dev_clock(shmemu__pe *me)
{
    struct shmemu__race *r = dev_race(me);
    return r ? shmemu__race_clock(r) : 0;
}

/* The thread's words for reports (NULL: the host, all zero). */
static struct shmemu__who who_of(const struct shmemu_dev_self *s)
{
    if (!s)
        return (struct shmemu__who){0};
    return (struct shmemu__who){1,
                                {s->block_idx.x, s->block_idx.y, s->block_idx.z},
                                {s->thread_idx.x, s->thread_idx.y, s->thread_idx.z}};
}

static void dev_access(shmemu__pe *me, int write, int pe, size_t off, size_t n, uint32_t clock,
                       const char *call, const char *file, int line,
                       const struct shmemu_dev_self *self, const char *why)
{
    struct shmemu__race *r = dev_race(me);
    if (!r || !n)
        return;
    struct shmemu__who who = who_of(self);
    shmemu__chk_enter(me);
    shmemu__race_dev_access(me, r, write, pe, off, n, clock, call, file, line, why, &who);
    shmemu__chk_leave(me);
}

void shmemu__check_dev_access(shmemu__pe *me, int write, int pe, size_t off, size_t n,
                              uint32_t clock, const char *call, const char *file, int line,
                              const struct shmemu_dev_self *self)
{
    dev_access(me, write, pe, off, n, clock, call, file, line, self, NULL);
}

void shmemu__check_dev_landed(shmemu__pe *me, int pe, size_t off, size_t n, uint32_t clock,
                              const char *call, const char *file, int line,
                              const struct shmemu_dev_self *self, const char *why)
{
    dev_access(me, 1, pe, off, n, clock, call, file, line, self, why);
}

void shmemu__check_dev_who(shmemu__pe *me, const struct shmemu_dev_self *self)
{
    if (!me->chk)
        return;
    shmemu__chk_enter(me);
    me->chk->who = who_of(self);
    me->chk->who_on = pthread_self();
    shmemu__chk_leave(me);
}

void shmemu__check_dev_release(shmemu__pe *me, int pe, size_t off)
{
    struct shmemu__race *r = dev_race(me);
    if (!r)
        return;
    shmemu__chk_enter(me);
    uint32_t *rel = shmemu__race_release_begin(me, r);
    shmemu__race_release(me, r, pe, off, rel);
    free(rel);
    shmemu__chk_leave(me);
}

void shmemu__check_dev_kernel(shmemu__pe *me, int running)
{
    struct shmemu__race *r = dev_race(me);
    if (!r)
        return;
    shmemu__chk_enter(me);
    shmemu__race_dev_kernel(me, r, running);
    shmemu__chk_leave(me);
}

void shmemu__check_dev_sys_fence(shmemu__pe *me)
{
    struct shmemu__race *r = dev_race(me);
    if (!r)
        return;
    shmemu__chk_enter(me);
    shmemu__race_dev_fence(me, r);
    shmemu__chk_leave(me);
}

void shmemu__check_dev_acquire(shmemu__pe *me, int pe, size_t off)
{
    struct shmemu__race *r = dev_race(me);
    if (!r)
        return;
    shmemu__chk_enter(me);
    shmemu__race_acquire(me, r, pe, off, 8);
    shmemu__race_dev_acquire(me, r); /* a wait is of system scope */
    shmemu__chk_leave(me);
}

void shmemu__check_dev_barrier(shmemu__pe *me, int done, uint32_t gen)
{
    struct shmemu__race *r = dev_race(me);
    if (!r)
        return;
    shmemu__chk_enter(me);
    shmemu__race_dev_barrier(me, r, done, gen);
    if (done)
        shmemu__race_dev_acquire(me, r);
    shmemu__chk_leave(me);
}
