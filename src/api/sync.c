/* sync.c - fence, quiet and the world barriers. */
#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "ctl/wait.h"

int shmemu__complete(shmemu__pe *me, const char *call, int quiet)
{
    int st = shmemu__tl_complete(me, quiet);
    /* Also a full memory fence: puts already delivered by plain stores must
     * be ordered before what follows (a flag, a barrier arrival). */
    shmemu__full_fence();
    if (quiet)
        shmemu__notify_delivered(me);
    if (st)
        return shmemu__tl_failed(me, st, call, "to complete outstanding operations");
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
    SHMEMU__ENTER_NOPOINT(me, call, shmemu__last_status);
    int st = shmemu__complete(me, call, 1);
    if (!st)
        st = shmemu__team_sync(me, 0, call);
    return st ? st : shmemu__ok();
}

int shmemu_sync_all(void)
{
    static const char call[] = "shmemu_sync_all";
    SHMEMU__ENTER_NOPOINT(me, call, shmemu__last_status);
    if (SHMEMU__CHECKED(me))
        shmemu__check_sync_arrive(me, 0, call);
    int st = shmemu__team_sync(me, 0, call);
    if (SHMEMU__CHECKED(me))
        shmemu__check_synced(me);
    return st ? st : shmemu__ok();
}
