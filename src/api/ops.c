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
#include "shmemu_device.h" /* last: it defines device spellings */

/* ------------------------------------------------------- 16-bit floats */

/* The device side's conversions (shmemu_device.h), one code for the
 * library's kernels, the device built-ins and the cuda plugin. */
float shmemu__half_to_float(uint16_t h) { return shmemu_dev_half_to_float(h); }
uint16_t shmemu__float_to_half(float f) { return shmemu_dev_float_to_half(f); }
float shmemu__bf16_to_float(uint16_t h) { return shmemu_dev_bf16_to_float(h); }
uint16_t shmemu__float_to_bf16(float f) { return shmemu_dev_float_to_bf16(f); }

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
