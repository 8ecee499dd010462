/*
 * describe.c - what a PE is doing, in words, for the deadlock, livelock
 * and timeout reports: not started, left, running its own code, polling a
 * word (and which), or asleep in a call (which, on what, and the values it
 * waits for as they are now).
 */
#include "describe.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/dispatch.h"
#include "runtime/value.h"

/* A comparison as the waiting call's API spells it: SHMEM_CMP_EQ in a
 * report on an OpenSHMEM routine. */
static const char *cmp_as(const char *call, int cmp)
{
    static const char *const names[] = {"SHMEM_CMP_EQ", "SHMEM_CMP_NE", "SHMEM_CMP_GT",
                                        "SHMEM_CMP_GE", "SHMEM_CMP_LT", "SHMEM_CMP_LE"};
    if (shmemu__is_osh_call(call) && cmp >= 0 && cmp < 6)
        return names[cmp];
    return shmemu__cmp_name(cmp);
}

void shmemu__format_value_wait(struct shmemu__job *job, int pe,
                               const struct shmemu__wait_desc *d, int may_get, char *buf,
                               size_t len)
{
    char want[112], now[96] = "";
    unsigned char got[64];
    const unsigned char *bytes = NULL;
    size_t w8 = (size_t)shmemu__vt_width(d->vtype),
           n8 = d->kind == SHMEMU__WAIT_ARRAY ? (d->nelems < 8 ? d->nelems : 8) : 1;
    if (may_get && !shmemu__tl_ptr_direct(job, pe, (size_t)d->off) && w8 && w8 <= 8 && n8 &&
        shmemu__tl_heap_get(job, pe, (size_t)d->off, got, n8 * w8) == SHMEMU_OK)
        bytes = got; /* a peer's heap this process does not map */
    if (d->nvalues > 0) {
        /* A _vector wait compares each element with its own value. */
        size_t used = (size_t)snprintf(want, sizeof(want), "cmp_values ");
        for (int i = 0; i < d->nvalues && i < SHMEMU__WAIT_VALUES && used + 22 < sizeof(want);
             i++) {
            if (i)
                want[used++] = ' ';
            shmemu__vt_format(d->vtype, d->values[i], want + used, sizeof(want) - used);
            used += strlen(want + used);
        }
        if ((uint64_t)d->nvalues < d->nelems && used + 4 < sizeof(want))
            memcpy(want + used, " ...", 5);
    } else {
        shmemu__vt_format(d->vtype, d->value, want, sizeof(want));
    }
    char where[128];
    shmemu__word_name(shmemu__self, d->off, where, sizeof(where));
    if (bytes || shmemu__tl_ptr_direct(job, pe, (size_t)d->off)) {
        /* Show the value(s) the PE is stuck on, as they are now. */
        size_t n = d->kind == SHMEMU__WAIT_ARRAY ? d->nelems : 1, used = 0;
        int w = shmemu__vt_width(d->vtype);
        for (size_t i = 0; i < n && i < 8 && used + 24 < sizeof(now); i++) {
            uint64_t v = shmemu__vt_load(
                d->vtype, bytes ? bytes + i * (size_t)w
                                : shmemu__tl_ptr_direct(job, pe, (size_t)d->off + i * (size_t)w));
            shmemu__vt_format(d->vtype, v, now + used, sizeof(now) - used);
            used += strlen(now + used);
            if (i + 1 < n)
                now[used++] = i == 7 ? '.' : ' ', now[used] = '\0';
        }
    }
    if (d->kind == SHMEMU__WAIT_ARRAY)
        snprintf(buf, len, "in %s(ivars=%s, nelems=%" PRIu64 ", %s, %s): values are %s",
                 d->call, where, d->nelems, cmp_as(d->call, d->cmp), want,
                 *now ? now : "not readable here");
    else
    {
        const char *arg = strstr(d->call, "_signal_") ? "sig_addr" : "ivar";
        snprintf(buf, len, "in %s(%s=%s, %s, %s): %s is %s", d->call, arg, where,
                 cmp_as(d->call, d->cmp), want, arg,
                 *now ? now : "not readable here");
    }
}

void shmemu__poll_describe(struct shmemu__job *job, int pe, char *buf, size_t len)
{
    struct shmemu__ctl_pe *cp = shmemu__ctl_pe(job->tl.ctl, pe);
    uint64_t words[SHMEMU__CALL_LEN / 8], where[SHMEMU__SITE_LEN / 8];
    for (size_t i = 0; i < SHMEMU__CALL_LEN / 8; i++)
        words[i] = atomic_load_explicit(&cp->poll.call[i], memory_order_relaxed);
    ((char *)words)[sizeof(words) - 1] = '\0';
    for (size_t i = 0; i < SHMEMU__SITE_LEN / 8; i++)
        where[i] = atomic_load_explicit(&cp->poll.where[i], memory_order_relaxed);
    ((char *)where)[sizeof(where) - 1] = '\0';
    /* How long, in the PE's own clock (another node's is not ours). */
    int64_t since = atomic_load(&cp->poll_since), beat = atomic_load(&cp->poll_beat);
    char at[SHMEMU__SITE_LEN + 8] = "";
    if (where[0])
        snprintf(at, sizeof(at), " at %s", (const char *)where);
    char what[128];
    shmemu__word_name(shmemu__self, atomic_load(&cp->poll.off), what, sizeof(what));
    snprintf(buf, len,
             "polls %s on %s of PE %d (%llu bytes)%s: unchanged (0x%llx) for %.1f s",
             (const char *)words, what,
             (int)atomic_load(&cp->poll.pe), (unsigned long long)atomic_load(&cp->poll.nbytes),
             at, (unsigned long long)atomic_load(&cp->poll.value), (double)(beat - since) / 1e9);
}

void shmemu__describe_pe(struct shmemu__job *job, int pe, char *buf, size_t len)
{
    struct shmemu__ctl *c = job->tl.ctl;
    struct shmemu__ctl_pe *cp = shmemu__ctl_pe(c, pe);
    uint32_t life = atomic_load(&cp->life);
    uint32_t state = shmemu__ws_state(atomic_load(&cp->wstate));
    if (life == SHMEMU__LIFE_NEW) {
        snprintf(buf, len, "has not started");
    } else if (life == SHMEMU__LIFE_DEPARTED) {
        snprintf(buf, len, "left the job (finalized or returned %d from pe_main)", cp->rc);
    } else if (life == SHMEMU__LIFE_FAILED) {
        snprintf(buf, len, "failed");
    } else if (state == SHMEMU__WS_RUNNING || state == SHMEMU__WS_DATA_REG) {
        uintptr_t call = atomic_load(&cp->last_call), site = atomic_load(&cp->last_site);
        char where[96] = "";
        if (call && shmemu__addrs_readable(job, pe))
            snprintf(where, sizeof(where), "; its last shmemu call: %s at %s",
                     (const char *)call, shmemu__site_name((void *)site));
        /* Polled lately; another node's clock is not ours: there, what
         * asks (livelock detection) has just seen it poll. */
        int64_t beat = atomic_load(&cp->poll_beat);
        if (atomic_load(&cp->poll_since) &&
            (shmemu__net(job) || shmemu__clock(job) - beat < 1000000000))
            shmemu__poll_describe(job, pe, buf, len);
        else
            snprintf(buf, len, "is running (not asleep in a shmemu call)%s", where);
    } else if (cp->wait.kind == SHMEMU__WAIT_SYNC) {
        const struct shmemu__wait_desc *d = &cp->wait;
        if (shmemu__net(job)) { /* arrivals are told member to member there */
            snprintf(buf, len, "in %s (team slot %d)", d->call, d->team);
        } else {
            struct shmemu__ctl_team *t = shmemu__ctl_team(c, d->team);
            snprintf(buf, len, "in %s (team slot %d of %d PEs: %u arrived)", d->call,
                     d->team, t->size, (uint32_t)atomic_load(&t->arrived));
        }
    } else {
        shmemu__format_value_wait(job, pe, &cp->wait, 0, buf, len);
    }
}
