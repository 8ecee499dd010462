/*
 * verify_values.c - the verifier's inputs, its reference and the
 * explanation of a wrong element.
 *
 * Inputs are a function of (seed, call, team PE, index).  By default they
 * are chosen so that every order of reduction gives the same exact result:
 * integers take any value (wrapping arithmetic is associative), float sums
 * add small integers, products multiply +-1, +-2 and +-1/2 (+-1 and +-1/2
 * for float16, whose range would overflow), min and max pick exactly
 * representable values.  So every result is compared exactly, whatever
 * order an algorithm reduces in.  With SHMEMU_VERIFY_RANDOM, float inputs are
 * uniform in [-1, 1), one in 32 a special value (+-0, +-inf, NaN, a
 * subnormal; for products only +-0 and NaN, whose outcome no order
 * changes), and a result passes within 2 (n-1) u sum|x_i| of the exact
 * value (u: the type's unit roundoff), the bound for any summation order.
 *
 * Integer inputs are hashes: a wrong element can then be traced back --
 * whose element a data movement delivered, which contributions a sum lacks
 * or has twice.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify_values.h"

/* -------------------------------------------------------------- values */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t h4(uint64_t seed, int call, int pe, size_t i)
{
    /* one finaliser over a distinct odd-weighted sum: cheap, and every bit
     * of the result depends on seed, call, PE and index */
    return mix(seed * 0x9e3779b97f4a7c15ull + (uint64_t)(unsigned)call * 0xd6e8feb86659fd93ull +
               (uint64_t)(unsigned)pe * 0xc2b2ae3d27d4eb4full +
               (uint64_t)i * 0x165667b19e3779f9ull);
}

int shmemu__verify_is_float(shmemu_dtype_t d)
{
    return d == SHMEMU_FLOAT || d == SHMEMU_DOUBLE || d == SHMEMU_FLOAT16 ||
           d == SHMEMU_BFLOAT16;
}

static int is_signed_int(shmemu_dtype_t d)
{
    return d <= SHMEMU_INT64;
}

/* shmemu_dtype_size, inlined: the loops below call it per element. */
static inline size_t esize(shmemu_dtype_t d)
{
    static const unsigned char sz[SHMEMU_DTYPE_COUNT] = {
        [SHMEMU_INT8] = 1,  [SHMEMU_INT16] = 2,  [SHMEMU_INT32] = 4,  [SHMEMU_INT64] = 8,
        [SHMEMU_UINT8] = 1, [SHMEMU_UINT16] = 2, [SHMEMU_UINT32] = 4, [SHMEMU_UINT64] = 8,
        [SHMEMU_FLOAT] = 4, [SHMEMU_DOUBLE] = 8, [SHMEMU_FLOAT16] = 2, [SHMEMU_BFLOAT16] = 2};
    return (unsigned)d < SHMEMU_DTYPE_COUNT ? sz[d] : 0;
}

static double denorm_min(shmemu_dtype_t d)
{
    switch (d) {
    case SHMEMU_FLOAT: return 0x1p-149;
    case SHMEMU_DOUBLE: return 0x1p-1074;
    case SHMEMU_FLOAT16: return 0x1p-24;
    default: return 0x1p-133;
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

/* ------------------------------------------------- 16-bit conversions */

/* A 16-bit float format: mant_bits stored bits, exponent bias, the
 * all-ones exponent, and the value of the least subnormal. */
struct small_fmt {
    int mant_bits, bias, exp_max;
    double from_units;
};
static const struct small_fmt half_fmt = {10, 15, 31, 0x1p-24};
static const struct small_fmt bf16_fmt = {7, 127, 255, 0x1p-133};

/* x rounded to nearest even: the sign, exponent and mantissa fields,
 * computed on x's bits (frexp and nearbyint per element were a tenth of
 * the default matrix's time for the 16-bit types). */
static uint16_t to_small(double x, const struct small_fmt *f)
{
    uint64_t b;
    memcpy(&b, &x, sizeof(b));
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
    int e = (int)((b >> 52) & 0x7ff), mb = f->mant_bits;
    uint64_t m = b & ((1ull << 52) - 1);
    uint32_t inf = (uint32_t)f->exp_max << mb;
    if (e == 0x7ff) /* inf, or a quiet NaN */
        return (uint16_t)(sign | inf | (m ? 1u << (mb - 1) : 0));
    if (e == 0) /* zero or a double subnormal: far below the format's least */
        return sign;
    int biased = e - 1023 + f->bias;
    uint64_t full = m | (1ull << 52);
    /* bits to drop: the mantissa's extra ones, and for a subnormal result
     * the places below the format's least unit */
    int shift = 52 - mb + (biased <= 0 ? 1 - biased : 0);
    if (shift > 53) /* below half the least subnormal: rounds to 0 */
        return sign;
    uint64_t keep = full >> shift, rem = full & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    uint32_t r = biased <= 0 ? (uint32_t)keep /* 1 << mb: exactly the least normal */
                             : ((uint32_t)biased << mb) | (uint32_t)(keep & ((1ull << mb) - 1));
    if (rem > half || (rem == half && (r & 1)))
        r++; /* a carry moves into the exponent, as it should */
    return (uint16_t)(sign | (r >= inf ? inf : r));
}

static double from_small(uint16_t h, const struct small_fmt *f)
{
    int e = (h >> f->mant_bits) & f->exp_max;
    double m = h & ((1u << f->mant_bits) - 1), s = h & 0x8000 ? -1 : 1;
    if (e == f->exp_max)
        return m ? NAN : s * INFINITY;
    if (!e)
        return s * m * f->from_units;
    return s * ldexp(m + (double)(1u << f->mant_bits), e - f->bias - f->mant_bits);
}

uint16_t shmemu__verify_to_half(double x) { return to_small(x, &half_fmt); }
uint16_t shmemu__verify_to_bf16(double x) { return to_small(x, &bf16_fmt); }
double shmemu__verify_half_value(uint16_t h) { return from_small(h, &half_fmt); }
double shmemu__verify_bf16_value(uint16_t h) { return from_small(h, &bf16_fmt); }

/* Decoding every element goes through these tables of all 65,536 values,
 * built once per process from from_small. */
static double *half_table, *bf16_table;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
    double *h = malloc(2 * 65536 * sizeof(double));
    if (!h)
        return;
    for (unsigned i = 0; i < 65536; i++) {
        h[i] = from_small((uint16_t)i, &half_fmt);
        h[65536 + i] = from_small((uint16_t)i, &bf16_fmt);
    }
    half_table = h;
    bf16_table = h + 65536;
}

static double small_value(uint16_t v, int bf16)
{
    pthread_once(&tables_once, build_tables);
    if (bf16)
        return bf16_table ? bf16_table[v] : from_small(v, &bf16_fmt);
    return half_table ? half_table[v] : from_small(v, &half_fmt);
}

static void store(shmemu_dtype_t d, void *p, double f, uint64_t bits)
{
    switch (d) {
    case SHMEMU_FLOAT: { float v = (float)f; memcpy(p, &v, 4); return; }
    case SHMEMU_DOUBLE: memcpy(p, &f, 8); return;
    case SHMEMU_FLOAT16: { uint16_t v = shmemu__verify_to_half(f); memcpy(p, &v, 2); return; }
    case SHMEMU_BFLOAT16: { uint16_t v = shmemu__verify_to_bf16(f); memcpy(p, &v, 2); return; }
    default: memcpy(p, &bits, esize(d)); return; /* little-endian low bytes */
    }
}

static double load_float(shmemu_dtype_t d, const void *p)
{
    switch (d) {
    case SHMEMU_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case SHMEMU_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    case SHMEMU_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return small_value(v, 0); }
    default: { uint16_t v; memcpy(&v, p, 2); return small_value(v, 1); }
    }
}

static uint64_t load_int(shmemu_dtype_t d, const void *p)
{
    uint64_t v = 0;
    memcpy(&v, p, esize(d));
    return v;
}

/* An integer as its type's value, sign-extended or not. */
static int64_t int_value(shmemu_dtype_t d, uint64_t bits)
{
    int shift = 64 - 8 * (int)esize(d);
    if (is_signed_int(d))
        return shift ? (int64_t)(bits << shift) >> shift : (int64_t)bits;
    return (int64_t)(shift ? bits & (~0ull >> shift) : bits);
}

static uint64_t mask(shmemu_dtype_t d)
{
    size_t w = esize(d);
    return w == 8 ? ~0ull : (1ull << (8 * w)) - 1;
}

/* ----------------------------------------------------------------- inputs */

/* Exact inputs: small integers for sums (every order of additions gives
 * the same bits), +-1, +-2 and +-1/2 for products (+-1 and +-1/2 for
 * float16, whose range would overflow), k/16 with |k| small enough for the
 * narrowest type for min and max.  Few values each (17, 4 or 6, 511): each
 * type's stored bits for each are tabled once per process (below), so
 * filling and checking an element is a hash and a load, not a conversion
 * (the 16-bit ones were a fifth of make run's time). */
#define EXACT_MAX 511
enum { EX_SUM, EX_PROD, EX_MINMAX, EX_CLASSES };
static uint64_t exact_bits[4][EX_CLASSES][EXACT_MAX];
static pthread_once_t exact_once = PTHREAD_ONCE_INIT;

static int exact_class(shmemu_op_t op)
{
    return op == SHMEMU_SUM ? EX_SUM : op == SHMEMU_PROD ? EX_PROD : EX_MINMAX;
}

/* How many values exact inputs of this type and op take, the value of the
 * k-th, in ascending order for min and max (so the least k is the least
 * value). */
static unsigned exact_count(shmemu_dtype_t d, int cls)
{
    return cls == EX_SUM ? 17 : cls == EX_PROD ? (d == SHMEMU_FLOAT16 ? 4 : 6) : EXACT_MAX;
}

static double exact_value(shmemu_dtype_t d, int cls, unsigned k)
{
    static const double fp16[] = {1, -1, 0.5, -0.5};
    static const double other[] = {1, -1, 2, -2, 0.5, -0.5};
    if (cls == EX_SUM)
        return (double)((int)k - 8);
    if (cls == EX_PROD)
        return d == SHMEMU_FLOAT16 ? fp16[k] : other[k];
    return (double)((int)k - 255) / 16.0;
}

static double in_float(const shmemu_verify_case *vc, int call, int pe, size_t i)
{
    uint64_t h = h4(vc->seed, call, pe, i);
    if (vc->inputs == SHMEMU_VERIFY_RANDOM) {
        if ((h & 31) == 0) {
            double tiny = denorm_min(vc->dtype);
            const double all[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, tiny,
                                  -tiny * (double)(1 + (h >> 20) % 100)};
            /* products: no inf or subnormals, whose outcome (0 * inf, an
             * underflow to 0) depends on the order of operations */
            unsigned k = vc->op == SHMEMU_PROD ? 3 : 7;
            return all[(h >> 8) % k];
        }
        return (double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    }
    int cls = exact_class(vc->op);
    return exact_value(vc->dtype, cls, (unsigned)(h % exact_count(vc->dtype, cls)));
}

static void build_exact(void)
{
    for (int t = 0; t < 4; t++)
        for (int c = 0; c < EX_CLASSES; c++) {
            shmemu_dtype_t d = (shmemu_dtype_t)(SHMEMU_FLOAT + t);
            for (unsigned k = 0; k < exact_count(d, c); k++)
                store(d, &exact_bits[t][c][k], exact_value(d, c, k), 0);
        }
}

/* The table of a float type's exact inputs for op. */
static const uint64_t *exact_table(shmemu_dtype_t d, shmemu_op_t op)
{
    pthread_once(&exact_once, build_exact);
    return exact_bits[d - SHMEMU_FLOAT][exact_class(op)];
}

void shmemu__verify_input(const shmemu_verify_case *vc, int call, int pe, size_t i, void *out)
{
    int fl = shmemu__verify_is_float(vc->dtype);
    store(vc->dtype, out, fl ? in_float(vc, call, pe, i) : 0,
          fl ? 0 : h4(vc->seed, call, pe, i));
}

void shmemu__verify_fill_range(const shmemu_verify_case *vc, int call, int pe, size_t first,
                               void *buf, size_t n)
{
    size_t es = esize(vc->dtype);
    char *out = buf;
    /* A loop per element size and table length, so that each store is one
     * typed move and each remainder a multiplication (a memcpy of a
     * variable size and a division per element were half the matrix's
     * value generation). */
#define FILL(T, VALUE)                                                                       \
    for (size_t i = 0; i < n; i++) {                                                        \
        uint64_t h = h4(vc->seed, call, pe, first + i);                                     \
        T v_ = (T)(VALUE);                                                                  \
        memcpy(out + i * sizeof(T), &v_, sizeof(T));                                        \
    }                                                                                       \
    return;
#define FILL_SIZES(VALUE)                                                                    \
    switch (es) {                                                                            \
    case 1: FILL(uint8_t, VALUE)                                                             \
    case 2: FILL(uint16_t, VALUE)                                                            \
    case 4: FILL(uint32_t, VALUE)                                                            \
    default: FILL(uint64_t, VALUE)                                                           \
    }
    if (!shmemu__verify_is_float(vc->dtype)) /* integers: the hash's low bytes */
        FILL_SIZES(h)
    if (vc->inputs == SHMEMU_VERIFY_EXACT) {
        const uint64_t *tab = exact_table(vc->dtype, vc->op);
        switch (exact_count(vc->dtype, exact_class(vc->op))) {
        case 4: FILL_SIZES(tab[h % 4])
        case 6: FILL_SIZES(tab[h % 6])
        case 17: FILL_SIZES(tab[h % 17])
        default: FILL_SIZES(tab[h % EXACT_MAX])
        }
    }
#undef FILL_SIZES
#undef FILL
    /* a loop per type: a store's switch per element was a tenth of the
     * default matrix's time */
    switch (vc->dtype) {
    case SHMEMU_FLOAT:
        for (size_t i = 0; i < n; i++) {
            float v = (float)in_float(vc, call, pe, first + i);
            memcpy(out + 4 * i, &v, 4);
        }
        return;
    case SHMEMU_DOUBLE:
        for (size_t i = 0; i < n; i++) {
            double v = in_float(vc, call, pe, first + i);
            memcpy(out + 8 * i, &v, 8);
        }
        return;
    default: {
        const struct small_fmt *f = vc->dtype == SHMEMU_FLOAT16 ? &half_fmt : &bf16_fmt;
        for (size_t i = 0; i < n; i++) {
            uint16_t v = to_small(in_float(vc, call, pe, first + i), f);
            memcpy(out + 2 * i, &v, 2);
        }
    }
    }
}

void shmemu__verify_fill(const shmemu_verify_case *vc, int call, int pe, void *buf, size_t n)
{
    shmemu__verify_fill_range(vc, call, pe, 0, buf, n);
}

/* -------------------------------------------------------------- reference */

static uint64_t int_op(shmemu_dtype_t d, shmemu_op_t op, uint64_t a, uint64_t b)
{
    int64_t x = int_value(d, a), y = int_value(d, b);
    int sgn = is_signed_int(d);
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

/* IEEE 754-2019 minimum/maximum for min and max: a NaN wins, -0 < +0. */
static double float_op(shmemu_op_t op, double a, double b)
{
    switch (op) {
    case SHMEMU_SUM: return a + b;
    case SHMEMU_PROD: return a * b;
    case SHMEMU_MIN:
        return isnan(a) || isnan(b) ? NAN : a < b ? a : b < a ? b : signbit(a) ? a : b;
    default:
        return isnan(a) || isnan(b) ? NAN : a > b ? a : b > a ? b : signbit(a) ? b : a;
    }
}

void shmemu__verify_reference(const shmemu_verify_case *vc, int call, int n, size_t i,
                              struct shmemu__vref *r)
{
    shmemu_dtype_t d = vc->dtype;
    memset(r, 0, sizeof(*r));
    r->alt = NAN;
    int fl = shmemu__verify_is_float(d), exact = vc->inputs == SHMEMU_VERIFY_EXACT;
    if (fl && exact && vc->op == SHMEMU_SUM) {
        /* the default matrix's commonest case, kept tight: exact inputs
         * are small finite integers, so no NaN for alt to skip */
        double f = 0, a = 0;
        for (int p = 0; p < n; p++) {
            double x = exact_value(d, EX_SUM, (unsigned)(h4(vc->seed, call, p, i) % 17));
            f += x;
            a += fabs(x);
        }
        r->f = r->alt = f;
        r->absum = a;
        return;
    }
    for (int p = 0; p < n; p++) {
        unsigned char tmp[8];
        if (!fl) {
            uint64_t x = h4(vc->seed, call, p, i) & mask(d);
            r->bits = p ? int_op(d, vc->op, r->bits, x) : x;
            continue;
        }
        if (!exact)
            shmemu__verify_input(vc, call, p, i, tmp);
        /* as the PEs hold it (exact inputs are representable as they are) */
        double x = vc->inputs == SHMEMU_VERIFY_EXACT ? in_float(vc, call, p, i)
                                                     : load_float(d, tmp);
        r->f = p ? float_op(vc->op, r->f, x) : x;
        if (isfinite(x))
            r->absum += fabs(x);
        if (!isnan(x))
            r->alt = isnan(r->alt) ? x : float_op(vc->op, r->alt, x);
    }
}

uint64_t shmemu__verify_want(const shmemu_verify_case *vc, int call, int n, size_t i)
{
    struct shmemu__vref r;
    uint64_t want = 0;
    shmemu__verify_reference(vc, call, n, i, &r);
    store(vc->dtype, &want, r.f, r.bits);
    return want;
}

/* The reduction over team PEs [0, n) of elements [lo, hi), one pass per
 * element with the op chosen once; exact floats go by their table index
 * (sums add indices, min and max compare them). */
#define REDUCE_INTS(OP)                                                                      \
    for (size_t i = lo; i < hi; i++) {                                                      \
        uint64_t acc = h4(seed, call, 0, i);                                                \
        for (int p = 1; p < n; p++) {                                                       \
            uint64_t x = h4(seed, call, p, i);                                              \
            OP;                                                                             \
        }                                                                                   \
        out[i - lo] = acc & m;                                                              \
    }

static int want_range_fast(const shmemu_verify_case *vc, int call, int n, size_t lo, size_t hi,
                           uint64_t *out)
{
    shmemu_dtype_t d = vc->dtype;
    uint64_t seed = vc->seed, m = mask(d);
    int shift = 64 - 8 * (int)esize(d);
    if (n < 1 || vc->inputs != SHMEMU_VERIFY_EXACT)
        return 0;
    if (!shmemu__verify_is_float(d)) {
        switch (vc->op) {
        case SHMEMU_SUM: REDUCE_INTS(acc += x) return 1;
        case SHMEMU_PROD: REDUCE_INTS(acc *= x) return 1;
        case SHMEMU_BAND: REDUCE_INTS(acc &= x) return 1;
        case SHMEMU_BOR: REDUCE_INTS(acc |= x) return 1;
        case SHMEMU_BXOR: REDUCE_INTS(acc ^= x) return 1;
        case SHMEMU_MIN:
        case SHMEMU_MAX: {
            int sgn = is_signed_int(d), mx = vc->op == SHMEMU_MAX;
            /* compare as the type's values: sign-extended, or masked */
#define KEY(v) (sgn ? (uint64_t)((int64_t)((v) << shift) >> shift) ^ (1ull << 63) : (v) & m)
            REDUCE_INTS(if (mx ? KEY(x) > KEY(acc) : KEY(x) < KEY(acc)) acc = x)
#undef KEY
            return 1;
        }
        default: return 0;
        }
    }
    const uint64_t *tab = exact_table(d, vc->op);
    int cls = exact_class(vc->op);
    unsigned k = exact_count(d, cls);
    for (size_t i = lo; i < hi; i++) {
        uint64_t want = 0;
        if (cls == EX_SUM) { /* small integers: every order gives this sum */
            uint64_t s = 0;
            for (int p = 0; p < n; p++)
                s += h4(seed, call, p, i) % 17;
            store(d, &want, (double)((int64_t)s - 8 * (int64_t)n), 0);
        } else if (cls == EX_PROD) { /* powers of two: exact in a double */
            double f = 1;
            for (int p = 0; p < n; p++)
                f *= exact_value(d, cls, (unsigned)(h4(seed, call, p, i) % k));
            store(d, &want, f, 0);
        } else { /* ascending values: the least index is the least value */
            uint64_t best = h4(seed, call, 0, i) % EXACT_MAX;
            for (int p = 1; p < n; p++) {
                uint64_t x = h4(seed, call, p, i) % EXACT_MAX;
                if (vc->op == SHMEMU_MAX ? x > best : x < best)
                    best = x;
            }
            want = tab[best] & m;
        }
        out[i - lo] = want;
    }
    return 1;
}

#undef REDUCE_INTS

void shmemu__verify_want_range(const shmemu_verify_case *vc, int call, int n, size_t lo,
                               size_t hi, uint64_t *out)
{
    if (want_range_fast(vc, call, n, lo, hi, out))
        return;
    for (size_t i = lo; i < hi; i++)
        out[i - lo] = shmemu__verify_want(vc, call, n, i);
}

static int same_value(double g, double w)
{
    return g == w || (isnan(g) && isnan(w));
}

int shmemu__verify_ref_ok(const shmemu_verify_case *vc, int call, int n, size_t i,
                          uint64_t want_bits, const void *got, char *exp, char *gs)
{
    shmemu_dtype_t d = vc->dtype;
    size_t es = esize(d);
    uint64_t g_bits = 0;
    memcpy(&g_bits, got, es);
    if (g_bits == want_bits)
        return 1;
    unsigned char want[8];
    memcpy(want, &want_bits, 8);
    if (!shmemu__verify_is_float(d)) {
        shmemu__verify_format(d, want, exp, 48);
        shmemu__verify_format(d, got, gs, 48);
        return 0;
    }
    struct shmemu__vref ref, *r = &ref;
    shmemu__verify_reference(vc, call, n, i, r);
    double g = load_float(d, got);
    store(d, want, r->f, 0);
    double w = load_float(d, want); /* the exact result, rounded to the type */
    int ok = same_value(g, w);
    if (!ok && isnan(w) && (vc->op == SHMEMU_MIN || vc->op == SHMEMU_MAX) && !isnan(r->alt)) {
        store(d, want, r->alt, 0); /* minNum/maxNum: NaN inputs ignored */
        ok = same_value(g, load_float(d, want));
        store(d, want, r->f, 0);
    }
    if (!ok && isfinite(w) && isfinite(g) && vc->inputs == SHMEMU_VERIFY_RANDOM &&
        (vc->op == SHMEMU_SUM || vc->op == SHMEMU_PROD)) {
        /* any order of n - 1 operations, each rounding in the type (and
         * the reference's own, in double) */
        double u = unit_roundoff(d);
        double tol = 2 * (n - 1) * u * (vc->op == SHMEMU_SUM ? r->absum : fabs(r->f)) +
                     u * fabs(r->f) + n * denorm_min(d);
        ok = fabs(g - w) <= tol;
    }
    if (ok)
        return 1;
    shmemu__verify_format(d, want, exp, 48);
    shmemu__verify_format(d, got, gs, 48);
    return 0;
}

int shmemu__verify_same_bits(shmemu_dtype_t d, const void *a, const void *b)
{
    if (!memcmp(a, b, esize(d)))
        return 1;
    return shmemu__verify_is_float(d) && isnan(load_float(d, a)) && isnan(load_float(d, b));
}

void shmemu__verify_format(shmemu_dtype_t d, const void *p, char *buf, size_t len)
{
    if (shmemu__verify_is_float(d)) {
        double v = load_float(d, p);
        if (v == 0 && signbit(v))
            snprintf(buf, len, "-0");
        else
            snprintf(buf, len, "%.9g", v);
    } else if (is_signed_int(d)) {
        snprintf(buf, len, "%lld", (long long)int_value(d, load_int(d, p)));
    } else {
        snprintf(buf, len, "%llu", (unsigned long long)int_value(d, load_int(d, p)));
    }
}

/* ------------------------------------------------------------ provenance */

static int coll_is_reduction(shmemu_coll_t c)
{
    return c == SHMEMU_COLL_ALLREDUCE || c == SHMEMU_COLL_REDUCE ||
           c == SHMEMU_COLL_REDUCE_SCATTER;
}

/* Elements of src per team PE. */
static size_t src_elems(const shmemu_verify_case *vc, int n)
{
    return vc->coll == SHMEMU_COLL_REDUCE_SCATTER || vc->coll == SHMEMU_COLL_ALLTOALL
               ? vc->count * (size_t)n
               : vc->count;
}

/* Whose input is got?  Searches this call's inputs, then the previous and
 * the next call's (a peer that ran ahead into the next call and wrote here
 * before this one returned); says so only when one element matches. */
static void explain_movement(const shmemu_verify_case *vc, int call, int n, const void *got,
                             char *buf, size_t len)
{
    size_t es = esize(vc->dtype), in = src_elems(vc, n);
    const int order[3] = {call, call - 1, call + 1};
    for (int o = 0; o < 3; o++) {
        int k = order[o], found = 0, fp = 0;
        size_t fj = 0;
        if (k < 0 || k >= VERIFY_CALLS)
            continue;
        for (int p = 0; p < n && found < 2; p++)
            for (size_t j = 0; j < in && found < 2; j++) {
                unsigned char x[8];
                shmemu__verify_input(vc, k, p, j, x);
                if (!memcmp(x, got, es) && !found++)
                    fp = p, fj = j;
            }
        if (found == 1) {
            snprintf(buf, len, "holds PE %d's element %zu%s", fp, fj,
                     k < call   ? " of the previous call"
                     : k > call ? " of the next call (written before this one returned here)"
                                : "");
            return;
        }
        if (found > 1)
            return; /* ambiguous: say nothing */
    }
}

/* Which single contribution, or pair, explains got = ref + diff? */
static void explain_sum(const shmemu_verify_case *vc, int call, int n, size_t i, uint64_t got,
                        uint64_t ref, char *buf, size_t len)
{
    shmemu_dtype_t d = vc->dtype;
    uint64_t m = mask(d), x[64];
    int xor = vc->op == SHMEMU_BXOR;
    if (n > 64)
        return;
    for (int p = 0; p < n; p++) {
        unsigned char t[8];
        shmemu__verify_input(vc, call, p, i, t);
        x[p] = load_int(d, t);
    }
    uint64_t diff = (xor ? got ^ ref : got - ref) & m;
    for (int p = 0; p < n; p++) {
        if (xor && diff == x[p]) {
            snprintf(buf, len, "lacks PE %d's contribution, or has it twice", p);
            return;
        }
        if (!xor && diff == (-x[p] & m)) {
            snprintf(buf, len, "lacks PE %d's contribution", p);
            return;
        }
        if (!xor && diff == x[p]) {
            snprintf(buf, len, "has PE %d's contribution twice", p);
            return;
        }
    }
    if (esize(d) < 4) /* n^2 pairs: wide types only */
        return;
    for (int p = 0; p < n; p++)
        for (int q = 0; q < n; q++) {
            if (p == q)
                continue;
            if (xor && p < q && diff == (x[p] ^ x[q])) {
                snprintf(buf, len, "lacks (or has twice) the contributions of PEs %d and %d",
                         p, q);
                return;
            }
            if (!xor && diff == ((x[q] - x[p]) & m)) {
                snprintf(buf, len, "lacks PE %d's contribution and has PE %d's twice", p, q);
                return;
            }
            if (!xor && p < q && diff == ((-x[p] - x[q]) & m)) {
                snprintf(buf, len, "lacks the contributions of PEs %d and %d", p, q);
                return;
            }
        }
}

void shmemu__verify_explain(const shmemu_verify_case *vc, int call, int n, int me, size_t i,
                            const void *got, char *buf, size_t len)
{
    buf[0] = '\0';
    shmemu_dtype_t d = vc->dtype;
    size_t es = esize(d);
    if (!coll_is_reduction(vc->coll)) {
        explain_movement(vc, call, n, got, buf, len);
        return;
    }
    size_t e = vc->coll == SHMEMU_COLL_REDUCE_SCATTER ? (size_t)me * vc->count + i : i;
    struct shmemu__vref prev;
    if (call > 0) { /* a result left from the previous call */
        unsigned char t[8];
        shmemu__verify_reference(vc, call - 1, n, e, &prev);
        store(d, t, prev.f, prev.bits);
        if (!memcmp(t, got, es)) {
            snprintf(buf, len, "holds the previous call's result");
            return;
        }
    }
    /* A byte-wide element matches one of n values by chance too often to
     * name anyone. */
    if (es < 2)
        return;
    if (vc->inputs == SHMEMU_VERIFY_EXACT && !shmemu__verify_is_float(d) &&
        (vc->op == SHMEMU_SUM || vc->op == SHMEMU_BXOR)) {
        struct shmemu__vref r;
        shmemu__verify_reference(vc, call, n, e, &r);
        explain_sum(vc, call, n, e, load_int(d, got), r.bits, buf, len);
        if (buf[0])
            return;
    }
    /* min, max, band, bor, prod, floats: only a lone contribution is sure,
     * and only where inputs rarely repeat (exact float inputs are small) */
    if (shmemu__verify_is_float(d) && vc->inputs == SHMEMU_VERIFY_EXACT)
        return;
    int found = 0, fp = 0;
    for (int p = 0; p < n; p++) {
        unsigned char t[8];
        shmemu__verify_input(vc, call, p, e, t);
        if (!memcmp(t, got, es) && !found++)
            fp = p;
    }
    if (found == 1 && n > 1)
        snprintf(buf, len, "holds PE %d's element alone (no other contribution)", fp);
}
