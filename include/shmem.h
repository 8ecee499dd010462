/*
 * shmem.h - the OpenSHMEM 1.5 C API over shmemu.
 *
 * Existing OpenSHMEM programs build unmodified (`oshcc prog.c`) and run
 * with `oshrun -np N ./a.out` (PEs as processes on the shm transport), and
 * with everything shmemu adds: checker mode (SHMEMU_CHECK), the verifier,
 * deadlock reports.  The typed calls are inline wrappers of shmemu's own;
 * what shmemu has no call for (active-set collectives with pSync, locks,
 * contexts, strided RMA, long double and complex reductions) lives in
 * src/compat/.  Global and static variables are symmetric: shmem_init asks
 * for it (docs/COMPAT.md says where it holds).
 *
 * Errors follow shmemu's error mode: by default a failing call ends the
 * job with a one-line report naming the PE, the call and the argument.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "shmemu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What this header declares is exported by libshmemu.so (built with
 * -fvisibility=hidden), as shmemu.h's is. */
#pragma GCC visibility push(default)

/* The routines are defined here, inline in the program.  libshmemu also
 * exports each under its own name (src/compat/symbols.c defines this
 * header's routines with SHMEMU_OSH_EXPORT), for programs and tools that
 * find routines by name: dlsym, bindings of other languages.  (A wrapper
 * library that interposes these names sees only the calls made through
 * them, not the inline ones.) */
/* Inlined even at -O0: the library then sees the program's own code as the
 * caller, so a report's call site is the program's line, not a wrapper's.
 *
 * Profiling (docs/COMPAT.md, "Profiling interface"): included through
 * pshmem.h, the routines are GNU extern inline, a body for inlining only,
 * so that a profiling library may define shmem_long_put itself (and call
 * pshmem_long_put).  The program's own calls stay inline: as the
 * specification allows for inlined routines, a profiling library sees the
 * calls made through the symbols only. */
#ifdef SHMEMU_OSH_PROFILING
#define SHMEMU_OSH_INLINE extern __inline__ __attribute__((gnu_inline, always_inline))
#else
#define SHMEMU_OSH_INLINE static __inline__ __attribute__((always_inline))
#endif
#ifdef SHMEMU_OSH_EXPORT
#define SHMEMU_OSH_FN
#else
#define SHMEMU_OSH_FN SHMEMU_OSH_INLINE
#endif

/* Each routine names itself for the duration of its call into shmemu, so a
 * report (a bad argument, a deadlock, a race) names the routine the program
 * called, shmem_long_put, not the shmemu call it wraps.  The outermost
 * name wins: shmem_long_put stays the name while it calls shmem_ctx_long_put. */
#if defined(__cplusplus) && __cplusplus >= 201103L
extern thread_local const char *shmemu_compat_call;
#elif defined(__cplusplus) || !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
extern __thread const char *shmemu_compat_call; /* C++98, C99 and older: GNU's */
#else
extern _Thread_local const char *shmemu_compat_call;
#endif
SHMEMU_OSH_INLINE void shmemu_compat_call_end(const char **outer) { shmemu_compat_call = *outer; }
#define SHMEMU_OSH_CALL_AS(name)                                               \
    const char *shmemu_outer_call_                                             \
        __attribute__((cleanup(shmemu_compat_call_end), unused)) = shmemu_compat_call; \
    shmemu_compat_call = shmemu_outer_call_ ? shmemu_outer_call_ : (name)
#define SHMEMU_OSH_CALL SHMEMU_OSH_CALL_AS(__func__)

/* ----------------------------------------------------------- constants */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "shmemu " SHMEMU_VERSION_STRING
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

enum {
    SHMEM_THREAD_SINGLE = SHMEMU_THREAD_SINGLE,
    SHMEM_THREAD_FUNNELED = SHMEMU_THREAD_FUNNELED,
    SHMEM_THREAD_SERIALIZED = SHMEMU_THREAD_SERIALIZED,
    SHMEM_THREAD_MULTIPLE = SHMEMU_THREAD_MULTIPLE
};

#define SHMEM_CMP_EQ SHMEMU_CMP_EQ
#define SHMEM_CMP_NE SHMEMU_CMP_NE
#define SHMEM_CMP_GT SHMEMU_CMP_GT
#define SHMEM_CMP_GE SHMEMU_CMP_GE
#define SHMEM_CMP_LT SHMEMU_CMP_LT
#define SHMEM_CMP_LE SHMEMU_CMP_LE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
/* The comparisons' type, as SOS and OSSS name it (the API takes int). */
typedef int shmem_cmp_t;

#define SHMEM_SIGNAL_SET SHMEMU_SIGNAL_SET
#define SHMEM_SIGNAL_ADD SHMEMU_SIGNAL_ADD

/* Work arrays of the active-set collectives.  Generous: the algorithms
 * behind them use the first few words. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE 8
#define SHMEM_BCAST_SYNC_SIZE 8
#define SHMEM_REDUCE_SYNC_SIZE 8
#define SHMEM_COLLECT_SYNC_SIZE 8
#define SHMEM_ALLTOALL_SYNC_SIZE 8
#define SHMEM_ALLTOALLS_SYNC_SIZE 8
#define SHMEM_SYNC_SIZE 8
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* ------------------------------------------------------ teams, contexts */

typedef shmemu_team_t shmem_team_t;
typedef shmemu_team_config_t shmem_team_config_t;
#define SHMEM_TEAM_WORLD SHMEMU_TEAM_WORLD
#define SHMEM_TEAM_SHARED SHMEMU_TEAM_SHARED
#define SHMEM_TEAM_INVALID SHMEMU_TEAM_INVALID
#define SHMEM_TEAM_NUM_CONTEXTS SHMEMU_TEAM_NUM_CONTEXTS

/* A context orders and completes the operations issued on it: one of
 * shmemu's contexts (shmemu_ctx_t), and the team whose numbering its PE
 * arguments use.  Outside checker mode every context shares one stream
 * per PE (a quiet on one completes all: stronger than required); checker
 * mode completes each context's operations apart. */
struct shmemu_compat_ctx {
    long options;
    shmem_team_t team;
    shmemu_ctx_t id;
};
typedef struct shmemu_compat_ctx *shmem_ctx_t;
extern struct shmemu_compat_ctx shmemu_compat_ctx_default;
#define SHMEM_CTX_DEFAULT (&shmemu_compat_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

int shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---------------------------------------------------- library handling */

void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
/* Profiling control: no profiling library to steer, accepted and ignored. */
void shmem_pcontrol(const int level, ...);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
void start_pes(int npes);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* Queries that cannot fail name nothing: they are called in hot loops. */
SHMEMU_OSH_FN int shmem_my_pe(void) { return shmemu_my_pe(); }
SHMEMU_OSH_FN int shmem_n_pes(void) { return shmemu_n_pes(); }
SHMEMU_OSH_FN int _my_pe(void) { return shmemu_my_pe(); }
SHMEMU_OSH_FN int _num_pes(void) { return shmemu_n_pes(); }
SHMEMU_OSH_FN int shmem_pe_accessible(int pe)
{
    return pe >= 0 && pe < shmemu_n_pes();
}
SHMEMU_OSH_FN int shmem_addr_accessible(const void *addr, int pe)
{
    SHMEMU_OSH_CALL;
    return shmemu_addr_accessible(addr, pe);
}
SHMEMU_OSH_FN void *shmem_ptr(const void *dest, int pe)
{
    SHMEMU_OSH_CALL;
    return shmemu_ptr(dest, pe);
}
/* OpenSHMEM 1.6: shmem_ptr with pe numbered in team. */
SHMEMU_OSH_FN void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    SHMEMU_OSH_CALL;
    int w = shmemu_team_translate_pe(team, pe, SHMEMU_TEAM_WORLD);
    return w < 0 ? NULL : shmemu_ptr(dest, w);
}

/* ---------------------------------------------------- memory management */

SHMEMU_OSH_FN void *shmem_malloc(size_t size)
{
    SHMEMU_OSH_CALL;
    return shmemu_malloc(size);
}
SHMEMU_OSH_FN void *shmem_calloc(size_t count, size_t size)
{
    SHMEMU_OSH_CALL;
    return shmemu_calloc(count, size);
}
SHMEMU_OSH_FN void *shmem_align(size_t alignment, size_t size)
{
    SHMEMU_OSH_CALL;
    return shmemu_align(alignment, size);
}
SHMEMU_OSH_FN void *shmem_realloc(void *ptr, size_t size)
{
    SHMEMU_OSH_CALL;
    return shmemu_realloc(ptr, size);
}
SHMEMU_OSH_FN void shmem_free(void *ptr)
{
    SHMEMU_OSH_CALL;
    shmemu_free(ptr);
}
SHMEMU_OSH_FN void *shmem_malloc_with_hints(size_t size, long hints)
{
    SHMEMU_OSH_CALL;
    (void)hints; /* every heap word takes remote atomics and signals */
    return shmemu_malloc(size);
}
SHMEMU_OSH_FN void *shmalloc(size_t size)
{
    SHMEMU_OSH_CALL;
    return shmemu_malloc(size);
}
SHMEMU_OSH_FN void shfree(void *ptr)
{
    SHMEMU_OSH_CALL;
    shmemu_free(ptr);
}
SHMEMU_OSH_FN void *shrealloc(void *ptr, size_t size)
{
    SHMEMU_OSH_CALL;
    return shmemu_realloc(ptr, size);
}
SHMEMU_OSH_FN void *shmemalign(size_t alignment, size_t size)
{
    SHMEMU_OSH_CALL;
    return shmemu_align(alignment, size);
}

/* Deprecated cache management: coherent here, nothing to do. */
SHMEMU_OSH_FN void shmem_clear_cache_inv(void) {}
SHMEMU_OSH_FN void shmem_set_cache_inv(void) {}
SHMEMU_OSH_FN void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
SHMEMU_OSH_FN void shmem_set_cache_line_inv(void *dest) { (void)dest; }
SHMEMU_OSH_FN void shmem_udcflush(void) {}
SHMEMU_OSH_FN void shmem_udcflush_line(void *dest) { (void)dest; }

/* ------------------------------------------------------ order and sync */

/* A context-qualified call runs on its context with its PE argument in
 * world numbering; the default context costs one comparison.  The scope's
 * end puts the thread's context back (cleanup: after a return's value). */
int shmemu_compat_ctx_enter(shmem_ctx_t ctx, int *pe);
/* 0 if ctx is a live context (or the default), else -1 after reporting a
 * handle that is none (never created, destroyed, SHMEM_CTX_INVALID). */
int shmemu_compat_ctx_check(shmem_ctx_t ctx);
SHMEMU_OSH_INLINE int shmemu_compat_ctx_begin(shmem_ctx_t ctx, int *pe)
{
    return ctx == SHMEM_CTX_DEFAULT ? -1 : shmemu_compat_ctx_enter(ctx, pe);
}
SHMEMU_OSH_INLINE void shmemu_compat_ctx_end(int *prev)
{
    if (*prev >= 0)
        (void)shmemu_ctx_select(*prev);
}
/* n elements of size bytes, saturated: a count whose bytes overflow size_t
 * then fails the range check instead of wrapping to a small transfer. */
SHMEMU_OSH_INLINE size_t shmemu_compat_bytes(size_t n, size_t size)
{
    return n > SIZE_MAX / size ? SIZE_MAX : n * size;
}
#define SHMEMU_COMPAT_ON_CTX(ctx, pe)                                          \
    int shmemu_prev_ctx_ __attribute__((cleanup(shmemu_compat_ctx_end), unused)) = \
        shmemu_compat_ctx_begin(ctx, &(pe))

SHMEMU_OSH_FN void shmem_quiet(void)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_quiet();
}
SHMEMU_OSH_FN void shmem_fence(void)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_fence();
}
/* On SHMEM_CTX_INVALID, a quiet or fence has nothing to complete or
 * order: a no-op, as in SOS, and as the specification's own example of
 * shmem_team_create_ctx expects of a PE outside the team. */
SHMEMU_OSH_FN void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    SHMEMU_OSH_CALL;
    if (ctx == SHMEM_CTX_DEFAULT)
        (void)shmemu_quiet();
    else if (ctx != SHMEM_CTX_INVALID && shmemu_compat_ctx_check(ctx) == 0)
        (void)shmemu_ctx_quiet(ctx->id);
}
SHMEMU_OSH_FN void shmem_ctx_fence(shmem_ctx_t ctx)
{
    SHMEMU_OSH_CALL;
    if (ctx == SHMEM_CTX_DEFAULT)
        (void)shmemu_fence();
    else if (ctx != SHMEM_CTX_INVALID && shmemu_compat_ctx_check(ctx) == 0)
        (void)shmemu_ctx_fence(ctx->id);
}
/* OpenSHMEM 1.6: complete the operations to the PEs listed (numbered in the
 * context's team).  Performed as a quiet of the whole context: stronger
 * than required. */
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);
SHMEMU_OSH_FN void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    SHMEMU_OSH_CALL;
    shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes);
}
/* OpenSHMEM 1.6 sessions: hints that a batch of operations follows.  Every
 * operation already goes out as it is issued, so there is nothing to tune;
 * accepted and ignored (a session changes no completion rule). */
typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
SHMEMU_OSH_FN void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                                           const shmem_ctx_session_config_t *config,
                                           long config_mask)
{
    (void)ctx, (void)options, (void)config, (void)config_mask;
}
SHMEMU_OSH_FN void shmem_ctx_session_stop(shmem_ctx_t ctx) { (void)ctx; }
SHMEMU_OSH_FN void shmem_barrier_all(void)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_barrier_all();
}
SHMEMU_OSH_FN void shmem_sync_all(void)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_sync_all();
}
SHMEMU_OSH_FN int shmem_team_sync(shmem_team_t team)
{
    SHMEMU_OSH_CALL;
    return shmemu_team_sync(team);
}
/* Active-set forms (deprecated in 1.5, still everywhere). */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmemu_compat_sync_active(int PE_start, int logPE_stride, int PE_size, long *pSync);
/* shmem_sync(team) and the active-set shmem_sync(start, log, size, pSync) */
#define SHMEMU_COMPAT_PICK4(a, b, c, d, NAME, ...) NAME
#define shmem_sync(...)                                                        \
    SHMEMU_COMPAT_PICK4(__VA_ARGS__, shmemu_compat_sync_active, shmemu_compat_bad_arity, \
                        shmemu_compat_bad_arity, shmem_team_sync, )(__VA_ARGS__)

/* ------------------------------------------------------------------ teams */

SHMEMU_OSH_FN int shmem_team_my_pe(shmem_team_t team)
{
    SHMEMU_OSH_CALL;
    return shmemu_team_my_pe(team);
}
SHMEMU_OSH_FN int shmem_team_n_pes(shmem_team_t team)
{
    SHMEMU_OSH_CALL;
    return shmemu_team_n_pes(team);
}
SHMEMU_OSH_FN int shmem_team_translate_pe(shmem_team_t src, int pe, shmem_team_t dest)
{
    SHMEMU_OSH_CALL;
    return shmemu_team_translate_pe(src, pe, dest);
}
/* Where OpenSHMEM 1.5 defines a failure as a returned status (an invalid
 * triplet, no team left, SHMEM_TEAM_INVALID), these return it and the job
 * goes on; shmemu's own calls report and, by default, end the job. */
int shmem_team_get_config(shmem_team_t team, long mask, shmem_team_config_t *c);
int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t *xc,
                        long xmask, shmem_team_t *xteam, const shmem_team_config_t *yc,
                        long ymask, shmem_team_t *yteam);
SHMEMU_OSH_FN void shmem_team_destroy(shmem_team_t team)
{
    SHMEMU_OSH_CALL;
    shmemu_team_destroy(team);
}

/* -------------------------------------------------------------------- RMA */

/* X(NAME, TYPE): OpenSHMEM's standard RMA types, long double included. */
#define SHMEMU_COMPAT_RMA_TYPES(X)                                             \
    SHMEMU_RMA_TYPES(X)                                                        \
    X(longdouble, long double)

/* One element by value: through shmemu's _g where the width has one, so
 * that a loop polling a flag with shmem_TYPE_g counts as polling (livelock
 * detection, the checker's progress). */
SHMEMU_OSH_INLINE void shmemu_compat_g(void *v, const void *src, size_t size, int pe)
{
    if (size == 1) {
        uint8_t b = shmemu_uint8_g((const uint8_t *)src, pe);
        __builtin_memcpy(v, &b, 1);
    } else if (size == 2) {
        uint16_t b = shmemu_uint16_g((const uint16_t *)src, pe);
        __builtin_memcpy(v, &b, 2);
    } else if (size == 4) {
        uint32_t b = shmemu_uint32_g((const uint32_t *)src, pe);
        __builtin_memcpy(v, &b, 4);
    } else if (size == 8) {
        uint64_t b = shmemu_uint64_g((const uint64_t *)src, pe);
        __builtin_memcpy(v, &b, 8);
    } else {
        (void)shmemu_getmem(v, src, size, pe);
    }
}

#define SHMEMU_COMPAT_RMA(NAME, TYPE)                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest,     \
                                              const TYPE *src, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_putmem(dest, src, shmemu_compat_bytes(n, sizeof(TYPE)), pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest,     \
                                              const TYPE *src, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_getmem(dest, src, shmemu_compat_bytes(n, sizeof(TYPE)), pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, \
                                                  const TYPE *src, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_putmem_nbi(dest, src, shmemu_compat_bytes(n, sizeof(TYPE)), pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, \
                                                  const TYPE *src, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_getmem_nbi(dest, src, shmemu_compat_bytes(n, sizeof(TYPE)), pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE v, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_putmem(dest, &v, sizeof(TYPE), pe);                       \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *src, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        TYPE v = 0;                                                            \
        shmemu_compat_g(&v, src, sizeof(TYPE), pe);                            \
        return v;                                                              \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest,    \
                                               const TYPE *src, ptrdiff_t dst, \
                                               ptrdiff_t sst, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_ibput(dest, src, dst, sst, 1, n, sizeof(TYPE), pe);       \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest,    \
                                               const TYPE *src, ptrdiff_t dst, \
                                               ptrdiff_t sst, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_ibget(dest, src, dst, sst, 1, n, sizeof(TYPE), pe);       \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_ibput(shmem_ctx_t ctx, TYPE *dest,   \
                                                const TYPE *src, ptrdiff_t dst, \
                                                ptrdiff_t sst, size_t bsize,   \
                                                size_t nblocks, int pe)        \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_ibput(dest, src, dst, sst, bsize, nblocks, sizeof(TYPE), pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_ibget(shmem_ctx_t ctx, TYPE *dest,   \
                                                const TYPE *src, ptrdiff_t dst, \
                                                ptrdiff_t sst, size_t bsize,   \
                                                size_t nblocks, int pe)        \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_ibget(dest, src, dst, sst, bsize, nblocks, sizeof(TYPE), pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_put(TYPE *d, const TYPE *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_##NAME##_put(SHMEM_CTX_DEFAULT, d, s, n, pe);                \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_get(TYPE *d, const TYPE *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_##NAME##_get(SHMEM_CTX_DEFAULT, d, s, n, pe);                \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_put_nbi(TYPE *d, const TYPE *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_##NAME##_put_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);            \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_get_nbi(TYPE *d, const TYPE *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_##NAME##_get_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);            \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_p(TYPE *d, TYPE v, int pe)               \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_##NAME##_p(SHMEM_CTX_DEFAULT, d, v, pe);                     \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_g(const TYPE *s, int pe)                 \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmem_ctx_##NAME##_g(SHMEM_CTX_DEFAULT, s, pe);                 \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_iput(TYPE *d, const TYPE *s, ptrdiff_t dst, \
                                           ptrdiff_t sst, size_t n, int pe)    \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_##NAME##_iput(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);     \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_iget(TYPE *d, const TYPE *s, ptrdiff_t dst, \
                                           ptrdiff_t sst, size_t n, int pe)    \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_##NAME##_iget(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);     \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_ibput(TYPE *d, const TYPE *s, ptrdiff_t dst, \
                                            ptrdiff_t sst, size_t bsize,       \
                                            size_t nblocks, int pe)            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_##NAME##_ibput(SHMEM_CTX_DEFAULT, d, s, dst, sst, bsize, nblocks, pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_ibget(TYPE *d, const TYPE *s, ptrdiff_t dst, \
                                            ptrdiff_t sst, size_t bsize,       \
                                            size_t nblocks, int pe)            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_##NAME##_ibget(SHMEM_CTX_DEFAULT, d, s, dst, sst, bsize, nblocks, pe); \
    }

SHMEMU_COMPAT_RMA_TYPES(SHMEMU_COMPAT_RMA)

/* Sized forms: putSIZE/getSIZE move SIZE-bit elements; putmem/getmem bytes. */
#define SHMEMU_COMPAT_SIZED(BITS)                                              \
    SHMEMU_OSH_FN void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *d, const void *s, \
                                           size_t n, int pe)                   \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_putmem(d, s, shmemu_compat_bytes(n, BITS / 8), pe);       \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *d, const void *s, \
                                           size_t n, int pe)                   \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_getmem(d, s, shmemu_compat_bytes(n, BITS / 8), pe);       \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *d,     \
                                                 const void *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_putmem_nbi(d, s, shmemu_compat_bytes(n, BITS / 8), pe);   \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *d,     \
                                                 const void *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_getmem_nbi(d, s, shmemu_compat_bytes(n, BITS / 8), pe);   \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *d, const void *s, \
                                            ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                            int pe)                            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_ibput(d, s, dst, sst, 1, n, BITS / 8, pe);                \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *d, const void *s, \
                                            ptrdiff_t dst, ptrdiff_t sst, size_t n, \
                                            int pe)                            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_ibget(d, s, dst, sst, 1, n, BITS / 8, pe);                \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_ibput##BITS(shmem_ctx_t ctx, void *d, const void *s, \
                                             ptrdiff_t dst, ptrdiff_t sst,     \
                                             size_t bsize, size_t nblocks, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_ibput(d, s, dst, sst, bsize, nblocks, BITS / 8, pe);      \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_ibget##BITS(shmem_ctx_t ctx, void *d, const void *s, \
                                             ptrdiff_t dst, ptrdiff_t sst,     \
                                             size_t bsize, size_t nblocks, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_ibget(d, s, dst, sst, bsize, nblocks, BITS / 8, pe);      \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ibput##BITS(void *d, const void *s, ptrdiff_t dst, \
                                         ptrdiff_t sst, size_t bsize, size_t nblocks, \
                                         int pe)                               \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_ibput##BITS(SHMEM_CTX_DEFAULT, d, s, dst, sst, bsize, nblocks, pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ibget##BITS(void *d, const void *s, ptrdiff_t dst, \
                                         ptrdiff_t sst, size_t bsize, size_t nblocks, \
                                         int pe)                               \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_ibget##BITS(SHMEM_CTX_DEFAULT, d, s, dst, sst, bsize, nblocks, pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_put##BITS(void *d, const void *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_put##BITS(SHMEM_CTX_DEFAULT, d, s, n, pe);                   \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_get##BITS(void *d, const void *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_get##BITS(SHMEM_CTX_DEFAULT, d, s, n, pe);                   \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_put##BITS##_nbi(void *d, const void *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_put##BITS##_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);             \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_get##BITS##_nbi(void *d, const void *s, size_t n, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_get##BITS##_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);             \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_iput##BITS(void *d, const void *s, ptrdiff_t dst, \
                                        ptrdiff_t sst, size_t n, int pe)       \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_iput##BITS(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);        \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_iget##BITS(void *d, const void *s, ptrdiff_t dst, \
                                        ptrdiff_t sst, size_t n, int pe)       \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        shmem_ctx_iget##BITS(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);        \
    }
SHMEMU_COMPAT_SIZED(8)
SHMEMU_COMPAT_SIZED(16)
SHMEMU_COMPAT_SIZED(32)
SHMEMU_COMPAT_SIZED(64)
SHMEMU_COMPAT_SIZED(128)

SHMEMU_OSH_FN void shmem_ctx_putmem(shmem_ctx_t ctx, void *d, const void *s, size_t n, int pe)
{
    SHMEMU_OSH_CALL;
    SHMEMU_COMPAT_ON_CTX(ctx, pe);
    (void)shmemu_putmem(d, s, n, pe);
}
SHMEMU_OSH_FN void shmem_ctx_getmem(shmem_ctx_t ctx, void *d, const void *s, size_t n, int pe)
{
    SHMEMU_OSH_CALL;
    SHMEMU_COMPAT_ON_CTX(ctx, pe);
    (void)shmemu_getmem(d, s, n, pe);
}
SHMEMU_OSH_FN void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *d, const void *s, size_t n,
                                        int pe)
{
    SHMEMU_OSH_CALL;
    SHMEMU_COMPAT_ON_CTX(ctx, pe);
    (void)shmemu_putmem_nbi(d, s, n, pe);
}
SHMEMU_OSH_FN void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *d, const void *s, size_t n,
                                        int pe)
{
    SHMEMU_OSH_CALL;
    SHMEMU_COMPAT_ON_CTX(ctx, pe);
    (void)shmemu_getmem_nbi(d, s, n, pe);
}
SHMEMU_OSH_FN void shmem_putmem(void *d, const void *s, size_t n, int pe)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_putmem(d, s, n, pe);
}
SHMEMU_OSH_FN void shmem_getmem(void *d, const void *s, size_t n, int pe)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_getmem(d, s, n, pe);
}
SHMEMU_OSH_FN void shmem_putmem_nbi(void *d, const void *s, size_t n, int pe)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_putmem_nbi(d, s, n, pe);
}
SHMEMU_OSH_FN void shmem_getmem_nbi(void *d, const void *s, size_t n, int pe)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_getmem_nbi(d, s, n, pe);
}

/* ---------------------------------------------------------------- signals */

SHMEMU_OSH_FN void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *d, const void *s, size_t n,
                                           uint64_t *sig, uint64_t v, int op, int pe)
{
    SHMEMU_OSH_CALL;
    SHMEMU_COMPAT_ON_CTX(ctx, pe);
    (void)shmemu_putmem_signal(d, s, n, sig, v, op, pe);
}
SHMEMU_OSH_FN void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *d, const void *s,
                                               size_t n, uint64_t *sig, uint64_t v, int op,
                                               int pe)
{
    SHMEMU_OSH_CALL;
    SHMEMU_COMPAT_ON_CTX(ctx, pe);
    (void)shmemu_putmem_signal_nbi(d, s, n, sig, v, op, pe);
}
SHMEMU_OSH_FN void shmem_putmem_signal(void *d, const void *s, size_t n, uint64_t *sig,
                                       uint64_t v, int op, int pe)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_putmem_signal(d, s, n, sig, v, op, pe);
}
SHMEMU_OSH_FN void shmem_putmem_signal_nbi(void *d, const void *s, size_t n, uint64_t *sig,
                                           uint64_t v, int op, int pe)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_putmem_signal_nbi(d, s, n, sig, v, op, pe);
}
#define SHMEMU_COMPAT_SIG(NAME, TYPE)                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *d, \
                                                     const TYPE *s, size_t n,  \
                                                     uint64_t *sig, uint64_t v, \
                                                     int op, int pe)           \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_putmem_signal(d, s, shmemu_compat_bytes(n, sizeof(TYPE)), sig, v, op, pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_put_signal_nbi(                      \
        shmem_ctx_t ctx, TYPE *d, const TYPE *s, size_t n, uint64_t *sig,      \
        uint64_t v, int op, int pe)                                            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_putmem_signal_nbi(d, s, shmemu_compat_bytes(n, sizeof(TYPE)), sig, v,  \
                                       op, pe);                                \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_put_signal(TYPE *d, const TYPE *s, size_t n, \
                                                 uint64_t *sig, uint64_t v, int op, \
                                                 int pe)                       \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_putmem_signal(d, s, shmemu_compat_bytes(n, sizeof(TYPE)), sig, v, op, pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_put_signal_nbi(TYPE *d, const TYPE *s,   \
                                                     size_t n, uint64_t *sig,  \
                                                     uint64_t v, int op, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_putmem_signal_nbi(d, s, shmemu_compat_bytes(n, sizeof(TYPE)), sig, v,  \
                                       op, pe);                                \
    }
SHMEMU_COMPAT_RMA_TYPES(SHMEMU_COMPAT_SIG)

/* Sized forms: putSIZE_signal moves SIZE-bit elements. */
#define SHMEMU_COMPAT_SIG_SIZED(BITS)                                          \
    SHMEMU_OSH_FN void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *d,  \
                                                    const void *s, size_t n,   \
                                                    uint64_t *sig, uint64_t v, \
                                                    int op, int pe)            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_putmem_signal(d, s, shmemu_compat_bytes(n, BITS / 8), sig, v, op, pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_put##BITS##_signal_nbi(                       \
        shmem_ctx_t ctx, void *d, const void *s, size_t n, uint64_t *sig,      \
        uint64_t v, int op, int pe)                                            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_putmem_signal_nbi(d, s, shmemu_compat_bytes(n, BITS / 8), sig, v, op, pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_put##BITS##_signal(void *d, const void *s,        \
                                                size_t n, uint64_t *sig,       \
                                                uint64_t v, int op, int pe)    \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_putmem_signal(d, s, shmemu_compat_bytes(n, BITS / 8), sig, v, op, pe); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_put##BITS##_signal_nbi(void *d, const void *s,    \
                                                    size_t n, uint64_t *sig,   \
                                                    uint64_t v, int op, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_putmem_signal_nbi(d, s, shmemu_compat_bytes(n, BITS / 8), sig, v, op, pe); \
    }
SHMEMU_COMPAT_SIG_SIZED(8)
SHMEMU_COMPAT_SIG_SIZED(16)
SHMEMU_COMPAT_SIG_SIZED(32)
SHMEMU_COMPAT_SIG_SIZED(64)
SHMEMU_COMPAT_SIG_SIZED(128)

SHMEMU_OSH_FN uint64_t shmem_signal_fetch(const uint64_t *sig)
{
    SHMEMU_OSH_CALL;
    return shmemu_signal_fetch(sig);
}
SHMEMU_OSH_FN uint64_t shmem_signal_wait_until(uint64_t *sig, int cmp, uint64_t v)
{
    SHMEMU_OSH_CALL;
    return shmemu_signal_wait_until(sig, cmp, v);
}
/* OpenSHMEM 1.6: a signal update with no data (no order with earlier puts). */
SHMEMU_OSH_FN void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig, uint64_t v, int pe)
{
    SHMEMU_OSH_CALL;
    SHMEMU_COMPAT_ON_CTX(ctx, pe);
    (void)shmemu_signal_set(sig, v, pe);
}
SHMEMU_OSH_FN void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig, uint64_t v, int pe)
{
    SHMEMU_OSH_CALL;
    SHMEMU_COMPAT_ON_CTX(ctx, pe);
    (void)shmemu_signal_add(sig, v, pe);
}
SHMEMU_OSH_FN void shmem_signal_set(uint64_t *sig, uint64_t v, int pe)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_signal_set(sig, v, pe);
}
SHMEMU_OSH_FN void shmem_signal_add(uint64_t *sig, uint64_t v, int pe)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_signal_add(sig, v, pe);
}

/* ---------------------------------------------------------------- atomics */

#define SHMEMU_COMPAT_AMO_EXT(NAME, TYPE)                                      \
    SHMEMU_OSH_FN TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *s, \
                                                       int pe)                 \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        return shmemu_##NAME##_atomic_fetch(s, pe);                            \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *d, TYPE v, \
                                                     int pe)                   \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_##NAME##_atomic_set(d, v, pe);                            \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *d, TYPE v, \
                                                      int pe)                  \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        return shmemu_##NAME##_atomic_swap(d, v, pe);                          \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *f, \
                                                           const TYPE *s, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmem_ctx_##NAME##_atomic_fetch(ctx, s, pe);                      \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *f, \
                                                          TYPE *d, TYPE v, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmem_ctx_##NAME##_atomic_swap(ctx, d, v, pe);                    \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_atomic_fetch(const TYPE *s, int pe)      \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_fetch(s, pe);                            \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_set(TYPE *d, TYPE v, int pe)      \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_atomic_set(d, v, pe);                            \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_atomic_swap(TYPE *d, TYPE v, int pe)     \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_swap(d, v, pe);                          \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_fetch_nbi(TYPE *f, const TYPE *s, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmemu_##NAME##_atomic_fetch(s, pe);                              \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_swap_nbi(TYPE *f, TYPE *d, TYPE v, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmemu_##NAME##_atomic_swap(d, v, pe);                            \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_fetch(const TYPE *s, int pe)             \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_fetch(s, pe);                            \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_set(TYPE *d, TYPE v, int pe)             \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_atomic_set(d, v, pe);                            \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_swap(TYPE *d, TYPE v, int pe)            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_swap(d, v, pe);                          \
    }

#define SHMEMU_COMPAT_AMO(NAME, TYPE)                                          \
    SHMEMU_OSH_FN TYPE shmem_ctx_##NAME##_atomic_compare_swap(                 \
        shmem_ctx_t ctx, TYPE *d, TYPE c, TYPE v, int pe)                      \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        return shmemu_##NAME##_atomic_compare_swap(d, c, v, pe);               \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *d, \
                                                           int pe)             \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        return shmemu_##NAME##_atomic_fetch_inc(d, pe);                        \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *d, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_##NAME##_atomic_inc(d, pe);                               \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *d, \
                                                           TYPE v, int pe)     \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        return shmemu_##NAME##_atomic_fetch_add(d, v, pe);                     \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE *d, TYPE v, \
                                                     int pe)                   \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_##NAME##_atomic_add(d, v, pe);                            \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_compare_swap_nbi(             \
        shmem_ctx_t ctx, TYPE *f, TYPE *d, TYPE c, TYPE v, int pe)             \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmem_ctx_##NAME##_atomic_compare_swap(ctx, d, c, v, pe);         \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *f, \
                                                               TYPE *d, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmem_ctx_##NAME##_atomic_fetch_inc(ctx, d, pe);                  \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_fetch_add_nbi(                \
        shmem_ctx_t ctx, TYPE *f, TYPE *d, TYPE v, int pe)                     \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmem_ctx_##NAME##_atomic_fetch_add(ctx, d, v, pe);               \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_atomic_compare_swap(TYPE *d, TYPE c, TYPE v, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_compare_swap(d, c, v, pe);               \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *d, int pe)        \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_fetch_inc(d, pe);                        \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_inc(TYPE *d, int pe)              \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_atomic_inc(d, pe);                               \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_atomic_fetch_add(TYPE *d, TYPE v, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_fetch_add(d, v, pe);                     \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_add(TYPE *d, TYPE v, int pe)      \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_atomic_add(d, v, pe);                            \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *f, TYPE *d, TYPE c, \
                                                              TYPE v, int pe)  \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmemu_##NAME##_atomic_compare_swap(d, c, v, pe);                 \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *f, TYPE *d, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmemu_##NAME##_atomic_fetch_inc(d, pe);                          \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *f, TYPE *d, TYPE v, \
                                                           int pe)             \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmemu_##NAME##_atomic_fetch_add(d, v, pe);                       \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_cswap(TYPE *d, TYPE c, TYPE v, int pe)   \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_compare_swap(d, c, v, pe);               \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_finc(TYPE *d, int pe)                    \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_fetch_inc(d, pe);                        \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_inc(TYPE *d, int pe)                     \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_atomic_inc(d, pe);                               \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_fadd(TYPE *d, TYPE v, int pe)            \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_fetch_add(d, v, pe);                     \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_add(TYPE *d, TYPE v, int pe)             \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_atomic_add(d, v, pe);                            \
    }

#define SHMEMU_COMPAT_AMO_BIT1(NAME, TYPE, OP)                                 \
    SHMEMU_OSH_FN TYPE shmem_ctx_##NAME##_atomic_fetch_##OP(shmem_ctx_t ctx, TYPE *d, \
                                                            TYPE v, int pe)    \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        return shmemu_##NAME##_atomic_fetch_##OP(d, v, pe);                    \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE *d, TYPE v, \
                                                      int pe)                  \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        (void)shmemu_##NAME##_atomic_##OP(d, v, pe);                           \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(             \
        shmem_ctx_t ctx, TYPE *f, TYPE *d, TYPE v, int pe)                     \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        SHMEMU_COMPAT_ON_CTX(ctx, pe);                                         \
        *f = shmemu_##NAME##_atomic_fetch_##OP(d, v, pe);                      \
    }                                                                          \
    SHMEMU_OSH_FN TYPE shmem_##NAME##_atomic_fetch_##OP(TYPE *d, TYPE v, int pe) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_atomic_fetch_##OP(d, v, pe);                    \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_##OP(TYPE *d, TYPE v, int pe)     \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_atomic_##OP(d, v, pe);                           \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE *f, TYPE *d, TYPE v, \
                                                              int pe)          \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        *f = shmemu_##NAME##_atomic_fetch_##OP(d, v, pe);                      \
    }
#define SHMEMU_COMPAT_AMO_BIT(NAME, TYPE)                                      \
    SHMEMU_COMPAT_AMO_BIT1(NAME, TYPE, and)                                    \
    SHMEMU_COMPAT_AMO_BIT1(NAME, TYPE, or)                                     \
    SHMEMU_COMPAT_AMO_BIT1(NAME, TYPE, xor)

SHMEMU_AMO_EXT_TYPES(SHMEMU_COMPAT_AMO_EXT)
SHMEMU_AMO_TYPES(SHMEMU_COMPAT_AMO)
SHMEMU_AMO_BIT_TYPES(SHMEMU_COMPAT_AMO_BIT)

/* ---------------------------------------------------------- point-to-point */

#define SHMEMU_COMPAT_P2P(NAME, TYPE)                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE v)  \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_wait_until(ivar, cmp, v);                        \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_wait(TYPE *ivar, TYPE v)                 \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_wait_until(ivar, SHMEMU_CMP_NE, v);              \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE v)         \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_test(ivar, cmp, v) > 0;                         \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t n,    \
                                                     const int *status, int cmp, \
                                                     TYPE v)                   \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_wait_until_all(ivars, n, status, cmp, v);        \
    }                                                                          \
    SHMEMU_OSH_FN size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t n,  \
                                                       const int *status, int cmp, \
                                                       TYPE v)                 \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_wait_until_any(ivars, n, status, cmp, v);       \
    }                                                                          \
    SHMEMU_OSH_FN size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t n, \
                                                        size_t *idx, const int *status, \
                                                        int cmp, TYPE v)       \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_wait_until_some(ivars, n, idx, status, cmp, v); \
    }                                                                          \
    SHMEMU_OSH_FN void shmem_##NAME##_wait_until_all_vector(                   \
        TYPE *ivars, size_t n, const int *status, int cmp, TYPE *vs)           \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        (void)shmemu_##NAME##_wait_until_all_vector(ivars, n, status, cmp, vs); \
    }                                                                          \
    SHMEMU_OSH_FN size_t shmem_##NAME##_wait_until_any_vector(                 \
        TYPE *ivars, size_t n, const int *status, int cmp, TYPE *vs)           \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_wait_until_any_vector(ivars, n, status, cmp, vs); \
    }                                                                          \
    SHMEMU_OSH_FN size_t shmem_##NAME##_wait_until_some_vector(                \
        TYPE *ivars, size_t n, size_t *idx, const int *status, int cmp, TYPE *vs) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_wait_until_some_vector(ivars, n, idx, status, cmp, vs); \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_test_all(TYPE *ivars, size_t n, const int *status, \
                                              int cmp, TYPE v)                 \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_test_all(ivars, n, status, cmp, v) > 0;         \
    }                                                                          \
    SHMEMU_OSH_FN size_t shmem_##NAME##_test_any(TYPE *ivars, size_t n,        \
                                                 const int *status, int cmp, TYPE v) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_test_any(ivars, n, status, cmp, v);             \
    }                                                                          \
    SHMEMU_OSH_FN size_t shmem_##NAME##_test_some(TYPE *ivars, size_t n, size_t *idx, \
                                                  const int *status, int cmp, TYPE v) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_test_some(ivars, n, idx, status, cmp, v);       \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t n,    \
                                                     const int *status, int cmp, \
                                                     TYPE *vs)                 \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        size_t i;                                                              \
        for (i = 0; i < n; i++)                                                \
            if ((!status || !status[i]) && shmemu_##NAME##_test(&ivars[i], cmp, vs[i]) <= 0) \
                return 0;                                                      \
        return 1;                                                              \
    }                                                                          \
    SHMEMU_OSH_FN size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t n, \
                                                        const int *status, int cmp, \
                                                        TYPE *vs)              \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        size_t i;                                                              \
        for (i = 0; i < n; i++)                                                \
            if ((!status || !status[i]) && shmemu_##NAME##_test(&ivars[i], cmp, vs[i]) > 0) \
                return i;                                                      \
        return SIZE_MAX;                                                       \
    }                                                                          \
    SHMEMU_OSH_FN size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t n, \
                                                         size_t *idx, const int *status, \
                                                         int cmp, TYPE *vs)    \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        size_t i, k = 0;                                                       \
        for (i = 0; i < n; i++)                                                \
            if ((!status || !status[i]) && shmemu_##NAME##_test(&ivars[i], cmp, vs[i]) > 0) \
                idx[k++] = i;                                                  \
        return k;                                                              \
    }
SHMEMU_P2P_TYPES(SHMEMU_COMPAT_P2P)

/* The deprecated untyped forms act on long (C++: one of the overloads). */
#ifndef __cplusplus
SHMEMU_OSH_FN void shmem_wait_until(long *ivar, int cmp, long v)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_long_wait_until(ivar, cmp, v);
}
#endif
SHMEMU_OSH_FN void shmem_wait(long *ivar, long v)
{
    SHMEMU_OSH_CALL;
    (void)shmemu_long_wait_until(ivar, SHMEMU_CMP_NE, v);
}

/* ------------------------------------------------------------------ locks */

void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---------------------------------------------------- team collectives */

SHMEMU_OSH_FN int shmem_broadcastmem(shmem_team_t team, void *d, const void *s, size_t n,
                                     int root)
{
    SHMEMU_OSH_CALL;
    return shmemu_broadcastmem(team, d, s, n, root);
}
SHMEMU_OSH_FN int shmem_collectmem(shmem_team_t team, void *d, const void *s, size_t n)
{
    SHMEMU_OSH_CALL;
    return shmemu_collectmem(team, d, s, n);
}
SHMEMU_OSH_FN int shmem_fcollectmem(shmem_team_t team, void *d, const void *s, size_t n)
{
    SHMEMU_OSH_CALL;
    return shmemu_fcollectmem(team, d, s, n);
}
SHMEMU_OSH_FN int shmem_alltoallmem(shmem_team_t team, void *d, const void *s, size_t n)
{
    SHMEMU_OSH_CALL;
    return shmemu_alltoallmem(team, d, s, n);
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

#define SHMEMU_COMPAT_COLL(NAME, TYPE)                                         \
    SHMEMU_OSH_FN int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *d, const TYPE *s, \
                                               size_t n, int root)             \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_broadcastmem(team, d, s, shmemu_compat_bytes(n, sizeof(TYPE)), root); \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_collect(shmem_team_t team, TYPE *d, const TYPE *s, \
                                             size_t n)                         \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_collectmem(team, d, s, shmemu_compat_bytes(n, sizeof(TYPE))); \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *d, const TYPE *s, \
                                              size_t n)                        \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_fcollectmem(team, d, s, shmemu_compat_bytes(n, sizeof(TYPE))); \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *d, const TYPE *s, \
                                              size_t n)                        \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_alltoallmem(team, d, s, shmemu_compat_bytes(n, sizeof(TYPE))); \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *d, const TYPE *s, \
                                               ptrdiff_t dst, ptrdiff_t sst, size_t n) \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_compat_alltoalls(team, d, s, dst, sst, n, sizeof(TYPE)); \
    }
int shmemu_compat_alltoalls(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                            ptrdiff_t sst, size_t nelems, size_t size);
SHMEMU_COMPAT_RMA_TYPES(SHMEMU_COMPAT_COLL)

/* Reductions on teams: shmemu's for the standard types; long double and
 * complex in src/compat/. */
#define SHMEMU_COMPAT_RED_ARITH(NAME, TYPE)                                    \
    SHMEMU_OSH_FN int shmem_##NAME##_sum_reduce(shmem_team_t t, TYPE *d, const TYPE *s, \
                                                size_t n)                      \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_sum_reduce(t, d, s, n);                         \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_prod_reduce(shmem_team_t t, TYPE *d, const TYPE *s, \
                                                 size_t n)                     \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_prod_reduce(t, d, s, n);                        \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_min_reduce(shmem_team_t t, TYPE *d, const TYPE *s, \
                                                size_t n)                      \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_min_reduce(t, d, s, n);                         \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_max_reduce(shmem_team_t t, TYPE *d, const TYPE *s, \
                                                size_t n)                      \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_max_reduce(t, d, s, n);                         \
    }
#define SHMEMU_COMPAT_RED_BIT(NAME, TYPE)                                      \
    SHMEMU_OSH_FN int shmem_##NAME##_and_reduce(shmem_team_t t, TYPE *d, const TYPE *s, \
                                                size_t n)                      \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_and_reduce(t, d, s, n);                         \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_or_reduce(shmem_team_t t, TYPE *d, const TYPE *s, \
                                               size_t n)                       \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_or_reduce(t, d, s, n);                          \
    }                                                                          \
    SHMEMU_OSH_FN int shmem_##NAME##_xor_reduce(shmem_team_t t, TYPE *d, const TYPE *s, \
                                                size_t n)                      \
    {                                                                          \
        SHMEMU_OSH_CALL;                                                       \
        return shmemu_##NAME##_xor_reduce(t, d, s, n);                         \
    }
#define SHMEMU_COMPAT_RED_BIT_0(NAME, TYPE)
#define SHMEMU_COMPAT_RED_BIT_1(NAME, TYPE) SHMEMU_COMPAT_RED_BIT(NAME, TYPE)
#define SHMEMU_COMPAT_RED(NAME, TYPE, DTYPE, ARITH, BIT)                       \
    SHMEMU_COMPAT_RED_ARITH(NAME, TYPE) SHMEMU_COMPAT_RED_BIT_##BIT(NAME, TYPE)
SHMEMU_REDUCE_TYPES(SHMEMU_COMPAT_RED)

int shmem_longdouble_sum_reduce(shmem_team_t t, long double *d, const long double *s,
                                size_t n);
int shmem_longdouble_prod_reduce(shmem_team_t t, long double *d, const long double *s,
                                 size_t n);
int shmem_longdouble_min_reduce(shmem_team_t t, long double *d, const long double *s,
                                size_t n);
int shmem_longdouble_max_reduce(shmem_team_t t, long double *d, const long double *s,
                                size_t n);
#if !defined(__STDC_NO_COMPLEX__) && (!defined(__cplusplus) || defined(__GNUC__))
int shmem_complexf_sum_reduce(shmem_team_t t, float _Complex *d, const float _Complex *s,
                              size_t n);
int shmem_complexf_prod_reduce(shmem_team_t t, float _Complex *d, const float _Complex *s,
                               size_t n);
int shmem_complexd_sum_reduce(shmem_team_t t, double _Complex *d, const double _Complex *s,
                              size_t n);
int shmem_complexd_prod_reduce(shmem_team_t t, double _Complex *d, const double _Complex *s,
                               size_t n);
#endif

/* OpenSHMEM 1.6 scans: dest on the i-th member of team gets the sum of
 * src over members 0..i (inscan) or 0..i-1 (exscan; zero on member 0).
 * src and dest symmetric, as for reductions (src/compat/). */
#define SHMEMU_COMPAT_SCAN_DECL(NAME, TYPE)                                    \
    int shmem_##NAME##_sum_inscan(shmem_team_t t, TYPE *d, const TYPE *s, size_t n); \
    int shmem_##NAME##_sum_exscan(shmem_team_t t, TYPE *d, const TYPE *s, size_t n);
#define SHMEMU_COMPAT_SCAN_DECL5(NAME, TYPE, DTYPE, ARITH, BIT)                \
    SHMEMU_COMPAT_SCAN_DECL(NAME, TYPE)
SHMEMU_REDUCE_TYPES(SHMEMU_COMPAT_SCAN_DECL5)
SHMEMU_COMPAT_SCAN_DECL(longdouble, long double)
#if !defined(__STDC_NO_COMPLEX__) && (!defined(__cplusplus) || defined(__GNUC__))
SHMEMU_COMPAT_SCAN_DECL(complexf, float _Complex)
SHMEMU_COMPAT_SCAN_DECL(complexd, double _Complex)
#endif

/* -------------------------------------------- active-set collectives */

void shmem_broadcast32(void *dest, const void *src, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync);
void shmem_broadcast64(void *dest, const void *src, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync);
void shmem_fcollect32(void *dest, const void *src, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_fcollect64(void *dest, const void *src, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_collect32(void *dest, const void *src, size_t nelems, int PE_start,
                     int logPE_stride, int PE_size, long *pSync);
void shmem_collect64(void *dest, const void *src, size_t nelems, int PE_start,
                     int logPE_stride, int PE_size, long *pSync);
void shmem_alltoall32(void *dest, const void *src, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_alltoall64(void *dest, const void *src, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_alltoalls32(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems, int PE_start, int logPE_stride, int PE_size,
                       long *pSync);
void shmem_alltoalls64(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems, int PE_start, int logPE_stride, int PE_size,
                       long *pSync);

/* shmem_TYPE_OP_to_all(dest, src, nreduce, PE_start, logPE_stride, PE_size,
 * pWrk, pSync) */
#define SHMEMU_COMPAT_TOALL(NAME, TYPE, OP)                                    \
    void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *src, int nreduce, \
                                      int PE_start, int logPE_stride, int PE_size, \
                                      TYPE *pWrk, long *pSync);
#define SHMEMU_COMPAT_TOALL_ALL(X)                                             \
    X(short, short, and) X(int, int, and) X(long, long, and)                   \
    X(longlong, long long, and)                                                \
    X(short, short, or) X(int, int, or) X(long, long, or)                      \
    X(longlong, long long, or)                                                 \
    X(short, short, xor) X(int, int, xor) X(long, long, xor)                   \
    X(longlong, long long, xor)                                                \
    X(short, short, min) X(int, int, min) X(long, long, min)                   \
    X(longlong, long long, min) X(float, float, min) X(double, double, min)    \
    X(longdouble, long double, min)                                            \
    X(short, short, max) X(int, int, max) X(long, long, max)                   \
    X(longlong, long long, max) X(float, float, max) X(double, double, max)    \
    X(longdouble, long double, max)                                            \
    X(short, short, sum) X(int, int, sum) X(long, long, sum)                   \
    X(longlong, long long, sum) X(float, float, sum) X(double, double, sum)    \
    X(longdouble, long double, sum)                                            \
    X(short, short, prod) X(int, int, prod) X(long, long, prod)                \
    X(longlong, long long, prod) X(float, float, prod) X(double, double, prod) \
    X(longdouble, long double, prod)
SHMEMU_COMPAT_TOALL_ALL(SHMEMU_COMPAT_TOALL)
#if !defined(__STDC_NO_COMPLEX__) && (!defined(__cplusplus) || defined(__GNUC__))
SHMEMU_COMPAT_TOALL(complexf, float _Complex, sum)
SHMEMU_COMPAT_TOALL(complexf, float _Complex, prod)
SHMEMU_COMPAT_TOALL(complexd, double _Complex, sum)
SHMEMU_COMPAT_TOALL(complexd, double _Complex, prod)
#endif

/* ------------------------------------------------ C11 generic selection */

/* C11's, and GCC's and clang's in their C99 modes too (-std=gnu99 or
 * c99: test suites built that way call the generic names as well). */
#if !defined(__cplusplus) &&                                                   \
    ((defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L) ||             \
     (defined(__clang__) ||                                                    \
      (defined(__GNUC__) && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 9)))))
#define SHMEMU_OSH_GENERIC 1

/* Generic over the element type of a pointer (the spec's list of standard
 * C types; the fixed-width ones are typedefs of these).  `ctx` is empty or
 * `ctx_`, so one list serves the plain and the context-qualified names. */
#define SHMEMU_COMPAT_G_RMA(ctx, ptr, op)                                      \
    _Generic(*(ptr),                                                           \
        float: shmem_##ctx##float_##op, double: shmem_##ctx##double_##op,      \
        long double: shmem_##ctx##longdouble_##op, char: shmem_##ctx##char_##op, \
        signed char: shmem_##ctx##schar_##op, short: shmem_##ctx##short_##op,  \
        int: shmem_##ctx##int_##op, long: shmem_##ctx##long_##op,              \
        long long: shmem_##ctx##longlong_##op,                                 \
        unsigned char: shmem_##ctx##uchar_##op,                                \
        unsigned short: shmem_##ctx##ushort_##op,                              \
        unsigned int: shmem_##ctx##uint_##op,                                  \
        unsigned long: shmem_##ctx##ulong_##op,                                \
        unsigned long long: shmem_##ctx##ulonglong_##op)
/* The standard AMO types, the extended ones (adding float and double) and
 * the bitwise ones. */
#define SHMEMU_COMPAT_G_AMO(ctx, ptr, op)                                      \
    _Generic(*(ptr),                                                           \
        int: shmem_##ctx##int_##op, long: shmem_##ctx##long_##op,             \
        long long: shmem_##ctx##longlong_##op,                                 \
        unsigned int: shmem_##ctx##uint_##op,                                  \
        unsigned long: shmem_##ctx##ulong_##op,                                \
        unsigned long long: shmem_##ctx##ulonglong_##op)
#define SHMEMU_COMPAT_G_AMO_EXT(ctx, ptr, op)                                  \
    _Generic(*(ptr),                                                           \
        float: shmem_##ctx##float_##op, double: shmem_##ctx##double_##op,      \
        int: shmem_##ctx##int_##op, long: shmem_##ctx##long_##op,             \
        long long: shmem_##ctx##longlong_##op,                                 \
        unsigned int: shmem_##ctx##uint_##op,                                  \
        unsigned long: shmem_##ctx##ulong_##op,                                \
        unsigned long long: shmem_##ctx##ulonglong_##op)
#define SHMEMU_COMPAT_G_AMO_BIT(ctx, ptr, op)                                  \
    _Generic(*(ptr),                                                           \
        unsigned int: shmem_##ctx##uint_##op,                                  \
        unsigned long: shmem_##ctx##ulong_##op,                                \
        unsigned long long: shmem_##ctx##ulonglong_##op,                       \
        int: shmem_##ctx##int32_##op, long: shmem_##ctx##int64_##op)

/* With or without a leading context: the count of arguments decides.  n is
 * the count without a context; the typed pointer is the first argument, or
 * the second after a context. */
#define SHMEMU_COMPAT_CTX_OR_NOT(fam, op, n, ...)                              \
    SHMEMU_COMPAT_SEL(fam, op, n,                                              \
                      SHMEMU_COMPAT_ARGN(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, ), \
                      __VA_ARGS__)
#define SHMEMU_COMPAT_ARGN(a, b, c, d, e, f, g, h, k, ...) k
/* One more level, so that k is expanded before it is pasted. */
#define SHMEMU_COMPAT_SEL(fam, op, n, k, ...) SHMEMU_COMPAT_SEL_(fam, op, n, k, __VA_ARGS__)
#define SHMEMU_COMPAT_SEL_(fam, op, n, k, ...)                                 \
    SHMEMU_COMPAT_SEL_##n##_##k(fam, op, __VA_ARGS__)
#define SHMEMU_COMPAT_PLAIN(fam, op, first, ...)                               \
    SHMEMU_COMPAT_G_##fam(, first, op)(first, __VA_ARGS__)
#define SHMEMU_COMPAT_CTX(fam, op, ctx, first, ...)                            \
    SHMEMU_COMPAT_G_##fam(ctx_, first, op)(ctx, first, __VA_ARGS__)
#define SHMEMU_COMPAT_SEL_2_2 SHMEMU_COMPAT_PLAIN
#define SHMEMU_COMPAT_SEL_2_3 SHMEMU_COMPAT_CTX
#define SHMEMU_COMPAT_SEL_3_3 SHMEMU_COMPAT_PLAIN
#define SHMEMU_COMPAT_SEL_3_4 SHMEMU_COMPAT_CTX
#define SHMEMU_COMPAT_SEL_4_4 SHMEMU_COMPAT_PLAIN
#define SHMEMU_COMPAT_SEL_4_5 SHMEMU_COMPAT_CTX
#define SHMEMU_COMPAT_SEL_5_5 SHMEMU_COMPAT_PLAIN
#define SHMEMU_COMPAT_SEL_5_6 SHMEMU_COMPAT_CTX
#define SHMEMU_COMPAT_SEL_6_6 SHMEMU_COMPAT_PLAIN
#define SHMEMU_COMPAT_SEL_6_7 SHMEMU_COMPAT_CTX
#define SHMEMU_COMPAT_SEL_7_7 SHMEMU_COMPAT_PLAIN
#define SHMEMU_COMPAT_SEL_7_8 SHMEMU_COMPAT_CTX

#define shmem_put(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, put, 4, __VA_ARGS__)
#define shmem_get(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, get, 4, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, put_nbi, 4, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, get_nbi, 4, __VA_ARGS__)
#define shmem_p(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, p, 3, __VA_ARGS__)
#define shmem_g(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, g, 2, __VA_ARGS__)
#define shmem_iput(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, iput, 6, __VA_ARGS__)
#define shmem_iget(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, iget, 6, __VA_ARGS__)
#define shmem_ibput(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, ibput, 7, __VA_ARGS__)
#define shmem_ibget(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, ibget, 7, __VA_ARGS__)
#define shmem_put_signal(...) SHMEMU_COMPAT_CTX_OR_NOT(RMA, put_signal, 7, __VA_ARGS__)
#define shmem_put_signal_nbi(...)                                              \
    SHMEMU_COMPAT_CTX_OR_NOT(RMA, put_signal_nbi, 7, __VA_ARGS__)

/* Atomics, by the type of dest (of fetch for the _nbi forms, the same). */
#define shmem_atomic_fetch(...) SHMEMU_COMPAT_CTX_OR_NOT(AMO_EXT, atomic_fetch, 2, __VA_ARGS__)
#define shmem_atomic_set(...) SHMEMU_COMPAT_CTX_OR_NOT(AMO_EXT, atomic_set, 3, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEMU_COMPAT_CTX_OR_NOT(AMO_EXT, atomic_swap, 3, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                         \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO, atomic_compare_swap, 4, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)                                            \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO, atomic_fetch_inc, 2, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMEMU_COMPAT_CTX_OR_NOT(AMO, atomic_inc, 2, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)                                            \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO, atomic_fetch_add, 3, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEMU_COMPAT_CTX_OR_NOT(AMO, atomic_add, 3, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)                                            \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO_BIT, atomic_fetch_and, 3, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEMU_COMPAT_CTX_OR_NOT(AMO_BIT, atomic_and, 3, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)                                             \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO_BIT, atomic_fetch_or, 3, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEMU_COMPAT_CTX_OR_NOT(AMO_BIT, atomic_or, 3, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)                                            \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO_BIT, atomic_fetch_xor, 3, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEMU_COMPAT_CTX_OR_NOT(AMO_BIT, atomic_xor, 3, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)                                            \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO_EXT, atomic_fetch_nbi, 3, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)                                             \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO_EXT, atomic_swap_nbi, 4, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                     \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO, atomic_compare_swap_nbi, 5, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                        \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO, atomic_fetch_inc_nbi, 3, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                        \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO, atomic_fetch_add_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                        \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO_BIT, atomic_fetch_and_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                         \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO_BIT, atomic_fetch_or_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                        \
    SHMEMU_COMPAT_CTX_OR_NOT(AMO_BIT, atomic_fetch_xor_nbi, 4, __VA_ARGS__)

/* The generic names deprecated in 1.4, still in wide use (no context). */
#define shmem_fetch(src, pe) SHMEMU_COMPAT_G_AMO_EXT(, src, atomic_fetch)(src, pe)
#define shmem_set(d, v, pe) SHMEMU_COMPAT_G_AMO_EXT(, d, atomic_set)(d, v, pe)
#define shmem_swap(d, v, pe) SHMEMU_COMPAT_G_AMO_EXT(, d, atomic_swap)(d, v, pe)
#define shmem_cswap(d, c, v, pe) SHMEMU_COMPAT_G_AMO(, d, atomic_compare_swap)(d, c, v, pe)
#define shmem_finc(d, pe) SHMEMU_COMPAT_G_AMO(, d, atomic_fetch_inc)(d, pe)
#define shmem_inc(d, pe) SHMEMU_COMPAT_G_AMO(, d, atomic_inc)(d, pe)
#define shmem_fadd(d, v, pe) SHMEMU_COMPAT_G_AMO(, d, atomic_fetch_add)(d, v, pe)
#define shmem_add(d, v, pe) SHMEMU_COMPAT_G_AMO(, d, atomic_add)(d, v, pe)

/* Point-to-point, by the type of the ivar. */
#define SHMEMU_COMPAT_GENERIC_P2P(ptr, op)                                     \
    _Generic(*(ptr),                                                           \
        short: shmem_short_##op, int: shmem_int_##op, long: shmem_long_##op,   \
        long long: shmem_longlong_##op, unsigned short: shmem_ushort_##op,     \
        unsigned int: shmem_uint_##op, unsigned long: shmem_ulong_##op,        \
        unsigned long long: shmem_ulonglong_##op)
#define shmem_wait_until(ivar, cmp, v) SHMEMU_COMPAT_GENERIC_P2P(ivar, wait_until)(ivar, cmp, v)
#define shmem_test(ivar, cmp, v) SHMEMU_COMPAT_GENERIC_P2P(ivar, test)(ivar, cmp, v)
#define shmem_wait_until_all(iv, n, st, cmp, v)                                \
    SHMEMU_COMPAT_GENERIC_P2P(iv, wait_until_all)(iv, n, st, cmp, v)
#define shmem_wait_until_any(iv, n, st, cmp, v)                                \
    SHMEMU_COMPAT_GENERIC_P2P(iv, wait_until_any)(iv, n, st, cmp, v)
#define shmem_wait_until_some(iv, n, idx, st, cmp, v)                          \
    SHMEMU_COMPAT_GENERIC_P2P(iv, wait_until_some)(iv, n, idx, st, cmp, v)
#define shmem_wait_until_all_vector(iv, n, st, cmp, v)                         \
    SHMEMU_COMPAT_GENERIC_P2P(iv, wait_until_all_vector)(iv, n, st, cmp, v)
#define shmem_wait_until_any_vector(iv, n, st, cmp, v)                         \
    SHMEMU_COMPAT_GENERIC_P2P(iv, wait_until_any_vector)(iv, n, st, cmp, v)
#define shmem_wait_until_some_vector(iv, n, idx, st, cmp, v)                   \
    SHMEMU_COMPAT_GENERIC_P2P(iv, wait_until_some_vector)(iv, n, idx, st, cmp, v)
#define shmem_test_all(iv, n, st, cmp, v)                                      \
    SHMEMU_COMPAT_GENERIC_P2P(iv, test_all)(iv, n, st, cmp, v)
#define shmem_test_any(iv, n, st, cmp, v)                                      \
    SHMEMU_COMPAT_GENERIC_P2P(iv, test_any)(iv, n, st, cmp, v)
#define shmem_test_some(iv, n, idx, st, cmp, v)                                \
    SHMEMU_COMPAT_GENERIC_P2P(iv, test_some)(iv, n, idx, st, cmp, v)
#define shmem_test_all_vector(iv, n, st, cmp, v)                               \
    SHMEMU_COMPAT_GENERIC_P2P(iv, test_all_vector)(iv, n, st, cmp, v)
#define shmem_test_any_vector(iv, n, st, cmp, v)                               \
    SHMEMU_COMPAT_GENERIC_P2P(iv, test_any_vector)(iv, n, st, cmp, v)
#define shmem_test_some_vector(iv, n, idx, st, cmp, v)                         \
    SHMEMU_COMPAT_GENERIC_P2P(iv, test_some_vector)(iv, n, idx, st, cmp, v)

/* Team collectives and reductions, by the type of dest. */
#define shmem_broadcast(t, d, s, n, root) SHMEMU_COMPAT_G_RMA(, d, broadcast)(t, d, s, n, root)
#define shmem_collect(t, d, s, n) SHMEMU_COMPAT_G_RMA(, d, collect)(t, d, s, n)
#define shmem_fcollect(t, d, s, n) SHMEMU_COMPAT_G_RMA(, d, fcollect)(t, d, s, n)
#define shmem_alltoall(t, d, s, n) SHMEMU_COMPAT_G_RMA(, d, alltoall)(t, d, s, n)
#define shmem_alltoalls(t, d, s, dst, sst, n)                                  \
    SHMEMU_COMPAT_G_RMA(, d, alltoalls)(t, d, s, dst, sst, n)
#define SHMEMU_COMPAT_GENERIC_RED_INT(ptr, op)                                 \
    _Generic(*(ptr),                                                           \
        unsigned char: shmem_uchar_##op, unsigned short: shmem_ushort_##op,    \
        unsigned int: shmem_uint_##op, unsigned long: shmem_ulong_##op,        \
        unsigned long long: shmem_ulonglong_##op, signed char: shmem_int8_##op, \
        short: shmem_int16_##op, int: shmem_int32_##op, long: shmem_int64_##op, \
        long long: shmem_int64_##op)
#define SHMEMU_COMPAT_GENERIC_RED(ptr, op)                                     \
    _Generic(*(ptr),                                                           \
        char: shmem_char_##op, signed char: shmem_schar_##op, short: shmem_short_##op, \
        int: shmem_int_##op, long: shmem_long_##op, long long: shmem_longlong_##op, \
        unsigned char: shmem_uchar_##op, unsigned short: shmem_ushort_##op,    \
        unsigned int: shmem_uint_##op, unsigned long: shmem_ulong_##op,        \
        unsigned long long: shmem_ulonglong_##op, float: shmem_float_##op,     \
        double: shmem_double_##op, long double: shmem_longdouble_##op)
#define shmem_and_reduce(t, d, s, n) SHMEMU_COMPAT_GENERIC_RED_INT(d, and_reduce)(t, d, s, n)
#define shmem_or_reduce(t, d, s, n) SHMEMU_COMPAT_GENERIC_RED_INT(d, or_reduce)(t, d, s, n)
#define shmem_xor_reduce(t, d, s, n) SHMEMU_COMPAT_GENERIC_RED_INT(d, xor_reduce)(t, d, s, n)
#define shmem_min_reduce(t, d, s, n) SHMEMU_COMPAT_GENERIC_RED(d, min_reduce)(t, d, s, n)
#define shmem_max_reduce(t, d, s, n) SHMEMU_COMPAT_GENERIC_RED(d, max_reduce)(t, d, s, n)
/* sum and prod take the complex types as well. */
#if !defined(__STDC_NO_COMPLEX__)
#define SHMEMU_COMPAT_GENERIC_ARITH(ptr, op)                                   \
    _Generic(*(ptr),                                                           \
        char: shmem_char_##op, signed char: shmem_schar_##op, short: shmem_short_##op, \
        int: shmem_int_##op, long: shmem_long_##op, long long: shmem_longlong_##op, \
        unsigned char: shmem_uchar_##op, unsigned short: shmem_ushort_##op,    \
        unsigned int: shmem_uint_##op, unsigned long: shmem_ulong_##op,        \
        unsigned long long: shmem_ulonglong_##op, float: shmem_float_##op,     \
        double: shmem_double_##op, long double: shmem_longdouble_##op,         \
        float _Complex: shmem_complexf_##op, double _Complex: shmem_complexd_##op)
#else
#define SHMEMU_COMPAT_GENERIC_ARITH SHMEMU_COMPAT_GENERIC_RED
#endif
#define shmem_sum_reduce(t, d, s, n) SHMEMU_COMPAT_GENERIC_ARITH(d, sum_reduce)(t, d, s, n)
#define shmem_prod_reduce(t, d, s, n) SHMEMU_COMPAT_GENERIC_ARITH(d, prod_reduce)(t, d, s, n)
#define shmem_sum_inscan(t, d, s, n) SHMEMU_COMPAT_GENERIC_ARITH(d, sum_inscan)(t, d, s, n)
#define shmem_sum_exscan(t, d, s, n) SHMEMU_COMPAT_GENERIC_ARITH(d, sum_exscan)(t, d, s, n)

#endif /* C11 or GNU C */

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------ C++ overloads
 *
 * C++ has no _Generic: the generic names are overloads on the pointer's
 * element type, forwarding the other arguments to the typed call (C++11).
 * A context, or a team for collectives, may come first as in C. */
#if defined(__cplusplus) && __cplusplus >= 201103L

/* Writable or const element pointer first, optionally after a lead (ctx
 * or team) argument. */
#define SHMEMU_CXX_W(GEN, TYPED, TYPE)                                         \
    template <class... A>                                                      \
    inline auto GEN(TYPE *p, A... a)->decltype(TYPED(p, a...))                 \
    {                                                                          \
        return TYPED(p, a...);                                                 \
    }
#define SHMEMU_CXX_R(GEN, TYPED, TYPE)                                         \
    template <class... A>                                                      \
    inline auto GEN(const TYPE *p, A... a)->decltype(TYPED(p, a...))           \
    {                                                                          \
        return TYPED(p, a...);                                                 \
    }
#define SHMEMU_CXX_LW(GEN, TYPED, LEAD, TYPE)                                  \
    template <class... A>                                                      \
    inline auto GEN(LEAD l, TYPE *p, A... a)->decltype(TYPED(l, p, a...))      \
    {                                                                          \
        return TYPED(l, p, a...);                                              \
    }
#define SHMEMU_CXX_LR(GEN, TYPED, LEAD, TYPE)                                  \
    template <class... A>                                                      \
    inline auto GEN(LEAD l, const TYPE *p, A... a)->decltype(TYPED(l, p, a...)) \
    {                                                                          \
        return TYPED(l, p, a...);                                              \
    }

/* The spec's type lists, by the typed names' spelling. */
#define SHMEMU_CXX_AMO_TYPES(X, a, b)                                          \
    X(a, b, int, int) X(a, b, long, long) X(a, b, longlong, long long)         \
    X(a, b, uint, unsigned int) X(a, b, ulong, unsigned long)                  \
    X(a, b, ulonglong, unsigned long long)
#define SHMEMU_CXX_EXT_TYPES(X, a, b)                                          \
    SHMEMU_CXX_AMO_TYPES(X, a, b) X(a, b, float, float) X(a, b, double, double)
#define SHMEMU_CXX_BIT_TYPES(X, a, b)                                          \
    X(a, b, uint, unsigned int) X(a, b, ulong, unsigned long)                  \
    X(a, b, ulonglong, unsigned long long) X(a, b, int32, int)                 \
    X(a, b, int64, long)
#define SHMEMU_CXX_P2P_TYPES(X, a, b)                                          \
    SHMEMU_CXX_AMO_TYPES(X, a, b) X(a, b, short, short)                        \
    X(a, b, ushort, unsigned short)
#define SHMEMU_CXX_RMA_TYPES(X, a, b)                                          \
    SHMEMU_CXX_EXT_TYPES(X, a, b) X(a, b, longdouble, long double)             \
    X(a, b, char, char) X(a, b, schar, signed char) X(a, b, short, short)      \
    X(a, b, uchar, unsigned char) X(a, b, ushort, unsigned short)
#define SHMEMU_CXX_RED_TYPES(X, a, b)                                          \
    SHMEMU_CXX_RMA_TYPES(X, a, b)
#define SHMEMU_CXX_REDBIT_TYPES(X, a, b)                                       \
    X(a, b, uchar, unsigned char) X(a, b, ushort, unsigned short)              \
    X(a, b, uint, unsigned int) X(a, b, ulong, unsigned long)                  \
    X(a, b, ulonglong, unsigned long long) X(a, b, int8, signed char)          \
    X(a, b, int16, short) X(a, b, int32, int) X(a, b, int64, long)

/* gen: the generic name's tail; op: the typed name's tail. */
#define SHMEMU_CXX_PW(gen, op, NAME, TYPE)                                     \
    SHMEMU_CXX_W(shmem_##gen, shmem_##NAME##_##op, TYPE)                       \
    SHMEMU_CXX_LW(shmem_##gen, shmem_ctx_##NAME##_##op, shmem_ctx_t, TYPE)
#define SHMEMU_CXX_PR(gen, op, NAME, TYPE)                                     \
    SHMEMU_CXX_R(shmem_##gen, shmem_##NAME##_##op, TYPE)                       \
    SHMEMU_CXX_LR(shmem_##gen, shmem_ctx_##NAME##_##op, shmem_ctx_t, TYPE)
#define SHMEMU_CXX_OLD(gen, op, NAME, TYPE)                                    \
    SHMEMU_CXX_W(shmem_##gen, shmem_##NAME##_##op, TYPE)
#define SHMEMU_CXX_OLDR(gen, op, NAME, TYPE)                                   \
    SHMEMU_CXX_R(shmem_##gen, shmem_##NAME##_##op, TYPE)
#define SHMEMU_CXX_TEAM(gen, op, NAME, TYPE)                                   \
    SHMEMU_CXX_LW(shmem_##gen, shmem_##NAME##_##op, shmem_team_t, TYPE)

SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, put, put)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, get, get)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, put_nbi, put_nbi)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, get_nbi, get_nbi)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, p, p)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PR, g, g)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, iput, iput)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, iget, iget)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, ibput, ibput)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, ibget, ibget)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, put_signal, put_signal)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_PW, put_signal_nbi, put_signal_nbi)

SHMEMU_CXX_EXT_TYPES(SHMEMU_CXX_PR, atomic_fetch, atomic_fetch)
SHMEMU_CXX_EXT_TYPES(SHMEMU_CXX_PW, atomic_set, atomic_set)
SHMEMU_CXX_EXT_TYPES(SHMEMU_CXX_PW, atomic_swap, atomic_swap)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_PW, atomic_compare_swap, atomic_compare_swap)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_PW, atomic_fetch_inc, atomic_fetch_inc)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_PW, atomic_inc, atomic_inc)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_PW, atomic_fetch_add, atomic_fetch_add)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_PW, atomic_add, atomic_add)
SHMEMU_CXX_BIT_TYPES(SHMEMU_CXX_PW, atomic_fetch_and, atomic_fetch_and)
SHMEMU_CXX_BIT_TYPES(SHMEMU_CXX_PW, atomic_and, atomic_and)
SHMEMU_CXX_BIT_TYPES(SHMEMU_CXX_PW, atomic_fetch_or, atomic_fetch_or)
SHMEMU_CXX_BIT_TYPES(SHMEMU_CXX_PW, atomic_or, atomic_or)
SHMEMU_CXX_BIT_TYPES(SHMEMU_CXX_PW, atomic_fetch_xor, atomic_fetch_xor)
SHMEMU_CXX_BIT_TYPES(SHMEMU_CXX_PW, atomic_xor, atomic_xor)
SHMEMU_CXX_EXT_TYPES(SHMEMU_CXX_PW, atomic_fetch_nbi, atomic_fetch_nbi)
SHMEMU_CXX_EXT_TYPES(SHMEMU_CXX_PW, atomic_swap_nbi, atomic_swap_nbi)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_PW, atomic_compare_swap_nbi, atomic_compare_swap_nbi)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_PW, atomic_fetch_inc_nbi, atomic_fetch_inc_nbi)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_PW, atomic_fetch_add_nbi, atomic_fetch_add_nbi)
SHMEMU_CXX_BIT_TYPES(SHMEMU_CXX_PW, atomic_fetch_and_nbi, atomic_fetch_and_nbi)
SHMEMU_CXX_BIT_TYPES(SHMEMU_CXX_PW, atomic_fetch_or_nbi, atomic_fetch_or_nbi)
SHMEMU_CXX_BIT_TYPES(SHMEMU_CXX_PW, atomic_fetch_xor_nbi, atomic_fetch_xor_nbi)

SHMEMU_CXX_EXT_TYPES(SHMEMU_CXX_OLDR, fetch, atomic_fetch)
SHMEMU_CXX_EXT_TYPES(SHMEMU_CXX_OLD, set, atomic_set)
SHMEMU_CXX_EXT_TYPES(SHMEMU_CXX_OLD, swap, atomic_swap)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_OLD, cswap, atomic_compare_swap)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_OLD, finc, atomic_fetch_inc)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_OLD, inc, atomic_inc)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_OLD, fadd, atomic_fetch_add)
SHMEMU_CXX_AMO_TYPES(SHMEMU_CXX_OLD, add, atomic_add)

/* Spelled out: a status of NULL must convert, which forwarding would not. */
#define SHMEMU_CXX_P2P1(RET, op, NAME, TYPE, PARAMS, ARGS)                     \
    inline RET shmem_##op PARAMS { return shmem_##NAME##_##op ARGS; }
#define SHMEMU_CXX_P2P(a, b, NAME, TYPE)                                       \
    SHMEMU_CXX_P2P1(void, wait_until, NAME, TYPE, (TYPE * iv, int c, TYPE v), (iv, c, v)) \
    SHMEMU_CXX_P2P1(int, test, NAME, TYPE, (TYPE * iv, int c, TYPE v), (iv, c, v)) \
    SHMEMU_CXX_P2P1(void, wait_until_all, NAME, TYPE,                          \
                    (TYPE * iv, size_t n, const int *st, int c, TYPE v), (iv, n, st, c, v)) \
    SHMEMU_CXX_P2P1(size_t, wait_until_any, NAME, TYPE,                        \
                    (TYPE * iv, size_t n, const int *st, int c, TYPE v), (iv, n, st, c, v)) \
    SHMEMU_CXX_P2P1(size_t, wait_until_some, NAME, TYPE,                       \
                    (TYPE * iv, size_t n, size_t *ix, const int *st, int c, TYPE v), \
                    (iv, n, ix, st, c, v))                                     \
    SHMEMU_CXX_P2P1(void, wait_until_all_vector, NAME, TYPE,                   \
                    (TYPE * iv, size_t n, const int *st, int c, TYPE *v), (iv, n, st, c, v)) \
    SHMEMU_CXX_P2P1(size_t, wait_until_any_vector, NAME, TYPE,                 \
                    (TYPE * iv, size_t n, const int *st, int c, TYPE *v), (iv, n, st, c, v)) \
    SHMEMU_CXX_P2P1(size_t, wait_until_some_vector, NAME, TYPE,                \
                    (TYPE * iv, size_t n, size_t *ix, const int *st, int c, TYPE *v), \
                    (iv, n, ix, st, c, v))                                     \
    SHMEMU_CXX_P2P1(int, test_all, NAME, TYPE,                                 \
                    (TYPE * iv, size_t n, const int *st, int c, TYPE v), (iv, n, st, c, v)) \
    SHMEMU_CXX_P2P1(size_t, test_any, NAME, TYPE,                              \
                    (TYPE * iv, size_t n, const int *st, int c, TYPE v), (iv, n, st, c, v)) \
    SHMEMU_CXX_P2P1(size_t, test_some, NAME, TYPE,                             \
                    (TYPE * iv, size_t n, size_t *ix, const int *st, int c, TYPE v), \
                    (iv, n, ix, st, c, v))                                     \
    SHMEMU_CXX_P2P1(int, test_all_vector, NAME, TYPE,                          \
                    (TYPE * iv, size_t n, const int *st, int c, TYPE *v), (iv, n, st, c, v)) \
    SHMEMU_CXX_P2P1(size_t, test_any_vector, NAME, TYPE,                       \
                    (TYPE * iv, size_t n, const int *st, int c, TYPE *v), (iv, n, st, c, v)) \
    SHMEMU_CXX_P2P1(size_t, test_some_vector, NAME, TYPE,                      \
                    (TYPE * iv, size_t n, size_t *ix, const int *st, int c, TYPE *v), \
                    (iv, n, ix, st, c, v))
SHMEMU_CXX_P2P_TYPES(SHMEMU_CXX_P2P, , )

SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_TEAM, broadcast, broadcast)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_TEAM, collect, collect)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_TEAM, fcollect, fcollect)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_TEAM, alltoall, alltoall)
SHMEMU_CXX_RMA_TYPES(SHMEMU_CXX_TEAM, alltoalls, alltoalls)
SHMEMU_CXX_REDBIT_TYPES(SHMEMU_CXX_TEAM, and_reduce, and_reduce)
SHMEMU_CXX_REDBIT_TYPES(SHMEMU_CXX_TEAM, or_reduce, or_reduce)
SHMEMU_CXX_REDBIT_TYPES(SHMEMU_CXX_TEAM, xor_reduce, xor_reduce)
SHMEMU_CXX_RED_TYPES(SHMEMU_CXX_TEAM, min_reduce, min_reduce)
SHMEMU_CXX_RED_TYPES(SHMEMU_CXX_TEAM, max_reduce, max_reduce)
SHMEMU_CXX_RED_TYPES(SHMEMU_CXX_TEAM, sum_reduce, sum_reduce)
SHMEMU_CXX_RED_TYPES(SHMEMU_CXX_TEAM, prod_reduce, prod_reduce)
SHMEMU_CXX_RED_TYPES(SHMEMU_CXX_TEAM, sum_inscan, sum_inscan)
SHMEMU_CXX_RED_TYPES(SHMEMU_CXX_TEAM, sum_exscan, sum_exscan)

#endif /* C++11 */

#endif /* SHMEM_H */
