/*
 * coll.c - `shmemu-bench coll`: a collective over a range of sizes, in the
 * columns of nccl-tests (size, count, type, redop, root, time, algbw, busbw,
 * #wrong), and in the same run Open MPI's equivalent (MPI_Allreduce...) when
 * build/mpi-coll-bench was built (mpicc present).  The two sides alternate
 * round by round so that a change of the VM's vCPU placement hits both.
 *
 *   shmemu-bench coll [--coll allreduce] [--algo auto] [--npes 2] [-t local]
 *                     [-b 8] [-e 64M] [-f 2] [-d float] [-o sum] [--root 0]
 *                     [--inplace] [--reps 5] [--rounds 3] [--no-mpi] [--csv]
 *
 * algbw is size / time; busbw scales it by what each link must carry, as
 * nccl-tests defines it (allreduce 2(n-1)/n, reduce_scatter, allgather and
 * alltoall (n-1)/n, broadcast and reduce 1), so figures compare across PE
 * counts and with nccl-tests' own.  size is the largest buffer of the call
 * (allgather: the gathered dest; reduce_scatter: the src).
 *
 * bound is the least time the call can take where every PE's buffers share
 * one memory (one GPU, or one host's DRAM): the bytes it must read and
 * write there (traffic()), at twice the rate of a large shmemu_copy_local
 * between the call's own buffers, timed by PE 0 alone in the same job (a
 * copy reads and writes each byte).  "of bound" is bound / time: the
 * fraction of the memory's speed the collective reaches.  On a CPU the PEs'
 * cores together may move memory faster than one copy does: above 1 there.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shmemu.h"

#include "../tools/cli.h"
#include "bench.h"
#include "common.h"

#define MAX_SIZES 64

struct bench {
    shmemu_coll_t coll;
    const char *algo;
    void (*fn)(void);
    int npes, root, inplace, check;
    shmemu_dtype_t dtype;
    shmemu_op_t op;
    size_t minb, maxb, factor;
    int nsizes;
    size_t size[MAX_SIZES];
};

/* Shared with the PEs (which may be processes): one round's figures. */
struct result {
    double us[MAX_SIZES][MAX_REPS]; /* time per call, µs */
    long wrong[MAX_SIZES];
    int failed;
    double copy_gbs;   /* PE 0's shmemu_copy_local, heap to heap: GB/s */
    size_t copy_bytes; /*   of this many bytes */
};

static int is_reduction(shmemu_coll_t c)
{
    return c == SHMEMU_COLL_ALLREDUCE || c == SHMEMU_COLL_REDUCE ||
           c == SHMEMU_COLL_REDUCE_SCATTER;
}

/* Elements per PE of (src, dest) for the call whose largest buffer is size
 * bytes; count is what the call takes. */
static void shape(const struct bench *b, size_t size, size_t *count, size_t *in, size_t *out)
{
    size_t es = shmemu_dtype_size(b->dtype), n = (size_t)b->npes, tot = size / es;
    switch (b->coll) {
    case SHMEMU_COLL_REDUCE_SCATTER: *count = tot / n; *in = *count * n; *out = *count; break;
    case SHMEMU_COLL_ALLGATHER: *count = tot / n; *in = *count; *out = *count * n; break;
    case SHMEMU_COLL_ALLTOALL: *count = tot / n; *in = *out = *count * n; break;
    default: *count = *in = *out = tot; break;
    }
}

static double bus_factor(const struct bench *b)
{
    double n = b->npes;
    switch (b->coll) {
    case SHMEMU_COLL_ALLREDUCE: return 2 * (n - 1) / n;
    case SHMEMU_COLL_REDUCE_SCATTER:
    case SHMEMU_COLL_ALLGATHER:
    case SHMEMU_COLL_ALLTOALL: return (n - 1) / n;
    default: return 1;
    }
}

/* Bytes of memory the call must read and write in all, size as in shape():
 * allreduce 3nS (each PE reads its input and the peers' parts of the
 * reduction and writes its result, as the cuda issue's bound counts it),
 * reduce and reduce_scatter (n+1)S (every input read once, the results
 * written), allgather and alltoall 2nS (every PE's S written, each byte
 * read from where it lies), broadcast 2(n-1)S in place, 2nS out of place. */
static double traffic(const struct bench *b, size_t size)
{
    double n = b->npes, S = (double)size;
    switch (b->coll) {
    case SHMEMU_COLL_ALLREDUCE: return 3 * n * S;
    case SHMEMU_COLL_REDUCE:
    case SHMEMU_COLL_REDUCE_SCATTER: return (n + 1) * S;
    case SHMEMU_COLL_BROADCAST: return 2 * (b->inplace ? n - 1 : n) * S;
    default: return 2 * n * S;
    }
}

static int call(const struct bench *b, void *dest, const void *src, size_t count)
{
    shmemu_team_t t = SHMEMU_TEAM_WORLD;
    switch (b->coll) {
    case SHMEMU_COLL_ALLREDUCE:
        return ((shmemu_allreduce_fn)b->fn)(t, dest, src, count, b->dtype, b->op);
    case SHMEMU_COLL_REDUCE:
        return ((shmemu_reduce_fn)b->fn)(t, dest, src, count, b->dtype, b->op, b->root);
    case SHMEMU_COLL_REDUCE_SCATTER:
        return ((shmemu_reduce_scatter_fn)b->fn)(t, dest, src, count, b->dtype, b->op);
    case SHMEMU_COLL_ALLGATHER:
        return ((shmemu_allgather_fn)b->fn)(t, dest, src, count, b->dtype);
    case SHMEMU_COLL_BROADCAST:
        return ((shmemu_broadcast_fn)b->fn)(t, dest, src, count, b->dtype, b->root);
    default:
        return ((shmemu_alltoall_fn)b->fn)(t, dest, src, count, b->dtype);
    }
}

/* Input element i of PE pe, a small integer so that every order of
 * reduction gives the same bits (16-bit floats included) and #wrong can
 * demand exact equality.  A product sees few 2s, so it cannot overflow. */
static int input_value(const struct bench *b, int pe, size_t i)
{
    if (b->op == SHMEMU_PROD && is_reduction(b->coll))
        return ((size_t)pe * 7 + i) % 13 == 0 ? 2 : 1;
    int span = b->dtype == SHMEMU_FLOAT16 || b->dtype == SHMEMU_BFLOAT16 ? 2 : 8;
    return (int)(((size_t)pe * 3 + i) % (size_t)span) + 1;
}

static void encode(shmemu_dtype_t dt, void *p, int k)
{
    float f = (float)k;
    uint32_t fb;
    memcpy(&fb, &f, 4);
    switch (dt) {
    case SHMEMU_INT8: case SHMEMU_UINT8: *(uint8_t *)p = (uint8_t)k; break;
    case SHMEMU_INT16: case SHMEMU_UINT16: *(uint16_t *)p = (uint16_t)k; break;
    case SHMEMU_INT32: case SHMEMU_UINT32: *(uint32_t *)p = (uint32_t)k; break;
    case SHMEMU_INT64: case SHMEMU_UINT64: *(uint64_t *)p = (uint64_t)k; break;
    case SHMEMU_FLOAT: memcpy(p, &f, 4); break;
    case SHMEMU_DOUBLE: { double d = k; memcpy(p, &d, 8); break; }
    case SHMEMU_BFLOAT16: *(uint16_t *)p = (uint16_t)(fb >> 16); break;
    default: /* FLOAT16: exact for the small integers used here */
        *(uint16_t *)p = (uint16_t)((((fb >> 23) & 0xff) - 127 + 15) << 10 |
                                    ((fb >> 13) & 0x3ff));
        break;
    }
}

/* Fill elements [0, n) of buf as PE pe's input, element i standing for
 * global input index first + i. */
static void fill(const struct bench *b, unsigned char *buf, int pe, size_t first, size_t n)
{
    size_t es = shmemu_dtype_size(b->dtype);
    for (size_t i = 0; i < n; i++)
        encode(b->dtype, buf + i * es, input_value(b, pe, first + i));
}

/* What dest must hold on PE me: the reduction of every PE's input in PE
 * order, or the right PEs' slices.  ref and tmp hold out elements. */
static void expect(const struct bench *b, int me, size_t count, size_t out,
                   unsigned char *ref, unsigned char *tmp)
{
    size_t es = shmemu_dtype_size(b->dtype);
    int n = b->npes;
    switch (b->coll) {
    case SHMEMU_COLL_ALLREDUCE:
    case SHMEMU_COLL_REDUCE:
    case SHMEMU_COLL_REDUCE_SCATTER: {
        size_t first = b->coll == SHMEMU_COLL_REDUCE_SCATTER ? (size_t)me * count : 0;
        fill(b, ref, 0, first, out);
        for (int p = 1; p < n; p++) {
            fill(b, tmp, p, first, out);
            shmemu_reduce_local(b->dtype, b->op, ref, ref, tmp, out);
        }
        break;
    }
    case SHMEMU_COLL_ALLGATHER:
        for (int p = 0; p < n; p++)
            fill(b, ref + (size_t)p * count * es, p, 0, count);
        break;
    case SHMEMU_COLL_BROADCAST:
        fill(b, ref, b->root, 0, count);
        break;
    default: /* alltoall: block p of my dest is block me of PE p's src */
        for (int p = 0; p < n; p++)
            fill(b, ref + (size_t)p * count * es, p, (size_t)me * count, count);
        break;
    }
}

static size_t iters_for(size_t size)
{
    /* about 64 MiB of payload a repetition, at least 5 calls */
    size_t it = size ? ((size_t)64 << 20) / size : 1000;
    return it < 5 ? 5 : it > 1000 ? 1000 : it;
}

struct job {
    struct bench *b;
    struct result *res;
};

/* Calls a repetition makes: iters_for's, or fewer where calls are slow
 * (cuda, ucx over TCP, many PEs on few cores) so that a repetition stays
 * near 0.2 s, and at least 5; PE 0 times two calls (nit: a symmetric
 * long). */
static size_t agreed_iters(const struct bench *b, long *nit, void *dest, const void *src,
                           size_t count, size_t iters)
{
    double t0 = now_ns();
    for (int i = 0; i < 2; i++)
        if (call(b, dest, src, count))
            return iters;
    return (size_t)bench_agreed_count(nit, (now_ns() - t0) / 2, 2e8, (long)iters, 5);
}

/* The memory's rate for the bound: PE 0 alone (the others wait at a
 * barrier) copies between the call's buffers (within src, in place), up
 * to 256 MiB, once to warm and three times timed; the fastest counts. */
static int copy_rate(const struct bench *b, struct result *res, int me, unsigned char *src,
                     unsigned char *dest, size_t in_bytes, size_t out_bytes)
{
    size_t n = b->inplace ? in_bytes / 2 : out_bytes;
    unsigned char *to = b->inplace ? src + n : dest;
    n = n > ((size_t)256 << 20) ? (size_t)256 << 20 : n;
    int st = shmemu_barrier_all();
    double best = 0;
    for (int i = 0; i < 4 && me == 0 && n && !st; i++) {
        double t0 = now_ns();
        st = shmemu_copy_local(to, src, n);
        double ns = now_ns() - t0;
        if (i && (best == 0 || ns < best))
            best = ns;
    }
    if (me == 0 && best > 0) {
        res->copy_gbs = (double)n / best;
        res->copy_bytes = n;
    }
    return st ? st : shmemu_barrier_all();
}

static int pe_main(void *arg)
{
    struct job *j = arg;
    struct bench *b = j->b;
    struct result *res = j->res;
    int me = shmemu_my_pe();
    size_t es = shmemu_dtype_size(b->dtype), c0, in_max, out_max;
    shape(b, b->size[b->nsizes - 1], &c0, &in_max, &out_max);
    unsigned char *src = shmemu_malloc((in_max > out_max ? in_max : out_max) * es + 64);
    unsigned char *dest = b->inplace ? src : shmemu_malloc(out_max * es + 64);
    /* Inputs are made, and results judged, in host memory and moved with
     * shmemu_copy_local: heaps may be device memory (cuda). */
    size_t io_max = in_max > out_max ? in_max : out_max;
    unsigned char *ref = malloc(out_max * es + 64), *tmp = malloc(out_max * es + 64);
    unsigned char *host = malloc(io_max * es + 64);
    long *nit = shmemu_calloc(1, sizeof(long));
    if (!src || !dest || !ref || !tmp || !host || !nit) {
        fprintf(stderr, "shmemu-bench: PE %d: out of memory for %zu-byte buffers\n", me,
                b->size[b->nsizes - 1]);
        res->failed = 1;
        free(ref);
        free(tmp);
        free(host);
        return 1;
    }
    int st = copy_rate(b, res, me, src, dest, in_max * es, out_max * es);
    for (int k = 0; k < b->nsizes && !st; k++) {
        size_t count, in, out;
        shape(b, b->size[k], &count, &in, &out);
        fill(b, host, me, 0, in);
        st = shmemu_copy_local(src, host, in * es);
        for (size_t w = 0; w < 2 && !st; w++)
            st = call(b, dest, src, count);
        size_t iters = st ? 0 : agreed_iters(b, nit, dest, src, count, iters_for(b->size[k]));
        for (int r = 0; r < reps && !st; r++) {
            shmemu_barrier_all();
            double t0 = now_ns();
            for (size_t i = 0; i < iters && !st; i++)
                st = call(b, dest, src, count);
            shmemu_barrier_all();
            if (me == 0)
                res->us[k][r] = (now_ns() - t0) / 1e3 / (double)iters;
        }
        if (st || !b->check)
            continue;
        /* #wrong: one more call on fresh inputs, every element checked */
        fill(b, host, me, 0, in);
        if ((st = shmemu_copy_local(src, host, in * es)))
            break;
        shmemu_barrier_all();
        if ((st = call(b, dest, src, count)))
            break;
        if (b->coll == SHMEMU_COLL_REDUCE && me != b->root)
            continue;
        expect(b, me, count, out, ref, tmp);
        if ((st = shmemu_copy_local(host, dest, out * es)))
            break;
        long wrong = 0;
        for (size_t i = 0; i < out; i++)
            wrong += memcmp(host + i * es, ref + i * es, es) != 0;
        __atomic_fetch_add(&res->wrong[k], wrong, __ATOMIC_RELAXED);
    }
    shmemu_barrier_all();
    free(ref);
    free(tmp);
    free(host);
    shmemu_free(nit);
    if (!b->inplace)
        shmemu_free(dest);
    shmemu_free(src);
    if (st)
        res->failed = 1;
    return st ? 1 : 0;
}

/* ------------------------------------------------------- the MPI side */

struct mpi_side {
    char cmd[4096];
    double us[MAX_SIZES][MAX_SAMPLES];
    int n[MAX_SIZES];
    char version[64];
};

static const char *mpi_coll_name(shmemu_coll_t c)
{
    static const char *const names[] = {"MPI_Allreduce", "MPI_Reduce",
                                        "MPI_Reduce_scatter_block", "MPI_Allgather",
                                        "MPI_Bcast", "MPI_Alltoall"};
    return names[c];
}

/* The helper sits next to this binary. */
static int mpi_prepare(struct mpi_side *m, const struct bench *b)
{
    char self[PATH_MAX], helper[PATH_MAX + 32];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0)
        return -1;
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(helper, sizeof(helper), "%s/mpi-coll-bench", self);
    if (access(helper, X_OK))
        return -1;
    const char *run = getenv("SHMEMU_BENCH_MPIRUN");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    /* As root Open MPI wants --allow-run-as-root; past the cores,
     * --oversubscribe; openib is excluded because Debian's build warns
     * about (and sometimes crashes in) it on machines without InfiniBand. */
    int w = snprintf(m->cmd, sizeof(m->cmd),
             "%s%s%s -np %d %s --coll %s -d %s -o %s --root %d -b %zu -e %zu -f %zu --reps %d%s",
             run ? run : "mpirun --mca btl ^openib",
             !run && geteuid() == 0 ? " --allow-run-as-root" : "",
             !run && b->npes > ncpu ? " --oversubscribe" : "", b->npes, helper,
             shmemu_coll_name(b->coll), shmemu_dtype_name(b->dtype), shmemu_op_name(b->op),
             b->root, b->minb, b->maxb, b->factor, reps, b->inplace ? " --inplace" : "");
    if (w < 0 || (size_t)w >= sizeof(m->cmd))
        return -1;
    FILE *v = popen("mpirun --version 2>/dev/null", "r");
    if (v) {
        char line[256];
        if (fgets(line, sizeof(line), v)) {
            char *sp = strrchr(line, ' ');
            snprintf(m->version, sizeof(m->version), "%.63s", sp ? sp + 1 : line);
            m->version[strcspn(m->version, "\n")] = '\0';
        }
        pclose(v);
    }
    return 0;
}

/* One sweep of the helper; it prints "size rep microseconds" lines. */
static int mpi_round(struct mpi_side *m, const struct bench *b)
{
    FILE *p = popen(m->cmd, "r");
    if (!p)
        return -1;
    char line[256];
    while (fgets(line, sizeof(line), p)) {
        size_t size;
        int r;
        double us;
        if (sscanf(line, "%zu %d %lf", &size, &r, &us) != 3)
            continue;
        for (int k = 0; k < b->nsizes; k++)
            if (b->size[k] == size && m->n[k] < MAX_SAMPLES)
                m->us[k][m->n[k]++] = us;
    }
    return pclose(p) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------- driver */

static size_t parse_size(const char *s)
{
    uint64_t v;
    return cli_size(s, &v) || v > SIZE_MAX / 2 ? (size_t)-1 : (size_t)v;
}

/* A whole number in [lo, hi], or lo - 1 (which every check below refuses). */
static int parse_int(const char *s, int lo, int hi)
{
    long long v;
    return cli_long(s, lo, hi, &v) ? lo - 1 : (int)v;
}

static int takes_value(const char *a)
{
    static const char *const valued[] = {"--coll", "--algo", "--npes", "-n", "-t",
                                         "-b",     "-e",     "-f",     "-d", "-o",
                                         "--root", "--reps", "--rounds"};
    for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++)
        if (!strcmp(a, valued[k]))
            return 1;
    return 0;
}

/* -t names a transport that exists and runs here; if not, why. */
static char transport_why[320];
static int bad_transport(const char *t)
{
    char why[256];
    int st = cli_transport(t, why, sizeof(why));
    if (st == -1)
        snprintf(transport_why, sizeof(transport_why), "-t %s: unknown (known: %s)", t, why);
    else if (st == -2)
        snprintf(transport_why, sizeof(transport_why), "-t %s: cannot run here: %s", t, why);
    return st != 0;
}

static int lookup(const char *s, const char *(*name)(int), int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(s, name(i)))
            return i;
    return -1;
}

static const char *coll_nm(int i) { return shmemu_coll_name((shmemu_coll_t)i); }
static const char *dtype_nm(int i) { return shmemu_dtype_name((shmemu_dtype_t)i); }
static const char *op_nm(int i) { return shmemu_op_name((shmemu_op_t)i); }

static void (*generic(shmemu_coll_t c))(void)
{
    switch (c) {
    case SHMEMU_COLL_ALLREDUCE: return (void (*)(void))shmemu_allreduce;
    case SHMEMU_COLL_REDUCE: return (void (*)(void))shmemu_reduce;
    case SHMEMU_COLL_REDUCE_SCATTER: return (void (*)(void))shmemu_reduce_scatter;
    case SHMEMU_COLL_ALLGATHER: return (void (*)(void))shmemu_allgather;
    case SHMEMU_COLL_BROADCAST: return (void (*)(void))shmemu_broadcast;
    default: return (void (*)(void))shmemu_alltoall;
    }
}

static int usage(const char *bad)
{
    if (bad) { /* one line: what was wrong */
        fprintf(stderr, "shmemu-bench coll: unknown option '%s' (see --help)\n", bad);
        return 2;
    }
    fprintf(stdout,
            "usage: shmemu-bench coll [--coll NAME] [--algo NAME] [--npes N] [-t TRANSPORT]\n"
            "         [-b MINBYTES] [-e MAXBYTES] [-f FACTOR] [-d DTYPE] [-o OP] [--root R]\n"
            "         [--inplace] [--reps N] [--rounds N] [--no-mpi] [--no-check] [--csv]\n");
    return 0;
}

static void print_side(const double *us, int n, size_t size, double factor, int wrong_col,
                       long wrong, double *busbw_med)
{
    struct stats t = summarize(us, n);
    /* GB/s = bytes / ns; the fastest time gives the highest bandwidth */
    double alg = (double)size / (t.med * 1e3), bus = alg * factor;
    double bmin = (double)size / (t.max * 1e3) * factor, bmax = (double)size / (t.min * 1e3) * factor;
    *busbw_med = bus;
    if (csv) {
        printf(",%.3f,%.4f,%.4f,%.4f,%.4f", t.med, alg, bus, bmin, bmax);
        if (wrong_col)
            printf(",%ld", wrong);
        return;
    }
    printf(" %10.2f %7.2f %7.2f (%6.2f-%6.2f)", t.med, alg, bus, bmin, bmax);
    if (wrong_col)
        printf(" %7ld", wrong);
}

/* The options into *b, checked, the algorithm found and the sizes listed:
 * 0 to go on, else the exit status (-1: --help, which is 0). */
/* The options' values together (each was checked alone), the algorithm
 * found, the sizes listed: 0, or the exit status. */
static int coll_check(struct bench *b, int rounds)
{
    const char *bad = (int)b->coll < 0 ? "--coll: allreduce, reduce, reduce_scatter, "
                                        "allgather, broadcast or alltoall"
                      : (int)b->dtype < 0 ? "-d: a dtype such as float, double, int32, bfloat16"
                      : (int)b->op < 0 ? "-o: sum, prod, min, max, band, bor or bxor"
                      : b->npes < 1 ? "--npes: a PE count, 1..16384"
                      : b->minb == (size_t)-1 || b->maxb == (size_t)-1 || b->maxb < b->minb
                          ? "-b/-e: sizes with an optional K, M or G, -b <= -e"
                      : b->factor == (size_t)-1 || (b->factor < 2 && b->minb != b->maxb)
                          ? "-f: a whole factor, 2 or more"
                      : reps < 1 || reps > MAX_REPS ? "--reps: 1..64"
                      : rounds < 0 || rounds > 8 ? "--rounds: 1..8"
                      : transport && bad_transport(transport) ? transport_why
                      : b->root < 0 || b->root >= b->npes ? "--root: a PE of the job"
                      : b->inplace && !(b->coll == SHMEMU_COLL_ALLREDUCE ||
                                       b->coll == SHMEMU_COLL_REDUCE ||
                                       b->coll == SHMEMU_COLL_BROADCAST)
                          ? "--inplace: allreduce, reduce and broadcast only"
                      : is_reduction(b->coll) && !shmemu_op_valid(b->op, b->dtype)
                          ? "-o: that op does not apply to that dtype"
                          : NULL;
    if (bad) {
        fprintf(stderr, "shmemu-bench coll: bad %s\n", bad);
        return 2;
    }
    if (!strcmp(b->algo, "auto")) {
        b->fn = generic(b->coll);
    } else {
        const char *name;
        void (*fn)(void);
        for (int i = 0; !b->fn && !shmemu_verify_builtin(b->coll, i, &name, &fn); i++)
            if (!strcmp(name, b->algo))
                b->fn = fn;
        if (!b->fn) {
            fprintf(stderr, "shmemu-bench coll: no %s algorithm '%s'\n",
                    shmemu_coll_name(b->coll), b->algo);
            return 2;
        }
    }
    size_t es = shmemu_dtype_size(b->dtype), quantum = es;
    if (b->coll == SHMEMU_COLL_REDUCE_SCATTER || b->coll == SHMEMU_COLL_ALLGATHER ||
        b->coll == SHMEMU_COLL_ALLTOALL)
        quantum *= (size_t)b->npes;
    for (size_t s = b->minb; s <= b->maxb && b->nsizes < MAX_SIZES; s *= b->factor) {
        /* whole elements (per PE where the call splits the buffer) */
        size_t sz = s / quantum * quantum;
        if (sz && (!b->nsizes || b->size[b->nsizes - 1] != sz))
            b->size[b->nsizes++] = sz;
        if (b->factor < 2 || s > SIZE_MAX / b->factor)
            break;
    }
    if (!b->nsizes) {
        fprintf(stderr, "shmemu-bench coll: -e %zu holds no whole element per PE\n", b->maxb);
        return 2;
    }
    return 0;
}

static int coll_args(struct bench *b, int *rounds, int *use_mpi, int argc, char **argv)
{
    reps = 5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int used = 1;
        if (!strcmp(a, "--coll") && v)
            b->coll = (shmemu_coll_t)lookup(v, coll_nm, SHMEMU_COLL_COUNT);
        else if (!strcmp(a, "--algo") && v)
            b->algo = v;
        else if ((!strcmp(a, "--npes") || !strcmp(a, "-n")) && v)
            b->npes = parse_int(v, 1, 16384);
        else if (!strcmp(a, "-t") && v)
            transport = v;
        else if (!strcmp(a, "-b") && v)
            b->minb = parse_size(v);
        else if (!strcmp(a, "-e") && v)
            b->maxb = parse_size(v);
        else if (!strcmp(a, "-f") && v)
            b->factor = parse_size(v);
        else if (!strcmp(a, "-d") && v)
            b->dtype = (shmemu_dtype_t)lookup(v, dtype_nm, SHMEMU_DTYPE_COUNT);
        else if (!strcmp(a, "-o") && v)
            b->op = (shmemu_op_t)lookup(v, op_nm, SHMEMU_OP_COUNT);
        else if (!strcmp(a, "--root") && v)
            b->root = parse_int(v, 0, 16383);
        else if (!strcmp(a, "--reps") && v)
            reps = parse_int(v, 1, MAX_REPS);
        else if (!strcmp(a, "--rounds") && v)
            *rounds = parse_int(v, 1, 8) ? parse_int(v, 1, 8) : -1; /* not 0: the default */
        else {
            used = 0;
            if (!strcmp(a, "--inplace"))
                b->inplace = 1;
            else if (!strcmp(a, "--no-mpi"))
                *use_mpi = 0;
            else if (!strcmp(a, "--no-check"))
                b->check = 0;
            else if (!strcmp(a, "--csv"))
                csv = 1;
            else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
                return usage(NULL) ? 2 : -1;
            else if (takes_value(a))
                return fprintf(stderr, "shmemu-bench coll: %s needs a value\n", a), 2;
            else
                return usage(a);
        }
        i += used;
    }
    return coll_check(b, *rounds);
}

/* The table: a row per size, shmemu's side and MPI's where it ran.
 * Returns 1 if any size had wrong elements. */
static int coll_report(const struct bench *b, const struct mpi_side *m,
                       double (*all)[MAX_SAMPLES], const long *wrong, int rounds,
                       double copy_gbs)
{
    size_t es = shmemu_dtype_size(b->dtype);
    int rc = 0;
    double f = bus_factor(b), sum_bus = 0;
    if (csv)
        printf("size,count,type,redop,root,time_us,algbw,busbw,busbw_min,busbw_max,wrong%s,"
               "bound_us,of_bound,copy_gbs\n",
               m ? ",mpi_time_us,mpi_algbw,mpi_busbw,mpi_busbw_min,mpi_busbw_max,ratio" : "");
    else
        printf("#%11s %12s %8s %6s %5s %10s %7s %7s %15s %7s %10s %8s%s\n", "size", "count",
               "type", "redop", "root", "time", "algbw", "busbw", "(min-max)", "#wrong",
               "bound", "of bound",
               m ? "   MPI: time   algbw   busbw       (min-max)  busbw ratio" : "");
    if (!csv)
        printf("#%11s %12s %8s %6s %5s %10s %7s %7s %15s %7s %10s %8s%s\n", "(B)",
               "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "(GB/s)", "", "(us)", "",
               m ? "        (us)  (GB/s)  (GB/s)          (GB/s)  shmemu/MPI" : "");
    for (int k = 0; k < b->nsizes; k++) {
        size_t count, in, out;
        shape(b, b->size[k], &count, &in, &out);
        int root = b->coll == SHMEMU_COLL_REDUCE || b->coll == SHMEMU_COLL_BROADCAST
                       ? b->root : -1;
        const char *redop = is_reduction(b->coll) ? shmemu_op_name(b->op) : "none";
        if (csv)
            printf("%zu,%zu,%s,%s,%d", b->size[k], b->size[k] / es,
                   shmemu_dtype_name(b->dtype), redop, root);
        else
            printf(" %11zu %12zu %8s %6s %5d", b->size[k], b->size[k] / es,
                   shmemu_dtype_name(b->dtype), redop, root);
        double bus, mbus;
        print_side(all[k], rounds * reps, b->size[k], f, 1, wrong[k], &bus);
        sum_bus += bus;
        /* GB/s = bytes / ns: twice the copy's rate in bytes per µs */
        double bound = copy_gbs > 0 ? traffic(b, b->size[k]) / (2 * copy_gbs * 1e3) : 0;
        double of = bound > 0 ? bound / summarize(all[k], rounds * reps).med : 0;
        if (!csv)
            printf(" %10.2f %8.3f", bound, of);
        if (m && m->n[k]) {
            print_side(m->us[k], m->n[k], b->size[k], f, 0, 0, &mbus);
            printf(csv ? ",%.3f" : " %11.2fx", bus / mbus);
        } else if (m && csv) {
            printf(",,,,,,"); /* (the columns after it keep their places) */
        }
        /* last in a CSV row: the columns before keep the places scripts
         * (bench/coll-plot.sh) read them at */
        if (csv)
            printf(",%.6f,%.6f,%.6f", bound, of, copy_gbs);
        printf("\n");
        if (wrong[k])
            rc = 1;
    }
    if (!csv)
        printf("# Avg bus bandwidth: %.3f GB/s\n", sum_bus / b->nsizes);
    return rc;
}

int coll_main(int argc, char **argv)
{
    struct bench b = {.coll = SHMEMU_COLL_ALLREDUCE, .algo = "auto", .npes = 2,
                      .dtype = SHMEMU_FLOAT, .op = SHMEMU_SUM, .minb = 8,
                      .maxb = (size_t)64 << 20, .factor = 2, .check = 1};
    int rounds = 0, use_mpi = 1;
    int args_st = coll_args(&b, &rounds, &use_mpi, argc, argv);
    if (args_st)
        return args_st < 0 ? 0 : args_st;
    size_t es = shmemu_dtype_size(b.dtype);

    struct mpi_side *m = NULL;
    if (use_mpi && (b.dtype == SHMEMU_FLOAT16 || b.dtype == SHMEMU_BFLOAT16)) {
        use_mpi = 0; /* MPI has no 16-bit floats */
        printf("# no MPI comparison: MPI has no %s\n", shmemu_dtype_name(b.dtype));
    }
    if (use_mpi) {
        m = calloc(1, sizeof(*m));
        if (m && mpi_prepare(m, &b)) {
            free(m);
            m = NULL;
        }
    }
    if (!rounds)
        rounds = m ? 3 : 1;

    printf("# shmemu-bench %s coll %s, algo %s, %d PEs, transport %s, %s %s, %s; %d round%s of %d "
           "repetitions%s; time: median; busbw: median (min-max)\n",
           SHMEMU_VERSION_STRING, shmemu_coll_name(b.coll), b.algo, b.npes, transport, shmemu_dtype_name(b.dtype),
           is_reduction(b.coll) ? shmemu_op_name(b.op) : "-",
           b.inplace ? "in place" : "out of place", rounds, rounds > 1 ? "s" : "", reps,
           m ? ", alternating with Open MPI" : "");
    print_machine();
    if (use_mpi && !m)
        printf("# no MPI comparison: build/mpi-coll-bench not built (needs Debian's "
               "libopenmpi-dev and openmpi-bin)\n");
    if (m)
        printf("# MPI: Open MPI %s %s: %s\n", m->version, mpi_coll_name(b.coll), m->cmd);
    fflush(stdout);

    struct result *res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    double (*all)[MAX_SAMPLES] = calloc(MAX_SIZES, sizeof(*all));
    long wrong[MAX_SIZES] = {0};
    if (res == MAP_FAILED || !all) {
        fprintf(stderr, "shmemu-bench coll: out of memory\n");
        return 1;
    }
    size_t c0, in_max, out_max;
    shape(&b, b.size[b.nsizes - 1], &c0, &in_max, &out_max);
    /* src holds the larger of a call's input and output (pe_main) */
    size_t heap = ((in_max > out_max ? in_max : out_max) + out_max) * es + ((size_t)4 << 20);
    int rc = 0;
    double copy_gbs = 0;
    size_t copy_bytes = 0;
    for (int r = 0; r < rounds && !rc; r++) {
        memset(res, 0, sizeof(*res));
        shmemu_opts o = {.npes = b.npes, .transport = transport, .heap_size = heap};
        int st = shmemu_launch(&o, pe_main, &(struct job){&b, res});
        if (st || res->failed) {
            fprintf(stderr, "shmemu-bench coll: the job failed: %d (%s)\n", st,
                    shmemu_strerror(st));
            rc = 1;
            break;
        }
        for (int k = 0; k < b.nsizes; k++) {
            memcpy(&all[k][r * reps], res->us[k], (size_t)reps * sizeof(double));
            wrong[k] += res->wrong[k];
        }
        if (res->copy_gbs > copy_gbs) {
            copy_gbs = res->copy_gbs;
            copy_bytes = res->copy_bytes;
        }
        if (m && mpi_round(m, &b)) {
            fprintf(stderr, "shmemu-bench coll: the MPI run failed: %s\n", m->cmd);
            free(m);
            m = NULL;
        }
    }
    if (!rc && !csv)
        printf("# bound: the bytes the call must read and write in all (%s) at twice the rate "
               "of PE 0's shmemu_copy_local of %zu bytes between its buffers in this job, "
               "%.2f GB/s; of bound: bound / time (above 1: the PEs together move memory "
               "faster than one copy)\n",
               b.coll == SHMEMU_COLL_ALLREDUCE ? "3nS"
               : b.coll == SHMEMU_COLL_REDUCE || b.coll == SHMEMU_COLL_REDUCE_SCATTER
                   ? "(n+1)S"
               : b.coll == SHMEMU_COLL_BROADCAST ? (b.inplace ? "2(n-1)S" : "2nS")
                                                 : "2nS",
               copy_bytes, copy_gbs);
    if (!rc)
        rc = coll_report(&b, m, all, wrong, rounds, copy_gbs);
    free(m);
    free(all);
    munmap(res, sizeof(*res));
    return rc;
}
