/* harness.c - see harness.h. */
#include "harness.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define TH_VALGRIND_H 1
#endif
#endif

static _Thread_local jmp_buf *pe_trap;
/* On sim every PE is a fiber of one thread, which shares its thread-locals
 * among them: there the trap is kept per PE. */
#define SIM_TRAPS 20000
static jmp_buf *sim_trap[SIM_TRAPS];

static jmp_buf **trap_slot(void)
{
    const char *t = shmemu_transport_name();
    int pe = shmemu_my_pe();
    if (t && strcmp(t, "sim") == 0 && pe >= 0 && pe < SIM_TRAPS)
        return &sim_trap[pe];
    return &pe_trap;
}

struct body_call {
    int (*body)(void *);
    void *arg;
};

static int trapped_body(void *p)
{
    struct body_call *c = p;
    jmp_buf trap;
    jmp_buf **slot = trap_slot();
    *slot = &trap;
    int rc = setjmp(trap) == 0 ? c->body(c->arg) : 1;
    *slot = NULL;
    return rc;
}

void th_pe_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL PE %d/%d %s:%d: %s\n", shmemu_my_pe(), shmemu_n_pes(), file,
            line, msg);
    fflush(stderr);
    jmp_buf **slot = trap_slot();
    if (*slot)
        longjmp(**slot, 1);
    abort();
}

int th_under_valgrind(void)
{
#ifdef TH_VALGRIND_H
    return RUNNING_ON_VALGRIND != 0;
#else
    return 0;
#endif
}

/* SHMEMU_TEST_ONLY=PATTERN runs only the tests whose names match it
 * (cmocka's filter: * and ? wildcards), in every program, without each
 * main() having to ask. */
__attribute__((constructor)) static void only_these(void)
{
    const char *f = getenv("SHMEMU_TEST_ONLY");
    if (f && *f)
        cmocka_set_test_filter(f);
}

int th_quick(void)
{
    const char *q = getenv("SHMEMU_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

long th_iters(long n, long div)
{
    if (!th_quick())
        return n;
    return n / div > 0 ? n / div : 1;
}

static int allowed(const char *name)
{
    const char *f = getenv("SHMEMU_TEST_TRANSPORTS");
    if (!f || !*f)
        return 1;
    size_t n = strlen(name);
    for (const char *p = f; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

int th_transport_usable(const char *name, char *why, size_t len)
{
    const char *n;
    int ok;
    for (int i = 0; shmemu_transport_info(i, &n, &ok, why, len) == SHMEMU_OK; i++)
        if (strcmp(n, name) == 0)
            return ok;
    fail_msg("%s is not in the transport list", name);
    return 0;
}

int th_transport_wanted(const char *name, char *why, size_t len)
{
    if (!allowed(name)) {
        snprintf(why, len, "not in SHMEMU_TEST_TRANSPORTS=%s", getenv("SHMEMU_TEST_TRANSPORTS"));
        return 0;
    }
    return th_transport_usable(name, why, len);
}

const char *th_transports_wanted(const char *names, char *out, size_t len, char *why,
                                 size_t wlen)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = names; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char one[32];
        snprintf(one, sizeof(one), "%.*s", (int)n, p);
        if (th_transport_wanted(one, why, wlen) && used + n + 2 <= len)
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "", one);
        if (!e)
            break;
        p = e + 1;
    }
    return out;
}

/* A PE process is a fork of the test program and would inherit the
 * handlers cmocka sets around each test: a crash in a PE would then resume
 * cmocka's runner inside the PE's process, which ran the remaining tests
 * there and exited with their failure count (seen as "rc 4" with no word
 * of the crash).  A forked child gets back the handlers the program
 * started with (the default ones, or a sanitizer's); the library installs
 * its own after the fork where it has any. */
static const int crash_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS};
#define NCRASH (sizeof(crash_sigs) / sizeof(crash_sigs[0]))
static struct sigaction crash_start[NCRASH];

static void child_start_signals(void)
{
    for (size_t i = 0; i < NCRASH; i++)
        sigaction(crash_sigs[i], &crash_start[i], NULL);
}

__attribute__((constructor)) static void crashes_stay_in_the_child(void)
{
    for (size_t i = 0; i < NCRASH; i++)
        sigaction(crash_sigs[i], NULL, &crash_start[i]);
    pthread_atfork(NULL, NULL, child_start_signals);
}

/* Tests run in a clean environment: a SHMEMU_* setting of the caller's
 * (SHMEMU_ERRORS=return, a forced algorithm, checker mode) would change
 * what the tests assert.  Only the harness's own SHMEMU_TEST_* stay, and
 * under mpirun the plane the ucx job is to use (SHMEMU_UCX_CONTROL), which
 * scripts/test-ucx.sh sets for the whole mpirun job. */
__attribute__((constructor)) static void clean_environment(void)
{
    extern char **environ;
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; *e; e++) {
            if (strncmp(*e, "SHMEMU_", 7) != 0 || strncmp(*e, "SHMEMU_TEST_", 12) == 0)
                continue;
            if (strncmp(*e, "SHMEMU_UCX_CONTROL=", 19) == 0 && getenv("SHMEMU_TEST_MPIRUN"))
                continue;
            char name[128];
            size_t n = strcspn(*e, "=");
            if (n >= sizeof(name))
                continue;
            memcpy(name, *e, n);
            name[n] = '\0';
            fprintf(stderr, "# harness: ignoring %s from the environment (tests set what "
                            "they need)\n", *e);
            unsetenv(name);
            again = 1; /* environ changed under us: start over */
            break;
        }
    }
}

/* Under mpirun (scripts/test-ucx.sh): SHMEMU_TEST_MPIRUN=N says this test
 * program is one of the N processes of an mpirun job.  Each th_run case of
 * N PEs then runs as an SPMD job of those processes on ucx: every process
 * joins it with shmemu_init (through PMIx), runs the body as its PE and
 * finalizes, and the next case joins anew.  0 when not under mpirun. */
int th_mpirun_npes(void)
{
    static int n = -1;
    if (n < 0) {
        const char *v = getenv("SHMEMU_TEST_MPIRUN");
        n = v && *v && getenv("PMIX_RANK") ? atoi(v) : 0;
        if (n < 0)
            n = 0;
    }
    return n;
}

void th_leave_launcher(void)
{
    /* what shmemu_init looks at to join a PMIx launcher's job */
    unsetenv("PMIX_RANK");
    unsetenv("PMIX_NAMESPACE");
}

void th_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# skipped: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    skip();
    abort(); /* skip() does not return */
}

void th_skip_under_mpirun(const char *why)
{
    if (th_mpirun_npes())
        th_skip("under mpirun: %s", why);
}

/* Named in SHMEMU_TEST_TRANSPORTS (not merely allowed by its absence). */
static int named(const char *name)
{
    const char *f = getenv("SHMEMU_TEST_TRANSPORTS");
    return f && *f && allowed(name);
}

static const char *list[16];
static int nlist = -1;

/* Every transport left out is said, with its reason, once per program. */
static void scan(void)
{
    if (nlist >= 0)
        return;
    nlist = 0;
    if (th_mpirun_npes()) {
        printf("# under mpirun -np %d: each test's %d-PE cases run as jobs of the mpirun "
               "job, on ucx; other PE counts and transports are the forked runs' (make "
               "test-full, make test-ucx)\n",
               th_mpirun_npes(), th_mpirun_npes());
        list[nlist++] = "ucx";
        fflush(stdout);
        return;
    }
    const char *name;
    int usable;
    char why[256];
    for (int i = 0; shmemu_transport_info(i, &name, &usable, why, sizeof(why)) == SHMEMU_OK;
         i++) {
        if (!allowed(name))
            printf("# transport %s skipped: not in SHMEMU_TEST_TRANSPORTS=%s\n", name,
                   getenv("SHMEMU_TEST_TRANSPORTS"));
        else if (!usable)
            printf("# transport %s skipped: it cannot run here: %s\n", name, why);
        else if (strcmp(name, "ucx") == 0 && !named(name))
            printf("# transport ucx left to `make test-ucx` (run by `make test-full`): its "
                   "network round trips want the quick variant of each test\n");
        else if (strcmp(name, "staged") == 0 || strcmp(name, "cuda") == 0)
            printf("# transport %s left to test_%s: its heaps are not "
                   "host-addressable and these tests read results with plain loads\n",
                   name, name);
        else if (nlist < 16)
            list[nlist++] = name;
    }
    fflush(stdout);
}

int th_transport_count(void)
{
    scan();
    return nlist;
}

const char *th_transport(int i)
{
    scan();
    return list[i];
}

int th_own_stores(const char *transport)
{
#ifdef TH_TSAN
    (void)transport;
    return 0;
#else
    return th_checked_ptrs(transport);
#endif
}

int th_checked_ptrs(const char *transport)
{
#if defined(__x86_64__)
#ifdef TH_TSAN
    if (strcmp(transport, "sim") == 0) /* fibers switching in its handlers */
        return 0;
#endif
    return !th_under_valgrind() &&
           (strcmp(transport, "local") == 0 || strcmp(transport, "shm") == 0 ||
            strcmp(transport, "sim") == 0);
#else
    (void)transport;
    return 0;
#endif
}

/* The whole job ends when a PE's body fails: its peers may be waiting for
 * it inside theirs (a launched job's failing PE aborts it the same way). */
void shmem_global_exit(int status);

/* One th_run case as a job of the mpirun job (th_mpirun_npes). */
static int mpirun_job(size_t heap, int (*body)(void *), void *arg)
{
    char size[32];
    snprintf(size, sizeof(size), "%zu", heap ? heap : TH_HEAP);
    setenv("SHMEMU_HEAP_SIZE", size, 1);
    int st = shmemu_init();
    if (st == SHMEMU_ENOTSUP && getenv("SHMEMU_CHECK")) {
        th_skip("under mpirun: checker mode is refused where the PEs share no control "
                "area (SHMEMU_UCX_CONTROL=network)");
    }
    if (st != SHMEMU_OK)
        return st;
    struct body_call c = {body, arg};
    int rc = trapped_body(&c);
    if (rc != 0)
        shmem_global_exit(rc);
    return shmemu_finalize();
}

int th_launch(const char *transport, int npes, size_t heap, int (*body)(void *),
              void *arg)
{
    if (th_mpirun_npes()) {
        /* A test that launches jobs itself asserts on how they end (a PE
         * that fails, a job that errs): under mpirun that would end the
         * mpirun job. */
        th_skip("under mpirun: this test launches jobs of its own");
    }
    shmemu_opts o = {.npes = npes, .transport = transport, .heap_size = heap ? heap : TH_HEAP};
    struct body_call c = {body, arg};
    return shmemu_launch(&o, trapped_body, &c);
}

int th_launch_opts(const shmemu_opts *o, int (*body)(void *), void *arg)
{
    if (th_mpirun_npes())
        th_skip("under mpirun: this test launches jobs of its own");
    struct body_call c = {body, arg};
    return shmemu_launch(o, trapped_body, &c);
}

void th_run(int (*body)(void *), void *arg, const int *npes_list, size_t heap)
{
    assert_true(th_transport_count() > 0);
    int ran = 0;
    for (int t = 0; t < th_transport_count(); t++) {
        for (const int *n = npes_list; *n; n++) {
            if (th_quick() && *n > 8) {
                static int said;
                if (!said++)
                    printf("# SHMEMU_TEST_QUICK: PE counts above 8 skipped\n");
                continue;
            }
            if (th_mpirun_npes() && *n != th_mpirun_npes())
                continue;
            ran++;
            int rc = th_mpirun_npes() ? mpirun_job(heap, body, arg)
                                      : th_launch(th_transport(t), *n, heap, body, arg);
            if (rc != 0)
                fail_msg("transport %s, %d PEs: job returned %d (%s)", th_transport(t),
                         *n, rc, rc < 0 ? shmemu_strerror(rc) : "a PE failed");
        }
    }
    if (th_mpirun_npes() && !ran) {
        /* What the test asserts next is about cases that did not run. */
        th_skip("under mpirun -np %d: no case of %d PEs", th_mpirun_npes(),
                th_mpirun_npes());
    }
}

static int saved_fd = -1;
static FILE *cap;

/* SHMEMU_TEST_NOCAPTURE=1 leaves stderr alone, to see why a test failed
 * (its assertions on the captured text then fail too). */
static int nocapture(void)
{
    const char *v = getenv("SHMEMU_TEST_NOCAPTURE");
    return v && *v && strcmp(v, "0") != 0;
}

void th_capture_start(void)
{
    if (nocapture())
        return;
    fflush(stderr);
    cap = tmpfile();
    assert_non_null(cap);
    saved_fd = dup(STDERR_FILENO);
    dup2(fileno(cap), STDERR_FILENO);
}

static void mpirun_output_skip(void)
{
    if (th_mpirun_npes()) {
        /* What a test asserts of the text is about every case and every
         * PE's words, and here each process has its own PE's alone. */
        th_skip("under mpirun: the %d-PE cases ran and held; what they printed is "
                "checked by the forked runs",
                th_mpirun_npes());
    }
}

char *th_capture_stop(void)
{
    if (nocapture()) {
        mpirun_output_skip();
        return calloc(1, 1);
    }
    fflush(stderr);
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    long n = ftell(cap) >= 0 ? (long)lseek(fileno(cap), 0, SEEK_END) : 0;
    char *buf = calloc(1, (size_t)n + 1);
    lseek(fileno(cap), 0, SEEK_SET);
    if (n > 0 && read(fileno(cap), buf, (size_t)n) != n)
        buf[0] = '\0';
    fclose(cap);
    cap = NULL;
    if (th_mpirun_npes()) {
        free(buf);
        mpirun_output_skip();
    }
    return buf;
}

void th_fill(void *buf, size_t n, int pe, unsigned salt)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = th_byte(pe, i, salt);
}

long th_verify(const void *buf, size_t n, int pe, unsigned salt)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != th_byte(pe, i, salt))
            return (long)i;
    return -1;
}

const char *th_build_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
        if (n <= 0)
            return ".";
        dir[n] = '\0';
        *strrchr(dir, '/') = '\0'; /* .../build/tests */
        *strrchr(dir, '/') = '\0'; /* .../build */
    }
    return dir;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run child(arg) in a forked process, its stdout and stderr into o->out,
 * then its wait status and wall time into o. */
static void fork_collect(void (*child)(void *), void *arg, struct th_outcome *o)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    double t0 = now_s();
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        child(arg);
        _exit(127);
    }
    close(fds[1]);
    /* All of it is read (a child whose pipe closed would die of SIGPIPE,
     * and its status would no longer be its own); where it does not fit,
     * its head and its tail are kept, since a tool's verdict comes last
     * (a sanitizer's warnings can fill the middle). */
    size_t got = 0, bufcap = 1 << 16;
    char *all = malloc(bufcap);
    assert_non_null(all);
    ssize_t n;
    while ((n = read(fds[0], all + got, bufcap - got)) > 0) {
        got += (size_t)n;
        if (got == bufcap) {
            all = realloc(all, bufcap *= 2);
            assert_non_null(all);
        }
    }
    close(fds[0]);
    size_t room = sizeof(o->out) - 1;
    if (got <= room) {
        memcpy(o->out, all, got);
        o->out[got] = '\0';
    } else {
        static const char cut[] = "\n[... output cut by the test harness ...]\n";
        size_t head = room / 2, tail = room - head - (sizeof(cut) - 1);
        memcpy(o->out, all, head);
        memcpy(o->out + head, cut, sizeof(cut) - 1);
        memcpy(o->out + head + sizeof(cut) - 1, all + got - tail, tail);
        o->out[room] = '\0';
    }
    free(all);
    assert_int_equal(waitpid(pid, &o->status, 0), pid);
    o->secs = now_s() - t0;
}

static void call_child(void *fn)
{
    (*(void (**)(void))fn)();
}

void th_fork_cmd(void (*child)(void), struct th_outcome *o)
{
    fork_collect(call_child, &child, o);
}

struct exec_args {
    char *const *argv;
    const char *const *env;
};

static void exec_child(void *arg)
{
    const struct exec_args *a = arg;
    for (int i = 0; a->env && a->env[i]; i++)
        putenv((char *)(uintptr_t)a->env[i]);
    execv(a->argv[0], a->argv);
    _exit(126);
}

void th_run_cmd(char *const argv[], const char *const env[], struct th_outcome *o)
{
    struct exec_args a = {argv, env};
    fork_collect(exec_child, &a, o);
}

char *th_tool(const char *rel)
{
    static char path[8][PATH_MAX];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, PATH_MAX, "%s/%s", th_build_dir(), rel);
    return p;
}
