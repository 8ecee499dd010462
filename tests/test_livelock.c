/* test_livelock.c - PEs that poll words nobody will change are found and the
 * job ends with SHMEMU_EDEADLOCK and a report of what each PE polls; PEs
 * that poll while others work, or while they work themselves, are never
 * accused. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Burn CPU outside the library for about s seconds. */
static void compute(double s)
{
    volatile double x = 1;
    for (double end = now_s() + s; now_s() < end;)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
}

enum how { BY_TEST, BY_TEST_ANY, BY_SIGNAL_FETCH, BY_G, BY_FETCH, BY_COUNT };

/* Each case waits out the limit (half a second or more): the quick form runs
 * every kind of poll once, on the transports in turn, so that each
 * transport and each kind is still covered. */
static int case_runs(int t, int h)
{
    return !th_quick() || (t + h) % th_transport_count() == 0;
}
static const char *const how_call[] = {"shmemu_int_test", "shmemu_uint64_test_any",
                                       "shmemu_signal_fetch", "shmemu_long_g",
                                       "shmemu_long_atomic_fetch"};

/* One poll of the word kind `how`: 1 when it is set. */
static int poll_once(enum how how, int *iflag, uint64_t *sig, long *lflag, int pe)
{
    switch (how) {
    case BY_TEST: return shmemu_int_test(iflag, SHMEMU_CMP_NE, 0);
    case BY_TEST_ANY: return shmemu_uint64_test_any(sig, 1, NULL, SHMEMU_CMP_NE, 0) != SIZE_MAX;
    case BY_SIGNAL_FETCH: return shmemu_signal_fetch(sig) != 0;
    case BY_G: return shmemu_long_g(lflag, pe) != 0;
    default: return shmemu_long_atomic_fetch(lflag, pe) != 0;
    }
}

struct arg {
    enum how how;
    int sleepers; /* PEs from 1 on wait in a barrier instead of polling */
};

/* PE 0 (and, unless sleepers, every PE) polls a word nobody sets. */
static int body_stuck(void *p)
{
    const struct arg *a = p;
    int *iflag = shmemu_calloc(1, sizeof(int));
    uint64_t *sig = shmemu_calloc(1, sizeof(uint64_t));
    long *lflag = shmemu_calloc(1, sizeof(long));
    int me = shmemu_my_pe();
    if (me > 0 && a->sleepers) {
        shmemu_barrier_all(); /* never completes: PE 0 polls */
        return 0;
    }
    while (!poll_once(a->how, iflag, sig, lflag, (me + 1) % shmemu_n_pes()))
        ;
    return 0;
}

static void test_stuck(void **state)
{
    (void)state;
    setenv("SHMEMU_LIVELOCK", "0.5", 1);
    for (int t = 0; t < th_transport_count(); t++)
        for (int h = 0; h < BY_COUNT; h++)
            for (int sleepers = 0; sleepers <= 1 && case_runs(t, h); sleepers++) {
                int npes = sleepers ? 3 : 2;
                struct arg a = {(enum how)h, sleepers};
                th_capture_start();
                double t0 = now_s();
                int rc = th_launch(th_transport(t), npes, 0, body_stuck, &a);
                double took = now_s() - t0;
                char *err = th_capture_stop();
                if (rc != SHMEMU_EDEADLOCK || !strstr(err, "shmemu: livelock: ") ||
                    !strstr(err, how_call[h]))
                    fail_msg("%s, %s, %s: rc %d after %.1f s; stderr: %s", th_transport(t),
                             how_call[h], sleepers ? "others asleep" : "all poll", rc, took,
                             err);
                char want[96];
                snprintf(want, sizeof(want), "shmemu:   PE 0/%d polls %s on heap+0x", npes,
                         how_call[h]);
                if (!strstr(err, want) || !strstr(err, "unchanged (0x0) for "))
                    fail_msg("%s, %s: the report lacks '%s': %s", th_transport(t),
                             how_call[h], want, err);
                if (sleepers && !strstr(err, "shmemu:   PE 1/3 in shmemu_barrier_all"))
                    fail_msg("%s: the sleeper is not described: %s", th_transport(t), err);
                /* the user's call site, not a place inside the library */
                if (strstr(err, " at shmemu_"))
                    fail_msg("%s, %s: the site is inside the library: %s", th_transport(t),
                             how_call[h], err);
                free(err);
            }
    unsetenv("SHMEMU_LIVELOCK");
}

/* Not livelocks: PE 0 polls while PE 1 computes outside the library for
 * longer than the limit, then sets the flag; and both PEs poll while
 * working between polls, each waiting for the other's late flag. */
static int body_slow_peer(void *p)
{
    const struct arg *a = p;
    int *iflag = shmemu_calloc(1, sizeof(int));
    uint64_t *sig = shmemu_calloc(1, sizeof(uint64_t));
    long *lflag = shmemu_calloc(1, sizeof(long));
    int me = shmemu_my_pe(), other = 1 - me;
    if (me == 1) {
        compute(1.25); /* 2.5 times the limit */
        /* Set every kind of word PE 0 may poll (its own, or ours). */
        PE_CHECK_OK(shmemu_int_p(iflag, 1, 0));
        PE_CHECK_OK(shmemu_uint64_p(sig, 1, 0));
        PE_CHECK_OK(shmemu_long_atomic_set(lflag, 1, 1));
    } else {
        while (!poll_once(a->how, iflag, sig, lflag, other))
            ;
    }
    shmemu_barrier_all();
    return 0;
}

static int body_overlap(void *p)
{
    (void)p;
    int *iflag = shmemu_calloc(1, sizeof(int));
    int me = shmemu_my_pe();
    double start = now_s();
    int sent = 0;
    /* Each polls its flag between chunks of work, and raises the other's
     * after 1.25 s of work (2.5 times the limit), yet is never stuck. */
    while (!shmemu_int_test(iflag, SHMEMU_CMP_NE, 0)) {
        compute(0.002);
        if (!sent && now_s() - start > 1.25) {
            PE_CHECK_OK(shmemu_int_p(iflag, 1, 1 - me));
            sent = 1;
        }
    }
    if (!sent)
        PE_CHECK_OK(shmemu_int_p(iflag, 1, 1 - me));
    shmemu_barrier_all();
    return 0;
}

static void test_not_stuck(void **state)
{
    (void)state;
    setenv("SHMEMU_LIVELOCK", "0.5", 1);
    for (int t = 0; t < th_transport_count(); t++) {
        for (int h = 0; h < BY_COUNT; h++) {
            if (!case_runs(t, h))
                continue;
            struct arg a = {(enum how)h, 0};
            int rc = th_launch(th_transport(t), 2, 0, body_slow_peer, &a);
            if (rc != 0)
                fail_msg("%s, %s: a PE waiting for a slow peer was accused (rc %d)",
                         th_transport(t), how_call[h], rc);
        }
        int rc = th_launch(th_transport(t), 2, 0, body_overlap, NULL);
        if (rc != 0)
            fail_msg("%s: PEs that work between polls were accused (rc %d)", th_transport(t),
                     rc);
    }
    unsetenv("SHMEMU_LIVELOCK");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stuck),
        cmocka_unit_test(test_not_stuck),
    };
    return cmocka_run_group_tests_name("livelock", tests, NULL, NULL);
}
