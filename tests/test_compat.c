/*
 * test_compat.c - OpenSHMEM compatibility: an OpenSHMEM 1.5 program
 * (tests/progs/osh_features.c) built against shmem.h and started with
 * oshrun on 1 to 5 PEs, under the checker, with shmem_global_exit; one
 * with threads inside each PE (tests/progs/osh_threads.c); the generic
 * names for every type, built as C11 and as C++ with oshc++
 * (tests/progs/osh_generic.c); contexts of teams and the checker's
 * per-context completion (tests/progs/osh_ctx.c); and
 * global variables as shmemu sees them: symmetric on shm with
 * SHMEMU_STATIC=on, refused with the reason where PEs share one image.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "shmemu.h"

static int exited(const struct th_outcome *o, int code)
{
    return WIFEXITED(o->status) && WEXITSTATUS(o->status) == code;
}

/* The programs here are OpenSHMEM programs: their PEs are processes on
 * shm (oshrun's transport).  Skipped, saying why, in a pass over other
 * transports (SHMEMU_TEST_TRANSPORTS: make test-ucx, the TSan stage). */
static void shm_jobs_here(void)
{
    char why[256];
    if (!th_transport_wanted("shm", why, sizeof(why)))
        th_skip("OpenSHMEM programs run as processes on shm, which is not run here: %s", why);
}

/* Every feature area on 1 to 5 PEs (shm processes): "ok N", status 0. */
static void test_features(void **state)
{
    (void)state;
    shm_jobs_here();
    for (int n = 1; n <= 5; n++) {
        char np[16], want[24];
        snprintf(np, sizeof(np), "%d", n);
        snprintf(want, sizeof(want), "ok %d\n", n);
        char *argv[] = {th_tool("oshrun"), "-np", np, th_tool("tests/progs/osh_features"), NULL};
        struct th_outcome o;
        th_run_cmd(argv, NULL, &o);
        if (!exited(&o, 0) || !strstr(o.out, want))
            fail_msg("%d PEs: status %#x, output:\n%s", n, o.status, o.out);
        assert_null(strstr(o.out, "FAIL"));
    }
}

/* Scripts written for Open MPI's oshrun/mpirun (or Hydra's mpiexec) run
 * unchanged: their ways of giving the count, exporting variables and
 * placing PEs are understood or, where they change nothing on one
 * machine, accepted; another machine is refused with the reason. */
static void test_oshrun_options(void **state)
{
    (void)state;
    shm_jobs_here();
    static const struct {
        const char *args[8];
        int npes;
        const char *also; /* in the output too */
    } runs[] = {
        {{"--allow-run-as-root", "--oversubscribe", "-np", "4"}, 4, NULL},
        {{"--np", "3", "--bind-to", "none", "--map-by", "core"}, 3, NULL},
        {{"--np=2", "--map-by=slot", "--report-bindings"}, 2, NULL},
        {{"-c", "2", "--mca", "btl", "self", "-q"}, 2, NULL},
        {{"-N", "3", "-H", "localhost:3"}, 3, NULL},
        {{"--host", "127.0.0.1:2", "-np", "2"}, 2, NULL}, /* an address of this machine */
        {{"-x", "SHMEM_DEBUG=1", "-n", "2"}, 2, "shmemu: PE 1/2: transport shm, pid "},
        {{"-genv", "SHMEM_VERSION", "1", "-np", "2"}, 2, "(OpenSHMEM 1.5)\n"},
    };
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
        char *argv[12] = {th_tool("oshrun")};
        int k = 1;
        for (int j = 0; runs[r].args[j]; j++)
            argv[k++] = (char *)runs[r].args[j];
        argv[k++] = th_tool("tests/progs/osh_features");
        argv[k] = NULL;
        char want[24];
        snprintf(want, sizeof(want), "ok %d\n", runs[r].npes);
        struct th_outcome o;
        th_run_cmd(argv, NULL, &o);
        if (!exited(&o, 0) || !strstr(o.out, want) || strstr(o.out, "FAIL") ||
            (runs[r].also && !strstr(o.out, runs[r].also)))
            fail_msg("run %zu (%s ...): status %#x, output:\n%s", r, runs[r].args[0], o.status,
                     o.out);
    }
    char *argv[] = {th_tool("oshrun"), "-H", "elsewhere.example,localhost", "-np", "2",
                    th_tool("tests/progs/osh_features"), NULL};
    struct th_outcome o;
    th_run_cmd(argv, NULL, &o);
    if (!exited(&o, 2) || !strstr(o.out, "shmemu-run: -H elsewhere.example,localhost names "
                                         "another machine: the shm transport starts PEs on "
                                         "this one (-t ucx starts them on several, through "
                                         "mpirun) (see --help)\n"))
        fail_msg("another host: status %#x, output:\n%s", o.status, o.out);
}

/* Checker mode on the same program: no false accusation, any seed. */
static void test_features_checked(void **state)
{
    (void)state;
    shm_jobs_here();
    const char *checks[] = {"SHMEMU_CHECK=fuzz:1,race", "SHMEMU_CHECK=fuzz:2,race",
                            "SHMEMU_CHECK=fuzz:3"};
    for (int c = 0; c < 3; c++)
        for (int n = 3; n <= 4; n++) {
            char np[16], want[24];
            snprintf(np, sizeof(np), "%d", n);
            snprintf(want, sizeof(want), "ok %d\n", n);
            char *argv[] = {th_tool("oshrun"), "-np", np, th_tool("tests/progs/osh_features"),
                            NULL};
            const char *env[] = {checks[c], NULL};
            struct th_outcome o;
            th_run_cmd(argv, env, &o);
            if (!exited(&o, 0) || !strstr(o.out, want))
                fail_msg("%s, %d PEs: status %#x, output:\n%s", checks[c], n, o.status,
                         o.out);
        }
}

/* osh_features MODE ARG on n PEs under oshrun with SHMEMU_CHECK=check:
 * 1 if it passed without a word from shmemu (want NULL), or exited 1 with
 * a race note that holds every string of want. */
static int features_checked(int n, const char *check, const char *mode, int arg,
                            const char *const *want, struct th_outcome *o)
{
    char np[16], env_check[48];
    snprintf(np, sizeof(np), "%d", n);
    snprintf(env_check, sizeof(env_check), "SHMEMU_CHECK=%s", check);
    char *argv[] = {th_tool("oshrun"), "-np", np, th_tool("tests/progs/osh_features"),
                    (char *)mode, arg ? "1" : "0", NULL};
    const char *env[] = {env_check, NULL};
    th_run_cmd(argv, env, o);
    if (!want)
        return exited(o, 0) && !strstr(o->out, "shmemu");
    const char *note = strstr(o->out, "shmemu-check: note: race: PE ");
    if (!exited(o, 1) || !note)
        return 0;
    for (; *want; want++)
        if (!strstr(note, *want))
            return 0;
    return 1;
}

/* A race in an oshrun job (two PEs put into a third's static buffer,
 * nothing orders them): the launcher prints the note, naming the routine,
 * its site in the program and the target, and exits 1, on every seed.  Its
 * twin, ordered by a quiet and a barrier, passes without a note. */
static void test_race_reported(void **state)
{
    (void)state;
    shm_jobs_here();
    for (int seed = 0; seed <= 2; seed++)
        for (int n = 3; n <= 4; n++)
            for (int ordered = 0; ordered <= 1; ordered++) {
                char check[32], target[48];
                snprintf(check, sizeof(check), seed ? "fuzz:%d,race" : "race", seed);
                snprintf(target, sizeof(target), "(raced+0) of PE %d's heap, which PE ",
                         n - 1);
                const char *want[] = {"'s shmem_long_put (at main+", target,
                                      "no wait, signal or sync orders the two", NULL};
                struct th_outcome o;
                if (!features_checked(n, check, "race", ordered, ordered ? NULL : want, &o))
                    fail_msg("%s, %d PEs, %s: status %#x, output:\n%s", check, n,
                             ordered ? "ordered" : "unordered", o.status, o.out);
            }
}

/* shmemvv's result check (the verdict stored to a static int with a plain
 * store while PE 0 reads it with shmem_int_g, nothing between): reported
 * on every seed, naming the store, the read and the variable; with a
 * barrier between, no note. */
static void test_verdict_race(void **state)
{
    (void)state;
    shm_jobs_here();
    /* the twin under --fuzz 20 --race (fewer seeds in the quick variant) */
    int last_seed = (int)th_iters(20, 10);
#ifdef TH_TSAN
    printf("# test_verdict_race: the unordered and ordered runs skipped: a PE's own stores "
           "are not watched in a ThreadSanitizer build (docs/CHECK.md)\n");
    last_seed = -1;
#endif
    /* the store by its source line too (the program is built with -g) */
    const char *want[] = {"'s plain store (at main+", ", tests/progs/osh_features.c:",
                          "'s shmem_int_g (at main+",
                          " (verdict+0) of PE ", "no wait, signal or sync orders the two", NULL};
    for (int seed = 0; seed <= last_seed; seed++)
        for (int n = 2; n <= 4; n++)
            for (int ordered = seed > 2; ordered <= 1; ordered++) {
                char check[32];
                snprintf(check, sizeof(check), seed ? "fuzz:%d,race" : "race", seed);
                struct th_outcome o;
                if (!features_checked(n, check, "verdict", ordered, ordered ? NULL : want, &o))
                    fail_msg("%s, %d PEs, %s: status %#x, output:\n%s", check, n,
                             ordered ? "ordered" : "unordered", o.status, o.out);
            }
    /* SHMEMU_CHECK=calls leaves the program's stores alone, and still
     * sees the library's calls race. */
    const char *put[] = {"'s shmem_long_put (at main+", NULL};
    struct th_outcome o;
    if (!features_checked(3, "calls", "verdict", 0, NULL, &o))
        fail_msg("SHMEMU_CHECK=calls, verdict: status %#x, output:\n%s", o.status, o.out);
    if (!features_checked(3, "calls", "race", 0, put, &o))
        fail_msg("SHMEMU_CHECK=calls, race: status %#x, output:\n%s", o.status, o.out);
}

/* Threads inside each PE (SHMEM_THREAD_MULTIPLE) on 1 to 4 PEs, plain and
 * under the checker: exact values, no hang, no false deadlock. */
static void test_threads(void **state)
{
    (void)state;
    shm_jobs_here();
    const char *envs[][2] = {{NULL}, {"SHMEMU_CHECK=fuzz:1,race", NULL},
                             {"SHMEMU_CHECK=fuzz:2", NULL}};
    for (int e = 0; e < 3; e++)
        for (int n = e ? 2 : 1; n <= (e ? 3 : 4); n++) {
            char np[16], want[24];
            snprintf(np, sizeof(np), "%d", n);
            snprintf(want, sizeof(want), "ok %d\n", n);
            char *argv[] = {th_tool("oshrun"), "-np", np, th_tool("tests/progs/osh_threads"),
                            NULL};
            struct th_outcome o;
            th_run_cmd(argv, envs[e][0] ? envs[e] : NULL, &o);
            if (!exited(&o, 0) || !strstr(o.out, want))
                fail_msg("%s, %d PEs: status %#x, output:\n%s", envs[e][0] ? envs[e][0] : "plain",
                         n, o.status, o.out);
        }
}

/* A thread that called as its PE calls again after the PE finalized: the
 * call fails with one line naming the PE (the thread pointed at freed
 * memory before) and, as any OpenSHMEM routine called outside a PE, ends
 * the process with status 1; with SHMEMU_ERRORS=return it returns, my_pe
 * says -1, and the program ends normally. */
static void test_thread_after_finalize(void **state)
{
    (void)state;
    shm_jobs_here();
    char *argv[] = {th_tool("oshrun"), "-np", "2", th_tool("tests/progs/osh_threads"), "late",
                    NULL};
    static const char line[] = "shmemu: shmem_long_p: called after shmem_finalize: this thread "
                               "called as PE 1, which has finalized\n";
    struct th_outcome o;
    th_run_cmd(argv, NULL, &o);
    if (!exited(&o, 1) || !strstr(o.out, line) || strstr(o.out, "late call returned"))
        fail_msg("status %#x, output:\n%s", o.status, o.out);
    const char *env[] = {"SHMEMU_ERRORS=return", NULL};
    th_run_cmd(argv, env, &o);
    if (!exited(&o, 0) || !strstr(o.out, line) ||
        !strstr(o.out, "late call returned, my_pe -1\n"))
        fail_msg("SHMEMU_ERRORS=return: status %#x, output:\n%s", o.status, o.out);
}

/* The generic names (C11 _Generic, and C++ overloads when a C++ compiler
 * was found to build osh_generic_cxx) on 1, 2, 3 and 5 PEs, then under the
 * checker: exact values, no false accusation. */
static void test_generic(void **state)
{
    (void)state;
    shm_jobs_here();
    const char *progs[] = {"tests/progs/osh_generic", "tests/progs/osh_generic_cxx"};
    const char *envs[] = {NULL, NULL, NULL, NULL, "SHMEMU_CHECK=fuzz:1,race",
                          "SHMEMU_CHECK=fuzz:2"};
    const int pes[] = {1, 2, 3, 5, 3, 2};
    for (int p = 0; p < 2; p++) {
        char prog[PATH_MAX]; /* th_tool's buffers are reused */
        snprintf(prog, sizeof(prog), "%s", th_tool(progs[p]));
        if (access(prog, X_OK) != 0) {
            printf("# %s skipped: not built (no C++ compiler: CXX=%s not found)\n", progs[p],
                   getenv("CXX") ? getenv("CXX") : "c++");
            continue;
        }
        for (int r = 0; r < 6; r++) {
            char np[16], want[24];
            snprintf(np, sizeof(np), "%d", pes[r]);
            snprintf(want, sizeof(want), "ok %d\n", pes[r]);
            char *argv[] = {th_tool("oshrun"), "-np", np, prog, NULL};
            const char *env[] = {envs[r], NULL};
            struct th_outcome o;
            th_run_cmd(argv, envs[r] ? env : NULL, &o);
            if (!exited(&o, 0) || !strstr(o.out, want))
                fail_msg("%s, %s, %d PEs: status %#x, output:\n%s", progs[p],
                         envs[r] ? envs[r] : "plain", pes[r], o.status, o.out);
        }
    }
}

/* Contexts: a team's context numbers PEs in the team; checker mode
 * completes each context apart, so puts on a private context need its own
 * quiet before a barrier (which completes the default context only): with
 * it no run reads an old value, without it the checked run does. */
static void test_contexts(void **state)
{
    (void)state;
    shm_jobs_here();
    struct th_outcome o;
    const int pes[] = {1, 2, 3, 5};
    for (int i = 0; i < 4; i++) {
        char np[16], want[24];
        snprintf(np, sizeof(np), "%d", pes[i]);
        snprintf(want, sizeof(want), "ok %d\n", pes[i]);
        char *argv[] = {th_tool("oshrun"), "-np", np, th_tool("tests/progs/osh_ctx"), "team", NULL};
        th_run_cmd(argv, NULL, &o);
        if (!exited(&o, 0) || !strstr(o.out, want))
            fail_msg("team, %d PEs: status %#x, output:\n%s", pes[i], o.status, o.out);
    }
    const char *checks[] = {NULL, "SHMEMU_CHECK=fuzz:1,race", "SHMEMU_CHECK=fuzz:2"};
    for (int c = 0; c < 3; c++) {
        char *argv[] = {th_tool("oshrun"), "-np", "3", th_tool("tests/progs/osh_ctx"), "good", NULL};
        const char *env[] = {checks[c], NULL};
        th_run_cmd(argv, checks[c] ? env : NULL, &o);
        if (!exited(&o, 0) || !strstr(o.out, "ok 3\n"))
            fail_msg("good, %s: status %#x, output:\n%s", checks[c] ? checks[c] : "plain",
                     o.status, o.out);
    }
    char *argv[] = {th_tool("oshrun"), "-np", "3", th_tool("tests/progs/osh_ctx"), "missing", NULL};
    const char *env[] = {"SHMEMU_CHECK=fuzz:1", NULL};
    th_run_cmd(argv, env, &o);
    assert_true(exited(&o, 0));
    int stale = -1;
    const char *at = strstr(o.out, "stale ");
    if (!at || sscanf(at, "stale %d", &stale) != 1 || stale <= 0)
        fail_msg("a missing shmem_ctx_quiet went unseen under the checker:\n%s", o.out);
    /* Fences are per context: data and flag fenced on their own context
     * always arrive in order; a fence on another context orders nothing,
     * which the checker shows by delivering the flag first. */
    for (int c = 0; c < 3; c++) {
        char *fargv[] = {th_tool("oshrun"), "-np", "3", th_tool("tests/progs/osh_ctx"), "fenced",
                         NULL};
        const char *fenv[] = {checks[c], NULL};
        th_run_cmd(fargv, checks[c] ? fenv : NULL, &o);
        if (!exited(&o, 0) || !strstr(o.out, "ok 3\n"))
            fail_msg("fenced, %s: status %#x, output:\n%s", checks[c] ? checks[c] : "plain",
                     o.status, o.out);
    }
    char *wargv[] = {th_tool("oshrun"), "-np", "3", th_tool("tests/progs/osh_ctx"), "wrongfence",
                     NULL};
    th_run_cmd(wargv, env, &o);
    assert_true(exited(&o, 0));
    stale = -1;
    at = strstr(o.out, "stale ");
    if (!at || sscanf(at, "stale %d", &stale) != 1 || stale <= 0)
        fail_msg("a fence on the wrong context went unseen under the checker:\n%s", o.out);
    /* The race detector alone (no fuzzing: every value right) finds a put
     * whose context is quieted only after the barrier, read through the
     * library after it; not the twin that quiets before. */
    const char *renv[] = {"SHMEMU_CHECK=race", NULL};
    char *qargv[] = {th_tool("oshrun"), "-np", "3", th_tool("tests/progs/osh_ctx"), "quieted",
                     NULL};
    th_run_cmd(qargv, renv, &o);
    if (!exited(&o, 0) || !strstr(o.out, "ok 3\n") || strstr(o.out, "race:"))
        fail_msg("quieted, race: status %#x, output:\n%s", o.status, o.out);
    char *uargv[] = {th_tool("oshrun"), "-np", "3", th_tool("tests/progs/osh_ctx"), "unquieted",
                     NULL};
    th_run_cmd(uargv, renv, &o);
    if (!exited(&o, 1) || !strstr(o.out, "shmem_ctx_long_put (at ") ||
        !strstr(o.out, "shmem_long_get (at ") ||
        !strstr(o.out, "until its context's quiet or fence, which came after"))
        fail_msg("unquieted, race: status %#x, output:\n%s", o.status, o.out);
    /* Under fuzz the unquieted put is held past the barrier, the reader
     * sees old values and fails, and the note says which put the barrier
     * left behind and why; the quieted twin passes with no note. */
    const char *fenv1[] = {"SHMEMU_CHECK=fuzz:1", NULL};
    th_run_cmd(uargv, fenv1, &o);
    if (!exited(&o, 1) || !strstr(o.out, "FAIL") ||
        !strstr(o.out, "shmemu-check: note: sync with puts in flight: PE ") ||
        !strstr(o.out, " entered shmem_barrier_all (at read_after_barrier") ||
        !strstr(o.out, "(the first: shmem_ctx_long_put at read_after_barrier") ||
        !strstr(o.out, "on context 1); a barrier completes the default context only") ||
        !strstr(o.out, "shmem_ctx_quiet() on that context before the sync"))
        fail_msg("unquieted, fuzz:1: status %#x, output:\n%s", o.status, o.out);
    th_run_cmd(qargv, fenv1, &o);
    if (!exited(&o, 0) || !strstr(o.out, "ok 3\n") || strstr(o.out, "note:"))
        fail_msg("quieted, fuzz:1: status %#x, output:\n%s", o.status, o.out);
}

/* OpenSHMEM's environment variables: SHMEM_SYMMETRIC_SIZE sizes the heap
 * (shmemu's SHMEMU_HEAP_SIZE wins; a fraction is allowed), SHMEM_VERSION
 * prints the version once, SHMEM_DEBUG one line per PE; each also under
 * its deprecated SMA_ name. */
static void test_spec_environment(void **state)
{
    (void)state;
    shm_jobs_here();
    char *argv[] = {th_tool("oshrun"), "-np", "3", th_tool("tests/progs/osh_features"), "big",
                    NULL};
    struct th_outcome o;
    const char *roomy[] = {"SHMEM_SYMMETRIC_SIZE=160M", NULL};
    th_run_cmd(argv, roomy, &o);
    if (!exited(&o, 0) || !strstr(o.out, "ok big 3\n"))
        fail_msg("SHMEM_SYMMETRIC_SIZE=160M: status %#x, output:\n%s", o.status, o.out);
    th_run_cmd(argv, NULL, &o); /* the default 64 MiB heap: refused, saying how to grow it */
    assert_false(exited(&o, 0));
    if (!strstr(o.out, "no room for 100663296 bytes") || !strstr(o.out, "SHMEMU_HEAP_SIZE"))
        fail_msg("default heap: output:\n%s", o.out);
    /* a fraction (the specification's "3.1m"), and the deprecated SMA_ name */
    const char *frac[] = {"SHMEM_SYMMETRIC_SIZE=0.15625G", NULL};
    th_run_cmd(argv, frac, &o);
    if (!exited(&o, 0) || !strstr(o.out, "ok big 3\n"))
        fail_msg("SHMEM_SYMMETRIC_SIZE=0.15625G: status %#x, output:\n%s", o.status, o.out);
    const char *sma[] = {"SMA_SYMMETRIC_SIZE=160m", "SMA_VERSION=1", NULL};
    th_run_cmd(argv, sma, &o);
    if (!exited(&o, 0) || !strstr(o.out, "ok big 3\n") || !strstr(o.out, "(OpenSHMEM 1.5)\n"))
        fail_msg("SMA_SYMMETRIC_SIZE, SMA_VERSION: status %#x, output:\n%s", o.status, o.out);
    const char *both[] = {"SHMEM_SYMMETRIC_SIZE=160M", "SHMEMU_HEAP_SIZE=32M", NULL};
    th_run_cmd(argv, both, &o);
    assert_false(exited(&o, 0));
    const char *bad[] = {"SHMEM_SYMMETRIC_SIZE=lots", NULL};
    th_run_cmd(argv, bad, &o);
    assert_false(exited(&o, 0));
    if (!strstr(o.out, "SHMEM_SYMMETRIC_SIZE='lots' is malformed"))
        fail_msg("malformed SHMEM_SYMMETRIC_SIZE: output:\n%s", o.out);

    char *plain[] = {th_tool("oshrun"), "-np", "3", th_tool("tests/progs/osh_generic"), NULL};
    const char *talk[] = {"SHMEM_VERSION=1", "SHMEM_DEBUG=1", NULL};
    th_run_cmd(plain, talk, &o);
    assert_true(exited(&o, 0));
    const char *vline = "shmemu " SHMEMU_VERSION_STRING " (OpenSHMEM 1.5)\n";
    const char *ver = strstr(o.out, vline);
    if (!ver || strstr(ver + strlen(vline), vline))
        fail_msg("SHMEM_VERSION: want one version line, output:\n%s", o.out);
    for (int pe = 0; pe < 3; pe++) {
        char line[64];
        snprintf(line, sizeof(line), "shmemu: PE %d/3: transport shm, pid ", pe);
        if (!strstr(o.out, line))
            fail_msg("SHMEM_DEBUG: no line for PE %d, output:\n%s", pe, o.out);
    }
}

/* shmemu-info --oshmem: the OpenSHMEM view, readable and parsable. */
static void test_info_oshmem(void **state)
{
    (void)state;
    shm_jobs_here();
    char *argv[] = {th_tool("shmemu-info"), "--oshmem", NULL};
    const char *env[] = {"SHMEM_SYMMETRIC_SIZE=1G", NULL};
    struct th_outcome o;
    th_run_cmd(argv, env, &o);
    assert_true(exited(&o, 0));
    if (!strstr(o.out, "           OpenSHMEM API version: 1.5\n") ||
        !strstr(o.out, "Symmetric heap per PE: 1G (from SHMEM_SYMMETRIC_SIZE; default 64M)") ||
        !strstr(o.out, "Transport shm: usable"))
        fail_msg("output:\n%s", o.out);
    char *pargv[] = {th_tool("shmemu-info"), "--oshmem", "--parsable", NULL};
    th_run_cmd(pargv, NULL, &o);
    assert_true(exited(&o, 0));
    if (!strstr(o.out, "\nopenshmem_api_version:1.5\n") ||
        !strstr(o.out, "\nthread_support:SHMEM_THREAD_MULTIPLE"))
        fail_msg("output:\n%s", o.out);
    char *bad[] = {th_tool("shmemu-info"), "--parsable", NULL};
    th_run_cmd(bad, NULL, &o);
    assert_true(exited(&o, 2));
}

/* shmem_global_exit(N) on PE 1 ends every PE, those waiting in a barrier
 * and one computing outside the library; the job's status is N, 0
 * included, with one line about it (none for 0, a normal ending). */
static void test_global_exit(void **state)
{
    (void)state;
    shm_jobs_here();
    static const char *const codes[] = {"7", "0", "1"};
    for (int i = 0; i < 3; i++) {
        for (int n = 2; n <= 4; n++) {
            char np[16];
            snprintf(np, sizeof(np), "%d", n);
            char *argv[] = {th_tool("oshrun"), "-np", np, th_tool("tests/progs/osh_features"),
                            "exit", (char *)codes[i], NULL};
            struct th_outcome o;
            th_run_cmd(argv, NULL, &o);
            char line[96];
            snprintf(line, sizeof(line),
                     "shmemu: PE 1/%d shmem_global_exit: ending the job with status %s\n", n,
                     codes[i]);
            int lines = 0;
            for (const char *p = o.out; (p = strstr(p, "shmemu")); p++)
                lines++;
            if (!exited(&o, atoi(codes[i])) || strstr(o.out, "FAIL") ||
                lines != (atoi(codes[i]) != 0) || (lines && !strstr(o.out, line)))
                fail_msg("%s PEs, status %s: status %#x, output:\n%s", np, codes[i], o.status,
                         o.out);
        }
    }
}

/* oshrun -np 2 osh_features MODE K. */
static void features_on_two(const char *mode, int k, struct th_outcome *o)
{
    char ks[16];
    snprintf(ks, sizeof(ks), "%d", k);
    char *argv[] = {th_tool("oshrun"), "-np", "2", th_tool("tests/progs/osh_features"),
                    (char *)mode, ks, NULL};
    th_run_cmd(argv, NULL, o);
}

/* A typed put whose byte count overflows size_t, or that runs past the
 * end of the symmetric static data, a put on a destroyed context, a
 * context destroyed twice, a lock set twice by one thread, a lock cleared
 * that the PE never set, the default context destroyed, a lock on the
 * stack, a block freed twice, active-set collectives whose sizes overflow,
 * a put after shmem_finalize (the process ends: an OpenSHMEM routine
 * returns nothing to tell it), an unknown comparison or signal operation,
 * the world team destroyed, a destroyed team synced, a context handle never
 * created: one line saying so,
 * naming the routine called and OpenSHMEM's constants, the job ended.  A
 * wait on a
 * static flag nobody sets, or a shmem_long_g loop polling one: the
 * deadlock or livelock report names the routine and the variable. */
static void test_misuse(void **state)
{
    (void)state;
    shm_jobs_here();
    static const char *const want[] = {
        "/2 shmem_long_put: dest 0x",
        "runs past the end of the program's static data, which are symmetric (",
        "/2 shmem_ctx_long_p: ctx 0x", "shmem_ctx_destroy: ctx 0x",
        "shmem_set_lock: this thread holds lock 0x",
        "shmemu: PE 0/2 shmem_clear_lock: lock 0x",
        ("shmemu:   PE 0/2 in shmem_int_wait_until(ivar=stuck_flag+0x4, SHMEM_CMP_EQ, 5): "
         "ivar is 0\n"),
        "shmemu:   PE 0/2 polls shmem_long_g on polled_flag+0 of PE 1 (8 bytes) at ",
        "/2 shmem_ctx_destroy: ctx is SHMEM_CTX_DEFAULT", "/2 shmem_set_lock: lock 0x",
        "shmemu: PE 0/2 shmem_free: ptr 0x",
        "/2 shmem_broadcast64: nelems 4611686018427387904 of 8-byte elements",
        "/2 shmem_alltoall64: dst 1 over 4611686018427387904 blocks of 8-byte elements",
        "shmemu: shmem_long_p: called outside a PE (no shmem_init, or after shmem_finalize",
        "/2 shmem_long_wait_until: cmp 42 is not one of SHMEM_CMP_EQ..SHMEM_CMP_LE\n",
        "/2 shmem_long_put_signal: sig_op 77 is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD\n",
        "/2 shmem_team_destroy: the predefined team SHMEM_TEAM_WORLD cannot be destroyed\n",
        "/2 shmem_team_sync: team ", "/2 shmem_ctx_long_p: ctx 0x",
        "/2 shmem_team_split_strided: team "};
    static const char *const tail[] = {"+18446744073709551615 is outside the symmetric heap",
                                       "global+0) runs past the end",
                                       " was destroyed (shmem_ctx_destroy)\n",
                                       " was destroyed already\n",
                                       " already: it would wait for itself\n",
                                       (" is not held by this PE (no shmem_set_lock, or "
                                        "successful shmem_test_lock, took it)\n"),
                                       "shmemu:   PE 1/2 in shmem_barrier_all (",
                                       "shmemu:   PE 1/2 in shmem_barrier_all (",
                                       ", which is the library's and cannot be destroyed\n",
                                       (" is not symmetric: a lock is a symmetric long (a "
                                        "global or static variable, or from shmem_malloc) "
                                        "set to 0\n"),
                                       (" is not an allocated block: it was freed already, "
                                        "or never returned by shmem_malloc\n"),
                                       " overflows size_t\n",
                                       " overflows the address space\n",
                                       "or from a thread that is not a PE)\n",
                                       "shmemu: PE 0/2 ", "shmemu: PE 0/2 ", "shmemu: PE 0/2 ",
                                       " was destroyed on this PE (shmem_team_destroy)\n",
                                       (" is not a context (never set by shmem_ctx_create "
                                        "or shmem_team_create_ctx)\n"),
                                       " was destroyed on this PE (shmem_team_destroy)\n"};
    static const int cases[] = {0,  1,  2,  3,  4,  5,  6,  7,  9, 10,
                                11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    for (int i = 0; i < 20; i++) {
        int k = cases[i];
        struct th_outcome o;
        features_on_two("misuse", k, &o);
        /* Each report names the OpenSHMEM routine called, never the shmemu
         * call under it, and a site in the program, not in shmem.h. */
        if (exited(&o, 0) || strstr(o.out, "FAIL") || !strstr(o.out, want[i]) ||
            !strstr(o.out, tail[i]) || strstr(o.out, "shmemu_"))
            fail_msg("case %d: status %#x, output:\n%s", k, o.status, o.out);
    }
}

/* shmem_init_thread with a level that is none: -1 and one line that
 * speaks OpenSHMEM's names; a good one provides at least what it asked. */
static void test_init_thread_level(void **state)
{
    (void)state;
    shm_jobs_here();
    for (int level = 7; level >= 0; level -= 7) {
        struct th_outcome o;
        features_on_two("init_thread", level, &o);
        int bad = level == 7;
        if (bad != !exited(&o, 0) || strstr(o.out, "shmemu_") ||
            !strstr(o.out, bad ? "shmem_init_thread: -1, provided -1\n"
                               : "shmem_init_thread: 0, provided 0\n") ||
            (bad && !strstr(o.out, "shmemu: shmem_init_thread: requested thread level 7 is "
                                   "not one of SHMEM_THREAD_SINGLE..SHMEM_THREAD_MULTIPLE "
                                   "(0..3)\n")))
            fail_msg("level %d: status %#x, output:\n%s", level, o.status, o.out);
    }
}

/* Every PE polls a flag nobody sets: the livelock report names each PE's
 * site as its own process names it -- these are programs exec'd one per
 * PE, where another PE's addresses mean nothing (in checker mode, the
 * report read another process's call name through its pointer and died
 * of SIGSEGV). */
static void test_livelock_every_pe(void **state)
{
    (void)state;
    shm_jobs_here();
    for (int checked = 0; checked < 2; checked++) {
        char *argv[] = {th_tool("oshrun"), "-np", "3", th_tool("tests/progs/osh_features"),
                        "misuse", "8", NULL};
        const char *env[] = {"SHMEMU_LIVELOCK=1", checked ? "SHMEMU_CHECK=fuzz:1" : NULL,
                             NULL};
        struct th_outcome o;
        th_run_cmd(argv, env, &o);
        if (exited(&o, 0) || strstr(o.out, "FAIL") || strstr(o.out, "SIGSEGV") ||
            !strstr(o.out, "livelock: for "))
            fail_msg("checked %d: status %#x, output:\n%s", checked, o.status, o.out);
        for (int p = 0; p < 3; p++) {
            char want[128], raw[160];
            snprintf(want, sizeof(want),
                     "shmemu:   PE %d/3 polls shmem_long_g on polled_flag+0 of PE %d (8 "
                     "bytes) at ",
                     p, (p + 1) % 3);
            snprintf(raw, sizeof(raw), "%s0x", want);
            if (!strstr(o.out, want) || strstr(o.out, raw))
                fail_msg("checked %d: PE %d's site is not named:\n%s", checked, p, o.out);
        }
    }
}

/* The flags this test binary was built with that a program linked to
 * the same library needs (its sanitizer runtime). */
static const char *san_flag(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return "-fsanitize=address,undefined";
#elif defined(__SANITIZE_THREAD__)
    return "-fsanitize=thread";
#else
    return "-O1";
#endif
}

/* A program built with oshcc (the shared library) finds every family of
 * routines by name with dlsym, as test suites and profiling tools do, and
 * calls two through the pointers it found. */
static void test_by_name(void **state)
{
    (void)state;
    shm_jobs_here();
    char dir[] = "/tmp/shmemu-byname-XXXXXX", exe[64], src[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    snprintf(exe, sizeof(exe), "%s/by_name", dir);
    snprintf(src, sizeof(src), "%s/../tests/oshcc/by_name.c", th_build_dir());
    char *cc[] = {th_tool("oshcc"), "-std=c11", "-Wall", "-Wextra", "-Werror",
                  (char *)san_flag(), "-o", exe, src, NULL};
    struct th_outcome o;
    th_run_cmd(cc, NULL, &o);
    if (!exited(&o, 0))
        fail_msg("oshcc: status %#x, output:\n%s", o.status, o.out);
    char *run[] = {th_tool("oshrun"), "-np", "3", exe, NULL};
    th_run_cmd(run, NULL, &o);
    unlink(exe);
    rmdir(dir);
    if (!exited(&o, 0) || !strstr(o.out, "sum 6 want 6 missing 0\n"))
        fail_msg("status %#x, output:\n%s", o.status, o.out);
}

/* CC=oshcc for autoconf's configure and CMake, as OpenSHMEM software is
 * built (tests/oshcc/build-systems.sh): the wrapper must not take CC for
 * its own compiler, or it calls itself forever. */
static void test_build_systems(void **state)
{
    (void)state;
    shm_jobs_here();
    char script[PATH_MAX];
    snprintf(script, sizeof(script), "%s/../tests/oshcc/build-systems.sh", th_build_dir());
    char *argv[] = {script, (char *)th_build_dir(), NULL};
    char cflags[96]; /* a sanitizer build's library wants its runtime in the program */
    snprintf(cflags, sizeof(cflags), "CFLAGS=%s", san_flag());
    const char *env[] = {cflags, NULL};
    struct th_outcome o;
    th_run_cmd(argv, env, &o);
    if (!exited(&o, 0))
        fail_msg("status %#x, output:\n%s", o.status, o.out);
    int ran = 0;
    for (const char *tool = "autotools"; tool; tool = strcmp(tool, "cmake") ? "cmake" : NULL) {
        char ok[32], skipped[48];
        snprintf(ok, sizeof(ok), "%s: total 6\n", tool);
        snprintf(skipped, sizeof(skipped), "%s: skipped: ", tool);
        if (strstr(o.out, ok))
            ran++;
        else if (!strstr(o.out, skipped))
            fail_msg("%s: no result:\n%s", tool, o.out);
    }
    if (!ran)
        th_skip("neither autoconf nor cmake is installed: %s", o.out);
}

/* A program of tests/oshcc built with the wrappers in each language level
 * of builds (NULL-terminated), then run on 1, 2 and 5 PEs and under the
 * checker on 3: "NAME ok N" from PE 0 each time.  Run with "bad" on 2 PEs,
 * it ends the job with bad_line from whichever PE erred first (and says no
 * shmemu_ name). */
struct osh_build {
    const char *tool, *std, *lang;
};
static void oshcc_matrix(const char *file, const char *name, const struct osh_build *builds,
                         const char *bad_line)
{
    char dir[] = "/tmp/shmemu-oshcc-XXXXXX", exe[64], src[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    snprintf(exe, sizeof(exe), "%s/prog", dir);
    snprintf(src, sizeof(src), "%s/../tests/oshcc/%s", th_build_dir(), file);
    const char *envs[] = {NULL, NULL, NULL, "SHMEMU_CHECK=fuzz:1,race"};
    const int pes[] = {1, 2, 5, 3};
    for (const struct osh_build *b = builds; b->tool; b++) {
        char *cc[] = {th_tool(b->tool), (char *)b->std, "-Wall", "-Wextra", "-Werror",
                      (char *)san_flag(), "-o", exe, (char *)b->lang, src, NULL};
        struct th_outcome o;
        th_run_cmd(cc, NULL, &o);
        if (exited(&o, 127)) { /* the shell found no compiler */
            printf("# %s with %s skipped: no compiler\n", file, b->tool);
            continue;
        }
        if (!exited(&o, 0))
            fail_msg("%s %s %s: status %#x, output:\n%s", b->tool, b->std, file, o.status,
                     o.out);
        for (int r = 0; r < 4; r++) {
            if (th_quick() && r % 2 == 0) /* quick: 2 PEs plain, 3 checked */
                continue;
            char np[16], want[48];
            snprintf(np, sizeof(np), "%d", pes[r]);
            snprintf(want, sizeof(want), "%s ok %d\n", name, pes[r]);
            char *run[] = {th_tool("oshrun"), "-np", np, exe, NULL};
            const char *env[] = {envs[r], NULL};
            th_run_cmd(run, envs[r] ? env : NULL, &o);
            if (!exited(&o, 0) || !strstr(o.out, want))
                fail_msg("%s %s %s, %s, %d PEs: status %#x, output:\n%s", b->tool, b->std,
                         file, envs[r] ? envs[r] : "plain", pes[r], o.status, o.out);
        }
        char *bad[] = {th_tool("oshrun"), "-np", "2", exe, "bad", NULL};
        th_run_cmd(bad, NULL, &o);
        if (exited(&o, 0) || !strstr(o.out, bad_line) || strstr(o.out, "shmemu_"))
            fail_msg("%s %s %s bad: status %#x, output:\n%s", b->tool, b->std, file, o.status,
                     o.out);
        unlink(exe);
    }
    rmdir(dir);
}

/* The profiling interface as a profiling library uses it: a file that
 * includes pshmem.h alone defines shmem_long_put (counting, then calling
 * pshmem_long_put) and works through pshmem_ routines of every family, built
 * as C and as C++. */
static void test_pshmem(void **state)
{
    (void)state;
    shm_jobs_here();
    static const struct osh_build builds[] = {
        {"oshcc", "-std=c11", "-xc"}, {"oshc++", "-std=c++11", "-xc++"}, {NULL, NULL, NULL}};
    /* The twin is the same code: it names the routine as the spec does. */
    oshcc_matrix("pshmem.c", "pshmem", builds,
                 "/2 shmem_long_p: pe 2 is not a PE of this job (valid: 0..1)\n");
}

/* A program of Sandia OpenSHMEM 1.4's day: teams, team collectives,
 * several-word waits, nonblocking atomics and put-with-signal under their
 * shmemx_ names, and shmemx_wtime, in C11, C89 and C++. */
static void test_shmemx_names(void **state)
{
    (void)state;
    shm_jobs_here();
    static const struct osh_build builds[] = {{"oshcc", "-std=c11", "-xc"},
                                              {"oshcc", "-std=c89", "-xc"},
                                              {"oshc++", "-std=c++11", "-xc++"},
                                              {NULL, NULL, NULL}};
    oshcc_matrix("shmemx_names.c", "shmemx", builds,
                 "/2 shmemx_long_put_signal: pe 2 is not a PE of this job (valid: 0..1)\n");
}

/* Suites are built with old language levels too: shmem.h serves C89 and
 * C++98 (typed calls), and C99 gets the generic names (GCC and clang take
 * _Generic there), warning-free.  The wrapper tells build systems its
 * flags as Open MPI's (--showme) and MPICH's (-show) do. */
static void test_language_levels(void **state)
{
    (void)state;
    shm_jobs_here();
    char dir[] = "/tmp/shmemu-std-XXXXXX", exe[64], src[PATH_MAX], gen[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    snprintf(exe, sizeof(exe), "%s/prog", dir);
    snprintf(src, sizeof(src), "%s/../tests/oshcc/old_std.c", th_build_dir());
    snprintf(gen, sizeof(gen), "%s/../tests/progs/osh_generic.c", th_build_dir());
    static const struct {
        const char *tool, *std, *lang;
        int generic;
    } builds[] = {{"oshcc", "-std=c89", "-xc", 0},
                  {"oshc++", "-std=c++98", "-xc++", 0},
                  {"oshcc", "-std=c99", "-xc", 1}};
    for (int b = 0; b < 3; b++) {
        char *cc[] = {th_tool(builds[b].tool), (char *)builds[b].std, "-Wall", "-Wextra",
                      "-Werror", (char *)san_flag(), "-o", exe, (char *)builds[b].lang,
                      builds[b].generic ? gen : src, NULL};
        struct th_outcome o;
        th_run_cmd(cc, NULL, &o);
        if (!exited(&o, 0)) {
            if (exited(&o, 127)) { /* the shell found no compiler */
                printf("# %s %s skipped: no compiler (%s)\n", builds[b].tool, builds[b].std,
                       b == 1 ? "CXX" : "CC");
                continue;
            }
            fail_msg("%s %s: status %#x, output:\n%s", builds[b].tool, builds[b].std,
                     o.status, o.out);
        }
        char *run[] = {th_tool("oshrun"), "-np", "3", exe, NULL};
        th_run_cmd(run, NULL, &o);
        unlink(exe);
        if (!exited(&o, 0) || !strstr(o.out, builds[b].generic ? "ok 3\n" : "old_std ok 3\n"))
            fail_msg("%s %s: status %#x, output:\n%s", builds[b].tool, builds[b].std, o.status,
                     o.out);
    }
    rmdir(dir);
    char *show[] = {th_tool("oshcc"), "--showme", NULL};
    struct th_outcome o;
    th_run_cmd(show, NULL, &o);
    if (!exited(&o, 0) || !strstr(o.out, " -lshmemu ") || !strstr(o.out, "/include "))
        fail_msg("oshcc --showme: status %#x, output:\n%s", o.status, o.out);
}

/* With static data kept private, the first remote access to a global is
 * refused with one line saying what it is and what to do. */
static void test_static_off_refused(void **state)
{
    (void)state;
    shm_jobs_here();
    char *argv[] = {th_tool("oshrun"), "-np", "2", th_tool("tests/progs/osh_features"), NULL};
    const char *env[] = {"SHMEMU_STATIC=off", NULL};
    struct th_outcome o;
    th_run_cmd(argv, env, &o);
    assert_false(exited(&o, 0));
    if (!strstr(o.out, "is a global or static variable of the program, not symmetric here: "
                       "static data are symmetric only with SHMEMU_STATIC=on"))
        fail_msg("output:\n%s", o.out);
}

/* --------------------------------------------- shmemu's own API, in-process */

long g_word;             /* .bss */
long g_seeded = 77;      /* .data */
static long g_array[33]; /* an odd size */

/* Transports whose PEs are processes with a program image each, whose
 * global variables shmemu makes symmetric (SHMEMU_STATIC). */
static int own_image(const char *tl)
{
    return !strcmp(tl, "shm") || !strcmp(tl, "ucx");
}

static int body_globals(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    if (!own_image(shmemu_transport_name())) {
        /* one copy of each variable for every PE: refused, never shared */
        PE_CHECK_EQ(shmemu_long_atomic_add(&g_word, 1, (me + 1) % n), SHMEMU_ERANGE);
        PE_CHECK(shmemu_ptr(&g_word, me) == NULL);
        PE_CHECK(!shmemu_addr_accessible(&g_word, me));
        return 0;
    }
    PE_CHECK_EQ(g_seeded, 77);
    PE_CHECK_OK(shmemu_long_atomic_add(&g_word, me + 1, 0));
    for (int i = 0; i < 33; i++)
        PE_CHECK_OK(shmemu_long_p(&g_array[i], me * 100 + i, (me + 1) % n));
    PE_CHECK_OK(shmemu_barrier_all());
    if (me == 0)
        PE_CHECK_EQ(g_word, (long)n * (n + 1) / 2);
    for (int i = 0; i < 33; i++)
        PE_CHECK_EQ(g_array[i], ((me + n - 1) % n) * 100 + i);
    PE_CHECK_EQ(shmemu_long_g(&g_seeded, (me + 1) % n), 77);
    PE_CHECK(shmemu_sym_extent(&g_array[32]) >= sizeof(long));
    /* the whole array in one put, once everyone has read theirs */
    long mine[33]; /* the source: g_array itself is a target meanwhile */
    memcpy(mine, g_array, sizeof(mine));
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_OK(shmemu_putmem(g_array, mine, sizeof(g_array), (me + 1) % n));
    PE_CHECK_OK(shmemu_barrier_all());
    for (int i = 0; i < 33; i++)
        PE_CHECK_EQ(g_array[i], ((me + n - 2 + n) % n) * 100 + i);
    PE_CHECK_OK(shmemu_barrier_all());
    return 0;
}

static void test_globals_by_transport(void **state)
{
    (void)state;
    setenv("SHMEMU_STATIC", "on", 1);
    setenv("SHMEMU_ERRORS", "return", 1);
    const int npes[] = {1, 2, 3, 5};
    for (int t = 0; t < th_transport_count(); t++) {
        const char *tl = th_transport(t);
        int shm = own_image(tl);
        for (int k = 0; k < 4; k++) {
            if (!shm)
                th_capture_start();
            int st = th_launch(tl, npes[k], TH_HEAP, body_globals, NULL);
            char *err = shm ? NULL : th_capture_stop();
            if (st != SHMEMU_OK)
                fail_msg("%s, %d PEs: %d", tl, npes[k], st);
            if (err && !strstr(err, "is a global or static variable of the program, not "
                                    "symmetric here: PEs of this transport share one copy"))
                fail_msg("no refusal on %s; stderr:\n%s", tl, err);
            free(err);
        }
    }
    unsetenv("SHMEMU_ERRORS");
    unsetenv("SHMEMU_STATIC");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_features),
        cmocka_unit_test(test_features_checked),
        cmocka_unit_test(test_oshrun_options),
        cmocka_unit_test(test_race_reported),
        cmocka_unit_test(test_verdict_race),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_generic),
        cmocka_unit_test(test_contexts),
        cmocka_unit_test(test_spec_environment),
        cmocka_unit_test(test_info_oshmem),
        cmocka_unit_test(test_global_exit),
        cmocka_unit_test(test_by_name),
        cmocka_unit_test(test_build_systems),
        cmocka_unit_test(test_language_levels),
        cmocka_unit_test(test_pshmem),
        cmocka_unit_test(test_shmemx_names),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_init_thread_level),
        cmocka_unit_test(test_livelock_every_pe),
        cmocka_unit_test(test_thread_after_finalize),
        cmocka_unit_test(test_static_off_refused),
        cmocka_unit_test(test_globals_by_transport),
    };
    return cmocka_run_group_tests_name("compat", tests, NULL, NULL);
}
