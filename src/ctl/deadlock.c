/*
 * deadlock.c - deadlock detection where the PEs share one control area:
 * when the last live PE blocks, whether every one of them really waits for
 * something only another blocked PE could do, and if so the report naming
 * what each waits for (describe.c).
 */
#include "deadlock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "runtime/dispatch.h"
#include "runtime/value.h"

static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
    SHMEMU__PRINTF(4, 5);
static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n;
}

/* Device heaps (cuda): a stream or a kernel writes a waited-for word with
 * no host told (so does a store through shmemu_ptr on any transport), and the PE asleep on it learns of it only when it looks
 * again (every SHMEMU__DEVICE_POLL_NS).  So such a PE is stuck only once it
 * has looked twice more (the first look may have begun before the others
 * were all asleep) and still sleeps on the same registration.  1 if every
 * one did, 0 if anything moved or a PE did not look in time: no verdict
 * then (a real deadlock is still ended by the livelock watch). */
static int device_waiters_looked(shmemu__pe *me, const uint64_t *snap)
{
    int n = me->npes;
    uint32_t *looks = malloc((size_t)n * sizeof(*looks));
    if (!looks)
        return 0;
    for (int p = 0; p < n; p++)
        looks[p] = atomic_load(&shmemu__ctl_pe(me->ctl, p)->looks);
    int64_t deadline = shmemu__now_ns() + 5 * SHMEMU__DEVICE_POLL_NS;
    int stuck = 1;
    for (int pending = 1; pending && stuck;) {
        pending = 0;
        for (int p = 0; p < n && stuck; p++) {
            struct shmemu__ctl_pe *cp = shmemu__ctl_pe(me->ctl, p);
            if (shmemu__life_gone(atomic_load(&cp->life)))
                continue;
            uint64_t w = atomic_load(&cp->wstate);
            if (w != snap[p])
                stuck = 0;
            else if (p != me->pe && /* it looked just before it counted itself */
                     shmemu__ws_state(w) == SHMEMU__WS_DATA_CONF &&
                     (uint32_t)(atomic_load(&cp->looks) - looks[p]) < 2)
                pending = 1;
        }
        if (pending && stuck && shmemu__now_ns() > deadline)
            stuck = 0;
        else if (pending && stuck)
            shmemu__nap(SHMEMU__DEVICE_POLL_NS / 8);
    }
    free(looks);
    return stuck;
}

/* A store through a pointer into PE pe's heap tells nobody: a PE asleep on
 * one word whose condition holds now is not stuck, only not yet told
 * (told now).  Waits on several words are left to the PE's own looks. */
static int value_wait_holds(shmemu__pe *me, int pe)
{
    struct shmemu__ctl_pe *cp = shmemu__ctl_pe(me->ctl, pe);
    const struct shmemu__wait_desc *d = &cp->wait;
    if (shmemu__ws_state(atomic_load(&cp->wstate)) != SHMEMU__WS_DATA_CONF ||
        d->kind != SHMEMU__WAIT_VALUE)
        return 0;
    int w = shmemu__vt_width(d->vtype);
    const void *at = w > 0 && d->off + (uint64_t)w <= me->heap_size
                         ? shmemu__tl_ptr_direct(me->job, pe, (size_t)d->off)
                         : NULL;
    if (!at || shmemu__vt_compare(d->vtype, shmemu__vt_load(d->vtype, at), d->cmp, d->value) != 1)
        return 0;
    shmemu__notify_slow(me->job, pe);
    return 1;
}

/* Both snapshots equal and every live PE asleep on an unchanged condition:
 * nothing can ever wake any of them. */
static int all_stuck(shmemu__pe *me)
{
    int n = me->npes;
    uint64_t *snap = malloc((size_t)n * sizeof(*snap));
    if (!snap)
        return 0; /* cannot tell: assume progress */
    int stuck = 1, waiting = 0;
    for (int pass = 0; pass < 2 && stuck; pass++) {
        for (int p = 0; p < n; p++) {
            struct shmemu__ctl_pe *cp = shmemu__ctl_pe(me->ctl, p);
            uint64_t w = 0;
            if (!shmemu__life_gone(atomic_load(&cp->life))) {
                waiting += pass;
                w = atomic_load(&cp->wstate);
                uint32_t s = shmemu__ws_state(w);
                if (atomic_load(&cp->life) == SHMEMU__LIFE_NEW ||
                    s == SHMEMU__WS_RUNNING || s == SHMEMU__WS_DATA_REG) {
                    stuck = 0;
                    break;
                }
                if (s == SHMEMU__WS_SYNC_CONF) {
                    struct shmemu__ctl_team *t =
                        shmemu__ctl_team(me->ctl, atomic_load(&cp->sync_team));
                    if ((uint32_t)atomic_load(&t->sleep) != atomic_load(&cp->sync_gen)) {
                        stuck = 0; /* released, not yet running */
                        break;
                    }
                }
            }
            if (pass == 0) {
                snap[p] = w;
            } else if (snap[p] != w) {
                stuck = 0;
                break;
            }
        }
    }
    if (stuck && waiting > 0 && atomic_load(&me->ctl->direct_stores))
        for (int p = 0; p < n && stuck; p++)
            stuck = !value_wait_holds(me, p);
    if (stuck && waiting > 0 &&
        (shmemu__tl_device_writes(me->job) ||
         (!me->coop && atomic_load(&me->ctl->direct_stores))))
        stuck = device_waiters_looked(me, snap);
    free(snap);
    /* Every PE gone (the last ones left while we looked): nobody waits. */
    return stuck && waiting > 0;
}

/* Called when the blocked count reached the live count; if the job really is
 * stuck, report it, abort the job and return the status. */
int shmemu__check_stuck(shmemu__pe *me)
{
    if (!all_stuck(me))
        return SHMEMU_OK;
    struct shmemu__ctl *c = me->ctl;
    uint32_t departed = atomic_load(&c->ndeparted);
    int status = departed ? SHMEMU_EABORTED : SHMEMU_EDEADLOCK;

    size_t len = 256 + (size_t)me->npes * 256, used = 0;
    char *buf = malloc(len);
    if (buf) {
        if (departed)
            append(buf, len, &used,
                   "shmemu: job aborted: %u of %d PEs left the job and every "
                   "PE still in it waits for something only they could do:\n",
                   departed, me->npes);
        else
            append(buf, len, &used,
                   "shmemu: deadlock: all %d PEs are blocked and nothing in "
                   "flight can wake any of them:\n",
                   me->npes);
        for (int p = 0; p < me->npes; p++) {
            char line[224];
            shmemu__describe_pe(me->job, p, line, sizeof(line));
            append(buf, len, &used, "shmemu:   PE %d/%d %s\n", p, me->npes, line);
        }
    }
    char first[256];
    shmemu__strlcpy(first, buf ? buf : "shmemu: deadlock\n", sizeof(first));
    char *nl = strchr(first, '\n');
    if (nl)
        *nl = '\0';
    shmemu__abort_job(me->job, status, -1, status, first + strlen("shmemu: "), buf);
    free(buf);
    return shmemu__aborted(me);
}
