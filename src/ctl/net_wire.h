/*
 * net_wire.h - how the network control plane (net.c, net_deadlock.c)
 * reaches a word of another PE's control block: the word's offset in the
 * control area, then one RMA or atomic through the transport.
 */
#ifndef SHMEMU_NET_WIRE_H
#define SHMEMU_NET_WIRE_H

#include "ctl.h"
#include "runtime/dispatch.h"

/* Naps double from the first to the last: a peer's answer over TCP takes
 * tens of microseconds, and a PE that waits long must not wake often. */
#define NET_NAP_MIN_NS 16000
#define NET_NAP_MAX_NS 1000000
/* How long an abort being broadcast waits for a peer that does not answer
 * (its process may be the one that died). */
#define NET_GRACE_NS 2000000000LL
/* Deadlock checks (net_deadlock.c): how often a napping PE looks whether
 * everyone naps, and how long a check may wait for every PE's looks. */
#define NET_CHECK_EVERY_NS 100000000LL
#define NET_CHECK_FOR_NS 3000000000LL

static inline size_t off_of(const struct shmemu__job *job, const volatile void *field)
{
    return (size_t)((const char *)field - (const char *)job->tl.ctl);
}

/* One atomic on the word of PE pe's copy that field is in ours. */
static inline int amo(struct shmemu__job *job, int pe, int op, unsigned width, const volatile void *field,
               uint64_t value, uint64_t cond, uint64_t *old)
{
    uint64_t r = 0;
    struct shmemu_tl_amo d = {.op = op, .pe = pe, .width = width, .off = off_of(job, field),
                              .value = value, .cond = cond, .result = &r};
    int st = shmemu__tl_ctl_amo(job, &d);
    if (old)
        *old = r;
    return st;
}

static inline int rma(struct shmemu__job *job, int op, int pe, const volatile void *field,
               void *local, size_t n)
{
    return shmemu__tl_ctl_rma(job, op, pe, off_of(job, field), local, n);
}

static inline uint32_t shmemu__net_nlive(shmemu__pe *me)
{
    return (uint32_t)me->npes - atomic_load(&me->ctl->ndeparted);
}

#endif
