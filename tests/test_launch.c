/* test_launch.c - jobs: repeated launches, identity queries, SPMD init and
 * finalize, nesting, early finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static int body_identity(void *arg)
{
    const char *transport = arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    PE_CHECK(me >= 0 && me < np);
    PE_CHECK(strcmp(shmemu_transport_name(), transport) == 0);
    /* each PE reports in: a put to PE 0 of its own number */
    int *seen = shmemu_calloc((size_t)np, sizeof(int));
    PE_CHECK(seen != NULL);
    PE_CHECK_OK(shmemu_int_p(&seen[me], me + 1, 0));
    PE_CHECK_OK(shmemu_barrier_all());
    if (me == 0)
        for (int p = 0; p < np; p++)
            PE_CHECK_EQ(seen[p], p + 1);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(seen);
    return 0;
}

/* 200 jobs back to back with varying sizes: no leak, no stale state (leaks
 * are caught by make asan / make valgrind). */
static void test_repeat(void **state)
{
    (void)state;
    int jobs = (int)th_iters(200, 10);
    for (int t = 0; t < th_transport_count(); t++) {
        for (int j = 0; j < jobs; j++) {
            int npes = 1 + j % 9;
            int rc = th_launch(th_transport(t), npes, (size_t)2 << 20, body_identity,
                               (void *)th_transport(t));
            if (rc)
                fail_msg("%s job %d (%d PEs) returned %d", th_transport(t), j, npes, rc);
        }
    }
}

/* The heap each PE got: the whole size asked for can be allocated in one
 * block, and a block 2 MiB larger (past the transport's rounding) cannot. */
static int body_heap_of(void *arg)
{
    size_t want = *(const size_t *)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    void *all = shmemu_malloc(want);
    PE_CHECK(all != NULL);
    shmemu_free(all);
    PE_CHECK(shmemu_malloc(want + ((size_t)2 << 20)) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ENOMEM);
    return 0;
}

static void test_heap_sizes(void **state)
{
    (void)state;
    /* SHMEMU_HEAP_SIZE with K/M/G suffixes, opts.heap_size over it, a
     * tiny heap (rounded up to the heap alignment, so a byte fits) */
    static const struct {
        const char *env;
        size_t opt, want;
    } cases[] = {
        {"3M", 0, (size_t)3 << 20},
        {"1GiB", 0, (size_t)1 << 30},
        {"1536K", 0, (size_t)1536 << 10},
        {"3M", (size_t)5 << 20, (size_t)5 << 20},
        {NULL, 1, 1},
        {NULL, 0, (size_t)64 << 20}, /* the default */
    };
    for (int t = 0; t < th_transport_count(); t++)
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            if (cases[i].env)
                setenv("SHMEMU_HEAP_SIZE", cases[i].env, 1);
            else
                unsetenv("SHMEMU_HEAP_SIZE");
            shmemu_opts o = {.npes = 2, .transport = th_transport(t), .heap_size = cases[i].opt};
            size_t want = cases[i].want;
            th_capture_start(); /* the refused block is reported: "no room for" */
            int rc = th_launch_opts(&o, body_heap_of, &want);
            char *err = th_capture_stop();
            if (!strstr(err, "shmemu_malloc: no room for "))
                fail_msg("%s: the refused block was not reported: %s", th_transport(t), err);
            free(err);
            if (rc != 0)
                fail_msg("%s, SHMEMU_HEAP_SIZE=%s, opts.heap_size %zu: the heap is not %zu "
                         "bytes (rc %d)",
                         th_transport(t), cases[i].env ? cases[i].env : "(unset)",
                         cases[i].opt, want, rc);
        }
    unsetenv("SHMEMU_HEAP_SIZE");
}

/* A job after jobs that wrote all over their heaps: every byte it can
 * allocate reads zero, whatever the earlier jobs' sizes and PE counts (a
 * transport that keeps heaps from job to job zeroes only what a job could
 * have written: its blocks, the workspaces at the top, and what a larger
 * heap had in reach). */
struct scribble {
    size_t bytes;
    int write; /* 1: fill with 0xa5; 0: check for zeros */
};

static int body_scribble(void *arg)
{
    const struct scribble *s = arg;
    unsigned char *all = shmemu_malloc(s->bytes);
    PE_CHECK(all != NULL);
    size_t chunk = (size_t)1 << 20;
    unsigned char *buf = malloc(chunk);
    PE_CHECK(buf != NULL);
    for (size_t at = 0; at < s->bytes; at += chunk) {
        size_t n = s->bytes - at < chunk ? s->bytes - at : chunk;
        if (s->write) {
            memset(buf, 0xa5, n);
            PE_CHECK_OK(shmemu_putmem(all + at, buf, n, shmemu_my_pe()));
            continue;
        }
        PE_CHECK_OK(shmemu_getmem(buf, all + at, n, shmemu_my_pe()));
        for (size_t i = 0; i < n; i++)
            if (buf[i])
                th_pe_fail(__FILE__, __LINE__, "byte %zu of a fresh %zu-byte block is 0x%02x",
                           at + i, s->bytes, buf[i]);
    }
    /* the world's workspace (at the top of the heap): its user half */
    unsigned char *ws = (unsigned char *)shmemu_team_workspace(SHMEMU_TEAM_WORLD) +
                        SHMEMU_TEAM_WORKSPACE_BYTES / 2;
    size_t half = SHMEMU_TEAM_WORKSPACE_BYTES / 2;
    if (s->write) {
        memset(buf, 0x5a, half);
        PE_CHECK_OK(shmemu_putmem(ws, buf, half, shmemu_my_pe()));
    } else {
        PE_CHECK_OK(shmemu_getmem(buf, ws, half, shmemu_my_pe()));
        for (size_t i = 0; i < half; i++)
            if (buf[i])
                th_pe_fail(__FILE__, __LINE__, "byte %zu of the world's workspace is 0x%02x",
                           half + i, buf[i]);
    }
    PE_CHECK_OK(shmemu_quiet());
    /* the collectives' workspaces at the top of the heap are written too */
    int *x = shmemu_calloc(1, sizeof(int));
    PE_CHECK(x != NULL);
    *x = shmemu_my_pe() + 1;
    PE_CHECK_OK(shmemu_int_sum_reduce(SHMEMU_TEAM_WORLD, x, x, 1));
    PE_CHECK_EQ(*x, shmemu_n_pes() * (shmemu_n_pes() + 1) / 2);
    shmemu_free(x);
    free(buf);
    shmemu_free(all);
    return 0;
}

static void test_fresh_heap(void **state)
{
    (void)state;
    static const struct {
        int npes;
        size_t heap_mib, block_mib; /* the heap asked for, the block written or read */
        int write;
        const char *check; /* checker mode's heaps are a memory file's (its views) */
    } steps[] = {
        {4, 12, 12, 1, NULL}, {2, 4, 4, 0, NULL}, /* smaller, fewer PEs: the rest out of reach */
        {2, 4, 4, 1, NULL},   {4, 12, 12, 0, NULL}, /* back to the large one: PEs 2, 3, the top */
        {3, 16, 1, 1, NULL},  {3, 16, 16, 0, NULL}, /* only the top written, far above the block */
        {3, 6, 6, 1, NULL},   {3, 6, 6, 0, NULL},   {5, 8, 8, 0, NULL}, /* more PEs than ever */
        {4, 6, 6, 1, "race"}, {3, 6, 6, 0, "race"}, /* checked: kept for the same length */
        {3, 6, 6, 0, NULL},   {3, 6, 6, 1, "fuzz:1"}, {4, 6, 6, 0, "fuzz:2,race"},
        {2, 4, 4, 0, "race"}, {2, 6, 6, 0, NULL},
    };
    for (int t = 0; t < th_transport_count(); t++)
        for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
            size_t heap = steps[i].heap_mib << 20;
            struct scribble s = {steps[i].block_mib << 20, steps[i].write};
            shmemu_opts o = {.npes = steps[i].npes, .transport = th_transport(t),
                             .heap_size = heap, .check = steps[i].check};
            int rc = th_launch_opts(&o, body_scribble, &s);
            if (rc)
                fail_msg("%s, step %zu (%d PEs, %zu MiB, %s): rc %d", th_transport(t), i,
                         steps[i].npes, steps[i].heap_mib, steps[i].write ? "write" : "check",
                         rc);
        }
}

/* SPMD use from the main thread: a 1-PE local job, twice over.  Under
 * mpirun -np N the same calls join the mpirun job instead: PE = the
 * process's rank, N PEs, on ucx; each PE puts to the next. */
static void test_spmd(void **state)
{
    (void)state;
    int n = th_mpirun_npes();
    for (int round = 0; round < 2; round++) {
        assert_int_equal(shmemu_init(), SHMEMU_OK);
        assert_int_equal(shmemu_init(), SHMEMU_OK); /* counted, harmless */
        int me = shmemu_my_pe();
        assert_int_equal(me, n ? atoi(getenv("PMIX_RANK")) : 0);
        assert_int_equal(shmemu_n_pes(), n ? n : 1);
        assert_string_equal(shmemu_transport_name(), n ? "ucx" : "local");
        long *x = shmemu_malloc(sizeof(long));
        assert_non_null(x);
        int np = shmemu_n_pes();
        assert_int_equal(shmemu_long_p(x, 42 + round + me, (me + 1) % np), SHMEMU_OK);
        assert_int_equal(shmemu_barrier_all(), SHMEMU_OK);
        assert_int_equal(shmemu_long_g(x, me), 42 + round + (me + np - 1) % np);
        assert_int_equal(shmemu_barrier_all(), SHMEMU_OK); /* all read before the free */
        shmemu_free(x);
        assert_int_equal(shmemu_finalize(), SHMEMU_OK); /* drops a reference */
        assert_int_equal(shmemu_my_pe(), me);
        assert_int_equal(shmemu_finalize(), SHMEMU_OK);
        assert_int_equal(shmemu_my_pe(), -1);
    }
}

/* A fork of an SPMD PE's process is no PE: its shmemu_init is refused with
 * one line naming the fork (it used to count one more init of the parent's
 * PE and go on as a copy of it); the parent's PE is unaffected. */
static void spmd_fork_child(void)
{
    _exit(shmemu_init() == SHMEMU_ENOTSUP ? 0 : 1);
}

static void test_spmd_fork(void **state)
{
    (void)state;
    assert_int_equal(shmemu_init(), SHMEMU_OK);
    int me = shmemu_my_pe();
    static struct th_outcome o;
    th_fork_cmd(spmd_fork_child, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0)
        fail_msg("the fork's shmemu_init was not refused (status %#x): %s", o.status, o.out);
    char want[160];
    snprintf(want, sizeof(want), "shmemu: shmemu_init: this process (pid "); /* then the child's */
    const char *at = strstr(o.out, want);
    char tail[96];
    snprintf(tail, sizeof(tail), ") is a fork of PE %d's process (pid %d), not a PE of its job",
             me, (int)getpid());
    if (at != o.out || !strstr(o.out, tail) || !strchr(o.out, '\n') || strchr(o.out, '\n')[1])
        fail_msg("expected one line naming the fork, got: %s", o.out);
    assert_int_equal(shmemu_my_pe(), me);
    assert_int_equal(shmemu_barrier_all(), SHMEMU_OK);
    assert_int_equal(shmemu_finalize(), SHMEMU_OK);
}

/* Inside a launched PE: init only counts, launch is refused, and an early
 * finalize makes later calls fail (the PE has left). */
static int body_nested(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_init());
    PE_CHECK_OK(shmemu_finalize());
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    shmemu_opts o = {.npes = 2};
    PE_CHECK_EQ(shmemu_launch(&o, body_identity, NULL), SHMEMU_EINVAL);
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_OK(shmemu_finalize());
    PE_CHECK_EQ(shmemu_my_pe(), -1);
    PE_CHECK_EQ(shmemu_barrier_all(), SHMEMU_EINVAL);
    return 0;
}

static void test_nested(void **state)
{
    (void)state;
    th_capture_start();
    for (int t = 0; t < th_transport_count(); t++)
        assert_int_equal(th_launch(th_transport(t), 3, 0, body_nested, NULL), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_launch: cannot launch a job from inside a PE"));
    assert_non_null(strstr(err, "shmemu: shmemu_barrier_all: called outside a PE"));
    free(err);
}

static void test_transport_info(void **state)
{
    (void)state;
    const char *name = NULL;
    int usable = -1;
    char why[128];
    assert_int_equal(shmemu_transport_info(0, &name, &usable, why, sizeof(why)), 0);
    assert_string_equal(name, "local");
    assert_int_equal(usable, 1);
    assert_int_equal(shmemu_transport_info(-1, &name, &usable, NULL, 0), SHMEMU_EINVAL);
    assert_int_equal(shmemu_transport_info(99, &name, &usable, NULL, 0), SHMEMU_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeat), cmocka_unit_test(test_heap_sizes),
        cmocka_unit_test(test_fresh_heap),
        cmocka_unit_test(test_spmd),   cmocka_unit_test(test_spmd_fork), cmocka_unit_test(test_nested),
        cmocka_unit_test(test_transport_info),
    };
    return cmocka_run_group_tests_name("launch", tests, NULL, NULL);
}
