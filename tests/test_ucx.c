/*
 * test_ucx.c - what the ucx transport adds beyond the suite (which
 * `make test-ucx` runs on it, over shared memory and over TCP): programs
 * started by Open MPI's mpirun join one job through PMIx, on 1 to 4 PEs
 * (more PEs than cores), over UCX's choice of fabric and over TCP; a PE that
 * crashes under mpirun ends the job instead of hanging it; OpenSHMEM
 * programs run under mpirun unchanged; the control plane of jobs over
 * several nodes gives the same answers, here on one node
 * (SHMEMU_UCX_CONTROL=network; scripts/test-multinode.sh runs it across
 * two network namespaces); PEs that compute outside the library end when
 * mpirun is killed outright.  Skipped, with the reason, where the
 * transport or mpirun is missing.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "shmemu.h"

#define LIMIT "120" /* seconds any one mpirun may take before it is killed */

static char mpirun[PATH_MAX];

static int find_mpirun(void)
{
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin"; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(mpirun, sizeof(mpirun), "%.*s/mpirun", (int)n, p);
        if (access(mpirun, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* Skip (saying why) unless ucx and mpirun are both here. */
static void need_mpirun(void)
{
    char why[256];
    if (!th_transport_wanted("ucx", why, sizeof(why))) {
        printf("# skipped: the ucx transport is not run here: %s\n", why);
        skip();
    }
    if (!find_mpirun()) {
        printf("# skipped: no mpirun on the PATH (Debian's openmpi-bin)\n");
        skip();
    }
}

/* mpirun -np n [--oversubscribe] prog args..., under a time limit, with
 * extra environment entries env. */
static void run_mpi_argv(int n, const char *const env[], const char *prog,
                         const char *const args[], struct th_outcome *o)
{
    char np[16];
    snprintf(np, sizeof(np), "%d", n);
    char *argv[24];
    int k = 0;
    argv[k++] = "/usr/bin/timeout";
    argv[k++] = "-s";
    argv[k++] = "KILL";
    argv[k++] = LIMIT;
    argv[k++] = mpirun;
    argv[k++] = "-np";
    argv[k++] = np;
    argv[k++] = "--oversubscribe";
    if (getuid() == 0)
        argv[k++] = "--allow-run-as-root";
    argv[k++] = th_tool(prog);
    for (int i = 0; args && args[i] && k < 23; i++)
        argv[k++] = (char *)args[i];
    argv[k] = NULL;
    /* Programs linked with libshmemu.a look for the plugin beside
     * themselves, and tests/progs is not beside it. */
    char plugin[PATH_MAX + 32], pmix[PATH_MAX + 32], lsan[PATH_MAX + 64];
    snprintf(plugin, sizeof(plugin), "SHMEMU_UCX_PLUGIN=%s", th_tool("libshmemu-ucx.so"));
    snprintf(pmix, sizeof(pmix), "SHMEMU_PMIX_PLUGIN=%s", th_tool("libshmemu-pmix.so"));
    /* Under ASan: what libpmix keeps to the end is not ours. */
    snprintf(lsan, sizeof(lsan), "LSAN_OPTIONS=suppressions=%s/../tests/lsan.supp",
             th_build_dir());
    const char *all[9] = {plugin, pmix, lsan};
    for (int i = 0; env && env[i] && i < 5; i++)
        all[i + 3] = env[i];
    th_run_cmd(argv, all, o);
    if (strstr(o->out, "built without PMIx")) {
        printf("# skipped: %s", strstr(o->out, "shmemu was built without PMIx"));
        skip();
    }
}

static void run_mpi(int n, const char *const env[], const char *prog, const char *arg,
                    const char *arg2, struct th_outcome *o)
{
    const char *const args[] = {arg, arg ? arg2 : NULL, NULL};
    run_mpi_argv(n, env, prog, args, o);
}

/* examples/hello_spmd: PE p gets 1000 + left from its left neighbour. */
static void check_hello(int n, const struct th_outcome *o, const char *how)
{
    if (!WIFEXITED(o->status) || WEXITSTATUS(o->status) != 0)
        fail_msg("%s, %d PEs: status %#x, output:\n%s", how, n, o->status, o->out);
    for (int p = 0; p < n; p++) {
        int left = (p + n - 1) % n;
        char want[96];
        snprintf(want, sizeof(want), "PE %d/%d on ucx got %d from PE %d\n", p, n, 1000 + left,
                 left);
        if (!strstr(o->out, want))
            fail_msg("%s, %d PEs: no \"%.*s\" in:\n%s", how, n, (int)strlen(want) - 1, want,
                     o->out);
    }
}

static void test_hello(void **state)
{
    (void)state;
    need_mpirun();
    for (int n = 1; n <= 4; n++) {
        struct th_outcome o;
        run_mpi(n, NULL, "examples/hello_spmd", NULL, NULL, &o);
        check_hello(n, &o, "UCX's choice of fabric");
    }
}

static void test_hello_tcp(void **state)
{
    (void)state;
    need_mpirun();
    const char *env[] = {"UCX_TLS=tcp", NULL};
    for (int n = 2; n <= 3; n++) {
        struct th_outcome o;
        run_mpi(n, env, "examples/hello_spmd", NULL, NULL, &o);
        check_hello(n, &o, "UCX_TLS=tcp");
    }
}

/* A named control segment whose maker was killed inside the join leaks:
 * the next job's maker removes such leftovers of this user -- maker gone,
 * older than an hour -- and nothing else (a young one could be a live
 * join; a live maker's is its own). */
static void make_segment(const char *path, int hours_old)
{
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    assert_true(fd >= 0);
    close(fd);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= hours_old * 3600;
    t[1] = t[0];
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

static void test_stale_segment_removed(void **state)
{
    (void)state;
    need_mpirun();
    pid_t dead = fork(); /* a pid that is surely gone */
    if (dead == 0)
        _exit(0);
    assert_true(dead > 0);
    waitpid(dead, NULL, 0);
    char old[128], young[128], live[128];
    snprintf(old, sizeof(old), "/dev/shm/shmemu.%u.%d.test_stale_old", (unsigned)getuid(),
             (int)dead);
    snprintf(young, sizeof(young), "/dev/shm/shmemu.%u.%d.test_stale_young",
             (unsigned)getuid(), (int)dead);
    snprintf(live, sizeof(live), "/dev/shm/shmemu.%u.%d.test_stale_live", (unsigned)getuid(),
             (int)getpid());
    make_segment(old, 2);
    make_segment(young, 0);
    make_segment(live, 2);
    struct th_outcome o;
    run_mpi(2, NULL, "examples/hello_spmd", NULL, NULL, &o);
    int old_gone = access(old, F_OK) != 0, young_kept = access(young, F_OK) == 0,
        live_kept = access(live, F_OK) == 0;
    unlink(old);
    unlink(young);
    unlink(live);
    check_hello(2, &o, "after leftovers");
    if (!old_gone || !young_kept || !live_kept)
        fail_msg("stale removed %d, young kept %d, live maker's kept %d", old_gone,
                 young_kept, live_kept);
}

/* An OpenSHMEM 1.5 program, every feature area, under mpirun: "ok N". */
static void test_openshmem(void **state)
{
    (void)state;
    need_mpirun();
    for (int n = 1; n <= 4; n += 3) {
        struct th_outcome o;
        char want[24];
        snprintf(want, sizeof(want), "ok %d\n", n);
        run_mpi(n, NULL, "tests/progs/osh_features", NULL, NULL, &o);
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 || !strstr(o.out, want) ||
            strstr(o.out, "FAIL"))
            fail_msg("%d PEs: status %#x, output:\n%s", n, o.status, o.out);
    }
}

/* The suite's other OpenSHMEM programs under mpirun, each of its own
 * subject: the generic names for every type (C11 _Generic), threads inside
 * each PE (SHMEM_THREAD_MULTIPLE), contexts of teams and per-context
 * completion; over UCX's choice of fabric, over TCP, with the control
 * plane over the network, and checked (fuzz and race detection, where the
 * PEs share one control area).  Exact values: "ok N", no "FAIL". */
static void test_openshmem_programs(void **state)
{
    (void)state;
    need_mpirun();
    static const struct {
        int n;
        const char *prog, *arg, *env[3];
    } runs[] = {
        {3, "tests/progs/osh_generic", NULL, {NULL}},
        {5, "tests/progs/osh_generic", NULL, {"UCX_TLS=tcp", NULL}},
        {2, "tests/progs/osh_generic", NULL, {"SHMEMU_UCX_CONTROL=network", NULL}},
        {3, "tests/progs/osh_generic", NULL, {"SHMEMU_CHECK=fuzz:1,race", NULL}},
        {4, "tests/progs/osh_threads", NULL, {NULL}},
        {3, "tests/progs/osh_threads", NULL, {"UCX_TLS=tcp", "SHMEMU_UCX_CONTROL=network", NULL}},
        {2, "tests/progs/osh_threads", NULL, {"SHMEMU_CHECK=fuzz:1,race", NULL}},
        {3, "tests/progs/osh_ctx", "team", {NULL}},
        {5, "tests/progs/osh_ctx", "team", {"UCX_TLS=tcp", NULL}},
        {3, "tests/progs/osh_ctx", "good", {"SHMEMU_CHECK=fuzz:2", NULL}},
        {4, "tests/progs/osh_features", NULL, {"UCX_TLS=tcp", "SHMEMU_UCX_CONTROL=network", NULL}},
    };
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
        struct th_outcome o;
        char want[24];
        snprintf(want, sizeof(want), "ok %d\n", runs[r].n);
        run_mpi(runs[r].n, runs[r].env, runs[r].prog, runs[r].arg, NULL, &o);
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 || !strstr(o.out, want) ||
            strstr(o.out, "FAIL"))
            fail_msg("%s %s, %d PEs, %s%s%s: status %#x, output:\n%s", runs[r].prog,
                     runs[r].arg ? runs[r].arg : "", runs[r].n,
                     runs[r].env[0] ? runs[r].env[0] : "UCX's choice",
                     runs[r].env[0] && runs[r].env[1] ? " " : "",
                     runs[r].env[0] && runs[r].env[1] ? runs[r].env[1] : "", o.status, o.out);
    }
}

/* A race under mpirun (no shmemu launcher looks at the job's end): the
 * last PE to finalize prints the note and its process exits 1, so mpirun
 * fails the job; the ordered twin exits 0 without a note.  Also under
 * fuzzing (seed 1). */
static void test_race_reported(void **state)
{
    (void)state;
    need_mpirun();
    static const char *const checks[] = {"SHMEMU_CHECK=race", "SHMEMU_CHECK=fuzz:1,race"};
    for (int c = 0; c < 2; c++)
        for (int ordered = 0; ordered <= 1; ordered++) {
            const char *const env[] = {checks[c], NULL};
            struct th_outcome o;
            run_mpi(3, env, "tests/progs/osh_features", "race", ordered ? "1" : "0", &o);
            const char *note = strstr(o.out, "shmemu-check: note: race: PE ");
            int ok = ordered ? WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0 &&
                                   !strstr(o.out, "shmemu")
                             : WIFEXITED(o.status) && WEXITSTATUS(o.status) != 0 && note &&
                                   strstr(note, "'s shmem_long_put (at main+") &&
                                   strstr(note, "(raced+0) of PE 2's heap, which PE ") &&
                                   !strstr(note + 1, "shmemu-check: note: race");
            if (!ok)
                fail_msg("%s, %s: status %#x, output:\n%s", checks[c],
                         ordered ? "ordered" : "unordered", o.status, o.out);
        }
}

/* shmem_global_exit(N) under mpirun: mpirun ends every process (one
 * computes outside the library) and exits with N, 0 included, with no
 * report of processes that ended without telling it. */
static void test_global_exit(void **state)
{
    (void)state;
    need_mpirun();
    static const char *const codes[] = {"0", "5"};
    for (int i = 0; i < 2; i++) {
        struct th_outcome o;
        run_mpi(4, NULL, "tests/progs/osh_features", "exit", codes[i], &o);
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != atoi(codes[i]) ||
            strstr(o.out, "FAIL") || strstr(o.out, "improperly") ||
            strstr(o.out, "aborted"))
            fail_msg("status %s: status %#x, output:\n%s", codes[i], o.status, o.out);
    }
}

/* A rank's forked child calls shmemu_init, while the rank is a PE and after
 * it finalized: refused at once, each with a line naming the fork
 * (tests/progs/forked), and the ranks go on to a job of their own. */
static void test_forked_child(void **state)
{
    (void)state;
    need_mpirun();
    struct th_outcome o;
    run_mpi(3, NULL, "tests/progs/forked", NULL, NULL, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 || !strstr(o.out, "ok 3\n") ||
        o.secs > 60)
        fail_msg("status %#x after %.1f s, output:\n%s", o.status, o.secs, o.out);
    for (int r = 0; r < 3; r++) {
        char want[64], pe_line[64], rank_line[96];
        snprintf(pe_line, sizeof(pe_line), ") is a fork of PE %d's process (pid ", r);
        snprintf(rank_line, sizeof(rank_line), ", rank %d of the launcher's job, and not itself",
                 r);
        for (int k = 1; k <= 2; k++) {
            snprintf(want, sizeof(want), "child %d.%d: status %d\n", r, k, SHMEMU_ENOTSUP);
            if (!strstr(o.out, want))
                fail_msg("no \"%.*s\":\n%s", (int)strlen(want) - 1, want, o.out);
        }
        if (!strstr(o.out, pe_line) || !strstr(o.out, rank_line))
            fail_msg("rank %d: no line naming the fork:\n%s", r, o.out);
    }
}

/* A PE killed while the others wait in a barrier, a wait, or compute:
 * mpirun ends the job (status nonzero) well before the time limit. */
static void crash_ends_job(const char *const env[], const char *how, const char *where)
{
    struct th_outcome o;
    run_mpi(4, env, "tests/progs/crashy", how, where, &o); /* more PEs than cores */
    if (WIFSIGNALED(o.status) || (WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) ||
        o.secs > 60)
        fail_msg("crashy %s %s under mpirun (%s): status %#x after %.1f s, output:\n%s", how,
                 where, env ? env[0] : "", o.status, o.secs, o.out);
}

static void test_crash_ends_job(void **state)
{
    (void)state;
    need_mpirun();
    crash_ends_job(NULL, "kill", "barrier");
    crash_ends_job(NULL, "segv", "wait");
    crash_ends_job(NULL, "exit3", "compute");
}

/* The control plane over the network (what a job over several nodes
 * runs), tested here on one node: the same programs, the same answers. */
static const char *const net_env[] = {"SHMEMU_UCX_CONTROL=network", NULL};

static void test_network_control(void **state)
{
    (void)state;
    need_mpirun();
    for (int n = 1; n <= 4; n++) {
        struct th_outcome o;
        run_mpi(n, net_env, "examples/hello_spmd", NULL, NULL, &o);
        check_hello(n, &o, "SHMEMU_UCX_CONTROL=network");
    }
    const char *const tcp_env[] = {"SHMEMU_UCX_CONTROL=network", "UCX_TLS=tcp", NULL};
    for (int n = 3; n <= 4; n++) {
        struct th_outcome o;
        char want[24];
        snprintf(want, sizeof(want), "ok %d\n", n);
        run_mpi(n, n == 3 ? net_env : tcp_env, "tests/progs/osh_features", NULL, NULL, &o);
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 || !strstr(o.out, want) ||
            strstr(o.out, "FAIL"))
            fail_msg("network control, %d PEs: status %#x, output:\n%s", n, o.status, o.out);
    }
}

/* The network plane's barrier (net.c): no PE through early, on the world
 * and on strided teams whose sizes are not powers of two, and PEs in
 * different collective calls all told so. */
static void test_network_control_syncs(void **state)
{
    (void)state;
    need_mpirun();
    const char *const tcp_env[] = {"SHMEMU_UCX_CONTROL=network", "UCX_TLS=tcp", NULL};
    static const int npes[] = {2, 3, 5, 6};
    for (size_t k = 0; k < sizeof(npes) / sizeof(npes[0]); k++) {
        int n = npes[k];
        for (int m = 0; m < 2; m++) {
            const char *mode = m ? "mixed" : "order";
            struct th_outcome o;
            char want[24];
            snprintf(want, sizeof(want), "ok %d\n", n);
            run_mpi(n, n == 5 ? tcp_env : net_env, "tests/progs/syncs", mode, NULL, &o);
            if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 || !strstr(o.out, want) ||
                strstr(o.out, "FAIL"))
                fail_msg("syncs %s, %d PEs: status %#x, output:\n%s", mode, n, o.status,
                         o.out);
            if (m && !strstr(o.out, "shmemu_barrier_all: PEs disagree: this PE is in a "
                                    "barrier or team sync while others of the team are in "
                                    "a collective allocation"))
                fail_msg("syncs mixed, %d PEs: the barrier's mismatch was not told:\n%s", n,
                         o.out);
        }
    }
}

/* Livelock detection over the network plane, where each PE's polling
 * record lives in its own process: every PE polls a flag nobody sets, or
 * one polls while the others wait in a barrier. */
static void test_network_control_livelock(void **state)
{
    (void)state;
    need_mpirun();
    const char *const env[] = {"SHMEMU_UCX_CONTROL=network", "SHMEMU_LIVELOCK=1", NULL};
    for (int every = 0; every < 2; every++) {
        struct th_outcome o;
        run_mpi(3, env, "tests/progs/osh_features", "misuse", every ? "8" : "7", &o);
        const char *want = every ? ("shmemu:   PE 2/3 polls shmem_long_g on polled_flag+0 "
                                    "of PE 0 (8 bytes) at ")
                                 : "shmemu:   PE 1/3 in shmem_barrier_all (team slot 0)\n";
        if (WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0)
            fail_msg("misuse %d: the job did not fail:\n%s", 7 + every, o.out);
        if (!strstr(o.out, "shmemu: livelock: for ") ||
            !strstr(o.out, "shmemu:   PE 0/3 polls shmem_long_g on polled_flag+0 of PE 1 (8 "
                           "bytes) at ") ||
            !strstr(o.out, want) || strstr(o.out, "FAIL"))
            fail_msg("misuse %d: no livelock report, or not this one:\n%s", 7 + every, o.out);
    }
}

static void test_network_control_crash(void **state)
{
    (void)state;
    need_mpirun();
    crash_ends_job(net_env, "kill", "barrier");
    crash_ends_job(net_env, "segv", "wait");
}

/* Every PE waits for a flag nobody sets: the deadlock is proven from the
 * PEs' blocks, reported once with a line per PE, and ends the job. */
static void test_network_control_deadlock(void **state)
{
    (void)state;
    need_mpirun();
    const char *const tcp_env[] = {"SHMEMU_UCX_CONTROL=network", "UCX_TLS=tcp", NULL};
    for (int k = 0; k < 2; k++) {
        struct th_outcome o;
        run_mpi(3, k ? tcp_env : net_env, "tests/progs/crashy", "none", "wait", &o);
        const char *rep = strstr(o.out, "deadlock: all 3 PEs are blocked");
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) == 0 || o.secs > 60 || !rep ||
            strstr(rep + 1, "deadlock: all 3 PEs are blocked"))
            fail_msg("%s: status %#x after %.1f s, output:\n%s", k ? "tcp" : "shm", o.status,
                     o.secs, o.out);
        for (int p = 0; p < 3; p++) {
            char want[80];
            snprintf(want, sizeof(want), "PE %d/3 in shmemu_int_wait_until(ivar=heap+0x", p);
            const char *line = strstr(o.out, want);
            if (!line)
                fail_msg("no \"%s\" in:\n%s", want, o.out);
            /* the value it waits on, read from it where it is not mapped */
            const char *eol = strchr(line, '\n'), *val = strstr(line, "): ivar is 0");
            if (!val || (eol && val > eol))
                fail_msg("PE %d's line does not show the value it waits on:\n%s", p, o.out);
        }
    }
}

/* Checker mode needs the shared control area: refused, with the reason. */
static void test_network_control_no_checker(void **state)
{
    (void)state;
    need_mpirun();
    const char *const env[] = {"SHMEMU_UCX_CONTROL=network", "SHMEMU_CHECK=race", NULL};
    struct th_outcome o;
    run_mpi(2, env, "examples/hello_spmd", NULL, NULL, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) == 0 ||
        !strstr(o.out, "checker mode needs a control area every PE shares"))
        fail_msg("status %#x, output:\n%s", o.status, o.out);
}

/* A value the control plane does not know is refused with the reason. */
static void test_network_control_bad_value(void **state)
{
    (void)state;
    need_mpirun();
    const char *const env[] = {"SHMEMU_UCX_CONTROL=telepathy", NULL};
    struct th_outcome o;
    run_mpi(2, env, "examples/hello_spmd", NULL, NULL, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) == 0 ||
        !strstr(o.out, "SHMEMU_UCX_CONTROL=telepathy: expected auto, shared or network"))
        fail_msg("status %#x, output:\n%s", o.status, o.out);
}

/* SHMEMU_TRANSPORT under mpirun: ucx joins its job; a transport that
 * cannot (its processes would share nothing to start from) is refused with
 * one line, not ignored. */
static void test_launcher_transport(void **state)
{
    (void)state;
    need_mpirun();
    const char *const ucx[] = {"SHMEMU_TRANSPORT=ucx", NULL};
    struct th_outcome o;
    run_mpi(2, ucx, "examples/hello_spmd", NULL, NULL, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 ||
        !strstr(o.out, "PE 0/2 on ucx got 1001 from PE 1") ||
        !strstr(o.out, "PE 1/2 on ucx got 1000 from PE 0"))
        fail_msg("SHMEMU_TRANSPORT=ucx: status %#x, output:\n%s", o.status, o.out);
    const char *const shm[] = {"SHMEMU_TRANSPORT=shm", NULL};
    run_mpi(2, shm, "examples/hello_spmd", NULL, NULL, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) == 0 ||
        !strstr(o.out, "_init: SHMEMU_TRANSPORT=shm cannot run a job that a launcher (mpirun) "
                       "started: its processes share nothing to start from (ucx can)\n"))
        fail_msg("SHMEMU_TRANSPORT=shm: status %#x, output:\n%s", o.status, o.out);
}

/* The verifier's quick matrix inside one mpirun job of 4 PEs: every
 * built-in passes; a planted bug is found. */
static void test_verify_under_mpirun(void **state)
{
    (void)state;
    need_mpirun();
    struct th_outcome o;
    run_mpi(4, NULL, "shmemu-verify", "--quick", NULL, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 ||
        !strstr(o.out, "inside a job of 4 PEs on ucx") || !strstr(o.out, " passed, 0 failed\n"))
        fail_msg("mpirun -np 4 shmemu-verify --quick: status %#x, output:\n%s", o.status, o.out);
    const char *const args[] = {"--lib",        th_tool("examples/libmy_allreduce_buggy.so"),
                                "--symbol",     "my_allreduce_buggy",
                                "--collective", "allreduce",
                                "--quick",      NULL};
    run_mpi_argv(4, NULL, "shmemu-verify", args, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) == 0 ||
        !strstr(o.out, "first failure: wrong result"))
        fail_msg("a planted bug under mpirun: status %#x, output:\n%s", o.status, o.out);
}

/* The children of ppid named comm (from /proc), up to max of them. */
static int children_named(pid_t ppid, const char *comm, pid_t *out, int max)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (d && n < max && (e = readdir(d))) {
        char path[300], buf[512];
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[len] = '\0';
        char *open = strchr(buf, '('), *close = strrchr(buf, ')');
        int pp;
        if (!open || !close || sscanf(close + 2, "%*c %d", &pp) != 1 || pp != ppid)
            continue;
        *close = '\0';
        if (!strcmp(open + 1, comm))
            out[n++] = (pid_t)atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

/* Gone: no such process, or a zombie nobody has reaped yet. */
static int gone(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[len] = '\0';
    char *close = strrchr(buf, ')');
    return close && close[1] && close[2] == 'Z';
}

static void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* mpirun killed with SIGKILL while its PEs compute (never entering the
 * library): each PE process notices its launcher is gone and ends instead
 * of running on as an orphan. */
static void test_launcher_killed(void **state)
{
    (void)state;
    need_mpirun();
    char out[] = "/tmp/shmemu-launcher-XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    char plugin[PATH_MAX + 32];
    snprintf(plugin, sizeof(plugin), "%s", th_tool("libshmemu-ucx.so"));
    char *prog = th_tool("tests/progs/crashy");
    pid_t run = fork();
    if (run == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        setenv("SHMEMU_UCX_PLUGIN", plugin, 1);
        setenv("SHMEMU_PMIX_PLUGIN", th_tool("libshmemu-pmix.so"), 1);
        char *argv[] = {mpirun, "-np", "2", "--oversubscribe", "--allow-run-as-root", prog,
                        "none", "compute", NULL};
        if (getuid() != 0)
            argv[4] = prog, argv[5] = "none", argv[6] = "compute", argv[7] = NULL;
        execv(mpirun, argv);
        _exit(127);
    }
    assert_true(run > 0);
    pid_t pes[2];
    int n = 0, status, ended = 0;
    for (int i = 0; i < 600 && n < 2 && !ended; i++) { /* up to 60 s to start */
        nap(100);
        n = children_named(run, "crashy", pes, 2);
        ended = n < 2 && waitpid(run, &status, WNOHANG) == run; /* it gave up */
    }
    if (!ended) {
        nap(1500); /* past shmemu_init and the barrier: computing */
        kill(run, SIGKILL);
        waitpid(run, &status, 0);
    }
    int left = n;
    for (int i = 0; i < 100 && left; i++) { /* a PE looks 4 times a second */
        nap(100);
        left = 0;
        for (int k = 0; k < n; k++)
            left += !gone(pes[k]);
    }
    for (int k = 0; k < n; k++)
        if (!gone(pes[k]))
            kill(pes[k], SIGKILL);
    char text[4096] = "";
    ssize_t len = pread(fd, text, sizeof(text) - 1, 0);
    text[len > 0 ? len : 0] = '\0';
    close(fd);
    unlink(out);
    if (n != 2 && strstr(text, "built without PMIx")) {
        printf("# skipped: %s", strstr(text, "shmemu was built without PMIx"));
        skip();
    }
    if (n != 2)
        fail_msg("mpirun started %d PE processes in 60 s; output:\n%s", n, text);
    if (left)
        fail_msg("%d PE(s) still ran 10 s after mpirun was killed; output:\n%s", left, text);
    /* What a PE says then went to mpirun's pipes, which died with it. */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello),
        cmocka_unit_test(test_hello_tcp),
        cmocka_unit_test(test_stale_segment_removed),
        cmocka_unit_test(test_openshmem),
        cmocka_unit_test(test_openshmem_programs),
        cmocka_unit_test(test_global_exit), cmocka_unit_test(test_forked_child),
        cmocka_unit_test(test_race_reported),
        cmocka_unit_test(test_crash_ends_job),
        cmocka_unit_test(test_network_control),
        cmocka_unit_test(test_network_control_syncs),
        cmocka_unit_test(test_network_control_livelock),
        cmocka_unit_test(test_network_control_crash),
        cmocka_unit_test(test_network_control_deadlock),
        cmocka_unit_test(test_network_control_no_checker),
        cmocka_unit_test(test_network_control_bad_value),
        cmocka_unit_test(test_launcher_transport),
        cmocka_unit_test(test_verify_under_mpirun),
        cmocka_unit_test(test_launcher_killed),
    };
    return cmocka_run_group_tests_name("ucx", tests, NULL, NULL);
}
