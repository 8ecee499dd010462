/*
 * value.h - the integer types point-to-point routines compare, as data: a
 * vtype is the width in bytes plus a signedness bit, enough to load, compare
 * and print any of them through one code path.
 */
#ifndef SHMEMU_VALUE_H
#define SHMEMU_VALUE_H

#include <stdint.h>
#include <string.h>

#include "shmemu.h"

#define SHMEMU__VT_SIGNED 0x100
/* Unsigned when all-ones shifted down to the top bit leaves 1 (a signed
 * all-ones stays -1); written so as not to compare an unsigned with 0. */
#define SHMEMU__VTYPE(T)                                                       \
    ((int)sizeof(T) |                                                          \
     ((((T) ~(T)0) >> (sizeof(T) * 8 - 1)) == 1 ? 0 : SHMEMU__VT_SIGNED))

static inline int shmemu__vt_width(int vt) { return vt & 0xff; }
static inline int shmemu__vt_signed(int vt) { return (vt & SHMEMU__VT_SIGNED) != 0; }

/* Atomic load of a vt-typed value at p, as a bit pattern in a uint64_t. */
static inline uint64_t shmemu__vt_load(int vt, const void *p)
{
    switch (shmemu__vt_width(vt)) {
    case 1: return __atomic_load_n((const uint8_t *)p, __ATOMIC_ACQUIRE);
    case 2: return __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
    case 4: return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
    default: return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
    }
}

/* Sign-extend a vt-typed bit pattern so that signed values compare right. */
static inline int64_t shmemu__vt_signed_value(int vt, uint64_t bits)
{
    int shift = 64 - 8 * shmemu__vt_width(vt);
    return shift ? (int64_t)(bits << shift) >> shift : (int64_t)bits;
}

static inline uint64_t shmemu__vt_unsigned_value(int vt, uint64_t bits)
{
    int w = shmemu__vt_width(vt);
    return w == 8 ? bits : bits & ((UINT64_C(1) << (8 * w)) - 1);
}

/* ivar (bits) cmp value (bits): 1 when it holds, -1 for a bad cmp. */
static inline int shmemu__vt_compare(int vt, uint64_t ivar, int cmp, uint64_t value)
{
    int c;
    if (shmemu__vt_signed(vt)) {
        int64_t a = shmemu__vt_signed_value(vt, ivar), b = shmemu__vt_signed_value(vt, value);
        c = a < b ? -1 : a > b;
    } else {
        uint64_t a = shmemu__vt_unsigned_value(vt, ivar), b = shmemu__vt_unsigned_value(vt, value);
        c = a < b ? -1 : a > b;
    }
    switch (cmp) {
    case SHMEMU_CMP_EQ: return c == 0;
    case SHMEMU_CMP_NE: return c != 0;
    case SHMEMU_CMP_GT: return c > 0;
    case SHMEMU_CMP_GE: return c >= 0;
    case SHMEMU_CMP_LT: return c < 0;
    case SHMEMU_CMP_LE: return c <= 0;
    default: return -1;
    }
}

const char *shmemu__cmp_name(int cmp);

/* Print a vt-typed bit pattern as a decimal number into buf. */
void shmemu__vt_format(int vt, uint64_t bits, char *buf, size_t len);

#endif /* SHMEMU_VALUE_H */
