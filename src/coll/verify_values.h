/*
 * verify_values.h - the inputs, the reference and the explanation of a
 * wrong element (verify_values.c), for the case runner (verify.c) and its
 * checks (verify_check.c).  Public API only, like the rest of src/coll.
 */
#ifndef SHMEMU_VERIFY_VALUES_H
#define SHMEMU_VERIFY_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "shmemu.h"

#define SHMEMU__HID __attribute__((visibility("hidden")))

/* Calls of the collective in one job: two back to back on the same
 * buffers, one on another pair (state carried from call to call is a
 * leading bug class of real collectives). */
#define VERIFY_CALLS 3

/* One element of a reduction's reference: the exact result as a double
 * (floats; NaN when any input is NaN, or inf - inf) or wrapped bits
 * (integers); for random inputs sum |x_i|, and for min/max with a NaN input
 * the result over the other inputs (minNum semantics are accepted too). */
struct shmemu__vref {
    double f, absum, alt;
    uint64_t bits;
};

int shmemu__verify_is_float(shmemu_dtype_t d) SHMEMU__HID;
/* Independent 16-bit float conversions (libm's frexp/nearbyint, not the
 * kernels' bit tricks): the reference must not share their bugs. */
uint16_t shmemu__verify_to_half(double x) SHMEMU__HID;
uint16_t shmemu__verify_to_bf16(double x) SHMEMU__HID;
double shmemu__verify_half_value(uint16_t h) SHMEMU__HID;
double shmemu__verify_bf16_value(uint16_t h) SHMEMU__HID;

/* Input element i of team PE pe for call k, stored into buf. */
void shmemu__verify_fill(const shmemu_verify_case *vc, int call, int pe, void *buf, size_t n)
    SHMEMU__HID;
/* Elements [first, first + n) of team PE pe's input for call k. */
void shmemu__verify_fill_range(const shmemu_verify_case *vc, int call, int pe, size_t first,
                               void *buf, size_t n) SHMEMU__HID;
void shmemu__verify_input(const shmemu_verify_case *vc, int call, int pe, size_t i, void *out)
    SHMEMU__HID;
/* The reduction over n team PEs of element i, for call k. */
void shmemu__verify_reference(const shmemu_verify_case *vc, int call, int n, size_t i,
                              struct shmemu__vref *r) SHMEMU__HID;
/* The element the reduction of element i rounds to, as the type's bits (in
 * the low bytes): a result with these bits is right, whatever the inputs. */
uint64_t shmemu__verify_want(const shmemu_verify_case *vc, int call, int n, size_t i)
    SHMEMU__HID;
/* shmemu__verify_want of elements [lo, hi), into out[0 .. hi - lo). */
void shmemu__verify_want_range(const shmemu_verify_case *vc, int call, int n, size_t lo,
                               size_t hi, uint64_t *out) SHMEMU__HID;
/* Does got hold the reduction of element i (want: its bits)?  If not, the
 * expected and got values as text. */
int shmemu__verify_ref_ok(const shmemu_verify_case *vc, int call, int n, size_t i,
                          uint64_t want, const void *got, char *exp, char *gs) SHMEMU__HID;
/* Two members' copies of one element: the same bits (any NaN equals any
 * NaN: a CPU keeps an operand's payload where a GPU would not). */
int shmemu__verify_same_bits(shmemu_dtype_t d, const void *a, const void *b) SHMEMU__HID;
void shmemu__verify_format(shmemu_dtype_t d, const void *p, char *buf, size_t len) SHMEMU__HID;
/* Why element i of team PE me's dest (call k) holds got: whose input it is,
 * or which contributions a reduction lacks or has twice.  "" if unknown. */
void shmemu__verify_explain(const shmemu_verify_case *vc, int call, int n, int me, size_t i,
                            const void *got, char *buf, size_t len) SHMEMU__HID;

#endif
