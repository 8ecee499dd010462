/*
 * collectives.c - OpenSHMEM 1.5's collectives that shmemu has no call for:
 * the active-set forms with their pSync arrays, strided alltoall, and the
 * reductions on types shmemu does not reduce (long double, complex),
 * gathered and reduced on each PE.  Built on the public API, so checker
 * mode sees every access they make.
 */
#include <complex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shmem.h"
#include "shmemx.h"
#include "runtime/config.h"
#include "runtime/core.h"
#include "runtime/dispatch.h"

/* ---------------------------------------------- active-set collectives */

/* The active set start, start + 2^log, ... (size members) and where the
 * calling PE is in it (-1: not a member). */
struct aset {
    int start, stride, size, me;
};

static int aset_of(const char *call, int start, int log, int size, const long *pSync,
                   struct aset *a)
{
    int n = shmemu_n_pes(), pe = shmemu_my_pe();
    if (log < 0 || log > 30 || size < 1 || start < 0 ||
        start + (long long)(size - 1) * (1LL << log) >= n)
        return shmemu_error(SHMEMU_EINVAL, call,
                            "active set PE_start %d, logPE_stride %d, PE_size %d does not "
                            "fit the %d PEs",
                            start, log, size, n);
    if (!pSync)
        return shmemu_error(SHMEMU_EINVAL, call, "pSync is NULL");
    a->start = start;
    a->stride = 1 << log;
    a->size = size;
    a->me = (pe - start) % a->stride == 0 && pe >= start ? (pe - start) / a->stride : -1;
    if (a->me < 0 || a->me >= size)
        return shmemu_error(SHMEMU_EINVAL, call,
                            "this PE (%d) is not in the active set PE_start %d, "
                            "logPE_stride %d, PE_size %d",
                            pe, start, log, size);
    return SHMEMU_OK;
}

static int member(const struct aset *a, int i) { return a->start + i * a->stride; }

/* pSync[0] counts arrivals at the first member; pSync[1] releases each
 * other member.  Both are back to SHMEM_SYNC_VALUE on return.  A PE
 * resets its own word with a swap: a non-fetching atomic (set) completes
 * only at the next quiet, and could land after the next call's arrivals
 * (SHMEMU_CHECK=fuzz delays it so, and found it). */
static int aset_barrier(const struct aset *a, long *pSync)
{
    int st = shmemu_quiet();
    if (st || a->size == 1)
        return st;
    int root = member(a, 0), me = member(a, a->me);
    if (a->me == 0) {
        (void)shmemu_long_wait_until(&pSync[0], SHMEMU_CMP_GE, (long)a->size - 1);
        (void)shmemu_long_atomic_swap(&pSync[0], SHMEM_SYNC_VALUE, me);
        for (int i = 1; i < a->size && !shmemu_last_status(); i++)
            (void)shmemu_long_atomic_set(&pSync[1], 1, member(a, i));
    } else {
        (void)shmemu_long_atomic_inc(&pSync[0], root);
        (void)shmemu_long_wait_until(&pSync[1], SHMEMU_CMP_NE, SHMEM_SYNC_VALUE);
        (void)shmemu_long_atomic_swap(&pSync[1], SHMEM_SYNC_VALUE, me);
    }
    return shmemu_last_status();
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct aset a;
    if (aset_of("shmem_barrier", PE_start, logPE_stride, PE_size, pSync, &a) == SHMEMU_OK)
        (void)aset_barrier(&a, pSync);
}

void shmemu_compat_sync_active(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct aset a;
    if (aset_of("shmem_sync", PE_start, logPE_stride, PE_size, pSync, &a) == SHMEMU_OK)
        (void)aset_barrier(&a, pSync);
}

/* nelems elements of esize bytes, or SIZE_MAX (refused with that reason)
 * where the product wraps: 2^62 eight-byte elements must not become 0
 * bytes and a silent success.  The routines here name themselves
 * (SHMEMU_OSH_CALL_AS), as shmem.h's do, so that a report on a call they
 * make names the routine the program called: shmem_alltoall64, not
 * shmemu_ibput. */
static size_t elem_bytes(const char *call, size_t nelems, size_t esize)
{
    if (nelems > SIZE_MAX / esize) {
        (void)shmemu_error(SHMEMU_EINVAL, call,
                           "nelems %zu of %zu-byte elements overflows size_t", nelems, esize);
        return SIZE_MAX;
    }
    return nelems * esize;
}

static void aset_broadcast(const char *call, void *dest, const void *src, size_t bytes,
                           int root, int start, int log, int size, long *pSync)
{
    SHMEMU_OSH_CALL_AS(call);
    struct aset a;
    if (bytes == SIZE_MAX || aset_of(call, start, log, size, pSync, &a) != SHMEMU_OK)
        return;
    if (root < 0 || root >= size) {
        shmemu_error(SHMEMU_EINVAL, call, "PE_root %d is not in the active set (0..%d)", root,
                     size - 1);
        return;
    }
    if (aset_barrier(&a, pSync)) /* every dest is free */
        return;
    if (a.me == root) /* the root's own dest is not written (OpenSHMEM 1.5) */
        for (int i = 0; i < size && !shmemu_last_status(); i++)
            if (i != root)
                (void)shmemu_putmem(dest, src, bytes, member(&a, i));
    (void)aset_barrier(&a, pSync);
}

void shmem_broadcast32(void *dest, const void *src, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync)
{
    aset_broadcast("shmem_broadcast32", dest, src, elem_bytes("shmem_broadcast32", nelems, 4),
                   PE_root, PE_start, logPE_stride, PE_size, pSync);
}

void shmem_broadcast64(void *dest, const void *src, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync)
{
    aset_broadcast("shmem_broadcast64", dest, src, elem_bytes("shmem_broadcast64", nelems, 8),
                   PE_root, PE_start, logPE_stride, PE_size, pSync);
}

static void aset_fcollect(const char *call, void *dest, const void *src, size_t bytes,
                          int start, int log, int size, long *pSync)
{
    SHMEMU_OSH_CALL_AS(call);
    struct aset a;
    if (bytes == SIZE_MAX || aset_of(call, start, log, size, pSync, &a) != SHMEMU_OK ||
        aset_barrier(&a, pSync))
        return;
    for (int i = 0; i < size && !shmemu_last_status(); i++)
        (void)shmemu_putmem((char *)dest + (size_t)a.me * bytes, src, bytes, member(&a, i));
    (void)aset_barrier(&a, pSync);
}

void shmem_fcollect32(void *dest, const void *src, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync)
{
    aset_fcollect("shmem_fcollect32", dest, src, elem_bytes("shmem_fcollect32", nelems, 4),
                  PE_start, logPE_stride, PE_size, pSync);
}

void shmem_fcollect64(void *dest, const void *src, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync)
{
    aset_fcollect("shmem_fcollect64", dest, src, elem_bytes("shmem_fcollect64", nelems, 8),
                  PE_start, logPE_stride, PE_size, pSync);
}

/* Blocks of different sizes: each member learns where its block starts
 * from the one before it (pSync[2] holds that offset + 1), in member
 * order. */
static void aset_collect(const char *call, void *dest, const void *src, size_t bytes,
                         int start, int log, int size, long *pSync)
{
    SHMEMU_OSH_CALL_AS(call);
    struct aset a;
    if (bytes == SIZE_MAX || aset_of(call, start, log, size, pSync, &a) != SHMEMU_OK ||
        aset_barrier(&a, pSync))
        return;
    long off = 0;
    if (a.me > 0) {
        (void)shmemu_long_wait_until(&pSync[2], SHMEMU_CMP_NE, SHMEM_SYNC_VALUE);
        off = shmemu_long_atomic_swap(&pSync[2], SHMEM_SYNC_VALUE, member(&a, a.me)) - 1;
    }
    for (int i = 0; i < size && !shmemu_last_status(); i++)
        (void)shmemu_putmem((char *)dest + off, src, bytes, member(&a, i));
    if (a.me + 1 < size && !shmemu_last_status())
        (void)shmemu_long_atomic_set(&pSync[2], off + (long)bytes + 1, member(&a, a.me + 1));
    (void)aset_barrier(&a, pSync);
}

void shmem_collect32(void *dest, const void *src, size_t nelems, int PE_start,
                     int logPE_stride, int PE_size, long *pSync)
{
    aset_collect("shmem_collect32", dest, src, elem_bytes("shmem_collect32", nelems, 4),
                 PE_start, logPE_stride, PE_size, pSync);
}

void shmem_collect64(void *dest, const void *src, size_t nelems, int PE_start,
                     int logPE_stride, int PE_size, long *pSync)
{
    aset_collect("shmem_collect64", dest, src, elem_bytes("shmem_collect64", nelems, 8),
                 PE_start, logPE_stride, PE_size, pSync);
}

/* Block j of my src (elements at stride sst) goes to member j's dest, at
 * my index (elements at stride dst). */
static void aset_alltoalls(const char *call, void *dest, const void *src, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, size_t esize, int start, int log,
                           int size, long *pSync)
{
    SHMEMU_OSH_CALL_AS(call);
    struct aset a;
    if (aset_of(call, start, log, size, pSync, &a) != SHMEMU_OK || aset_barrier(&a, pSync))
        return;
    for (int j = 0; j < size && !shmemu_last_status(); j++) {
        int i = (a.me + j) % size; /* spread the traffic */
        (void)shmemu_ibput((char *)dest + (ptrdiff_t)a.me * (ptrdiff_t)nelems * dst *
                                              (ptrdiff_t)esize,
                           (const char *)src +
                               (ptrdiff_t)i * (ptrdiff_t)nelems * sst * (ptrdiff_t)esize,
                           dst, sst, 1, nelems, esize, member(&a, i));
    }
    (void)aset_barrier(&a, pSync);
}

void shmem_alltoall32(void *dest, const void *src, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync)
{
    aset_alltoalls("shmem_alltoall32", dest, src, 1, 1, nelems, 4, PE_start, logPE_stride,
                   PE_size, pSync);
}

void shmem_alltoall64(void *dest, const void *src, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync)
{
    aset_alltoalls("shmem_alltoall64", dest, src, 1, 1, nelems, 8, PE_start, logPE_stride,
                   PE_size, pSync);
}

void shmem_alltoalls32(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    aset_alltoalls("shmem_alltoalls32", dest, src, dst, sst, nelems, 4, PE_start,
                   logPE_stride, PE_size, pSync);
}

void shmem_alltoalls64(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    aset_alltoalls("shmem_alltoalls64", dest, src, dst, sst, nelems, 8, PE_start,
                   logPE_stride, PE_size, pSync);
}

int shmemu_compat_alltoalls(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                            ptrdiff_t sst, size_t nelems, size_t esize)
{
    SHMEMU_OSH_CALL_AS("shmem_alltoalls");
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    if (n <= 0 || me < 0)
        return shmemu_error(SHMEMU_EINVAL, "shmem_alltoalls",
                            "team %d is not a team this PE belongs to", team);
    int st = shmemu_quiet();
    if (!st)
        st = shmemu_team_sync(team); /* every dest is free */
    for (int j = 0; j < n && !st; j++) {
        int i = (me + j) % n;
        st = shmemu_ibput((char *)dest + (ptrdiff_t)me * (ptrdiff_t)nelems * dst *
                                             (ptrdiff_t)esize,
                          (const char *)src +
                              (ptrdiff_t)i * (ptrdiff_t)nelems * sst * (ptrdiff_t)esize,
                          dst, sst, 1, nelems, esize,
                          shmemu_team_translate_pe(team, i, SHMEMU_TEAM_WORLD));
    }
    if (!st)
        st = shmemu_quiet();
    return st ? st : shmemu_team_sync(team);
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return shmemu_compat_alltoalls(team, dest, src, dst, sst, nelems, 1);
}

/* ------------------------------------------------- gathered reductions */

/* Every member reads the src of members 0..n-1 (every member for a
 * reduction, a prefix for a scan), in member order (so that each gets the
 * same bits for floating point), and folds it with fold; dest is written
 * after a second sync, since it may be src.  sync(ctx) is the team's or
 * the active set's barrier. */
struct gather {
    int (*sync)(const void *ctx);
    int (*pe_of)(const void *ctx, int i);
    const void *ctx;
    int n; /* members read */
};

static int gather_reduce(const char *call, const struct gather *g, void *dest, const void *src,
                         size_t count, size_t esize,
                         void (*fold)(void *acc, const void *in, size_t count))
{
    SHMEMU_OSH_CALL_AS(call);
    size_t bytes = elem_bytes(call, count, esize);
    if (bytes == SIZE_MAX)
        return shmemu_last_status();
    /* before the scratch: a wrong count is a bad argument, not a lack of memory */
    if (bytes && shmemu_sym_extent(src) < bytes)
        return shmemu_error(SHMEMU_ERANGE, call,
                            "src %p+%zu is not symmetric (not inside one shmem_malloc'd block "
                            "or static variable)",
                            src, bytes);
    if (bytes && shmemu_sym_extent(dest) < bytes)
        return shmemu_error(SHMEMU_ERANGE, call,
                            "dest %p+%zu is not symmetric (not inside one shmem_malloc'd block "
                            "or static variable)",
                            dest, bytes);
    /* zeroed: with no member to read (exscan's first), the result is 0 */
    char *acc = shmemu_scratch_malloc(bytes), *in = shmemu_scratch_malloc(bytes);
    if (acc)
        memset(acc, 0, bytes);
    int st = !acc || !in ? shmemu_error(SHMEMU_ENOMEM, call, "out of memory") : g->sync(g->ctx);
    for (int i = 0; i < g->n && !st && bytes; i++) {
        st = shmemu_getmem(i ? in : acc, src, bytes, g->pe_of(g->ctx, i));
        if (!st && i)
            fold(acc, in, count);
    }
    if (!st)
        st = g->sync(g->ctx); /* every read done before dest (maybe src) changes */
    if (!st && bytes)
        memcpy(dest, acc, bytes);
    shmemu_scratch_free(acc);
    shmemu_scratch_free(in);
    return st;
}

static int team_sync_of(const void *ctx)
{
    int st = shmemu_quiet();
    return st ? st : shmemu_team_sync(*(const shmem_team_t *)ctx);
}

static int team_pe_of(const void *ctx, int i)
{
    return shmemu_team_translate_pe(*(const shmem_team_t *)ctx, i, SHMEMU_TEAM_WORLD);
}

struct aset_ctx {
    struct aset a;
    long *pSync;
};

static int aset_sync_of(const void *ctx)
{
    const struct aset_ctx *c = ctx;
    return aset_barrier(&c->a, c->pSync);
}

static int aset_pe_of(const void *ctx, int i)
{
    return member(&((const struct aset_ctx *)ctx)->a, i);
}

#define FOLD(NAME, TYPE, OPNAME, EXPR)                                         \
    static void fold_##NAME##_##OPNAME(void *acc_, const void *in_, size_t n) \
    {                                                                          \
        TYPE *acc = acc_;                                                      \
        const TYPE *in = in_;                                                  \
        for (size_t i = 0; i < n; i++) {                                       \
            TYPE a = acc[i], b = in[i];                                        \
            acc[i] = (EXPR);                                                   \
        }                                                                      \
    }
#define FOLD_ARITH(NAME, TYPE)                                                 \
    FOLD(NAME, TYPE, sum, a + b)                                               \
    FOLD(NAME, TYPE, prod, a * b)
#define FOLD_ORDER(NAME, TYPE)                                                 \
    FOLD(NAME, TYPE, min, b < a ? b : a)                                       \
    FOLD(NAME, TYPE, max, b > a ? b : a)
#define FOLD_BITS(NAME, TYPE)                                                  \
    FOLD(NAME, TYPE, and, a & b)                                               \
    FOLD(NAME, TYPE, or, a | b)                                                \
    FOLD(NAME, TYPE, xor, a ^ b)

FOLD_ARITH(short, short)
FOLD_ARITH(int, int)
FOLD_ARITH(long, long)
FOLD_ARITH(longlong, long long)
FOLD_ARITH(float, float)
FOLD_ARITH(double, double)
FOLD_ARITH(longdouble, long double)
FOLD_ARITH(complexf, float _Complex)
FOLD_ARITH(complexd, double _Complex)
FOLD_ORDER(short, short)
FOLD_ORDER(int, int)
FOLD_ORDER(long, long)
FOLD_ORDER(longlong, long long)
FOLD_ORDER(float, float)
FOLD_ORDER(double, double)
FOLD_ORDER(longdouble, long double)
FOLD_BITS(short, short)
FOLD_BITS(int, int)
FOLD_BITS(long, long)
FOLD_BITS(longlong, long long)

/* Scans: member me folds the src of members 0..me (0..me-1 for exscan),
 * gathered as the reductions are. */
static int team_scan(const char *call, shmem_team_t team, void *dest, const void *src,
                     size_t count, size_t esize, int exclusive,
                     void (*fold)(void *acc, const void *in, size_t count))
{
    int np = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    if (np <= 0 || me < 0)
        return shmemu_error(SHMEMU_EINVAL, call, "team %d is not a team this PE belongs to",
                            team);
    if (count > SIZE_MAX / esize)
        return shmemu_error(SHMEMU_EINVAL, call, "nelems %zu overflows size_t", count);
    struct gather g = {team_sync_of, team_pe_of, &team, exclusive ? me : me + 1};
    return gather_reduce(call, &g, dest, src, count, esize, fold);
}

/* Integer sums wrap (two's complement), as a hardware add does. */
#define FOLD_WRAP(NAME, TYPE)                                                  \
    static void fold_##NAME##_wsum(void *acc_, const void *in_, size_t n)      \
    {                                                                          \
        TYPE *acc = acc_;                                                      \
        const TYPE *in = in_;                                                  \
        for (size_t i = 0; i < n; i++)                                         \
            acc[i] = (TYPE)((unsigned long long)acc[i] + (unsigned long long)in[i]); \
    }
#define FOLD_PLAIN(NAME, TYPE)                                                 \
    static void fold_##NAME##_wsum(void *acc_, const void *in_, size_t n)      \
    {                                                                          \
        TYPE *acc = acc_;                                                      \
        const TYPE *in = in_;                                                  \
        for (size_t i = 0; i < n; i++)                                         \
            acc[i] += in[i];                                                   \
    }
#define SCAN(NAME, TYPE)                                                       \
    int shmem_##NAME##_sum_inscan(shmem_team_t team, TYPE *dest, const TYPE *src, \
                                  size_t n)                                    \
    {                                                                          \
        return team_scan("shmem_" #NAME "_sum_inscan", team, dest, src, n,     \
                         sizeof(TYPE), 0, fold_##NAME##_wsum);                 \
    }                                                                          \
    int shmem_##NAME##_sum_exscan(shmem_team_t team, TYPE *dest, const TYPE *src, \
                                  size_t n)                                    \
    {                                                                          \
        return team_scan("shmem_" #NAME "_sum_exscan", team, dest, src, n,     \
                         sizeof(TYPE), 1, fold_##NAME##_wsum);                 \
    }
#define SCAN_INT(NAME, TYPE) FOLD_WRAP(NAME, TYPE) SCAN(NAME, TYPE)
#define SCAN_FP(NAME, TYPE) FOLD_PLAIN(NAME, TYPE) SCAN(NAME, TYPE)
SCAN_INT(char, char)
SCAN_INT(schar, signed char)
SCAN_INT(short, short)
SCAN_INT(int, int)
SCAN_INT(long, long)
SCAN_INT(longlong, long long)
SCAN_INT(ptrdiff, ptrdiff_t)
SCAN_INT(uchar, unsigned char)
SCAN_INT(ushort, unsigned short)
SCAN_INT(uint, unsigned int)
SCAN_INT(ulong, unsigned long)
SCAN_INT(ulonglong, unsigned long long)
SCAN_INT(int8, int8_t)
SCAN_INT(int16, int16_t)
SCAN_INT(int32, int32_t)
SCAN_INT(int64, int64_t)
SCAN_INT(uint8, uint8_t)
SCAN_INT(uint16, uint16_t)
SCAN_INT(uint32, uint32_t)
SCAN_INT(uint64, uint64_t)
SCAN_INT(size, size_t)
SCAN_FP(float, float)
SCAN_FP(double, double)
SCAN_FP(longdouble, long double)
SCAN_FP(complexf, float _Complex)
SCAN_FP(complexd, double _Complex)

/* The deprecated active-set reductions: pWrk is not needed here. */
#define TO_ALL(NAME, TYPE, OP)                                                 \
    void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *src, int nreduce, \
                                      int PE_start, int logPE_stride, int PE_size, \
                                      TYPE *pWrk, long *pSync)                 \
    {                                                                          \
        static const char call[] = "shmem_" #NAME "_" #OP "_to_all";           \
        (void)pWrk;                                                            \
        struct aset_ctx c = {.pSync = pSync};                                  \
        if (aset_of(call, PE_start, logPE_stride, PE_size, pSync, &c.a))       \
            return;                                                            \
        if (nreduce < 0) {                                                     \
            shmemu_error(SHMEMU_EINVAL, call, "nreduce %d is negative", nreduce); \
            return;                                                            \
        }                                                                      \
        struct gather g = {aset_sync_of, aset_pe_of, &c, PE_size};             \
        (void)gather_reduce(call, &g, dest, src, (size_t)nreduce, sizeof(TYPE), \
                            fold_##NAME##_##OP);                               \
    }
SHMEMU_COMPAT_TOALL_ALL(TO_ALL)
TO_ALL(complexf, float _Complex, sum)
TO_ALL(complexf, float _Complex, prod)
TO_ALL(complexd, double _Complex, sum)
TO_ALL(complexd, double _Complex, prod)

/* Team reductions of the types shmemu's collectives do not carry. */
#define TEAM_RED(NAME, TYPE, OP)                                               \
    int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *src, \
                                     size_t n)                                 \
    {                                                                          \
        static const char call[] = "shmem_" #NAME "_" #OP "_reduce";           \
        int np = shmemu_team_n_pes(team);                                      \
        if (np <= 0 || shmemu_team_my_pe(team) < 0)                            \
            return shmemu_error(SHMEMU_EINVAL, call,                           \
                                "team %d is not a team this PE belongs to", team); \
        struct gather g = {team_sync_of, team_pe_of, &team, np};               \
        return gather_reduce(call, &g, dest, src, n, sizeof(TYPE), fold_##NAME##_##OP); \
    }
TEAM_RED(longdouble, long double, sum)
TEAM_RED(longdouble, long double, prod)
TEAM_RED(longdouble, long double, min)
TEAM_RED(longdouble, long double, max)
TEAM_RED(complexf, float _Complex, sum)
TEAM_RED(complexf, float _Complex, prod)
TEAM_RED(complexd, double _Complex, sum)
TEAM_RED(complexd, double _Complex, prod)
