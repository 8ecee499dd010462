/*
 * ops.c - element types and reduction kernels (ops.h).
 *
 * A kernel computes dst[i] = a[i] OP b[i]; dst may be a or b (in place).
 * 16-bit floats are widened to float, combined, and rounded back to nearest
 * even, per element, as GPU libraries reduce them.  Built with -O3 so the
 * loops vectorize.
 */
#include <math.h>
#include <string.h>

#include "ops.h"

/* ------------------------------------------------------- 16-bit floats */

float shmemu__half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13); /* inf, nan */
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man) { /* subnormal: normalise */
        int e = -1;
        do {
            man <<= 1;
            e++;
        } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t shmemu__float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, abs = x & 0x7fffffff;
    if (abs >= 0x7f800000u) /* inf or nan (keep a quiet nan) */
        return (uint16_t)(sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 | ((abs >> 13) & 0x3ff) : 0));
    if (abs >= 0x477ff000u) /* rounds to more than 65504 */
        return (uint16_t)(sign | 0x7c00);
    if (abs < 0x38800000u) { /* below the smallest normal: subnormal or 0 */
        if (abs < 0x33000000u)
            return (uint16_t)sign;
        uint32_t man = (abs & 0x7fffff) | 0x800000;
        int shift = 126 - (int)(abs >> 23); /* 14..24 */
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1),
                 mid = 1u << (shift - 1);
        half += rem > mid || (rem == mid && (half & 1));
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((abs - 0x38000000u) >> 13), rem = abs & 0x1fff;
    half += rem > 0x1000 || (rem == 0x1000 && (half & 1)); /* to nearest even */
    return (uint16_t)(sign | half);
}

float shmemu__bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t shmemu__float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000u) /* nan: stay a quiet nan */
        return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1); /* to nearest even */
    return (uint16_t)(x >> 16);
}

/* --------------------------------------------------------------- kernels */

#define SUM(a, b) ((a) + (b))
#define PROD(a, b) ((a) * (b))
#define MIN(a, b) ((b) < (a) ? (b) : (a))
#define MAX(a, b) ((b) > (a) ? (b) : (a))
#define BAND(a, b) ((a) & (b))
#define BOR(a, b) ((a) | (b))
#define BXOR(a, b) ((a) ^ (b))

/* Signed integer overflow wraps (two's complement), as on every target. */
#define KERNEL(T, NAME, OP)                                                    \
    static void NAME(void *dst, const void *a, const void *b, size_t n)        \
    {                                                                          \
        T *d = dst;                                                            \
        const T *x = a, *y = b;                                                \
        for (size_t i = 0; i < n; i++)                                         \
            d[i] = (T)OP(x[i], y[i]);                                          \
    }
#define UKERNEL(T, U, NAME, OP) /* integer sum/prod without signed overflow */ \
    static void NAME(void *dst, const void *a, const void *b, size_t n)        \
    {                                                                          \
        T *d = dst;                                                            \
        const T *x = a, *y = b;                                                \
        for (size_t i = 0; i < n; i++)                                         \
            d[i] = (T)OP((U)x[i], (U)y[i]);                                    \
    }
#define HKERNEL(NAME, OP, TO, FROM)                                            \
    static void NAME(void *dst, const void *a, const void *b, size_t n)        \
    {                                                                          \
        uint16_t *d = dst;                                                     \
        const uint16_t *x = a, *y = b;                                         \
        for (size_t i = 0; i < n; i++)                                         \
            d[i] = FROM(OP(TO(x[i]), TO(y[i])));                               \
    }
/* min/max of floats follow IEEE 754-2019 minimum/maximum: a NaN operand
 * wins (as the default quiet NaN) and -0 < +0, so that they give the same
 * bits whatever the order of operands, and every member of a collective
 * ends with the same bits however its algorithm paired them.  Sums and
 * products are commutative to the bit except for a NaN's payload (x86 keeps
 * the first operand's): the algorithms that combine one element on two PEs
 * put the operands in team order (recursive doubling). */
#define FMIN(a, b)                                                             \
    (isnan(a) || isnan(b) ? NAN                                                \
     : (a) < (b)          ? (a)                                                \
     : (b) < (a)          ? (b)                                                \
     : signbit(a)         ? (a)                                                \
                          : (b))
#define FMAX(a, b)                                                             \
    (isnan(a) || isnan(b) ? NAN                                                \
     : (a) > (b)          ? (a)                                                \
     : (b) > (a)          ? (b)                                                \
     : signbit(a)         ? (b)                                                \
                          : (a))

#define INT_KERNELS(T, U, tag)                                                 \
    UKERNEL(T, U, tag##_sum, SUM)                                              \
    UKERNEL(T, U, tag##_prod, PROD)                                            \
    KERNEL(T, tag##_min, MIN)                                                  \
    KERNEL(T, tag##_max, MAX)                                                  \
    KERNEL(T, tag##_band, BAND)                                                \
    KERNEL(T, tag##_bor, BOR)                                                  \
    KERNEL(T, tag##_bxor, BXOR)
INT_KERNELS(int8_t, uint32_t, i8)
INT_KERNELS(int16_t, uint32_t, i16)
INT_KERNELS(int32_t, uint32_t, i32)
INT_KERNELS(int64_t, uint64_t, i64)
INT_KERNELS(uint8_t, uint32_t, u8)
INT_KERNELS(uint16_t, uint32_t, u16)
INT_KERNELS(uint32_t, uint32_t, u32)
INT_KERNELS(uint64_t, uint64_t, u64)
KERNEL(float, f32_sum, SUM)
KERNEL(float, f32_prod, PROD)
KERNEL(float, f32_min, FMIN)
KERNEL(float, f32_max, FMAX)
KERNEL(double, f64_sum, SUM)
KERNEL(double, f64_prod, PROD)
KERNEL(double, f64_min, FMIN)
KERNEL(double, f64_max, FMAX)
HKERNEL(f16_sum, SUM, shmemu__half_to_float, shmemu__float_to_half)
HKERNEL(f16_prod, PROD, shmemu__half_to_float, shmemu__float_to_half)
HKERNEL(f16_min, FMIN, shmemu__half_to_float, shmemu__float_to_half)
HKERNEL(f16_max, FMAX, shmemu__half_to_float, shmemu__float_to_half)
HKERNEL(bf16_sum, SUM, shmemu__bf16_to_float, shmemu__float_to_bf16)
HKERNEL(bf16_prod, PROD, shmemu__bf16_to_float, shmemu__float_to_bf16)
HKERNEL(bf16_min, FMIN, shmemu__bf16_to_float, shmemu__float_to_bf16)
HKERNEL(bf16_max, FMAX, shmemu__bf16_to_float, shmemu__float_to_bf16)

#define INT_ROW(tag)                                                           \
    {tag##_sum, tag##_prod, tag##_min, tag##_max, tag##_band, tag##_bor, tag##_bxor}
#define FLT_ROW(tag) {tag##_sum, tag##_prod, tag##_min, tag##_max, NULL, NULL, NULL}

static const shmemu__reduce_fn kernels[SHMEMU_DTYPE_COUNT][SHMEMU_OP_COUNT] = {
    [SHMEMU_INT8] = INT_ROW(i8),     [SHMEMU_INT16] = INT_ROW(i16),
    [SHMEMU_INT32] = INT_ROW(i32),   [SHMEMU_INT64] = INT_ROW(i64),
    [SHMEMU_UINT8] = INT_ROW(u8),    [SHMEMU_UINT16] = INT_ROW(u16),
    [SHMEMU_UINT32] = INT_ROW(u32),  [SHMEMU_UINT64] = INT_ROW(u64),
    [SHMEMU_FLOAT] = FLT_ROW(f32),   [SHMEMU_DOUBLE] = FLT_ROW(f64),
    [SHMEMU_FLOAT16] = FLT_ROW(f16), [SHMEMU_BFLOAT16] = FLT_ROW(bf16),
};

shmemu__reduce_fn shmemu__reduce_kernel(shmemu_dtype_t dtype, shmemu_op_t op)
{
    return shmemu_op_valid(op, dtype) ? kernels[dtype][op] : NULL;
}
