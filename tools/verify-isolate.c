/* verify-isolate.c - a user's algorithm, one copy per PE, each run in a
 * child process (see verify-isolate.h). */
#include "verify-isolate.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

/* Past this many PEs the PEs share one copy (each copy costs a handful of
 * mappings, and a process may have about 65,000). */
#define COPIES_MAX 1024

static const char *lib_path, *lib_sym;
static char dir[4096];    /* the copies: dir/peN/NAME; "" until made */
static int copies;        /* made for PEs 1..copies-1 */
static int said_shared;

/* The function each PE of the child calls: its own copy's. */
static void (*own_fn[COPIES_MAX])(void);

static void (*fn_of_me(void))(void)
{
    int pe = shmemu_my_pe();
    return own_fn[pe >= 0 && pe < COPIES_MAX && own_fn[pe] ? pe : 0];
}

static int t_allreduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                       shmemu_dtype_t dtype, shmemu_op_t op)
{
    return ((shmemu_allreduce_fn)fn_of_me())(team, dest, src, count, dtype, op);
}

static int t_reduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                    shmemu_dtype_t dtype, shmemu_op_t op, int root)
{
    return ((shmemu_reduce_fn)fn_of_me())(team, dest, src, count, dtype, op, root);
}

static int t_broadcast(shmemu_team_t team, void *dest, const void *src, size_t count,
                       shmemu_dtype_t dtype, int root)
{
    return ((shmemu_broadcast_fn)fn_of_me())(team, dest, src, count, dtype, root);
}

static int t_allgather(shmemu_team_t team, void *dest, const void *src, size_t count,
                       shmemu_dtype_t dtype)
{
    return ((shmemu_allgather_fn)fn_of_me())(team, dest, src, count, dtype);
}

static void (*trampoline(shmemu_coll_t coll))(void)
{
    switch (coll) {
    case SHMEMU_COLL_ALLREDUCE:
    case SHMEMU_COLL_REDUCE_SCATTER:
        return (void (*)(void))t_allreduce;
    case SHMEMU_COLL_REDUCE:
        return (void (*)(void))t_reduce;
    case SHMEMU_COLL_BROADCAST:
        return (void (*)(void))t_broadcast;
    default:
        return (void (*)(void))t_allgather;
    }
}

static void remove_copies(void)
{
    char p[4200];
    const char *base = strrchr(lib_path, '/');
    base = base ? base + 1 : lib_path;
    for (int i = 1; i < copies; i++) {
        snprintf(p, sizeof(p), "%s/pe%d/%s", dir, i, base);
        unlink(p);
        snprintf(p, sizeof(p), "%s/pe%d", dir, i);
        rmdir(p);
    }
    rmdir(dir);
}

int isolate_init(const char *path, const char *sym)
{
    lib_path = path;
    lib_sym = sym;
    return 0;
}

int isolate_wanted(const char *transport)
{
    return lib_path && transport &&
           (!strcmp(transport, "local") || !strcmp(transport, "staged") ||
            !strcmp(transport, "sim"));
}

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ok = 0;
    if (in >= 0)
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
    if (out >= 0) {
        char buf[1 << 16];
        ssize_t n;
        ok = 1;
        while (ok && (n = read(in, buf, sizeof(buf))) != 0) {
            if (n < 0) {
                ok = errno == EINTR;
                continue;
            }
            for (ssize_t done = 0; ok && done < n;) {
                ssize_t w = write(out, buf + done, (size_t)(n - done));
                ok = w > 0 || (w < 0 && errno == EINTR);
                done += w > 0 ? w : 0;
            }
        }
    }
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* Copies for PEs 1..npes-1 (PE 0 calls the library as loaded); a copy,
 * not a link: the loader knows a loaded file by its inode. */
static int make_copies(int npes)
{
    if (npes > COPIES_MAX)
        npes = COPIES_MAX;
    if (npes <= copies)
        return 0;
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof(dir), "%s/shmemu-verify.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            fprintf(stderr, "shmemu-verify: cannot make a directory for the PEs' copies of %s "
                            "(%s): %s\n", lib_path, dir, strerror(errno));
            dir[0] = '\0';
            return -1;
        }
        atexit(remove_copies);
        copies = 1;
    }
    const char *base = strrchr(lib_path, '/');
    base = base ? base + 1 : lib_path;
    char p[4200];
    for (; copies < npes; copies++) {
        snprintf(p, sizeof(p), "%s/pe%d", dir, copies);
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            break;
        snprintf(p, sizeof(p), "%s/pe%d/%s", dir, copies, base);
        if (copy_file(lib_path, p) != 0)
            break;
    }
    if (copies < npes) {
        fprintf(stderr, "shmemu-verify: cannot copy %s to %s: %s\n", lib_path, p,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* In the child: every PE's function, from its copy. */
static const char *load_copies(int npes)
{
    static char why[512];
    void *h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    own_fn[0] = NULL;
    if (h)
        *(void **)&own_fn[0] = dlsym(h, lib_sym);
    if (!own_fn[0]) {
        snprintf(why, sizeof(why), "cannot load %.200s again: %.250s", lib_path,
                 dlerror());
        return why;
    }
    const char *base = strrchr(lib_path, '/');
    base = base ? base + 1 : lib_path;
    for (int i = 1; i < npes && i < COPIES_MAX; i++) {
        char p[4200];
        snprintf(p, sizeof(p), "%s/pe%d/%s", dir, i, base);
        h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
        own_fn[i] = NULL;
        if (h)
            *(void **)&own_fn[i] = dlsym(h, lib_sym);
        if (!own_fn[i]) {
            snprintf(why, sizeof(why), "cannot load PE %d's copy of the library (%.200s): %.250s",
                     i, p, dlerror());
            return why;
        }
    }
    return NULL;
}

/* In the child: a fault names the PE and where, then ends the process by
 * the same signal (the parent says so).  The checker's and sim's own
 * handlers pass faults that are not theirs on to this one. */
static void on_crash(int sig, siginfo_t *si, void *ucv)
{
    char msg[700], where[400] = "";
    void *pc = NULL;
#if defined(__x86_64__)
    pc = (void *)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    pc = (void *)((ucontext_t *)ucv)->uc_mcontext.pc;
#else
    (void)ucv;
#endif
    Dl_info di;
    if (pc && dladdr(pc, &di) && di.dli_fname) {
        const char *file = di.dli_fname;
        int copy = dir[0] && !strncmp(file, dir, strlen(dir));
        const char *lib = copy ? lib_path : file, *mine = copy ? ", this PE's copy" : "";
        if (di.dli_sname)
            snprintf(where, sizeof(where), ", in %.100s+%#lx (%.200s%s)", di.dli_sname,
                     (unsigned long)((char *)pc - (char *)di.dli_saddr), lib, mine);
        else /* a static function: the offset addr2line -e takes */
            snprintf(where, sizeof(where), ", at %.200s+%#lx%s", lib,
                     (unsigned long)((char *)pc - (char *)di.dli_fbase), mine);
    }
    int pe = shmemu_my_pe(), n = shmemu_n_pes();
    int len = snprintf(msg, sizeof(msg), "shmemu-verify: PE %d/%d crashed: signal %d (%s) at "
                                         "address %p%s\n",
                       pe, n, sig, strsignal(sig), si->si_addr, where);
    if (len > 0 && write(STDERR_FILENO, msg, (size_t)len < sizeof(msg) ? (size_t)len
                                                                       : sizeof(msg) - 1) < 0)
        len = 0;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_crashes(void)
{
    static char alt[64 << 10];
    stack_t st = {.ss_sp = alt, .ss_size = sizeof(alt)};
    (void)sigaltstack(&st, NULL);
    struct sigaction sa = {0};
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
}

struct outcome {
    shmemu_verify_result r;
    int ret;    /* shmemu_verify_run's */
    int done;   /* the child got that far */
    uint64_t sched;
    char why[sizeof(((shmemu_verify_result *)0)->reason)];
};

static int nothing(void *arg)
{
    (void)arg;
    return 0;
}

/* What a process loads for its first job (hwloc's topology and its
 * plugins: a few milliseconds), loaded here once by a job of one PE, not
 * again in each case's child. */
static void warm_up(void)
{
    static int warm;
    if (warm)
        return;
    warm = 1;
    shmemu_opts o = {.npes = 1, .transport = "local", .heap_size = 1 << 20};
    (void)shmemu_launch(&o, nothing, NULL);
}

int isolate_run(const shmemu_verify_case *vc, shmemu_verify_result *res, uint64_t *sched)
{
    warm_up();
    *sched = 0;
    memset(res, 0, sizeof(*res));
    res->pe = -1;
    if (make_copies(vc->npes) != 0) {
        snprintf(res->reason, sizeof(res->reason),
                 "could not give each PE its own copy of the library (said above)");
        return SHMEMU_OK;
    }
    if (vc->npes > COPIES_MAX && !said_shared) {
        said_shared = 1;
        printf("# more than %d PEs: PEs %d and up share one copy of %s (its statics too)\n",
               COPIES_MAX, COPIES_MAX, lib_path);
    }
    struct outcome *o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (o == MAP_FAILED) {
        snprintf(res->reason, sizeof(res->reason), "no memory for the case's child process");
        return SHMEMU_OK;
    }
    memset(o, 0, sizeof(*o));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        const char *why = load_copies(vc->npes);
        if (why) {
            memcpy(o->why, why, sizeof(o->why));
            _exit(3);
        }
        catch_crashes();
        shmemu_verify_case mine = *vc;
        mine.fn = trampoline(vc->coll);
        o->ret = shmemu_verify_run(&mine, &o->r);
        shmemu_sim_stats st;
        if (shmemu_sim_last(&st) == SHMEMU_OK)
            o->sched = st.schedule;
        o->done = 1;
        fflush(stdout);
        fflush(stderr);
        _exit(0);
    }
    int status = 0, ret = SHMEMU_OK;
    if (pid < 0) {
        snprintf(res->reason, sizeof(res->reason), "cannot start the case's process: %s",
                 strerror(errno));
    } else {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && o->done) {
            *res = o->r;
            *sched = o->sched;
            ret = o->ret;
        } else if (o->why[0]) {
            memcpy(res->reason, o->why, sizeof(res->reason));
            res->reason[sizeof(res->reason) - 1] = '\0';
        } else if (WIFSIGNALED(status)) {
            int sig = WTERMSIG(status);
            snprintf(res->reason, sizeof(res->reason),
                     "the case's process was killed by signal %d (%s): a PE crashed (the line "
                     "above names it and where)",
                     sig, strsignal(sig));
            res->status = 128 + sig;
        } else {
            int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            snprintf(res->reason, sizeof(res->reason),
                     "the case's process ended with status %d%s", code,
                     code == 124 ? " (a PE ran on outside the library after the job was ended, "
                                   "or sim's watchdog: printed above)"
                                 : " (the algorithm called exit?)");
            res->status = code;
        }
    }
    munmap(o, sizeof(*o));
    return ret;
}
