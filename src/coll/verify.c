/*
 * verify.c - run one collective on one point of the test matrix and judge
 * the result (shmemu_verify_run).  Built on the public API like the
 * collectives it checks.
 *
 * Inputs are a function of (seed, team PE, index).  By default they are
 * chosen so that every order of reduction gives the same exact result:
 * integers take any value (wrapping arithmetic is associative), float sums
 * add small integers, products multiply +-1, +-2 and +-1/2 (+-1 and +-1/2
 * for float16, whose range would overflow), min and max pick exactly
 * representable values.  So every result is compared exactly, whatever
 * order an algorithm reduces in.  With SHMEMU_VERIFY_RANDOM, float inputs are
 * uniform in [-1, 1) and a result passes within (n-1) u sum|x_i| of the exact
 * value (u: the type's unit roundoff), the bound for any summation order.
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "coll.h"

#define GUARD 64 /* bytes checked on each side of every buffer */

/* -------------------------------------------------------------- values */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t h3(uint64_t seed, int pe, size_t i)
{
    /* one finaliser over a distinct odd-weighted sum: cheap, and every bit
     * of the result depends on seed, PE and index */
    return mix(seed * 0x9e3779b97f4a7c15ull + (uint64_t)(unsigned)pe * 0xc2b2ae3d27d4eb4full +
               (uint64_t)i * 0x165667b19e3779f9ull);
}

static int is_float(shmemu_dtype_t d)
{
    return d == SHMEMU_FLOAT || d == SHMEMU_DOUBLE || d == SHMEMU_FLOAT16 ||
           d == SHMEMU_BFLOAT16;
}

static int is_signed_int(shmemu_dtype_t d)
{
    return d <= SHMEMU_INT64;
}

/* Input element i of team PE pe, as a double (floats) or bits (integers). */
static double in_float(const shmemu_verify_case *vc, int pe, size_t i)
{
    uint64_t h = h3(vc->seed, pe, i);
    if (vc->inputs == SHMEMU_VERIFY_RANDOM)
        return (double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    switch (vc->op) {
    case SHMEMU_SUM:
        return (double)((int)(h % 17) - 8);
    case SHMEMU_PROD: {
        static const double fp16[] = {1, -1, 0.5, -0.5};
        static const double other[] = {1, -1, 2, -2, 0.5, -0.5};
        return vc->dtype == SHMEMU_FLOAT16 ? fp16[h % 4] : other[h % 6];
    }
    default: /* min, max: k/16 with |k| small enough for the narrowest type */
        return (double)((int)(h % 511) - 255) / 16.0;
    }
}

static uint64_t in_int(const shmemu_verify_case *vc, int pe, size_t i)
{
    return h3(vc->seed, pe, i);
}

/* Store a value as a dtype element at p. */
static void store(shmemu_dtype_t d, void *p, double f, uint64_t bits)
{
    switch (d) {
    case SHMEMU_FLOAT: { float v = (float)f; memcpy(p, &v, 4); return; }
    case SHMEMU_DOUBLE: memcpy(p, &f, 8); return;
    case SHMEMU_FLOAT16: { uint16_t v = shmemu__float_to_half((float)f); memcpy(p, &v, 2); return; }
    case SHMEMU_BFLOAT16: { uint16_t v = shmemu__float_to_bf16((float)f); memcpy(p, &v, 2); return; }
    default: memcpy(p, &bits, shmemu_dtype_size(d)); return; /* little-endian low bytes */
    }
}

static double load_float(shmemu_dtype_t d, const void *p)
{
    switch (d) {
    case SHMEMU_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case SHMEMU_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    case SHMEMU_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return shmemu__half_to_float(v); }
    default: { uint16_t v; memcpy(&v, p, 2); return shmemu__bf16_to_float(v); }
    }
}

static uint64_t load_int(shmemu_dtype_t d, const void *p)
{
    uint64_t v = 0;
    memcpy(&v, p, shmemu_dtype_size(d));
    return v;
}

/* An integer as its type's value, sign-extended or not. */
static int64_t int_value(shmemu_dtype_t d, uint64_t bits)
{
    int shift = 64 - 8 * (int)shmemu_dtype_size(d);
    if (is_signed_int(d))
        return shift ? (int64_t)(bits << shift) >> shift : (int64_t)bits;
    return (int64_t)(shift ? bits & (~0ull >> shift) : bits);
}

static uint64_t int_op(shmemu_dtype_t d, shmemu_op_t op, uint64_t a, uint64_t b)
{
    int sgn = is_signed_int(d);
    int64_t x = int_value(d, a), y = int_value(d, b);
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y; /* masked for unsigned */
    switch (op) {
    case SHMEMU_SUM: return a + b;
    case SHMEMU_PROD: return a * b;
    case SHMEMU_MIN: return sgn ? (x < y ? a : b) : (ux < uy ? a : b);
    case SHMEMU_MAX: return sgn ? (x > y ? a : b) : (ux > uy ? a : b);
    case SHMEMU_BAND: return a & b;
    case SHMEMU_BOR: return a | b;
    default: return a ^ b;
    }
}

static double float_op(shmemu_op_t op, double a, double b)
{
    switch (op) {
    case SHMEMU_SUM: return a + b;
    case SHMEMU_PROD: return a * b;
    case SHMEMU_MIN: return b < a ? b : a;
    default: return b > a ? b : a;
    }
}

static double unit_roundoff(shmemu_dtype_t d)
{
    switch (d) {
    case SHMEMU_FLOAT: return 0x1p-24;
    case SHMEMU_DOUBLE: return 0x1p-53;
    case SHMEMU_FLOAT16: return 0x1p-11;
    default: return 0x1p-8;
    }
}

static void format_elem(shmemu_dtype_t d, const void *p, char *buf, size_t len)
{
    if (is_float(d))
        snprintf(buf, len, "%.9g", load_float(d, p));
    else if (is_signed_int(d))
        snprintf(buf, len, "%lld", (long long)int_value(d, load_int(d, p)));
    else
        snprintf(buf, len, "%llu", (unsigned long long)int_value(d, load_int(d, p)));
}

/* ------------------------------------------------------------ the case */

/* What every PE of the job shares (a MAP_SHARED mapping, so forked PEs see
 * it too): the verdict, and the reference of a reduction. */
struct shared {
    int lock;         /* guards the fault fields (PEs may be processes) */
    int failed;       /* a PE found a fault: the lowest PE's is kept */
    int pe;
    size_t index;
    char reason[256];
    char expected[48], got[48];
    /* reference: per element, an exact double (floats) or wrapped bits
     * (integers), and for random inputs sum |x_i| */
    size_t nref;
    struct ref { double f, absum; uint64_t bits; } ref[];
};

struct job {
    const shmemu_verify_case *vc;
    struct shared *sh;
};

/* Keep the fault of the lowest PE (then the lowest index): the report must
 * not depend on which PE happened to check first, or a reproducer would
 * print a different line than the run that found the bug. */
static void fault(struct shared *sh, int pe, size_t index, const char *reason,
                  const char *expected, const char *got)
{
    while (__atomic_exchange_n(&sh->lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
    int keep = sh->failed && (sh->pe < pe || (sh->pe == pe && sh->index <= index));
    if (keep) {
        __atomic_store_n(&sh->lock, 0, __ATOMIC_RELEASE);
        return;
    }
    sh->failed = 1;
    sh->pe = pe;
    sh->index = index;
    snprintf(sh->reason, sizeof(sh->reason), "%s", reason);
    snprintf(sh->expected, sizeof(sh->expected), "%s", expected ? expected : "");
    snprintf(sh->got, sizeof(sh->got), "%s", got ? got : "");
    __atomic_store_n(&sh->lock, 0, __ATOMIC_RELEASE);
}

static int team_size(const shmemu_verify_case *vc)
{
    return vc->team == SHMEMU_VERIFY_STRIDED ? (vc->npes + 1) / 2 : vc->npes;
}

/* Elements of src and dest per PE. */
static void sizes(const shmemu_verify_case *vc, int n, size_t *in, size_t *out)
{
    size_t c = vc->count, nc = c * (size_t)n;
    switch (vc->coll) {
    case SHMEMU_COLL_REDUCE_SCATTER: *in = nc; *out = c; break;
    case SHMEMU_COLL_ALLGATHER: *in = c; *out = nc; break;
    case SHMEMU_COLL_ALLTOALL: *in = nc; *out = nc; break;
    default: *in = c; *out = c; break;
    }
}

static void fill_guard(unsigned char *p, unsigned salt)
{
    for (int i = 0; i < GUARD; i++)
        p[i] = (unsigned char)(0xa5 ^ (i * 7) ^ salt);
}

static long check_guard(const unsigned char *p, unsigned salt)
{
    for (int i = 0; i < GUARD; i++)
        if (p[i] != (unsigned char)(0xa5 ^ (i * 7) ^ salt))
            return i;
    return -1;
}

static void fill_input(const shmemu_verify_case *vc, int pe, void *buf, size_t n)
{
    size_t es = shmemu_dtype_size(vc->dtype);
    for (size_t i = 0; i < n; i++)
        store(vc->dtype, (char *)buf + i * es, is_float(vc->dtype) ? in_float(vc, pe, i) : 0,
              in_int(vc, pe, i));
}

/* Reference elements [lo, hi) of the reduction of element idx0 + i over the
 * team's inputs (idx0: the slice of a reduce-scatter). */
static void compute_ref(const shmemu_verify_case *vc, struct shared *sh, int n, size_t lo,
                        size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        struct ref r = {0, 0, 0};
        for (int p = 0; p < n; p++) {
            if (is_float(vc->dtype)) {
                double x = in_float(vc, p, i);
                /* round each input to the type: it is what the PEs hold */
                unsigned char tmp[8];
                store(vc->dtype, tmp, x, 0);
                x = load_float(vc->dtype, tmp);
                r.f = p ? float_op(vc->op, r.f, x) : x;
                r.absum += fabs(x);
            } else {
                uint64_t x = in_int(vc, p, i);
                r.bits = p ? int_op(vc->dtype, vc->op, r.bits, x) : x;
            }
        }
        sh->ref[i] = r;
    }
}

/* Does got (one dest element) hold the reduction's element i? */
static int ref_ok(const shmemu_verify_case *vc, const struct ref *r, const void *got,
                  int n, char *exp, char *gs)
{
    shmemu_dtype_t d = vc->dtype;
    unsigned char want[8];
    if (!is_float(d)) {
        store(d, want, 0, r->bits);
        if (!memcmp(want, got, shmemu_dtype_size(d)))
            return 1;
        format_elem(d, want, exp, 48);
        format_elem(d, got, gs, 48);
        return 0;
    }
    double g = load_float(d, got);
    store(d, want, r->f, 0);
    double w = load_float(d, want);
    double tol = vc->inputs == SHMEMU_VERIFY_RANDOM && (vc->op == SHMEMU_SUM || vc->op == SHMEMU_PROD)
                     ? (n - 1) * unit_roundoff(d) * (vc->op == SHMEMU_SUM ? r->absum : fabs(r->f)) +
                           unit_roundoff(d) * fabs(r->f)
                     : 0;
    if (g == w || fabs(g - w) <= tol)
        return 1;
    snprintf(exp, 48, "%.9g", w);
    format_elem(d, got, gs, 48);
    return 0;
}

static int call(const shmemu_verify_case *vc, shmemu_team_t team, void *dest, const void *src)
{
    switch (vc->coll) {
    case SHMEMU_COLL_ALLREDUCE:
    case SHMEMU_COLL_REDUCE_SCATTER:
        return ((shmemu_allreduce_fn)vc->fn)(team, dest, src, vc->count, vc->dtype, vc->op);
    case SHMEMU_COLL_REDUCE:
        return ((shmemu_reduce_fn)vc->fn)(team, dest, src, vc->count, vc->dtype, vc->op,
                                          vc->root);
    case SHMEMU_COLL_BROADCAST:
        return ((shmemu_broadcast_fn)vc->fn)(team, dest, src, vc->count, vc->dtype, vc->root);
    default:
        return ((shmemu_allgather_fn)vc->fn)(team, dest, src, vc->count, vc->dtype);
    }
}

/* Check this PE's dest against what the collective must produce. */
static void check_dest(const shmemu_verify_case *vc, struct shared *sh, int n, int me,
                       const char *dest, size_t out)
{
    size_t es = shmemu_dtype_size(vc->dtype), c = vc->count;
    char exp[48], gs[48], why[160];
    unsigned char want[8];
    for (size_t i = 0; i < out; i++) {
        const char *got = dest + i * es;
        int ok;
        switch (vc->coll) {
        case SHMEMU_COLL_ALLREDUCE:
        case SHMEMU_COLL_REDUCE:
            ok = ref_ok(vc, &sh->ref[i], got, n, exp, gs);
            break;
        case SHMEMU_COLL_REDUCE_SCATTER:
            ok = ref_ok(vc, &sh->ref[(size_t)me * c + i], got, n, exp, gs);
            break;
        default: {
            int from = vc->coll == SHMEMU_COLL_BROADCAST ? vc->root : (int)(i / c);
            size_t j = vc->coll == SHMEMU_COLL_BROADCAST ? i
                       : vc->coll == SHMEMU_COLL_ALLGATHER ? i % c
                                                            : (size_t)me * c + i % c;
            store(vc->dtype, want, is_float(vc->dtype) ? in_float(vc, from, j) : 0,
                  in_int(vc, from, j));
            ok = !memcmp(want, got, es);
            if (!ok) {
                format_elem(vc->dtype, want, exp, sizeof(exp));
                format_elem(vc->dtype, got, gs, sizeof(gs));
            }
        }
        }
        if (!ok) {
            int poison = 1; /* still the pattern dest was filled with? */
            for (size_t b = 0; b < es; b++)
                poison &= (unsigned char)got[b] == 0xa5;
            if (poison)
                snprintf(gs, sizeof(gs), "(never written)");
            snprintf(why, sizeof(why), "wrong result: PE %d dest[%zu]", me, i);
            fault(sh, me, i, why, exp, gs);
            return;
        }
    }
}

/* The first byte where a and b differ; n if none. */
static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* Out of line, so that ThreadSanitizer reports on a buggy collective
 * (puts still landing here after it returned) can name this read. */
__attribute__((noinline)) static void snapshot_at_return(void *copy, const void *dest,
                                                         size_t n)
{
    memcpy(copy, dest, n);
}

static int pe_main(void *arg)
{
    const struct job *job = arg;
    const shmemu_verify_case *vc = job->vc;
    struct shared *sh = job->sh;
    int world = shmemu_my_pe(), np = shmemu_n_pes();
    shmemu_team_t team = SHMEMU_TEAM_WORLD;
    if (vc->team == SHMEMU_VERIFY_STRIDED &&
        shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 2, (np + 1) / 2, NULL, 0, &team))
        return 1;
    int n = team_size(vc), me = team == SHMEMU_TEAM_INVALID ? -1 : shmemu_team_my_pe(team);
    size_t es = shmemu_dtype_size(vc->dtype), in, out;
    sizes(vc, n, &in, &out);
    /* [guard | src | guard] [guard | dest | guard] on every world PE */
    unsigned char *sbuf = shmemu_malloc(2 * GUARD + in * es);
    unsigned char *dbuf = vc->in_place ? sbuf : shmemu_malloc(2 * GUARD + out * es);
    /* the heap, not malloc: a PE the job aborts (a deadlock) never returns
     * here to free it, and the heap goes with the job */
    unsigned char *snap = shmemu_malloc(in * es + 1);
    unsigned char *at_return = shmemu_malloc(out * es + 1);
    if (!sbuf || !dbuf || !snap || !at_return)
        return 1;
    unsigned char *src = sbuf + GUARD, *dest = dbuf + GUARD;
    fill_guard(sbuf, 1);
    fill_guard(src + in * es, 2);
    if (!vc->in_place) {
        fill_guard(dbuf, 3);
        fill_guard(dest + out * es, 4);
        memset(dest, 0xa5, out * es); /* anything the collective forgets shows */
    }
    if (me >= 0) {
        fill_input(vc, me, src, in);
        memcpy(snap, src, in * es);
        /* my slice of the reduction's reference */
        size_t nref = sh->nref;
        compute_ref(vc, sh, n, nref * (size_t)me / (size_t)n, nref * (size_t)(me + 1) / (size_t)n);
    }
    shmemu_barrier_all();
    int st = me >= 0 ? call(vc, team, dest, src) : SHMEMU_OK;
    /* A collective's result is this PE's as soon as it returns; the
     * barrier below would complete puts still in flight and hide that. */
    if (me >= 0 && !st)
        snapshot_at_return(at_return, dest, out * es);
    if (st) {
        char why[96];
        snprintf(why, sizeof(why), "PE %d: the algorithm returned %d (%s)", me, st,
                 shmemu_strerror(st));
        fault(sh, me, 0, why, NULL, NULL);
    }
    shmemu_barrier_all();
    if (me >= 0 && !st) {
        long g;
        char why[128];
        const unsigned char *guards[4] = {sbuf, src + in * es, dbuf, dest + out * es};
        for (int k = 0; k < (vc->in_place ? 2 : 4); k++)
            if ((g = check_guard(guards[k], (unsigned)k + 1)) >= 0) {
                snprintf(why, sizeof(why), "PE %d wrote %s %s its buffer (byte %ld of the guard)",
                         me, k < 2 ? "src" : "dest", k % 2 ? "past the end of" : "before", g);
                fault(sh, me, (size_t)g, why, NULL, NULL);
            }
        size_t i;
        if (!vc->in_place && (i = first_diff(snap, src, in * es)) < in * es) {
            snprintf(why, sizeof(why), "PE %d: src changed (byte %zu)", me, i);
            fault(sh, me, i / es, why, NULL, NULL);
        }
        if (vc->coll != SHMEMU_COLL_REDUCE || me == vc->root) {
            if ((i = first_diff(at_return, dest, out * es)) < out * es) {
                char late[224];
                snprintf(late, sizeof(late),
                         "PE %d: dest[%zu] changed after the collective returned there "
                         "(operations still in flight: shmemu_quiet() before the last sync?)",
                         me, i / es);
                fault(sh, me, i / es, late, NULL, NULL);
            }
            check_dest(vc, sh, n, me, (const char *)at_return, out);
        }
    }
    shmemu_barrier_all();
    shmemu_free(at_return);
    shmemu_free(snap);
    if (!vc->in_place)
        shmemu_free(dbuf);
    shmemu_free(sbuf);
    if (team != SHMEMU_TEAM_WORLD)
        shmemu_team_destroy(team);
    (void)world;
    return 0;
}

static const char *const coll_names[SHMEMU_COLL_COUNT] = {
    "allreduce", "reduce", "reduce_scatter", "allgather", "broadcast", "alltoall"};

const char *shmemu_coll_name(shmemu_coll_t coll)
{
    return (unsigned)coll < SHMEMU_COLL_COUNT ? coll_names[coll] : NULL;
}

int shmemu_verify_run(const shmemu_verify_case *vc, shmemu_verify_result *res)
{
    memset(res, 0, sizeof(*res));
    res->pe = -1;
    size_t es = shmemu_dtype_size(vc->dtype);
    int reduction = vc->coll == SHMEMU_COLL_ALLREDUCE || vc->coll == SHMEMU_COLL_REDUCE ||
                    vc->coll == SHMEMU_COLL_REDUCE_SCATTER;
    if (!vc->fn || !es || vc->npes < 1 || (unsigned)vc->coll >= SHMEMU_COLL_COUNT ||
        (reduction && !shmemu_op_valid(vc->op, vc->dtype)) ||
        (vc->in_place && !(vc->coll == SHMEMU_COLL_ALLREDUCE || vc->coll == SHMEMU_COLL_REDUCE ||
                           vc->coll == SHMEMU_COLL_BROADCAST)) ||
        ((vc->coll == SHMEMU_COLL_REDUCE || vc->coll == SHMEMU_COLL_BROADCAST) &&
         (vc->root < 0 || vc->root >= team_size(vc))))
        return SHMEMU_EINVAL;
    int n = team_size(vc);
    size_t in, out;
    sizes(vc, n, &in, &out);
    size_t nref = !reduction ? 0 : vc->coll == SHMEMU_COLL_REDUCE_SCATTER ? vc->count * (size_t)n
                                                                          : vc->count;
    size_t shbytes = sizeof(struct shared) + nref * sizeof(struct ref);
    struct shared *sh = mmap(NULL, shbytes, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return SHMEMU_ENOMEM;
    sh->nref = nref;
    struct job job = {vc, sh};
    size_t need = 2 * (2 * GUARD + (in > out ? in : out) * es) + (in + out) * es +
                  ((size_t)1 << 20);
    shmemu_opts o = {.npes = vc->npes, .transport = vc->transport, .heap_size = need,
                     .check = vc->check};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    res->status = shmemu_launch(&o, pe_main, &job);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    res->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (sh->failed) {
        res->pe = sh->pe;
        res->index = sh->index;
        snprintf(res->reason, sizeof(res->reason), "%s", sh->reason);
        snprintf(res->expected, sizeof(res->expected), "%s", sh->expected);
        snprintf(res->got, sizeof(res->got), "%s", sh->got);
    } else if (res->status) {
        snprintf(res->reason, sizeof(res->reason), "the job ended with %d (%s)", res->status,
                 res->status < 0 ? shmemu_strerror(res->status) : "a PE failed");
    }
    res->passed = !sh->failed && !res->status;
    /* What the checker saw explains a failure: keep it with the verdict. */
    if (!res->passed && shmemu_check_notes(res->notes, sizeof(res->notes)) == 0)
        res->notes[0] = '\0';
    munmap(sh, shbytes);
    return SHMEMU_OK;
}

/* ---------------------------------------------------- the built-in algorithms */

#define FN(f) ((void (*)(void))(f))
static const struct {
    shmemu_coll_t coll;
    const char *name;
    void (*fn)(void);
} builtins[] = {
    {SHMEMU_COLL_ALLREDUCE, "oneshot", FN(shmemu_allreduce_oneshot)},
    {SHMEMU_COLL_ALLREDUCE, "ring", FN(shmemu_allreduce_ring)},
    {SHMEMU_COLL_ALLREDUCE, "rd", FN(shmemu_allreduce_rd)},
    {SHMEMU_COLL_ALLREDUCE, "rabenseifner", FN(shmemu_allreduce_rabenseifner)},
    {SHMEMU_COLL_ALLREDUCE, "tree", FN(shmemu_allreduce_tree)},
    {SHMEMU_COLL_ALLREDUCE, "auto", FN(shmemu_allreduce)},
    {SHMEMU_COLL_REDUCE, "tree", FN(shmemu_reduce_tree)},
    {SHMEMU_COLL_REDUCE_SCATTER, "ring", FN(shmemu_reduce_scatter_ring)},
    {SHMEMU_COLL_REDUCE_SCATTER, "rhalving", FN(shmemu_reduce_scatter_rhalving)},
    {SHMEMU_COLL_ALLGATHER, "ring", FN(shmemu_allgather_ring)},
    {SHMEMU_COLL_ALLGATHER, "bruck", FN(shmemu_allgather_bruck)},
    {SHMEMU_COLL_ALLGATHER, "rd", FN(shmemu_allgather_rd)},
    {SHMEMU_COLL_BROADCAST, "tree", FN(shmemu_broadcast_tree)},
    {SHMEMU_COLL_BROADCAST, "chain", FN(shmemu_broadcast_chain)},
    {SHMEMU_COLL_ALLTOALL, "pairwise", FN(shmemu_alltoall_pairwise)},
};

int shmemu_verify_builtin(shmemu_coll_t coll, int i, const char **name_p, void (**fn_p)(void))
{
    for (size_t k = 0; k < sizeof(builtins) / sizeof(builtins[0]); k++) {
        if (builtins[k].coll != coll || i-- > 0)
            continue;
        *name_p = builtins[k].name;
        *fn_p = builtins[k].fn;
        return SHMEMU_OK;
    }
    return SHMEMU_EINVAL;
}
