/*
 * net_deadlock.c - deadlock detection for jobs whose processes share no
 * memory: each PE's control block is read from its process (net.h) when
 * the last live PE goes to sleep.
 */
#include "net_deadlock.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "livelock.h"
#include "net_wire.h"
#include "plane.h"
#include "wait.h"
#include "runtime/dispatch.h"


/*
 * A PE that naps counts itself in PE 0's nconfirmed, with its wait state
 * (token, kind) in its block, after completing every operation it issued
 * (so nothing it sent is still on its way).  Each look at its condition
 * that finds it false bumps its `looks`.  When the count reaches the live
 * PEs, the PE that saw it takes a snapshot of every PE's block, then
 * waits until every PE has looked twice more without leaving its sleep
 * (the second look began after the snapshot): each condition was then
 * false at a time when no PE ran and nothing was in flight, so none can
 * ever come true.  A PE the scheduler keeps from looking makes the check
 * inconclusive (no verdict), and the check runs again later.
 */
#define NET_CHECK_EVERY_NS 100000000LL
#define NET_CHECK_FOR_NS 3000000000LL

/* What the check reads of a PE's block: the fields before `wait`. */
#define HEAD_BYTES offsetof(struct shmemu__ctl_pe, wait)


/* PE p's block as it is now, into ours (nobody else writes there). */
static struct shmemu__ctl_pe *peek(shmemu__pe *me, int p, size_t bytes)
{
    struct shmemu__ctl_pe *cp = shmemu__ctl_pe(me->ctl, p);
    if (p != me->pe && rma(me->job, SHMEMU_TL_GET, p, cp, cp, bytes))
        return NULL;
    return cp;
}

/* A PE asleep in a sync whose release has come: about to run. */
int shmemu__net_sync_released(shmemu__pe *me, int p, const struct shmemu__ctl_pe *cp)
{
    uint32_t state = shmemu__ws_state(atomic_load(&cp->wstate));
    if (state != SHMEMU__WS_SYNC_CONF)
        return 0;
    int slot = atomic_load(&cp->sync_team);
    if (slot < 0 || slot >= SHMEMU__TEAMS_MAX)
        return 1;
    _Atomic uint32_t *rel =
        (_Atomic uint32_t *)shmemu__team_gen_word(shmemu__ctl_team(me->ctl, slot));
    uint64_t now = 0;
    if (p == me->pe)
        now = atomic_load(rel);
    else if (amo(me->job, p, SHMEMU_TL_AMO_FETCH, 4, rel, 0, 0, &now))
        return 1;
    return (uint32_t)now != atomic_load(&cp->sync_gen);
}

struct shmemu__ctl_pe *shmemu__net_block(shmemu__pe *me, int p)
{
    return peek(me, p, sizeof(struct shmemu__ctl_pe));
}

/* ready(me, arg): this PE's own condition, looked at once more after the
 * snapshot (it may have come true after our last look, before the others
 * slept). */
static int all_stuck(shmemu__pe *me, int (*ready)(shmemu__pe *me, void *arg), void *arg)
{
    int n = me->npes, waiting = 0;
    uint64_t *ws = calloc((size_t)n, 2 * sizeof(*ws));
    if (!ws)
        return 0;
    uint64_t *looks = ws + n;
    int stuck = 1;
    for (int p = 0; p < n && stuck; p++) { /* the snapshot */
        struct shmemu__ctl_pe *cp = peek(me, p, HEAD_BYTES);
        uint32_t life = cp ? atomic_load(&cp->life) : SHMEMU__LIFE_NEW;
        if (cp && shmemu__life_gone(life)) {
            ws[p] = UINT64_MAX;
            continue;
        }
        uint32_t state = cp ? shmemu__ws_state(atomic_load(&cp->wstate)) : 0;
        if (life != SHMEMU__LIFE_RUNNING ||
            (state != SHMEMU__WS_DATA_CONF && state != SHMEMU__WS_SYNC_CONF) ||
            shmemu__net_sync_released(me, p, cp)) {
            stuck = 0;
            break;
        }
        ws[p] = atomic_load(&cp->wstate);
        looks[p] = atomic_load(&cp->looks);
        waiting++;
    }
    if (stuck && ready(me, arg))
        stuck = 0;
    int64_t until = shmemu__now_ns() + NET_CHECK_FOR_NS;
    for (int p = 0; p < n && stuck;) { /* two more looks each, same sleep */
        if (ws[p] == UINT64_MAX || p == me->pe) {
            p++;
            continue;
        }
        struct shmemu__ctl_pe *cp = peek(me, p, HEAD_BYTES);
        if (!cp || atomic_load(&cp->wstate) != ws[p] || shmemu__net_sync_released(me, p, cp) ||
            shmemu__aborted(me) || shmemu__now_ns() > until) {
            stuck = 0;
        } else if ((uint32_t)(atomic_load(&cp->looks) - (uint32_t)looks[p]) >= 2) {
            p++;
        } else {
            /* We look too meanwhile: a PE checking at the same time waits
             * for our looks as we wait for its. */
            shmemu__drive(me);
            if (ready(me, arg))
                stuck = 0;
            atomic_fetch_add(&me->ctl_me->looks, 1);
            shmemu__nap(NET_NAP_MAX_NS / 4);
        }
    }
    free(ws);
    return stuck && waiting > 0;
}

static void describe(shmemu__pe *me, int p, char *buf, size_t len)
{
    struct shmemu__ctl_pe *cp = shmemu__net_block(me, p);
    uint32_t life = cp ? atomic_load(&cp->life) : SHMEMU__LIFE_NEW;
    if (!cp)
        snprintf(buf, len, "did not answer");
    else if (life == SHMEMU__LIFE_DEPARTED)
        snprintf(buf, len, "left the job (finalized)");
    else if (shmemu__life_gone(life))
        snprintf(buf, len, "failed");
    else if (cp->wait.kind == SHMEMU__WAIT_SYNC)
        snprintf(buf, len, "in %s (team slot %d)", cp->wait.call, cp->wait.team);
    else /* on another node it is asleep, and its serving thread answers */
        shmemu__format_value_wait(me->job, p, &cp->wait, 1, buf, len);
}

void shmemu__net_check_stuck(shmemu__pe *me, int (*ready)(shmemu__pe *me, void *arg), void *arg)
{
    if (!all_stuck(me, ready, arg))
        return;
    uint32_t departed = atomic_load(&me->ctl->ndeparted);
    int status = departed ? SHMEMU_EABORTED : SHMEMU_EDEADLOCK;
    size_t len = 256 + (size_t)me->npes * 256, used = 0;
    char *buf = malloc(len), first[200];
    if (departed)
        snprintf(first, sizeof(first),
                 "job aborted: %u of %d PEs left the job and every PE still in it waits "
                 "for something only they could do",
                 departed, me->npes);
    else
        snprintf(first, sizeof(first),
                 "deadlock: all %d PEs are blocked and nothing in flight can wake any of "
                 "them",
                 me->npes);
    if (buf) {
        used += (size_t)snprintf(buf, len, "shmemu: %s:\n", first);
        for (int p = 0; p < me->npes && used < len; p++) {
            char line[224];
            describe(me, p, line, sizeof(line));
            used += (size_t)snprintf(buf + used, len - used, "shmemu:   PE %d/%d %s\n", p,
                                     me->npes, line);
        }
    }
    shmemu__abort_job(me->job, status, -1, status, first, buf); /* the network plane's */
    free(buf);
}

