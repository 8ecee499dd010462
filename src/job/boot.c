/* boot.c - the bootstraps (see boot.h). */
#include "boot.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot_pmix.h"
#include "runtime/core.h"

/* ------------------------------------------------ shmemu-run's environment */

/* A SHMEMU_RUN_* variable as an integer in [lo, hi]. */
static int run_env_int(const char *call, const char *var, long lo, long hi, long *out)
{
    const char *v = getenv(var);
    char *end;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || n < lo || n > hi)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "%s='%s' is malformed (must be %ld..%ld): this program was "
                            "started by shmemu-run with a damaged environment",
                            var, v ? v : "", lo, hi);
    *out = n;
    return SHMEMU_OK;
}

/* shmemu-run made the job's segment before it started the processes and
 * named it in their environment: nothing to exchange, and it watches the
 * processes itself. */
static struct shmemu__boot run_boot = {.name = "shmemu-run", .nnodes = 1, .attach = 1};

static int run_detect(const char *call)
{
    long npes, pe;
    int st;
    if ((st = run_env_int(call, "SHMEMU_RUN_NPES", 1, SHMEMU__NPES_MAX, &npes)) ||
        (st = run_env_int(call, "SHMEMU_RUN_PE", 0, npes - 1, &pe)))
        return st;
    run_boot.rank = (int)pe;
    run_boot.size = (int)npes;
    return SHMEMU_OK;
}

/* ------------------------------------------------------------------ PMIx */

/*
 * This process stays a PMIx client until it exits, whatever number of jobs
 * it joins in turn (init, finalize, init again, as a test harness does): a
 * finalize and re-init of PMIx between two jobs raced with the peers' fence
 * of the next job, which the server then failed with PARTIAL SUCCESS.  Each
 * exchange's key carries its number in this process's sequence of
 * exchanges, the same in every process (they are collective), so that no
 * exchange reads the values of the one before.
 */
static const struct shmemu_pmix_plugin *pmix;
static pid_t pmix_pid; /* the process that is the client: a forked child is not */
static unsigned exchanges;

static void pmix_at_exit(void)
{
    if (getpid() == pmix_pid)
        pmix->fini();
}

/* Blobs travel through PMIx as hex strings, trailing zero bytes left out. */
static void hex_encode(const unsigned char *b, size_t n, char *out)
{
    while (n > 0 && b[n - 1] == 0)
        n--;
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = '\0';
}

static int hex_decode(const char *s, unsigned char *b, size_t cap)
{
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap)
        return -1;
    memset(b, 0, cap);
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        b[i] = (unsigned char)v;
    }
    return 0;
}

/* Every process publishes, every process passes the fence (failed or not,
 * so that nobody waits for a process that gave up: the failure then ends
 * the job through the launcher), then reads everyone's. */
static int pmix_allgather(const struct shmemu__boot *b, const void *mine, void *all, size_t len,
                          char *why, size_t wlen)
{
    char key[48], *hex = malloc(2 * len + 1);
    snprintf(key, sizeof(key), "shmemu.boot.%u", exchanges++);
    if (hex)
        hex_encode(mine, len, hex);
    int st = pmix->fence(key, hex ? hex : "", why, wlen);
    for (int p = 0; p < b->size && st == SHMEMU_OK; p++) {
        if (!hex) {
            snprintf(why, wlen, "out of memory for the exchange");
            st = SHMEMU_ENOMEM;
        } else if ((st = pmix->get(p, key, hex, 2 * len + 1, why, wlen)) == SHMEMU_OK &&
                   hex_decode(hex, (unsigned char *)all + (size_t)p * len, len)) {
            snprintf(why, wlen, "process %d published %zu hex digits for %zu bytes", p,
                     strlen(hex), len);
            st = SHMEMU_EINVAL;
        }
    }
    free(hex);
    return st;
}

static int pmix_barrier(const struct shmemu__boot *b, char *why, size_t wlen)
{
    (void)b;
    return pmix->fence(NULL, NULL, why, wlen);
}

/* mpirun ends the other processes itself, with the status as its own:
 * processes that ended without a word to it would make it report them. */
static int pmix_abort(const struct shmemu__boot *b, int status, const char *msg)
{
    (void)b;
    return pmix->abort(status, msg);
}

static struct shmemu__boot pmix_boot = {
    .name = "pmix", .allgather = pmix_allgather, .barrier = pmix_barrier, .abort = pmix_abort};

static int pmix_detect(const char *call)
{
    char why[256] = "";
    if (pmix_pid && getpid() != pmix_pid)
        /* A fork shares its parent's connection to the PMIx server: the
         * server would take it for the parent, and the job's fences would
         * wait for a process that never comes (a hang, not an error). */
        return shmemu__fail(NULL, SHMEMU_ENOTSUP, call,
                            "this process (pid %d) is a fork of pid %d, rank %d of the "
                            "launcher's job, and not itself a rank of it: only the processes "
                            "the launcher started join (exec a program to start anew, or "
                            "unset PMIX_RANK for a job of its own)",
                            (int)getpid(), (int)pmix_pid, pmix_boot.rank);
    if (pmix_pid)
        return SHMEMU_OK;
    if (!pmix &&
        !(pmix = shmemu_tl_plugin_open(
              SHMEMU_PMIX_PLUGIN_FILE, SHMEMU_PMIX_PLUGIN_SYMBOL, SHMEMU_PMIX_PLUGIN_ABI,
              sizeof(struct shmemu_pmix_plugin), "SHMEMU_PMIX_PLUGIN", "PMIx plugin",
              "shmemu was built without PMIx: install Debian's libpmix-dev and rebuild", why,
              sizeof(why))))
        return shmemu__fail(NULL, SHMEMU_ENODEV, call,
                            "this process was started by a PMIx launcher (mpirun) but cannot "
                            "join its job: %s",
                            why);
    int st = pmix->init(&pmix_boot.rank, &pmix_boot.size, &pmix_boot.nnodes, why, sizeof(why));
    if (st != SHMEMU_OK)
        return shmemu__fail(NULL, st, call,
                            "this process was started by a PMIx launcher (mpirun) but cannot "
                            "join its job: %s",
                            why);
    if (pmix_boot.size < 1 || pmix_boot.size > SHMEMU__NPES_MAX || pmix_boot.rank < 0 ||
        pmix_boot.rank >= pmix_boot.size)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call,
                            "the launcher says this is process %d of %d (at most %d)",
                            pmix_boot.rank, pmix_boot.size, SHMEMU__NPES_MAX);
    pmix_pid = getpid();
    atexit(pmix_at_exit);
    return SHMEMU_OK;
}

/* ------------------------------------------------------------------ self */

static int self_allgather(const struct shmemu__boot *b, const void *mine, void *all, size_t len,
                          char *why, size_t wlen)
{
    (void)b, (void)why, (void)wlen;
    memcpy(all, mine, len);
    return SHMEMU_OK;
}

static int self_barrier(const struct shmemu__boot *b, char *why, size_t wlen)
{
    (void)b, (void)why, (void)wlen;
    return SHMEMU_OK;
}

static const struct shmemu__boot self_boot = {.name = "self", .rank = 0, .size = 1, .nnodes = 1,
                                              .allgather = self_allgather,
                                              .barrier = self_barrier};

/* ------------------------------------------------------------- choosing */

int shmemu__boot_detect(const char *call, const struct shmemu__boot **b)
{
    int st;
    *b = &self_boot;
    if (getenv("SHMEMU_RUN_NPES")) {
        if ((st = run_detect(call)))
            return st;
        *b = &run_boot;
        return 1;
    }
    if (getenv("PMIX_RANK") && getenv("PMIX_NAMESPACE")) {
        if ((st = pmix_detect(call)))
            return st;
        *b = &pmix_boot;
        return 1;
    }
    return 0;
}
