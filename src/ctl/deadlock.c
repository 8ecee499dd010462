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
 * no host told, and the PE asleep on it learns of it only when it looks
 * again (every SHMEMU__DEVICE_POLL_NS); so does a store through a pointer
 * to a peer's heap, where the check cannot read the word itself.  So such a PE is stuck only once it
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

/* A store through a pointer into PE pe's heap tells nobody, so the words a
 * sleeper waits on are looked at for it: 1 if it may be ready (it is not
 * stuck, only not yet told: told now), 0 if it cannot be, -1 if this
 * cannot tell (words not readable here).  Exact for a wait on one word;
 * an array wait has a status mask this cannot see, so where any word may
 * satisfy, the PE is woken to look for itself -- once per content of its
 * words: asleep again on the same words, it found them wanting. */
static int sleeper_judged(shmemu__pe *me, int pe, uint64_t snap)
{
    struct shmemu__ctl_pe *cp = shmemu__ctl_pe(me->ctl, pe);
    if (shmemu__life_gone(atomic_load(&cp->life)))
        return 0;
    uint64_t ws = atomic_load(&cp->wstate);
    if (ws != snap)
        return 1; /* it woke since the snapshots: not stuck */
    if (shmemu__ws_state(ws) != SHMEMU__WS_DATA_CONF)
        return 0;
    struct shmemu__wait_desc copy, *d = &copy;
    shmemu__wait_desc_copy(d, &cp->wait);
    if (atomic_load(&cp->wstate) != ws)
        return -1; /* it woke meanwhile: the snapshots' pass sees it next */
    size_t w = (size_t)shmemu__vt_width(d->vtype);
    uint64_t n = d->kind == SHMEMU__WAIT_ARRAY ? d->nelems : 1;
    if (!w || n > 4096 || d->off + n * w > me->heap_size ||
        (d->kind != SHMEMU__WAIT_VALUE && d->kind != SHMEMU__WAIT_ARRAY))
        return -1;
    const char *at = shmemu__tl_ptr_direct(me->job, pe, (size_t)d->off);
    if (!at)
        return -1;
    int may = 0;
    uint64_t hash = 0xcbf29ce484222325ull; /* FNV-1a over the words */
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = shmemu__vt_load(d->vtype, at + i * w);
        hash = (hash ^ v) * 0x100000001b3ull;
        if (d->nvalues > 0 && (i >= (uint64_t)d->nvalues || i >= SHMEMU__WAIT_VALUES))
            may = 1; /* its own value, beyond those recorded */
        else
            may |= shmemu__vt_compare(d->vtype, v, d->cmp,
                                      d->nvalues > 0 ? d->values[i] : d->value) == 1;
    }
    if (!may || (d->kind == SHMEMU__WAIT_ARRAY && atomic_exchange(&cp->woke_on, hash) == hash))
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
    int unsure = shmemu__tl_device_writes(me->job);
    if (stuck && waiting > 0 && !unsure && atomic_load(&me->ctl->direct_stores))
        for (int p = 0; p < n && stuck; p++) {
            int r = sleeper_judged(me, p, snap[p]);
            stuck = r <= 0;
            unsure |= r < 0;
        }
    /* What this could not judge, the sleepers judge by looking (PEs that
     * take turns cannot look meanwhile: their verdict is the snapshots'). */
    if (stuck && waiting > 0 && unsure && !me->coop)
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
