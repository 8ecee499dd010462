/* test_crash.c - PEs as processes: crashes in every situation (under
 * shmemu-run and shmemu_launch), no process or segment left behind, signals,
 * timeouts, segment permissions, malformed launcher environments. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../transports/shm/shm.h"
#include "harness.h"


/* These tests need PEs as processes: skip them when the transport filter
 * (SHMEMU_TEST_TRANSPORTS) leaves shm out, as the sanitizer runs do. */
static void need_shm(void)
{
    for (int i = 0; i < th_transport_count(); i++)
        if (strcmp(th_transport(i), "shm") == 0)
            return;
    printf("# skipped: needs PEs as processes (the shm transport), which this run "
           "leaves out\n");
    skip();
}

/* The names in /dev/shm, joined: compared before and after each case. */
static char *shm_listing(void)
{
    size_t cap = 4096, used = 0;
    char *s = calloc(1, cap);
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (used + n + 2 >= cap)
            s = realloc(s, cap *= 2);
        memcpy(s + used, e->d_name, n);
        used += n;
        s[used++] = '\n';
        s[used] = '\0';
    }
    if (d)
        closedir(d);
    return s;
}

/* No segment left behind: every name in after that before lacks is a
 * leak, but for a shmemu segment whose creator (its name's pid) still
 * runs: another job on this machine made it, not one of ours, which have
 * all ended; and for UCX's own (ucx_*), which only a ucx job makes, while
 * the jobs these checks watch all run on shm (test_ucx checks ucx's).
 * Names gone meanwhile are other jobs' that ended. */
static void assert_no_leak(const char *before, const char *after)
{
    for (const char *l = after; *l;) {
        size_t n = strcspn(l, "\n");
        char name[256];
        snprintf(name, sizeof(name), "%.*s", (int)(n < 255 ? n : 255), l);
        l += n + (l[n] == '\n');
        int found = 0;
        for (const char *b = before; *b && !found;) {
            size_t m = strcspn(b, "\n");
            found = m == n && !strncmp(b, name, n);
            b += m + (b[m] == '\n');
        }
        unsigned uid;
        int pid, at = 0;
        if (found || !strncmp(name, "ucx_", 4) ||
            (sscanf(name, "shmemu.%u.%d.%n", &uid, &pid, &at) == 2 && pid > 0 &&
             (kill(pid, 0) == 0 || errno == EPERM)))
            continue;
        /* a job's segment ends in 32 hex digits; test_ucx's made-up stale
         * ones (another program on this machine may run it meanwhile) do not */
        if (at && (strspn(name + at, "0123456789abcdef") != 32 || name[at + 32]))
            continue;
        /* Test programs run side by side (scripts/run-tests.sh): another's
         * job may have ended and removed its segment since the listing. */
        char path[300];
        snprintf(path, sizeof(path), "/dev/shm/%s", name);
        if (access(path, F_OK) != 0)
            continue;
        fail_msg("segment /dev/shm/%s was left behind", name);
    }
}

/* Live processes whose parent is this test, after reaping those that ended
 * (orphans come back here: we are a child subreaper).  Gives stragglers
 * that are already dying a moment to go. */
static int count_children(void)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], buf[512];
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t got = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (got <= 0)
            continue;
        buf[got] = '\0';
        char *p = strrchr(buf, ')'); /* "pid (comm) state ppid" */
        char state;
        int ppid;
        if (p && sscanf(p + 1, " %c %d", &state, &ppid) == 2 && ppid == getpid() &&
            state != 'Z')
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

static int my_children(void)
{
    int n = 0;
    for (int tries = 0; tries < 50; tries++) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if ((n = count_children()) == 0)
            return 0;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return n;
}

/* Run argv with extra environment entries (NAME=VALUE, NULL-terminated);
 * under AddressSanitizer, deliberate crashes stay crashes.  A job that
 * hangs is killed after 120 s (and fails the test by its status): how
 * fast a job ends after a crash is measured by make stress, not here. */
static void run_cmd(char *const argv[], const char *const env[], struct th_outcome *o)
{
    const char *all[16] = {"ASAN_OPTIONS=handle_segv=0:detect_leaks=0"};
    int n = 1;
    for (int i = 0; env && env[i] && n < 15; i++)
        all[n++] = env[i];
    char *cmd[32] = {"/usr/bin/timeout", "-s", "KILL", "120"};
    int k = 4;
    for (int i = 0; argv[i] && k < 31; i++)
        cmd[k++] = argv[i];
    cmd[k] = NULL;
    th_run_cmd(cmd, all, o);
}

static const char *hows[] = {"segv", "abort", "exit3", "kill"};
static const int how_sig[] = {SIGSEGV, SIGABRT, 0, SIGKILL};
static const char *how_text[] = {"killed by SIGSEGV", "killed by SIGABRT",
                                 "exited with status 3 before finalizing",
                                 "killed by SIGKILL"};
static const char *wheres[] = {"barrier", "wait", "compute"};

static void test_run_crashes(void **state)
{
    (void)state;
    need_shm();
    for (int h = 0; h < 4; h++)
        for (int w = 0; w < 3; w++) {
            char *before = shm_listing();
            struct th_outcome o;
            char *argv[] = {th_tool("shmemu-run"), "-n", "4", "--", th_tool("tests/progs/crashy"),
                            (char *)hows[h], (char *)wheres[w], NULL};
            run_cmd(argv, NULL, &o);
            char *after = shm_listing();
            if (!(WIFEXITED(o.status) &&
                  WEXITSTATUS(o.status) == (how_sig[h] ? 128 + how_sig[h] : 3)))
                fail_msg("%s/%s: shmemu-run status %#x; output:\n%s", hows[h], wheres[w],
                         o.status, o.out);
            char want[128];
            snprintf(want, sizeof(want), "shmemu-run: PE 2 (pid ");
            assert_non_null(strstr(o.out, want));
            snprintf(want, sizeof(want), ") %s; aborting job\n", how_text[h]);
            if (!strstr(o.out, want))
                fail_msg("%s/%s: no '%s' in:\n%s", hows[h], wheres[w], want, o.out);
            assert_null(strstr(o.out, "returned from"));
            assert_int_equal(my_children(), 0);
            assert_no_leak(before, after);
            free(before);
            free(after);
        }
}

/* The same under shmemu_launch on the shm transport: PEs are forked. */
struct crash_case {
    int how, where;
};

static int body_crash(void *arg)
{
    const struct crash_case *c = arg;
    int me = shmemu_my_pe();
    int *flag = shmemu_calloc(1, sizeof(int));
    shmemu_barrier_all();
    if (me == 2) {
        /* cmocka catches SIGSEGV and SIGABRT to report test crashes, and a
         * forked PE inherits that: crash the way a plain program would. */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGABRT, SIG_DFL);
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
        if (c->how == 0) {
            volatile uintptr_t bad = 8;
            *(volatile int *)bad = 1;
        }
        if (c->how == 1)
            abort();
        if (c->how == 2)
            _exit(3);
        raise(SIGKILL);
    }
    if (c->where == 0)
        shmemu_barrier_all();
    else if (c->where == 1)
        shmemu_int_wait_until(flag, SHMEMU_CMP_EQ, 1);
    else
        for (volatile unsigned long spin = 0;; spin++)
            ;
    th_pe_fail(__FILE__, __LINE__, "returned after PE 2 crashed");
}

static void test_launch_crashes(void **state)
{
    (void)state;
    need_shm();
    for (int h = 0; h < 4; h++)
        for (int w = 0; w < 3; w++) {
            char *before = shm_listing();
            struct crash_case c = {h, w};
            th_capture_start();
            int rc = th_launch("shm", 4, 0, body_crash, &c);
            char *err = th_capture_stop();
            char *after = shm_listing();
            if (rc != (h == 2 ? 3 : SHMEMU_EABORTED))
                fail_msg("%s/%s: shmemu_launch returned %d; output:\n%s", hows[h],
                         wheres[w], rc, err);
            char want[128];
            snprintf(want, sizeof(want), ") %s; aborting job\n", how_text[h]);
            if (!strstr(err, "shmemu: PE 2 (pid ") || !strstr(err, want))
                fail_msg("%s/%s: no report naming PE 2 in:\n%s", hows[h], wheres[w], err);
            assert_null(strstr(err, "FAIL"));
            assert_int_equal(my_children(), 0);
            assert_no_leak(before, after);
            free(err);
            free(before);
            free(after);
        }
}

/* ^C to the launcher reaches every PE; the launcher reports it. */
static void test_sigint(void **state)
{
    (void)state;
    need_shm();
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        putenv("ASAN_OPTIONS=handle_segv=0:detect_leaks=0");
        execl(th_tool("shmemu-run"), "shmemu-run", "-n", "3", "--",
              th_tool("tests/progs/crashy"), "none", "compute", (char *)NULL);
        _exit(126);
    }
    close(fds[1]);
    struct timespec ts = {0, 300000000};
    nanosleep(&ts, NULL);
    kill(pid, SIGINT);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char buf[4096] = {0};
    ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
    (void)n;
    close(fds[0]);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 128 + SIGINT);
    assert_non_null(strstr(buf, "killed by SIGINT; aborting job"));
    assert_int_equal(my_children(), 0);
}

/* --timeout ends a stuck job and says where every PE is. */
static void test_timeout(void **state)
{
    (void)state;
    need_shm();
    struct th_outcome o;
    /* PE 2 computes (a pure loop), the others wait in a barrier for it */
    char *argv[] = {th_tool("shmemu-run"), "-n", "3", "--timeout", "0.5", "--",
                    th_tool("tests/progs/crashy"), "none", "barrier", NULL};
    char *before = shm_listing();
    run_cmd(argv, (const char *const[]){"CRASHY_VICTIM_COMPUTES=1", NULL}, &o);
    char *after = shm_listing();
    assert_true(WIFEXITED(o.status));
    assert_int_equal(WEXITSTATUS(o.status), 124);
    assert_non_null(strstr(o.out, "shmemu-run: the job ran past its 0.5 s timeout; where "
                                  "each PE is:"));
    assert_non_null(strstr(o.out, "shmemu-run:   PE 0/3 in shmemu_barrier_all"));
    assert_non_null(strstr(o.out, "shmemu-run:   PE 2/3 is running"));
    assert_int_equal(my_children(), 0);
    assert_no_leak(before, after);
    free(before);
    free(after);
}

/* Without --timeout, SHMEMU_TIMEOUT does it, as for a launched job (and a
 * checked job gets 300 s: a checked program that hangs never hangs CI). */
static void test_timeout_env(void **state)
{
    (void)state;
    need_shm();
    struct th_outcome o;
    char *argv[] = {th_tool("shmemu-run"), "-n", "2", "--", th_tool("tests/progs/crashy"),
                    "none", "barrier", NULL};
    run_cmd(argv, (const char *const[]){"CRASHY_VICTIM_COMPUTES=1", "SHMEMU_TIMEOUT=0.5", NULL},
            &o);
    assert_true(WIFEXITED(o.status));
    assert_int_equal(WEXITSTATUS(o.status), 124);
    assert_non_null(strstr(o.out, "shmemu-run: the job ran past its 0.5 s timeout"));
    assert_int_equal(my_children(), 0);
}

static void test_tag_output(void **state)
{
    (void)state;
    need_shm();
    struct th_outcome o;
    char *argv[] = {th_tool("shmemu-run"), "-np", "3", "--tag-output", "--",
                    th_tool("examples/hello_spmd"), NULL};
    run_cmd(argv, NULL, &o);
    assert_true(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0);
    assert_non_null(strstr(o.out, "[PE 0] PE 0/3 on shm got 1002 from PE 2\n"));
    assert_non_null(strstr(o.out, "[PE 2] PE 2/3 on shm got 1001 from PE 1\n"));
    assert_int_equal(my_children(), 0);
}

/* A malformed launcher environment is refused with a clear message. */
static void test_bad_env(void **state)
{
    (void)state;
    need_shm();
    static const struct {
        const char *env[6];
        const char *want;
    } cases[] = {
        {{"SHMEMU_RUN_NPES=0", "SHMEMU_RUN_PE=0", "SHMEMU_RUN_HEAP_SIZE=2097152",
          "SHMEMU_RUN_TRANSPORT=shm", "SHMEMU_SHM_FD=3"},
         "SHMEMU_RUN_NPES='0' is malformed (must be 1..65536)"},
        {{"SHMEMU_RUN_NPES=4", "SHMEMU_RUN_PE=abc", "SHMEMU_RUN_HEAP_SIZE=2097152",
          "SHMEMU_RUN_TRANSPORT=shm", "SHMEMU_SHM_FD=3"},
         "SHMEMU_RUN_PE='abc' is malformed (must be 0..3)"},
        {{"SHMEMU_RUN_NPES=4", "SHMEMU_RUN_PE=7", "SHMEMU_RUN_HEAP_SIZE=2097152",
          "SHMEMU_RUN_TRANSPORT=shm", "SHMEMU_SHM_FD=3"},
         "SHMEMU_RUN_PE='7' is malformed (must be 0..3)"},
        {{"SHMEMU_RUN_NPES=4", "SHMEMU_RUN_PE=1", "SHMEMU_RUN_HEAP_SIZE=-5M",
          "SHMEMU_RUN_TRANSPORT=shm", "SHMEMU_SHM_FD=3"},
         "SHMEMU_RUN_HEAP_SIZE='-5M' is malformed"},
        {{"SHMEMU_RUN_NPES=4", "SHMEMU_RUN_PE=1", "SHMEMU_RUN_HEAP_SIZE=lots",
          "SHMEMU_RUN_TRANSPORT=shm", "SHMEMU_SHM_FD=3"},
         "SHMEMU_RUN_HEAP_SIZE='lots' is malformed"},
        {{"SHMEMU_RUN_NPES=4", "SHMEMU_RUN_PE=1", "SHMEMU_RUN_HEAP_SIZE=2097152",
          "SHMEMU_RUN_TRANSPORT=shm", "SHMEMU_SHM_FD=x9"},
         "SHMEMU_SHM_FD='x9' is not a descriptor number"},
        {{"SHMEMU_RUN_NPES=4", "SHMEMU_RUN_PE=1", "SHMEMU_RUN_HEAP_SIZE=2097152",
          "SHMEMU_RUN_TRANSPORT=shm", "SHMEMU_SHM_FD=0"},
         "SHMEMU_SHM_FD=0 is not this job's segment"},
        {{"SHMEMU_RUN_NPES=4", "SHMEMU_RUN_PE=1", "SHMEMU_RUN_HEAP_SIZE=2097152",
          "SHMEMU_RUN_TRANSPORT=local", "SHMEMU_SHM_FD=3"},
         "transport 'local' cannot start processes with shmemu-run"},
        /* what a program a PE runs (system, popen) inherits: a PE takes the
         * descriptor's variable out of its environment as it joins */
        {{"SHMEMU_RUN_NPES=4", "SHMEMU_RUN_PE=1", "SHMEMU_RUN_HEAP_SIZE=2097152",
          "SHMEMU_RUN_TRANSPORT=shm"},
         "SHMEMU_SHM_FD is not set: this program is not one shmemu-run started but one a PE "
         "started (system, popen, exec), which inherits the PE's environment and is no PE"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct th_outcome o;
        char *argv[] = {th_tool("examples/hello_spmd"), NULL};
        run_cmd(argv, cases[i].env, &o);
        assert_true(WIFEXITED(o.status));
        assert_int_equal(WEXITSTATUS(o.status), 1);
        if (!strstr(o.out, cases[i].want))
            fail_msg("case %zu: no '%s' in:\n%s", i, cases[i].want, o.out);
        assert_non_null(strstr(o.out, "shmemu: shmemu_init: "));
    }
}

/* The segment is mode 0600 and owned by us; another uid cannot open it,
 * neither by name nor through /proc/PID/fd. */
static void test_segment_permissions(void **state)
{
    (void)state;
    need_shm();
    char name[128], why[256];
    int fd;
    assert_int_equal(shmemu_shm_segment_create(1 << 20, 1, name, sizeof(name), &fd, why,
                                               sizeof(why)),
                     SHMEMU_OK);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_uid, getuid());
    assert_int_equal(st.st_size, 1 << 20);
    if (getuid() != 0) {
        shm_unlink(name);
        close(fd);
        printf("# skipped: dropping to another uid needs root\n");
        skip();
    }
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(10);
        int a = shm_open(name, O_RDWR, 0);
        int a_err = errno;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)parent, fd);
        int b = open(path, O_RDWR);
        _exit(a < 0 && a_err == EACCES && b < 0 ? 0 : 11);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    shm_unlink(name);
    close(fd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* A heap that /dev/shm cannot hold fails at start with the sizes. */
static int body_never(void *arg)
{
    (void)arg;
    return 1;
}

static void test_shm_too_small(void **state)
{
    (void)state;
    need_shm();
    char *before = shm_listing();
    shmemu_opts o = {.npes = 4, .transport = "shm", .heap_size = (size_t)1 << 42};
    th_capture_start();
    int rc = shmemu_launch(&o, body_never, NULL);
    char *err = th_capture_stop();
    char *after = shm_listing();
    assert_int_equal(rc, SHMEMU_ENOMEM);
    assert_non_null(strstr(err, "shmemu: shmemu_launch: transport 'shm' could not create a "
                                "job of 4 PEs"));
    assert_non_null(strstr(err, "/dev/shm has "));
    assert_non_null(strstr(err, "free but the job needs 16384.0 GiB"));
    assert_non_null(strstr(err, "lower SHMEMU_HEAP_SIZE"));
    assert_no_leak(before, after);
    free(err);
    free(before);
    free(after);
}

/* A program that returns from main without finalizing still ends cleanly. */
static void test_exit_without_finalize(void **state)
{
    (void)state;
    need_shm();
    struct th_outcome o;
    char *argv[] = {th_tool("shmemu-run"), "-n", "2", "--", th_tool("tests/progs/crashy"), "none",
                    "exit-early", NULL};
    run_cmd(argv, NULL, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0)
        fail_msg("status %#x, output:\n%s", o.status, o.out);
    assert_int_equal(my_children(), 0);
}

static int setup(void **state)
{
    (void)state;
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* abort() must not write cores */
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_crashes),
        cmocka_unit_test(test_launch_crashes),
        cmocka_unit_test(test_sigint),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_timeout_env),
        cmocka_unit_test(test_tag_output),
        cmocka_unit_test(test_bad_env),
        cmocka_unit_test(test_segment_permissions),
        cmocka_unit_test(test_shm_too_small),
        cmocka_unit_test(test_exit_without_finalize),
    };
    return cmocka_run_group_tests_name("crash", tests, setup, NULL);
}
