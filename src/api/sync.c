/* sync.c - fence, quiet and the world barriers. */
#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "ctl/wait.h"

int shmemu__complete(shmemu__pe *me, const char *call, int quiet)
{
    int st = shmemu__tl_complete(me, quiet);
    /* Also a full memory fence: puts already delivered by plain stores must
     * be ordered before what follows (a flag, a barrier arrival).  Not
     * where one thread runs every PE (a cooperative job): program order
     * orders them, and the fence's locked add below the stack pointer was a
     * cache miss per PE in a 4,096-PE barrier. */
    if (SHMEMU__LIKELY(!me->coop))
        shmemu__full_fence();
    else
        shmemu__compiler_barrier();
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

/* --------------------------------------------------------------- contexts */

int shmemu_ctx_create(shmemu_ctx_t *ctx)
{
    SHMEMU__ENTER(me, "shmemu_ctx_create", shmemu__last_status);
    if (!ctx)
        return shmemu__fail(me, SHMEMU_EINVAL, "shmemu_ctx_create", "ctx is NULL");
    *ctx = __atomic_add_fetch(&me->ctx_count, 1, __ATOMIC_RELAXED);
    return shmemu__ok();
}

static int ctx_known(shmemu__pe *me, const char *call, shmemu_ctx_t ctx)
{
    if (ctx >= 0 && ctx <= __atomic_load_n(&me->ctx_count, __ATOMIC_RELAXED))
        return SHMEMU_OK;
    return shmemu__fail(me, SHMEMU_EINVAL, call, "ctx %d is not a context of this PE", ctx);
}

int shmemu_ctx_select(shmemu_ctx_t ctx)
{
    SHMEMU__ENTER(me, "shmemu_ctx_select", shmemu__last_status);
    int st = ctx_known(me, "shmemu_ctx_select", ctx);
    if (st)
        return st;
    int prev = shmemu__ctx_id;
    shmemu__ctx_id = ctx;
    shmemu__ok();
    return prev;
}

/* quiet (1) or fence (0) on ctx, the thread's context put back after. */
static int ctx_complete(const char *call, shmemu_ctx_t ctx, int quiet)
{
    SHMEMU__ENTER(me, call, shmemu__last_status);
    int st = ctx_known(me, call, ctx);
    if (st)
        return st;
    int prev = shmemu__ctx_id;
    shmemu__ctx_id = ctx;
    st = shmemu__complete(me, call, quiet);
    shmemu__ctx_id = prev;
    return st ? st : shmemu__ok();
}

int shmemu_ctx_quiet(shmemu_ctx_t ctx) { return ctx_complete("shmemu_ctx_quiet", ctx, 1); }
int shmemu_ctx_fence(shmemu_ctx_t ctx) { return ctx_complete("shmemu_ctx_fence", ctx, 0); }

int shmemu_ctx_destroy(shmemu_ctx_t ctx)
{
    if (ctx == SHMEMU_CTX_DEFAULT)
        return SHMEMU_OK; /* stays */
    int st = ctx_complete("shmemu_ctx_destroy", ctx, 1);
    if (!st && shmemu__ctx_id == ctx)
        shmemu__ctx_id = SHMEMU_CTX_DEFAULT;
    return st;
}

int shmemu_barrier_all(void)
{
    static const char call[] = "shmemu_barrier_all";
    SHMEMU__ENTER_NOPOINT(me, call, shmemu__last_status);
    int ctx = shmemu__ctx_id; /* a barrier completes the default context's */
    shmemu__ctx_id = SHMEMU_CTX_DEFAULT;
    int st = shmemu__complete(me, call, 1);
    shmemu__ctx_id = ctx;
    /* Puts still held on other contexts get the note a sync's would: a
     * program that counts on the barrier to complete them fails under fuzz,
     * and the note says why. */
    if (!st && SHMEMU__CHECKED(me))
        shmemu__check_sync_arrive(me, 0, call);
    if (!st)
        st = shmemu__team_sync(me, 0, call);
    if (!st && SHMEMU__CHECKED(me))
        shmemu__check_synced(me);
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
