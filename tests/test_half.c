/* test_half.c - float16 and bfloat16 conversions, exhaustively: all 65,536
 * values each way, and every rounding boundary between neighbours, for the
 * kernels' conversions and for the verifier's own (which its reference is
 * built on, so that a rounding bug in the kernels cannot hide behind it).
 * The truth here is a third method: decoding with ldexp, and "round to
 * nearest, ties to even" read off the neighbours' bit patterns. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

/* The library's internal conversions (the static library exposes them). */
float shmemu__half_to_float(uint16_t h);
uint16_t shmemu__float_to_half(float f);
float shmemu__bf16_to_float(uint16_t h);
uint16_t shmemu__float_to_bf16(float f);
uint16_t shmemu__verify_to_half(double x);
uint16_t shmemu__verify_to_bf16(double x);
double shmemu__verify_half_value(uint16_t h);
double shmemu__verify_bf16_value(uint16_t h);

struct fmt {
    const char *name;
    int mant, bias, exp_max;
    float (*k_decode)(uint16_t);
    uint16_t (*k_encode)(float);
    double (*v_decode)(uint16_t);
    uint16_t (*v_encode)(double);
};

static const struct fmt fmts[] = {
    {"float16", 10, 15, 31, shmemu__half_to_float, shmemu__float_to_half,
     shmemu__verify_half_value, shmemu__verify_to_half},
    {"bfloat16", 7, 127, 255, shmemu__bf16_to_float, shmemu__float_to_bf16,
     shmemu__verify_bf16_value, shmemu__verify_to_bf16},
};

/* The value of bit pattern h: NaN, +-inf, or an exact double. */
static double truth(const struct fmt *f, uint16_t h)
{
    int e = (h >> f->mant) & f->exp_max;
    uint32_t m = h & ((1u << f->mant) - 1);
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == f->exp_max)
        return m ? NAN : s * INFINITY;
    if (e == 0)
        return s * ldexp((double)m, 1 - f->bias - f->mant);
    return s * ldexp((double)(m | (1u << f->mant)), e - f->bias - f->mant);
}

static int is_nan_bits(const struct fmt *f, uint16_t h)
{
    return ((h >> f->mant) & f->exp_max) == f->exp_max && (h & ((1u << f->mant) - 1));
}

static uint32_t fbits(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    return b;
}

/* Every pattern decodes to the truth, bit for bit (NaNs: a quiet NaN). */
static void test_decode_all(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
        const struct fmt *f = &fmts[k];
        for (unsigned i = 0; i < 65536; i++) {
            uint16_t h = (uint16_t)i;
            double t = truth(f, h);
            float kv = f->k_decode(h);
            double vv = f->v_decode(h);
            if (isnan(t)) {
                if (!isnan(kv) || !isnan(vv))
                    fail_msg("%s 0x%04x: NaN decoded as %g / %g", f->name, i, kv, vv);
                continue;
            }
            if (fbits(kv) != fbits((float)t) || memcmp(&vv, &t, sizeof(t)) != 0)
                fail_msg("%s 0x%04x: kernel %a, verifier %a, truth %a", f->name, i, kv, vv, t);
        }
    }
}

/* Encoding a value gives its pattern back; values between two neighbours
 * round to the nearer, ties to the one with an even last bit; past the
 * largest finite value, to infinity. */
static void check_encode(const struct fmt *f, double x, uint16_t want, const char *what)
{
    uint16_t k = f->k_encode((float)x), v = f->v_encode(x);
    if (k != want || v != want)
        fail_msg("%s: %s %a: kernel 0x%04x, verifier 0x%04x, expected 0x%04x", f->name, what,
                 x, k, v, want);
}

static void test_encode_all(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
        const struct fmt *f = &fmts[k];
        uint16_t inf = (uint16_t)(f->exp_max << f->mant);
        for (unsigned i = 0; i < 65536; i++) {
            uint16_t h = (uint16_t)i;
            if (is_nan_bits(f, h)) {
                uint16_t kn = f->k_encode((float)truth(f, h)), vn = f->v_encode(truth(f, h));
                if (!is_nan_bits(f, kn) || !is_nan_bits(f, vn))
                    fail_msg("%s: NaN encoded as 0x%04x / 0x%04x", f->name, kn, vn);
                continue;
            }
            double t = truth(f, h);
            check_encode(f, t, h, "value");
            if ((h & 0x7fff) >= inf) /* infinities: no upper neighbour */
                continue;
            /* the boundary with the next pattern up in magnitude: exact in
             * float (one more bit than the format's precision) */
            uint16_t up = (uint16_t)(h + 1);
            double tu = (h & 0x7fff) + 1 == inf
                            ? ldexp(1.0, f->exp_max - f->bias) * (h & 0x8000 ? -1 : 1)
                            : truth(f, up);
            double mid = (t + tu) / 2;
            uint16_t even = (h & 1) ? up : h;
            check_encode(f, mid, even, "midpoint");
            float below = nextafterf((float)mid, (float)t), above = nextafterf((float)mid, (float)tu);
            check_encode(f, below, h, "just below a midpoint");
            check_encode(f, above, up, "just above a midpoint");
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_all),
        cmocka_unit_test(test_encode_all),
    };
    return cmocka_run_group_tests_name("half", tests, NULL, NULL);
}
