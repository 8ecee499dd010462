/* test_amo.c - atomics: every op and type under contention from all PEs,
 * with exact results; a lock built from compare_swap; error paths. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* All PEs fetch_inc one counter on the last PE; the fetched values must be
 * exactly 0 .. total-1, each once: a lost or doubled update shows up. */
struct contend {
    long iters;
};

static int body_fetch_inc_permutation(void *arg)
{
    const struct contend *c = arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long n = c->iters, total = n * np;
    int64_t *counter = shmemu_calloc(1, sizeof(int64_t));
    int64_t *got = shmemu_calloc((size_t)n, sizeof(int64_t)); /* what I fetched */
    PE_CHECK(counter && got);
    for (long i = 0; i < n; i++)
        got[i] = shmemu_int64_atomic_fetch_inc(counter, np - 1);
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(shmemu_int64_atomic_fetch(counter, np - 1), total);
    if (me == 0) {
        unsigned char *seen = calloc((size_t)total, 1);
        int64_t *theirs = malloc((size_t)n * sizeof(int64_t));
        for (int p = 0; p < np; p++) {
            PE_CHECK_OK(shmemu_getmem(theirs, got, (size_t)n * sizeof(int64_t), p));
            for (long i = 0; i < n; i++) {
                PE_CHECK(theirs[i] >= 0 && theirs[i] < total);
                PE_CHECK(i == 0 || theirs[i] > theirs[i - 1]); /* program order */
                PE_CHECK_EQ(seen[theirs[i]]++, 0);
            }
        }
        free(theirs);
        free(seen);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(got);
    shmemu_free(counter);
    return 0;
}

static void test_fetch_inc_permutation(void **state)
{
    (void)state;
    struct contend c = {th_iters(10000, 20)};
    th_run(body_fetch_inc_permutation, &c, TH_NPES(1, 2, 3, 7, 16), 0);
}

/* Every standard AMO type: add, fetch_add, inc, fetch_inc, compare_swap from
 * all PEs at once on the last PE, with exact totals. */
#define N_STD 500
#define X(NAME, TYPE)                                                          \
    static int std_##NAME(void)                                                \
    {                                                                          \
        int me = shmemu_my_pe(), np = shmemu_n_pes(), t = np - 1;              \
        long n = th_iters(N_STD, 10);                                          \
        TYPE *v = shmemu_calloc(4, sizeof(TYPE));                              \
        PE_CHECK(v != NULL);                                                   \
        for (long i = 0; i < n; i++) {                                         \
            PE_CHECK_OK(shmemu_##NAME##_atomic_add(&v[0], (TYPE)2, t));        \
            (void)shmemu_##NAME##_atomic_fetch_add(&v[0], (TYPE)1, t);         \
            PE_CHECK_OK(shmemu_##NAME##_atomic_inc(&v[1], t));                 \
            (void)shmemu_##NAME##_atomic_fetch_inc(&v[1], t);                  \
            /* compare_swap increment loop */                                  \
            TYPE old = shmemu_##NAME##_atomic_fetch(&v[2], t), seen;           \
            while ((seen = shmemu_##NAME##_atomic_compare_swap(                \
                        &v[2], old, (TYPE)(old + 1), t)) != old)               \
                old = seen;                                                    \
        }                                                                      \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        PE_CHECK(shmemu_##NAME##_atomic_fetch(&v[0], t) == (TYPE)(3 * n * np)); \
        PE_CHECK(shmemu_##NAME##_atomic_fetch(&v[1], t) == (TYPE)(2 * n * np)); \
        PE_CHECK(shmemu_##NAME##_atomic_fetch(&v[2], t) == (TYPE)(n * np));    \
        /* a failing compare_swap leaves the value and returns it */           \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        PE_CHECK(shmemu_##NAME##_atomic_compare_swap(&v[2], (TYPE)0,           \
                                                     (TYPE)99, t) ==           \
                 (TYPE)(n * np));                                              \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        PE_CHECK(shmemu_##NAME##_atomic_fetch(&v[2], t) == (TYPE)(n * np));    \
        (void)me;                                                              \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        shmemu_free(v);                                                        \
        return 0;                                                              \
    }
SHMEMU_AMO_TYPES(X)
#undef X

static int body_std(void *arg)
{
    (void)arg;
    int rc = 0;
#define X(NAME, TYPE) rc |= std_##NAME();
    SHMEMU_AMO_TYPES(X)
#undef X
    return rc;
}

static void test_std_types(void **state)
{
    (void)state;
    th_run(body_std, NULL, TH_NPES(1, 3, 4, 8), 0);
}

/* Extended types: set/fetch/swap.  Every PE swaps its own value in; the
 * returned values plus the final one are exactly the initial value and each
 * PE's value, once. */
#define X(NAME, TYPE)                                                          \
    static int ext_##NAME(void)                                                \
    {                                                                          \
        int me = shmemu_my_pe(), np = shmemu_n_pes();                          \
        TYPE *v = shmemu_calloc(1, sizeof(TYPE));                              \
        TYPE *got = shmemu_calloc(1, sizeof(TYPE));                            \
        PE_CHECK(v && got);                                                    \
        if (me == 0)                                                           \
            PE_CHECK_OK(shmemu_##NAME##_atomic_set(v, (TYPE)1000, 0));         \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        *got = shmemu_##NAME##_atomic_swap(v, (TYPE)(me + 1), 0);              \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        if (me == 0) {                                                         \
            int *seen = calloc((size_t)np + 2, sizeof(int));                   \
            TYPE fin = shmemu_##NAME##_atomic_fetch(v, 0);                     \
            for (int p = 0; p <= np; p++) {                                    \
                TYPE x = p < np ? shmemu_##NAME##_g(got, p) : fin;             \
                int k = x == (TYPE)1000 ? 0 : (int)x;                          \
                PE_CHECK(k >= 0 && k <= np);                                   \
                PE_CHECK_EQ(seen[k]++, 0);                                     \
            }                                                                  \
            free(seen);                                                        \
        }                                                                      \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        shmemu_free(got);                                                      \
        shmemu_free(v);                                                        \
        return 0;                                                              \
    }
SHMEMU_AMO_EXT_TYPES(X)
#undef X

static int body_ext(void *arg)
{
    (void)arg;
    int rc = 0;
#define X(NAME, TYPE) rc |= ext_##NAME();
    SHMEMU_AMO_EXT_TYPES(X)
#undef X
    return rc;
}

static void test_ext_types(void **state)
{
    (void)state;
    th_run(body_ext, NULL, TH_NPES(1, 2, 5, 9), 0);
}

/* Bitwise types: each PE sets, then clears, its own bits with or/and, and
 * toggles a shared word with xor an even number of times. */
#define X(NAME, TYPE)                                                          \
    static int bit_##NAME(void)                                                \
    {                                                                          \
        int me = shmemu_my_pe(), np = shmemu_n_pes(), t = np / 2;              \
        int bits = (int)sizeof(TYPE) * 8;                                      \
        TYPE *v = shmemu_calloc(2, sizeof(TYPE));                              \
        PE_CHECK(v != NULL);                                                   \
        /* PE p owns bits p, p + np, ...: together, every bit */                \
        TYPE mine = (TYPE)0, all = (TYPE) ~(TYPE)0;                            \
        for (int b = me; b < bits; b += np)                                    \
            mine |= (TYPE)((uint64_t)1 << b);                                  \
        PE_CHECK_OK(shmemu_##NAME##_atomic_or(&v[0], mine, t));                \
        (void)shmemu_##NAME##_atomic_fetch_xor(&v[1], (TYPE)0x5a, t);          \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        PE_CHECK(shmemu_##NAME##_atomic_fetch(&v[0], t) == all);               \
        PE_CHECK(shmemu_##NAME##_atomic_fetch(&v[1], t) ==                     \
                 (TYPE)(np % 2 ? 0x5a : 0));                                   \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        TYPE before = shmemu_##NAME##_atomic_fetch_and(&v[0], (TYPE)~mine, t); \
        PE_CHECK((before & mine) == mine); /* my bits were still set */        \
        PE_CHECK_OK(shmemu_##NAME##_atomic_xor(&v[1], (TYPE)0x5a, t));         \
        (void)shmemu_##NAME##_atomic_fetch_or(&v[0], (TYPE)0, t);              \
        PE_CHECK_OK(shmemu_##NAME##_atomic_and(&v[0], (TYPE)~(TYPE)0, t));     \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        PE_CHECK(shmemu_##NAME##_atomic_fetch(&v[0], t) == (TYPE)0);           \
        PE_CHECK(shmemu_##NAME##_atomic_fetch(&v[1], t) == (TYPE)0);           \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        shmemu_free(v);                                                        \
        return 0;                                                              \
    }
SHMEMU_AMO_BIT_TYPES(X)
#undef X

static int body_bit(void *arg)
{
    (void)arg;
    int rc = 0;
#define X(NAME, TYPE) rc |= bit_##NAME();
    SHMEMU_AMO_BIT_TYPES(X)
#undef X
    return rc;
}

static void test_bit_types(void **state)
{
    (void)state;
    th_run(body_bit, NULL, TH_NPES(1, 2, 3, 7, 16), 0);
}

/* A spin lock from compare_swap on PE 0 guards a counter that is updated
 * with plain get and put: without mutual exclusion, increments get lost. */
static int body_lock(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long n = th_iters(2000, 20);
    long *lock = shmemu_calloc(1, sizeof(long)), *count = shmemu_calloc(1, sizeof(long));
    PE_CHECK(lock && count);
    for (long i = 0; i < n; i++) {
        while (shmemu_long_atomic_compare_swap(lock, 0, me + 1, 0) != 0)
            ;
        long c = shmemu_long_g(count, 0);
        PE_CHECK_OK(shmemu_long_p(count, c + 1, 0));
        PE_CHECK_OK(shmemu_quiet());
        PE_CHECK(shmemu_long_atomic_swap(lock, 0, 0) == me + 1);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(shmemu_long_g(count, 0), n * np);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(count);
    shmemu_free(lock);
    return 0;
}

static void test_lock(void **state)
{
    (void)state;
    th_run(body_lock, NULL, TH_NPES(1, 2, 3, 5, 8), 0);
}

static int body_amo_errors(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    int np = shmemu_n_pes();
    int64_t *v = shmemu_calloc(4, sizeof(int64_t)), local = 0;
    PE_CHECK(v != NULL);
    int64_t *mis = (int64_t *)(void *)((char *)v + 4);
    PE_CHECK_EQ(shmemu_int64_atomic_add(mis, 1, 0), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_int64_atomic_fetch_add(mis, 1, 0), 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_int64_atomic_inc(&local, 0), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_int64_atomic_compare_swap(&local, 0, 1, 0), 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_int64_atomic_set(v, 1, np), SHMEMU_EPE);
    PE_CHECK_EQ(shmemu_double_atomic_fetch((double *)(void *)mis, 0), 0.0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_int32_atomic_or((int32_t *)(void *)&v[4], 1, 0), SHMEMU_ERANGE);
    PE_CHECK_EQ(v[0], 0); /* nothing was written */
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(v);
    return 0;
}

static void test_amo_errors(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_amo_errors, NULL, TH_NPES(1, 2), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_int64_atomic_add: dest 0x"));
    assert_non_null(strstr(err, "is not aligned to its 8-byte type"));
    assert_non_null(strstr(err, "shmemu_int64_atomic_inc: dest 0x"));
    assert_non_null(strstr(err, "shmemu_int64_atomic_set: pe 2 is not a PE"));
    assert_non_null(strstr(err, "shmemu_int32_atomic_or: dest 0x"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fetch_inc_permutation),
        cmocka_unit_test(test_std_types),
        cmocka_unit_test(test_ext_types),
        cmocka_unit_test(test_bit_types),
        cmocka_unit_test(test_lock),
        cmocka_unit_test(test_amo_errors),
    };
    return cmocka_run_group_tests_name("amo", tests, NULL, NULL);
}
