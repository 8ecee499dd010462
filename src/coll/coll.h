/*
 * coll.h - what shmemu's reference collectives share.  Like every file in
 * src/coll, it uses the public API alone (shmemu.h): the collectives run on
 * any transport and double as worked examples.
 *
 * Each call takes the next sequence number of its team (word 0 of the
 * team's workspace, which only its owner touches, with an atomic: heap
 * bytes are never loaded or stored directly, so that the same code runs on
 * heaps the host cannot touch); every signal a call sets
 * is (sequence << 32) | (step + 1), so signal words grow monotonically across
 * calls and never need resetting, and waits compare with >=.
 */
#ifndef SHMEMU_COLL_H
#define SHMEMU_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "shmemu.h"
#include "../api/ops.h" /* reduction kernels; it needs shmemu.h alone */

/* Words of a team's workspace (uint64_t units); shmemu's half ends at
 * SHMEMU_TEAM_WORKSPACE_BYTES / 2. */
enum {
    W_SEQ = 0,   /* this PE's count of collective calls on the team */
    W_PROD = 1,  /* my left neighbour finished a step (ring) */
    W_CONS = 2,  /* my right neighbour finished reading my step (ring) */
    W_PUSH = 3,  /* data pushed to me with a signal (ring allgather, chain) */
    W_UP = 4,    /* tree: a child finished (one word per child, 4..35) */
    W_DOWN = 36, /* tree: my parent has the result */
    W_ROUND = 40, /* per-round words (recursive doubling, Bruck, barrier): 40..103 */
    W_ROUND2 = 104, /* a second set: 104..167 */
    W_ONESHOT = 168, /* one-shot allreduce: data arrived, per parity (168, 169) */
    W_ONESHOT_N = 170, /* this PE's count of one-shot blocks on the team (owner only) */
    W_DEVICE = 200, /* 200..232: the device barrier's (shmemu_device.h, SHMEMU_DEVRT_W_*) */
    W_SCRATCH = 256 /* from here to the end of shmemu's half: scratch bytes */
};
#define COLL_SCRATCH_BYTES (SHMEMU_TEAM_WORKSPACE_BYTES / 2 - W_SCRATCH * 8)
#define COLL_MAX_ROUNDS 64

/* Bytes of one one-shot allreduce slot for n PEs (two sets of n slots in
 * the scratch; a multiple of 8 so that any dtype is aligned). */
static inline size_t coll_oneshot_slot(int n)
{
    return COLL_SCRATCH_BYTES / (2 * (size_t)n) / 8 * 8;
}

struct coll {
    const char *call;
    shmemu_team_t team;
    int n, me;             /* team size, my team PE */
    int pe0, pe_stride;    /* world PE of team PE i: pe0 + i * pe_stride */
    uint64_t *ws;          /* the team's workspace */
    uint64_t seq;          /* this call's sequence number */
    shmemu_dtype_t dtype;
    size_t esize;
    shmemu_op_t op;
};

/* Every team is an arithmetic progression of world PEs (split_strided and
 * split_2d of one are): two translations at the start give every member,
 * where a table built per call cost O(n) per PE, O(n^2) a call in all
 * (seconds at 4,096 PEs on sim). */
static inline int coll_pe(const struct coll *c, int member)
{
    return c->pe0 + member * c->pe_stride;
}

/* Which buffers hold count elements per team member, not count; and
 * whether the caller checks dest itself (its size is not known yet). */
enum { COLL_DEST_PER_PE = 1, COLL_SRC_PER_PE = 2, COLL_DEST_LATER = 4 };

/* Reports a collective's buffer that is not symmetric, or too short. */
int shmemu__coll_not_sym(const char *call, const char *what, const void *p, size_t bytes)
    __attribute__((visibility("hidden")));

/* Check the team, dtype, op (need_op), count (no size overflows), root
 * (-1: none) and buffers, and, in checker mode, that every member passed
 * the same; then enter the call.  Returns SHMEMU_OK, or a reported failure. */
int shmemu__coll_begin(struct coll *c, const char *call, shmemu_team_t team, shmemu_dtype_t dtype,
               shmemu_op_t op, int need_op, const void *dest, const void *src, size_t count,
               unsigned per_pe, int root) __attribute__((visibility("hidden")));
void shmemu__coll_end(struct coll *c) __attribute__((visibility("hidden")));

/* quiet, then a sync of the team: what was put before is delivered. */
int shmemu__coll_sync(struct coll *c) __attribute__((visibility("hidden")));

static inline uint64_t coll_tag(const struct coll *c, uint64_t step)
{
    return (c->seq << 32) | (step + 1);
}

/* Set word of member's workspace to this call's tag for step. */
int shmemu__coll_signal(struct coll *c, int member, int word, uint64_t step)
    __attribute__((visibility("hidden")));
/* Wait until my word reaches this call's tag for step. */
int shmemu__coll_wait(struct coll *c, int word, uint64_t step) __attribute__((visibility("hidden")));
/* Put nbytes to member's dest, then set its word: data before signal. */
int shmemu__coll_push(struct coll *c, int member, void *dest, const void *src, size_t nbytes,
              int word, uint64_t step) __attribute__((visibility("hidden")));

/* Copy nelems elements of member's symmetric sym into local dst: a direct
 * load where the transport maps peers, a get otherwise. */
int shmemu__coll_pull(struct coll *c, void *dst, const void *sym, size_t nelems, int member)
    __attribute__((visibility("hidden")));
/* dst = member's sym OP mine, elementwise (dst may be mine). */
int shmemu__coll_pull_reduce(struct coll *c, void *dst, const void *mine, const void *sym,
                     size_t nelems, int member) __attribute__((visibility("hidden")));

/* Split count elements into n near-equal chunks: chunk i starts at
 * chunk_off(count, n, i) and has chunk_off(.., i + 1) - chunk_off(.., i). */
static inline size_t chunk_off(size_t count, int n, int i)
{
    size_t base = count / (size_t)n, rem = count % (size_t)n;
    return base * (size_t)i + ((size_t)i < rem ? (size_t)i : rem);
}

/* dst = a OP b, elementwise, wherever the operands live. */
static inline int coll_reduce(const struct coll *c, void *dst, const void *a, const void *b,
                              size_t nelems)
{
    return shmemu_reduce_local(c->dtype, c->op, dst, a, b, nelems);
}

/* dst = src, nelems elements, wherever they live. */
static inline int coll_copy(const struct coll *c, void *dst, const void *src, size_t nelems)
{
    return shmemu_copy_local(dst, src, nelems * c->esize);
}

static inline char *elem(void *p, const struct coll *c, size_t i)
{
    return (char *)p + i * c->esize;
}

/*
 * Recursive doubling and halving want a power of two: with n = p2 + rem,
 * the first 2*rem PEs pair up, the even one of each pair folding its data
 * into the odd one, which then stands for both as newrank i/2; PEs from
 * 2*rem on are newrank i - rem.  Newrank r stands for the real ranks
 * [fold_lo(r), fold_lo(r + 1)).
 */
struct fold {
    int p2, rem, newrank; /* newrank -1: folded away */
};

static inline struct fold fold_of(int n, int me)
{
    struct fold f = {1, 0, 0};
    while (f.p2 * 2 <= n)
        f.p2 *= 2;
    f.rem = n - f.p2;
    f.newrank = me < 2 * f.rem ? (me % 2 ? me / 2 : -1) : me - f.rem;
    return f;
}

/* The PE that acts for newrank nr. */
static inline int fold_real(const struct fold *f, int nr)
{
    return nr < f->rem ? 2 * nr + 1 : nr + f->rem;
}

static inline int fold_lo(const struct fold *f, int nr)
{
    return nr < f->rem ? 2 * nr : nr + f->rem;
}

/* dest = src (elements), unless they are the same buffer. */
int shmemu__coll_copy_in(struct coll *c, void *dest, const void *src, size_t count)
    __attribute__((visibility("hidden")));
/* Binomial trees over the team, rooted at team PE root, on dest. */
int shmemu__coll_tree_reduce(struct coll *c, void *dest, size_t count, int root)
    __attribute__((visibility("hidden")));
int shmemu__coll_tree_bcast(struct coll *c, void *dest, size_t count, int root)
    __attribute__((visibility("hidden")));

#endif
