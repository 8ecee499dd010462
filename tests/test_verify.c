/* test_verify.c - the verifier catches planted bugs, each with the report
 * that names it; the shmemu-verify tool end to end. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* ----------------------------------------------------- planted algorithms */

/* Correct reference point: pull every src, reduce locally. */
static int sum_all(shmemu_team_t team, void *dest, const void *src, size_t count,
                   shmemu_dtype_t dtype, shmemu_op_t op, int skip_last_elem)
{
    int n = shmemu_team_n_pes(team);
    size_t es = shmemu_dtype_size(dtype);
    char *acc = malloc(count * es + 1), *tmp = malloc(count * es + 1);
    shmemu_quiet();
    shmemu_team_sync(team);
    memcpy(acc, src, count * es);
    for (int p = 0; p < n; p++) {
        if (p == shmemu_team_my_pe(team))
            continue;
        shmemu_getmem(tmp, src, count * es, shmemu_team_translate_pe(team, p, SHMEMU_TEAM_WORLD));
        shmemu_reduce_local(dtype, op, acc, acc, tmp, count);
    }
    shmemu_team_sync(team);
    memcpy(dest, acc, (count - (skip_last_elem && count)) * es);
    shmemu_team_sync(team);
    free(acc);
    free(tmp);
    return 0;
}

static int wrong_op(shmemu_team_t team, void *dest, const void *src, size_t count,
                    shmemu_dtype_t dtype, shmemu_op_t op)
{
    (void)op; /* BUG: always max */
    return sum_all(team, dest, src, count, dtype, SHMEMU_MAX, 0);
}

static int off_by_one(shmemu_team_t team, void *dest, const void *src, size_t count,
                      shmemu_dtype_t dtype, shmemu_op_t op)
{
    return sum_all(team, dest, src, count, dtype, op, 1); /* BUG: last element */
}

/* Allgather that writes one element too many into every dest. */
static int past_dest(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype)
{
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    size_t es = shmemu_dtype_size(dtype);
    shmemu_quiet();
    shmemu_team_sync(team);
    for (int p = 0; p < n; p++) {
        int pe = shmemu_team_translate_pe(team, p, SHMEMU_TEAM_WORLD);
        size_t extra = me == n - 1 ? 1 : 0; /* BUG: the last block spills */
        shmemu_putmem((char *)dest + (size_t)me * count * es, src, (count + extra) * es, pe);
    }
    shmemu_quiet();
    shmemu_team_sync(team);
    return 0;
}

/* Broadcast that waits for a signal no PE ever sends. */
static int missing_signal(shmemu_team_t team, void *dest, const void *src, size_t count,
                          shmemu_dtype_t dtype, int root)
{
    uint64_t *ws = shmemu_team_workspace(team);
    uint64_t *flag = &ws[SHMEMU_TEAM_WORKSPACE_BYTES / 16]; /* the user's half */
    size_t es = shmemu_dtype_size(dtype);
    if (shmemu_team_my_pe(team) == root)
        memcpy(dest, src, count * es);
    /* BUG: the root never signals; everyone else waits forever */
    if (shmemu_team_my_pe(team) != root)
        shmemu_signal_wait_until(flag, SHMEMU_CMP_EQ, 1);
    shmemu_team_sync(team);
    return shmemu_last_status();
}

/* Broadcast that ignores root and always sends PE 0's data. */
static int wrong_root(shmemu_team_t team, void *dest, const void *src, size_t count,
                      shmemu_dtype_t dtype, int root)
{
    (void)root;
    return shmemu_broadcast_tree(team, dest, src, count, dtype, 0); /* BUG */
}

/* Allreduce that scribbles on its src. */
static int touches_src(shmemu_team_t team, void *dest, const void *src, size_t count,
                       shmemu_dtype_t dtype, shmemu_op_t op)
{
    int st = shmemu_allreduce_ring(team, dest, src, count, dtype, op);
    if (count && shmemu_team_my_pe(team) == 0)
        memset((void *)(uintptr_t)src, 0, 1); /* BUG */
    return st;
}

/* Allreduce (int64 sum) that leaves out one peer's contribution, or adds
 * its own twice: the report must say which. */
static int sum_but(shmemu_team_t team, int64_t *dest, const int64_t *src, size_t count,
                   int skip, int twice)
{
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    int64_t *tmp = malloc(count * 8 + 8);
    uint64_t *acc = malloc(count * 8 + 8);
    shmemu_quiet();
    shmemu_team_sync(team);
    for (size_t i = 0; i < count; i++)
        acc[i] = (uint64_t)src[i] * (twice && me == 1 ? 2u : 1u);
    for (int p = 0; p < n; p++) {
        if (p == me || p == skip)
            continue;
        shmemu_getmem(tmp, src, count * 8, shmemu_team_translate_pe(team, p, SHMEMU_TEAM_WORLD));
        for (size_t i = 0; i < count; i++)
            acc[i] += (uint64_t)tmp[i];
    }
    shmemu_team_sync(team);
    memcpy(dest, acc, count * 8);
    free(tmp);
    free(acc);
    return 0;
}

static int lacks_pe2(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, shmemu_op_t op)
{
    (void)dtype, (void)op;
    return sum_but(team, dest, src, count, 2, 0); /* BUG: never adds PE 2's */
}

static int pe1_twice(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, shmemu_op_t op)
{
    (void)dtype, (void)op;
    return sum_but(team, dest, src, count, -1, 1); /* BUG: PE 1 counts itself twice */
}

/* Allgather that fetches the block of the wrong PE (its neighbour's). */
static int shifted_gather(shmemu_team_t team, void *dest, const void *src, size_t count,
                          shmemu_dtype_t dtype)
{
    int n = shmemu_team_n_pes(team);
    size_t es = shmemu_dtype_size(dtype);
    shmemu_quiet();
    shmemu_team_sync(team);
    for (int p = 0; p < n; p++) /* BUG: block p from PE p + 1 */
        shmemu_getmem((char *)dest + (size_t)p * count * es, src, count * es,
                      shmemu_team_translate_pe(team, (p + 1) % n, SHMEMU_TEAM_WORLD));
    shmemu_team_sync(team);
    return 0;
}

/* Broadcast whose signal is never reset: right on the first call, stale on
 * the next (the others read before the root has sent). */
static int stale_signal(shmemu_team_t team, void *dest, const void *src, size_t count,
                        shmemu_dtype_t dtype, int root)
{
    uint64_t *flag = (uint64_t *)shmemu_team_workspace(team) + SHMEMU_TEAM_WORKSPACE_BYTES / 16;
    size_t es = shmemu_dtype_size(dtype);
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    if (me == root) {
        memcpy(dest, src, count * es);
        for (int p = 0; p < n; p++)
            if (p != me)
                shmemu_putmem_signal(dest, src, count * es, flag, 1, SHMEMU_SIGNAL_SET,
                                     shmemu_team_translate_pe(team, p, SHMEMU_TEAM_WORLD));
        shmemu_quiet();
    } else {
        shmemu_signal_wait_until(flag, SHMEMU_CMP_EQ, 1); /* BUG: still 1 next time */
    }
    return 0;
}

/* Allreduce (random floats) in which each PE adds in its own order,
 * starting with its own element: every value is within the bound, but the
 * members disagree in the last bits. */
static int own_order(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, shmemu_op_t op)
{
    (void)dtype, (void)op;
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    float *tmp = malloc(count * 4 + 4), *acc = malloc(count * 4 + 4);
    shmemu_quiet();
    shmemu_team_sync(team);
    memcpy(acc, src, count * 4);
    for (int k = 1; k < n; k++) {
        shmemu_getmem(tmp, src, count * 4,
                      shmemu_team_translate_pe(team, (me + k) % n, SHMEMU_TEAM_WORLD));
        for (size_t i = 0; i < count; i++)
            acc[i] += tmp[i];
    }
    shmemu_team_sync(team);
    memcpy(dest, acc, count * 4);
    free(tmp);
    free(acc);
    return 0;
}

/* Allreduce that keeps a slot per peer on the symmetric heap, as many
 * real ones do: its scratch grows with PEs x count. */
static int slot_per_peer(shmemu_team_t team, void *dest, const void *src, size_t count,
                         shmemu_dtype_t dtype, shmemu_op_t op)
{
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    size_t es = shmemu_dtype_size(dtype);
    char *slots = shmemu_malloc((size_t)n * count * es + 1);
    if (!slots)
        return shmemu_last_status();
    for (int p = 0; p < n; p++)
        shmemu_putmem(slots + (size_t)me * count * es, src, count * es,
                      shmemu_team_translate_pe(team, p, SHMEMU_TEAM_WORLD));
    shmemu_barrier_all();
    memcpy(dest, slots, count * es);
    for (int p = 1; p < n; p++)
        shmemu_reduce_local(dtype, op, dest, dest, slots + (size_t)p * count * es, count);
    shmemu_free(slots);
    return 0;
}

/* Broadcast whose PEs poll, with shmemu_uint64_test, a flag nobody sets. */
static int polls_forever(shmemu_team_t team, void *dest, const void *src, size_t count,
                         shmemu_dtype_t dtype, int root)
{
    (void)dest, (void)src, (void)count, (void)dtype, (void)root;
    uint64_t *flag = (uint64_t *)shmemu_team_workspace(team) + SHMEMU_TEAM_WORKSPACE_BYTES / 16;
    while (!shmemu_uint64_test(flag, SHMEMU_CMP_EQ, 7)) /* BUG: nobody sets it */
        ;
    return 0;
}

/* Broadcast that works outside the library for longer than its limit. */
static int too_slow(shmemu_team_t team, void *dest, const void *src, size_t count,
                    shmemu_dtype_t dtype, int root)
{
    struct timespec t = {1, 200000000};
    nanosleep(&t, NULL);
    return shmemu_broadcast_tree(team, dest, src, count, dtype, root);
}

/* An allreduce written for int64 sums only, as GPU kernels are written for
 * some cases only: it declines the rest, on every PE. */
static int int64_sums_only(shmemu_team_t team, void *dest, const void *src, size_t count,
                           shmemu_dtype_t dtype, shmemu_op_t op)
{
    if (dtype != SHMEMU_INT64 || op != SHMEMU_SUM)
        return SHMEMU_ENOTSUP;
    return shmemu_allreduce_ring(team, dest, src, count, dtype, op);
}

/* Declines on world PE 1 alone (BUG): the others wait for it in the ring. */
static int pe1_declines(shmemu_team_t team, void *dest, const void *src, size_t count,
                        shmemu_dtype_t dtype, shmemu_op_t op)
{
    if (shmemu_my_pe() == 1)
        return SHMEMU_ENOTSUP;
    return shmemu_allreduce_ring(team, dest, src, count, dtype, op);
}

/* ------------------------------------------------------------------ cases */

static shmemu_verify_result judge(shmemu_coll_t coll, void (*fn)(void), int npes, size_t count,
                                  shmemu_dtype_t dtype, int root)
{
    shmemu_verify_case vc = {.coll = coll, .algo = "planted", .fn = fn, .npes = npes,
                             .count = count, .dtype = dtype, .op = SHMEMU_SUM, .root = root,
                             .seed = 5};
    shmemu_verify_result r;
    th_capture_start(); /* the library's own report goes to stderr */
    int st = shmemu_verify_run(&vc, &r);
    free(th_capture_stop());
    assert_int_equal(st, SHMEMU_OK);
    return r;
}

#define FN(f) ((void (*)(void))(f))

static void test_wrong_op(void **state)
{
    (void)state;
    shmemu_verify_result r = judge(SHMEMU_COLL_ALLREDUCE, FN(wrong_op), 3, 7, SHMEMU_INT32, 0);
    assert_false(r.passed);
    assert_non_null(strstr(r.reason, "wrong result: dest["));
    assert_true(r.pe >= 0);
    assert_string_not_equal(r.expected, r.got);
}

static void test_off_by_one(void **state)
{
    (void)state;
    shmemu_verify_result r = judge(SHMEMU_COLL_ALLREDUCE, FN(off_by_one), 4, 17, SHMEMU_DOUBLE, 0);
    assert_false(r.passed);
    assert_int_equal(r.index, 16);
    assert_string_equal(r.got, "(never written)");
}

static void test_past_dest(void **state)
{
    (void)state;
    shmemu_verify_result r = judge(SHMEMU_COLL_ALLGATHER, FN(past_dest), 3, 5, SHMEMU_INT16, 0);
    assert_false(r.passed);
    assert_non_null(strstr(r.reason, "wrote dest past the end of its buffer"));
}

static void test_deadlock(void **state)
{
    (void)state;
    shmemu_verify_result r = judge(SHMEMU_COLL_BROADCAST, FN(missing_signal), 3, 4,
                                   SHMEMU_UINT8, 1);
    assert_false(r.passed);
    assert_int_equal(r.status, SHMEMU_EDEADLOCK);
    assert_non_null(strstr(r.reason, "deadlock"));
}

static void test_wrong_root(void **state)
{
    (void)state;
    shmemu_verify_result ok = judge(SHMEMU_COLL_BROADCAST, FN(wrong_root), 4, 9, SHMEMU_FLOAT, 0);
    assert_true(ok.passed); /* root 0: the bug does not show */
    shmemu_verify_result r = judge(SHMEMU_COLL_BROADCAST, FN(wrong_root), 4, 9, SHMEMU_FLOAT, 2);
    assert_false(r.passed);
    assert_non_null(strstr(r.reason, "wrong result"));
}

static void test_src_changed(void **state)
{
    (void)state;
    shmemu_verify_result r = judge(SHMEMU_COLL_ALLREDUCE, FN(touches_src), 2, 8, SHMEMU_INT64, 0);
    assert_false(r.passed);
    assert_non_null(strstr(r.reason, "PE 0: src["));
}

static shmemu_verify_result judge_case(shmemu_verify_case *vc)
{
    shmemu_verify_result r;
    vc->algo = "planted";
    th_capture_start();
    int st = shmemu_verify_run(vc, &r);
    free(th_capture_stop());
    assert_int_equal(st, SHMEMU_OK);
    return r;
}

/* A wrong element explains itself: whose element it is, or which
 * contribution a sum lacks or has twice. */
static void test_provenance(void **state)
{
    (void)state;
    shmemu_verify_result r = judge(SHMEMU_COLL_ALLREDUCE, FN(lacks_pe2), 4, 9, SHMEMU_INT64, 0);
    assert_false(r.passed);
    assert_non_null(strstr(r.reason, "wrong result: dest[0] on PE 0 lacks PE 2's contribution"));
    r = judge(SHMEMU_COLL_ALLREDUCE, FN(pe1_twice), 3, 5, SHMEMU_INT64, 0);
    assert_false(r.passed);
    assert_non_null(strstr(r.reason, "dest[0] on PE 1 has PE 1's contribution twice"));
    r = judge(SHMEMU_COLL_ALLGATHER, FN(shifted_gather), 3, 4, SHMEMU_INT32, 0);
    assert_false(r.passed);
    assert_non_null(strstr(r.reason, "wrong result: dest[0] on PE 0 holds PE 1's element 0 "
                                     "(expected PE 0's element 0)"));
}

/* A case run again (--fuzz N and --explore N run one case N times) takes
 * its inputs and reference from its first run: the verdicts stay those of
 * a first run, whatever algorithm runs the case, and a case with other
 * values in between brings its own.  On local (PE threads) and shm
 * (forked PEs, which make the values the parent keeps). */
static void test_values_kept(void **state)
{
    (void)state;
    static const char *const tps[] = {"local", "shm"};
    for (size_t t = 0; t < sizeof(tps) / sizeof(tps[0]); t++) {
        char why[256];
        if (!th_transport_usable(tps[t], why, sizeof(why)))
            continue;
        for (int round = 0; round < 2; round++) {
            static const struct {
                shmemu_coll_t coll;
                void (*fn)(void);
                int npes;
                size_t count;
                shmemu_dtype_t dtype;
                const char *verdict; /* NULL: passes */
            } seq[] = {
                {SHMEMU_COLL_ALLREDUCE, FN(lacks_pe2), 4, 9, SHMEMU_INT64,
                 "wrong result: dest[0] on PE 0 lacks PE 2's contribution"},
                {SHMEMU_COLL_ALLREDUCE, FN(shmemu_allreduce_ring), 4, 9, SHMEMU_INT64, NULL},
                {SHMEMU_COLL_ALLREDUCE, FN(lacks_pe2), 4, 9, SHMEMU_INT64,
                 "wrong result: dest[0] on PE 0 lacks PE 2's contribution"},
                {SHMEMU_COLL_ALLGATHER, FN(shifted_gather), 3, 4, SHMEMU_INT32,
                 "wrong result: dest[0] on PE 0 holds PE 1's element 0 (expected PE 0's "
                 "element 0)"},
                {SHMEMU_COLL_ALLGATHER, FN(shmemu_allgather_ring), 3, 4, SHMEMU_INT32, NULL},
                {SHMEMU_COLL_ALLGATHER, FN(shifted_gather), 3, 4, SHMEMU_INT32,
                 "wrong result: dest[0] on PE 0 holds PE 1's element 0 (expected PE 0's "
                 "element 0)"},
                /* other values, then the first case's again */
                {SHMEMU_COLL_ALLREDUCE, FN(shmemu_allreduce_ring), 3, 9, SHMEMU_INT64, NULL},
                {SHMEMU_COLL_ALLREDUCE, FN(lacks_pe2), 4, 9, SHMEMU_INT64,
                 "wrong result: dest[0] on PE 0 lacks PE 2's contribution"},
            };
            for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
                shmemu_verify_case vc = {.coll = seq[i].coll, .fn = seq[i].fn,
                                         .npes = seq[i].npes, .count = seq[i].count,
                                         .dtype = seq[i].dtype, .op = SHMEMU_SUM, .seed = 5,
                                         .transport = tps[t]};
                shmemu_verify_result r = judge_case(&vc);
                if (seq[i].verdict ? r.passed || !strstr(r.reason, seq[i].verdict) : !r.passed)
                    fail_msg("%s, round %d, step %zu: '%s', wanted '%s'", tps[t], round, i,
                             r.passed ? "passed" : r.reason,
                             seq[i].verdict ? seq[i].verdict : "passed");
            }
        }
    }
}

/* State carried from one call to the next shows on the second call.  How
 * it shows depends on the interleaving: on threads it is caught (below,
 * any verdict), and under sim's scheduler, where a schedule fixes the
 * interleaving, each schedule gives its exact verdict, every time. */
static void test_repeated_calls(void **state)
{
    (void)state;
    shmemu_verify_result r = judge(SHMEMU_COLL_BROADCAST, FN(stale_signal), 3, 2000,
                                   SHMEMU_INT32, 0);
    if (r.passed)
        fail_msg("a broadcast whose signal is never reset passed");
}

static void test_repeated_calls_sim(void **state)
{
    (void)state;
    char why[256];
    if (!th_transport_usable("sim", why, sizeof(why)))
        th_skip("the sim transport cannot run here: %s", why);
    static const struct {
        const char *sim, *verdict;
    } want[] = {
        /* the second call's data lands after PE 1 returned on the stale signal */
        {"rr,seed:1", "PE 1: dest[0] changed after the collective returned there (call 2 of 3: "
                      "back to back, same buffers) (operations still in flight: shmemu_quiet() "
                      "before the last sync?)"},
        /* the root's next call overwrote PE 1's dest before this one returned */
        {"pct:2,seed:2", "wrong result: dest[0] on PE 1 holds PE 0's element 0 of the next "
                         "call (written before this one returned here) (expected PE 0's "
                         "element 0)"},
        {"random,seed:4", "PE 1: dest[0] changed after the collective returned there (call 3 "
                          "of 3: other buffers) (operations still in flight: shmemu_quiet() "
                          "before the last sync?)"},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        for (int again = 0; again < 2; again++) {
            setenv("SHMEMU_SIM", want[i].sim, 1);
            shmemu_verify_case vc = {.coll = SHMEMU_COLL_BROADCAST, .fn = FN(stale_signal),
                                     .npes = 3, .count = 2000, .dtype = SHMEMU_INT32,
                                     .transport = "sim", .seed = 1};
            shmemu_verify_result r = judge_case(&vc);
            unsetenv("SHMEMU_SIM");
            if (r.passed || strcmp(r.reason, want[i].verdict))
                fail_msg("SHMEMU_SIM=%s (run %d): '%s', wanted '%s'", want[i].sim, again + 1,
                         r.passed ? "passed" : r.reason, want[i].verdict);
        }
}

/* Members that disagree in the last bits fail, even within the bound. */
static void test_members_agree(void **state)
{
    (void)state;
    shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE, .fn = FN(own_order), .npes = 5,
                             .count = 200, .dtype = SHMEMU_FLOAT, .op = SHMEMU_SUM, .seed = 3,
                             .inputs = SHMEMU_VERIFY_RANDOM};
    shmemu_verify_result r = judge_case(&vc);
    assert_false(r.passed);
    assert_non_null(strstr(r.reason, "members disagree: dest["));
    assert_non_null(strstr(r.reason, "every member must get the same bits"));
    /* the built-ins agree, special values (NaN, inf, -0, subnormals) included */
    for (int k = 0; k < 5; k++) {
        const char *name;
        void (*fn)(void);
        assert_int_equal(shmemu_verify_builtin(SHMEMU_COLL_ALLREDUCE, k, &name, &fn), 0);
        for (int op = SHMEMU_SUM; op <= SHMEMU_MAX; op++) {
            shmemu_verify_case b = {.coll = SHMEMU_COLL_ALLREDUCE, .fn = fn, .npes = 6,
                                    .count = 333, .dtype = SHMEMU_FLOAT, .op = (shmemu_op_t)op,
                                    .seed = 9, .inputs = SHMEMU_VERIFY_RANDOM};
            r = judge_case(&b);
            if (!r.passed)
                fail_msg("allreduce %s, %s: %s", name, shmemu_op_name((shmemu_op_t)op),
                         r.reason);
        }
    }
}

/* The heap fits an algorithm whose scratch grows with PEs x count; one
 * too small for it is reported as such, not as a wrong answer. */
static void test_heap_per_case(void **state)
{
    (void)state;
    shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE, .fn = FN(slot_per_peer), .npes = 4,
                             .count = (size_t)1 << 20, .dtype = SHMEMU_INT32, .op = SHMEMU_SUM,
                             .seed = 2};
    shmemu_verify_result r = judge_case(&vc);
    if (!r.passed)
        fail_msg("a slot per peer at 1 Mi elements: %s", r.reason);
    vc.heap_size = (size_t)40 << 20;
    r = judge_case(&vc);
    assert_false(r.passed);
    assert_non_null(strstr(r.reason, "heap too small for this case"));
}

/* A PE that polls for what never comes ends the case (no hang); one that
 * runs past the case's limit is reported as timed out. */
static void test_polling_and_time(void **state)
{
    (void)state;
    setenv("SHMEMU_LIVELOCK", "1", 1);
    shmemu_verify_case vc = {.coll = SHMEMU_COLL_BROADCAST, .fn = FN(polls_forever), .npes = 3,
                             .count = 4, .dtype = SHMEMU_INT8, .seed = 1};
    for (int t = 0; t < th_transport_count(); t++) {
        vc.transport = th_transport(t);
        shmemu_verify_result r = judge_case(&vc);
        assert_false(r.passed);
        assert_int_equal(r.status, SHMEMU_EDEADLOCK);
    }
    unsetenv("SHMEMU_LIVELOCK");
    shmemu_verify_case slow = {.coll = SHMEMU_COLL_BROADCAST, .fn = FN(too_slow), .npes = 2,
                               .count = 4, .dtype = SHMEMU_INT8, .seed = 1, .timeout = 0.5};
    shmemu_verify_result r = judge_case(&slow);
    assert_false(r.passed);
    assert_int_equal(r.status, SHMEMU_ETIMEDOUT);
    assert_non_null(strstr(r.reason, "timed out after"));
}

static void test_invalid_case(void **state)
{
    (void)state;
    shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLGATHER, .fn = FN(past_dest), .npes = 2,
                             .count = 1, .dtype = SHMEMU_INT8, .in_place = 1};
    shmemu_verify_result r;
    assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_EINVAL); /* in place allgather */
    vc.in_place = 0;
    vc.coll = SHMEMU_COLL_ALLREDUCE;
    vc.dtype = SHMEMU_FLOAT;
    vc.op = SHMEMU_BAND;
    assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_EINVAL);
}

/* ------------------------------------------------------------- the tool */


/* cmd's output (stderr too) into out; its exit status, -1 if none. */
static int run_shell(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    size_t got = p ? fread(out, 1, len - 1, p) : 0;
    out[got] = '\0';
    int st = p ? pclose(p) : -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run_tool(const char *args, char *out, size_t len)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "cd %s/.. && %s/shmemu-verify %s 2>&1", th_build_dir(),
             th_build_dir(), args);
    return run_shell(cmd, out, len);
}

/* The tool as the npes PEs of one shmemu-run job on shm. */
static int run_tool_in_job(int npes, const char *args, char *out, size_t len)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "cd %s/.. && %s/shmemu-run -n %d -t shm -- %s/shmemu-verify %s 2>&1",
             th_build_dir(), th_build_dir(), npes, th_build_dir(), args);
    return run_shell(cmd, out, len);
}

static void test_tool(void **state)
{
    (void)state;
    th_skip_under_mpirun("it runs the tools on local and shm as the forked runs do, and "
                         "the copies in every process would share their files");
    static char out[1 << 20];
    char args[4096];
    snprintf(args, sizeof(args), "--lib %s/examples/libmy_allreduce.so --symbol my_allreduce "
                                 "--collective allreduce --quick",
             th_build_dir());
    assert_int_equal(run_tool(args, out, sizeof(out)), 0);
    assert_non_null(strstr(out, " passed, 0 failed\n"));

    snprintf(args, sizeof(args), "--lib %s/examples/libmy_allreduce_buggy.so --symbol "
                                 "my_allreduce_buggy --collective allreduce --quick --json %s/v.json",
             th_build_dir(), th_build_dir());
    assert_int_equal(run_tool(args, out, sizeof(out)), 1);
    assert_non_null(strstr(out, "first failure: wrong result"));
    assert_non_null(strstr(out, "first difference: PE "));
    char *repro = strstr(out, "reproduce: shmemu-verify --lib ");
    assert_non_null(repro);
    /* the reproducer reproduces */
    char line[4096];
    snprintf(line, sizeof(line), "%s", repro + strlen("reproduce: shmemu-verify "));
    line[strcspn(line, "\n")] = '\0';
    assert_int_equal(run_tool(line, out, sizeof(out)), 1);
    assert_non_null(strstr(out, "0 passed, 1 failed"));
    char json[PATH_MAX];
    snprintf(json, sizeof(json), "%s/v.json", th_build_dir());
    FILE *f = fopen(json, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    fclose(f);
    unlink(json);
    assert_non_null(strstr(out, "\"failed\": "));
    assert_non_null(strstr(out, "\"reason\": \"wrong result"));

    assert_int_equal(run_tool("--collective allgather --algo bruck --npes 5 --count 3 --dtype "
                              "int16 --team strided",
                              out, sizeof(out)),
                     0);
    assert_non_null(strstr(out, "allgather      bruck"));
    assert_int_equal(run_tool("--collective nope", out, sizeof(out)), 2);
    assert_non_null(strstr(out, "unknown collective 'nope'"));
    assert_int_equal(run_tool("--dtype float128", out, sizeof(out)), 2);
}

/* A user's library keeps state as GPU collectives do, in statics (a
 * handle made on the first call, a call count): on local and sim, whose
 * PEs share a process, each PE gets a copy of the library and each run a
 * process of its own, so it passes there as on shm; a PE that crashes, or
 * spins where only ending the process stops it, fails its case alone,
 * named, and the verifier goes on (tools/verify-isolate.h). */
static void test_tool_own_statics(void **state)
{
    (void)state;
    th_skip_under_mpirun("it runs the tools on local and shm as the forked runs do, and "
                         "the copies in every process would share their files");
#ifdef TH_TSAN
    th_skip("the library's barriers are volatile flags between PE threads, data races to "
            "ThreadSanitizer by definition (a GPU idiom, not C11's)");
#endif
    static char out[1 << 20];
    char args[4096];
    const char *lib = "--collective allreduce --dtype float --op sum --in-place no --team world";
    snprintf(args, sizeof(args),
             "--lib %s/tests/libhandle_allreduce.so --symbol handle_allreduce %s --npes 1,2,3,5 "
             "--count 0,1,7,1000 --transport local,shm,sim --thorough",
             th_build_dir(), lib);
    int st = run_tool(args, out, sizeof(out));
    if (st != 0 || !strstr(out, "\n48 passed, 0 failed\n"))
        fail_msg("a library with statics, status %d:\n%s", st, out);

    snprintf(args, sizeof(args),
             "--lib %s/tests/libhandle_allreduce.so --symbol handle_allreduce_crash %s --npes 2 "
             "--count 7,8 --transport local,sim",
             th_build_dir(), lib);
    st = run_tool(args, out, sizeof(out));
    if (st != 1 || !strstr(out, "\n2 passed, 2 failed\n"))
        fail_msg("a crashing PE, status %d:\n%s", st, out);
    const char *crash = "shmemu-verify: PE 1/2 crashed: signal 11 (Segmentation fault) at address "
                        "(nil), at ";
    const char *c1 = strstr(out, crash), *c2 = c1 ? strstr(c1 + 1, crash) : NULL;
    const char *at = c2 ? strstr(c2, "/tests/libhandle_allreduce.so+0x") : NULL;
    if (!c1 || !at || strcspn(c2, "\n") < (size_t)(at - c2) || !strstr(at, ", this PE's copy\n"))
        fail_msg("the crash lines (local, sim):\n%s", out);
    assert_non_null(strstr(out, "FAILED 1 of 2: allreduce handle_allreduce_crash on local, 2 PEs, "
                                "count 7, float sum\n  first failure: the case's process was "
                                "killed by signal 11 (Segmentation fault): a PE crashed"));
    assert_non_null(strstr(out, "FAILED 2 of 2: allreduce handle_allreduce_crash on sim, 2 PEs, "
                                "count 7, float sum\n  the case's process was killed by "
                                "signal 11"));

    /* sim's watchdog and local's end of a job whose PE spins outside the
     * library end the process: the case fails, the next runs */
    snprintf(args, sizeof(args),
             "--lib %s/tests/libhandle_allreduce.so --symbol handle_allreduce_spin %s --npes 2 "
             "--count 7,8 --transport local,sim --timeout 1",
             th_build_dir(), lib);
    setenv("SHMEMU_SIM", "watchdog:1", 1);
    st = run_tool(args, out, sizeof(out));
    unsetenv("SHMEMU_SIM");
    if (st != 1 || !strstr(out, "\n2 passed, 2 failed\n") ||
        !strstr(out, "FAILED 1 of 2: allreduce handle_allreduce_spin on local, 2 PEs, count 7, "
                     "float sum\n  first failure: the case's process ended with status 124") ||
        !strstr(out, "FAILED 2 of 2: allreduce handle_allreduce_spin on sim, 2 PEs, count 7, "
                     "float sum\n  the case's process ended with status 124") ||
        !strstr(out, "PE 1/2 has run for 1.0 s without calling shmemu"))
        fail_msg("a spinning PE, status %d:\n%s", st, out);
}

/* Started by a launcher, the verifier runs every case inside that one job
 * (the job's PE count and transport) and gives the verdicts a launch per
 * case gives: here under shmemu-run on shm, 3 PEs (tests/test_ucx.c runs it
 * under mpirun). */
static void test_tool_in_job(void **state)
{
    (void)state;
    th_skip_under_mpirun("it runs the tools on local and shm as the forked runs do, and "
                         "the copies in every process would share their files");
    static char out[1 << 20], alone[1 << 20];
    char args[4096];
    snprintf(args, sizeof(args),
             "--lib %s/examples/libmy_allreduce_buggy.so --symbol my_allreduce_buggy "
             "--collective allreduce --quick",
             th_build_dir());
    assert_int_equal(run_tool_in_job(3, args, out, sizeof(out)), 1);
    if (!strstr(out, "inside a job of 3 PEs on shm"))
        fail_msg("no in-job header:\n%s", out);
    /* the same cases, launched one job each, fail the same way */
    char more[4200];
    snprintf(more, sizeof(more), "%s --npes 3 --transport shm", args);
    assert_int_equal(run_tool(more, alone, sizeof(alone)), 1);
    const char *a = strstr(out, "\n# collective"), *b = strstr(alone, "\n# collective");
    assert_non_null(a);
    assert_non_null(b);
    /* the first failure's line, and the counts */
    const char *fa = strstr(a, "first failure: "), *fb = strstr(b, "first failure: ");
    assert_non_null(fa);
    assert_non_null(fb);
    assert_memory_equal(fa, fb, strcspn(fb, "\n"));
    const char *ca = strstr(out, " passed, "), *cb = strstr(alone, " passed, ");
    assert_non_null(ca);
    assert_non_null(cb);
    while (ca > out && ca[-1] != '\n')
        ca--;
    while (cb > alone && cb[-1] != '\n')
        cb--;
    assert_memory_equal(ca, cb, strcspn(cb, "\n"));
    /* cases an algorithm declines on every PE are counted as in a launch per case */
    snprintf(args, sizeof(args),
             "--lib %s/tests/libvectors.so --symbol vec_oneshot --collective allreduce --quick",
             th_build_dir());
    int st = run_tool_in_job(3, args, out, sizeof(out));
    int passed = 0, failed = -1, declined = 0;
    const char *line = strstr(out, " declined\n");
    while (line && line > out && line[-1] != '\n')
        line--;
    if (st != 0 || !line ||
        sscanf(line, "%d passed, %d failed, %d declined", &passed, &failed, &declined) != 3 ||
        passed < 1 || failed || declined < 1)
        fail_msg("a kernel that declines cases, in one job: status %d\n%s", st, out);
    /* and the built-ins pass */
    st = run_tool_in_job(3, "--quick --collective broadcast", out, sizeof(out));
    if (st != 0 || !strstr(out, " passed, 0 failed\n"))
        fail_msg("built-in broadcasts in one job: status %d\n%s", st, out);
    /* the checker and schedules are the job's */
    assert_true(run_tool_in_job(2, "--quick --fuzz 2", out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "inside a launcher's job the checker is the job's"));
}

/* SHMEMU_ENOTSUP from the first call on every PE of the team declines the
 * case: neither passed nor failed, on every transport, at 1, 3 and 4 PEs
 * and on a strided team; the cases it takes pass.  Declined on one PE
 * only is a failure that says so (the others waited for that PE). */
static void test_declined(void **state)
{
    (void)state;
    for (int t = 0; t < th_transport_count(); t++) {
        const char *tp = th_transport(t);
        static const int npes[] = {1, 3, 4};
        for (size_t i = 0; i < sizeof(npes) / sizeof(npes[0]); i++)
            for (int team = SHMEMU_VERIFY_WORLD; team <= SHMEMU_VERIFY_STRIDED; team++)
                for (int take = 0; take <= 1; take++) {
                    shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE,
                                             .fn = FN(int64_sums_only), .transport = tp,
                                             .npes = npes[i], .count = 9, .team = team,
                                             .dtype = take ? SHMEMU_INT64 : SHMEMU_INT32,
                                             .op = SHMEMU_SUM, .seed = 3};
                    shmemu_verify_result r = judge_case(&vc);
                    if (take ? !r.passed || r.declined
                             : r.passed || !r.declined || r.status ||
                                   strcmp(r.reason, "declined: the algorithm returned "
                                                    "SHMEMU_ENOTSUP from its first call on "
                                                    "every PE of the team (it does not take "
                                                    "this case)"))
                        fail_msg("%s, %d PEs, team %d, %s: passed %d, declined %d, status %d: "
                                 "%s",
                                 tp, npes[i], team, take ? "int64" : "int32", r.passed,
                                 r.declined, r.status, r.reason);
                }
        shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE, .fn = FN(pe1_declines),
                                 .transport = tp, .npes = 3, .count = 9,
                                 .dtype = SHMEMU_INT64, .op = SHMEMU_SUM, .seed = 3};
        shmemu_verify_result r = judge_case(&vc);
        if (r.passed || r.declined ||
            !strstr(r.reason, "1 of the team's 3 PEs declined the case (SHMEMU_ENOTSUP from "
                              "their first call) and the others ran it: an algorithm declines "
                              "a case on every PE of the team or on none"))
            fail_msg("%s, declined by PE 1 alone: passed %d, declined %d, status %d: %s", tp,
                     r.passed, r.declined, r.status, r.reason);
    }
}

/* A user's plugin built the usual way against an installed shmemu loads in
 * the installed verifier, and shares its one copy of the library. */
static void test_installed_plugin(void **state)
{
    (void)state;
    th_skip_under_mpirun("it runs the tools on local and shm as the forked runs do, and "
                         "the copies in every process would share their files");
    static char out[1 << 16];
    char dir[] = "/tmp/shmemu-install-XXXXXX", cmd[8192];
    assert_non_null(mkdtemp(dir));
    const char *b = th_build_dir();
    /* BUILD names this build (build, build-asan...), relative to the tree */
    snprintf(cmd, sizeof(cmd),
             "cd %s/.. && make -s install PREFIX=%s BUILD=%s >%s/log 2>&1 && "
             "PKG_CONFIG_PATH=%s/lib/pkgconfig cc -shared -fPIC -o %s/libmine.so "
             "examples/my_allreduce.c $(PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config "
             "--cflags --libs shmemu) >>%s/log 2>&1",
             b, dir, strrchr(b, '/') + 1, dir, dir, dir, dir, dir);
    int rc = system(cmd);
    if (rc != 0) {
        snprintf(cmd, sizeof(cmd), "cat %s/log", dir);
        (void)system(cmd);
    }
    assert_int_equal(rc, 0);
    snprintf(cmd, sizeof(cmd),
             "cd / && env -u LD_LIBRARY_PATH LD_DEBUG=libs %s/bin/shmemu-verify --lib "
             "%s/libmine.so --symbol my_allreduce --collective allreduce --quick --npes 3 "
             "2>&1",
             dir, dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    /* Read it all (the loader says much: each PE's copy of the library
     * in each case's process, tools/verify-isolate.h), counting the
     * initialisations of libshmemu and keeping the verdict line. */
    int inits = 0;
    char *line = NULL;
    size_t cap = 0;
    out[0] = '\0';
    while (getline(&line, &cap, p) > 0) {
        const char *q = strstr(line, "calling init: ");
        if (q && strstr(q, "libshmemu"))
            inits++;
        if (strstr(line, " passed, "))
            snprintf(out, sizeof(out), "%s", line);
    }
    free(line);
    int st = pclose(p);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_non_null(strstr(out, " passed, 0 failed\n"));
    /* one copy: the loader initialised exactly one libshmemu */
    assert_int_equal(inits, 1);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrong_op),   cmocka_unit_test(test_off_by_one),
        cmocka_unit_test(test_past_dest),  cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_wrong_root), cmocka_unit_test(test_src_changed),
        cmocka_unit_test(test_invalid_case), cmocka_unit_test(test_tool), cmocka_unit_test(test_tool_in_job),
        cmocka_unit_test(test_installed_plugin), cmocka_unit_test(test_provenance),
        cmocka_unit_test(test_repeated_calls), cmocka_unit_test(test_values_kept),
        cmocka_unit_test(test_tool_own_statics), cmocka_unit_test(test_declined),
        cmocka_unit_test(test_repeated_calls_sim), cmocka_unit_test(test_members_agree),
        cmocka_unit_test(test_heap_per_case), cmocka_unit_test(test_polling_and_time),
    };
    return cmocka_run_group_tests_name("verify", tests, NULL, NULL);
}
