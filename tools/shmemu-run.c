/*
 * shmemu-run - start N copies of an SPMD program as the PEs of one job.
 *
 *   shmemu-run -n N [-t shm] [--heap-size SIZE] [--bind core|none]
 *              [--timeout SECONDS] [--tag-output] -- PROGRAM [ARGS...]
 *
 * Each copy finds its job through the environment in shmemu_init().  The
 * launcher forwards SIGINT and SIGTERM, and exits with the first failing
 * PE's status (128 + signal for a signal), 124 after --timeout, or 0.  When a
 * PE dies or exits before finalizing, it says so, aborts the job (PEs
 * blocked in shmemu calls return SHMEMU_EABORTED or exit), then sends
 * SIGTERM and, shortly after, SIGKILL to what is left.
 *
 * As oshrun it meets test scripts written for Open MPI's oshrun and
 * Hydra's mpiexec: their options are understood where they mean something
 * on one machine, accepted where they do not (binding maps, MCA
 * parameters).  A ucx job on other machines (-H, --hostfile) is handed to
 * mpirun, which starts PEs there; other transports refuse other machines.
 */
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job/run.h"
#include "shmemu.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: shmemu-run -n N [-t TRANSPORT] [--heap-size SIZE] [--bind core|none]\n"
            "                  [--timeout SECONDS] [--tag-output] [--] PROGRAM [ARGS...]\n"
            "  -n, -np, --npes N     number of PEs (processes)\n"
            "  -t, --transport NAME  a transport that runs PEs as processes (default shm)\n"
            "  --heap-size SIZE      symmetric heap per PE, e.g. 64M (SHMEMU_HEAP_SIZE)\n"
            "  --bind core|none      bind each PE to a core (default: core when the PEs\n"
            "                        fit the cores; SHMEMU_BIND)\n"
            "  --timeout SECONDS     end the job after this long, saying where each PE is\n"
            "  --tag-output          prefix every output line with [PE n]\n"
            "  --version             print the version\n"
            "Scripts written for mpirun/oshrun run unchanged: --np and -c count PEs,\n"
            "-N/-npernode/-ppn too when no count is given; -x VAR[=VALUE], -genv and\n"
            "-env VAR VALUE set the PEs' environment; -wdir/--wdir DIR is where they\n"
            "start; --bind-to none|core|hwthread is --bind; --oversubscribe,\n"
            "--allow-run-as-root, --map-by, --rank-by, --mca and the like change\n"
            "nothing on one machine.  -H/--host or --hostfile naming other machines\n"
            "with -t ucx hands the job to mpirun (SHMEMU_MPIRUN), with these options\n"
            "and every SHMEMU_, SHMEM_, SMA_ and UCX_ variable set here.\n");
}

/* mpirun options that change nothing for PEs on one machine: each with
 * the number of values it takes. */
static const struct {
    const char *name;
    int nvals;
} ignored[] = {
    {"--oversubscribe", 0},  {"-oversubscribe", 0},   {"--allow-run-as-root", 0},
    {"--report-bindings", 0}, {"-report-bindings", 0}, {"--display-map", 0},
    {"--display-allocation", 0}, {"--timestamp-output", 0}, {"--merge-stderr-to-stdout", 0},
    {"--use-hwthread-cpus", 0}, {"--nooversubscribe", 0}, {"--noprefix", 0},
    {"-q", 0},               {"--quiet", 0},          {"-genvall", 0},
    {"--map-by", 1},         {"-map-by", 1},          {"--rank-by", 1},
    {"-rank-by", 1},         {"--prefix", 1},         {"--cpus-per-proc", 1},
    {"--cpus-per-rank", 1},  {"--mca", 2},            {"-mca", 2},
    {"--gmca", 2},           {"-gmca", 2},
};

/* Whether every host of an mpirun host list ("a,b:2") is this machine:
 * shmemu-run starts PEs here alone (mpirun starts ucx PEs on several). */
/* Whether host is an address of this machine: loopback, or one of its
 * interfaces' ("-H 10.0.0.5" naming ourselves).  Addresses only: a name
 * lookup could wait on a resolver this machine cannot reach. */
static int host_is_here(const char *host)
{
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM},
                    *res;
    if (getaddrinfo(host, NULL, &hints, &res) != 0)
        return 0;
    struct ifaddrs *ifs = NULL;
    int here = 0;
    if (getifaddrs(&ifs) == 0) {
        for (struct addrinfo *r = res; r && !here; r = r->ai_next)
            for (struct ifaddrs *i = ifs; i && !here; i = i->ifa_next) {
                if (!i->ifa_addr || i->ifa_addr->sa_family != r->ai_family)
                    continue;
                if (r->ai_family == AF_INET)
                    here = ((struct sockaddr_in *)(void *)r->ai_addr)->sin_addr.s_addr ==
                           ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr;
                else if (r->ai_family == AF_INET6)
                    here = !memcmp(&((struct sockaddr_in6 *)(void *)r->ai_addr)->sin6_addr,
                                   &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr,
                                   sizeof(struct in6_addr));
            }
        freeifaddrs(ifs);
    }
    freeaddrinfo(res);
    return here;
}

static int hosts_local(const char *list)
{
    char self[256] = "";
    gethostname(self, sizeof(self) - 1);
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", list);
    for (char *save = NULL, *h = strtok_r(buf, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        h[strcspn(h, ":")] = '\0';
        if (strcmp(h, "localhost") && strcmp(h, self) && !host_is_here(h))
            return 0;
    }
    return 1;
}

static int hostfile_local(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    int ok = 1;
    while (ok && fgets(line, sizeof(line), f)) {
        char *h = line + strspn(line, " \t");
        h[strcspn(h, " \t\r\n#")] = '\0';
        ok = !*h || hosts_local(h);
    }
    fclose(f);
    return ok;
}

static void on_signal(int sig) { shmemu__run_forward(sig); }

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "shmemu-run: %s (see --help)\n", msg);
    return 2;
}

/* What mpirun gets when shmemu-run hands a ucx job over several machines
 * to it: the mpirun options as given, shmemu-run's own in mpirun's words. */
static char **mpi_argv;
static int mpi_argc;

static void mpi_push(const char *arg) { mpi_argv[mpi_argc++] = (char *)arg; }

static void mpi_push_env(const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *kv = malloc(len);
    if (!kv)
        return;
    snprintf(kv, len, "%s=%s", name, value);
    mpi_push("-x");
    mpi_push(kv);
}

/* Start the job with mpirun: its PEs find their ucx job through PMIx
 * (transports/ucx/README.md).  Variables of shmemu, OpenSHMEM and UCX set
 * here go to every PE (-x), as a job started here would inherit them. */
static int delegate(int npes, char *const *prog)
{
    extern char **environ;
    static const char *const prefixes[] = {"SHMEMU_", "SHMEM_", "SMA_", "UCX_"};
    char np[16];
    snprintf(np, sizeof(np), "%d", npes);
    mpi_push("-np");
    mpi_push(np);
    for (char **e = environ; *e; e++)
        for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
            if (!strncmp(*e, prefixes[k], strlen(prefixes[k])) && strchr(*e, '=')) {
                size_t n = (size_t)(strchr(*e, '=') - *e);
                char *name = strndup(*e, n);
                if (name) {
                    mpi_push("-x");
                    mpi_push(name);
                }
                break;
            }
    for (char *const *a = prog; *a; a++)
        mpi_push(*a);
    mpi_push(NULL);
    /* shmemu-run runs as root; so does the mpirun it starts for the user */
    if (geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    const char *mpirun = getenv("SHMEMU_MPIRUN");
    mpi_argv[0] = (char *)(mpirun && *mpirun ? mpirun : "mpirun");
    fflush(NULL);
    execvp(mpi_argv[0], mpi_argv);
    fprintf(stderr,
            "shmemu-run: a ucx job over several machines is started by Open MPI's mpirun, "
            "and '%s' could not be run (Debian: openmpi-bin; or set SHMEMU_MPIRUN)\n",
            mpi_argv[0]);
    return 2;
}

/* What the command line chose. */
struct cmd {
    struct shmemu__run_opts o;
    long per_node; /* -N: the count where none is given */
    const char *hosts, *hostfile, *host_opt;
};

/* An option that takes a value, v: 0, or the exit status of a bad one. */
static int value_option(struct cmd *c, const char *a, const char *v)
{
    char *end;
    if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--npes") ||
        !strcmp(a, "--np") || !strcmp(a, "--n") || !strcmp(a, "-c")) {
        long n = strtol(v, &end, 10);
        if (*end || n < 1 || n > 65536)
            return bad("the PE count must be 1..65536, not '%s'", v);
        c->o.npes = (int)n;
    } else if (!strcmp(a, "-N") || !strcmp(a, "-npernode") || !strcmp(a, "--npernode") ||
               !strcmp(a, "-ppn")) {
        c->per_node = strtol(v, &end, 10);
        if (*end || c->per_node < 1 || c->per_node > 65536)
            return bad("%s takes a PE count 1..65536, not '%s'", a, v);
        mpi_push("-N");
        mpi_push(v);
    } else if (!strcmp(a, "-H") || !strcmp(a, "--host") || !strcmp(a, "-host") ||
               !strcmp(a, "-hosts")) {
        c->hosts = v, c->host_opt = a;
        mpi_push("--host");
        mpi_push(v);
    } else if (!strcmp(a, "--hostfile") || !strcmp(a, "-hostfile") ||
               !strcmp(a, "--machinefile") || !strcmp(a, "-machinefile") ||
               !strcmp(a, "-f")) {
        c->hostfile = v, c->host_opt = a;
        mpi_push("--hostfile");
        mpi_push(v);
    } else if (!strcmp(a, "-wdir") || !strcmp(a, "--wdir") || !strcmp(a, "-wd") ||
               !strcmp(a, "--wd")) {
        if (chdir(v) != 0)
            return bad("%s %s: cannot enter that directory", a, v);
        mpi_push("--wdir");
        mpi_push(v);
    } else if (!strcmp(a, "--bind-to") || !strcmp(a, "-bind-to")) {
        /* OpenMPI's names: a core per PE, or none; its coarser
         * levels change nothing here (the PEs share one machine) */
        static const char *const coarse[] = {"l1cache", "l2cache", "l3cache", "socket",
                                             "package", "numa", "board"};
        int known = 0;
        for (size_t k = 0; k < sizeof(coarse) / sizeof(coarse[0]); k++)
            known |= !strcmp(v, coarse[k]);
        if (!strcmp(v, "none"))
            setenv("SHMEMU_BIND", "none", 1);
        else if (!strcmp(v, "core") || !strcmp(v, "hwthread"))
            setenv("SHMEMU_BIND", "core", 1);
        else if (!known)
            return bad("--bind-to takes none, core, hwthread or a coarser level "
                       "(l3cache, numa, package...), not '%s'", v);
        mpi_push("--bind-to");
        mpi_push(v);
    } else if (!strcmp(a, "-t") || !strcmp(a, "--transport")) {
        c->o.transport = v;
    } else if (!strcmp(a, "--heap-size")) {
        if (shmemu__parse_size(v, &c->o.heap_size) != 0 || c->o.heap_size == 0)
            return bad("--heap-size takes a size such as 64M or 1G, not '%s'", v);
        mpi_push_env("SHMEMU_HEAP_SIZE", v);
    } else if (!strcmp(a, "--bind")) {
        if (strcmp(v, "core") && strcmp(v, "none"))
            return bad("--bind takes core or none, not '%s'", v);
        setenv("SHMEMU_BIND", v, 1);
        mpi_push("--bind-to");
        mpi_push(v);
    } else if (!strcmp(a, "--timeout")) {
        c->o.timeout_s = strtod(v, &end);
        if (*end || !(c->o.timeout_s > 0))
            return bad("--timeout takes a positive number of seconds, not '%s'", v);
        mpi_push("--timeout");
        mpi_push(v);
    } else {
        return bad("unknown option '%s'", a);
    }
    return 0;
}

/* The transport, before anything starts: -t, else SHMEMU_TRANSPORT
 * (honoured, as shmemu_launch honours it), else shm.  0, or 2 when it
 * does not exist or cannot run here. */
static int check_transport(struct shmemu__run_opts *o)
{
    const char *from = "-t ";
    if (!o->transport && getenv("SHMEMU_TRANSPORT") && *getenv("SHMEMU_TRANSPORT")) {
        o->transport = getenv("SHMEMU_TRANSPORT");
        from = "SHMEMU_TRANSPORT=";
    }
    if (o->transport) {
        const char *name;
        int usable, found = 0;
        char why[256], known[256] = "";
        for (int k = 0; shmemu_transport_info(k, &name, &usable, why, sizeof(why)) == SHMEMU_OK;
             k++) {
            snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
                     k ? ", " : "", name);
            if (strcmp(name, o->transport))
                continue;
            found = 1;
            if (!usable) {
                fprintf(stderr, "shmemu-run: %s%s: the transport cannot run here: %s\n", from,
                        o->transport, why);
                return 2;
            }
        }
        if (!found) {
            fprintf(stderr, "shmemu-run: %s%s: unknown transport (known: %s)\n", from,
                    o->transport, known);
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct cmd c = {0};
    /* at most: every argument, a name and value for each, and the job's */
    mpi_argv = calloc((size_t)argc * 3 + 16, sizeof(char *));
    if (!mpi_argv)
        return bad("%s", "out of memory");
    mpi_push("mpirun");
    int i = 1;
    for (; i < argc; i++) {
        char opt[64];
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        /* --name=value, as mpirun also takes it */
        const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
        int inline_val = eq && (size_t)(eq - a) < sizeof(opt);
        if (inline_val) {
            memcpy(opt, a, (size_t)(eq - a));
            opt[eq - a] = '\0';
            a = opt;
            v = eq + 1;
        }
        int skip = -1;
        for (size_t k = 0; k < sizeof(ignored) / sizeof(ignored[0]) && skip < 0; k++)
            if (!strcmp(a, ignored[k].name))
                skip = ignored[k].nvals;
        if (skip >= 0) {
            if (inline_val)
                skip--;
            if (i + skip >= argc)
                return bad("%s needs a value", a);
            for (int k = 0; k <= skip; k++)
                mpi_push(argv[i + k]);
            i += skip;
            continue;
        }
        if (!strcmp(a, "-x")) { /* export: VAR=VALUE sets it, VAR alone is inherited */
            if (!v)
                return bad("%s needs a value", a);
            i += !inline_val;
            mpi_push("-x");
            mpi_push(v);
            const char *e = strchr(v, '=');
            if (e) {
                char name[256];
                snprintf(name, sizeof(name), "%.*s", (int)(e - v), v);
                setenv(name, e + 1, 1);
            }
            continue;
        }
        if (!strcmp(a, "-genv") || !strcmp(a, "-env")) {
            if (i + 2 >= argc)
                return bad("%s needs a name and a value", a);
            setenv(argv[i + 1], argv[i + 2], 1);
            mpi_push_env(argv[i + 1], argv[i + 2]);
            i += 2;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            printf("shmemu-run %s\n", SHMEMU_VERSION_STRING);
            return 0;
        }
        if (strcmp(a, "--tag-output") == 0) {
            c.o.tag_output = 1;
            mpi_push("--tag-output");
            continue;
        }
        if (!v)
            return bad("%s needs a value", a);
        i += !inline_val;
        int st = value_option(&c, a, v);
        if (st)
            return st;
    }
    int tst = check_transport(&c.o);
    if (tst)
        return tst;
    if (!c.o.npes)
        c.o.npes = (int)c.per_node;
    if (!c.o.npes)
        return bad("%s", "how many PEs? (-n N)");
    if (i >= argc)
        return bad("%s", "no program to run");
    c.o.argv = argv + i;
    /* Other machines: mpirun starts ucx PEs there; no other transport
     * reaches beyond this one. */
    if ((c.hosts && !hosts_local(c.hosts)) || (c.hostfile && !hostfile_local(c.hostfile))) {
        if (c.o.transport && !strcmp(c.o.transport, "ucx"))
            return delegate(c.o.npes, c.o.argv);
        return bad("%s %s %s: the %s transport starts PEs on this one (-t ucx starts "
                   "them on several, through mpirun)",
                   c.host_opt, c.hosts ? c.hosts : c.hostfile,
                   c.hosts ? "names another machine" : "is unreadable or names another machine",
                   c.o.transport ? c.o.transport : "shm");
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return shmemu__run(&c.o);
}
