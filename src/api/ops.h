/*
 * ops.h - element types and reduction kernels (ops.c): what the public
 * calls that name types and operations (shmemu_dtype_size, ...), local
 * reductions and the collectives share.
 */
#ifndef SHMEMU_OPS_H
#define SHMEMU_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "shmemu.h"

typedef void (*shmemu__reduce_fn)(void *dst, const void *a, const void *b, size_t n);

/* dst[i] = a[i] OP b[i] for the pair, or NULL if op does not apply. */
shmemu__reduce_fn shmemu__reduce_kernel(shmemu_dtype_t dtype, shmemu_op_t op)
    __attribute__((visibility("hidden")));
float shmemu__half_to_float(uint16_t h) __attribute__((visibility("hidden")));
uint16_t shmemu__float_to_half(float f) __attribute__((visibility("hidden")));
float shmemu__bf16_to_float(uint16_t h) __attribute__((visibility("hidden")));
uint16_t shmemu__float_to_bf16(float f) __attribute__((visibility("hidden")));

#endif
