/* test_sim.c - the sim transport's own promises: one schedule per
 * SHMEMU_SIM string (replay, bit for bit), the strategies, exact deadlock
 * and bounded livelock verdicts, a clear end for a stack overflow and for a
 * PE that never calls the library, 16,384 PEs, and a planted
 * order-dependent bug that --explore finds and its reproducer replays. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static int sim_usable(void)
{
    const char *name;
    int usable;
    for (int i = 0; shmemu_transport_info(i, &name, &usable, NULL, 0) == SHMEMU_OK; i++)
        if (!strcmp(name, "sim"))
            return usable;
    return 0;
}

#define NEED_SIM()                                                             \
    do {                                                                       \
        if (!sim_usable()) {                                                   \
            printf("# skipped: the sim transport is not built here\n");        \
            skip();                                                            \
        }                                                                      \
    } while (0)

static int launch(int npes, const char *sim, int (*body)(void *), void *arg)
{
    if (sim)
        setenv("SHMEMU_SIM", sim, 1);
    else
        unsetenv("SHMEMU_SIM");
    int rc = th_launch("sim", npes, 4 << 20, body, arg);
    unsetenv("SHMEMU_SIM");
    return rc;
}

/* ------------------------------------------------------------- replay */

/* Every PE appends its number at each step; fibers share the process. */
#define TRACE_MAX 4096
static int trace[TRACE_MAX];
static int ntrace;

static void note(void)
{
    if (ntrace < TRACE_MAX)
        trace[ntrace++] = shmemu_my_pe();
}

static int body_trace(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    long *x = shmemu_calloc((size_t)n, sizeof(long));
    note();
    for (int i = 0; i < 4; i++) {
        shmemu_long_atomic_add(&x[i % n], me + 1, (me + i) % n);
        note();
        shmemu_long_p(&x[me], i, (me + 1) % n);
        note();
    }
    shmemu_barrier_all();
    note();
    shmemu_free(x);
    return 0;
}

static void run_trace(const char *sim, int npes, int *out, int *n, shmemu_sim_stats *st)
{
    ntrace = 0;
    assert_int_equal(launch(npes, sim, body_trace, NULL), 0);
    memcpy(out, trace, (size_t)ntrace * sizeof(int));
    *n = ntrace;
    assert_int_equal(shmemu_sim_last(st), SHMEMU_OK);
}

static void test_replay(void **state)
{
    (void)state;
    NEED_SIM();
    static int first[TRACE_MAX], again[TRACE_MAX];
    const char *specs[] = {"random,seed:7", "pct:3,seed:7", "rr"};
    for (int k = 0; k < 3; k++) {
        for (int npes = 2; npes <= 7; npes += 5) {
            int n1, n2;
            shmemu_sim_stats s1, s2;
            run_trace(specs[k], npes, first, &n1, &s1);
            assert_int_equal(n1, npes * 10);
            for (int r = 0; r < (int)th_iters(20, 4); r++) {
                run_trace(specs[k], npes, again, &n2, &s2);
                assert_int_equal(n1, n2);
                assert_memory_equal(first, again, (size_t)n1 * sizeof(int));
                assert_true(s1.schedule == s2.schedule && s1.steps == s2.steps &&
                            s1.switches == s2.switches);
            }
        }
    }
    /* Outside any PE, a NULL out is refused with one line. */
    th_capture_start();
    int bad = shmemu_sim_last(NULL);
    char *err = th_capture_stop();
    assert_int_equal(bad, SHMEMU_EINVAL);
    assert_non_null(strstr(err, "shmemu_sim_last: out is NULL"));
    assert_true(strchr(err, '\n') == strrchr(err, '\n'));
    free(err);
    /* Other seeds give other interleavings (7 PEs, 70 steps: surely). */
    int n1, n2, differ = 0;
    shmemu_sim_stats s1, s2;
    run_trace("random,seed:1", 7, first, &n1, &s1);
    for (int seed = 2; seed < 6; seed++) {
        char spec[32];
        snprintf(spec, sizeof(spec), "random,seed:%d", seed);
        run_trace(spec, 7, again, &n2, &s2);
        differ += memcmp(first, again, (size_t)n1 * sizeof(int)) != 0 &&
                  s1.schedule != s2.schedule;
    }
    assert_int_equal(differ, 4);
}

/* Round-robin: every PE takes one step in turn, always in the same cycle. */
static void test_round_robin(void **state)
{
    (void)state;
    NEED_SIM();
    static int t[TRACE_MAX];
    int n;
    shmemu_sim_stats st;
    run_trace("rr", 5, t, &n, &st);
    /* After the allocation's sync the PEs take turns in one fixed cycle. */
    int seen = 0;
    for (int i = 0; i < 5; i++)
        seen |= 1 << t[i];
    assert_int_equal(seen, 31);
    for (int i = 5; i < 45; i++)
        assert_int_equal(t[i], t[i - 5]);
}

/* --------------------------------------------------------------- misuse */

static int body_nothing(void *arg)
{
    (void)arg;
    return 0;
}

static void test_bad_spec(void **state)
{
    (void)state;
    NEED_SIM();
    const char *bad[] = {"bogus", "pct:0", "pct:17", "seed:x", "stack:1K", "guard:2",
                         "watchdog:-1", "steps:0"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        th_capture_start();
        int rc = launch(2, bad[i], body_nothing, NULL);
        char *err = th_capture_stop();
        assert_int_equal(rc, SHMEMU_EINVAL);
        char want[64];
        snprintf(want, sizeof(want), "SHMEMU_SIM '%s': ", bad[i]);
        if (!strstr(err, want) || strchr(err, '\n') != strrchr(err, '\n'))
            fail_msg("SHMEMU_SIM=%s: %s", bad[i], err);
        free(err);
    }
}

/* ------------------------------------------------- deadlock and livelock */

static int body_deadlock(void *arg)
{
    (void)arg;
    uint64_t *w = shmemu_calloc(1, sizeof(uint64_t));
    shmemu_uint64_wait_until(w, SHMEMU_CMP_EQ, 1); /* nobody sets it */
    return 0;
}

static int body_livelock(void *arg)
{
    (void)arg;
    uint64_t *w = shmemu_calloc(1, sizeof(uint64_t));
    while (!shmemu_uint64_test(w, SHMEMU_CMP_EQ, 1))
        ;
    return 0;
}

static void test_deadlock_livelock(void **state)
{
    (void)state;
    NEED_SIM();
    for (int npes = 1; npes <= 5; npes += 2) {
        th_capture_start();
        int rc = launch(npes, NULL, body_deadlock, NULL);
        char *err = th_capture_stop();
        assert_int_equal(rc, SHMEMU_EDEADLOCK);
        char want[80];
        snprintf(want, sizeof(want), "deadlock: all %d PEs are blocked", npes);
        if (!strstr(err, want) || !strstr(err, "shmemu_uint64_wait_until"))
            fail_msg("%d PEs: %s", npes, err);
        free(err);

        th_capture_start();
        rc = launch(npes, "rr", body_livelock, NULL);
        err = th_capture_stop();
        assert_int_equal(rc, SHMEMU_EDEADLOCK);
        if (!strstr(err, "polls") || !strstr(err, "unchanged"))
            fail_msg("livelock, %d PEs: %s", npes, err);
        free(err);
    }
}

/* ------------------------------------------ ends that need a new process */

static int depth(int n)
{
    volatile char pad[1024];
    pad[0] = (char)n;
    return n > 0 ? depth(n - 1) + pad[0] : shmemu_my_pe();
}

static int body_overflow(void *arg)
{
    (void)arg;
    shmemu_barrier_all();
    if (shmemu_my_pe() == 1)
        return depth(1 << 20) == -1; /* 1 GiB of frames */
    shmemu_barrier_all();
    return 0;
}

static int body_spinner(void *arg)
{
    (void)arg;
    static volatile int never;
    shmemu_barrier_all();
    if (shmemu_my_pe() == 2)
        while (!never) /* a plain load: no scheduling point, ever */
            ;
    shmemu_barrier_all();
    return 0;
}

/* Run body on 3 PEs in a child process; its exit status and stderr. */
static int in_child(const char *sim, int (*body)(void *), char **err)
{
    fflush(NULL);
    th_capture_start();
    pid_t pid = fork();
    if (pid == 0)
        _exit(launch(3, sim, body, NULL) == 0 ? 0 : 1);
    int status = 0;
    waitpid(pid, &status, 0);
    *err = th_capture_stop();
    return status;
}

static void test_overflow_and_spinner(void **state)
{
    (void)state;
    NEED_SIM();
    char *err;
    int status = in_child("stack:64K", body_overflow, &err);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 128 + SIGSEGV);
    if (!strstr(err, "shmemu: PE 1/3: stack overflow: its fiber's 64 KiB stack (sim transport)"))
        fail_msg("overflow: %s", err);
    free(err);

    status = in_child("watchdog:1", body_spinner, &err);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 124);
    if (!strstr(err, "shmemu: PE 2/3 has run for 1.0 s without calling shmemu"))
        fail_msg("spinner: %s", err);
    free(err);
}

/* ---------------------------------------------------------------- scale */

static int body_scale(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    long *v = shmemu_malloc(2 * sizeof(long));
    v[0] = me;
    PE_CHECK_OK(shmemu_allreduce(SHMEMU_TEAM_WORLD, &v[1], &v[0], 1, SHMEMU_INT64, SHMEMU_SUM));
    PE_CHECK_EQ(v[1], (long)n * (n - 1) / 2);
    long *ring = shmemu_malloc(sizeof(long));
    shmemu_long_p(ring, me, (me + 1) % n);
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(*ring, (me + n - 1) % n);
    shmemu_free(ring);
    shmemu_free(v);
    return 0;
}

static void test_scale(void **state)
{
    (void)state;
    NEED_SIM();
    int npes = th_quick() ? 1024 : 16384;
#ifdef TH_TSAN
    /* 16,384 heaps at their 256 MiB stride are 4 TiB of address space,
     * more than ThreadSanitizer leaves a program. */
    npes = 1024;
    printf("    ThreadSanitizer: 1,024 PEs, not 16,384 (4 TiB of heap address space)\n");
#endif
    if (th_under_valgrind() && npes > 128) {
        /* Its address space holds less than 64 GiB: 240 heap strides of
         * 256 MiB were the most found to map. */
        npes = 128;
        printf("    valgrind: 128 PEs (32 GiB of heap address space; valgrind's holds < 64)\n");
    }
    setenv("SHMEMU_SIM", "rr", 1);
    /* Small heaps: the team workspaces and a few words. */
    int rc = th_launch("sim", npes, 2 << 20, body_scale, NULL);
    unsetenv("SHMEMU_SIM");
    assert_int_equal(rc, 0);
}

/* ------------------------------------------------ a planted order bug */

/* The user half of the team workspace: u[0] a call counter, u[1..] flags,
 * from byte 1024 a slot of count elements per PE. */
static uint64_t *user_words(shmemu_team_t team)
{
    return (uint64_t *)(void *)((char *)shmemu_team_workspace(team) +
                                SHMEMU_TEAM_WORKSPACE_BYTES / 2);
}

static int64_t *slot_of(shmemu_team_t team, int pe, size_t count)
{
    return (int64_t *)(void *)((char *)user_words(team) + 1024) + (size_t)pe * count;
}

/* Two rounds of "put my data and a flag to everyone, then for each peer:
 * wait for its flag and add its slot".  Round 1's result is the answer;
 * round 2 sends other data through the same slots.  Without a sync between
 * the rounds, a PE that finished round 1 early overwrites a slot that a
 * slower PE has yet to add: wrong only when one PE runs that far ahead. */
static int reuse(shmemu_team_t team, void *dest_, const void *src_, size_t count, int fixed)
{
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    uint64_t *u = user_words(team);
    int64_t *dest = dest_, *tmp = malloc(count * sizeof(int64_t) + 1);
    const int64_t *src = src_;
    for (int round = 0; round < 2; round++) {
        uint64_t gen = ++u[0];
        for (size_t i = 0; i < count; i++)
            tmp[i] = round ? ~src[i] : src[i];
        for (int i = 1; i < n; i++) {
            int p = shmemu_team_translate_pe(team, (me + i) % n, SHMEMU_TEAM_WORLD);
            shmemu_putmem(slot_of(team, me, count), tmp, count * 8, p);
            shmemu_fence();
            shmemu_uint64_p(&u[1 + me], gen, p);
        }
        int64_t *acc = round ? tmp : dest;
        for (size_t i = 0; i < count; i++)
            acc[i] = round ? ~src[i] : src[i];
        for (int i = 1; i < n; i++) {
            int q = (me + i) % n;
            shmemu_uint64_wait_until(&u[1 + q], SHMEMU_CMP_GE, gen);
            for (size_t e = 0; e < count; e++)
                acc[e] = (int64_t)((uint64_t)acc[e] + (uint64_t)slot_of(team, q, count)[e]);
        }
        if (fixed || round == 1)
            shmemu_team_sync(team);
    }
    free(tmp);
    return 0;
}

static int reuse_bug(shmemu_team_t t, void *d, const void *s, size_t c, shmemu_dtype_t dt,
                     shmemu_op_t op)
{
    (void)dt, (void)op;
    return reuse(t, d, s, c, 0);
}

static int reuse_ok(shmemu_team_t t, void *d, const void *s, size_t c, shmemu_dtype_t dt,
                    shmemu_op_t op)
{
    (void)dt, (void)op;
    return reuse(t, d, s, c, 1);
}

static shmemu_verify_result verify(shmemu_allreduce_fn fn, const char *sim, int npes)
{
    setenv("SHMEMU_SIM", sim, 1);
    shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE, .algo = "planted",
                             .fn = (void (*)(void))fn, .transport = "sim", .npes = npes,
                             .count = 5, .dtype = SHMEMU_INT64, .op = SHMEMU_SUM, .seed = 3};
    shmemu_verify_result r;
    assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_OK);
    unsetenv("SHMEMU_SIM");
    return r;
}

/* The budget docs/SIM.md promises: found within 100 schedules by random
 * and by pct:2; the twin passes every one of them. */
static void test_explore_finds_and_replays(void **state)
{
    (void)state;
    NEED_SIM();
    const char *strategies[] = {"random", "pct:2"};
    for (int k = 0; k < 2; k++) {
        for (int npes = 3; npes <= 4; npes++) {
            int found = 0;
            char spec[64];
            for (int s = 1; s <= 100 && !found; s++) {
                snprintf(spec, sizeof(spec), "%s,seed:%d", strategies[k], s);
                shmemu_verify_result ok = verify(reuse_ok, spec, npes);
                if (!ok.passed)
                    fail_msg("%s, %d PEs: the corrected twin fails: %s", spec, npes,
                             ok.reason);
                found = !verify(reuse_bug, spec, npes).passed;
            }
            if (!found)
                fail_msg("%s, %d PEs: the planted bug not found in 100 schedules",
                         strategies[k], npes);
            /* Its reproducer: the same spec fails the same way, every time. */
            shmemu_verify_result first = verify(reuse_bug, spec, npes);
            shmemu_sim_stats s0, s1;
            shmemu_sim_last(&s0);
            for (int r = 0; r < (int)th_iters(100, 10); r++) {
                shmemu_verify_result again = verify(reuse_bug, spec, npes);
                shmemu_sim_last(&s1);
                assert_false(again.passed);
                assert_string_equal(again.reason, first.reason);
                assert_true(s0.schedule == s1.schedule && s0.steps == s1.steps);
                assert_int_equal(again.pe, first.pe);
                assert_int_equal(again.index, first.index);
            }
            print_message("    %s, %d PEs: found with %s, replayed identically\n",
                          strategies[k], npes, spec);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay),
        cmocka_unit_test(test_round_robin),
        cmocka_unit_test(test_bad_spec),
        cmocka_unit_test(test_deadlock_livelock),
        cmocka_unit_test(test_overflow_and_spinner),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_explore_finds_and_replays),
    };
    return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
