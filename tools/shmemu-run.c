/*
 * shmemu-run - start N copies of an SPMD program as the PEs of one job.
 *
 *   shmemu-run -n N [-t shm] [--heap-size SIZE] [--bind core|none]
 *              [--timeout SECONDS] [--tag-output] -- PROGRAM [ARGS...]
 *
 * Each copy finds its job through the environment in shmemu_init().  The
 * launcher forwards SIGINT and SIGTERM, and exits with the first failing
 * PE's status (128 + signal for a signal), 124 after --timeout, or 0.  When a
 * PE dies or exits before shmemu_finalize, it says so, aborts the job (PEs
 * blocked in shmemu calls return SHMEMU_EABORTED or exit), then sends
 * SIGTERM and, shortly after, SIGKILL to what is left.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/run.h"
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
            "  --version             print the version\n");
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
    fprintf(stderr, "shmemu-run: %s\n", msg);
    usage(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    struct shmemu__run_opts o = {0};
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            printf("shmemu-run %s\n", SHMEMU_VERSION_STRING);
            return 0;
        }
        if (strcmp(a, "--tag-output") == 0) {
            o.tag_output = 1;
            continue;
        }
        if (!v)
            return bad("%s needs a value", a);
        i++;
        char *end;
        if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--npes")) {
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 65536)
                return bad("the PE count must be 1..65536, not '%s'", v);
            o.npes = (int)n;
        } else if (!strcmp(a, "-t") || !strcmp(a, "--transport")) {
            o.transport = v;
        } else if (!strcmp(a, "--heap-size")) {
            if (shmemu__parse_size(v, &o.heap_size) != 0 || o.heap_size == 0)
                return bad("--heap-size takes a size such as 64M or 1G, not '%s'", v);
        } else if (!strcmp(a, "--bind")) {
            if (strcmp(v, "core") && strcmp(v, "none"))
                return bad("--bind takes core or none, not '%s'", v);
            setenv("SHMEMU_BIND", v, 1);
        } else if (!strcmp(a, "--timeout")) {
            o.timeout_s = strtod(v, &end);
            if (*end || !(o.timeout_s > 0))
                return bad("--timeout takes a positive number of seconds, not '%s'", v);
        } else {
            return bad("unknown option '%s'", a);
        }
    }
    if (!o.npes)
        return bad("%s", "how many PEs? (-n N)");
    if (i >= argc)
        return bad("%s", "no program to run");
    o.argv = argv + i;

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return shmemu__run(&o);
}
