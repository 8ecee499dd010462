/*
 * ctl.h - layout of a job's shared control area.
 *
 * The core defines this layout; the transport only provides ctl_size zeroed
 * bytes that every PE of the job maps (plain memory for threads, the POSIX
 * shared-memory segment for processes).  Nothing here holds a pointer: the
 * area may sit at a different address in every process.
 *
 *   [ header | PE block x npes | team slot x teams_max ]
 *
 * Each block is cache-line aligned so that a PE's waiting state and a team's
 * arrival counter never share a line with anything another PE writes often.
 */
#ifndef SHMEMU_CTL_H
#define SHMEMU_CTL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/platform.h"
#include "shmemu.h"

#define SHMEMU__CTL_MAGIC 0x73686d75u /* "shmu" */
#define SHMEMU__CTL_LAYOUT 7u
#define SHMEMU__TEAMS_MAX 64 /* team slots per job, world included */
#define SHMEMU__CALL_LEN 48
#define SHMEMU__WAIT_VALUES 4
#define SHMEMU__SITE_LEN 96
#define SHMEMU__DISS_ROUNDS 31 /* ceil(log2(INT_MAX)): rounds of a dissemination barrier */
/* Every heap ends with one SHMEMU_TEAM_WORKSPACE_BYTES area per team slot. */
#define SHMEMU__WORKSPACE_TOTAL ((size_t)SHMEMU__TEAMS_MAX * SHMEMU_TEAM_WORKSPACE_BYTES)

_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2,
               "control words must be lock-free to be process-shared");

/* What a PE is doing, as others see it (low half of ctl_pe.wstate). */
enum shmemu__wstate {
    SHMEMU__WS_RUNNING = 0,   /* not blocked in the library */
    SHMEMU__WS_DATA_REG = 1,  /* about to sleep on a value; re-checking it */
    SHMEMU__WS_DATA_CONF = 2, /* sleeping on a value; any update wakes it */
    SHMEMU__WS_SYNC_CONF = 3  /* sleeping in a team sync (barrier) */
};

/* Where a PE is in its life (ctl_pe.life). */
enum shmemu__life {
    SHMEMU__LIFE_NEW = 0,      /* not started yet */
    SHMEMU__LIFE_RUNNING = 1,  /* between start and finalize */
    SHMEMU__LIFE_DEPARTED = 2, /* finalized, or returned from pe_main */
    SHMEMU__LIFE_FAILED = 3    /* stopped by an error, a signal or an exit */
};

enum shmemu__wait_kind {
    SHMEMU__WAIT_VALUE = 1, /* one ivar against cmp/value */
    SHMEMU__WAIT_ARRAY,     /* wait_until_all/any/some over nelems ivars */
    SHMEMU__WAIT_SYNC       /* team sync: waits for generation `gen` to end */
};

/* What a blocked PE waits for; written by that PE before it sleeps and read
 * by whoever reports a deadlock or an abort. */
struct shmemu__wait_desc {
    char call[SHMEMU__CALL_LEN];
    int32_t kind;  /* shmemu__wait_kind */
    int32_t team;  /* SYNC: team slot */
    uint32_t gen;  /* SYNC: generation waited out */
    int32_t vtype; /* VALUE/ARRAY: shmemu__vtype of the ivar */
    int32_t cmp;
    int32_t nvalues; /* _vector forms: how many of values[] are recorded */
    uint64_t off;    /* VALUE/ARRAY: heap offset of the (first) ivar */
    uint64_t nelems; /* ARRAY */
    uint64_t value;  /* comparison value, bit pattern */
    /* _vector forms: the first comparison values, bit patterns; copied
     * because the report may be written by another process. */
    uint64_t values[SHMEMU__WAIT_VALUES];
};

/* A PE's entry in a control collective (symmetric allocation, team split):
 * each member writes its arguments, syncs, then reads everyone's. */
struct shmemu__rec {
    uint32_t seq; /* per-PE count of control collectives */
    int32_t kind;
    int32_t team;
    int32_t pad;
    int64_t a[6];
    /* Results a member publishes after the first sync (team slots claimed
     * by a split's leaders); never part of the comparison. */
    _Atomic int32_t out[2];
};

struct shmemu__ctl_pe {
    /* (token << 32) | shmemu__wstate; the token changes at every sleep so a
     * deadlock snapshot can tell "still asleep" from "slept again". */
    _Atomic uint64_t wstate;
    _Atomic uint32_t wake_seq; /* futex word for value waits */
    /* Threads of this PE, when several drive it, asleep (bounded) on
     * wake_seq without counting as blocked: an updater wakes them all. */
    _Atomic uint32_t mt_sleepers;
    _Atomic uint32_t life;     /* shmemu__life */
    _Atomic int32_t pid;
    int32_t rc; /* pe_main's return value, once departed */
    /* Looks at a condition found false: network plane; on device heaps,
     * a sleeper's timed looks at its word (wait.c) */
    _Atomic uint32_t looks;
    _Atomic int32_t rc_set;
    /* While asleep in a team sync: which slot and generation.  Atomic because
     * a deadlock snapshot reads them while the PE may be waking. */
    _Atomic int32_t sync_team;
    _Atomic uint32_t sync_gen;
    struct shmemu__wait_desc wait;
    /* Deadlock detection woke this PE, asleep in an array wait, to look
     * again at its words as they were then (a hash of them): asleep again
     * on the same, it found its condition false on them. */
    _Atomic uint64_t woke_on;
    struct shmemu__rec rec;
    /* Checker mode: the PE's last library call and its call site, as
     * addresses in the PE's process (for the watchdog's report). */
    _Atomic uintptr_t last_call, last_site;
    /* Polling (livelock detection, livelock.c): since when the words this PE
     * polls have not changed (0: not polling), when it last polled, and
     * what it polls.  Written by the PE only, every few ms at most. */
    _Atomic int64_t poll_since, poll_beat;
    struct shmemu__poll_desc {
        _Atomic uint64_t call[SHMEMU__CALL_LEN / 8]; /* the call's name, packed */
        _Atomic int32_t pe;
        _Atomic uint64_t off, value, nbytes;
        _Atomic uintptr_t site;
        /* The site's name as the PE's own process gives it: another
         * PE's process may be another program image (exec'd PEs, other
         * nodes), where the address means nothing. */
        _Atomic uint64_t where[SHMEMU__SITE_LEN / 8];
    } poll;
} SHMEMU__ALIGNED(SHMEMU__CACHELINE);

struct shmemu__ctl_team {
    /* Low 32 bits: generation (the futex word sleepers wait on).  High 32:
     * how many members sleep in this generation; the PE that ends the
     * generation takes them off the blocked count in one step. */
    _Atomic uint64_t sleep SHMEMU__ALIGNED(SHMEMU__CACHELINE);
    /* Threads of multithreaded PEs asleep (bounded) on the generation word,
     * uncounted as blocked: the PE that ends the generation wakes them too.
     * On sleep's line, which that PE has just written. */
    _Atomic uint32_t mt_sleepers;
    /* Low 32 bits: members arrived in this generation.  High 32: how many
     * of them arrived in a control collective (allocation, team split) --
     * a generation that mixes those with plain syncs is a mismatch. */
    _Atomic uint64_t arrived SHMEMU__ALIGNED(SHMEMU__CACHELINE);
    /* gen + 1 of the last generation that mixed kinds of call. */
    _Atomic uint32_t mixed_gen;
    /* Network plane (net.c), in each member's own copy: its dissemination
     * barrier's arrivals, by the sync's parity and round.  Each is written
     * by one member (the one 2^round before this one) and cleared by this
     * one as it reads it; the parity lets a member one sync ahead arrive
     * without touching what this one has yet to read.  syncs counts this
     * member's syncs of the team (its parity); both are zero again once
     * the member leaves the team. */
    _Atomic uint32_t diss[2][SHMEMU__DISS_ROUNDS] SHMEMU__ALIGNED(SHMEMU__CACHELINE);
    _Atomic uint32_t syncs;
    /* Members are world PEs start + i * stride, 0 <= i < size. */
    int32_t start SHMEMU__ALIGNED(SHMEMU__CACHELINE);
    int32_t stride;
    int32_t size;
    _Atomic uint32_t epoch; /* bumped when the slot is reused: stale handles */
    _Atomic int32_t refs;   /* members that have not destroyed it */
    int32_t num_contexts;   /* from the team's config */
};

struct shmemu__ctl {
    uint32_t magic;
    uint32_t layout;
    int32_t npes;
    int32_t teams_max;
    uint64_t heap_size;
    /* The whole area as its maker laid it out (the checker's and the
     * wire-up's parts included): a program built from other sources than
     * its launcher lays it out differently, and must refuse to join rather
     * than read the checker's tables at the wrong offsets. */
    uint64_t ctl_size;
    _Atomic int32_t error_mode;
    _Atomic int32_t abort_status; /* 0, or the status the job was aborted with */
    _Atomic int32_t abort_pe;     /* PE whose failure aborted it, -1 if none */
    _Atomic int32_t abort_rc;     /* what shmemu_launch returns for it */
    _Atomic uint32_t ndeparted;   /* PEs departed or failed */
    _Atomic uint32_t nconfirmed;  /* PEs asleep (deadlock trigger) */
    _Atomic uint32_t reported;    /* the abort reason has been printed */
    _Atomic int32_t abort_won;    /* network plane (net.c), at PE 0: an abort won */
    int32_t notify_light;         /* updaters skip fences: waiters membarrier */
    _Atomic int32_t direct_stores; /* a PE holds a pointer into a peer's heap */
    _Atomic uint64_t team_used[(SHMEMU__TEAMS_MAX + 63) / 64];
    char abort_msg[256];
};

/* A PE that left the job, in order or not: it will never act again. */
static inline int shmemu__life_gone(uint32_t life)
{
    return life == SHMEMU__LIFE_DEPARTED || life == SHMEMU__LIFE_FAILED;
}

static inline size_t shmemu__ctl_hdr_size(void)
{
    return SHMEMU__ROUND_UP(sizeof(struct shmemu__ctl), SHMEMU__CACHELINE);
}

static inline size_t shmemu__ctl_size(int npes)
{
    return shmemu__ctl_hdr_size() + (size_t)npes * sizeof(struct shmemu__ctl_pe) +
           SHMEMU__TEAMS_MAX * sizeof(struct shmemu__ctl_team);
}

static inline struct shmemu__ctl_pe *shmemu__ctl_pe(struct shmemu__ctl *c, int pe)
{
    return (struct shmemu__ctl_pe *)((char *)c + shmemu__ctl_hdr_size()) + pe;
}

static inline struct shmemu__ctl_team *shmemu__ctl_team(struct shmemu__ctl *c,
                                                         int slot)
{
    return (struct shmemu__ctl_team *)(void *)((char *)c + shmemu__ctl_hdr_size() +
                                               (size_t)c->npes *
                                                   sizeof(struct shmemu__ctl_pe)) +
           slot;
}

/* The generation half of a team's sleep word, as a futex address. */
static inline uint32_t *shmemu__team_gen_word(struct shmemu__ctl_team *t)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint32_t *)(void *)&t->sleep + 1;
#else
    return (uint32_t *)(void *)&t->sleep;
#endif
}

static inline uint64_t shmemu__ws_pack(uint32_t token, uint32_t state)
{
    return ((uint64_t)token << 32) | state;
}

static inline uint32_t shmemu__ws_state(uint64_t w) { return (uint32_t)w; }

/* A PE's wait description, copied word by word with relaxed atomics: the
 * deadlock check reads a sleeper's while the sleeper, woken meanwhile, may
 * already be writing its next one (the reader then sees the sleep state
 * change, and drops what it read). */
static inline void shmemu__wait_desc_copy_n(struct shmemu__wait_desc *to,
                                            const struct shmemu__wait_desc *from, size_t bytes)
{
    _Static_assert(sizeof(*to) % 4 == 0, "wait descriptions are 4-byte words");
    uint32_t *t = (uint32_t *)(void *)to;
    const uint32_t *f = (const uint32_t *)(const void *)from;
    for (size_t i = 0; i < bytes / 4; i++)
        __atomic_store_n(&t[i], __atomic_load_n(&f[i], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

static inline void shmemu__wait_desc_copy(struct shmemu__wait_desc *to,
                                          const struct shmemu__wait_desc *from)
{
    shmemu__wait_desc_copy_n(to, from, sizeof(*to));
}

/* A sync's description: its call, team slot and generation, the words
 * before vtype (a barrier is a hot path: not the whole of it). */
static inline void shmemu__wait_desc_sync(struct shmemu__wait_desc *to, const char *call,
                                          int32_t team, uint32_t gen)
{
    _Static_assert(offsetof(struct shmemu__wait_desc, vtype) % 4 == 0, "words up to vtype");
    struct shmemu__wait_desc d;
    memset(d.call, 0, sizeof(d.call));
    shmemu__strlcpy(d.call, call, sizeof(d.call));
    d.kind = SHMEMU__WAIT_SYNC;
    d.team = team;
    d.gen = gen;
    shmemu__wait_desc_copy_n(to, &d, offsetof(struct shmemu__wait_desc, vtype));
}

/* Wake PE pe if it sleeps on a value or has threads asleep in the library
 * (wait.c; wait.h's shmemu__notify calls it only when one does, deadlock
 * detection when a waiter's word changed with nobody told). */
struct shmemu__job;
void shmemu__notify_slow(struct shmemu__job *job, int pe) SHMEMU__HIDDEN;

#endif /* SHMEMU_CTL_H */
