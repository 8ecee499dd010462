/*
 * shmemu.h - the one public header of shmemu, a symmetric-heap (OpenSHMEM /
 * NVSHMEM model) emulator with pluggable transports.
 *
 * Semantics follow OpenSHMEM 1.5 unless a comment says otherwise.  Every
 * routine that can fail returns an int status (SHMEMU_OK or a negative
 * SHMEMU_E* code); routines that return a value record their status for
 * shmemu_last_status().  In the default error mode (SHMEMU_ERRORS_ABORT) a
 * failing call prints one line naming the PE, the call and the argument and
 * ends the whole job instead of returning.
 *
 * Threading: each PE is driven by one thread (the thread shmemu_launch started
 * for it, or the thread that called shmemu_init).
 */
#ifndef SHMEMU_H
#define SHMEMU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEMU_VERSION_MAJOR 0
#define SHMEMU_VERSION_MINOR 1
#define SHMEMU_VERSION_PATCH 0
#define SHMEMU_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------ status */

/* X(name, value, description): the single list behind the enum and
 * shmemu_strerror(). */
#define SHMEMU_STATUS_LIST(X)                                                  \
    X(SHMEMU_OK, 0, "success")                                                 \
    X(SHMEMU_EINVAL, -1, "invalid argument")                                   \
    X(SHMEMU_ERANGE, -2, "address range outside the symmetric heap or block")  \
    X(SHMEMU_ENOMEM, -3, "symmetric heap exhausted")                           \
    X(SHMEMU_EPE, -4, "no such PE")                                            \
    X(SHMEMU_EMISMATCH, -5, "PEs disagree in a collective call")               \
    X(SHMEMU_EDEADLOCK, -6, "deadlock: every live PE is blocked")              \
    X(SHMEMU_EABORTED, -7, "job aborted: a PE failed or left")                 \
    X(SHMEMU_ENOTSUP, -8, "operation not supported by this transport")         \
    X(SHMEMU_ENODEV, -9, "transport unavailable on this machine")              \
    X(SHMEMU_ETIMEDOUT, -10, "timed out")

enum shmemu_status {
#define SHMEMU_X_ENUM(name, value, text) name = value,
    SHMEMU_STATUS_LIST(SHMEMU_X_ENUM)
#undef SHMEMU_X_ENUM
};

/** Text for a status code; never NULL ("unknown status" for other values). */
const char *shmemu_strerror(int status);

/* --------------------------------------------------------------- lifecycle */

typedef struct shmemu_opts {
    int npes;              /* >= 1 */
    const char *transport; /* NULL: $SHMEMU_TRANSPORT, else "local" */
    size_t heap_size;      /* per-PE bytes; 0: $SHMEMU_HEAP_SIZE (K/M/G), else 64 MiB */
} shmemu_opts;             /* new fields are only ever appended */

/**
 * Run pe_main(arg) on opts->npes PEs with the library initialised on each,
 * wait for all of them and tear the job down.  Returns SHMEMU_OK only if every
 * PE returned 0 and no PE was stopped by an error; otherwise the first
 * failure's status, or the first nonzero value a PE returned.  A PE that
 * fails aborts the job (the others are released from blocking calls with
 * SHMEMU_EABORTED).  Reusable any number of times in one process.
 */
int shmemu_launch(const shmemu_opts *opts, int (*pe_main)(void *arg), void *arg);

/**
 * SPMD entry: join the job this process was started in (by shmemu-run), or
 * become a 1-PE job on the local transport.  Calling it again inside an
 * initialised PE only counts a reference.
 */
int shmemu_init(void);

/**
 * Leave the job: completes this PE's outstanding operations, then departs.
 * PEs that later wait for a departed PE are released with SHMEMU_EABORTED.
 * Returning from pe_main finalizes implicitly.
 */
int shmemu_finalize(void);

/** This PE's number in the world team, or -1 outside a PE. */
int shmemu_my_pe(void);
/** Number of PEs in the job, or -1 outside a PE. */
int shmemu_n_pes(void);
/** Name of the transport this PE runs on, or NULL outside a PE. */
const char *shmemu_transport_name(void);

enum { SHMEMU_ERRORS_ABORT, SHMEMU_ERRORS_RETURN };

/**
 * Choose what a failing call does.  Inside a PE it sets the mode of the whole
 * job; outside any PE it sets the default for jobs this process starts later
 * (overriding $SHMEMU_ERRORS=abort|return).  Returns SHMEMU_OK or
 * SHMEMU_EINVAL.
 */
int shmemu_set_error_mode(int mode);

/** Status of the calling thread's last shmemu call. */
int shmemu_last_status(void);

/**
 * Describe compiled-in transport number index (0-based, in priority order).
 * Sets *name_p and *usable_p (1 if it can run here), and writes why it cannot
 * into why (may be NULL).  Returns SHMEMU_OK, or SHMEMU_EINVAL past the end.
 */
int shmemu_transport_info(int index, const char **name_p, int *usable_p,
                          char *why, size_t why_len);

/* -------------------------------------------------------- symmetric memory */

/*
 * All four are collective over the world team and must get the same
 * arguments on every PE (else SHMEMU_EMISMATCH and NULL).  malloc, calloc,
 * align and realloc end with a barrier_all; free and realloc start with one.
 * A size of 0 returns NULL with status SHMEMU_OK.
 */
void *shmemu_malloc(size_t size);
void *shmemu_calloc(size_t count, size_t size);
/** alignment: a power of two, at most 2 MiB. */
void *shmemu_align(size_t alignment, size_t size);
void *shmemu_realloc(void *ptr, size_t size);
void shmemu_free(void *ptr);

/**
 * Address at which this PE can load from and store to PE pe's copy of the
 * symmetric object dest, or NULL where the transport gives no direct access
 * (or dest is not symmetric).  Stores made through it are plain stores: they
 * do not wake a PE sleeping in a wait routine (use an atomic or a put).
 */
void *shmemu_ptr(const void *dest, int pe);

/** 1 if addr is a symmetric address that PE pe can be reached at, else 0. */
int shmemu_addr_accessible(const void *addr, int pe);

/* --------------------------------------------------------------------- RMA */

/*
 * dest (put) / src (get) is a symmetric address valid on the calling PE and
 * is translated to PE pe's copy; the other buffer may be any local memory.
 * The remote range must lie inside one allocated block (SHMEMU_ERANGE).
 * Blocking forms return when the local buffer may be reused (put) or holds
 * the data (get); _nbi forms may return earlier, and quiet completes them.
 */
int shmemu_putmem(void *dest, const void *src, size_t nbytes, int pe);
int shmemu_getmem(void *dest, const void *src, size_t nbytes, int pe);
int shmemu_putmem_nbi(void *dest, const void *src, size_t nbytes, int pe);
int shmemu_getmem_nbi(void *dest, const void *src, size_t nbytes, int pe);

/* X(NAME, TYPE): the standard RMA types. */
#define SHMEMU_RMA_TYPES(X)                                                    \
    X(char, char)                                                              \
    X(schar, signed char)                                                      \
    X(short, short)                                                            \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(longlong, long long)                                                     \
    X(uchar, unsigned char)                                                    \
    X(ushort, unsigned short)                                                  \
    X(uint, unsigned int)                                                      \
    X(ulong, unsigned long)                                                    \
    X(ulonglong, unsigned long long)                                           \
    X(float, float)                                                            \
    X(double, double)                                                          \
    X(int8, int8_t)                                                            \
    X(int16, int16_t)                                                          \
    X(int32, int32_t)                                                          \
    X(int64, int64_t)                                                          \
    X(uint8, uint8_t)                                                          \
    X(uint16, uint16_t)                                                        \
    X(uint32, uint32_t)                                                        \
    X(uint64, uint64_t)                                                        \
    X(size, size_t)                                                            \
    X(ptrdiff, ptrdiff_t)

/*
 * For each NAME/TYPE above:
 *   int  shmemu_NAME_put(TYPE *dest, const TYPE *src, size_t nelems, int pe);
 *   int  shmemu_NAME_get(TYPE *dest, const TYPE *src, size_t nelems, int pe);
 *   int  shmemu_NAME_put_nbi(TYPE *dest, const TYPE *src, size_t nelems, int pe);
 *   int  shmemu_NAME_get_nbi(TYPE *dest, const TYPE *src, size_t nelems, int pe);
 *   int  shmemu_NAME_p(TYPE *dest, TYPE value, int pe);
 *   TYPE shmemu_NAME_g(const TYPE *src, int pe);   (status: shmemu_last_status)
 * docs/API.md lists every name.
 */
#define SHMEMU_X_RMA_DECL(NAME, TYPE)                                          \
    int shmemu_##NAME##_put(TYPE *dest, const TYPE *src, size_t nelems,       \
                            int pe);                                           \
    int shmemu_##NAME##_get(TYPE *dest, const TYPE *src, size_t nelems,       \
                            int pe);                                           \
    int shmemu_##NAME##_put_nbi(TYPE *dest, const TYPE *src, size_t nelems,   \
                                int pe);                                       \
    int shmemu_##NAME##_get_nbi(TYPE *dest, const TYPE *src, size_t nelems,   \
                                int pe);                                       \
    int shmemu_##NAME##_p(TYPE *dest, TYPE value, int pe);                     \
    TYPE shmemu_##NAME##_g(const TYPE *src, int pe);
SHMEMU_RMA_TYPES(SHMEMU_X_RMA_DECL)
#undef SHMEMU_X_RMA_DECL

/* ----------------------------------------------------------- order and sync */

/** Order this PE's puts, AMOs and put-signals to each PE before later ones. */
int shmemu_fence(void);
/** Complete every outstanding put, get, AMO and put-signal of this PE. */
int shmemu_quiet(void);
/** quiet, then wait until every PE has arrived: all RMA issued before is
 *  complete and visible everywhere on return. */
int shmemu_barrier_all(void);
/** Wait until every PE has arrived; completes nothing. */
int shmemu_sync_all(void);

/* ------------------------------------------------- point-to-point (types) */

/* Comparisons for wait_until, test and signal_wait_until. */
enum { SHMEMU_CMP_EQ, SHMEMU_CMP_NE, SHMEMU_CMP_GT, SHMEMU_CMP_GE, SHMEMU_CMP_LT,
       SHMEMU_CMP_LE };

#ifdef __cplusplus
}
#endif

#endif /* SHMEMU_H */
