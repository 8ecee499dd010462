/* test_coll.c - every built-in collective algorithm over a representative
 * matrix on every transport (through shmemu_verify_run), the OpenSHMEM
 * forms, algorithm selection, and argument errors. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

/* A rotating sample of the matrix: every npes value, and counts, dtypes,
 * ops, in-place and team cycling through theirs. */
static void run_algo(shmemu_coll_t coll, const char *name, void (*fn)(void),
                     const char *transport)
{
    static const int npes[] = {1, 2, 3, 4, 5, 7, 8};
    static const size_t counts[] = {0, 1, 3, 7, 64, 1000, 4097};
    static const shmemu_dtype_t dts[] = {SHMEMU_INT32, SHMEMU_UINT8, SHMEMU_DOUBLE,
                                         SHMEMU_FLOAT16, SHMEMU_INT64, SHMEMU_BFLOAT16,
                                         SHMEMU_FLOAT, SHMEMU_UINT16, SHMEMU_INT8};
    int reduction = coll == SHMEMU_COLL_ALLREDUCE || coll == SHMEMU_COLL_REDUCE ||
                    coll == SHMEMU_COLL_REDUCE_SCATTER;
    int in_place_ok = coll == SHMEMU_COLL_ALLREDUCE || coll == SHMEMU_COLL_REDUCE ||
                      coll == SHMEMU_COLL_BROADCAST;
    int k = 0;
    int one_rep = 0;
#ifdef TH_TSAN
    /* A device built-in makes 128 fibers per PE per call, and each costs
     * ThreadSanitizer a fresh thread state (2 s a case): there, one case
     * per PE count (one of the three forms below); every other build runs
     * the whole sample. */
    one_rep = !strncmp(name, "dev_", 4);
#endif
    /* Under mpirun every case is a job that starts UCX anew (0.6 s on 2
     * cores): one case per algorithm there; the ucx pass before it runs
     * the whole sample on the same transport. */
    if (th_mpirun_npes())
        one_rep = 1;
    for (size_t a = 0; a < sizeof(npes) / sizeof(npes[0]); a++)
        for (int rep = 0; rep < 3; rep++, k++) {
            /* one_rep: which of the three forms varies by algorithm */
            if (one_rep && (rep != (int)((coll + strlen(name)) % 3) ||
                            (th_quick() && npes[a] > 4)))
                continue;
            shmemu_verify_case vc = {0};
            vc.coll = coll;
            vc.algo = name;
            vc.fn = fn;
            vc.transport = transport;
            vc.npes = th_quick() && npes[a] > 4 ? 4 : npes[a];
            vc.count = counts[(a + (size_t)rep * 3) % 7];
            vc.dtype = dts[k % 9];
            vc.op = reduction ? (shmemu_op_t)(k % SHMEMU_OP_COUNT) : SHMEMU_SUM;
            if (!shmemu_op_valid(vc.op, vc.dtype))
                vc.op = (shmemu_op_t)(k % 4); /* sum, prod, min, max fit floats */
            vc.in_place = in_place_ok && rep == 1;
            vc.team = rep == 2 ? SHMEMU_VERIFY_STRIDED : SHMEMU_VERIFY_WORLD;
            int n = vc.team ? (vc.npes + 1) / 2 : vc.npes;
            vc.root = (int)((size_t)k % (size_t)n);
            vc.seed = 7 + (uint64_t)k;
            vc.inputs = k % 5 == 4 ? SHMEMU_VERIFY_RANDOM : SHMEMU_VERIFY_EXACT;
            shmemu_verify_result r;
            assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_OK);
            if (!r.passed)
                fail_msg("%s %s on %s, %d PEs, count %zu, %s %s%s%s, root %d: %s "
                         "(PE %d index %zu: expected %s, got %s)",
                         shmemu_coll_name(coll), name, transport, vc.npes, vc.count,
                         shmemu_dtype_name(vc.dtype), reduction ? shmemu_op_name(vc.op) : "",
                         vc.in_place ? ", in place" : "", vc.team ? ", strided team" : "",
                         vc.root, r.reason, r.pe, r.index, r.expected, r.got);
        }
}

/* The device-initiated built-ins (dev_*) are kernels: they run where
 * device threads run on the CPU, and on cuda (nvcc's build of the same
 * file); test_staged checks the refusal elsewhere. */
static int runs_on(const char *name, const char *transport)
{
    if (strncmp(name, "dev_", 4) || !strcmp(transport, "local") || !strcmp(transport, "shm") ||
        !strcmp(transport, "sim") || !strcmp(transport, "cuda"))
        return 1;
    printf("# %s left out on %s: device-initiated built-ins run on local, shm, sim and cuda\n",
           name, transport);
    return 0;
}

static void test_every_algorithm(void **state)
{
    (void)state;
    for (int t = 0; t < th_transport_count(); t++)
        for (int c = 0; c < SHMEMU_COLL_COUNT; c++) {
            const char *name;
            void (*fn)(void);
            for (int i = 0; shmemu_verify_builtin((shmemu_coll_t)c, i, &name, &fn) == 0; i++)
                if (runs_on(name, th_transport(t)))
                    run_algo((shmemu_coll_t)c, name, fn, th_transport(t));
        }
}

/* Large vectors through every allreduce, past the ring's pipeline granule. */
static void test_large_allreduce(void **state)
{
    (void)state;
    const char *name;
    void (*fn)(void);
    for (int i = 0; shmemu_verify_builtin(SHMEMU_COLL_ALLREDUCE, i, &name, &fn) == 0; i++)
        for (int t = 0; t < th_transport_count(); t++) {
            if (!runs_on(name, th_transport(t)))
                continue;
            shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE, .algo = name, .fn = fn,
                                     .transport = th_transport(t), .npes = 3,
                                     .count = (size_t)th_iters(300001, 10),
                                     .dtype = SHMEMU_DOUBLE, .op = SHMEMU_SUM, .seed = 3};
            shmemu_verify_result r;
            assert_int_equal(shmemu_verify_run(&vc, &r), 0);
            if (!r.passed)
                fail_msg("allreduce %s on %s: %s", name, th_transport(t), r.reason);
        }
}

/* The OpenSHMEM forms and the typed reductions, with exact values. */
static int body_forms(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *src = shmemu_malloc(4 * sizeof(long)), *dst = shmemu_malloc((size_t)np * 4 * sizeof(long));
    char *bytes = shmemu_calloc((size_t)np * (size_t)np + 1, 1);
    char *mine = shmemu_malloc((size_t)np + 2);
    PE_CHECK(src && dst && bytes && mine);
    for (int i = 0; i < 4; i++)
        src[i] = me * 10 + i;
    PE_CHECK_OK(shmemu_long_sum_reduce(SHMEMU_TEAM_WORLD, dst, src, 4));
    for (int i = 0; i < 4; i++)
        PE_CHECK_EQ(dst[i], 10L * np * (np - 1) / 2 + (long)np * i);
    PE_CHECK_OK(shmemu_long_max_reduce(SHMEMU_TEAM_WORLD, dst, src, 4));
    PE_CHECK_EQ(dst[3], (np - 1) * 10 + 3);
    unsigned *u = (unsigned *)(void *)src, *ud = (unsigned *)(void *)dst;
    u[0] = 1u << me;
    PE_CHECK_OK(shmemu_uint_or_reduce(SHMEMU_TEAM_WORLD, ud, u, 1));
    PE_CHECK_EQ(ud[0], (1u << np) - 1);
    double *d = (double *)(void *)src, *dd = (double *)(void *)dst;
    d[0] = me + 1.0;
    PE_CHECK_OK(shmemu_double_prod_reduce(SHMEMU_TEAM_WORLD, dd, d, 1));
    double f = 1;
    for (int p = 1; p <= np; p++)
        f *= p;
    PE_CHECK(dd[0] == f);
    /* fcollect, broadcast, alltoall, collect (different sizes per PE) */
    for (int i = 0; i < np + 2; i++)
        mine[i] = (char)(me * np + i);
    PE_CHECK_OK(shmemu_fcollectmem(SHMEMU_TEAM_WORLD, bytes, mine, 2));
    for (int p = 0; p < np; p++)
        PE_CHECK(bytes[2 * p] == (char)(p * np) && bytes[2 * p + 1] == (char)(p * np + 1));
    PE_CHECK_OK(shmemu_broadcastmem(SHMEMU_TEAM_WORLD, bytes, mine, (size_t)np, np - 1));
    for (int i = 0; i < np; i++)
        PE_CHECK_EQ(bytes[i], (char)((np - 1) * np + i));
    PE_CHECK_OK(shmemu_alltoallmem(SHMEMU_TEAM_WORLD, bytes, mine, 1));
    for (int p = 0; p < np; p++)
        PE_CHECK_EQ(bytes[p], (char)(p * np + me));
    PE_CHECK_OK(shmemu_collectmem(SHMEMU_TEAM_WORLD, bytes, mine, (size_t)me));
    size_t at = 0;
    for (int p = 0; p < np; p++)
        for (int i = 0; i < p; i++, at++)
            PE_CHECK_EQ(bytes[at], (char)(p * np + i));
    PE_CHECK_OK(shmemu_barrier_dissemination(SHMEMU_TEAM_WORLD));
    shmemu_free(mine);
    shmemu_free(bytes);
    shmemu_free(dst);
    shmemu_free(src);
    return 0;
}

static void test_forms(void **state)
{
    (void)state;
    th_run(body_forms, NULL, TH_NPES(1, 2, 3, 6, 9), 0);
}

/* $SHMEMU_*_ALGO picks the algorithm; an unknown name is an error. */
static int body_select(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    int np = shmemu_n_pes();
    /* The algorithm the job read at its start, as the launcher's caller set it. */
    const char *set = getenv("SHMEMU_ALLREDUCE_ALGO");
    const char *got = shmemu_coll_algo(SHMEMU_COLL_ALLREDUCE);
    PE_CHECK(got && !strcmp(got, set ? set : "auto"));
    got = shmemu_coll_algo(SHMEMU_COLL_BROADCAST);
    PE_CHECK(got && !strcmp(got, "auto"));
    PE_CHECK(shmemu_coll_algo(SHMEMU_COLL_COUNT) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    int *v = shmemu_malloc(4 * sizeof(int)), *w = shmemu_malloc(4 * sizeof(int));
    v[0] = 2;
    /* A kernel runs where this PE loads and stores every peer's heap (ucx
     * on one node too); elsewhere it is refused (test_staged says how). */
    int loadable = 1;
    for (int p = 0; p < np; p++)
        loadable &= shmemu_ptr(v, p) != NULL;
    if (set && !strncmp(set, "dev_", 4) && !loadable) {
        PE_CHECK_EQ(shmemu_allreduce(SHMEMU_TEAM_WORLD, w, v, 1, SHMEMU_INT32, SHMEMU_SUM),
                    SHMEMU_ENOTSUP);
        shmemu_free(w);
        shmemu_free(v);
        return 0;
    }
    PE_CHECK_OK(shmemu_allreduce(SHMEMU_TEAM_WORLD, w, v, 1, SHMEMU_INT32, SHMEMU_SUM));
    PE_CHECK_EQ(w[0], 2 * np);
    PE_CHECK_EQ(shmemu_allreduce(SHMEMU_TEAM_WORLD, w, v, 1, SHMEMU_FLOAT, SHMEMU_BXOR),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_allreduce(SHMEMU_TEAM_WORLD, w, v, 1, (shmemu_dtype_t)77, SHMEMU_SUM),
                SHMEMU_EINVAL);
    int stack[4];
    PE_CHECK_EQ(shmemu_allreduce(SHMEMU_TEAM_WORLD, stack, v, 1, SHMEMU_INT32, SHMEMU_SUM),
                SHMEMU_ERANGE);
    /* a count past the end of v, though w lies right behind it in the heap */
    PE_CHECK_EQ(shmemu_allreduce(SHMEMU_TEAM_WORLD, w, v, 5, SHMEMU_INT32, SHMEMU_SUM),
                SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_sym_extent(v), 4 * sizeof(int));
    PE_CHECK_EQ(shmemu_sym_extent(v + 3), sizeof(int));
    PE_CHECK_EQ(shmemu_sym_extent(stack), 0);
    PE_CHECK_EQ(shmemu_broadcast(SHMEMU_TEAM_WORLD, w, v, 1, SHMEMU_INT32, np), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_allreduce(SHMEMU_TEAM_INVALID, w, v, 1, SHMEMU_INT32, SHMEMU_SUM),
                SHMEMU_EINVAL);
    /* in place is dest == src; a partial overlap is refused, in every form */
    v[0] = 3;
    v[1] = 5;
    PE_CHECK_OK(shmemu_allreduce(SHMEMU_TEAM_WORLD, v, v, 2, SHMEMU_INT32, SHMEMU_SUM));
    PE_CHECK_EQ(v[0], 3 * np);
    PE_CHECK_EQ(v[1], 5 * np);
    PE_CHECK_EQ(shmemu_allreduce(SHMEMU_TEAM_WORLD, v + 1, v, 2, SHMEMU_INT32, SHMEMU_SUM),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(v[1], 5 * np); /* untouched */
    PE_CHECK_EQ(shmemu_broadcast(SHMEMU_TEAM_WORLD, v, v + 1, 2, SHMEMU_INT32, 0),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_allgather(SHMEMU_TEAM_WORLD, v, v + 3, 1, SHMEMU_INT32),
                np < 4 ? SHMEMU_OK : np == 4 ? SHMEMU_EINVAL : SHMEMU_ERANGE);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(w);
    shmemu_free(v);
    return 0;
}

static void test_select(void **state)
{
    (void)state;
    static const char *algos[] = {"oneshot", "ring",        "rd",         "rabenseifner",
                                  "tree",    "dev_oneshot", "dev_twoshot", "auto"};
    th_capture_start();
    for (int i = 0; i < 8; i++) {
        setenv("SHMEMU_ALLREDUCE_ALGO", algos[i], 1);
        th_run(body_select, NULL, TH_NPES(1, 3, 4), 0);
    }
    setenv("SHMEMU_ALLREDUCE_ALGO", "bogo", 1);
    int rc = th_launch(th_transport(0), 2, 0, body_select, NULL);
    unsetenv("SHMEMU_ALLREDUCE_ALGO");
    char *err = th_capture_stop();
    assert_null(shmemu_coll_algo(SHMEMU_COLL_ALLREDUCE)); /* outside a PE */
    assert_non_null(strstr(err, "shmemu_coll_algo: coll is 6, not a collective (0..5)\n"));
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(err, "shmemu_allreduce: SHMEMU_ALLREDUCE_ALGO='bogo' is not one of "
                                "oneshot, ring, rd, rabenseifner, tree, dev_oneshot, dev_twoshot, "
                                "auto"));
    assert_non_null(strstr(err, "shmemu_allreduce_ring: op bxor (6) does not apply to float"));
    assert_non_null(strstr(err, " is not symmetric (in no block of the symmetric heap, nor in "
                                "symmetric static data)\n"));
    assert_non_null(strstr(err, "+20 runs past the end of its symmetric block (16 bytes from "
                                "dest)\n"));
    assert_non_null(strstr(err, "root 3 is not a PE of the team (0..2)"));
    assert_non_null(strstr(err, "shmemu_allreduce_ring: dest 0x"));
    assert_non_null(strstr(err, "+8 overlap without being the same buffer\n"));
    free(err);
}

/* Back-to-back calls with no sync between them, PEs drifting apart (PE 0
 * naps now and then): the one-shot allreduce's two slot sets must keep a
 * fast PE from overwriting what a slow one still reads, and the calls that
 * share the scratch (reduce-scatter by halving, collect) must stay apart
 * from it.  Exact values every call. */
static int body_back_to_back(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    size_t max = 700; /* several one-shot blocks at 8 PEs and more */
    int64_t *src = shmemu_malloc(max * (size_t)n * sizeof(int64_t));
    int64_t *dst = shmemu_malloc(max * (size_t)n * sizeof(int64_t));
    PE_CHECK(src && dst);
    long iters = th_iters(300, 4);
    for (long it = 0; it < iters; it++) {
        size_t count = (size_t[]){1, 7, 100, max, 0, 33}[it % 6];
        for (size_t j = 0; j < count; j++)
            src[j] = me * (it + 1) + (int64_t)j;
        if (me == 0 && it % 17 == 0)
            nanosleep(&(struct timespec){0, 200000}, NULL);
        int in_place = it % 4 == 3;
        PE_CHECK_OK(shmemu_allreduce_oneshot(SHMEMU_TEAM_WORLD, in_place ? src : dst, src,
                                             count, SHMEMU_INT64, SHMEMU_SUM));
        int64_t *out = in_place ? src : dst;
        for (size_t j = 0; j < count; j++)
            PE_CHECK_EQ(out[j], (it + 1) * n * (n - 1) / 2 + n * (int64_t)j);
        if (it % 5 == 4) {
            for (size_t j = 0; j < 3 * (size_t)n; j++)
                src[j] = me + (int64_t)j;
            PE_CHECK_OK(shmemu_reduce_scatter_rhalving(SHMEMU_TEAM_WORLD, dst, src, 3,
                                                       SHMEMU_INT64, SHMEMU_SUM));
            for (size_t j = 0; j < 3; j++)
                PE_CHECK_EQ(dst[j], n * (n - 1) / 2 + n * (int64_t)(3 * (size_t)me + j));
        }
        if (it % 7 == 6) {
            src[0] = me;
            PE_CHECK_OK(shmemu_collectmem(SHMEMU_TEAM_WORLD, dst, src,
                                          (size_t)(me % 2) * sizeof(int64_t)));
            size_t at = 0;
            for (int p = 0; p < n; p++)
                if (p % 2) {
                    int64_t v;
                    memcpy(&v, (char *)dst + at, sizeof(v));
                    PE_CHECK_EQ(v, p);
                    at += sizeof(v);
                }
        }
    }
    shmemu_barrier_all();
    shmemu_free(dst);
    shmemu_free(src);
    return 0;
}

static void test_back_to_back(void **state)
{
    (void)state;
    th_run(body_back_to_back, NULL, TH_NPES(2, 3, 8, 13), 0);
}

/* The device-initiated built-ins back to back, no sync between calls, PE
 * 0 napping now and then: the kernels' signals and barriers take their
 * tags from the team's sequence, shared with the host algorithms called
 * in between, and a window boundary (2,048 elements per PE) is crossed.
 * Exact values every call. */
static int body_dev_back_to_back(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    size_t max = 2100;
    int64_t *src = shmemu_malloc(max * (size_t)n * sizeof(int64_t));
    int64_t *dst = shmemu_malloc(max * (size_t)n * sizeof(int64_t));
    PE_CHECK(src && dst);
    long iters = th_iters(60, 10);
    for (long it = 0; it < iters; it++) {
        size_t count = (size_t[]){1, 2049, 7, 0, 100, 33, 2100}[it % 7];
        int64_t base = (int64_t)it * 1000;
        for (size_t j = 0; j < count * (size_t)n; j++)
            src[j] = base + me + (int64_t)j;
        if (me == 0 && it % 3 == 0)
            nanosleep(&(struct timespec){0, 300000}, NULL);
        int in_place = it % 2 == 1;
        int64_t *out = in_place ? src : dst;
        int64_t tri = (int64_t)n * (n - 1) / 2;
        switch (it % 5) {
        case 0:
        case 1:
            PE_CHECK_OK((it % 5 ? shmemu_allreduce_dev_twoshot : shmemu_allreduce_dev_oneshot)(
                SHMEMU_TEAM_WORLD, out, src, count, SHMEMU_INT64, SHMEMU_SUM));
            for (size_t j = 0; j < count; j++)
                PE_CHECK_EQ(out[j], n * (base + (int64_t)j) + tri);
            break;
        case 2:
            PE_CHECK_OK(shmemu_allgather_dev_ring(SHMEMU_TEAM_WORLD, dst, src, count,
                                                  SHMEMU_INT64));
            for (int p = 0; p < n; p++)
                for (size_t j = 0; j < count; j++)
                    PE_CHECK_EQ(dst[(size_t)p * count + j], base + p + (int64_t)j);
            break;
        case 3:
            PE_CHECK_OK(shmemu_reduce_scatter_dev_ring(SHMEMU_TEAM_WORLD, dst, src, count,
                                                       SHMEMU_INT64, SHMEMU_SUM));
            for (size_t j = 0; j < count; j++)
                PE_CHECK_EQ(dst[j], n * (base + (int64_t)((size_t)me * count + j)) + tri);
            break;
        default:
            PE_CHECK_OK(shmemu_broadcast_dev_pull(SHMEMU_TEAM_WORLD, out, src, count,
                                                  SHMEMU_INT64, (int)(it % n)));
            for (size_t j = 0; j < count; j++)
                PE_CHECK_EQ(out[j], base + it % n + (int64_t)j);
        }
        if (it % 4 == 3) /* a host algorithm on the same team, between kernels */
            PE_CHECK_OK(shmemu_allreduce_rd(SHMEMU_TEAM_WORLD, dst, src, 1, SHMEMU_INT64,
                                            SHMEMU_SUM));
    }
    shmemu_barrier_all();
    shmemu_free(dst);
    shmemu_free(src);
    return 0;
}

static void test_dev_back_to_back(void **state)
{
    (void)state;
    static const int npes[] = {1, 2, 3, 5};
    for (int t = 0; t < th_transport_count(); t++)
        for (size_t i = 0; i < sizeof(npes) / sizeof(npes[0]) && runs_on("dev_", th_transport(t));
             i++)
            if (th_launch(th_transport(t), npes[i], 0, body_dev_back_to_back, NULL) != 0)
                fail_msg("%s, %d PEs: the job failed", th_transport(t), npes[i]);
}

/* 16-bit floats: conversions round to nearest even and keep specials. */
static int body_half(void *arg)
{
    (void)arg;
    uint16_t a[6] = {0x3c00, 0x3c01, 0x7bff, 0x0001, 0xfc00, 0x3555}; /* 1, 1+e, 65504, min sub, -inf, ~1/3 */
    uint16_t b[6] = {0x3c00, 0x3c00, 0x3c00, 0x0001, 0x3c00, 0x3555};
    uint16_t d[6];
    PE_CHECK_OK(shmemu_reduce_local(SHMEMU_FLOAT16, SHMEMU_SUM, d, a, b, 6));
    PE_CHECK_EQ(d[0], 0x4000);           /* 2 */
    PE_CHECK_EQ(d[1], 0x4000);           /* 2 + 2^-10 rounds to even: 2 */
    PE_CHECK_EQ(d[2], 0x7bff);           /* 65505 rounds back to 65504 */
    PE_CHECK_EQ(d[3], 0x0002);           /* subnormals add exactly */
    PE_CHECK_EQ(d[4], 0xfc00);           /* -inf + 1 */
    PE_CHECK_EQ(d[5], 0x3955);           /* 2/3 */
    uint16_t x[2] = {0x3f80, 0x4049}, y[2] = {0x3f80, 0x3f80}; /* bf16 1, 3.140625 */
    PE_CHECK_OK(shmemu_reduce_local(SHMEMU_BFLOAT16, SHMEMU_SUM, d, x, y, 2));
    PE_CHECK_EQ(d[0], 0x4000);
    PE_CHECK_EQ(d[1], 0x4084); /* 4.140625 */
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    PE_CHECK_EQ(shmemu_reduce_local(SHMEMU_DOUBLE, SHMEMU_BAND, d, x, y, 1), SHMEMU_EINVAL);
    return 0;
}

static void test_half(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_half, NULL, TH_NPES(1), 0);
    free(th_capture_stop());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_algorithm), cmocka_unit_test(test_large_allreduce),
        cmocka_unit_test(test_forms),           cmocka_unit_test(test_select),
        cmocka_unit_test(test_half),            cmocka_unit_test(test_back_to_back),
        cmocka_unit_test(test_dev_back_to_back),
    };
    return cmocka_run_group_tests_name("coll", tests, NULL, NULL);
}
