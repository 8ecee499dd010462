/*
 * verify-matrix.h - the cases shmemu-verify runs: the axes (npes, count,
 * dtype, op, in-place, team, transport) and a covering array over them, so
 * that every pair of axis values a valid case can hold is run once, and
 * every triple of the axes that matter most where it is cheap.
 */
#ifndef SHMEMU_VERIFY_MATRIX_H
#define SHMEMU_VERIFY_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "shmemu.h"

#define MAXV 32 /* values per axis */

enum { A_NPES, A_COUNT, A_DTYPE, A_OP, A_INPLACE, A_TEAM, A_TRANSPORT, NAXES };

struct axis {
    int n;
    long long v[MAXV];
};

/* The axes' values, and the per-PE buffer limits (shmemu-verify.c). */
extern struct axis ax[NAXES];
extern size_t max_bytes, max_elems;

struct algo {
    shmemu_coll_t coll;
    const char *name;
    void (*fn)(void);
    unsigned transports; /* bit t: it runs on transport axis value t */
};

typedef int point[NAXES]; /* an index into each axis */

/* Can algorithm al run case p (its transport, op meaningful, in-place
 * allowed, buffers within the limits)? */
int vm_valid(const struct algo *al, const point p);
/* The covering cases of al into *out (malloc'd), *nout of them. */
int vm_covering(const struct algo *al, point **out, int *nout);
/* Add the triples of the axes that matter most to *pts. */
void vm_add_triples(const struct algo *al, point **pts, int *npts);

#endif
