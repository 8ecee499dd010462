/*
 * shmemu-verify - check collective algorithms over a matrix of PE counts,
 * sizes, types, operations, in-place, teams and transports.
 *
 *   shmemu-verify                          every built-in, default matrix
 *   shmemu-verify --collective allreduce --algo ring
 *   shmemu-verify --lib ./libmy.so --symbol my_allreduce --collective allreduce
 *   shmemu-verify --algo ring --npes 5 --count 17 --dtype float --op sum --seed 42
 *
 * The default matrix covers every pair of axis values at least once (a
 * pairwise covering design, built greedily and deterministically) plus the
 * edge cases (1 PE, count 0, count < PEs); --quick is smaller, --thorough
 * is the full cross product.  Options narrow or set each axis.  Prints a row
 * per case, "N passed, M failed", and for the first failure a command that
 * reproduces it and the first element that differs.  A case the algorithm
 * declines (SHMEMU_ENOTSUP from its first call on every PE) is counted
 * apart.  Exit status 0 iff none failed and one passed.  docs/VERIFY.md
 * has the details.
 *
 * Started by a launcher as the PEs of one job (mpirun -np 4 shmemu-verify,
 * shmemu-run -n 4 -t shm shmemu-verify), every case runs inside that job,
 * on its transport and PE count, and PE 0 reports.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shmemu.h"
#include "cli.h"
#include "verify-isolate.h"
#include "verify-matrix.h"

static const char *const axis_names[NAXES] = {"npes",     "count", "dtype",    "op",
                                              "in-place", "team",  "transport"};

struct axis ax[NAXES];
static const char *transports[8] = {"local"};
static int ntransports = 1;
static uint64_t seed = 1;
static int inputs = SHMEMU_VERIFY_EXACT;
/* Per-PE buffer limits: the largest count (1 Mi) is tested, but not scaled by
 * 16 PEs for the collectives whose buffers grow with the PE count. */
size_t max_bytes = ((size_t)4 << 20) + 512;
size_t max_elems = ((size_t)1 << 20) + 64;
static int verbose;
static size_t heap_size;     /* --heap-size: per case; 0 derived */
static double case_timeout;  /* --timeout: per case; 0 derived */

#define die(...) cli_die("shmemu-verify", __VA_ARGS__)

/* ------------------------------------------------------------- the axes */

static void set_axis(int a, const long long *v, int n)
{
    ax[a].n = n;
    memcpy(ax[a].v, v, (size_t)n * sizeof(*v));
}

static void default_axes(int quick)
{
    static const long long npes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16};
    /* Odd counts just past the built-ins' size thresholds (2 KiB, 4 KiB,
     * 16 KiB, 64 KiB of 1-byte elements) and odd large ones: vector tails
     * and uneven chunks; 0, 1 and 2 for the edges. */
    static const long long counts[] = {0,    1,     2,     3,     7,      64,
                                       1000, 2049,  4097,  16385, 65537, 100003,
                                       (1 << 20) + 3};
    static const long long qnpes[] = {1, 2, 3, 5, 8};
    static const long long qcounts[] = {0, 1, 7, 1000};
    long long dt[SHMEMU_DTYPE_COUNT], ops[SHMEMU_OP_COUNT];
    for (int i = 0; i < SHMEMU_DTYPE_COUNT; i++)
        dt[i] = i;
    for (int i = 0; i < SHMEMU_OP_COUNT; i++)
        ops[i] = i;
    static const long long qdt[] = {SHMEMU_INT32, SHMEMU_UINT8, SHMEMU_FLOAT, SHMEMU_FLOAT16};
    static const long long qops[] = {SHMEMU_SUM, SHMEMU_MAX, SHMEMU_BXOR};
    static const long long two[] = {0, 1};
    if (quick) {
        set_axis(A_NPES, qnpes, 5);
        set_axis(A_COUNT, qcounts, 4);
        set_axis(A_DTYPE, qdt, 4);
        set_axis(A_OP, qops, 3);
    } else {
        set_axis(A_NPES, npes, 11);
        set_axis(A_COUNT, counts, (int)(sizeof(counts) / sizeof(counts[0])));
        set_axis(A_DTYPE, dt, SHMEMU_DTYPE_COUNT);
        set_axis(A_OP, ops, SHMEMU_OP_COUNT);
    }
    set_axis(A_INPLACE, two, 2);
    set_axis(A_TEAM, two, 2);
    long long t = 0;
    set_axis(A_TRANSPORT, &t, 1);
}

/* "5", "2-9", "1,3,7", "4K", "1M-1M+3"... into an axis of integers: PE
 * counts 1..MAX_NPES, element counts with K, M, G (powers of 1024). */
#define MAX_NPES 16384
static long long axis_value(int a, const char *tok, const char *whole)
{
    uint64_t v;
    if (cli_size(tok, &v) != 0 || (a == A_NPES && (v < 1 || v > MAX_NPES)) ||
        v > ((uint64_t)1 << 40))
        die(a == A_NPES ? "--%s: '%s' is not a PE count (1..%d)"
                        : "--%s: '%s' is not a count (0..1T, K/M/G allowed)",
            axis_names[a], *whole ? whole : tok, MAX_NPES);
    return (long long)v;
}

static void parse_ints(int a, const char *s)
{
    long long v[MAXV];
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(tok, '-');
        if (dash)
            *dash = '\0';
        long long lo = axis_value(a, tok, ""), hi = dash ? axis_value(a, dash + 1, "") : lo;
        if (hi < lo || hi - lo >= MAXV || n + (hi - lo) >= MAXV)
            die("--%s: '%s' is more than %d values", axis_names[a], s, MAXV);
        for (long long x = lo; x <= hi; x++)
            v[n++] = x;
    }
    free(copy);
    if (!n)
        die("--%s needs a value", axis_names[a]);
    set_axis(a, v, n);
}

static int lookup(const char *s, const char *(*name)(int), int count, const char *what)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(s, name(i)))
            return i;
    die("unknown %s '%s'", what, s);
}

static const char *dtype_name(int i) { return shmemu_dtype_name((shmemu_dtype_t)i); }
static const char *op_name(int i) { return shmemu_op_name((shmemu_op_t)i); }
static const char *coll_name(int i) { return shmemu_coll_name((shmemu_coll_t)i); }

static void parse_names(int a, const char *s, const char *(*name)(int), int count)
{
    if (!strcmp(s, "all")) {
        long long v[MAXV];
        for (int i = 0; i < count; i++)
            v[i] = i;
        set_axis(a, v, count);
        return;
    }
    long long v[MAXV];
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && n < MAXV; tok = strtok_r(NULL, ",", &save))
        v[n++] = lookup(tok, name, count, axis_names[a]);
    free(copy);
    set_axis(a, v, n);
}

static void parse_yesno(int a, const char *s, const char *yes, const char *no)
{
    long long v[2];
    int n = 0;
    if (!strcmp(s, "all") || !strcmp(s, "both")) {
        v[n++] = 0;
        v[n++] = 1;
    } else if (!strcmp(s, yes)) {
        v[n++] = 1;
    } else if (!strcmp(s, no)) {
        v[n++] = 0;
    } else {
        die("--%s takes %s, %s or all, not '%s'", axis_names[a], yes, no, s);
    }
    set_axis(a, v, n);
}

/* ---------------------------------------------------------------- output */

struct row {
    shmemu_verify_case vc;
    shmemu_verify_result r;
    char check[48]; /* the checker mode it ran (and failed) under; "" none */
    char sim[64];   /* the sim transport's schedule it ran (and failed) under */
};

/* Checker mode: --check MODE for every case, or --fuzz N seeds each. */
static const char *check_opt;
static int fuzz_seeds, race;
/* The sim transport: --explore N schedules per case with --strategy, or
 * one schedule given whole (--sim, as reproducers say). */
static int explore;
static const char *strategy = "random", *sim_opt;
static uint64_t *seen_sched; /* distinct schedule hashes (open addressing) */
static size_t seen_cap, seen_n;

static void note_schedule(uint64_t schedule)
{
    if (!schedule)
        return;
    if (seen_n * 2 >= seen_cap) {
        size_t cap = seen_cap ? seen_cap * 2 : 1024;
        uint64_t *t = calloc(cap, sizeof(*t));
        if (!t)
            return;
        for (size_t i = 0; i < seen_cap; i++)
            for (size_t j = seen_sched[i] % cap; seen_sched[i]; j = (j + 1) % cap)
                if (!t[j]) {
                    t[j] = seen_sched[i];
                    break;
                }
        free(seen_sched);
        seen_sched = t;
        seen_cap = cap;
    }
    for (size_t j = schedule % seen_cap;; j = (j + 1) % seen_cap) {
        if (seen_sched[j] == schedule)
            return;
        if (!seen_sched[j]) {
            seen_sched[j] = schedule;
            seen_n++;
            return;
        }
    }
}

static void fill_case(shmemu_verify_case *vc, const struct algo *al, const point p)
{
    memset(vc, 0, sizeof(*vc));
    vc->coll = al->coll;
    vc->algo = al->name;
    vc->fn = al->fn;
    vc->npes = (int)ax[A_NPES].v[p[A_NPES]];
    vc->count = (size_t)ax[A_COUNT].v[p[A_COUNT]];
    vc->dtype = (shmemu_dtype_t)ax[A_DTYPE].v[p[A_DTYPE]];
    vc->op = (shmemu_op_t)ax[A_OP].v[p[A_OP]];
    vc->in_place = (int)ax[A_INPLACE].v[p[A_INPLACE]];
    vc->team = (int)ax[A_TEAM].v[p[A_TEAM]];
    vc->transport = transports[ax[A_TRANSPORT].v[p[A_TRANSPORT]]];
    int n = vc->team ? (vc->npes + 1) / 2 : vc->npes;
    vc->root = (int)((seed + (uint64_t)vc->npes + vc->count) % (uint64_t)n);
    vc->seed = seed;
    vc->inputs = inputs;
    vc->heap_size = heap_size;
    vc->timeout = case_timeout;
}

static void reproducer(FILE *f, const struct row *w, const char *lib, const char *sym)
{
    const shmemu_verify_case *c = &w->vc;
    fprintf(f, "shmemu-verify");
    if (lib)
        fprintf(f, " --lib %s --symbol %s", lib, sym);
    else
        fprintf(f, " --algo %s", c->algo);
    fprintf(f, " --collective %s --npes %d --count %zu --dtype %s", shmemu_coll_name(c->coll),
            c->npes, c->count, shmemu_dtype_name(c->dtype));
    if (c->coll == SHMEMU_COLL_ALLREDUCE || c->coll == SHMEMU_COLL_REDUCE ||
        c->coll == SHMEMU_COLL_REDUCE_SCATTER)
        fprintf(f, " --op %s", shmemu_op_name(c->op));
    fprintf(f, " --in-place %s --team %s --transport %s --seed %llu%s",
            c->in_place ? "yes" : "no", c->team ? "strided" : "world",
            c->transport ? c->transport : "local", (unsigned long long)c->seed,
            c->inputs ? " --inputs random" : "");
    if (w->check[0])
        fprintf(f, " --check %s", w->check);
    if (w->sim[0])
        fprintf(f, " --sim %s", w->sim);
    if (c->heap_size)
        fprintf(f, " --heap-size %zu", c->heap_size);
    if (c->timeout > 0)
        fprintf(f, " --timeout %g", c->timeout);
    fprintf(f, "\n");
}

static void print_row(const struct row *w)
{
    const shmemu_verify_case *c = &w->vc;
    printf("%-14s %-12s %-6s %4d %8zu %-8s %-5s %-3s %-7s %-4s %8.3f%s%s%s%s\n",
           shmemu_coll_name(c->coll), c->algo, c->transport ? c->transport : "local", c->npes,
           c->count, shmemu_dtype_name(c->dtype),
           c->coll == SHMEMU_COLL_ALLREDUCE || c->coll == SHMEMU_COLL_REDUCE ||
                   c->coll == SHMEMU_COLL_REDUCE_SCATTER
               ? shmemu_op_name(c->op)
               : "-",
           c->in_place ? "yes" : "no", c->team ? "strided" : "world",
           w->r.passed ? "ok" : w->r.declined ? "decl" : "FAIL", w->r.seconds,
           w->r.passed ? "" : "  ", w->r.passed ? "" : w->r.reason,
           !w->r.passed && !w->r.declined && w->check[0] ? " under " : "",
           !w->r.passed && !w->r.declined && w->check[0] ? w->check : "");
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void write_json(const char *path, const struct row *rows, int n, int failed,
                       int declined)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s", path);
    fprintf(f,
            "{\"passed\": %d, \"failed\": %d, \"declined\": %d, \"seed\": %llu, "
            "\"cases\": [\n",
            n - failed - declined, failed, declined, (unsigned long long)seed);
    for (int i = 0; i < n; i++) {
        const shmemu_verify_case *c = &rows[i].vc;
        const shmemu_verify_result *r = &rows[i].r;
        fprintf(f, "  {\"collective\": \"%s\", \"algo\": ", shmemu_coll_name(c->coll));
        json_string(f, c->algo);
        fprintf(f, ", \"transport\": \"%s\", \"npes\": %d, \"count\": %zu, \"dtype\": \"%s\", "
                   "\"op\": \"%s\", \"in_place\": %s, \"team\": \"%s\", \"root\": %d, "
                   "\"passed\": %s, \"seconds\": %.6f",
                c->transport ? c->transport : "local", c->npes, c->count,
                shmemu_dtype_name(c->dtype), shmemu_op_name(c->op),
                c->in_place ? "true" : "false", c->team ? "strided" : "world", c->root,
                r->passed ? "true" : "false", r->seconds);
        if (rows[i].check[0]) {
            fprintf(f, ", \"check\": ");
            json_string(f, rows[i].check);
        }
        if (r->declined)
            fprintf(f, ", \"declined\": true");
        if (!r->passed && !r->declined) {
            fprintf(f, ", \"reason\": ");
            json_string(f, r->reason);
            fprintf(f, ", \"notes\": ");
            json_string(f, r->notes);
            fprintf(f, ", \"pe\": %d, \"index\": %zu, \"expected\": ", r->pe, r->index);
            json_string(f, r->expected);
            fprintf(f, ", \"got\": ");
            json_string(f, r->got);
        }
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "]}\n");
    fclose(f);
}

/* A table per collective and algorithm: cases, passed, failed, seconds. */
static void summary(const struct row *rows, int n)
{
    printf("%-14s %-14s %7s %7s %7s %9s\n", "# collective", "algo", "cases", "passed",
           "failed", "seconds");
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = rows[j].vc.coll == rows[i].vc.coll && !strcmp(rows[j].vc.algo, rows[i].vc.algo);
        if (seen)
            continue;
        int cases = 0, bad = 0, declined = 0;
        double secs = 0;
        for (int j = i; j < n; j++) {
            if (rows[j].vc.coll != rows[i].vc.coll || strcmp(rows[j].vc.algo, rows[i].vc.algo))
                continue;
            cases++;
            bad += !rows[j].r.passed && !rows[j].r.declined;
            declined += rows[j].r.declined;
            secs += rows[j].r.seconds;
        }
        printf("%-14s %-14s %7d %7d %7d %9.1f\n", shmemu_coll_name(rows[i].vc.coll),
               rows[i].vc.algo, cases, cases - bad - declined, bad, secs);
        if (declined)
            printf("#   (%s declined %d of its %d cases: SHMEMU_ENOTSUP on every PE; -v lists "
                   "them)\n",
                   rows[i].vc.algo, declined, cases);
    }
}

/* Each failure in full: the case, why, the first difference, what the
 * checker saw, and the line that reproduces it. */
static void print_failures(const struct row *rows, int n, const char *lib, const char *sym)
{
    enum { SHOWN = 10 };
    int k = 0, total = 0;
    for (int i = 0; i < n; i++)
        total += !rows[i].r.passed && !rows[i].r.declined;
    for (int i = 0; i < n && k < SHOWN; i++) {
        const struct row *w = &rows[i];
        if (w->r.passed || w->r.declined)
            continue;
        const shmemu_verify_case *c = &w->vc;
        printf("\nFAILED %d of %d: %s %s on %s, %d PEs, count %zu, %s", ++k, total,
               shmemu_coll_name(c->coll), c->algo, c->transport ? c->transport : "local",
               c->npes, c->count, shmemu_dtype_name(c->dtype));
        if (c->coll == SHMEMU_COLL_ALLREDUCE || c->coll == SHMEMU_COLL_REDUCE ||
            c->coll == SHMEMU_COLL_REDUCE_SCATTER)
            printf(" %s", shmemu_op_name(c->op));
        printf("%s%s%s\n", c->in_place ? ", in place" : "", c->team ? ", strided team" : "",
               w->check[0] ? ", under the checker" : "");
        printf("  %s%s\n", k == 1 ? "first failure: " : "", w->r.reason);
        if (w->r.pe >= 0 && w->r.expected[0])
            printf("  %s PE %d, index %zu: expected %s, got %s\n",
                   k == 1 ? "first difference:" : "difference:", w->r.pe, w->r.index,
                   w->r.expected, w->r.got);
        if (w->r.notes[0]) {
            printf("  checker notes:\n");
            for (const char *l = w->r.notes; *l;) {
                const char *nl = strchr(l, '\n');
                int len = nl ? (int)(nl - l) : (int)strlen(l);
                printf("    %.*s\n", len, l);
                l += len + (nl != NULL);
            }
        }
        printf("  reproduce: ");
        reproducer(stdout, w, lib, sym);
    }
    if (total > SHOWN)
        printf("\n... and %d more failures (-v lists every case, --json FILE writes them all)\n",
               total - SHOWN);
    if (total)
        printf("\n");
}

/* Every option, and whether it takes a value: an unknown one is refused
 * as such, not as one that "needs a value". */
static const struct opt {
    const char *name;
    int value;
} opts[] = {
    {"-h", 0},          {"--help", 0},        {"--quick", 0},       {"--thorough", 0},
    {"-v", 0},          {"--race", 0},        {"--collective", 1},  {"--algo", 1},
    {"--lib", 1},       {"--symbol", 1},      {"--json", 1},        {"--check", 1},
    {"--fuzz", 1},      {"--seed", 1},        {"--explore", 1},     {"--strategy", 1},
    {"--sim", 1},       {"--heap-size", 1},   {"--timeout", 1},     {"--max-bytes", 1},
    {"--inputs", 1},    {"--npes", 1},        {"--count", 1},       {"--dtype", 1},
    {"--op", 1},        {"--in-place", 1},    {"--team", 1},        {"--transport", 1},
};

/* --check MODE: fuzz[:SEED], race (or calls), device, comma-separated
 * (docs/CHECK.md). */
static const char *check_mode(const char *v)
{
    char *copy = strdup(v), *save = NULL;
    int n = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
        long long k;
        if (strcmp(t, "race") && strcmp(t, "calls") && strcmp(t, "device") && strcmp(t, "fuzz") &&
            !(!strncmp(t, "fuzz:", 5) && !cli_long(t + 5, 0, INT64_MAX, &k)))
            die("--check takes fuzz[:SEED], race (or calls) and device, comma-separated; not '%s'",
                t);
    }
    free(copy);
    if (!n)
        die("--check needs a mode: fuzz[:SEED], race or device");
    return v;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: shmemu-verify [--collective NAME|all] [--algo NAME|all]\n"
            "                     [--lib FILE.so --symbol NAME --collective NAME]\n"
            "                     [--npes 5|2-9|1,3] [--count 17|0,1,4097] [--dtype NAME|all]\n"
            "                     [--op NAME|all] [--in-place yes|no|all] [--team world|strided|all]\n"
            "                     [--transport local,shm] [--seed N] [--inputs exact|random]\n"
            "                     [--quick | --thorough] [--max-bytes SIZE] [--json FILE] [-v]\n"
            "                     [--heap-size SIZE] [--timeout SECONDS]\n"
            "                     [--fuzz N [--race]] [--check MODE: fuzz:SEED,race|calls,device]\n"
            "                     [--explore N [--strategy random|rr|pct[:DEPTH]]] [--sim SPEC]\n"
            "collectives: allreduce reduce reduce_scatter allgather broadcast alltoall\n");
}

/* ------------------------------------------------------------- the steps */

/* What the command line chose, beyond the settings above. */
static const char *coll_opt = "all", *algo_opt = "all", *lib, *sym, *json;
static int quick, thorough;
static const char *axis_opt[NAXES];
/* Started as the PEs of a launcher's job: every case runs inside it, and
 * PE 0 (me) reports. */
static int spmd, me;

/* One option and its value (NULL for a flag), checked. */
static void set_option(const char *a, const char *v)
{
    long long k;
    uint64_t sz;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        usage(stdout);
        exit(0);
    }
    else if (!strcmp(a, "--quick")) quick = 1;
    else if (!strcmp(a, "--thorough")) {
        thorough = 1;
        max_bytes = (size_t)256 << 20;
        max_elems = (size_t)64 << 20;
    }
    else if (!strcmp(a, "-v")) verbose = 1;
    else if (!strcmp(a, "--race")) race = 1;
    else if (!strcmp(a, "--collective")) coll_opt = v;
    else if (!strcmp(a, "--algo")) algo_opt = v;
    else if (!strcmp(a, "--lib")) lib = v;
    else if (!strcmp(a, "--symbol")) sym = v;
    else if (!strcmp(a, "--json")) json = v;
    else if (!strcmp(a, "--check")) check_opt = check_mode(v);
    else if (!strcmp(a, "--fuzz")) {
        if (cli_long(v, 1, 100000, &k))
            die("--fuzz takes a number of seeds (1..100000), not '%s'", v);
        fuzz_seeds = (int)k;
    }
    else if (!strcmp(a, "--seed")) {
        if (cli_size(v, &sz) || strpbrk(v, "KkMmGgTtB"))
            die("--seed takes a whole number (0..2^64-1), not '%s'", v);
        seed = sz;
    }
    else if (!strcmp(a, "--explore")) {
        if (cli_long(v, 1, 10000000, &k))
            die("--explore takes a number of schedules (1..10000000), not '%s'", v);
        explore = (int)k;
    }
    else if (!strcmp(a, "--strategy")) {
        char *end = NULL;
        long d = !strncmp(v, "pct:", 4) ? strtol(v + 4, &end, 10) : 0;
        if (strcmp(v, "random") && strcmp(v, "rr") && strcmp(v, "pct") &&
            !(end && end != v + 4 && !*end && d >= 1 && d <= 16))
            die("--strategy takes random, rr, pct or pct:DEPTH (1..16), not '%s'", v);
        strategy = v;
    }
    else if (!strcmp(a, "--sim")) sim_opt = v;
    else if (!strcmp(a, "--heap-size")) {
        if (cli_size(v, &sz) || !sz || sz > ((uint64_t)1 << 40))
            die("--heap-size takes a size (bytes, or with K, M, G, T), not '%s'", v);
        heap_size = (size_t)sz;
    }
    else if (!strcmp(a, "--timeout")) {
        if (cli_seconds(v, &case_timeout))
            die("--timeout takes seconds (> 0), not '%s'", v);
    }
    else if (!strcmp(a, "--max-bytes")) {
        if (cli_size(v, &sz) || !sz || sz > ((uint64_t)1 << 40))
            die("--max-bytes takes a size (bytes, or with K, M, G, T), not '%s'", v);
        max_bytes = max_elems = (size_t)sz;
    }
    else if (!strcmp(a, "--inputs")) {
        if (strcmp(v, "exact") && strcmp(v, "random"))
            die("--inputs takes exact or random, not '%s'", v);
        inputs = !strcmp(v, "random");
    }
    else if (!strcmp(a, "--npes")) axis_opt[A_NPES] = v;
    else if (!strcmp(a, "--count")) axis_opt[A_COUNT] = v;
    else if (!strcmp(a, "--dtype")) axis_opt[A_DTYPE] = v;
    else if (!strcmp(a, "--op")) axis_opt[A_OP] = v;
    else if (!strcmp(a, "--in-place")) axis_opt[A_INPLACE] = v;
    else if (!strcmp(a, "--team")) axis_opt[A_TEAM] = v;
    else if (!strcmp(a, "--transport")) axis_opt[A_TRANSPORT] = v;
}

/* Every option, read and checked: a bad one ends the run here (exit 2). */
static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const struct opt *o = NULL;
        for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]) && !o; k++)
            if (!strcmp(a, opts[k].name))
                o = &opts[k];
        if (!o)
            die("unknown option '%s' (see --help)", a);
        if (o->value && i + 1 >= argc)
            die("%s needs a value (see --help)", a);
        const char *v = o->value ? argv[++i] : NULL;
        set_option(a, v);
    }
    if (quick && thorough)
        die("--quick and --thorough ask for two different matrices: give one");
    static char check_race[160];
    if (race && !fuzz_seeds && check_opt && !strstr(check_opt, "race")) {
        snprintf(check_race, sizeof(check_race), "%s,race", check_opt);
        check_opt = check_race;
    }
    if (json) { /* refused now, not after every case ran */
        FILE *f = fopen(json, "w");
        if (!f)
            die("--json %s: cannot write there (%s)", json, strerror(errno));
        fclose(f);
    }
}

static void join_job(void)
{
    /* Started as the PEs of a job: the cases run inside it. */
    spmd = getenv("PMIX_RANK") || getenv("SHMEMU_RUN_NPES");
    if (spmd) {
        if (fuzz_seeds || check_opt || race || explore || sim_opt)
            die("inside a launcher's job the checker is the job's: set SHMEMU_CHECK for the "
                "launch instead of --fuzz, --check, --race, --explore or --sim");
        if (shmemu_init() != SHMEMU_OK)
            die("started by a launcher, but could not join its job (see above)");
        /* an algorithm's failing call is a verdict, not the end of the job */
        (void)shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
        me = shmemu_my_pe();
        if (me != 0 && !freopen("/dev/null", "w", stdout))
            die("cannot silence PE %d's output", me);
    }
}

/* The matrix's axes: the defaults (or --quick's), narrowed by the options;
 * inside a job, its PE count and transport alone. */
static void set_axes(void)
{
    if (explore && sim_opt)
        die("--explore picks the schedules itself: leave out --sim");
    if ((explore || sim_opt) && !axis_opt[A_TRANSPORT])
        axis_opt[A_TRANSPORT] = "sim"; /* schedules are the sim transport's */
    if ((explore || sim_opt) && strcmp(axis_opt[A_TRANSPORT], "sim"))
        die("--explore and --sim need the sim transport, not '%s'", axis_opt[A_TRANSPORT]);
    default_axes(quick);
    if (axis_opt[A_NPES]) parse_ints(A_NPES, axis_opt[A_NPES]);
    if (axis_opt[A_COUNT]) parse_ints(A_COUNT, axis_opt[A_COUNT]);
    if (axis_opt[A_DTYPE]) parse_names(A_DTYPE, axis_opt[A_DTYPE], dtype_name, SHMEMU_DTYPE_COUNT);
    if (axis_opt[A_OP]) parse_names(A_OP, axis_opt[A_OP], op_name, SHMEMU_OP_COUNT);
    if (axis_opt[A_INPLACE]) parse_yesno(A_INPLACE, axis_opt[A_INPLACE], "yes", "no");
    if (axis_opt[A_TEAM]) parse_yesno(A_TEAM, axis_opt[A_TEAM], "strided", "world");
    if (spmd) { /* the job's PE count and transport, and no other */
        long long np = shmemu_n_pes(), zero = 0;
        int listed = !axis_opt[A_NPES];
        for (int i = 0; i < ax[A_NPES].n && !listed; i++)
            listed = ax[A_NPES].v[i] == np;
        if (!listed)
            die("--npes %s leaves out this job's %lld PEs: under a launcher every case runs "
                "on the job's PEs",
                axis_opt[A_NPES], np);
        set_axis(A_NPES, &np, 1);
        const char *tp = shmemu_transport_name();
        if (axis_opt[A_TRANSPORT] && strcmp(axis_opt[A_TRANSPORT], tp))
            die("--transport %s: this job runs on %s", axis_opt[A_TRANSPORT], tp);
        transports[0] = tp;
        ntransports = 1;
        set_axis(A_TRANSPORT, &zero, 1);
    } else if (axis_opt[A_TRANSPORT]) {
        char *copy = strdup(axis_opt[A_TRANSPORT]), *save = NULL;
        long long v[8];
        ntransports = 0;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char why[256];
            int st = cli_transport(t, why, sizeof(why));
            if (st == -1)
                die("--transport: unknown transport '%s' (known: %s)", t, why);
            if (st == -2)
                die("--transport: '%s' cannot run here: %s", t, why);
            if (ntransports == 8)
                die("--transport: at most 8 transports");
            transports[ntransports] = strdup(t);
            v[ntransports] = ntransports;
            ntransports++;
        }
        free(copy);
        set_axis(A_TRANSPORT, v, ntransports);
    }
}

/* The algorithms under test: the user's (--lib), or the built-ins asked
 * for.  Returns how many. */
/* The transports of the matrix a built-in runs on: the device-initiated
 * ones (dev_*) are kernels, which run where device threads run on the CPU;
 * each one left out of a transport says so once. */
static unsigned runs_on(const char *name)
{
    unsigned mask = 0;
    int device_check = check_opt && strstr(check_opt, "device");
    for (int t = 0; t < ntransports; t++) {
        const char *tl = transports[t];
        if (strncmp(name, "dev_", 4) ||
            (!device_check && (!strcmp(tl, "local") || !strcmp(tl, "shm") || !strcmp(tl, "sim") ||
                               !strcmp(tl, "cuda"))))
            mask |= 1u << t;
        else if (me == 0)
            printf("# %s left out on %s%s: device-initiated built-ins run on local, shm, sim "
                   "and cuda, not under --check device\n",
                   name, tl, device_check ? " under --check device" : "");
    }
    return mask;
}

static int pick_algos(struct algo *algos)
{
    int nalgos = 0;
    if (lib) {
        if (!sym || !strcmp(coll_opt, "all"))
            die("--lib needs --symbol and --collective");
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *why = dlerror();
            die("cannot load %s: %s%s", lib, why,
                strstr(why, "libshmemu")
                    ? " (build it against this shmemu with `cc -shared -fPIC FILE.c "
                      "$(pkg-config --cflags --libs shmemu)`, or leave -lshmemu out: "
                      "shmemu-verify provides every shmemu_* symbol)"
                    : "");
        }
        void *f = dlsym(h, sym);
        if (!f)
            die("%s has no symbol %s", lib, sym);
        isolate_init(lib, sym);
        algos[nalgos].coll = (shmemu_coll_t)lookup(coll_opt, coll_name, SHMEMU_COLL_COUNT, "collective");
        algos[nalgos].name = sym;
        memcpy(&algos[nalgos].fn, &f, sizeof(f));
        algos[nalgos].transports = ~0u;
        nalgos++;
    } else {
        for (int c = 0; c < SHMEMU_COLL_COUNT; c++) {
            if (strcmp(coll_opt, "all") && strcmp(coll_opt, shmemu_coll_name((shmemu_coll_t)c)))
                continue;
            const char *name;
            void (*fn)(void);
            for (int k = 0; shmemu_verify_builtin((shmemu_coll_t)c, k, &name, &fn) == 0; k++)
                if (!strcmp(algo_opt, "all") || !strcmp(algo_opt, name)) {
                    algos[nalgos].coll = (shmemu_coll_t)c;
                    algos[nalgos].name = name;
                    algos[nalgos].fn = fn;
                    algos[nalgos].transports = runs_on(name);
                    nalgos++;
                }
        }
        if (strcmp(coll_opt, "all"))
            (void)lookup(coll_opt, coll_name, SHMEMU_COLL_COUNT, "collective");
        if (!nalgos)
            die("no algorithm '%s' for collective '%s'", algo_opt, coll_opt);
    }
    return nalgos;
}

/* The cases: the covering design of each algorithm (or the full product),
 * the edge cases and the triples; *np of them. */
static struct row *build_cases(const struct algo *algos, int nalgos, int *np)
{
    int cap = 1024, n = 0, red_algos = 0, red_cases = 0;
    struct row *rows = calloc((size_t)cap, sizeof(*rows));
    for (int k = 0; k < nalgos; k++) {
        point *pts;
        int npts = 0;
        if (thorough) {
            long long total = 1;
            for (int a = 0; a < NAXES; a++)
                total *= ax[a].n;
            pts = malloc((size_t)total * sizeof(point));
            for (long long x = 0; x < total; x++) {
                long long y = x;
                point p;
                for (int a = 0; a < NAXES; a++) {
                    p[a] = (int)(y % ax[a].n);
                    y /= ax[a].n;
                }
                if (vm_valid(&algos[k], p))
                    memcpy(pts[npts++], p, sizeof(point));
            }
        } else {
            vm_covering(&algos[k], &pts, &npts);
        }
        /* edge cases: 1 PE, count 0, count < PEs */
        int extra[3][2] = {{1, 5}, {3, 0}, {7, 3}};
        for (int e = 0; e < 3 && !thorough; e++) {
            point p = {0};
            p[A_DTYPE] = 0;
            long long want_npes = extra[e][0], want_count = extra[e][1];
            int ok = 0;
            for (int i = 0; i < ax[A_NPES].n; i++)
                if (ax[A_NPES].v[i] == want_npes)
                    p[A_NPES] = i, ok++;
            for (int i = 0; i < ax[A_COUNT].n; i++)
                if (ax[A_COUNT].v[i] == want_count)
                    p[A_COUNT] = i, ok++;
            for (int i = 0; i < ax[A_OP].n && ok == 2; i++) {
                p[A_OP] = i;
                if (vm_valid(&algos[k], p)) {
                    pts = realloc(pts, (size_t)(npts + 1) * sizeof(point));
                    memcpy(pts[npts++], p, sizeof(point));
                    break;
                }
            }
        }
        if (!thorough)
            vm_add_triples(&algos[k], &pts, &npts);
        if (!algos[k].transports && strcmp(algo_opt, "all"))
            die("%s %s runs on local, shm, sim and cuda only, not under --check device (a "
                "device-initiated built-in): no case left",
                shmemu_coll_name(algos[k].coll), algos[k].name);
        if (!npts && (lib || strcmp(coll_opt, "all") || strcmp(algo_opt, "all")))
            die("the options select no case of %s %s (an op that no --dtype given supports, "
                "or sizes past --max-bytes?)",
                shmemu_coll_name(algos[k].coll), algos[k].name);
        int reduction = algos[k].coll == SHMEMU_COLL_ALLREDUCE ||
                        algos[k].coll == SHMEMU_COLL_REDUCE ||
                        algos[k].coll == SHMEMU_COLL_REDUCE_SCATTER;
        red_algos += reduction;
        red_cases += reduction ? npts : 0;
        for (int i = 0; i < npts; i++) {
            if (n == cap)
                rows = realloc(rows, (size_t)(cap *= 2) * sizeof(*rows));
            fill_case(&rows[n++].vc, &algos[k], pts[i]);
        }
        free(pts);
    }

    if (axis_opt[A_OP] && red_algos && !red_cases)
        die("--op %s%s%s: no reduction case (the op takes none of these types)", axis_opt[A_OP],
            axis_opt[A_DTYPE] ? " with --dtype " : "", axis_opt[A_DTYPE] ? axis_opt[A_DTYPE] : "");
    if (!n)
        die("the options select no case (an operation no type here supports, or a collective "
            "the other axes rule out): widen --dtype, --op or --collective");
    *np = n;
    return rows;
}

/* Every case, with a progress line; returns how many failed, and in
 * *declined how many the algorithm declined. */
static int run_cases(struct row *rows, int n, int *declined)
{
    char mode[160] = "";
    if (fuzz_seeds)
        snprintf(mode, sizeof(mode), ", checker: fuzz seeds 1..%d%s%s%s", fuzz_seeds,
                 race ? " and race" : "", check_opt ? " and " : "", check_opt ? check_opt : "");
    else if (check_opt || race)
        snprintf(mode, sizeof(mode), ", checker: %s", check_opt ? check_opt : "race");
    if (explore)
        snprintf(mode + strlen(mode), sizeof(mode) - strlen(mode),
                 ", %d %s schedules per case", explore, strategy);
    if (spmd)
        snprintf(mode + strlen(mode), sizeof(mode) - strlen(mode),
                 ", inside a job of %d PEs on %s", shmemu_n_pes(), shmemu_transport_name());
    printf("# shmemu-verify %s: %d cases, seed %llu, inputs %s%s\n", SHMEMU_VERSION_STRING, n,
           (unsigned long long)seed, inputs ? "random" : "exact", mode);
    if (verbose)
        printf("%-14s %-12s %-6s %4s %8s %-8s %-5s %-3s %-7s %-4s %8s\n", "# collective", "algo",
               "tport", "npes", "count", "dtype", "op", "in", "team", "res", "seconds");
    fflush(stdout);
    int failed = 0, tty = me == 0 && isatty(STDERR_FILENO), said = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        double el = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
        /* one progress line: rewritten on a terminal, every tenth elsewhere */
        if (tty)
            fprintf(stderr, "\r[%d/%d] %d failed, %.0f s: %s %s npes %d count %zu      ", i + 1,
                    n, failed, el, shmemu_coll_name(rows[i].vc.coll), rows[i].vc.algo,
                    rows[i].vc.npes, rows[i].vc.count);
        else if (me == 0 && i * 10 / n != said) {
            said = i * 10 / n;
            fprintf(stderr, "# %d/%d cases, %d failed, %.0f s\n", i, n, failed, el);
        }
        if (verbose) { /* before the case: the line to rerun it, should it hang */
            printf("# case %d/%d: ", i + 1, n);
            reproducer(stdout, &rows[i], lib, sym);
            fflush(stdout);
        }
        /* Under --fuzz N: seeds 1..N, up to the first that fails; under
         * --explore N, schedules 1..N of each (the same seed for both). */
        int tries = fuzz_seeds > 0 ? fuzz_seeds : 1, runs = explore > tries ? explore : tries;
        double secs = 0;
        for (int x = 1; x <= runs; x++) {
            struct row *w = &rows[i];
            int s = (x - 1) % tries + 1; /* the fuzz seed: they cycle */
            /* The schedule, named in full: the reproducer replays it. */
            if (explore)
                snprintf(w->sim, sizeof(w->sim), "%s,seed:%d", strategy, x);
            else if (sim_opt)
                snprintf(w->sim, sizeof(w->sim), "%s", sim_opt);
            if (w->sim[0])
                setenv("SHMEMU_SIM", w->sim, 1);
            if (fuzz_seeds > 0) /* --check adds to the seeds (device) */
                snprintf(w->check, sizeof(w->check), "fuzz:%d%s%s%s", s, race ? ",race" : "",
                         check_opt ? "," : "", check_opt ? check_opt : "");
            else if (check_opt || race)
                snprintf(w->check, sizeof(w->check), "%s", check_opt ? check_opt : "race");
            w->vc.check = w->check[0] ? w->check : NULL;
            /* A user's library on PEs that share this process: a copy
             * per PE, in a child process (verify-isolate.h). */
            uint64_t sched = 0;
            int ret;
            if (!spmd && isolate_wanted(w->vc.transport)) {
                ret = isolate_run(&w->vc, &w->r, &sched);
            } else {
                shmemu_sim_stats st;
                ret = shmemu_verify_run(&w->vc, &w->r);
                sched = shmemu_sim_last(&st) == SHMEMU_OK ? st.schedule : 0;
            }
            if (ret != SHMEMU_OK) {
                w->r.passed = w->r.declined = 0;
                snprintf(w->r.reason, sizeof(w->r.reason), "the case is not valid");
            }
            secs += w->r.seconds;
            if (explore)
                note_schedule(sched);
            if (!w->r.passed)
                break;
        }
        rows[i].r.seconds = secs;
        failed += !rows[i].r.passed && !rows[i].r.declined;
        *declined += rows[i].r.declined;
        if (verbose) {
            if (tty)
                fprintf(stderr, "\r%70s\r", "");
            print_row(&rows[i]);
            fflush(stdout);
        }
    }
    if (tty)
        fprintf(stderr, "\r%70s\r", "");
    return failed;
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    join_job();
    set_axes();
    struct algo algos[64];
    int nalgos = pick_algos(algos), n;
    struct row *rows = build_cases(algos, nalgos, &n);
    int declined = 0, failed = run_cases(rows, n, &declined);
    summary(rows, n);
    print_failures(rows, n, lib, sym);
    if (explore)
        printf("# explored %d %s schedules per case: %zu distinct interleavings in all\n",
               explore, strategy, seen_n);
    if (declined)
        printf("%d passed, %d failed, %d declined\n", n - failed - declined, failed, declined);
    else
        printf("%d passed, %d failed\n", n - failed, failed);
    /* Nothing verified is no pass. */
    int none = !failed && declined == n;
    if (none && me == 0)
        printf("shmemu-verify: the algorithm declined every case (SHMEMU_ENOTSUP): nothing "
               "was verified; narrow the matrix to what it takes (--dtype, --op, --team, "
               "--in-place)\n");
    if (json && me == 0)
        write_json(json, rows, n, failed, declined);
    free(rows);
    if (spmd)
        (void)shmemu_finalize();
    return failed || none ? 1 : 0;
}
