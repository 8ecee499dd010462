/*
 * handles.c - OpenSHMEM's team and context handles where they differ from
 * shmemu's: the team calls that 1.5 lets fail with a status (a split with
 * an invalid triplet or with no team left, get_config on
 * SHMEM_TEAM_INVALID), and contexts, which are pointers a program may pass
 * garbage as -- judged before they are read.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "shmem.h"
#include "runtime/core.h"

/* ------------------------------------------------------------- teams */

int shmem_team_get_config(shmem_team_t team, long mask, shmem_team_config_t *c)
{
    SHMEMU_OSH_CALL;
    if (team == SHMEM_TEAM_INVALID) /* 1.5: no operation, a nonzero result */
        return -1;
    if (!mask) /* 1.5: no action; config may be NULL */
        return 0;
    return shmemu_team_get_config(team, mask, c);
}

/* An invalid triplet, or no team left to make: a nonzero result on every
 * PE of the parent and SHMEM_TEAM_INVALID, as 1.5 says; the job goes on. */
int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long mask,
                             shmem_team_t *new_team)
{
    SHMEMU_OSH_CALL;
    shmemu__lenient++;
    int rc = shmemu_team_split_strided(parent, start, stride, size, config, mask, new_team);
    shmemu__lenient--;
    return rc;
}

int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t *xc,
                        long xmask, shmem_team_t *xteam, const shmem_team_config_t *yc,
                        long ymask, shmem_team_t *yteam)
{
    SHMEMU_OSH_CALL;
    shmemu__lenient++;
    int rc = shmemu_team_split_2d(parent, xrange, xc, xmask, xteam, yc, ymask, yteam);
    shmemu__lenient--;
    return rc;
}

/* ---------------------------------------------------------- contexts */

struct shmemu_compat_ctx shmemu_compat_ctx_default = {0, SHMEMU_TEAM_WORLD,
                                                       SHMEMU_CTX_DEFAULT};

/*
 * Contexts live in slabs that are never freed, so that any handle a
 * program passes can be judged before it is read: one inside no slab is
 * garbage (never created), one in a slot marked dead was destroyed.  A
 * destroyed slot is handed out again only after DEAD_KEPT later
 * destructions, so a dangling handle is reported rather than taken for
 * the next context made.  Slabs are published with a release store and
 * walked without the lock.
 */
#define CTX_SLAB 64
#define DEAD_KEPT 256
#define CTX_DEAD (-2)
#define CTX_FREE (-3)
struct ctx_slab {
    struct shmemu_compat_ctx c[CTX_SLAB];
    unsigned long died[CTX_SLAB]; /* when each dead slot died: the oldest goes first */
    struct ctx_slab *next;
};
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ctx_slab *slabs;
static unsigned long deaths, ndead;

static int slot_id(const struct shmemu_compat_ctx *c)
{
    return __atomic_load_n(&c->id, __ATOMIC_ACQUIRE);
}

/* The slab slot ctx is, or NULL (garbage). */
static struct ctx_slab *slab_of(shmem_ctx_t ctx, size_t *slot)
{
    for (struct ctx_slab *sl = __atomic_load_n(&slabs, __ATOMIC_ACQUIRE); sl; sl = sl->next) {
        uintptr_t off = (uintptr_t)ctx - (uintptr_t)sl->c;
        if (off < sizeof(sl->c) && off % sizeof(sl->c[0]) == 0) {
            *slot = off / sizeof(sl->c[0]);
            return sl;
        }
    }
    return NULL;
}

/* 0 if ctx is the default context or a live one; otherwise a report
 * naming call (as a routine of the context's family) and -1. */
static int ctx_check(shmem_ctx_t ctx, const char *call)
{
    if (ctx == SHMEM_CTX_DEFAULT)
        return 0;
    size_t slot;
    if (!ctx) {
        (void)shmemu_error(SHMEMU_EINVAL, call, "ctx %p is SHMEM_CTX_INVALID", (void *)ctx);
        return -1;
    }
    if (!slab_of(ctx, &slot) || slot_id(ctx) == CTX_FREE) {
        (void)shmemu_error(SHMEMU_EINVAL, call,
                           "ctx %p is not a context (never set by shmem_ctx_create or "
                           "shmem_team_create_ctx)",
                           (void *)ctx);
        return -1;
    }
    if (slot_id(ctx) == CTX_DEAD) {
        (void)shmemu_error(SHMEMU_EINVAL, call, "ctx %p was destroyed (shmem_ctx_destroy)",
                           (void *)ctx);
        return -1;
    }
    return 0;
}

static struct shmemu_compat_ctx *ctx_take(void)
{
    struct shmemu_compat_ctx *c = NULL, *oldest = NULL;
    unsigned long when = 0;
    pthread_mutex_lock(&ctx_lock);
    for (struct ctx_slab *sl = slabs; sl && !c; sl = sl->next)
        for (int i = 0; i < CTX_SLAB && !c; i++) {
            int id = slot_id(&sl->c[i]); /* a context is made live outside the lock */
            if (id == CTX_FREE)
                c = &sl->c[i];
            else if (id == CTX_DEAD && (!oldest || sl->died[i] < when))
                oldest = &sl->c[i], when = sl->died[i];
        }
    if (!c && oldest && ndead > DEAD_KEPT) {
        c = oldest;
        ndead--;
    }
    if (!c) {
        struct ctx_slab *sl = calloc(1, sizeof(*sl));
        if (sl) {
            for (int i = 0; i < CTX_SLAB; i++)
                sl->c[i].id = CTX_FREE;
            sl->next = slabs;
            __atomic_store_n(&slabs, sl, __ATOMIC_RELEASE);
            c = &sl->c[0];
        }
    }
    if (c)
        __atomic_store_n(&c->id, SHMEMU_CTX_DEFAULT, __ATOMIC_RELAXED); /* taken, not live */
    pthread_mutex_unlock(&ctx_lock);
    return c;
}

static void ctx_bury(struct shmemu_compat_ctx *c)
{
    size_t slot = 0;
    struct ctx_slab *sl = slab_of(c, &slot); /* c came from ctx_take */
    pthread_mutex_lock(&ctx_lock);
    sl->died[slot] = ++deaths;
    ndead++;
    __atomic_store_n(&c->id, CTX_DEAD, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ctx_lock);
}

int shmemu_compat_ctx_check(shmem_ctx_t ctx)
{
    return ctx_check(ctx, "shmem_ctx_*");
}

/* Out of line for every context but the default: check it, select it,
 * put pe in world numbering.  Returns the thread's previous context. */
int shmemu_compat_ctx_enter(shmem_ctx_t ctx, int *pe)
{
    if (ctx_check(ctx, "shmem_ctx_*")) {
        *pe = -1; /* the call itself then fails, naming pe */
        return -1;
    }
    if (ctx->team != SHMEMU_TEAM_WORLD) {
        int n = shmemu_team_n_pes(ctx->team);
        if (n <= 0) {
            (void)shmemu_error(SHMEMU_EINVAL, "shmem_ctx_*",
                               "the context's team %d was destroyed (shmem_team_destroy)",
                               ctx->team);
            *pe = -1;
            return -1;
        }
        if (*pe < 0 || *pe >= n) {
            (void)shmemu_error(SHMEMU_EPE, "shmem_ctx_*",
                               "pe %d is not in the context's team (%d PEs)", *pe, n);
            *pe = -1;
            return -1;
        }
        *pe = shmemu_team_translate_pe(ctx->team, *pe, SHMEMU_TEAM_WORLD);
    }
    return shmemu_ctx_select(ctx->id);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (!ctx)
        return shmemu_error(SHMEMU_EINVAL, "shmem_ctx_create", "ctx is NULL");
    *ctx = SHMEM_CTX_INVALID;
    if (shmemu_team_n_pes(team) <= 0)
        return 1;
    struct shmemu_compat_ctx *c = ctx_take();
    shmemu_ctx_t id;
    if (!c)
        return 1;
    if (shmemu_ctx_create(&id) != SHMEMU_OK) {
        ctx_bury(c);
        return 1;
    }
    c->options = options;
    c->team = team;
    __atomic_store_n(&c->id, id, __ATOMIC_RELEASE);
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return shmem_team_create_ctx(SHMEMU_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (!ctx)
        return; /* SHMEM_CTX_INVALID: nothing to do (1.5) */
    if (ctx == SHMEM_CTX_DEFAULT) {
        (void)shmemu_error(SHMEMU_EINVAL, "shmem_ctx_destroy",
                           "ctx is SHMEM_CTX_DEFAULT, which is the library's and cannot be "
                           "destroyed");
        return;
    }
    size_t slot;
    if (slab_of(ctx, &slot) && slot_id(ctx) == CTX_DEAD) {
        (void)shmemu_error(SHMEMU_EINVAL, "shmem_ctx_destroy",
                           "ctx %p was destroyed already", (void *)ctx);
        return;
    }
    if (ctx_check(ctx, "shmem_ctx_destroy"))
        return;
    (void)shmemu_ctx_destroy(ctx->id); /* completes its operations */
    ctx_bury(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team)
        return -1;
    if (!ctx) {
        *team = SHMEMU_TEAM_INVALID;
        return -1;
    }
    if (ctx_check(ctx, "shmem_ctx_get_team")) {
        *team = SHMEMU_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    static const char call[] = "shmem_ctx_pe_quiet";
    if (npes == 0)
        return;
    if (!ctx)
        return; /* SHMEM_CTX_INVALID: nothing to complete, as shmem_ctx_quiet */
    if (!target_pes) {
        (void)shmemu_error(SHMEMU_EINVAL, call, "target_pes is NULL with npes %zu", npes);
        return;
    }
    if (ctx_check(ctx, call))
        return;
    int n = shmemu_team_n_pes(ctx->team);
    for (size_t i = 0; i < npes; i++)
        if (target_pes[i] < 0 || target_pes[i] >= n) {
            (void)shmemu_error(SHMEMU_EPE, call,
                               "target_pes[%zu] = %d is not a PE of the context's team "
                               "(%d PEs)",
                               i, target_pes[i], n);
            return;
        }
    shmem_ctx_quiet(ctx);
}

