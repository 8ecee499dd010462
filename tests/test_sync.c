/* test_sync.c - barriers: reuse without spurious passing, many PEs on few
 * cores, and PEs that leave while others wait. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

struct stress {
    long rounds;
    int use_sync_all; /* sync_all + quiet instead of barrier_all */
};

/* Round i: every PE writes i into slot i%2 of its right neighbour, passes a
 * barrier, and checks that its left neighbour's write of i is there.  A
 * barrier that let a PE through early shows up as i-2 (or 0).  Two slots
 * suffice: the left neighbour cannot reach round i+2 before we pass i+1. */
static int body_stress(void *arg)
{
    const struct stress *s = arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *slot = shmemu_calloc(2, sizeof(long));
    PE_CHECK(slot != NULL);
    int right = (me + 1) % np;
    for (long i = 1; i <= s->rounds; i++) {
        PE_CHECK_OK(shmemu_long_p(&slot[i % 2], i, right));
        if (s->use_sync_all) {
            PE_CHECK_OK(shmemu_quiet());
            PE_CHECK_OK(shmemu_sync_all());
        } else {
            PE_CHECK_OK(shmemu_barrier_all());
        }
        long got = __atomic_load_n(&slot[i % 2], __ATOMIC_ACQUIRE);
        if (got != i)
            th_pe_fail(__FILE__, __LINE__, "round %ld: slot holds %ld", i, got);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(slot);
    return 0;
}

static void test_barrier_stress(void **state)
{
    (void)state;
    struct stress s = {th_iters(1000000, 100), 0};
    th_run(body_stress, &s, TH_NPES(2), 0);
    s.rounds = th_iters(100000, 100);
    th_run(body_stress, &s, TH_NPES(3, 4, 7, 8), 0);
    s.rounds = th_iters(10000, 100);
    th_run(body_stress, &s, TH_NPES(16), 0);
    s.use_sync_all = 1;
    s.rounds = th_iters(20000, 100);
    th_run(body_stress, &s, TH_NPES(2, 5), 0);
}

/* Many PEs on two cores: they must sleep, not spin, or this takes ages. */
static void test_many_pes(void **state)
{
    (void)state;
    struct stress s = {th_iters(2000, 20), 0};
    th_run(body_stress, &s, TH_NPES(64), (size_t)2 << 20);
    s.rounds = th_iters(300, 30);
    th_run(body_stress, &s, TH_NPES(128), (size_t)2 << 20);
}

/* PE 0 leaves at once; the others wait for it in a barrier and must be
 * released with SHMEMU_EABORTED, not hang. */
static int body_leave(void *arg)
{
    int *mode = arg;
    shmemu_set_error_mode(*mode);
    if (shmemu_my_pe() == 0)
        return 0;
    int st = shmemu_barrier_all();
    PE_CHECK_EQ(st, SHMEMU_EABORTED); /* RETURN mode only gets here */
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EABORTED);
    /* the job stays aborted: later calls fail at once */
    PE_CHECK_EQ(shmemu_sync_all(), SHMEMU_EABORTED);
    return 0;
}

static void test_departed_releases(void **state)
{
    (void)state;
    int modes[] = {SHMEMU_ERRORS_RETURN, SHMEMU_ERRORS_ABORT};
    for (int t = 0; t < th_transport_count(); t++) {
        for (int m = 0; m < 2; m++) {
            for (int npes = 2; npes <= 5; npes += 3) {
                th_capture_start();
                int rc = th_launch(th_transport(t), npes, 0, body_leave, &modes[m]);
                char *err = th_capture_stop();
                assert_int_equal(rc, SHMEMU_EABORTED);
                assert_null(strstr(err, "FAIL"));
                /* Either a waiter notices first ("PE 0 left the job while this
                 * PE waits for it"), or PE 0's departure finds every other PE
                 * asleep and reports them all: which, the machine decides
                 * here; test_departed_exact pins each under sim. */
                assert_true(strstr(err, "PE 0 left the job while this PE waits for it") ||
                            (strstr(err, "PE 0/") && strstr(err, "left the job (finalized")));
                assert_non_null(strstr(err, "shmemu_barrier_all"));
                /* ucx (UCX_LOG_FILE=stderr, as make test-ucx sets it): UCX's
                 * own lines about the peer that left are dropped */
                if (strstr(err, "mm ep failed to connect") || strstr(err, "shmat(shmid="))
                    fail_msg("UCX's noise about an ended peer:\n%s", err);
                free(err);
            }
        }
    }
}

/* Which of the two reports comes depends on the interleaving: on threads
 * and processes either may (above); under sim's scheduler a schedule fixes
 * it, and each gives its report exactly, in both error modes. */
static void test_departed_exact(void **state)
{
    (void)state;
    char why[256];
    if (!th_transport_usable("sim", why, sizeof(why)))
        th_skip("the sim transport cannot run here: %s", why);
    static const struct {
        const char *sim, *first, *also;
    } want[] = {
        /* PE 1 runs first after PE 0 left: it notices */
        {"rr,seed:1",
         "shmemu: PE 1/5 shmemu_barrier_all: PE 0 left the job while this PE waits for it "
         "(team slot 0)\n",
         NULL},
        /* PE 0 leaves after the others fell asleep: the departure reports them all */
        {"random,seed:3",
         "shmemu: job aborted: 1 of 5 PEs left the job and every PE still in it waits for "
         "something only they could do:\n",
         "shmemu:   PE 0/5 left the job (finalized or returned 0 from pe_main)\n"
         "shmemu:   PE 1/5 in shmemu_barrier_all (team slot 0 of 5 PEs: 4 arrived"},
    };
    int modes[] = {SHMEMU_ERRORS_RETURN, SHMEMU_ERRORS_ABORT};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        for (int m = 0; m < 2; m++) {
            setenv("SHMEMU_SIM", want[i].sim, 1);
            th_capture_start();
            int rc = th_launch("sim", 5, 0, body_leave, &modes[m]);
            char *err = th_capture_stop();
            unsetenv("SHMEMU_SIM");
            if (rc != SHMEMU_EABORTED || strncmp(err, want[i].first, strlen(want[i].first)) ||
                (want[i].also && !strstr(err, want[i].also)))
                fail_msg("SHMEMU_SIM=%s, mode %d: rc %d, report:\n%s", want[i].sim, m, rc, err);
            free(err);
        }
}

/* A PE that returns nonzero fails the job with that value, and releases the
 * PEs waiting for it. */
static int body_fail_return(void *arg)
{
    (void)arg;
    if (shmemu_my_pe() == 2)
        return 7;
    shmemu_barrier_all(); /* ABORT mode: PE stops here */
    th_pe_fail(__FILE__, __LINE__, "barrier returned without PE 2");
}

static void test_nonzero_return(void **state)
{
    (void)state;
    for (int t = 0; t < th_transport_count(); t++) {
        th_capture_start();
        int rc = th_launch(th_transport(t), 4, 0, body_fail_return, NULL);
        char *err = th_capture_stop();
        assert_int_equal(rc, 7);
        assert_null(strstr(err, "FAIL"));
        free(err);
    }
}

/* Barriers with everyone arriving in a different order each round. */
static int body_skew(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    int *arrivals = shmemu_calloc(1, sizeof(int));
    for (int round = 0; round < 50; round++) {
        /* the PE whose turn it is dawdles, so it arrives last */
        if (round % np == me)
            for (volatile int spin = 0; spin < 20000; spin++)
                ;
        PE_CHECK_OK(shmemu_int_p(arrivals, round + 1, me));
        PE_CHECK_OK(shmemu_barrier_all());
        for (int p = 0; p < np; p++)
            PE_CHECK_EQ(shmemu_int_g(arrivals, p), round + 1);
        PE_CHECK_OK(shmemu_barrier_all());
    }
    shmemu_free(arrivals);
    return 0;
}

static void test_skew(void **state)
{
    (void)state;
    th_run(body_skew, NULL, TH_NPES_ALL, 0);
}

/* Contexts: puts on two contexts, each completed by its own quiet, land
 * with exact values (plain and under the checker, which completes each
 * context apart); selecting, quieting or fencing an unknown context, or
 * creating into NULL, is refused with SHMEMU_EINVAL. */
static int body_contexts(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    int right = (me + 1) % np, left = (me + np - 1) % np;
    long *w = shmemu_calloc(3, sizeof(long));
    PE_CHECK(w != NULL);
    shmemu_ctx_t a, b;
    PE_CHECK_OK(shmemu_ctx_create(&a));
    PE_CHECK_OK(shmemu_ctx_create(&b));
    PE_CHECK(a != SHMEMU_CTX_DEFAULT && b != SHMEMU_CTX_DEFAULT && a != b);
    PE_CHECK_EQ(shmemu_ctx_select(a), SHMEMU_CTX_DEFAULT);
    PE_CHECK_OK(shmemu_long_p(&w[0], me + 1, right));
    PE_CHECK_EQ(shmemu_ctx_select(b), a);
    PE_CHECK_OK(shmemu_long_p(&w[1], me + 100, right));
    PE_CHECK_OK(shmemu_ctx_fence(b));
    PE_CHECK_OK(shmemu_long_atomic_add(&w[2], me + 7, right));
    PE_CHECK_EQ(shmemu_ctx_select(SHMEMU_CTX_DEFAULT), b);
    PE_CHECK_OK(shmemu_ctx_quiet(a));
    PE_CHECK_OK(shmemu_ctx_quiet(b));
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(shmemu_long_g(&w[0], me), left + 1);
    PE_CHECK_EQ(shmemu_long_g(&w[1], me), left + 100);
    PE_CHECK_EQ(shmemu_long_g(&w[2], me), left + 7);

    PE_CHECK_EQ(shmemu_ctx_select(b + 1), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_ctx_select(-2), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_ctx_quiet(b + 5), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_ctx_fence(-1), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_ctx_create(NULL), SHMEMU_EINVAL);
    /* destroying the selected context puts the thread back on the default */
    PE_CHECK_EQ(shmemu_ctx_select(b), SHMEMU_CTX_DEFAULT);
    PE_CHECK_OK(shmemu_ctx_destroy(b));
    PE_CHECK_EQ(shmemu_ctx_select(a), SHMEMU_CTX_DEFAULT);
    PE_CHECK_EQ(shmemu_ctx_select(SHMEMU_CTX_DEFAULT), a);
    PE_CHECK_OK(shmemu_ctx_destroy(a));
    PE_CHECK_OK(shmemu_ctx_destroy(SHMEMU_CTX_DEFAULT));
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(w);
    return 0;
}

static void test_contexts(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_contexts, NULL, TH_NPES(1, 2, 3, 5), 0);
    setenv("SHMEMU_CHECK", "fuzz:2,race", 1);
    th_run(body_contexts, NULL, TH_NPES(2, 3), 0);
    unsetenv("SHMEMU_CHECK");
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_ctx_select: ctx -2 is not a context of this PE\n"));
    assert_non_null(strstr(err, "shmemu_ctx_create: ctx is NULL\n"));
    assert_non_null(strstr(err, "shmemu: PE 0/"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_stress), cmocka_unit_test(test_many_pes),
        cmocka_unit_test(test_departed_releases),
        cmocka_unit_test(test_departed_exact), cmocka_unit_test(test_nonzero_return),
        cmocka_unit_test(test_skew), cmocka_unit_test(test_contexts),
    };
    return cmocka_run_group_tests_name("sync", tests, NULL, NULL);
}
