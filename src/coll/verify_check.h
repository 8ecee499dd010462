/*
 * verify_check.h - one case of the verifier as its files share it: what the
 * PEs of the job share (the verdict, the references), a PE's buffers with
 * the guards around them, and the checks made after each call
 * (verify_check.c).
 */
#ifndef SHMEMU_VERIFY_CASE_H
#define SHMEMU_VERIFY_CASE_H

#include "verify_values.h"

#define GUARD 64 /* bytes checked on each side of every buffer */

/* What every PE of the job shares (a MAP_SHARED mapping, so forked PEs see
 * it too): the verdict, and the reference of a reduction per call. */
struct shmemu__vshared {
    /* the verdict, cleared before each run (up to nref) */
    int lock;         /* guards the fault fields (PEs may be processes) */
    int failed;       /* a PE found a fault: the lowest (rank, call, PE, index) is kept */
    int no_room;      /* a PE's allocation found the heap full (the case's, or the
                         algorithm's scratch): the heap is too small, not the algorithm wrong */
    int declined;     /* PEs whose first call returned SHMEMU_ENOTSUP: the algorithm
                         does not take the case (every member of the team, or a fault) */
    int rank, call, pe;
    size_t index;
    char reason[448];
    char expected[48], got[48];
    /* The case's values, kept from one run of a case to the next (--fuzz
     * and --explore run a case many times; making them again was a fifth
     * of a checked run).  In the same mapping, so that PEs that are forked
     * processes fill it for the runs after theirs. */
    size_t nref;      /* per call */
    uint64_t *want;   /* [call][nref]: the reduction's elements, as bits */
    unsigned char *want_ready; /* [team PE]: its slice of want is made */
    size_t in_bytes;  /* of a PE's src */
    unsigned char *inputs;     /* [call][team PE][in_bytes]; NULL: too large to keep */
    unsigned char *in_ready;   /* [call][team PE]: those inputs are made */
};

/* Call's inputs of team PE pe as kept from an earlier run; NULL if not. */
static inline const unsigned char *shmemu__vc_kept_inputs(const struct shmemu__vshared *sh,
                                                          int call, int pe, int n)
{
    size_t k = (size_t)call * (size_t)n + (size_t)pe;
    return sh->inputs && __atomic_load_n(&sh->in_ready[k], __ATOMIC_ACQUIRE)
               ? sh->inputs + k * sh->in_bytes
               : NULL;
}

/* Kinds of fault, the one that names the mistake best first: a dest that
 * changed after the return (a missing quiet) explains the wrong elements
 * it leaves behind. */
enum { F_RETURNED, F_LATE, F_OTHER };

struct bufs {
    unsigned char *sbuf, *dbuf; /* with guards */
    unsigned char *src, *dest;
};

static inline int team_size(const shmemu_verify_case *vc)
{
    return vc->team == SHMEMU_VERIFY_STRIDED ? (vc->npes + 1) / 2 : vc->npes;
}

/* Elements of src and dest per PE. */
static inline void sizes(const shmemu_verify_case *vc, int n, size_t *in, size_t *out)
{
    size_t c = vc->count, nc = c * (size_t)n;
    switch (vc->coll) {
    case SHMEMU_COLL_REDUCE_SCATTER: *in = nc; *out = c; break;
    case SHMEMU_COLL_ALLGATHER: *in = c; *out = nc; break;
    case SHMEMU_COLL_ALLTOALL: *in = nc; *out = nc; break;
    default: *in = c; *out = c; break;
    }
}

static inline int is_reduction(shmemu_coll_t c)
{
    return c == SHMEMU_COLL_ALLREDUCE || c == SHMEMU_COLL_REDUCE ||
           c == SHMEMU_COLL_REDUCE_SCATTER;
}

/* verify_check.c.  A fault found by PE pe in call (rank: its kind, F_*);
 * the lowest (rank, call, pe, index) is kept, so that the report does not
 * depend on which PE checked first.  fault is of rank F_OTHER. */
void shmemu__vc_fault_ranked(struct shmemu__vshared *sh, int rank, int call, int pe,
                             size_t index, const char *reason, const char *expected,
                             const char *got) SHMEMU__HID;
void shmemu__vc_fault(struct shmemu__vshared *sh, int call, int pe, size_t index,
                      const char *reason, const char *expected, const char *got) SHMEMU__HID;
/* GUARD bytes of a pattern (salt: which guard) at p. */
void shmemu__vc_fill_guard(unsigned char *p, unsigned salt) SHMEMU__HID;
/* This PE's dest as it was when call returned, against the reference. */
void shmemu__vc_check_dest(const shmemu_verify_case *vc, struct shmemu__vshared *sh, int call,
                           int n, int me, const char *dest, size_t out) SHMEMU__HID;
/* Every member holds team PE 0's bits: mine, my copy; sym, on the heap. */
void shmemu__vc_check_agree(const shmemu_verify_case *vc, struct shmemu__vshared *sh, int call,
                            int me, shmemu_team_t team, const unsigned char *mine,
                            const void *sym, size_t out) SHMEMU__HID;
void shmemu__vc_check_guards(const shmemu_verify_case *vc, struct shmemu__vshared *sh, int call,
                             int me, const struct bufs *b, size_t in, size_t out) SHMEMU__HID;
/* src as the collective left it, against its copy from before the call. */
void shmemu__vc_check_src(const shmemu_verify_case *vc, struct shmemu__vshared *sh, int call,
                          int me, const unsigned char *src, const unsigned char *snap,
                          size_t in) SHMEMU__HID;
/* " (call 2 of 3: ...)" when it matters which call; "" for the first. */
const char *shmemu__vc_which_call(int call) SHMEMU__HID;
/* The first byte where a and b differ; n if none. */
size_t shmemu__vc_first_diff(const unsigned char *a, const unsigned char *b,
                             size_t n) SHMEMU__HID;

#endif
