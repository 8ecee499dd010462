/*
 * osh_generic.c - the generic (type-overloaded) names of OpenSHMEM 1.5, for
 * every type each one is defined for, with and without a context first:
 * RMA, put-with-signal, atomics (blocking, nbi and the names deprecated in
 * 1.4), wait/test and their vector forms, team collectives and reductions.
 * The same source is built as C11 (_Generic) and as C++11 (overloads), so
 * both headers' dispatch is checked against the typed calls.  Prints
 * "ok N" on PE 0, or one "FAIL" line per wrong value and exits 1.
 *
 * Every PE works on its right neighbour's variables and only its left
 * neighbour touches its own, so each returned value is known exactly.
 */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "osh_check.h"

#define MAXPE 5 /* 5! fits a signed char: prod_reduce stays exact */

static int me, npes, right, left;
static shmem_ctx_t ctx;

/* ------------------------------------------------------------- atomics */

/* The standard AMO types: every arithmetic AMO, the nbi forms (each
 * completed by the quiet of its own context) and the deprecated names. */
#define AMO_TEST(T, N)                                                         \
    static T amo_##N;                                                          \
    static void test_amo_##N(void)                                             \
    {                                                                          \
        shmem_ctx_t c = ctx;                                                   \
        T f = (T)0;                                                            \
        shmem_atomic_set(&amo_##N, (T)5, right);                               \
        shmem_quiet(); /* a non-fetching AMO completes as a put does */        \
        CHECK(shmem_atomic_fetch(c, &amo_##N, right) == (T)5, #T " fetch");    \
        shmem_atomic_add(c, &amo_##N, (T)3, right);                            \
        shmem_ctx_quiet(c);                                                    \
        CHECK(shmem_atomic_fetch_add(&amo_##N, (T)2, right) == (T)8, #T " fetch_add"); \
        shmem_atomic_inc(&amo_##N, right);                                     \
        shmem_quiet();                                                         \
        CHECK(shmem_atomic_fetch_inc(c, &amo_##N, right) == (T)11, #T " fetch_inc"); \
        CHECK(shmem_atomic_compare_swap(&amo_##N, (T)12, (T)20, right) == (T)12, \
              #T " compare_swap");                                             \
        CHECK(shmem_atomic_compare_swap(c, &amo_##N, (T)12, (T)30, right) == (T)20, \
              #T " compare_swap (no swap)");                                   \
        CHECK(shmem_atomic_swap(c, &amo_##N, (T)7, right) == (T)20, #T " swap"); \
        shmem_atomic_set(c, &amo_##N, (T)9, right);                            \
        shmem_ctx_quiet(c);                                                    \
        CHECK(shmem_atomic_fetch(&amo_##N, right) == (T)9, #T " set(ctx)");    \
        shmem_atomic_fetch_add_nbi(&f, &amo_##N, (T)1, right);                 \
        shmem_quiet();                                                         \
        CHECK(f == (T)9, #T " fetch_add_nbi");                                 \
        shmem_atomic_fetch_inc_nbi(c, &f, &amo_##N, right);                    \
        shmem_ctx_quiet(c);                                                    \
        CHECK(f == (T)10, #T " fetch_inc_nbi(ctx)");                           \
        shmem_atomic_compare_swap_nbi(&f, &amo_##N, (T)11, (T)4, right);       \
        shmem_quiet();                                                         \
        CHECK(f == (T)11, #T " compare_swap_nbi");                             \
        shmem_atomic_swap_nbi(c, &f, &amo_##N, (T)6, right);                   \
        shmem_ctx_quiet(c);                                                    \
        CHECK(f == (T)4, #T " swap_nbi(ctx)");                                 \
        shmem_atomic_fetch_nbi(c, &f, &amo_##N, right);                        \
        shmem_ctx_quiet(c);                                                    \
        CHECK(f == (T)6, #T " fetch_nbi(ctx)");                                \
        shmem_set(&amo_##N, (T)1, right);                                      \
        shmem_fence(); /* same context: order suffices */                      \
        shmem_add(&amo_##N, (T)2, right);                                      \
        shmem_fence();                                                         \
        CHECK(shmem_fadd(&amo_##N, (T)3, right) == (T)3, #T " fadd");          \
        shmem_inc(&amo_##N, right);                                            \
        shmem_fence();                                                         \
        CHECK(shmem_finc(&amo_##N, right) == (T)7, #T " finc");                \
        CHECK(shmem_cswap(&amo_##N, (T)8, (T)40, right) == (T)8, #T " cswap"); \
        CHECK(shmem_swap(&amo_##N, (T)2, right) == (T)40, #T " swap (old)");   \
        CHECK(shmem_fetch(&amo_##N, right) == (T)2, #T " fetch (old)");        \
        shmem_barrier_all();                                                   \
        CHECK(amo_##N == (T)2, #T " final value");                             \
    }

/* float and double: the extended AMOs only. */
#define AMO_EXT_TEST(T, N)                                                     \
    static T amo_##N;                                                          \
    static void test_amo_##N(void)                                             \
    {                                                                          \
        T f = (T)0;                                                            \
        shmem_atomic_set(ctx, &amo_##N, (T)1.5, right);                        \
        shmem_ctx_quiet(ctx);                                                  \
        CHECK(shmem_atomic_swap(&amo_##N, (T)2.5, right) == (T)1.5, #T " swap"); \
        shmem_atomic_swap_nbi(ctx, &f, &amo_##N, (T)3.5, right);               \
        shmem_ctx_quiet(ctx);                                                  \
        CHECK(f == (T)2.5, #T " swap_nbi");                                    \
        shmem_atomic_fetch_nbi(&f, &amo_##N, right);                           \
        shmem_quiet();                                                         \
        CHECK(f == (T)3.5, #T " fetch_nbi");                                   \
        shmem_set(&amo_##N, (T)4.5, right);                                    \
        shmem_fence();                                                         \
        CHECK(shmem_swap(&amo_##N, (T)5.5, right) == (T)4.5, #T " swap (old)"); \
        CHECK(shmem_fetch(&amo_##N, right) == (T)5.5, #T " fetch (old)");      \
        shmem_barrier_all();                                                   \
        CHECK(amo_##N == (T)5.5, #T " final value");                           \
    }

/* The bitwise AMO types. */
#define AMO_BIT_TEST(T, N)                                                     \
    static T bit_##N;                                                          \
    static void test_bit_##N(void)                                             \
    {                                                                          \
        T f = (T)0;                                                            \
        shmem_atomic_set(&bit_##N, (T)0xC, right);                             \
        shmem_fence();                                                         \
        shmem_atomic_and(&bit_##N, (T)0xA, right);                             \
        shmem_quiet();                                                         \
        CHECK(shmem_atomic_fetch_or(ctx, &bit_##N, (T)0x3, right) == (T)0x8, #T " and"); \
        shmem_atomic_xor(ctx, &bit_##N, (T)0x6, right);                        \
        shmem_ctx_quiet(ctx);                                                  \
        CHECK(shmem_atomic_fetch_and(&bit_##N, (T)0x5, right) == (T)0xD, #T " xor"); \
        shmem_atomic_or(&bit_##N, (T)0x8, right);                              \
        shmem_quiet();                                                         \
        CHECK(shmem_atomic_fetch_xor(ctx, &bit_##N, (T)0xF, right) == (T)0xD, #T " or"); \
        shmem_atomic_fetch_and_nbi(&f, &bit_##N, (T)0x3, right);               \
        shmem_quiet();                                                         \
        CHECK(f == (T)0x2, #T " fetch_xor");                                   \
        shmem_atomic_fetch_or_nbi(ctx, &f, &bit_##N, (T)0x4, right);           \
        shmem_ctx_quiet(ctx);                                                  \
        CHECK(f == (T)0x2, #T " fetch_and_nbi");                               \
        shmem_atomic_fetch_xor_nbi(&f, &bit_##N, (T)0x1, right);               \
        shmem_quiet();                                                         \
        CHECK(f == (T)0x6, #T " fetch_or_nbi");                                \
        shmem_barrier_all();                                                   \
        CHECK(bit_##N == (T)0x7, #T " fetch_xor_nbi: final value");            \
    }

#define FOR_AMO(X)                                                             \
    X(int, i) X(long, l) X(long long, ll) X(unsigned int, ui) X(unsigned long, ul) \
    X(unsigned long long, ull) X(int32_t, i32) X(int64_t, i64) X(uint32_t, u32) \
    X(uint64_t, u64) X(size_t, sz) X(ptrdiff_t, pd)
#define FOR_AMO_EXT(X) X(float, f) X(double, d)
#define FOR_AMO_BIT(X)                                                         \
    X(unsigned int, ui) X(unsigned long, ul) X(unsigned long long, ull)        \
    X(int32_t, i32) X(int64_t, i64) X(uint32_t, u32) X(uint64_t, u64)

FOR_AMO(AMO_TEST)
FOR_AMO_EXT(AMO_EXT_TEST)
FOR_AMO_BIT(AMO_BIT_TEST)

/* ----------------------------------------------------------------- RMA */

static uint64_t sig;

/* What PE p sends: distinct per PE and element, exact in every type. */
#define VAL(T, p, i) ((T)((p) * 10 + (i) + 1))

#define RMA_TEST(T, N)                                                         \
    static T rma_##N[8];                                                       \
    static void test_rma_##N(void)                                             \
    {                                                                          \
        T loc[8], got[8];                                                      \
        for (int i = 0; i < 8; i++)                                            \
            loc[i] = VAL(T, me, i);                                            \
        sig = 0;                                                               \
        shmem_barrier_all();                                                   \
        shmem_put(rma_##N, loc, 4, right);                                     \
        shmem_put(ctx, rma_##N + 4, loc + 4, 4, right);                        \
        shmem_ctx_quiet(ctx);                                                  \
        shmem_barrier_all();                                                   \
        for (int i = 0; i < 8; i++)                                            \
            CHECK(rma_##N[i] == VAL(T, left, i), #T " put [%d]", i);           \
        shmem_get(got, rma_##N, 4, right);                                     \
        shmem_get(ctx, got + 4, rma_##N + 4, 4, right);                        \
        for (int i = 0; i < 8; i++)                                            \
            CHECK(got[i] == VAL(T, me, i), #T " get [%d]", i);                 \
        CHECK(shmem_g(rma_##N + 1, right) == VAL(T, me, 1), #T " g");          \
        CHECK(shmem_g(ctx, rma_##N + 2, right) == VAL(T, me, 2), #T " g(ctx)"); \
        shmem_barrier_all();                                                   \
        shmem_p(rma_##N, VAL(T, me, 7), right);                                \
        shmem_p(ctx, rma_##N + 1, VAL(T, me, 6), right);                       \
        shmem_iput(rma_##N + 2, loc, 2, 1, 3, right); /* 2, 4, 6 */            \
        shmem_iput(ctx, rma_##N + 3, loc + 4, 2, 1, 3, right); /* 3, 5, 7 */   \
        shmem_quiet();                                                         \
        shmem_ctx_quiet(ctx);                                                  \
        shmem_barrier_all();                                                   \
        CHECK(rma_##N[0] == VAL(T, left, 7) && rma_##N[1] == VAL(T, left, 6), #T " p"); \
        for (int i = 0; i < 3; i++)                                            \
            CHECK(rma_##N[2 + 2 * i] == VAL(T, left, i) &&                     \
                      rma_##N[3 + 2 * i] == VAL(T, left, 4 + i),               \
                  #T " iput [%d]", i);                                         \
        shmem_iget(got, rma_##N + 2, 1, 2, 3, right);                          \
        shmem_iget(ctx, got + 3, rma_##N + 3, 1, 2, 3, right);                 \
        for (int i = 0; i < 3; i++)                                            \
            CHECK(got[i] == VAL(T, me, i) && got[3 + i] == VAL(T, me, 4 + i),  \
                  #T " iget [%d]", i);                                         \
        shmem_barrier_all();                                                   \
        /* blocks of 2 from every 3rd element into slots 0-1 and 4-5 */        \
        shmem_ibput(rma_##N, loc, 4, 3, 2, 2, right);                          \
        shmem_ibput(ctx, rma_##N + 2, loc + 1, 4, 3, 1, 2, right);             \
        shmem_quiet();                                                         \
        shmem_ctx_quiet(ctx);                                                  \
        shmem_barrier_all();                                                   \
        for (int i = 0; i < 2; i++)                                            \
            CHECK(rma_##N[4 * i] == VAL(T, left, 3 * i) &&                     \
                      rma_##N[4 * i + 1] == VAL(T, left, 3 * i + 1) &&         \
                      rma_##N[4 * i + 2] == VAL(T, left, 3 * i + 1),           \
                  #T " ibput [%d]", i);                                        \
        shmem_ibget(got, rma_##N, 2, 4, 2, 2, right);                          \
        shmem_ibget(ctx, got + 4, rma_##N + 2, 1, 4, 1, 2, right);             \
        CHECK(got[0] == VAL(T, me, 0) && got[1] == VAL(T, me, 1) &&            \
                  got[2] == VAL(T, me, 3) && got[3] == VAL(T, me, 4) &&        \
                  got[4] == VAL(T, me, 1) && got[5] == VAL(T, me, 4),          \
              #T " ibget");                                                    \
        shmem_barrier_all();                                                   \
        shmem_put_nbi(rma_##N, loc + 1, 3, right);                             \
        shmem_put_nbi(ctx, rma_##N + 3, loc + 4, 4, right);                    \
        shmem_quiet();                                                         \
        shmem_ctx_quiet(ctx);                                                  \
        shmem_barrier_all();                                                   \
        shmem_get_nbi(got, rma_##N, 3, right);                                 \
        shmem_get_nbi(ctx, got + 3, rma_##N + 3, 4, right);                    \
        shmem_quiet();                                                         \
        shmem_ctx_quiet(ctx);                                                  \
        for (int i = 0; i < 7; i++)                                            \
            CHECK(got[i] == VAL(T, me, i + 1), #T " nbi [%d]", i);             \
        shmem_barrier_all();                                                   \
        shmem_put_signal(rma_##N, loc, 4, &sig, 1, SHMEM_SIGNAL_ADD, right);   \
        shmem_put_signal_nbi(ctx, rma_##N + 4, loc + 4, 4, &sig, 1, SHMEM_SIGNAL_ADD, \
                             right);                                           \
        shmem_ctx_quiet(ctx);                                                  \
        CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 2) == 2, #T " signal"); \
        for (int i = 0; i < 8; i++)                                            \
            CHECK(rma_##N[i] == VAL(T, left, i), #T " put_signal [%d]", i);    \
        shmem_barrier_all();                                                   \
    }

#define FOR_RMA(X)                                                             \
    X(float, f) X(double, d) X(long double, ld) X(char, c) X(signed char, sc)  \
    X(short, s) X(int, i) X(long, l) X(long long, ll) X(unsigned char, uc)     \
    X(unsigned short, us) X(unsigned int, ui) X(unsigned long, ul)             \
    X(unsigned long long, ull) X(int8_t, i8) X(uint16_t, u16) X(size_t, sz)
FOR_RMA(RMA_TEST)

/* ----------------------------------------------------------- wait/test */

#define P2P_TEST(T, N)                                                         \
    static T flags_##N[4];                                                     \
    static void test_p2p_##N(void)                                             \
    {                                                                          \
        int status[4] = {0, 0, 0, 0};                                          \
        size_t idx[4];                                                         \
        T want[4] = {(T)1, (T)2, (T)3, (T)4};                                  \
        for (int i = 0; i < 4; i++)                                            \
            flags_##N[i] = (T)0;                                               \
        shmem_barrier_all();                                                   \
        CHECK(!shmem_test(&flags_##N[0], SHMEM_CMP_NE, (T)0), #T " test (unset)"); \
        CHECK(shmem_test_any(flags_##N, 4, NULL, SHMEM_CMP_NE, (T)0) == SIZE_MAX, \
              #T " test_any (unset)");                                         \
        shmem_barrier_all();                                                   \
        for (int i = 0; i < 4; i++)                                            \
            shmem_p(&flags_##N[i], (T)(i + 1), right);                         \
        shmem_quiet();                                                         \
        shmem_wait_until(&flags_##N[3], SHMEM_CMP_EQ, (T)4);                   \
        shmem_wait_until_all(flags_##N, 4, NULL, SHMEM_CMP_GT, (T)0);          \
        CHECK(shmem_test(&flags_##N[0], SHMEM_CMP_EQ, (T)1), #T " test");      \
        CHECK(shmem_wait_until_any(flags_##N, 4, NULL, SHMEM_CMP_EQ, (T)3) == 2, \
              #T " wait_until_any");                                           \
        CHECK(shmem_wait_until_some(flags_##N, 4, idx, NULL, SHMEM_CMP_GE, (T)2) == 3 && \
                  idx[0] == 1 && idx[2] == 3,                                  \
              #T " wait_until_some");                                          \
        shmem_wait_until_all_vector(flags_##N, 4, NULL, SHMEM_CMP_EQ, want);   \
        status[1] = 1; /* excluded */                                          \
        CHECK(shmem_wait_until_any_vector(flags_##N, 4, status, SHMEM_CMP_LE, want) != 1, \
              #T " wait_until_any_vector");                                    \
        CHECK(shmem_wait_until_some_vector(flags_##N, 4, idx, status, SHMEM_CMP_EQ, want) == 3, \
              #T " wait_until_some_vector");                                   \
        CHECK(shmem_test_all(flags_##N, 4, status, SHMEM_CMP_LT, (T)5), #T " test_all"); \
        CHECK(shmem_test_any(flags_##N, 4, status, SHMEM_CMP_EQ, (T)4) == 3, #T " test_any"); \
        CHECK(shmem_test_some(flags_##N, 4, idx, status, SHMEM_CMP_NE, (T)1) == 2 && \
                  idx[0] == 2 && idx[1] == 3,                                  \
              #T " test_some");                                                \
        CHECK(shmem_test_all_vector(flags_##N, 4, NULL, SHMEM_CMP_GE, want),   \
              #T " test_all_vector");                                          \
        CHECK(shmem_test_any_vector(flags_##N, 4, status, SHMEM_CMP_GT, want) == SIZE_MAX, \
              #T " test_any_vector (none)");                                   \
        CHECK(shmem_test_some_vector(flags_##N, 4, idx, NULL, SHMEM_CMP_EQ, want) == 4, \
              #T " test_some_vector");                                         \
        shmem_barrier_all();                                                   \
    }

#define FOR_P2P(X)                                                             \
    X(short, s) X(int, i) X(long, l) X(long long, ll) X(unsigned short, us)    \
    X(unsigned int, ui) X(unsigned long, ul) X(unsigned long long, ull)        \
    X(int32_t, i32) X(uint64_t, u64) X(size_t, sz) X(ptrdiff_t, pd)
FOR_P2P(P2P_TEST)

/* --------------------------------------------------------- collectives */

#define COLL_TEST(T, N)                                                        \
    static T csrc_##N[MAXPE], cdst_##N[MAXPE * MAXPE];                         \
    static void test_coll_##N(void)                                            \
    {                                                                          \
        int n = npes;                                                          \
        for (int i = 0; i < MAXPE; i++)                                        \
            csrc_##N[i] = VAL(T, me, i);                                       \
        shmem_barrier_all();                                                   \
        CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, cdst_##N, csrc_##N, 2, n - 1) == 0, \
              #T " broadcast");                                                \
        for (int i = 0; i < 2; i++)                                            \
            CHECK(cdst_##N[i] == VAL(T, n - 1, i), #T " broadcast [%d]", i);   \
        shmem_fcollect(SHMEM_TEAM_WORLD, cdst_##N, csrc_##N, 1);               \
        for (int p = 0; p < n; p++)                                            \
            CHECK(cdst_##N[p] == VAL(T, p, 0), #T " fcollect [%d]", p);        \
        /* PE p gives p % 2 + 1 elements */                                    \
        shmem_collect(SHMEM_TEAM_WORLD, cdst_##N, csrc_##N, (size_t)(me % 2 + 1)); \
        for (int p = 0, k = 0; p < n; p++)                                     \
            for (int i = 0; i <= p % 2; i++, k++)                              \
                CHECK(cdst_##N[k] == VAL(T, p, i), #T " collect [%d]", k);     \
        shmem_alltoall(SHMEM_TEAM_WORLD, cdst_##N, csrc_##N, 1);               \
        for (int p = 0; p < n; p++)                                            \
            CHECK(cdst_##N[p] == VAL(T, p, me), #T " alltoall [%d]", p);       \
        shmem_alltoalls(SHMEM_TEAM_WORLD, cdst_##N, csrc_##N, 2, 1, 1);        \
        for (int p = 0; p < n; p++)                                            \
            CHECK(cdst_##N[2 * p] == VAL(T, p, me), #T " alltoalls [%d]", p);  \
        shmem_barrier_all();                                                   \
    }
#define FOR_COLL(X)                                                            \
    X(float, f) X(long double, ld) X(char, c) X(short, s) X(int, i) X(long, l) \
    X(unsigned long long, ull) X(uint8_t, u8) X(ptrdiff_t, pd)
FOR_COLL(COLL_TEST)

#define RED_TEST(T, N)                                                         \
    static T rsrc_##N[2], rdst_##N[2];                                         \
    static void test_red_##N(void)                                             \
    {                                                                          \
        int n = npes;                                                          \
        rsrc_##N[0] = (T)(me + 1);                                             \
        rsrc_##N[1] = (T)(n - me);                                             \
        shmem_barrier_all();                                                   \
        shmem_sum_reduce(SHMEM_TEAM_WORLD, rdst_##N, rsrc_##N, 2);             \
        CHECK(rdst_##N[0] == (T)(n * (n + 1) / 2) && rdst_##N[1] == rdst_##N[0], \
              #T " sum_reduce");                                               \
        shmem_max_reduce(SHMEM_TEAM_WORLD, rdst_##N, rsrc_##N, 2);             \
        CHECK(rdst_##N[0] == (T)n && rdst_##N[1] == (T)n, #T " max_reduce");   \
        shmem_min_reduce(SHMEM_TEAM_WORLD, rdst_##N, rsrc_##N, 2);             \
        CHECK(rdst_##N[0] == (T)1 && rdst_##N[1] == (T)1, #T " min_reduce");   \
        shmem_prod_reduce(SHMEM_TEAM_WORLD, rdst_##N, rsrc_##N, 1);            \
        int fact = 1;                                                          \
        for (int i = 2; i <= n; i++)                                           \
            fact *= i;                                                         \
        CHECK(rdst_##N[0] == (T)fact, #T " prod_reduce");                      \
        shmem_sum_inscan(SHMEM_TEAM_WORLD, rdst_##N, rsrc_##N, 1);             \
        CHECK(rdst_##N[0] == (T)((me + 1) * (me + 2) / 2), #T " sum_inscan");  \
        shmem_sum_exscan(SHMEM_TEAM_WORLD, rdst_##N, rsrc_##N, 1);             \
        CHECK(rdst_##N[0] == (T)(me * (me + 1) / 2), #T " sum_exscan");        \
        shmem_barrier_all();                                                   \
    }
#define FOR_RED(X)                                                             \
    X(char, c) X(signed char, sc) X(short, s) X(int, i) X(long, l)             \
    X(long long, ll) X(unsigned char, uc) X(unsigned short, us)                \
    X(unsigned int, ui) X(unsigned long, ul) X(unsigned long long, ull)        \
    X(float, f) X(double, d) X(long double, ld) X(int16_t, i16) X(uint32_t, u32) \
    X(size_t, sz) X(ptrdiff_t, pd)
FOR_RED(RED_TEST)

#define BITRED_TEST(T, N)                                                      \
    static T bsrc_##N, bdst_##N;                                               \
    static void test_bitred_##N(void)                                          \
    {                                                                          \
        int n = npes;                                                          \
        T all = (T)((1u << n) - 1u);                                           \
        bsrc_##N = (T)(all & (T) ~(1u << me)); /* every bit but mine */        \
        shmem_barrier_all();                                                   \
        shmem_and_reduce(SHMEM_TEAM_WORLD, &bdst_##N, &bsrc_##N, 1);           \
        CHECK(bdst_##N == (T)0, #T " and_reduce");                             \
        shmem_or_reduce(SHMEM_TEAM_WORLD, &bdst_##N, &bsrc_##N, 1);            \
        CHECK(bdst_##N == (T)(n == 1 ? 0 : all), #T " or_reduce");             \
        shmem_xor_reduce(SHMEM_TEAM_WORLD, &bdst_##N, &bsrc_##N, 1);           \
        /* each bit is set on n - 1 PEs */                                     \
        CHECK(bdst_##N == (T)((n - 1) % 2 ? all : 0), #T " xor_reduce");       \
        shmem_barrier_all();                                                   \
    }
#define FOR_BITRED(X)                                                          \
    X(unsigned char, uc) X(unsigned short, us) X(unsigned int, ui)             \
    X(unsigned long, ul) X(unsigned long long, ull) X(int8_t, i8)              \
    X(int16_t, i16) X(int32_t, i32) X(int64_t, i64) X(uint64_t, u64) X(size_t, sz)
FOR_BITRED(BITRED_TEST)

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (npes > MAXPE) {
        if (me == 0)
            printf("osh_generic: at most %d PEs\n", MAXPE);
        shmem_finalize();
        return 2;
    }
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "ctx_create");

#define CALL_AMO(T, N) test_amo_##N();
#define CALL_BIT(T, N) test_bit_##N();
#define CALL_RMA(T, N) test_rma_##N();
#define CALL_P2P(T, N) test_p2p_##N();
#define CALL_COLL(T, N) test_coll_##N();
#define CALL_RED(T, N) test_red_##N();
#define CALL_BITRED(T, N) test_bitred_##N();
    FOR_AMO(CALL_AMO)
    FOR_AMO_EXT(CALL_AMO)
    FOR_AMO_BIT(CALL_BIT)
    FOR_RMA(CALL_RMA)
    FOR_P2P(CALL_P2P)
    FOR_COLL(CALL_COLL)
    FOR_RED(CALL_RED)
    FOR_BITRED(CALL_BITRED)

    shmem_ctx_destroy(ctx);
    int bad = failures;
    static int total;
    shmem_int_atomic_add(&total, bad, 0);
    shmem_barrier_all();
    if (me == 0 && total == 0)
        printf("ok %d\n", npes);
    shmem_finalize();
    return bad ? 1 : 0;
}
