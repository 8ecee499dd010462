/*
 * threads.c - threads inside a PE.
 *
 * The core keeps the calling PE in a thread-local pointer (shmemu__self),
 * set for the thread that starts a PE.  Another thread joins a PE either
 * implicitly, when its process hosts exactly one PE (shmemu__proc_pe: a
 * process of shm, cuda, ucx, or a program that called shmemu_init), or
 * explicitly with shmemu_thread_attach (PEs that are threads of one
 * process, local).  A PE whose level allows several threads (shmemu__mt): its waits stop
 * counting themselves in deadlock detection (wait.c) and its per-PE caches
 * stay unused; the checker serialises its state per PE (src/check/).
 */
#include <pthread.h>
#include <stdlib.h>

#include "job.h"
#include "runtime/core.h"
#include "runtime/dispatch.h"

shmemu__pe *_Atomic shmemu__proc_pe;

static pthread_key_t joined_key;
static _Thread_local int joined_by_attach; /* else adopted as the process's PE */
static pthread_once_t joined_once = PTHREAD_ONCE_INIT;

/* A thread that joined a PE ends.  Its operations that the checker holds
 * go out: nothing it does later would deliver them, and the PE's other
 * threads may all be outside the library (in pthread_join, say). */
static void joined_thread_exit(void *pe)
{
    shmemu__pe *me = pe;
    /* An adopted thread's PE may have left since; an attached thread's
     * must not have (shmemu_thread_attach's contract). */
    if (shmemu__self != me || (!joined_by_attach && atomic_load(&shmemu__proc_pe) != me))
        return;
    if (SHMEMU__CHECKED(me) && !shmemu__aborted(me))
        shmemu__check_thread_exit(me);
    shmemu__self = NULL;
}

static void make_key(void) { (void)pthread_key_create(&joined_key, joined_thread_exit); }

static void joined(shmemu__pe *me, int by_attach)
{
    __atomic_store_n(&me->joined, 1, __ATOMIC_RELAXED); /* several threads may join at once */
    shmemu__self = me;
    joined_by_attach = by_attach;
    (void)pthread_once(&joined_once, make_key);
    (void)pthread_setspecific(joined_key, me);
}

static void raise_level(shmemu__pe *me, int level)
{
    unsigned char cur = __atomic_load_n(&me->thread_level, __ATOMIC_RELAXED);
    while (cur < level &&
           !__atomic_compare_exchange_n(&me->thread_level, &cur, (unsigned char)level, 0,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* A thread the program started calls as the process's PE: whatever level
 * was asked for, several threads now call as it. */
shmemu__pe *shmemu__adopt(void)
{
    shmemu__pe *me = atomic_load_explicit(&shmemu__proc_pe, memory_order_acquire);
    if (!me)
        return NULL;
    raise_level(me, SHMEMU_THREAD_MULTIPLE);
    joined(me, 0);
    return me;
}

int shmemu_init_thread(int requested, int *provided)
{
    if (requested < SHMEMU_THREAD_SINGLE || requested > SHMEMU_THREAD_MULTIPLE) {
        const char *api = shmemu__api_const_of(shmemu__user_call("shmemu_init_thread"));
        return shmemu__fail(shmemu__self, SHMEMU_EINVAL, "shmemu_init_thread",
                            "requested thread level %d is not one of "
                            "%s_THREAD_SINGLE..%s_THREAD_MULTIPLE (0..3)",
                            requested, api, api);
    }
    int st = shmemu_init();
    if (st != SHMEMU_OK)
        return st;
    shmemu__pe *me = shmemu__self;
    int level = requested;
    if (me->coop && level > SHMEMU_THREAD_FUNNELED)
        level = SHMEMU_THREAD_FUNNELED; /* every PE is a fiber of one thread */
    raise_level(me, level);
    if (provided) /* a PE initialised before may already have more */
        *provided = __atomic_load_n(&me->thread_level, __ATOMIC_RELAXED);
    return SHMEMU_OK;
}

int shmemu_query_thread(void)
{
    shmemu__pe *me = shmemu__self; /* asking joins no PE */
    if (!me)
        me = atomic_load_explicit(&shmemu__proc_pe, memory_order_acquire);
    return me ? __atomic_load_n(&me->thread_level, __ATOMIC_RELAXED) : -1;
}

shmemu_pe_handle shmemu_self(void) { return (shmemu_pe_handle)shmemu__cur(); }

int shmemu_thread_attach(shmemu_pe_handle h)
{
    static const char call[] = "shmemu_thread_attach";
    shmemu__pe *pe = (shmemu__pe *)h, *me = shmemu__self;
    if (!pe)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "pe is NULL (not a handle from shmemu_self)");
    if (me && me != pe)
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "this thread already is PE %d; it cannot also be PE %d", me->pe,
                            pe->pe);
    if (pe->coop)
        return shmemu__fail(pe, SHMEMU_ENOTSUP, call,
                            "the %s transport runs every PE as a fiber of one thread: a PE "
                            "cannot have threads of its own there",
                            shmemu__tl_name(pe->job));
    raise_level(pe, SHMEMU_THREAD_MULTIPLE);
    joined(pe, 1);
    return shmemu__ok();
}

int shmemu_thread_detach(void)
{
    shmemu__pe *me = shmemu__self;
    if (!me)
        return shmemu__fail(NULL, SHMEMU_EINVAL, "shmemu_thread_detach",
                            "this thread is not a PE's");
    if (SHMEMU__CHECKED(me) && !shmemu__aborted(me))
        shmemu__check_thread_exit(me);
    shmemu__self = NULL;
    if (pthread_once(&joined_once, make_key) == 0)
        (void)pthread_setspecific(joined_key, NULL);
    return shmemu__ok();
}
