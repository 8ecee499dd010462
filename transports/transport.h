/*
 * transport.h - the contract between the shmemu core and a transport.
 *
 * A transport is one `static const struct shmemu_transport_ops` listed in the
 * registry (src/runtime/registry.c).  It creates and maps heaps and the shared control
 * area, starts PEs, moves bytes (rma), performs atomics (amo) and sleeps/wakes
 * on control words.  It never sees core internals: only what this header
 * declares.  The core never touches heap bytes except through ptr() when the
 * transport sets SHMEMU_TL_CAP_LOAD_STORE.
 *
 * Compatibility: the table only grows at its end and `size` says how much of
 * it a transport was built with; the core tests SHMEMU_TL_HAS(ops, member)
 * before calling any member that was added later.  A member that may be NULL
 * says so; the core answers SHMEMU_ENOTSUP (or falls back) for it.
 */
#ifndef SHMEMU_TRANSPORT_H
#define SHMEMU_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

/* Heap sizes are multiples of this (huge-page friendly). */
#define SHMEMU_TL_HEAP_ALIGN ((size_t)2 << 20)
/* Every heap base is aligned to this, so that an offset aligned to any
 * power of two up to it gives an aligned address on every PE: the largest
 * alignment shmemu_align() accepts.  Costs address space only. */
#define SHMEMU_TL_BASE_ALIGN ((size_t)256 << 20)

/* Distance between consecutive PEs' heaps in a transport's reservation:
 * the heap, an unmapped guard of at least SHMEMU_TL_HEAP_ALIGN, rounded so
 * every base stays SHMEMU_TL_BASE_ALIGN-aligned. */
static inline size_t shmemu_tl_heap_stride(size_t heap_size)
{
    size_t span = heap_size + SHMEMU_TL_HEAP_ALIGN;
    return (span + SHMEMU_TL_BASE_ALIGN - 1) & ~(SHMEMU_TL_BASE_ALIGN - 1);
}

enum shmemu_tl_cap {
    /* ---- the heap memory ------------------------------------------- */
    /* Peer heaps are mapped in this process: ptr() returns loadable addresses
     * and the core may evaluate wait conditions by plain loads. */
    SHMEMU_TL_CAP_LOAD_STORE = 1u << 0,
    /* With LOAD_STORE: heap words are coherent CPU memory, so an AMO is
     * exactly shmemu_tl_cpu_amo() on heap_base[pe] + off.  The core then
     * applies AMOs itself (inlined, no call) unless a checking layer is
     * interposed. */
    SHMEMU_TL_CAP_CPU_ATOMICS = 1u << 3,
    /* Heap words may change with nobody telling the core (a kernel stores
     * through shmemu_ptr, stream-ordered work completes later): a PE asleep
     * in a wait looks at its word again at least every millisecond. */
    SHMEMU_TL_CAP_DEVICE_WRITES = 1u << 7,
    /* A PE's heap is memory of its own process and goes with it: a PE that
     * leaves the job (finalize, or returning from main) waits there until
     * every PE has left or the job ended -- OpenSHMEM's finalize is
     * collective -- so that no peer ever reaches a heap that is gone. */
    SHMEMU_TL_CAP_OWN_HEAPS = 1u << 9,

    /* ---- how PEs run ------------------------------------------------ */
    /* PEs are processes: control words are process-shared. */
    SHMEMU_TL_CAP_PROCESSES = 1u << 1,
    /* A program started by shmemu-run can join a job (job_attach). */
    SHMEMU_TL_CAP_SPMD = 1u << 2,
    /* PEs are user-level contexts of one OS thread that switch only inside
     * transport calls: a PE that waits must never spin or yield the CPU
     * (nothing else would run); the core goes straight to ctl_wait, calls
     * sched_point wherever it would otherwise spin or poll, and keeps its
     * per-thread state per PE through job->pe_ctx. */
    SHMEMU_TL_CAP_COOPERATIVE = 1u << 8,

    /* ---- control and completion ------------------------------------- */
    /* Every PE can do atomics on one shared control area (ctl): the core's
     * control plane (syncs, notify words, agreement, abort, deadlock
     * detection) runs on it.  Without it a transport must bring its own
     * control plane (not yet supported: job_create answers ENOTSUP). */
    SHMEMU_TL_CAP_SHARED_CTL = 1u << 4,
    /* rma honours nbi: a put may stay outstanding until quiet.  Without it
     * the core passes nbi = 0 and every put completes before rma returns. */
    SHMEMU_TL_CAP_NBI = 1u << 5,
    /* Operations advance only when the issuing PE calls progress (a network
     * without a progress thread): the core calls it while the PE waits. */
    SHMEMU_TL_CAP_PROGRESS = 1u << 6,
};

/* How a PE ended, as a process transport saw it (pe_exited callback). */
enum shmemu_tl_exit {
    SHMEMU_TL_EXIT_CODE,   /* exited; code = exit status */
    SHMEMU_TL_EXIT_SIGNAL, /* killed; code = signal number */
    SHMEMU_TL_EXIT_NOSTART /* could not be started; code = errno */
};

/* The job as the transport sees it. */
struct shmemu_tl_core;

struct shmemu_tl_job {
    /* ---- the job's shape: set by the core before job_create / job_attach */
    int npes;
    size_t heap_size; /* per PE; a multiple of SHMEMU_TL_HEAP_ALIGN */
    size_t ctl_size;  /* bytes of shared control area the core needs */
    /* Its first ctl_hot_size bytes are what every PE touches all the time;
     * the rest (the checker's shadow of every heap) is touched sparsely.
     * A transport may back the first part, not the rest, with huge pages. */
    size_t ctl_hot_size;
    void *priv;       /* ops->job_priv_size zeroed bytes, owned by the core */
    void *core;       /* opaque to the transport; passed back in callbacks */
    const struct shmemu_tl_core *calls; /* the core's callbacks (below) */
    /* For a COOPERATIVE transport: the core's per-thread state (the calling
     * PE, its last status) belongs to the PE, not to the thread.  On every
     * switch the transport saves the outgoing PE's (save = 1) into
     * pe_ctx_size bytes of its own and loads the incoming one's (save = 0,
     * calls->pe_ctx); zeroed bytes are a PE that has not started. */
    size_t pe_ctx_size;
    /* The job's seed (checker mode's fuzz:SEED; 0: none): a transport that
     * makes random choices of its own derives them from it unless told
     * otherwise, so that one seed replays the whole run. */
    uint64_t seed;
    /* Of each heap, only [0, heap_low) and the last heap_top bytes are
     * ever handed to the program (heap_low grows as it allocates; final
     * when job_destroy runs): the rest still holds what creation gave it.
     * A transport that keeps heaps for its next job zeroes only these. */
    size_t heap_low, heap_top;
    /* Checker mode will map heaps again (map_view, for its views of
     * peers' heaps): a transport that can only do so for heaps made for it
     * (a memory file, not private pages) makes them so. */
    int views;
    /* Checker mode will make the program's own view of its heap read-only
     * (race detection sees its stores): a transport that can reaches the
     * heaps for its own copies and atomics through a second mapping
     * (lib_base), so that they do not fault there. */
    int aliases;

    /* ---- the memory: set by the transport ---- */
    void *ctl;        /* ctl_size bytes, zero-filled at creation, shared by
                         every PE of the job */
    char **heap_base; /* [npes], allocated by the core: PE pe's heap as this
                         process addresses it (a device address for a GPU
                         transport).  Set by job_create / job_attach, or,
                         for heaps a PE allocates in its own process, by
                         pe_enter (its own) and wireup_connect (peers'). */
    char **lib_base;  /* [npes], allocated by the core, NULL entries: where
                         the transport's copies and atomics reach PE pe's
                         heap when not at heap_base (aliases) */
    /* Set by the transport when a lifecycle call fails: one line saying what
     * failed, with the numbers (the core prints it in its report). */
    char why[256];

    /* ---- a job of a launcher's (job_join) ---- */
    /* Set by the core before job_join: the nodes the job's processes run
     * on, as the launcher says. */
    int nnodes;
    /* Set by job_join where the job's processes share no memory (PEs on
     * several nodes): ctl is then this process's own copy of the control
     * area, kept at byte ctl_off of every PE's heap registration (beyond
     * heap_size, so users never address it), and the core runs its control
     * plane over rma and amo on peers' copies (src/ctl/net.c) instead of
     * shared atomics and futexes. */
    int ctl_remote;
    size_t ctl_off;
    /* Set by the core under ctl_remote, before pe_enter: a word of this
     * process's copy that the core naps on (a shared futex).  A transport
     * whose own thread progresses the network adds 1 to it and wakes it
     * whenever that progress moved something (a peer's update may have
     * landed), so that the core need not look every millisecond. */
    uint32_t *arrival_word;
};

/*
 * The core's callbacks: what a transport calls back into the core, in one
 * table the core fills (job->calls).  Each may be NULL where it says so.
 */
struct shmemu_tl_core {
    /* Called by a process transport's job_run, in the launching process, when
     * a PE process ends (any way): may be NULL. */
    void (*pe_exited)(struct shmemu_tl_job *job, int pe, int how, int code);
    /* Called by a process transport's job_run about every 20 ms while PEs
     * run: returns a signal to send to every PE process still running
     * (SIGTERM, SIGKILL, a forwarded SIGINT), or 0.  May be NULL. */
    int (*tick)(struct shmemu_tl_job *job);
    /* For a COOPERATIVE transport, on every switch (see pe_ctx_size). */
    void (*pe_ctx)(struct shmemu_tl_job *job, void *ctx, int save);
    /* Nonzero once the job has ended abnormally (a PE died, deadlock,
     * timeout): a transport waiting on a network for a peer that may be
     * gone stops waiting then and returns SHMEMU_EABORTED. */
    int (*aborted)(struct shmemu_tl_job *job);
    /* In job_join: lay out the control area this process has just made
     * (zero-filled), before any other process of the job maps it. */
    void (*ctl_init)(struct shmemu_tl_job *job);
    /* May be NULL.  A hint for a COOPERATIVE transport that can tell which
     * PE runs soon (a switch or two ahead): start fetching into the cache
     * what that PE touches first when it resumes, given its saved pe_ctx bytes (which
     * should be in the cache already).  Loads nothing else, changes
     * nothing: calling it for the wrong PE only costs memory traffic. */
    void (*pe_ctx_prefetch)(struct shmemu_tl_job *job, const void *ctx);
    /* In job_join: every process's len bytes, in PE order, into all
     * (npes * len bytes), and a barrier of every process: the bootstrap's,
     * collective over the job's processes (every one calls them in the
     * same order, failed or not, so that a failure ends the job through
     * the launcher instead of hanging it).  Status, with why filled. */
    int (*boot_allgather)(struct shmemu_tl_job *job, const void *mine, void *all, size_t len,
                          char *why, size_t wlen);
    int (*boot_barrier)(struct shmemu_tl_job *job, char *why, size_t wlen);
};

enum shmemu_tl_rma_op { SHMEMU_TL_PUT, SHMEMU_TL_GET };
enum shmemu_tl_sig_op { SHMEMU_TL_SIG_NONE, SHMEMU_TL_SIG_SET, SHMEMU_TL_SIG_ADD };

/* One RMA: bytes between local memory and [off, off+nbytes) of pe's heap. */
struct shmemu_tl_rma {
    int op;        /* shmemu_tl_rma_op */
    int pe;
    int nbi;       /* the caller accepts completion at the next quiet */
    size_t off;
    void *local;   /* PUT: source; GET: destination */
    size_t nbytes; /* > 0 (0 only for a put with signal: then local may
                      be NULL); the core has checked bounds */
    /* PUT only: after the data, apply sig_op with sig_value to the uint64_t
     * at sig_off of pe's heap, never visible before the data. */
    int sig_op;    /* shmemu_tl_sig_op */
    size_t sig_off;
    uint64_t sig_value;
    /* A blocking put (nbi = 0, no signal) whose caller also accepts
     * delivery at the next quiet, as OpenSHMEM's blocking put allows: it
     * needs only the local buffer reusable on return.  A transport for
     * which delivery costs a round trip (a network) may then leave the put
     * outstanding and return SHMEMU_TL_DEFERRED; the core wakes the target
     * again once a quiet or progress delivered it, as for nbi. */
    int lazy;
};

/* rma's answer to a lazy put it left outstanding until the next quiet. */
#define SHMEMU_TL_DEFERRED 1
/* Added to progress's answer when the call moved something. */
#define SHMEMU_TL_MOVED 2

enum shmemu_tl_amo_op {
    SHMEMU_TL_AMO_FETCH, /* result = *p */
    SHMEMU_TL_AMO_SET,   /* *p = value */
    SHMEMU_TL_AMO_SWAP,  /* result = *p, *p = value */
    SHMEMU_TL_AMO_CSWAP, /* result = *p, if (*p == cond) *p = value */
    SHMEMU_TL_AMO_ADD,   /* result = *p, *p += value */
    SHMEMU_TL_AMO_AND,
    SHMEMU_TL_AMO_OR,
    SHMEMU_TL_AMO_XOR
};

/* One atomic on a naturally aligned 4- or 8-byte word of pe's heap.  Values
 * are bit patterns in the low `width` bytes. */
struct shmemu_tl_amo {
    int op; /* shmemu_tl_amo_op */
    int pe;
    unsigned width; /* 4 or 8 */
    size_t off;
    uint64_t value;
    uint64_t cond;
    uint64_t *result; /* NULL: the old value is not wanted */
    /* With result NULL: the caller accepts completion at the next quiet
     * (OpenSHMEM orders a non-fetching AMO like a put), so a transport may
     * leave it outstanding and answer SHMEMU_TL_DEFERRED, as for a lazy
     * put. */
    int lazy;
    /* With lazy (and no result): control traffic whose target observes its
     * arrival for itself (a barrier's "I arrived").  The transport may
     * leave it outstanding without making quiet wait for it (a PE's quiet
     * is about its data) and answer SHMEMU_OK; its progress delivers it,
     * and ctl_flush completes it. */
    int unacked;
};

/* Apply d to the word at p with the CPU's atomics (sequentially consistent).
 * The semantics of every AMO, in one place: transports with coherent heaps
 * call it, and the core inlines it under SHMEMU_TL_CAP_CPU_ATOMICS. */
#define SHMEMU_TL_CPU_AMO_CASES(T, p, d)                                       \
    do {                                                                       \
        T v_ = (T)(d)->value, old_ = 0;                                        \
        switch ((d)->op) {                                                     \
        case SHMEMU_TL_AMO_FETCH:                                              \
            old_ = __atomic_load_n(p, __ATOMIC_SEQ_CST);                       \
            break;                                                             \
        case SHMEMU_TL_AMO_SET:                                                \
            __atomic_store_n(p, v_, __ATOMIC_SEQ_CST);                         \
            break;                                                             \
        case SHMEMU_TL_AMO_SWAP:                                               \
            old_ = __atomic_exchange_n(p, v_, __ATOMIC_SEQ_CST);               \
            break;                                                             \
        case SHMEMU_TL_AMO_CSWAP:                                              \
            old_ = (T)(d)->cond;                                               \
            __atomic_compare_exchange_n(p, &old_, v_, 0, __ATOMIC_SEQ_CST,     \
                                        __ATOMIC_SEQ_CST);                     \
            break;                                                             \
        case SHMEMU_TL_AMO_ADD:                                                \
            old_ = __atomic_fetch_add(p, v_, __ATOMIC_SEQ_CST);                \
            break;                                                             \
        case SHMEMU_TL_AMO_AND:                                                \
            old_ = __atomic_fetch_and(p, v_, __ATOMIC_SEQ_CST);                \
            break;                                                             \
        case SHMEMU_TL_AMO_OR:                                                 \
            old_ = __atomic_fetch_or(p, v_, __ATOMIC_SEQ_CST);                 \
            break;                                                             \
        case SHMEMU_TL_AMO_XOR:                                                \
            old_ = __atomic_fetch_xor(p, v_, __ATOMIC_SEQ_CST);                \
            break;                                                             \
        default:                                                               \
            return -1;                                                         \
        }                                                                      \
        if ((d)->result)                                                       \
            *(d)->result = (uint64_t)old_;                                     \
    } while (0)

/* Where the transport itself reaches PE pe's heap (job->lib_base). */
static inline char *shmemu_tl_lib_heap(const struct shmemu_tl_job *job, int pe)
{
    return job->lib_base && job->lib_base[pe] ? job->lib_base[pe] : job->heap_base[pe];
}

static inline int shmemu_tl_cpu_amo(void *p, const struct shmemu_tl_amo *d)
{
    if (d->width == 8)
        SHMEMU_TL_CPU_AMO_CASES(uint64_t, (uint64_t *)p, d);
    else if (d->width == 4)
        SHMEMU_TL_CPU_AMO_CASES(uint32_t, (uint32_t *)p, d);
    else
        return -1;
    return 0;
}

/* One elementwise reduction for local_reduce: dst[i] = a[i] op b[i] for
 * i < n (dst may be a or b). */
struct shmemu_tl_reduce {
    int dtype;    /* shmemu_dtype_t */
    int op;       /* shmemu_op_t, valid for dtype (the core checked) */
    size_t esize; /* bytes per element */
    void *dst;
    const void *a, *b;
    size_t n; /* elements, > 0 */
    /* The core's CPU kernel for dtype and op, with shmemu's rounding (16-bit
     * floats widened, combined and rounded to nearest even): for a transport
     * that can make its operands host-visible, and the reference for a
     * device kernel. */
    void (*cpu)(void *dst, const void *a, const void *b, size_t n);
};

/* Stream-ordered work (a GPU transport's `*_on_stream` calls). */
enum shmemu_tl_stream_kind {
    SHMEMU_TL_STREAM_RMA,    /* enqueue d->rma (blocking or not: stream order) */
    SHMEMU_TL_STREAM_QUIET,  /* later work on the stream waits for every
                                operation this PE issued before */
    SHMEMU_TL_STREAM_SYNC,   /* block until the stream's work is done */
    SHMEMU_TL_STREAM_DEVICE, /* d->device = the device this PE runs on */
    SHMEMU_TL_STREAM_KERNEL  /* run the library's own kernel d->kernel, as the
                                transport built it for its device, on a copy
                                of d->arg with d->table (shmemu_device.h's
                                struct shmemu_devrt_table); complete on
                                return.  SHMEMU_ENOTSUP: no such kernel here
                                (say nothing) */
};

struct shmemu_tl_stream {
    int kind;     /* shmemu_tl_stream_kind */
    void *stream; /* the transport's stream (cudaStream_t); NULL: its default */
    struct shmemu_tl_rma rma;
    int device;
    const char *kernel; /* SHMEMU_TL_STREAM_KERNEL: its name, its argument, */
    const void *arg;
    size_t arg_size;
    const void *table; /* every PE's heap as the device addresses it */
};

struct shmemu_transport_ops {
    size_t size;          /* sizeof(struct shmemu_transport_ops) built with */
    const char *name;
    unsigned caps;        /* SHMEMU_TL_CAP_* */
    size_t job_priv_size; /* bytes of private job state the core allocates */

    /* ---- lifecycle: can it run here; making, running and ending a job --- */
    /* Can this transport run here?  Writes a one-line reason when not and
     * returns SHMEMU_ENODEV.  Non-blocking.  NULL: always usable. */
    int (*probe)(char *why, size_t why_len);
    /* Create heaps and control area for job->npes PEs in the launching
     * process.  Failure leaves nothing behind. */
    int (*job_create)(struct shmemu_tl_job *job);
    /* Start every PE running entry(job, pe) (a thread or a process each) and
     * block until all have ended.  Returns SHMEMU_OK once all were started
     * and reaped; per-PE outcomes go to the core through entry's return
     * value (threads) or pe_exited (processes). */
    int (*job_run)(struct shmemu_tl_job *job,
                   int (*entry)(struct shmemu_tl_job *job, int pe));
    /* Release what job_create made (or job_attach mapped).  Never fails. */
    void (*job_destroy)(struct shmemu_tl_job *job);

    /* ---- joining: PEs started by shmemu-run (SPMD) or another launcher --- */
    /* In a PE process forked by job_run that is about to exec a program
     * which will call job_attach: make what job_attach needs survive exec
     * (descriptors, environment variables).  NULL: no SPMD support. */
    int (*pe_export)(struct shmemu_tl_job *job, int pe);
    /* SPMD: in a program started by shmemu-run, map the job that pe_export
     * handed over (npes, heap_size and ctl_size are set by the core from
     * the environment).  NULL: no SPMD support (see SHMEMU_TL_CAP_SPMD). */
    int (*job_attach)(struct shmemu_tl_job *job, int pe);
    /* In a process that a launcher (mpirun) started, with no shmemu
     * process above it (the core's bootstrap found it: src/job/boot.h):
     * make the control area with the job's other processes (the one that
     * makes it calls calls->ctl_init before the others map it) and map it,
     * exchanging what that takes through calls->boot_allgather and
     * boot_barrier, never a launcher's own calls.  Then the PE starts as
     * under job_attach.  NULL: such jobs do not run on this transport. */
    int (*job_join)(struct shmemu_tl_job *job, int pe);
    /* Called on the PE's own thread before it runs user code (binding,
     * first touch of its heap).  NULL: nothing to do. */
    int (*pe_enter)(struct shmemu_tl_job *job, int pe);

    /* ---- wire-up --------------------------------------------------- */
    /* Wire-up: each PE publishes blob_size bytes that peers need to reach its
     * heap (a segment name, a CUDA IPC handle, a UCX rkey); the core
     * exchanges the blobs, then every PE connects.  blob_size 0: no
     * wire-up.  Both run on the PE's own thread, after pe_enter; publish
     * writes exactly blob_size bytes. */
    size_t blob_size;
    int (*wireup_publish)(struct shmemu_tl_job *job, int pe, void *blob);
    /* blobs[p] is PE p's blob (blobs[pe] this PE's own). */
    int (*wireup_connect)(struct shmemu_tl_job *job, int pe, const void *const *blobs);

    /* ---- data ------------------------------------------------------ */
    /* Perform one RMA.  Blocking unless d->nbi (or d->lazy); either way
     * the local buffer is reusable (put) or filled (get) by the next quiet.
     * Returns a status, or SHMEMU_TL_DEFERRED (see lazy). */
    int (*rma)(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d);
    /* Perform one atomic, complete and visible on return; atomic with
     * respect to every other amo on the same word from any PE. */
    int (*amo)(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d);

    /* ---- completion and progress ----------------------------------- */
    /* Complete every outstanding operation of the calling PE.  NULL: the
     * transport never leaves any outstanding (a memory fence suffices). */
    int (*quiet)(struct shmemu_tl_job *job, int pe);
    /* Order the calling PE's earlier puts/AMOs to each PE before later ones.
     * NULL: operations are already delivered in order. */
    int (*fence)(struct shmemu_tl_job *job, int pe);
    /* Complete every operation of the calling PE, unacked atomics (see
     * shmemu_tl_amo) included: the deadlock detector counts a PE asleep only
     * with nothing of its own in flight.  NULL: quiet does. */
    int (*ctl_flush)(struct shmemu_tl_job *job, int pe);
    /* Advance the calling PE's outstanding operations (see
     * SHMEMU_TL_CAP_PROGRESS).  Returns SHMEMU_OK when nothing it issued is
     * left in flight (the core then wakes the targets of its nonblocking
     * puts), SHMEMU_TL_DEFERRED while some may be (they are woken after the
     * quiet that completes them), either with SHMEMU_TL_MOVED added when
     * this call received or completed something: a waiting PE then keeps
     * driving the traffic instead of leaving it to a thread woken for it.
     * NULL: nothing to drive. */
    int (*progress)(struct shmemu_tl_job *job, int pe);

    /* ---- local compute and streams --------------------------------- */
    /* Local compute where host code cannot touch heap bytes
     * (SHMEMU_TL_CAP_LOAD_STORE clear), so that the reference collectives
     * run unchanged on such heaps.  Every pointer is either inside a heap as
     * heap_base gives it or plain host memory of the calling process; the
     * transport tells them apart (as CUDA's unified addressing does).  Both
     * complete before returning.  NULL: SHMEMU_ENOTSUP where heaps are not
     * host-addressable (where they are, the core uses the CPU and never
     * calls these). */
    int (*local_copy)(struct shmemu_tl_job *job, int pe, void *dst, const void *src,
                      size_t n);
    int (*local_reduce)(struct shmemu_tl_job *job, int pe, const struct shmemu_tl_reduce *d);
    /* Work ordered on a stream of the caller's (NVSHMEM's *_on_stream).
     * NULL: SHMEMU_ENOTSUP (transports without streams). */
    int (*stream_op)(struct shmemu_tl_job *job, int pe, struct shmemu_tl_stream *d);

    /* ---- control words and scheduling ------------------------------ */
    /* Sleep while *word == expected, up to timeout_ns (< 0: no limit).  May
     * return early for any reason; the caller re-checks.  Required. */
    void (*ctl_wait)(struct shmemu_tl_job *job, uint32_t *word,
                     uint32_t expected, int64_t timeout_ns);
    /* Wake up to nwake sleepers on word.  Required. */
    void (*ctl_wake)(struct shmemu_tl_job *job, uint32_t *word, int nwake);
    /* A COOPERATIVE transport's scheduling point, besides rma and amo: the
     * core calls it on entry to every public call and wherever it would
     * spin, so that the transport's scheduler may run another PE.  NULL:
     * none. */
    void (*sched_point)(struct shmemu_tl_job *job, int pe);
    /* A number in [0, n) drawn from the transport's own schedule (its
     * seed; the draw joins the run's record), for choices the core makes
     * among the user-level contexts of the running PE (a kernel's device
     * threads), so that they replay and vary with the seed as the PEs'
     * turns do.  NULL: the core draws its own. */
    uint64_t (*sched_draw)(struct shmemu_tl_job *job, uint64_t n);
    /* The time the core measures with (deadlines, pauses, livelock
     * detection): a transport with a schedule of its own gives virtual
     * time, so that every decision taken on time replays exactly.  NULL:
     * the monotonic clock. */
    int64_t (*clock_ns)(struct shmemu_tl_job *job);

    /* ---- mappings: heap bytes this process can load and store ------ */
    /* Load/store address of [off] in pe's heap.  NULL member: no direct
     * access (the capability bit is then clear). */
    void *(*ptr)(struct shmemu_tl_job *job, int pe, size_t off);
    /* Map [off, off + len) of PE pe's heap (this process's own PE) at addr
     * as well, replacing what is there (MAP_FIXED): the program's global
     * and static variables become that heap range, reachable by every PE.
     * off, addr and len are page-aligned; the core has copied the bytes at
     * addr into the range first.  NULL: the transport cannot (PEs that
     * share one program image, heaps in device memory). */
    int (*alias)(struct shmemu_tl_job *job, int pe, size_t off, void *addr, size_t len);
    /* Map [off, off + len) of PE pe's heap (any PE of the job) at addr,
     * replacing what is there (MAP_FIXED), read-only or writable.  Checker
     * mode's shmemu_ptr hands out such views, read-only, so that a store
     * through one faults and the checker sees it (src/check/pointers.c);
     * called from its signal handlers, so it must be async-signal-safe (an
     * mmap, no allocation, no message).  off, addr and len are
     * page-aligned.  NULL: heaps this process cannot map again (device
     * memory, remote nodes); checker mode's shmemu_ptr then gives NULL for
     * peers.  Where heaps are private pages (threads of one image), a
     * transport makes them mappable when the job asks for views. */
    int (*map_view)(struct shmemu_tl_job *job, int pe, size_t off, void *addr, size_t len,
                    int writable);

    /* ---- scheduling, continued --------------------------------------- */
    /* A COOPERATIVE transport's scheduling point where the running PE can
     * do nothing until another PE acts (every device thread of its kernel
     * waits): a scheduler by priorities (PCT) puts it below every other,
     * else as sched_point.  NULL: sched_point. */
    void (*sched_spin)(struct shmemu_tl_job *job, int pe);
};

/* Does ops have this member set (and, built against an older table,
 * this member at all)? */
#define SHMEMU_TL_HAS(ops, member)                                             \
    ((ops)->size >= offsetof(struct shmemu_transport_ops, member) +            \
                        sizeof((ops)->member) &&                               \
     (ops)->member != NULL)

/* The registry: compiled-in transports in priority order, NULL-terminated. */
extern const struct shmemu_transport_ops *const shmemu__transports[];

#endif /* SHMEMU_TRANSPORT_H */
