/* sync.c - fence, quiet and the world barriers. */
#include "check.h"
#include "core.h"
#include "wait.h"

int shmemu__complete(shmemu__pe *me, const char *call, int quiet)
{
    const struct shmemu_transport_ops *ops = me->job->ops;
    int st = SHMEMU_OK;
    if (me->chk) { /* what the checker holds goes first */
        if (quiet)
            shmemu__check_quiet(me);
        else
            shmemu__check_fence(me);
    }
    if (quiet && SHMEMU_TL_HAS(ops, quiet))
        st = ops->quiet(me->tlj, me->pe);
    else if (!quiet && SHMEMU_TL_HAS(ops, fence))
        st = ops->fence(me->tlj, me->pe);
    /* Also a full memory fence: puts already delivered by plain stores must
     * be ordered before what follows (a flag, a barrier arrival). */
    shmemu__full_fence();
    if (st)
        return shmemu__fail(me, st, call, "the %s transport failed to complete "
                                          "outstanding operations",
                            ops->name);
    return SHMEMU_OK;
}

int shmemu_fence(void)
{
    SHMEMU__ENTER(me, "shmemu_fence", shmemu__last_status);
    int st = shmemu__complete(me, "shmemu_fence", 0);
    return st ? st : shmemu__ok();
}

int shmemu_quiet(void)
{
    SHMEMU__ENTER(me, "shmemu_quiet", shmemu__last_status);
    int st = shmemu__complete(me, "shmemu_quiet", 1);
    return st ? st : shmemu__ok();
}

int shmemu_barrier_all(void)
{
    static const char call[] = "shmemu_barrier_all";
    SHMEMU__ENTER(me, call, shmemu__last_status);
    int st = shmemu__complete(me, call, 1);
    if (!st)
        st = shmemu__team_sync(me, 0, call);
    return st ? st : shmemu__ok();
}

int shmemu_sync_all(void)
{
    static const char call[] = "shmemu_sync_all";
    SHMEMU__ENTER(me, call, shmemu__last_status);
    if (me->chk)
        shmemu__check_sync_arrive(me, 0, call);
    int st = shmemu__team_sync(me, 0, call);
    if (me->chk)
        shmemu__check_synced(me);
    return st ? st : shmemu__ok();
}
