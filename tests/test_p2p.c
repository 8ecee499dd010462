/* test_p2p.c - wait_until, test and their array forms; the ring token on
 * many PEs; deadlock and departure reports. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* For every comparison: PE 1 moves PE 0's ivar from `from` to `to` in
 * steps; PE 0 waits until `ivar cmp value` holds and checks that test()
 * said no before and yes after.  Negative values check signed compares. */
struct cmp_case {
    int cmp;
    long from, to, value;
};

static const struct cmp_case cases[] = {
    {SHMEMU_CMP_EQ, 0, 5, 5},    {SHMEMU_CMP_NE, 7, 9, 7},
    {SHMEMU_CMP_GT, -3, 4, 2},   {SHMEMU_CMP_GE, -10, -2, -2},
    {SHMEMU_CMP_LT, 10, -5, -4}, {SHMEMU_CMP_LE, 3, 0, 0},
};

#define X(NAME, TYPE)                                                          \
    static int cmp_##NAME(void)                                                \
    {                                                                          \
        int me = shmemu_my_pe();                                               \
        int is_signed = (TYPE)-1 < (TYPE)1;                                    \
        TYPE *ivar = shmemu_calloc(1, sizeof(TYPE));                           \
        PE_CHECK(ivar != NULL);                                                \
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {        \
            const struct cmp_case *c = &cases[k];                              \
            if (!is_signed && (c->from < 0 || c->to < 0 || c->value < 0))      \
                continue;                                                      \
            *ivar = (TYPE)c->from;                                             \
            if (me == 0) /* before PE 1 may start changing it */               \
                PE_CHECK_EQ(shmemu_##NAME##_test(ivar, c->cmp, (TYPE)c->value), 0); \
            PE_CHECK_OK(shmemu_barrier_all());                                 \
            if (me == 0) {                                                     \
                PE_CHECK_OK(shmemu_##NAME##_wait_until(ivar, c->cmp,           \
                                                       (TYPE)c->value));       \
                PE_CHECK_EQ(shmemu_##NAME##_test(ivar, c->cmp, (TYPE)c->value), 1); \
            } else if (me == 1) {                                              \
                long step = c->to > c->from ? 1 : -1;                          \
                for (long v = c->from + step;; v += step) {                    \
                    PE_CHECK_OK(shmemu_##NAME##_p(ivar, (TYPE)v, 0));          \
                    if (v == c->to)                                            \
                        break;                                                 \
                }                                                              \
            }                                                                  \
            PE_CHECK_OK(shmemu_barrier_all());                                 \
            PE_CHECK(me != 0 || *ivar == (TYPE)c->to);                         \
        }                                                                      \
        shmemu_free(ivar);                                                     \
        return 0;                                                              \
    }
SHMEMU_P2P_TYPES(X)
#undef X

static int body_cmp(void *arg)
{
    (void)arg;
    int rc = 0;
#define X(NAME, TYPE) rc |= cmp_##NAME();
    SHMEMU_P2P_TYPES(X)
#undef X
    return rc;
}

static void test_compare(void **state)
{
    (void)state;
    th_run(body_cmp, NULL, TH_NPES(2, 3), 0);
}

/* The comparisons themselves, for every type, on the values where they go
 * wrong (the extremes, the top bit of unsigned types, -1 against 0): every
 * cmp of every pair, through test and every array form, each judged by C's
 * own comparison of the two values in that type. */
static int holds_c(int cmp, long double a, long double b)
{
    switch (cmp) {
    case SHMEMU_CMP_EQ: return a == b;
    case SHMEMU_CMP_NE: return a != b;
    case SHMEMU_CMP_GT: return a > b;
    case SHMEMU_CMP_GE: return a >= b;
    case SHMEMU_CMP_LT: return a < b;
    default: return a <= b;
    }
}

#define X(NAME, TYPE)                                                          \
    static int table_##NAME(void)                                              \
    {                                                                          \
        int is_signed = (TYPE)-1 < (TYPE)1;                                    \
        /* the top bit alone: the minimum of a signed type (built without   \
         * signed overflow) */                                                 \
        unsigned long long t_ = 1ull << (sizeof(TYPE) * 8 - 1);                \
        TYPE top = (TYPE)t_, top1 = (TYPE)(t_ + 1), below = (TYPE)(t_ - 1);    \
        TYPE vals[] = {0, 1, (TYPE)-1, top, top1, below, 2};                   \
        enum { NV = sizeof(vals) / sizeof(vals[0]) };                          \
        TYPE *iv = shmemu_calloc(NV, sizeof(TYPE));                            \
        PE_CHECK(iv != NULL);                                                  \
        memcpy(iv, vals, sizeof(vals));                                        \
        for (int cmp = SHMEMU_CMP_EQ; cmp <= SHMEMU_CMP_LE; cmp++)             \
            for (int j = 0; j < NV; j++) {                                     \
                TYPE b = vals[j];                                              \
                size_t n_true = 0, first = SIZE_MAX, idx[NV];                  \
                for (int i = 0; i < NV; i++) {                                 \
                    /* the truth, in the type's own arithmetic */              \
                    int want = holds_c(cmp, (long double)vals[i], (long double)b); \
                    PE_CHECK_EQ(shmemu_##NAME##_test(&iv[i], cmp, b), want);   \
                    n_true += (size_t)want;                                    \
                    if (want && first == SIZE_MAX)                             \
                        first = (size_t)i;                                     \
                }                                                              \
                PE_CHECK_EQ(shmemu_##NAME##_test_all(iv, NV, NULL, cmp, b),    \
                            n_true == NV);                                     \
                size_t any = shmemu_##NAME##_test_any(iv, NV, NULL, cmp, b);   \
                if (n_true)                                                    \
                    PE_CHECK(any < NV && holds_c(cmp, (long double)iv[any], (long double)b)); \
                else                                                           \
                    PE_CHECK(any == SIZE_MAX);                                 \
                PE_CHECK_EQ(shmemu_##NAME##_test_some(iv, NV, idx, NULL, cmp, b), n_true); \
                if (n_true) {                                                  \
                    PE_CHECK_EQ(shmemu_##NAME##_wait_until_some(iv, NV, idx, NULL, cmp, b), \
                                n_true);                                       \
                    PE_CHECK_EQ(idx[0], first);                                \
                    size_t w = shmemu_##NAME##_wait_until_any(iv, NV, NULL, cmp, b); \
                    PE_CHECK(w < NV && holds_c(cmp, (long double)iv[w], (long double)b)); \
                }                                                              \
                /* vector forms: element i against vals[(i + j) % NV] */      \
                TYPE vv[NV];                                                   \
                size_t vtrue = 0;                                              \
                for (int i = 0; i < NV; i++) {                                 \
                    vv[i] = vals[(i + j) % NV];                                \
                    vtrue += (size_t)holds_c(cmp, (long double)vals[i], (long double)vv[i]); \
                }                                                              \
                if (vtrue) {                                                   \
                    PE_CHECK_EQ(shmemu_##NAME##_wait_until_some_vector(iv, NV, idx, NULL, \
                                                                       cmp, vv), vtrue); \
                    size_t w = shmemu_##NAME##_wait_until_any_vector(iv, NV, NULL, cmp, vv); \
                    PE_CHECK(w < NV && holds_c(cmp, (long double)iv[w], (long double)vv[w])); \
                }                                                              \
                if (vtrue == NV)                                               \
                    PE_CHECK_OK(shmemu_##NAME##_wait_until_all_vector(iv, NV, NULL, cmp, vv)); \
                /* excluded elements are not looked at */                     \
                int status[NV];                                                \
                for (int i = 0; i < NV; i++)                                   \
                    status[i] = !holds_c(cmp, (long double)vals[i], (long double)b); \
                if (n_true)                                                    \
                    PE_CHECK_OK(shmemu_##NAME##_wait_until_all(iv, NV, status, cmp, b)); \
            }                                                                  \
        (void)is_signed;                                                       \
        shmemu_free(iv);                                                       \
        return 0;                                                              \
    }
SHMEMU_P2P_TYPES(X)
#undef X

static int body_table(void *arg)
{
    (void)arg;
    int rc = 0;
#define X(NAME, TYPE) rc |= table_##NAME();
    SHMEMU_P2P_TYPES(X)
#undef X
    return rc;
}

static void test_compare_table(void **state)
{
    (void)state;
    th_run(body_table, NULL, TH_NPES(1, 2), 0);
}

/* Array forms: PE 0 waits on n flags that the other PEs set one by one
 * (some excluded by status); checks _all, _any, _some and the vector forms. */
static int body_arrays(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    enum { N = 9 };
    int *flags = shmemu_calloc(N, sizeof(int));
    PE_CHECK(flags != NULL);
    int status[N] = {0};
    status[2] = status[6] = 1; /* excluded: never set */
    size_t idx[N];
    int want[N];
    for (int i = 0; i < N; i++)
        want[i] = i + 1;

    /* _any then _some: one flag at a time */
    for (int round = 0; round < N; round++) {
        if (status[round])
            continue;
        PE_CHECK_OK(shmemu_barrier_all());
        if (me == round % np && round % np != 0)
            PE_CHECK_OK(shmemu_int_p(&flags[round], round + 1, 0));
        if (me == 0) {
            if (round % np == 0)
                flags[round] = round + 1; /* PE 0's own turn: a local store */
            size_t i = shmemu_int_wait_until_any(flags, N, status, SHMEMU_CMP_EQ,
                                                 round + 1);
            PE_CHECK_EQ(i, round);
            PE_CHECK_EQ(shmemu_int_wait_until_some(flags, N, idx, status, SHMEMU_CMP_GT, 0),
                        round + 1 - (round > 2) - (round > 6));
            size_t j = shmemu_int_wait_until_any_vector(flags, N, status, SHMEMU_CMP_EQ,
                                                        want);
            PE_CHECK(j <= (size_t)round && !status[j] && flags[j] == (int)j + 1);
        }
    }
    PE_CHECK_OK(shmemu_barrier_all());
    if (me == 0) {
        PE_CHECK_OK(shmemu_int_wait_until_all(flags, N, status, SHMEMU_CMP_GT, 0));
        PE_CHECK_OK(shmemu_int_wait_until_all_vector(flags, N, status, SHMEMU_CMP_EQ, want));
        PE_CHECK_EQ(shmemu_int_test_all(flags, N, status, SHMEMU_CMP_GT, 0), 1);
        PE_CHECK_EQ(shmemu_int_test_all(flags, N, NULL, SHMEMU_CMP_GT, 0), 0);
        size_t unset = shmemu_int_test_any(flags, N, NULL, SHMEMU_CMP_EQ, 0);
        PE_CHECK(unset == 2 || unset == 6);
        PE_CHECK_EQ(shmemu_int_test_some(flags, N, idx, NULL, SHMEMU_CMP_EQ, 0), 2);
        PE_CHECK(idx[0] == 2 && idx[1] == 6);
        PE_CHECK_EQ(shmemu_int_wait_until_some_vector(flags, N, idx, status, SHMEMU_CMP_EQ,
                                                      want),
                    N - 2);
        /* empty wait sets return at once */
        int all_out[N];
        for (int i = 0; i < N; i++)
            all_out[i] = 1;
        PE_CHECK_EQ(shmemu_int_wait_until_any(flags, N, all_out, SHMEMU_CMP_EQ, 42),
                    SIZE_MAX);
        PE_CHECK_EQ(shmemu_int_wait_until_some(flags, 0, idx, NULL, SHMEMU_CMP_EQ, 42), 0);
        PE_CHECK_OK(shmemu_int_wait_until_all(flags, N, all_out, SHMEMU_CMP_EQ, 42));
        PE_CHECK_EQ(shmemu_int_test_any(flags, N, NULL, SHMEMU_CMP_EQ, 42), SIZE_MAX);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(flags);
    return 0;
}

static void test_arrays(void **state)
{
    (void)state;
    th_run(body_arrays, NULL, TH_NPES(1, 2, 4, 9), 0);
}

/* wait_until_any over several satisfied ivars returns each of them in turn
 * across calls (no index starves). */
static int body_fair(void *arg)
{
    (void)arg;
    long *v = shmemu_calloc(4, sizeof(long));
    v[0] = v[1] = v[3] = 1;
    int seen[4] = {0};
    for (int i = 0; i < 12; i++)
        seen[shmemu_long_wait_until_any(v, 4, NULL, SHMEMU_CMP_EQ, 1)]++;
    PE_CHECK(seen[0] && seen[1] && seen[3] && !seen[2]);
    shmemu_free(v);
    return 0;
}

static void test_fairness(void **state)
{
    (void)state;
    th_run(body_fair, NULL, TH_NPES(1), 0);
}

/* A token passed around a ring with p + wait_until: on 128 PEs over two
 * cores this only finishes if waiting PEs sleep and are woken by the put. */
struct ring {
    long hops;
};

static int body_ring(void *arg)
{
    const struct ring *r = arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *token = shmemu_calloc(1, sizeof(long));
    PE_CHECK(token != NULL);
    PE_CHECK_OK(shmemu_barrier_all());
    /* hop h is done by PE h % np, which waits for the value h */
    for (long h = me; h < r->hops; h += np) {
        if (h > 0)
            PE_CHECK_OK(shmemu_long_wait_until(token, SHMEMU_CMP_EQ, h));
        PE_CHECK_OK(shmemu_long_p(token, h + 1, (me + 1) % np));
    }
    PE_CHECK_OK(shmemu_barrier_all());
    /* the last hop's put landed on the PE after the last mover */
    if (me == (int)(r->hops % np))
        PE_CHECK_EQ(*token, r->hops);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(token);
    return 0;
}

static void test_ring(void **state)
{
    (void)state;
    struct ring r = {th_iters(10000, 20)};
    th_run(body_ring, &r, TH_NPES(2, 3, 8, 128), (size_t)2 << 20);
}

/* The deadlock tests again with a pointer into a peer's heap handed out:
 * stores through it tell nobody, so the check then looks at the words the
 * sleepers wait on before it judges. */
static int with_ptr;

/* Two PEs each wait for a flag only the other would set after its wait:
 * reported at once as a deadlock with both PEs' waits. */
static int body_deadlock(void *arg)
{
    int mode = *(int *)arg;
    shmemu_set_error_mode(mode);
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    int *flag = shmemu_calloc(1, sizeof(int));
    if (with_ptr)
        (void)shmemu_ptr(flag, (me + 1) % np);
    int st = shmemu_int_wait_until(flag, SHMEMU_CMP_EQ, 1);
    PE_CHECK_EQ(st, SHMEMU_EDEADLOCK); /* RETURN mode only */
    shmemu_int_p(flag, 1, (me + 1) % np);
    return 0;
}

static void test_deadlock(void **state)
{
    (void)state;
    int modes[] = {SHMEMU_ERRORS_RETURN, SHMEMU_ERRORS_ABORT};
    for (with_ptr = 0; with_ptr <= 1; with_ptr++)
    for (int t = 0; t < th_transport_count(); t++)
        for (int m = 0; m < 2; m++)
            for (int np = 2; np <= 3; np++) {
                th_capture_start();
                int rc = th_launch(th_transport(t), np, 0, body_deadlock, &modes[m]);
                char *err = th_capture_stop();
                assert_int_equal(rc, SHMEMU_EDEADLOCK);
                assert_null(strstr(err, "FAIL"));
                assert_non_null(strstr(err, "shmemu: deadlock: all"));
                for (int p = 0; p < np; p++) {
                    char line[96];
                    snprintf(line, sizeof(line), "shmemu:   PE %d/%d in shmemu_int_wait_until(ivar=heap+0x", p, np);
                    assert_non_null(strstr(err, line));
                }
                assert_non_null(strstr(err, "SHMEMU_CMP_EQ, 1): ivar is 0"));
                free(err);
            }
}

/* One PE in a barrier, the other waiting on a value: also a deadlock. */
static int body_mixed_deadlock(void *arg)
{
    (void)arg;
    int *flag = shmemu_calloc(1, sizeof(int));
    if (shmemu_my_pe() == 0)
        shmemu_barrier_all();
    else
        shmemu_int_wait_until(flag, SHMEMU_CMP_GT, 0);
    th_pe_fail(__FILE__, __LINE__, "a deadlocked wait returned in ABORT mode");
}

static void test_mixed_deadlock(void **state)
{
    (void)state;
    th_capture_start();
    int rc = th_launch(th_transport(0), 2, 0, body_mixed_deadlock, NULL);
    char *err = th_capture_stop();
    assert_int_equal(rc, SHMEMU_EDEADLOCK);
    assert_non_null(strstr(err, "PE 0/2 in shmemu_barrier_all (team slot 0 of 2 PEs: 1 arrived)"));
    assert_non_null(strstr(err, "PE 1/2 in shmemu_int_wait_until(ivar=heap+0x"));
    /* The PE that reports reads the value where it can: on ucx a peer's
     * heap is not mapped, so a report made by PE 0 cannot show it. */
    if (!strstr(err, "SHMEMU_CMP_GT, 0): ivar is 0") &&
        !(strcmp(th_transport(0), "ucx") == 0 &&
          strstr(err, "SHMEMU_CMP_GT, 0): ivar is not readable here")))
        fail_msg("the report does not say what PE 1 waits for: %s", err);
    free(err);
}

/* A _vector wait's report shows the values it compares with (the first
 * four), not the scalar argument the other forms take. */
static int body_vector_deadlock(void *arg)
{
    (void)arg;
    int n = shmemu_my_pe() == 0 ? 6 : 3;
    long want[6] = {-1, 2, 3, 4, 5, 6};
    long *flags = shmemu_calloc(6, sizeof(long));
    if (with_ptr)
        (void)shmemu_ptr(flags, 1 - shmemu_my_pe());
    shmemu_long_wait_until_all_vector(flags, (size_t)n, NULL, SHMEMU_CMP_EQ, want);
    th_pe_fail(__FILE__, __LINE__, "a deadlocked wait returned in ABORT mode");
}

static void test_vector_deadlock(void **state)
{
    (void)state;
    for (with_ptr = 0; with_ptr <= 1; with_ptr++)
    for (int t = 0; t < th_transport_count(); t++) {
        th_capture_start();
        int rc = th_launch(th_transport(t), 2, 0, body_vector_deadlock, NULL);
        char *err = th_capture_stop();
        assert_int_equal(rc, SHMEMU_EDEADLOCK);
        assert_non_null(strstr(err, "PE 0/2 in shmemu_long_wait_until_all_vector(ivars=heap+0x"));
        assert_non_null(strstr(err, "nelems=6, SHMEMU_CMP_EQ, cmp_values -1 2 3 4 ...): values are"));
        assert_non_null(strstr(err, "nelems=3, SHMEMU_CMP_EQ, cmp_values -1 2 3): values are"));
        free(err);
    }
}

/* A pointer handed out, and an array wait one of whose words satisfies
 * but is masked out by its status: the check cannot see the mask, so it
 * wakes the PE to look for itself once, and on the same words again
 * judges it stuck. */
static int body_masked_deadlock(void *arg)
{
    (void)arg;
    long *flags = shmemu_calloc(2, sizeof(long));
    (void)shmemu_ptr(flags, 1 - shmemu_my_pe());
    if (shmemu_my_pe() == 0) {
        const int status[2] = {1, 0};
        flags[0] = 1;
        (void)shmemu_long_wait_until_any(flags, 2, status, SHMEMU_CMP_EQ, 1);
    } else {
        shmemu_barrier_all();
    }
    th_pe_fail(__FILE__, __LINE__, "a deadlocked wait returned in ABORT mode");
}

static void test_masked_deadlock(void **state)
{
    (void)state;
    for (int t = 0; t < th_transport_count(); t++) {
        th_capture_start();
        int rc = th_launch(th_transport(t), 2, 0, body_masked_deadlock, NULL);
        char *err = th_capture_stop();
        /* On ucx the PE that finds the deadlock reads the words only if
         * they are its own: PE 1 may report first. */
        int far = !strcmp(th_transport(t), "ucx") &&
                  strstr(err, "nelems=2, SHMEMU_CMP_EQ, 1): values are not readable here");
        if (rc != SHMEMU_EDEADLOCK ||
            !strstr(err, "PE 0/2 in shmemu_long_wait_until_any(ivars=heap+0x") ||
            (!far && !strstr(err, "nelems=2, SHMEMU_CMP_EQ, 1): values are 1 0")) ||
            !strstr(err, "PE 1/2 in shmemu_barrier_all"))
            fail_msg("%s: rc %d: %s", th_transport(t), rc, err);
        free(err);
    }
}

/* PE 1 leaves without writing what PE 0 waits for: PE 0 is released. */
static int body_departed(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    long *v = shmemu_calloc(1, sizeof(long));
    if (shmemu_my_pe() == 1)
        return 0;
    PE_CHECK_EQ(shmemu_long_wait_until(v, SHMEMU_CMP_NE, 0), SHMEMU_EABORTED);
    return 0;
}

static void test_departed(void **state)
{
    (void)state;
    for (int t = 0; t < th_transport_count(); t++) {
        th_capture_start();
        int rc = th_launch(th_transport(t), 2, 0, body_departed, NULL);
        char *err = th_capture_stop();
        assert_int_equal(rc, SHMEMU_EABORTED);
        assert_non_null(strstr(err, "1 of 2 PEs left the job"));
        assert_non_null(strstr(err, "PE 1/2 left the job"));
        assert_non_null(strstr(err, "PE 0/2 in shmemu_long_wait_until(ivar=heap+0x"));
        assert_null(strstr(err, "FAIL"));
        free(err);
    }
}

/* A waiter is woken by each kind of update: put, p, AMO, put-with-signal,
 * and a store through shmemu_ptr (which tells nobody: the waiter looks
 * again by itself), the storing PE then blocked in a barrier, or in a
 * wait of its own for the waiter's answer.  Neither is a deadlock. */
static int body_wakers(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe();
    uint64_t *v = shmemu_calloc(11, sizeof(uint64_t));
    uint64_t one = 1;
    /* a pointer into PE 0's heap, where the transport gives PE 1 one (ucx:
     * where UCX maps peers' memory), stored through with C11 release
     * stores (the flag idiom); PE 0 learns whether PE 1 has one */
    uint64_t *at0 = shmemu_ptr(v, 0);
    if (me == 1)
        PE_CHECK_OK(shmemu_uint64_p(&v[10], at0 != NULL, 0));
    PE_CHECK_OK(shmemu_barrier_all());
    int have = me == 1 ? at0 != NULL : me == 0 ? v[10] != 0 : 0;
    for (int kind = 0; kind < 7; kind++) {
        int word = kind < 4 ? kind : 5;
        PE_CHECK_OK(shmemu_barrier_all());
        if (kind >= 4 && !have)
            continue;
        if (me == 0 && kind == 6) { /* an array wait, on the second of two words */
            PE_CHECK_EQ(shmemu_uint64_wait_until_any(&v[8], 2, NULL, SHMEMU_CMP_EQ, 1), 1);
        } else if (me == 0) {
            uint64_t want = kind < 4 ? 1 : (uint64_t)kind - 2;
            PE_CHECK_OK(shmemu_uint64_wait_until(&v[word], SHMEMU_CMP_EQ, want));
            if (kind == 5)
                PE_CHECK_OK(shmemu_uint64_p(&v[6], 1, 1));
        } else if (me == 1) {
            /* give PE 0 time to go to sleep first */
            for (volatile long spin = 0; spin < 2000000; spin++)
                ;
            switch (kind) {
            case 0: PE_CHECK_OK(shmemu_putmem(&v[0], &one, 8, 0)); break;
            case 1: PE_CHECK_OK(shmemu_uint64_p(&v[1], 1, 0)); break;
            case 2: PE_CHECK_OK(shmemu_uint64_atomic_inc(&v[2], 0)); break;
            case 3:
                PE_CHECK_OK(shmemu_putmem_signal(&v[4], &one, 8, &v[3], 1,
                                                 SHMEMU_SIGNAL_SET, 0));
                break;
            case 4: __atomic_store_n(&at0[5], 2, __ATOMIC_RELEASE); break;
            case 6: __atomic_store_n(&at0[9], 1, __ATOMIC_RELEASE); break;
            default:
                __atomic_store_n(&at0[5], 3, __ATOMIC_RELEASE);
                PE_CHECK_OK(shmemu_uint64_wait_until(&v[6], SHMEMU_CMP_EQ, 1));
            }
        }
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(v);
    return 0;
}

static void test_wakers(void **state)
{
    (void)state;
    th_run(body_wakers, NULL, TH_NPES(2, 3), 0);
}

static int body_p2p_errors(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    int *v = shmemu_calloc(2, sizeof(int)), local = 0;
    size_t idx[2];
    PE_CHECK_EQ(shmemu_int_wait_until(v, 17, 0), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_int_test(&local, SHMEMU_CMP_EQ, 0), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_int_wait_until((int *)(void *)((char *)v + 1), SHMEMU_CMP_EQ, 0),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_int_wait_until_all(v, 3, NULL, SHMEMU_CMP_EQ, 0), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_int_wait_until_any(NULL, 2, NULL, SHMEMU_CMP_EQ, 0), SIZE_MAX);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_int_wait_until_some(v, 2, NULL, NULL, SHMEMU_CMP_EQ, 0), 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_int_wait_until_all_vector(v, 2, NULL, SHMEMU_CMP_EQ, NULL),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_int_test_some(v, 2, idx, NULL, SHMEMU_CMP_EQ, 0), 2);
    shmemu_free(v);
    return 0;
}

static void test_p2p_errors(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_p2p_errors, NULL, TH_NPES(1), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_int_wait_until: cmp 17 is not one of"));
    assert_non_null(strstr(err, "shmemu_int_test: ivar 0x"));
    assert_non_null(strstr(err, "is not aligned to its 4-byte type"));
    assert_non_null(strstr(err, "shmemu_int_wait_until_all: ivars 0x"));
    assert_non_null(strstr(err, "shmemu_int_wait_until_any: ivars is NULL"));
    assert_non_null(strstr(err, "shmemu_int_wait_until_some: indices is NULL"));
    assert_non_null(strstr(err, "shmemu_int_wait_until_all_vector: values is NULL"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare),     cmocka_unit_test(test_compare_table),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_fairness),      cmocka_unit_test(test_ring),
        cmocka_unit_test(test_deadlock),      cmocka_unit_test(test_mixed_deadlock),
        cmocka_unit_test(test_vector_deadlock), cmocka_unit_test(test_masked_deadlock),
        cmocka_unit_test(test_departed),      cmocka_unit_test(test_wakers),
        cmocka_unit_test(test_p2p_errors),
    };
    return cmocka_run_group_tests_name("p2p", tests, NULL, NULL);
}
