/*
 * shmemx.h - the OpenSHMEM extensions that programs written for other
 * implementations include most often, over shmem.h.  Wall-clock time; the
 * hooks other libraries take for their own threading or profiling
 * (accepted; shmemu needs neither: it finds the calling thread's PE
 * itself, see "Threads inside a PE" in docs/API.md); and Sandia
 * OpenSHMEM 1.4's shmemx_ names for what OpenSHMEM 1.5 made standard.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <stdint.h>

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Seconds since an arbitrary point, monotonic: for timing loops.  In the
 * library, so that a program built with -std=c11 (no POSIX clocks in
 * <time.h>) or -std=c89 can call it. */
#pragma GCC visibility push(default)
double shmemx_wtime(void);
#pragma GCC visibility pop

/** Register a thread-id function (other implementations key per-thread
 * state on it); shmemu keys on the thread itself: ignored. */
static __inline__ void shmemx_register_gettid(uint64_t (*gettid_fn)(void)) { (void)gettid_fn; }

/** Profiling control, as shmem_pcontrol: accepted and ignored. */
#define shmemx_pcontrol shmem_pcontrol

/* ------------------------------------------- SOS 1.4's names for 1.5's API
 *
 * Before OpenSHMEM 1.5 made them standard, Sandia OpenSHMEM 1.4 offered
 * teams, team collectives, wait/test on several words, nonblocking
 * fetching atomics and put-with-signal as shmemx_ extensions, and programs
 * written then still use those names (SOS's own test/shmemx).  Each is the
 * 1.5 routine under its old name (same arguments and meaning), except
 * shmemx_team_get_config, which took no mask, and shmemx_team_destroy,
 * which returned int.  A report names the shmemx_ routine called. */

typedef shmem_team_t shmemx_team_t;
typedef shmem_team_config_t shmemx_team_config_t;
#define SHMEMX_TEAM_WORLD SHMEM_TEAM_WORLD
#define SHMEMX_TEAM_SHARED SHMEM_TEAM_SHARED
/* SOS's team of the PEs on this node: those sharing memory with this one. */
#define SHMEMX_TEAM_NODE SHMEM_TEAM_SHARED
#define SHMEMX_TEAM_INVALID SHMEM_TEAM_INVALID
#define SHMEMX_TEAM_NUM_CONTEXTS SHMEM_TEAM_NUM_CONTEXTS
#define SHMEMX_SIGNAL_SET SHMEM_SIGNAL_SET
#define SHMEMX_SIGNAL_ADD SHMEM_SIGNAL_ADD

/* Forwarders: X names the old routine, N the 1.5 one. */
#define SHMEMX_FWD(RET, X, N, PARAMS, ARGS)                                    \
    static __inline__ RET X PARAMS                                             \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return N ARGS;                                                         \
    }
#define SHMEMX_FWD_VOID(X, N, PARAMS, ARGS)                                    \
    static __inline__ void X PARAMS                                            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        N ARGS;                                                                \
    }

/* Teams */
SHMEMX_FWD(int, shmemx_team_my_pe, shmem_team_my_pe, (shmemx_team_t t), (t))
SHMEMX_FWD(int, shmemx_team_n_pes, shmem_team_n_pes, (shmemx_team_t t), (t))
SHMEMX_FWD(int, shmemx_team_translate_pe, shmem_team_translate_pe,
           (shmemx_team_t s, int pe, shmemx_team_t d), (s, pe, d))
SHMEMX_FWD(int, shmemx_team_split_strided, shmem_team_split_strided,
           (shmemx_team_t p, int start, int stride, int size, const shmemx_team_config_t *c,
            long mask, shmemx_team_t *t),
           (p, start, stride, size, c, mask, t))
SHMEMX_FWD(int, shmemx_team_split_2d, shmem_team_split_2d,
           (shmemx_team_t p, int xrange, const shmemx_team_config_t *xc, long xmask,
            shmemx_team_t *x, const shmemx_team_config_t *yc, long ymask, shmemx_team_t *y),
           (p, xrange, xc, xmask, x, yc, ymask, y))
SHMEMX_FWD(int, shmemx_team_create_ctx, shmem_team_create_ctx,
           (shmemx_team_t t, long options, shmem_ctx_t *ctx), (t, options, ctx))
SHMEMX_FWD(int, shmemx_ctx_get_team, shmem_ctx_get_team, (shmem_ctx_t ctx, shmemx_team_t *t),
           (ctx, t))
SHMEMX_FWD(int, shmemx_team_sync, shmem_team_sync, (shmemx_team_t t), (t))
SHMEMX_FWD(int, shmemx_sync, shmem_team_sync, (shmemx_team_t t), (t))
/** SOS 1.4's form: every field of the configuration, no mask. */
static __inline__ void shmemx_team_get_config(shmemx_team_t t, shmemx_team_config_t *c)
{
    SHMEMU_OSH_CALL;
    (void)shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, c);
}
static __inline__ int shmemx_team_destroy(shmemx_team_t t)
{
    SHMEMU_OSH_CALL;
    shmem_team_destroy(t);
    return 0;
}

/* Team collectives */
#define SHMEMX_COLL(NAME, TYPE)                                                \
    SHMEMX_FWD(int, shmemx_##NAME##_broadcast, shmem_##NAME##_broadcast,       \
               (shmemx_team_t t, TYPE *d, const TYPE *s, size_t n, int root),  \
               (t, d, s, n, root))                                             \
    SHMEMX_FWD(int, shmemx_##NAME##_collect, shmem_##NAME##_collect,           \
               (shmemx_team_t t, TYPE *d, const TYPE *s, size_t n), (t, d, s, n)) \
    SHMEMX_FWD(int, shmemx_##NAME##_fcollect, shmem_##NAME##_fcollect,         \
               (shmemx_team_t t, TYPE *d, const TYPE *s, size_t n), (t, d, s, n)) \
    SHMEMX_FWD(int, shmemx_##NAME##_alltoall, shmem_##NAME##_alltoall,         \
               (shmemx_team_t t, TYPE *d, const TYPE *s, size_t n), (t, d, s, n)) \
    SHMEMX_FWD(int, shmemx_##NAME##_alltoalls, shmem_##NAME##_alltoalls,       \
               (shmemx_team_t t, TYPE *d, const TYPE *s, ptrdiff_t dst, ptrdiff_t sst, \
                size_t n),                                                     \
               (t, d, s, dst, sst, n))
SHMEMU_COMPAT_RMA_TYPES(SHMEMX_COLL)
SHMEMX_FWD(int, shmemx_broadcastmem, shmem_broadcastmem,
           (shmemx_team_t t, void *d, const void *s, size_t n, int root), (t, d, s, n, root))
SHMEMX_FWD(int, shmemx_collectmem, shmem_collectmem,
           (shmemx_team_t t, void *d, const void *s, size_t n), (t, d, s, n))
SHMEMX_FWD(int, shmemx_fcollectmem, shmem_fcollectmem,
           (shmemx_team_t t, void *d, const void *s, size_t n), (t, d, s, n))
SHMEMX_FWD(int, shmemx_alltoallmem, shmem_alltoallmem,
           (shmemx_team_t t, void *d, const void *s, size_t n), (t, d, s, n))
SHMEMX_FWD(int, shmemx_alltoallsmem, shmem_alltoallsmem,
           (shmemx_team_t t, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n),
           (t, d, s, dst, sst, n))

#define SHMEMX_RED1(NAME, TYPE, OP)                                            \
    SHMEMX_FWD(int, shmemx_##NAME##_##OP##_reduce, shmem_##NAME##_##OP##_reduce, \
               (shmemx_team_t t, TYPE *d, const TYPE *s, size_t n), (t, d, s, n))
#define SHMEMX_RED_BIT_0(NAME, TYPE)
#define SHMEMX_RED_BIT_1(NAME, TYPE)                                           \
    SHMEMX_RED1(NAME, TYPE, and) SHMEMX_RED1(NAME, TYPE, or) SHMEMX_RED1(NAME, TYPE, xor)
#define SHMEMX_RED(NAME, TYPE, DTYPE, ARITH, BIT)                              \
    SHMEMX_RED1(NAME, TYPE, sum) SHMEMX_RED1(NAME, TYPE, prod)                 \
    SHMEMX_RED1(NAME, TYPE, min) SHMEMX_RED1(NAME, TYPE, max)                  \
    SHMEMX_RED_BIT_##BIT(NAME, TYPE)
SHMEMU_REDUCE_TYPES(SHMEMX_RED)

/* Waiting on and testing several words */
#define SHMEMX_P2P(NAME, TYPE)                                                 \
    SHMEMX_FWD_VOID(shmemx_##NAME##_wait_until_all, shmem_##NAME##_wait_until_all, \
                    (TYPE *v, size_t n, const int *st, int cmp, TYPE x), (v, n, st, cmp, x)) \
    SHMEMX_FWD(size_t, shmemx_##NAME##_wait_until_any, shmem_##NAME##_wait_until_any, \
               (TYPE *v, size_t n, const int *st, int cmp, TYPE x), (v, n, st, cmp, x)) \
    SHMEMX_FWD(size_t, shmemx_##NAME##_wait_until_some, shmem_##NAME##_wait_until_some, \
               (TYPE *v, size_t n, size_t *idx, const int *st, int cmp, TYPE x),  \
               (v, n, idx, st, cmp, x))                                        \
    SHMEMX_FWD_VOID(shmemx_##NAME##_wait_until_all_vector,                     \
                    shmem_##NAME##_wait_until_all_vector,                      \
                    (TYPE *v, size_t n, const int *st, int cmp, TYPE *x), (v, n, st, cmp, x)) \
    SHMEMX_FWD(size_t, shmemx_##NAME##_wait_until_any_vector,                  \
               shmem_##NAME##_wait_until_any_vector,                           \
               (TYPE *v, size_t n, const int *st, int cmp, TYPE *x), (v, n, st, cmp, x)) \
    SHMEMX_FWD(size_t, shmemx_##NAME##_wait_until_some_vector,                 \
               shmem_##NAME##_wait_until_some_vector,                          \
               (TYPE *v, size_t n, size_t *idx, const int *st, int cmp, TYPE *x), \
               (v, n, idx, st, cmp, x))                                        \
    SHMEMX_FWD(int, shmemx_##NAME##_test_all, shmem_##NAME##_test_all,         \
               (TYPE *v, size_t n, const int *st, int cmp, TYPE x), (v, n, st, cmp, x)) \
    SHMEMX_FWD(size_t, shmemx_##NAME##_test_any, shmem_##NAME##_test_any,      \
               (TYPE *v, size_t n, const int *st, int cmp, TYPE x), (v, n, st, cmp, x)) \
    SHMEMX_FWD(size_t, shmemx_##NAME##_test_some, shmem_##NAME##_test_some,    \
               (TYPE *v, size_t n, size_t *idx, const int *st, int cmp, TYPE x),  \
               (v, n, idx, st, cmp, x))                                        \
    SHMEMX_FWD(int, shmemx_##NAME##_test_all_vector, shmem_##NAME##_test_all_vector, \
               (TYPE *v, size_t n, const int *st, int cmp, TYPE *x), (v, n, st, cmp, x)) \
    SHMEMX_FWD(size_t, shmemx_##NAME##_test_any_vector, shmem_##NAME##_test_any_vector, \
               (TYPE *v, size_t n, const int *st, int cmp, TYPE *x), (v, n, st, cmp, x)) \
    SHMEMX_FWD(size_t, shmemx_##NAME##_test_some_vector,                       \
               shmem_##NAME##_test_some_vector,                                \
               (TYPE *v, size_t n, size_t *idx, const int *st, int cmp, TYPE *x), \
               (v, n, idx, st, cmp, x))
SHMEMU_P2P_TYPES(SHMEMX_P2P)

/* Nonblocking fetching atomics, with and without a context */
#define SHMEMX_NBI2(NAME, TYPE, OP, PARAMS, ARGS)                              \
    SHMEMX_FWD_VOID(shmemx_##NAME##_atomic_##OP##_nbi, shmem_##NAME##_atomic_##OP##_nbi, \
                    PARAMS, ARGS)
#define SHMEMX_NBI_EXT(NAME, TYPE)                                             \
    SHMEMX_NBI2(NAME, TYPE, fetch, (TYPE *f, const TYPE *s, int pe), (f, s, pe)) \
    SHMEMX_NBI2(NAME, TYPE, swap, (TYPE *f, TYPE *d, TYPE v, int pe), (f, d, v, pe)) \
    SHMEMX_FWD_VOID(shmemx_ctx_##NAME##_atomic_fetch_nbi,                      \
                    shmem_ctx_##NAME##_atomic_fetch_nbi,                       \
                    (shmem_ctx_t c, TYPE *f, const TYPE *s, int pe), (c, f, s, pe)) \
    SHMEMX_FWD_VOID(shmemx_ctx_##NAME##_atomic_swap_nbi,                       \
                    shmem_ctx_##NAME##_atomic_swap_nbi,                        \
                    (shmem_ctx_t c, TYPE *f, TYPE *d, TYPE v, int pe), (c, f, d, v, pe))
#define SHMEMX_NBI_AMO(NAME, TYPE)                                             \
    SHMEMX_NBI2(NAME, TYPE, compare_swap, (TYPE *f, TYPE *d, TYPE c, TYPE v, int pe), \
                (f, d, c, v, pe))                                              \
    SHMEMX_NBI2(NAME, TYPE, fetch_inc, (TYPE *f, TYPE *d, int pe), (f, d, pe)) \
    SHMEMX_NBI2(NAME, TYPE, fetch_add, (TYPE *f, TYPE *d, TYPE v, int pe), (f, d, v, pe)) \
    SHMEMX_FWD_VOID(shmemx_ctx_##NAME##_atomic_compare_swap_nbi,               \
                    shmem_ctx_##NAME##_atomic_compare_swap_nbi,                \
                    (shmem_ctx_t x, TYPE *f, TYPE *d, TYPE c, TYPE v, int pe),  \
                    (x, f, d, c, v, pe))                                       \
    SHMEMX_FWD_VOID(shmemx_ctx_##NAME##_atomic_fetch_inc_nbi,                  \
                    shmem_ctx_##NAME##_atomic_fetch_inc_nbi,                   \
                    (shmem_ctx_t c, TYPE *f, TYPE *d, int pe), (c, f, d, pe))  \
    SHMEMX_FWD_VOID(shmemx_ctx_##NAME##_atomic_fetch_add_nbi,                  \
                    shmem_ctx_##NAME##_atomic_fetch_add_nbi,                   \
                    (shmem_ctx_t c, TYPE *f, TYPE *d, TYPE v, int pe), (c, f, d, v, pe))
#define SHMEMX_NBI_BIT1(NAME, TYPE, OP)                                        \
    SHMEMX_NBI2(NAME, TYPE, OP, (TYPE *f, TYPE *d, TYPE v, int pe), (f, d, v, pe)) \
    SHMEMX_FWD_VOID(shmemx_ctx_##NAME##_atomic_##OP##_nbi,                     \
                    shmem_ctx_##NAME##_atomic_##OP##_nbi,                      \
                    (shmem_ctx_t c, TYPE *f, TYPE *d, TYPE v, int pe), (c, f, d, v, pe))
#define SHMEMX_NBI_BIT(NAME, TYPE)                                             \
    SHMEMX_NBI_BIT1(NAME, TYPE, fetch_and)                                     \
    SHMEMX_NBI_BIT1(NAME, TYPE, fetch_or) SHMEMX_NBI_BIT1(NAME, TYPE, fetch_xor)
SHMEMU_AMO_EXT_TYPES(SHMEMX_NBI_EXT)
SHMEMU_AMO_TYPES(SHMEMX_NBI_AMO)
SHMEMU_AMO_BIT_TYPES(SHMEMX_NBI_BIT)

/* Put with signal: XN and N name the blocking form, T the element type. */
#define SHMEMX_SIG_PAIR(XN, N, T)                                              \
    SHMEMX_FWD_VOID(XN, N,                                                     \
                    (T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
                    (d, s, n, sig, v, op, pe))                                 \
    SHMEMX_FWD_VOID(XN##_nbi, N##_nbi,                                         \
                    (T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe), \
                    (d, s, n, sig, v, op, pe))
#define SHMEMX_CTX_SIG_PAIR(XN, N, T)                                          \
    SHMEMX_FWD_VOID(XN, N,                                                     \
                    (shmem_ctx_t c, T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, \
                     int op, int pe),                                          \
                    (c, d, s, n, sig, v, op, pe))                              \
    SHMEMX_FWD_VOID(XN##_nbi, N##_nbi,                                         \
                    (shmem_ctx_t c, T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, \
                     int op, int pe),                                          \
                    (c, d, s, n, sig, v, op, pe))
#define SHMEMX_SIG(NAME, TYPE)                                                 \
    SHMEMX_SIG_PAIR(shmemx_##NAME##_put_signal, shmem_##NAME##_put_signal, TYPE) \
    SHMEMX_CTX_SIG_PAIR(shmemx_ctx_##NAME##_put_signal, shmem_ctx_##NAME##_put_signal, TYPE)
SHMEMU_COMPAT_RMA_TYPES(SHMEMX_SIG)
#define SHMEMX_SIG_SIZED(S)                                                    \
    SHMEMX_SIG_PAIR(shmemx_put##S##_signal, shmem_put##S##_signal, void)       \
    SHMEMX_CTX_SIG_PAIR(shmemx_ctx_put##S##_signal, shmem_ctx_put##S##_signal, void)
SHMEMX_SIG_SIZED(mem)
SHMEMX_SIG_SIZED(8)
SHMEMX_SIG_SIZED(16)
SHMEMX_SIG_SIZED(32)
SHMEMX_SIG_SIZED(64)
SHMEMX_SIG_SIZED(128)
SHMEMX_FWD(uint64_t, shmemx_signal_fetch, shmem_signal_fetch, (const uint64_t *sig), (sig))

/* The generic names under their old spelling (C11 macros, C++ overloads). */
#define shmemx_wait_until_all shmem_wait_until_all
#define shmemx_wait_until_any shmem_wait_until_any
#define shmemx_wait_until_some shmem_wait_until_some
#define shmemx_wait_until_all_vector shmem_wait_until_all_vector
#define shmemx_wait_until_any_vector shmem_wait_until_any_vector
#define shmemx_wait_until_some_vector shmem_wait_until_some_vector
#define shmemx_test_all shmem_test_all
#define shmemx_test_any shmem_test_any
#define shmemx_test_some shmem_test_some
#define shmemx_test_all_vector shmem_test_all_vector
#define shmemx_test_any_vector shmem_test_any_vector
#define shmemx_test_some_vector shmem_test_some_vector
#define shmemx_put_signal shmem_put_signal
#define shmemx_put_signal_nbi shmem_put_signal_nbi
#define shmemx_broadcast shmem_broadcast
#define shmemx_collect shmem_collect
#define shmemx_fcollect shmem_fcollect
#define shmemx_alltoall shmem_alltoall
#define shmemx_alltoalls shmem_alltoalls
#define shmemx_sum_reduce shmem_sum_reduce
#define shmemx_prod_reduce shmem_prod_reduce
#define shmemx_min_reduce shmem_min_reduce
#define shmemx_max_reduce shmem_max_reduce
#define shmemx_and_reduce shmem_and_reduce
#define shmemx_or_reduce shmem_or_reduce
#define shmemx_xor_reduce shmem_xor_reduce

#ifdef __cplusplus
}
#endif

#endif /* SHMEMX_H */
