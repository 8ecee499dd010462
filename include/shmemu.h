/*
 * shmemu.h - the one public header of shmemu, a symmetric-heap (OpenSHMEM /
 * NVSHMEM model) emulator with pluggable transports.
 *
 * Semantics follow OpenSHMEM 1.5 unless a comment says otherwise.  Every
 * routine that can fail returns an int status (SHMEMU_OK or a negative
 * SHMEMU_E* code); routines that return a value record their status for
 * shmemu_last_status().  In the default error mode (SHMEMU_ERRORS_ABORT) a
 * failing call prints one line naming the PE, the call and the argument and
 * ends the whole job instead of returning; an allocation that finds no room
 * (SHMEMU_ENOMEM) prints its line and returns NULL in either mode.
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

/* Everything declared here is the library's interface: exported from
 * libshmemu.so, while the library is built with -fvisibility=hidden. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
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
    X(SHMEMU_ETIMEDOUT, -10, "timed out")                                      \
    X(SHMEMU_ERACE, -11, "conflicting accesses found (checker mode)")            \
    X(SHMEMU_EDEVICE, -12, "host load or store on device memory (SHMEMU_CHECK=device)")

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
    const char *check;     /* checker mode as $SHMEMU_CHECK takes it ("fuzz:7",
                              "race", "fuzz:7,race", "off"); NULL: $SHMEMU_CHECK */
    double timeout;        /* end the job after this many seconds, reporting where
                              each PE is (SHMEMU_ETIMEDOUT); 0: $SHMEMU_TIMEOUT */
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

/* Thread levels, as OpenSHMEM's: how the threads of a PE may call. */
enum {
    SHMEMU_THREAD_SINGLE,     /* one thread only */
    SHMEMU_THREAD_FUNNELED,   /* only the thread that initialised the PE */
    SHMEMU_THREAD_SERIALIZED, /* any thread of the PE, one call at a time */
    SHMEMU_THREAD_MULTIPLE    /* any thread of the PE, concurrently */
};

/**
 * shmemu_init, asking for a thread level.  *provided (may be NULL) gets
 * the PE's level now: the one requested (or more, in a PE that already
 * had more), except on a transport that runs PEs as fibers of one thread
 * (sim), which grants FUNNELED at most.  At
 * SERIALIZED and above, any thread of a process that hosts one PE calls the
 * library as that PE; threads of PEs that share a process (local) join
 * their PE with shmemu_thread_attach.  Returns what shmemu_init returns.
 */
int shmemu_init_thread(int requested, int *provided);
/** The thread level of the calling PE (SHMEMU_THREAD_*), or -1 outside a PE. */
int shmemu_query_thread(void);

/** A PE, for threads it starts to join (shmemu_thread_attach). */
typedef struct shmemu_pe_handle_s *shmemu_pe_handle;
/** The calling PE's handle, or NULL outside a PE. */
shmemu_pe_handle shmemu_self(void);
/**
 * Make the calling thread call the library as PE pe (a handle from
 * shmemu_self, valid until that PE finalizes): how a thread that a PE of
 * the `local` transport starts joins it.  Raises the PE's thread level to
 * MULTIPLE.  SHMEMU_EINVAL for NULL or a thread that already is another
 * PE; SHMEMU_ENOTSUP where PEs are fibers of one thread (sim).
 */
int shmemu_thread_attach(shmemu_pe_handle pe);
/** The calling thread leaves the PE it joined with shmemu_thread_attach. */
int shmemu_thread_detach(void);

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
 * Report an error the way shmemu's own calls do, for libraries built on it:
 * prints "shmemu: PE p/n call: message", records status for
 * shmemu_last_status(), and in ABORT mode ends the job.  Returns status.
 */
int shmemu_error(int status, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * Describe compiled-in transport number index (0-based, in priority order).
 * Sets *name_p and *usable_p (1 if it can run here), and writes why it cannot
 * into why (may be NULL).  Returns SHMEMU_OK, or SHMEMU_EINVAL past the end.
 */
int shmemu_transport_info(int index, const char **name_p, int *usable_p,
                          char *why, size_t why_len);

/** What the last job this process ran on the `sim` transport did. */
typedef struct {
    uint64_t schedule; /* hash of the order in which PEs ran: equal for equal
                          interleavings, almost surely distinct otherwise */
    uint64_t steps;    /* scheduling points passed */
    uint64_t switches; /* times the running PE changed */
} shmemu_sim_stats;

/**
 * The `sim` transport runs every PE as a fiber under a seeded scheduler
 * ($SHMEMU_SIM, docs/SIM.md).  Fill *out with what its last job in this
 * process did (zeros before any).  Returns SHMEMU_OK, or SHMEMU_EINVAL for
 * a NULL out.
 */
int shmemu_sim_last(shmemu_sim_stats *out);

/* -------------------------------------------------------- symmetric memory */

/*
 * All four are collective over the world team and must get the same
 * arguments on every PE (else SHMEMU_EMISMATCH and NULL).  malloc, calloc,
 * align and realloc end with a barrier_all; free and realloc start with one.
 * The team workspaces are the library's: free or realloc of them is
 * SHMEMU_EINVAL.
 * A size of 0 returns NULL with status SHMEMU_OK.
 */
void *shmemu_malloc(size_t size);
void *shmemu_calloc(size_t count, size_t size);
/** alignment: a power of two, at most 256 MiB (every heap base is aligned
 *  to that). */
void *shmemu_align(size_t alignment, size_t size);
void *shmemu_realloc(void *ptr, size_t size);
void shmemu_free(void *ptr);

/**
 * Private (not symmetric) memory of this PE for code that allocates and then
 * calls the library, such as a collective's staging buffer: in ABORT mode a
 * call that fails, or sees the job aborted, unwinds the PE without returning,
 * and a plain malloc'd buffer would be lost.  A scratch block is released
 * when the PE ends, by whatever path (shmemu_finalize, the return of
 * pe_main, an abort), unless shmemu_scratch_free released it before.
 * Aligned as malloc's; not collective.  Out of memory: one line, NULL and
 * SHMEMU_ENOMEM in either mode.
 */
void *shmemu_scratch_malloc(size_t size);
/** Release a block of shmemu_scratch_malloc (NULL: nothing).  Works after an
 *  abort too; a pointer that is not a live block of this PE is
 *  SHMEMU_EINVAL and is left alone.  Returns the status. */
int shmemu_scratch_free(void *ptr);

/**
 * Address at which this PE can load from and store to PE pe's copy of the
 * symmetric object dest, or NULL (with shmemu_last_status()) where the
 * transport gives no direct access or in checker mode (SHMEMU_ENOTSUP), when
 * dest is not inside an allocated block (SHMEMU_ERANGE) or pe is not a PE
 * (SHMEMU_EPE).  Stores made through it are plain stores: they do not wake a
 * PE sleeping in a wait routine (use an atomic or a put).
 */
void *shmemu_ptr(const void *dest, int pe);

/**
 * 1 when host code may load and store this PE's own symmetric memory (its
 * heap lives in host memory: local, shm, and checker mode over them); 0
 * when it lives where only the library reaches it (device memory; the
 * staged transport), or outside a PE.  Code that reads results with plain
 * loads asks this first; shmemu_copy_local moves bytes either way.
 */
int shmemu_heap_host_accessible(void);

/** 1 if addr is a symmetric address that PE pe can be reached at, else 0. */
int shmemu_addr_accessible(const void *addr, int pe);

/** Bytes from addr to the end of the symmetric object (the shmemu_malloc'd
 *  block) that holds it, or 0 if addr is in none: [addr, addr + n) is one
 *  symmetric object iff n <= shmemu_sym_extent(addr). */
size_t shmemu_sym_extent(const void *addr);

/* ------------------------------------------------------------ checker mode */

/*
 * With SHMEMU_CHECK=fuzz[:SEED] (or opts.check) puts, non-fetching AMOs and
 * nonblocking gets are held and delivered later, in a seeded order, as late
 * as OpenSHMEM allows; library calls are perturbed with seeded yields and
 * sleeps; a peer's shmemu_ptr is a checked pointer on shm, NULL elsewhere.
 * Until a held nonblocking get completes, its destination holds
 * SHMEMU_CHECK_GET_POISON bytes.  With SHMEMU_CHECK=race, conflicting
 * accesses (two PEs writing the same bytes, or one writing what another
 * gets, with no synchronisation ordering them) are reported.  docs/CHECK.md
 * has the model.
 */

/** What fills a nonblocking get's destination under the checker until the
 *  get completes: a value made of these bytes was read too early. */
#define SHMEMU_CHECK_GET_POISON 0xfe

/** 1 if the calling PE runs in checker mode, else 0. */
int shmemu_check_enabled(void);

/**
 * The checker's notes so far in this job, one line each, as text in buf
 * (at most len bytes, NUL-terminated): likely causes of a wrong result,
 * such as a flag that overtook the data it announces.  Returns the number
 * of notes (0 outside checker mode).  Any PE may call it at any time;
 * called outside a PE, it gives the notes of the last checked job this
 * process launched.
 */
int shmemu_check_notes(char *buf, size_t len);

/**
 * Names [sym, sym + bytes) of the calling PE's symmetric memory signal pads
 * that every kernel leaves at zero (PyTorch SymmetricMemory's rule: the pad
 * words a kernel's barrier or signals used are back to 0 when it returns,
 * so that the next kernel counts from 0).  Under race detection, each time
 * the PE arrives at a sync of all PEs (shmemu_barrier_all, shmemu_sync_all,
 * a collective allocation) a nonzero pad byte is reported once, naming the
 * word, its value and the last kernel the PE ran, and the job ends with
 * SHMEMU_ERACE.  bytes 0 drops the range starting at sym; at most 16
 * ranges per PE.  Outside race detection it checks sym and does nothing.
 */
int shmemu_check_zero_pads(const void *sym, size_t bytes);

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

/*
 * Strided RMA (OpenSHMEM's iput/iget and ibput/ibget).  nblocks blocks of
 * bsize elements of elsize bytes each: block i is read from src + i * sst
 * elements and written to dest + i * dst elements (strides in elements, of
 * either sign).  dest (put) / src (get) is symmetric, on PE pe.  The blocks
 * written must not overlap (|dst| >= bsize when nblocks > 1); the blocks
 * read may (sst 0 repeats one block).  Every address is checked before the
 * first block moves: bad input moves nothing.  Blocking, as shmemu_putmem
 * and shmemu_getmem are.
 */
int shmemu_ibput(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                 size_t nblocks, size_t elsize, int pe);
int shmemu_ibget(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                 size_t nblocks, size_t elsize, int pe);
/*
 * Typed forms, for each RMA type: element strides (iput, iget: bsize 1)
 * and block strides.
 *   int shmemu_NAME_iput(TYPE *dest, const TYPE *src, ptrdiff_t dst,
 *                        ptrdiff_t sst, size_t nelems, int pe);
 *   int shmemu_NAME_iget(...same...);
 *   int shmemu_NAME_ibput(TYPE *dest, const TYPE *src, ptrdiff_t dst,
 *                         ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);
 *   int shmemu_NAME_ibget(...same...);
 */
#define SHMEMU_X_STRIDED_DECL(NAME, TYPE)                                      \
    int shmemu_##NAME##_iput(TYPE *dest, const TYPE *src, ptrdiff_t dst,      \
                             ptrdiff_t sst, size_t nelems, int pe);            \
    int shmemu_##NAME##_iget(TYPE *dest, const TYPE *src, ptrdiff_t dst,      \
                             ptrdiff_t sst, size_t nelems, int pe);            \
    int shmemu_##NAME##_ibput(TYPE *dest, const TYPE *src, ptrdiff_t dst,     \
                              ptrdiff_t sst, size_t bsize, size_t nblocks,     \
                              int pe);                                         \
    int shmemu_##NAME##_ibget(TYPE *dest, const TYPE *src, ptrdiff_t dst,     \
                              ptrdiff_t sst, size_t bsize, size_t nblocks,     \
                              int pe);
SHMEMU_RMA_TYPES(SHMEMU_X_STRIDED_DECL)
#undef SHMEMU_X_STRIDED_DECL

/* ----------------------------------------------------------- order and sync */

/** Order this PE's puts, AMOs and put-signals to each PE before later ones
 *  (those of the calling thread's current context, see below). */
int shmemu_fence(void);
/** Complete every outstanding put, get, AMO and put-signal of this PE (on
 *  the calling thread's current context). */
int shmemu_quiet(void);

/*
 * Contexts: separate streams of puts, gets and AMOs (OpenSHMEM's
 * shmem_ctx_t).  A thread's calls go to its current context, the default
 * (SHMEMU_CTX_DEFAULT) until shmemu_ctx_select picks another; quiet and
 * fence then complete and order that context's operations only.  Syncs
 * and collectives complete the default context's.  Without the checker
 * every context shares the transport's stream (a quiet completes all,
 * which the model allows); checker mode holds and completes each
 * context's operations apart, so a missing per-context quiet shows.
 */
typedef int shmemu_ctx_t;
#define SHMEMU_CTX_DEFAULT 0
/** A new context of this PE in *ctx (never SHMEMU_CTX_DEFAULT). */
int shmemu_ctx_create(shmemu_ctx_t *ctx);
/** Complete ctx's operations and retire it; the default one stays. */
int shmemu_ctx_destroy(shmemu_ctx_t ctx);
/** Make ctx the calling thread's current context; returns the previous
 *  one, or a negative status if ctx is not one of this PE's. */
int shmemu_ctx_select(shmemu_ctx_t ctx);
/** shmemu_quiet / shmemu_fence on ctx, whatever the current context. */
int shmemu_ctx_quiet(shmemu_ctx_t ctx);
int shmemu_ctx_fence(shmemu_ctx_t ctx);
/** quiet, then wait until every PE has arrived: all RMA issued before is
 *  complete and visible everywhere on return. */
int shmemu_barrier_all(void);
/** Wait until every PE has arrived; completes nothing. */
int shmemu_sync_all(void);

/* ----------------------------------------------------------------- atomics */

/*
 * Atomic operations on a naturally aligned symmetric object of PE pe.  Every
 * AMO is atomic with respect to every other AMO on the same object from any
 * PE.  A fetching AMO is complete on return; a non-fetching one (set, inc,
 * add, and, or, xor) is ordered like a put: by shmemu_fence, complete at
 * shmemu_quiet (the mapped transports perform it at once, checker mode
 * holds it as OpenSHMEM allows).  Fetching forms return the old value and
 * record their status for shmemu_last_status() (0 on error).  Errors: a
 * misaligned dest is SHMEMU_EINVAL, a non-symmetric one SHMEMU_ERANGE, a bad
 * pe SHMEMU_EPE.
 */

/* X(NAME, TYPE): the standard AMO types. */
#define SHMEMU_AMO_TYPES(X)                                                    \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(longlong, long long)                                                     \
    X(uint, unsigned int)                                                      \
    X(ulong, unsigned long)                                                    \
    X(ulonglong, unsigned long long)                                           \
    X(int32, int32_t)                                                          \
    X(int64, int64_t)                                                          \
    X(uint32, uint32_t)                                                        \
    X(uint64, uint64_t)                                                        \
    X(size, size_t)                                                            \
    X(ptrdiff, ptrdiff_t)

/* X(NAME, TYPE): the extended AMO types (fetch, set, swap): standard ones
 * plus float and double. */
#define SHMEMU_AMO_EXT_TYPES(X)                                                \
    SHMEMU_AMO_TYPES(X)                                                        \
    X(float, float)                                                            \
    X(double, double)

/* X(NAME, TYPE): the bitwise AMO types. */
#define SHMEMU_AMO_BIT_TYPES(X)                                                \
    X(uint, unsigned int)                                                      \
    X(ulong, unsigned long)                                                    \
    X(ulonglong, unsigned long long)                                           \
    X(int32, int32_t)                                                          \
    X(int64, int64_t)                                                          \
    X(uint32, uint32_t)                                                        \
    X(uint64, uint64_t)

#define SHMEMU_X_AMO_EXT_DECL(NAME, TYPE)                                      \
    TYPE shmemu_##NAME##_atomic_fetch(const TYPE *src, int pe);                \
    int shmemu_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);            \
    TYPE shmemu_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);
#define SHMEMU_X_AMO_DECL(NAME, TYPE)                                          \
    TYPE shmemu_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, \
                                             int pe);                          \
    TYPE shmemu_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);                 \
    int shmemu_##NAME##_atomic_inc(TYPE *dest, int pe);                        \
    TYPE shmemu_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);     \
    int shmemu_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);
#define SHMEMU_X_AMO_BIT_DECL(NAME, TYPE)                                      \
    TYPE shmemu_##NAME##_atomic_fetch_and(TYPE *dest, TYPE value, int pe);     \
    int shmemu_##NAME##_atomic_and(TYPE *dest, TYPE value, int pe);            \
    TYPE shmemu_##NAME##_atomic_fetch_or(TYPE *dest, TYPE value, int pe);      \
    int shmemu_##NAME##_atomic_or(TYPE *dest, TYPE value, int pe);             \
    TYPE shmemu_##NAME##_atomic_fetch_xor(TYPE *dest, TYPE value, int pe);     \
    int shmemu_##NAME##_atomic_xor(TYPE *dest, TYPE value, int pe);
SHMEMU_AMO_EXT_TYPES(SHMEMU_X_AMO_EXT_DECL)
SHMEMU_AMO_TYPES(SHMEMU_X_AMO_DECL)
SHMEMU_AMO_BIT_TYPES(SHMEMU_X_AMO_BIT_DECL)
#undef SHMEMU_X_AMO_EXT_DECL
#undef SHMEMU_X_AMO_DECL
#undef SHMEMU_X_AMO_BIT_DECL

/* ---------------------------------------------------------- point-to-point */

/* Comparisons for wait_until, test and signal_wait_until. */
enum { SHMEMU_CMP_EQ, SHMEMU_CMP_NE, SHMEMU_CMP_GT, SHMEMU_CMP_GE, SHMEMU_CMP_LT,
       SHMEMU_CMP_LE };

/* X(NAME, TYPE): the point-to-point synchronisation types. */
#define SHMEMU_P2P_TYPES(X)                                                    \
    X(short, short)                                                            \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(longlong, long long)                                                     \
    X(ushort, unsigned short)                                                  \
    X(uint, unsigned int)                                                      \
    X(ulong, unsigned long)                                                    \
    X(ulonglong, unsigned long long)                                           \
    X(int32, int32_t)                                                          \
    X(int64, int64_t)                                                          \
    X(uint32, uint32_t)                                                        \
    X(uint64, uint64_t)                                                        \
    X(size, size_t)                                                            \
    X(ptrdiff, ptrdiff_t)

/*
 * ivar / ivars are symmetric objects of the calling PE, updated by other PEs
 * through puts, AMOs or put-with-signal (plain stores through shmemu_ptr do
 * not wake a sleeping waiter).  status (may be NULL) excludes element i when
 * status[i] is nonzero.  A waiting PE spins briefly, then sleeps until an
 * update of its heap wakes it.  If every PE ends up waiting with nothing able
 * to wake it, the waits return SHMEMU_EDEADLOCK.
 *
 *   int    shmemu_NAME_wait_until(TYPE *ivar, int cmp, TYPE value);
 *   int    shmemu_NAME_wait_until_all(TYPE *ivars, size_t nelems,
 *                                     const int *status, int cmp, TYPE value);
 *   size_t shmemu_NAME_wait_until_any(...same...);  index, or SIZE_MAX when
 *                                                   the wait set is empty
 *   size_t shmemu_NAME_wait_until_some(TYPE *ivars, size_t nelems,
 *                 size_t *indices, const int *status, int cmp, TYPE value);
 *                                                   count of indices written
 *   _vector forms take const TYPE *values (one per element) instead of value.
 *   int    shmemu_NAME_test(TYPE *ivar, int cmp, TYPE value);   1, 0 or <0
 *   int    shmemu_NAME_test_all(...), size_t shmemu_NAME_test_any(...),
 *   size_t shmemu_NAME_test_some(...): the wait forms without waiting
 *   (test_any: SIZE_MAX when none holds; test_some: 0).
 */
#define SHMEMU_X_P2P_DECL(NAME, TYPE)                                          \
    int shmemu_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE value);           \
    int shmemu_##NAME##_test(TYPE *ivar, int cmp, TYPE value);                 \
    int shmemu_##NAME##_wait_until_all(TYPE *ivars, size_t nelems,            \
                                       const int *status, int cmp, TYPE value); \
    size_t shmemu_##NAME##_wait_until_any(TYPE *ivars, size_t nelems,         \
                                          const int *status, int cmp,         \
                                          TYPE value);                         \
    size_t shmemu_##NAME##_wait_until_some(TYPE *ivars, size_t nelems,        \
                                           size_t *indices, const int *status, \
                                           int cmp, TYPE value);               \
    int shmemu_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,     \
                                              const int *status, int cmp,     \
                                              const TYPE *values);             \
    size_t shmemu_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,  \
                                                 const int *status, int cmp,  \
                                                 const TYPE *values);          \
    size_t shmemu_##NAME##_wait_until_some_vector(                            \
        TYPE *ivars, size_t nelems, size_t *indices, const int *status,       \
        int cmp, const TYPE *values);                                          \
    int shmemu_##NAME##_test_all(TYPE *ivars, size_t nelems,                  \
                                 const int *status, int cmp, TYPE value);      \
    size_t shmemu_##NAME##_test_any(TYPE *ivars, size_t nelems,               \
                                    const int *status, int cmp, TYPE value);   \
    size_t shmemu_##NAME##_test_some(TYPE *ivars, size_t nelems,              \
                                     size_t *indices, const int *status,      \
                                     int cmp, TYPE value);
SHMEMU_P2P_TYPES(SHMEMU_X_P2P_DECL)
#undef SHMEMU_X_P2P_DECL

/* ----------------------------------------------------------------- signals */

enum { SHMEMU_SIGNAL_SET, SHMEMU_SIGNAL_ADD };

/**
 * Put nbytes from src to dest on PE pe, then update the uint64_t sig_addr on
 * pe with signal (SHMEMU_SIGNAL_SET or _ADD, atomically).  Whoever sees the
 * signal change sees all the data.  sig_addr: symmetric, 8-byte aligned.
 * nbytes may be 0 (signal only).  The _nbi form completes at quiet.
 */
int shmemu_putmem_signal(void *dest, const void *src, size_t nbytes,
                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
int shmemu_putmem_signal_nbi(void *dest, const void *src, size_t nbytes,
                             uint64_t *sig_addr, uint64_t signal, int sig_op,
                             int pe);
/* Typed forms: shmemu_NAME_put_signal[_nbi](TYPE *dest, const TYPE *src,
 * size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
 * for every RMA type. */
#define SHMEMU_X_SIG_DECL(NAME, TYPE)                                          \
    int shmemu_##NAME##_put_signal(TYPE *dest, const TYPE *src, size_t nelems, \
                                   uint64_t *sig_addr, uint64_t signal,        \
                                   int sig_op, int pe);                        \
    int shmemu_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *src,           \
                                       size_t nelems, uint64_t *sig_addr,      \
                                       uint64_t signal, int sig_op, int pe);
SHMEMU_RMA_TYPES(SHMEMU_X_SIG_DECL)
#undef SHMEMU_X_SIG_DECL

/** Update the signal word sig_addr on PE pe atomically, with no data: set
 *  it to signal, or add signal to it (OpenSHMEM 1.6's shmem_signal_set and
 *  shmem_signal_add).  No order with this PE's earlier puts: fence first
 *  where that matters, or use a put with signal. */
int shmemu_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
int shmemu_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
/** Wait until *sig_addr (this PE's) cmp value holds; returns the value that
 *  satisfied it (status: shmemu_last_status). */
uint64_t shmemu_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t value);
/** Atomic read of this PE's signal word. */
uint64_t shmemu_signal_fetch(const uint64_t *sig_addr);

/* ------------------------------------------------------------------- teams */

/* A team handle is local to the PE that holds it. */
typedef int shmemu_team_t;
#define SHMEMU_TEAM_INVALID ((shmemu_team_t)-1)
#define SHMEMU_TEAM_WORLD ((shmemu_team_t)0)
/* Every PE whose heap this PE can load and store directly: on local and shm,
 * the whole job. */
#define SHMEMU_TEAM_SHARED ((shmemu_team_t)1)

typedef struct {
    int num_contexts;
} shmemu_team_config_t;
#define SHMEMU_TEAM_NUM_CONTEXTS (1L << 0)

/**
 * Collective over parent: members are parent PEs start + i * stride for
 * 0 <= i < size (stride may be negative; 0 only with size 1).  Members get
 * the new team, other parent PEs SHMEMU_TEAM_INVALID.  Returns SHMEMU_OK;
 * SHMEMU_EINVAL for an invalid triplet or parent (new_team set to
 * SHMEMU_TEAM_INVALID on every PE), SHMEMU_EMISMATCH when PEs pass different
 * arguments, SHMEMU_ENOMEM when every team slot is in use.
 */
int shmemu_team_split_strided(shmemu_team_t parent, int start, int stride,
                              int size, const shmemu_team_config_t *config,
                              long config_mask, shmemu_team_t *new_team);
/**
 * Collective over parent: parent PE p sits at (x, y) = (p % xrange,
 * p / xrange); xaxis_team holds the PEs with this PE's y (ranked by x),
 * yaxis_team those with its x (ranked by y).  xrange >= 1.
 */
int shmemu_team_split_2d(shmemu_team_t parent, int xrange,
                         const shmemu_team_config_t *xaxis_config,
                         long xaxis_mask, shmemu_team_t *xaxis_team,
                         const shmemu_team_config_t *yaxis_config,
                         long yaxis_mask, shmemu_team_t *yaxis_team);
/** This PE's number in team, or -1 (not a member, invalid team). */
int shmemu_team_my_pe(shmemu_team_t team);
/** Number of PEs in team, or -1 for an invalid team. */
int shmemu_team_n_pes(shmemu_team_t team);
/** src_pe's number in dest, or -1 when it is not in both teams. */
int shmemu_team_translate_pe(shmemu_team_t src, int src_pe, shmemu_team_t dest);
/** The config team was created with (fields selected by mask). */
int shmemu_team_get_config(shmemu_team_t team, long config_mask,
                           shmemu_team_config_t *config);
/** Wait until every member of team has arrived; completes nothing. */
int shmemu_team_sync(shmemu_team_t team);
/**
 * Collective over team: check that every member is in the same call (its
 * name, call) with the same nvals values (at most 5); names, comma
 * separated ("count,root,dtype,op"), label them in the report.  Returns
 * SHMEMU_OK, or SHMEMU_EMISMATCH on every member with one line naming the
 * PEs and the values that differ; the team stays usable.  Costs two team
 * syncs: the built-in collectives call it in checker mode.
 */
int shmemu_team_agree(shmemu_team_t team, const char *call, const char *names,
                      const long long *vals, int nvals);
/** Collective over team: release it.  WORLD and SHARED cannot be destroyed;
 *  SHMEMU_TEAM_INVALID is ignored. */
void shmemu_team_destroy(shmemu_team_t team);

/*
 * Every team has a symmetric workspace of SHMEMU_TEAM_WORKSPACE_BYTES for
 * writing collectives without allocating: signal words and scratch at the
 * same symmetric address on every member, zeroed when the team is created.
 * shmemu's own collectives use the first SHMEMU_TEAM_WORKSPACE_BYTES / 2
 * bytes; the second half is the user's.  It lives outside the bytes asked
 * for with heap_size.
 */
#define SHMEMU_TEAM_WORKSPACE_BYTES 16384
/** team's workspace on this PE (a member), or NULL. */
void *shmemu_team_workspace(shmemu_team_t team);

/* ------------------------------------------------------------- collectives */

/* Element types of the generic collectives.  FLOAT16 (IEEE binary16) and
 * BFLOAT16 are stored as uint16_t, reduced in float and rounded to nearest
 * even, as GPU libraries do. */
typedef enum {
    SHMEMU_INT8, SHMEMU_INT16, SHMEMU_INT32, SHMEMU_INT64,
    SHMEMU_UINT8, SHMEMU_UINT16, SHMEMU_UINT32, SHMEMU_UINT64,
    SHMEMU_FLOAT, SHMEMU_DOUBLE, SHMEMU_FLOAT16, SHMEMU_BFLOAT16,
    SHMEMU_DTYPE_COUNT
} shmemu_dtype_t;

/* Reductions; the bitwise ones apply to integer types only. */
typedef enum {
    SHMEMU_SUM, SHMEMU_PROD, SHMEMU_MIN, SHMEMU_MAX,
    SHMEMU_BAND, SHMEMU_BOR, SHMEMU_BXOR,
    SHMEMU_OP_COUNT
} shmemu_op_t;

/** Bytes per element (0 for an invalid dtype). */
size_t shmemu_dtype_size(shmemu_dtype_t dtype);
/** "int32", "float16", ...; "invalid" otherwise. */
const char *shmemu_dtype_name(shmemu_dtype_t dtype);
/** "sum", "band", ...; "invalid" otherwise. */
const char *shmemu_op_name(shmemu_op_t op);
/** 1 if op applies to dtype. */
int shmemu_op_valid(shmemu_op_t op, shmemu_dtype_t dtype);
/** dst[i] = a[i] op b[i] for i < n, as shmemu's collectives compute it (dst
 *  may be a or b).  Not collective.  Each operand is private memory or this
 *  PE's symmetric heap; on heaps the host cannot touch (see
 *  shmemu_heap_host_accessible) the transport computes it.  SHMEMU_EINVAL
 *  when op does not apply to dtype or an operand is NULL. */
int shmemu_reduce_local(shmemu_dtype_t dtype, shmemu_op_t op, void *dst, const void *a,
                        const void *b, size_t n);
/** Copy nbytes from src to dst (they may overlap), each private memory or
 *  this PE's symmetric heap: a memmove where heaps are host-addressable, a
 *  copy inside the transport where they are not.  Not collective. */
int shmemu_copy_local(void *dst, const void *src, size_t nbytes);

/*
 * Generic collectives, all collective over team; dest and src are symmetric
 * (the same arguments on every member; root is a team PE number).
 *   allreduce       dest[count] = op over members of src[count]
 *   reduce          the same, defined at root only (elsewhere dest is
 *                   scratch, its contents unspecified on return)
 *   reduce_scatter  dest[recvcount] = member i's slice of op over members of
 *                   src[npes * recvcount]
 *   allgather       dest[npes * sendcount] = every member's src[sendcount]
 *   broadcast       dest[count] = root's src[count]
 *   alltoall        dest block j[count] = member j's src block me[count]
 * dest == src works for allreduce, reduce and broadcast.  Which algorithm
 * the generic call runs is chosen by $SHMEMU_<COLLECTIVE>_ALGO (see each
 * list below), default auto (by size and PE count).  Returns SHMEMU_OK or
 * the failure's status (SHMEMU_EINVAL: bad team, dtype, op, root or buffer).
 */
int shmemu_allreduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, shmemu_op_t op);
int shmemu_reduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                  shmemu_dtype_t dtype, shmemu_op_t op, int root);
int shmemu_reduce_scatter(shmemu_team_t team, void *dest, const void *src,
                          size_t recvcount, shmemu_dtype_t dtype, shmemu_op_t op);
int shmemu_allgather(shmemu_team_t team, void *dest, const void *src, size_t sendcount,
                     shmemu_dtype_t dtype);
int shmemu_broadcast(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, int root);
int shmemu_alltoall(shmemu_team_t team, void *dest, const void *src, size_t count,
                    shmemu_dtype_t dtype);

/* The algorithms by name, with the generic signatures.
 * SHMEMU_ALLREDUCE_ALGO=oneshot|ring|rd|rabenseifner|tree|dev_oneshot|dev_twoshot|auto */
int shmemu_allreduce_oneshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype, shmemu_op_t op);
int shmemu_allreduce_ring(shmemu_team_t team, void *dest, const void *src, size_t count,
                          shmemu_dtype_t dtype, shmemu_op_t op);
int shmemu_allreduce_rd(shmemu_team_t team, void *dest, const void *src, size_t count,
                        shmemu_dtype_t dtype, shmemu_op_t op);
int shmemu_allreduce_rabenseifner(shmemu_team_t team, void *dest, const void *src,
                                  size_t count, shmemu_dtype_t dtype, shmemu_op_t op);
int shmemu_allreduce_tree(shmemu_team_t team, void *dest, const void *src, size_t count,
                          shmemu_dtype_t dtype, shmemu_op_t op);
/* SHMEMU_REDUCE_SCATTER_ALGO=ring|rhalving|dev_ring|auto */
int shmemu_reduce_scatter_ring(shmemu_team_t team, void *dest, const void *src,
                               size_t recvcount, shmemu_dtype_t dtype, shmemu_op_t op);
int shmemu_reduce_scatter_rhalving(shmemu_team_t team, void *dest, const void *src,
                                   size_t recvcount, shmemu_dtype_t dtype, shmemu_op_t op);
/* SHMEMU_ALLGATHER_ALGO=ring|bruck|rd|dev_ring|auto */
int shmemu_allgather_ring(shmemu_team_t team, void *dest, const void *src,
                          size_t sendcount, shmemu_dtype_t dtype);
int shmemu_allgather_bruck(shmemu_team_t team, void *dest, const void *src,
                           size_t sendcount, shmemu_dtype_t dtype);
int shmemu_allgather_rd(shmemu_team_t team, void *dest, const void *src, size_t sendcount,
                        shmemu_dtype_t dtype);
/* SHMEMU_BROADCAST_ALGO=tree|chain|dev_pull|auto */
int shmemu_broadcast_tree(shmemu_team_t team, void *dest, const void *src, size_t count,
                          shmemu_dtype_t dtype, int root);
int shmemu_broadcast_chain(shmemu_team_t team, void *dest, const void *src, size_t count,
                           shmemu_dtype_t dtype, int root);
/* SHMEMU_ALLTOALL_ALGO=pairwise|auto */
int shmemu_alltoall_pairwise(shmemu_team_t team, void *dest, const void *src, size_t count,
                             shmemu_dtype_t dtype);
/* SHMEMU_REDUCE_ALGO=tree|auto */
int shmemu_reduce_tree(shmemu_team_t team, void *dest, const void *src, size_t count,
                       shmemu_dtype_t dtype, shmemu_op_t op, int root);

/* Device-initiated built-ins (docs/DEVICE.md): the same signatures, run as
 * one kernel launch on the calling PE whose device threads read peers'
 * memory, put, signal and wait (src/coll/device_kernels.cu, written with
 * shmemu_device.h).  They run where kernels run on the CPU: local, shm and
 * sim; elsewhere SHMEMU_ENOTSUP with the reason.  Selected by name, e.g.
 * SHMEMU_ALLREDUCE_ALGO=dev_oneshot. */
/** Allreduce: every PE reads every member's src (the one-shot custom
 *  allreduce); members get the same bits. */
int shmemu_allreduce_dev_oneshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                                 shmemu_dtype_t dtype, shmemu_op_t op);
/** Allreduce: each PE reduces its chunk of every src, then gathers the
 *  others' chunks (the two-shot custom allreduce). */
int shmemu_allreduce_dev_twoshot(shmemu_team_t team, void *dest, const void *src, size_t count,
                                 shmemu_dtype_t dtype, shmemu_op_t op);
/** Allgather: chunks forwarded round the ring with device puts and signals. */
int shmemu_allgather_dev_ring(shmemu_team_t team, void *dest, const void *src,
                              size_t sendcount, shmemu_dtype_t dtype);
/** Reduce-scatter: partials pulled round the ring through peer pointers. */
int shmemu_reduce_scatter_dev_ring(shmemu_team_t team, void *dest, const void *src,
                                   size_t recvcount, shmemu_dtype_t dtype, shmemu_op_t op);
/** Broadcast: every member reads the root's src through a peer pointer. */
int shmemu_broadcast_dev_pull(shmemu_team_t team, void *dest, const void *src, size_t count,
                              shmemu_dtype_t dtype, int root);
/** A dissemination barrier on signals over team (arrival only). */
int shmemu_barrier_dissemination(shmemu_team_t team);

/* The OpenSHMEM 1.5 team forms, in bytes (nelems) or TYPE elements. */
int shmemu_broadcastmem(shmemu_team_t team, void *dest, const void *source, size_t nelems,
                        int PE_root);
int shmemu_fcollectmem(shmemu_team_t team, void *dest, const void *source, size_t nelems);
/** Like fcollect, but each member may contribute a different nelems; dest
 *  holds the contributions in team order. */
int shmemu_collectmem(shmemu_team_t team, void *dest, const void *source, size_t nelems);
int shmemu_alltoallmem(shmemu_team_t team, void *dest, const void *source, size_t nelems);

/* shmemu_NAME_OP_reduce(team, dest, source, nreduce) for the OpenSHMEM 1.5
 * reduction types: X(NAME, TYPE, DTYPE, SUM_PROD_MIN_MAX, BITWISE). */
#define SHMEMU_REDUCE_TYPES(X)                                                 \
    X(char, char, SHMEMU_INT8, 1, 0)                                           \
    X(schar, signed char, SHMEMU_INT8, 1, 0)                                   \
    X(short, short, SHMEMU_INT16, 1, 0)                                        \
    X(int, int, SHMEMU_INT32, 1, 0)                                            \
    X(long, long, SHMEMU_INT64, 1, 0)                                          \
    X(longlong, long long, SHMEMU_INT64, 1, 0)                                 \
    X(ptrdiff, ptrdiff_t, SHMEMU_INT64, 1, 0)                                  \
    X(uchar, unsigned char, SHMEMU_UINT8, 1, 1)                                \
    X(ushort, unsigned short, SHMEMU_UINT16, 1, 1)                             \
    X(uint, unsigned int, SHMEMU_UINT32, 1, 1)                                 \
    X(ulong, unsigned long, SHMEMU_UINT64, 1, 1)                               \
    X(ulonglong, unsigned long long, SHMEMU_UINT64, 1, 1)                      \
    X(int8, int8_t, SHMEMU_INT8, 1, 1)                                         \
    X(int16, int16_t, SHMEMU_INT16, 1, 1)                                      \
    X(int32, int32_t, SHMEMU_INT32, 1, 1)                                      \
    X(int64, int64_t, SHMEMU_INT64, 1, 1)                                      \
    X(uint8, uint8_t, SHMEMU_UINT8, 1, 1)                                      \
    X(uint16, uint16_t, SHMEMU_UINT16, 1, 1)                                   \
    X(uint32, uint32_t, SHMEMU_UINT32, 1, 1)                                   \
    X(uint64, uint64_t, SHMEMU_UINT64, 1, 1)                                   \
    X(size, size_t, SHMEMU_UINT64, 1, 1)                                       \
    X(float, float, SHMEMU_FLOAT, 1, 0)                                        \
    X(double, double, SHMEMU_DOUBLE, 1, 0)

#define SHMEMU_X_RED_ARITH(NAME, TYPE)                                         \
    int shmemu_##NAME##_sum_reduce(shmemu_team_t team, TYPE *dest,            \
                                   const TYPE *source, size_t nreduce);        \
    int shmemu_##NAME##_prod_reduce(shmemu_team_t team, TYPE *dest,           \
                                    const TYPE *source, size_t nreduce);       \
    int shmemu_##NAME##_min_reduce(shmemu_team_t team, TYPE *dest,            \
                                   const TYPE *source, size_t nreduce);        \
    int shmemu_##NAME##_max_reduce(shmemu_team_t team, TYPE *dest,            \
                                   const TYPE *source, size_t nreduce);
#define SHMEMU_X_RED_BIT(NAME, TYPE)                                           \
    int shmemu_##NAME##_and_reduce(shmemu_team_t team, TYPE *dest,            \
                                   const TYPE *source, size_t nreduce);        \
    int shmemu_##NAME##_or_reduce(shmemu_team_t team, TYPE *dest,             \
                                  const TYPE *source, size_t nreduce);         \
    int shmemu_##NAME##_xor_reduce(shmemu_team_t team, TYPE *dest,            \
                                   const TYPE *source, size_t nreduce);
#define SHMEMU_X_RED_DECL(NAME, TYPE, DTYPE, ARITH, BIT)                       \
    SHMEMU_X_RED_ARITH(NAME, TYPE) SHMEMU_X_RED_BIT_##BIT(NAME, TYPE)
#define SHMEMU_X_RED_BIT_0(NAME, TYPE)
#define SHMEMU_X_RED_BIT_1(NAME, TYPE) SHMEMU_X_RED_BIT(NAME, TYPE)
SHMEMU_REDUCE_TYPES(SHMEMU_X_RED_DECL)
#undef SHMEMU_X_RED_DECL
#undef SHMEMU_X_RED_BIT_0
#undef SHMEMU_X_RED_BIT_1
#undef SHMEMU_X_RED_ARITH
#undef SHMEMU_X_RED_BIT

/* ---------------------------------------------------------------- verifier */

typedef enum {
    SHMEMU_COLL_ALLREDUCE, SHMEMU_COLL_REDUCE, SHMEMU_COLL_REDUCE_SCATTER,
    SHMEMU_COLL_ALLGATHER, SHMEMU_COLL_BROADCAST, SHMEMU_COLL_ALLTOALL,
    SHMEMU_COLL_COUNT
} shmemu_coll_t;

/* The generic signatures, by collective.  An algorithm returns SHMEMU_OK,
 * or an error; one that does not take a case (a type, an operation or a
 * team it was not written for) returns SHMEMU_ENOTSUP from the call on
 * every PE of the team, before any communication: the verifier counts the
 * case as declined, not failed. */
typedef int (*shmemu_allreduce_fn)(shmemu_team_t team, void *dest, const void *src,
                                   size_t count, shmemu_dtype_t dtype, shmemu_op_t op);
typedef int (*shmemu_reduce_fn)(shmemu_team_t team, void *dest, const void *src,
                                size_t count, shmemu_dtype_t dtype, shmemu_op_t op, int root);
typedef shmemu_allreduce_fn shmemu_reduce_scatter_fn;
typedef int (*shmemu_allgather_fn)(shmemu_team_t team, void *dest, const void *src,
                                   size_t count, shmemu_dtype_t dtype);
typedef int (*shmemu_broadcast_fn)(shmemu_team_t team, void *dest, const void *src,
                                   size_t count, shmemu_dtype_t dtype, int root);
typedef shmemu_allgather_fn shmemu_alltoall_fn;

enum { SHMEMU_VERIFY_WORLD = 0, SHMEMU_VERIFY_STRIDED = 1 };
enum { SHMEMU_VERIFY_EXACT = 0, SHMEMU_VERIFY_RANDOM = 1 };

/* One case: an algorithm on one point of the test matrix. */
typedef struct shmemu_verify_case {
    shmemu_coll_t coll;
    const char *algo;      /* its name, for reports */
    void (*fn)(void);      /* the algorithm, cast to the collective's _fn type */
    const char *transport; /* NULL: local */
    int npes;
    size_t count;          /* count, recvcount or sendcount, as the collective has it */
    shmemu_dtype_t dtype;
    shmemu_op_t op;        /* reductions only */
    int in_place;          /* dest == src (allreduce, reduce, broadcast) */
    int team;              /* SHMEMU_VERIFY_WORLD or _STRIDED (world PEs 0, 2, 4, ...) */
    int root;              /* reduce, broadcast: a team PE number */
    uint64_t seed;         /* inputs are a function of (seed, PE, index) */
    int inputs;            /* SHMEMU_VERIFY_EXACT or _RANDOM (see docs/VERIFY.md) */
    const char *check;     /* checker mode for the job ("fuzz:7,race"); NULL:
                              $SHMEMU_CHECK (docs/CHECK.md) */
    size_t heap_size;      /* per-PE heap; 0: the case's data plus room for scratch
                              that grows with PEs x count */
    double timeout;        /* seconds; 0: derived from the case's size */
} shmemu_verify_case;

typedef struct shmemu_verify_result {
    int passed;
    int status;        /* what the job returned (SHMEMU_EDEADLOCK, a PE's error...) */
    char reason[512];  /* one line: what was wrong */
    int pe;            /* first difference: team PE (-1: none) */
    size_t index;      /* element of dest, counted from 0; guard bytes: byte offset */
    char expected[48];
    char got[48];
    double seconds;
    char notes[1024];  /* checker mode: what the checker saw that explains a
                          failure (shmemu_check_notes), else empty */
    int declined;      /* 1: every PE of the team returned SHMEMU_ENOTSUP from the
                          algorithm's first call (passed is 0; not a failure) */
} shmemu_verify_result;

/** Run one case (a job of vc->npes PEs) and judge it.  Returns SHMEMU_OK
 *  when the case could be run (whatever the verdict, in res), or
 *  SHMEMU_EINVAL for a case that makes no sense. */
int shmemu_verify_run(const shmemu_verify_case *vc, shmemu_verify_result *res);

/** Name of a collective ("allreduce"), or NULL. */
const char *shmemu_coll_name(shmemu_coll_t coll);
/** The algorithm the generic collective coll runs in the calling PE's job:
 *  SHMEMU_<NAME>_ALGO as the job read it when it started ("auto" unless
 *  set); NULL outside a PE, and NULL with SHMEMU_EINVAL reported for an
 *  unknown coll. */
const char *shmemu_coll_algo(shmemu_coll_t coll);
/** The built-in algorithm number i of coll: sets *name_p and *fn_p;
 *  SHMEMU_EINVAL past the last. */
int shmemu_verify_builtin(shmemu_coll_t coll, int i, const char **name_p,
                          void (**fn_p)(void));

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMU_H */
