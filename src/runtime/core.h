/*
 * core.h - the core's private view of a job and of a PE.
 *
 * A struct shmemu__job lives in each process that takes part in a job (the
 * launcher and, for process transports, every PE process).  A struct
 * shmemu__pe is one PE's private state; the thread driving that PE reaches it
 * through the thread-local shmemu__self.  What other PEs must see belongs to
 * the control plane (src/ctl/plane.h), never here.
 */
#ifndef SHMEMU_CORE_H
#define SHMEMU_CORE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "ctl/ctl.h"
#include "heap.h"
#include "platform.h"
#include "scratch.h"
#include "shmemu.h"
#include "transport.h"
#include "check/hooks.h"

struct shmemu__boot;

struct shmemu__job {
    /* How this process found its place in the job (src/job/boot.h): NULL
     * for a job it launched itself. */
    const struct shmemu__boot *boot;
    /* The table the job runs on (dispatch.h): the transport's, or a layer's
     * that wraps it (checker mode), kept in `layer`. */
    const struct shmemu_transport_ops *ops;
    const struct shmemu_transport_ops *transport;
    struct shmemu_transport_ops layer;
    struct shmemu_tl_job tl;
    /* The control plane (ctl/plane.h): over the shared control area, or
     * over the transport where the processes share no memory; chosen once
     * the transport has made or joined the job (shmemu__plane_choose). */
    const struct shmemu__plane_ops *plane;
    struct shmemu__params params;
    int (*pe_main)(void *arg);
    void *arg;
    int64_t spin_ns; /* waiting policy, fixed at job start */
    int64_t yield_ns;
    /* Value waiters pay a membarrier before sleeping so that updaters need
     * no fence (see shmemu__notify).  Decided when the job is created;
     * every process of the job registers for it. */
    int notify_global; /* PEs are processes: the cross-process command */
    int exec_pes;      /* each PE a program of its own (shmemu-run, mpirun) */
    int coop;          /* PEs take turns in one thread (SHMEMU_TL_CAP_COOPERATIVE) */
    int bind;          /* bind PEs to cores as SHMEMU_BIND says */
    /* A cooperative job's PEs (pe.c): one array on huge pages, not a
     * malloc'd block each, so that thousands of PEs run in turn without a
     * TLB miss each for their state.  NULL: PEs are malloc'd. */
    char *pe_slab;
    size_t pe_slab_len;

    /* Supervision of process PEs (run.c), in the launching process. */
    const char *who;         /* prefix of its messages: "shmemu", "shmemu-run" */
    int64_t abort_seen_ns;   /* when the supervisor first saw the abort */
    int signals_sent;        /* 1: SIGTERM sent, 2: SIGKILL sent */
    int64_t deadline_ns;     /* shmemu-run --timeout; 0: none */
    int64_t timeout_ns;
    int first_failure;       /* exit status for shmemu-run: the first PE's */
    char *const *argv;       /* shmemu-run: the program each PE runs */
    int tag_output;          /* shmemu-run --tag-output */

    /* Checker mode (src/check/): what was asked for, and where its part of
     * the control area starts (0: none). */
    struct shmemu__check_cfg check;
    size_t check_ctl_off;
    /* No shmemu launcher will look at the job's end (mpirun started it):
     * its last PE to finalize tells what the checker found. */
    int check_told_by_pe;
    size_t wireup_ctl_off; /* the wire-up blobs (dispatch.c); 0: none */

    /* The control plane over a network (tl.ctl_remote, src/ctl/net.c):
     * this process's PE, and until when a wait on the network still waits
     * while this process broadcasts an abort (0: not broadcasting). */
    int net_pe;
    int net_ppid; /* the launcher's process (its death ends the job) */
    _Atomic int net_aborting; /* this process has begun an abort */
    _Atomic int64_t net_grace_ns;
    /* A process an outside launcher (mpirun) started watches it: its PEs
     * compute outside the library too, where no wait notices it die. */
    struct shmemu__launcher_watch *launcher_watch;
};

typedef struct shmemu__pe {
    /* Read on every call: keep together, in the first 128 bytes (one pair
     * of cache lines: the PE structures are 128-byte aligned).  With
     * thousands of PEs taking turns on sim, each call's first touch of its
     * PE is a miss; a third line (chk and job used to lie there) cost a
     * 4,096-PE barrier another miss per PE (docs/PERFORMANCE.md). */
    char *heap;       /* this PE's heap as this process addresses it */
    size_t heap_size;
    int pe;
    int npes;
    /* The control plane's (src/ctl/plane.h): the word every call tests for
     * an abort, and this PE's place in the shared control area (read by
     * src/ctl/ alone). */
    const _Atomic int32_t *abort_word;
    struct shmemu__ctl *ctl;
    struct shmemu__ctl_pe *ctl_me;
    struct shmemu_tl_job *tlj;
    /* The job's table's data path, cached (dispatch.h). */
    int (*rma)(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d);
    int (*amo)(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d);
    size_t blk_off; /* last block a bounds check found: [off, off + req) */
    size_t blk_req;
    struct shmemu__chk *chk; /* checker mode state (src/check/layer.c); NULL when off */
    struct shmemu__job *job;
    unsigned char notify_light; /* copy of job->notify_light */
    unsigned char direct;   /* heaps are load/store here (SHMEMU_TL_CAP_LOAD_STORE) */
    unsigned char cpu_amo;  /* the core applies AMOs itself (SHMEMU_TL_CAP_CPU_ATOMICS) */
    unsigned char nbi_ok;   /* the table honours nbi (SHMEMU_TL_CAP_NBI) */
    unsigned char progress; /* waits drive the table's progress (SHMEMU_TL_CAP_PROGRESS) */
    unsigned char coop;     /* PEs take turns in one thread (SHMEMU_TL_CAP_COOPERATIVE) */
    /* The PE's thread level (SHMEMU_THREAD_*, threads.c); only ever
     * raised, with relaxed atomics.  From SERIALIZED on, several threads
     * may call as this PE: its waits poll and sleep without counting
     * themselves asleep (one thread's wait says nothing of the others'),
     * and the block cache (blk_off, blk_req) stays unused. */
    unsigned char thread_level;
    /* Set when a nonblocking put may be held by the transport (nbi_dirty
     * below says to which PEs): quiet then wakes their targets. */
    int nbi_any;
    /* Contexts created so far (ids 1..); atomic: threads create them. */
    int ctx_count;
    /* Livelock detection (livelock.h): polls until the next sample, and a
     * count of everything but polls. */
    uint32_t poll_countdown;
    uint32_t poll_activity;
    /* CPU time this thread spent inside the transport for polls, where the
     * transport needs progress (a network round trip per poll): not work
     * between polls (livelock.h). */
    int64_t poll_tl_cpu_ns;
    /* The program's static data (static.c): [static_lo, + static_len) is
     * heap range [static_off, + static_len) when static_mapped. */
    const char *last_kernel; /* the name of the last kernel it launched */
    char *static_lo;
    size_t static_len;
    size_t static_off;
    int static_mapped;

    struct shmemu__heap alloc;
    /* With chk: the checker's hooks that the control plane calls. */
    const struct shmemu__check_waits *chk_waits;
    jmp_buf *abort_jmp;   /* where ABORT mode unwinds a launched PE to */
    int refs;             /* shmemu_init calls not yet finalized */
    int pid;              /* the process it lives in: a fork of it is no PE */
    int owns_job;         /* shmemu_init created the job: finalize frees it */
    /* Other threads joined this PE (threads.c): they keep pointing at it
     * after shmemu_finalize, which then retires it instead of freeing it. */
    int joined;
    struct shmemu__pe *retired_next;
    uint32_t wtoken;      /* last sleep token (ctl_pe.wstate) */
    uint32_t seen_departed;
    uint32_t rec_seq[SHMEMU__TEAMS_MAX]; /* control collectives entered, per team
                                            slot (reset when a team takes it) */
    /* The handle of the team this PE destroyed in each slot: dead here,
     * though members that have not destroyed it yet still use the slot. */
    shmemu_team_t team_gone[SHMEMU__TEAMS_MAX];
    size_t any_turn; /* where wait_until_any starts looking: fairness */
    /* PEs with a nonblocking put of ours the transport may still hold
     * (bit per PE): woken again once quiet or progress delivered it. */
    uint64_t *nbi_dirty;
    /* Livelock detection's slow path (livelock.c): words sampled lately
     * and their values, and since when none changed. */
    struct shmemu__poll_state {
        int64_t limit_ns;    /* SHMEMU_LIVELOCK; 0: off */
        struct { uint64_t key, val; } seen[16];
        unsigned nseen, next, turn;
        uint32_t activity_seen, polls, polls_last;
        int64_t since_ns, published_ns, checked_ns, cpu_ns;
        int64_t stuck_ns; /* a check found every PE stuck then (0: none) */
    } poll;
    /* OpenSHMEM locks this PE holds, and which of its threads took each
     * (compat/shmem.c): a thread that sets a lock it holds, or a clear of a
     * lock no thread of the PE holds, is reported.  Past 16 at once the
     * table stops (lost): no report can then be sure. */
    struct shmemu__osh_locks {
        atomic_flag guard;
        int n, lost;
        struct { const long *lock; unsigned long thread; } held[16];
    } osh_locks;
    /* A device thread of this PE's kernel runs (src/device): its atomics
     * are CUDA's, relaxed, where a host atomic may be a release. */
    unsigned char in_kernel;
    /* Meanwhile: where that thread is ("PE 0/2 block (0,0,0) thread
     * (3,0,0) of kernel k at k.cu:41"), for the checker's notes. */
    void (*kernel_where)(shmemu__pe *me, char *buf, size_t len);
    /* ... and the checker's count of held operations (shmemu__check_seq)
     * when that thread's block last passed __syncthreads: stores its
     * block-mates held up to it precede what the thread does now. */
    uint64_t kernel_synced;
    /* Set while a kernel of this PE runs: an abort that unwinds the PE out
     * of it (a device thread's call failed in abort mode) frees it. */
    void (*kernel_abandon)(shmemu__pe *me);
    void *kernel_live;
    /* Kernels this PE launched so far: each launch's scheduler draws from
     * its own stream of the seed, so the rounds of a job differ (and a
     * replay sees the same ones). */
    uint64_t kernel_launches;
    /* shmemu_scratch_malloc's blocks not yet freed: released when the PE
     * ends, by whatever path it ends. */
    struct shmemu__scratch scratch;
} shmemu__pe;
_Static_assert(offsetof(shmemu__pe, poll_tl_cpu_ns) <= 128,
               "the fields read on every call fill the first 128 bytes of a PE");

extern _Thread_local shmemu__pe *shmemu__self
    __attribute__((tls_model("initial-exec"))) SHMEMU__HIDDEN;
/* Per-thread state of a floor above that belongs to the running PE where
 * PEs take turns in one thread (sim): the device layer's kernel in
 * progress and its running device thread.  That floor fills the table in;
 * the PE's context (job/pe.c) saves and loads its two words on every
 * switch.  A switch may come in the middle of a kernel: the checker,
 * landing a device thread's stores, calls the transport, whose data path
 * is a scheduling point. */
struct shmemu__pe_state_hooks {
    void (*save)(void *slot[2]);
    void (*load)(void *const slot[2]); /* NULLs: a PE outside any kernel */
};
extern const struct shmemu__pe_state_hooks *_Atomic shmemu__pe_state SHMEMU__HIDDEN;
/* The calling thread's current context (shmemu_ctx_select); what the
 * checker tags its operations with. */
extern _Thread_local int shmemu__ctx_id SHMEMU__HIDDEN;
/* The routine the program called, when a wrapper layer calls shmemu on its
 * behalf (shmem.h's routines set it around their call), else NULL.  What
 * reports name: a program that calls shmem_long_put reads shmem_long_put. */
extern _Thread_local const char *shmemu_compat_call __attribute__((visibility("default")));
static inline const char *shmemu__user_call(const char *call)
{
    return shmemu_compat_call ? shmemu_compat_call : call;
}
/* Whether call is an OpenSHMEM routine: a report on it then speaks that
 * API, in the routines and constants it suggests (shmemu__api_of). */
static inline int shmemu__is_osh_call(const char *call)
{
    return call && strncmp(call, "shmem_", 6) == 0;
}
static inline const char *shmemu__api_of(const char *call)
{
    return shmemu__is_osh_call(call) ? "shmem" : "shmemu";
}
/* The same prefix for constants: SHMEM_CMP_EQ or SHMEMU_CMP_EQ. */
static inline const char *shmemu__api_const_of(const char *call)
{
    return shmemu__is_osh_call(call) ? "SHMEM" : "SHMEMU";
}
/* As shmemu__ctx_id while a PE drains: a quiet of every context. */
#define SHMEMU__CTX_ALL (-1)
/* The PE a process hosts when it hosts exactly one (shmemu_init, or a PE
 * process of a process transport): other threads of the process call the
 * library as that PE (threads.c).  NULL otherwise. */
extern shmemu__pe *_Atomic shmemu__proc_pe SHMEMU__HIDDEN;
/* The calling thread's PE: shmemu__self, else the process's PE, which the
 * thread then joins; NULL when the thread has none. */
shmemu__pe *shmemu__adopt(void) SHMEMU__HIDDEN;
/* The job's processes share no memory (tl.ctl_remote): the control plane
 * runs over the transport (src/ctl/net.c). */
static inline int shmemu__net(const struct shmemu__job *job)
{
    return job->tl.ctl_remote;
}

/* Does an address PE pe published (a call's name, a site) mean anything in
 * the calling thread?  Threads of one process and processes forked from
 * it share their addresses; programs exec'd for each PE (shmemu-run's,
 * mpirun's) and shmemu-run itself do not. */
static inline int shmemu__addrs_readable(const struct shmemu__job *job, int pe)
{
    if (job->argv)
        return 0;
    return !job->exec_pes || (shmemu__self && shmemu__self->pe == pe);
}

/* Over a network, the launcher (mpirun) that started this process died:
 * it takes the job with it, and nobody else will end this process. */
static inline int shmemu__net_orphaned(const struct shmemu__job *job)
{
    return job->net_ppid && getppid() != job->net_ppid;
}

static inline int shmemu__mt(const shmemu__pe *me)
{
    return __atomic_load_n(&me->thread_level, __ATOMIC_RELAXED) >= SHMEMU_THREAD_SERIALIZED;
}
/* A finalized PE that threads still pointed at: kept, its abort word
 * pointing here, so that their next call fails its entry check (pe.c). */
#define SHMEMU__RETIRED (-1001)
extern const _Atomic int32_t shmemu__retired_word SHMEMU__HIDDEN;
static inline int shmemu__retired(const shmemu__pe *me)
{
    return me->abort_word == &shmemu__retired_word;
}

static inline shmemu__pe *shmemu__cur(void)
{
    shmemu__pe *me = shmemu__self;
    if (SHMEMU__UNLIKELY(me && shmemu__retired(me)))
        me = shmemu__self = NULL; /* its PE has finalized */
    return SHMEMU__LIKELY(me != NULL) ? me : shmemu__adopt();
}
extern _Thread_local int shmemu__last_status
    __attribute__((tls_model("initial-exec"))) SHMEMU__HIDDEN;
/* Nonzero while a call runs whose API defines an invalid triplet and no
 * team left as a returned status (OpenSHMEM's team splits): the splits
 * then return SHMEMU_EINVAL or SHMEMU_ENOMEM without a report and without
 * ending the job; every other error (a bad parent, PEs that disagree) is
 * reported as ever. */
extern _Thread_local int shmemu__lenient SHMEMU__HIDDEN;

/* ------------------------------------------------------------- errors */

/*
 * A call failed with status: print "shmemu: PE p/n call: message" (once per
 * job for job-wide statuses), record it for shmemu_last_status, and in ABORT
 * mode end the job and stop this PE (does not return).  Returns status.
 * me may be NULL (a call outside any PE): then it only prints and returns.
 */
int shmemu__fail(shmemu__pe *me, int status, const char *call, const char *fmt,
                 ...) SHMEMU__PRINTF(4, 5) SHMEMU__HIDDEN;

/* The entry check failed (no PE, or the job is aborted): report and return
 * the status (or stop the PE in ABORT mode). */
int shmemu__enter_fail(shmemu__pe *me, const char *call) SHMEMU__HIDDEN;

/* Mark the job aborted with status (first caller wins: returns 1), remember
 * rc as what shmemu_launch returns and msg as why, print report (may be
 * NULL) if the winner, and wake every sleeping PE. */
int shmemu__abort_job(struct shmemu__job *job, int status, int pe, int rc,
                      const char *msg, const char *report) SHMEMU__HIDDEN;

/* Write text to stderr with as few write(2) calls as it takes. */
void shmemu__emit(const char *text) SHMEMU__HIDDEN;

/* Wake every PE that sleeps on any control word of the job. */
void shmemu__wake_all(struct shmemu__job *job) SHMEMU__HIDDEN;

/* The abort status of a job that a PE ended on purpose (shmem_global_exit):
 * calls still fail with SHMEMU_EABORTED, and every PE that sees it exits
 * with the status that PE gave (the job's abort_rc). */
#define SHMEMU__GLOBAL_EXIT (-1000)

static inline int shmemu__aborted(const shmemu__pe *me)
{
    int st = atomic_load_explicit(me->abort_word, memory_order_relaxed);
    return st == SHMEMU__GLOBAL_EXIT ? SHMEMU_EABORTED : st;
}

/* "function+0x1c" for a code address of this process (a thread-local
 * buffer, overwritten by the next call). */
const char *shmemu__site_name(void *addr) SHMEMU__HIDDEN;
/* The same into buf (site.c). */
void shmemu__format_site(void *addr, char *buf, size_t len) SHMEMU__HIDDEN;
/* The program's variable that holds addr, as "name+offset"; 0 where no
 * symbol table knows one. */
int shmemu__format_object(const void *addr, char *buf, size_t len) SHMEMU__HIDDEN;
/* The source line of the instruction at pc ("tests/k.cu:41", the path
 * relative to the working directory where it lies below it), from the
 * module's DWARF line table (built with -g) through elfutils' libdw where
 * the process can load it; 0 where none is known. */
int shmemu__format_line(const void *pc, char *buf, size_t len) SHMEMU__HIDDEN;

/* PEs that take turns in one thread (SHMEMU_TL_CAP_COOPERATIVE): a public
 * call is a scheduling point. */
void shmemu__coop_point(shmemu__pe *me) SHMEMU__HIDDEN;
/* The same where me can do nothing until another PE acts (a scheduler by
 * priorities then runs the others first). */
void shmemu__coop_spin(shmemu__pe *me) SHMEMU__HIDDEN;
/* Time as the job's decisions see it: virtual on a transport with a
 * schedule of its own (sim), so that they replay; else monotonic. */
int64_t shmemu__time(void) SHMEMU__HIDDEN;
int64_t shmemu__clock(struct shmemu__job *job) SHMEMU__HIDDEN;
/* Where the core would spin or sleep waiting for another PE (a lock, a
 * pause): a scheduling point where PEs take turns, else sched_yield or a
 * sleep of ns. */
void shmemu__relax(void) SHMEMU__HIDDEN;
void shmemu__nap(int64_t ns) SHMEMU__HIDDEN;

/* Every public call starts with this; failret is what it returns when the
 * caller is not a live PE or the job has been aborted.  site: the user's
 * call site (a return address), for checker mode's reports. */
/* The PE, or a return of failret where there is none or its job was
 * aborted: the entry of a call that is no checker's business (it moves
 * no data: shmemu_scratch_malloc). */
#define SHMEMU__ENTER_UNCHECKED(me, call, failret)                             \
    shmemu__pe *me = shmemu__self;                                             \
    if (SHMEMU__UNLIKELY(!me || shmemu__aborted(me)) &&                        \
        (me || !(me = shmemu__adopt()) || shmemu__aborted(me))) {              \
        (void)shmemu__enter_fail(me, call);                                    \
        return failret;                                                        \
    }
#define SHMEMU__ENTER_AS(me, call, failret, site, point)                        \
    SHMEMU__ENTER_UNCHECKED(me, call, failret)                                 \
    if (SHMEMU__UNLIKELY((point) && me->coop))                                 \
        shmemu__coop_point(me);                                                \
    if (SHMEMU__CHECKED(me))                                                   \
        shmemu__check_enter(me, call, site);
#define SHMEMU__ENTER_AT(me, call, failret, site)                              \
    SHMEMU__ENTER_AS(me, call, failret, site, 1)
#define SHMEMU__ENTER(me, call, failret)                                       \
    SHMEMU__ENTER_AT(me, call, failret, __builtin_return_address(0))
/* Where PEs take turns, not a scheduling point: a sync (its wait is one;
 * one at the entry too would only reorder the arrivals, which the wait
 * does) or a query of this PE's own state (translate_pe, workspace, ptr:
 * a collective asks them once per peer, and a turn each would make every
 * collective cost n^2 switches). */
#define SHMEMU__ENTER_NOPOINT(me, call, failret)                               \
    SHMEMU__ENTER_AS(me, call, failret, __builtin_return_address(0), 0)

static inline int shmemu__ok(void)
{
    shmemu__last_status = SHMEMU_OK;
    return SHMEMU_OK;
}

/* -------------------------------------------------------------- checks */

static inline int shmemu__check_pe(shmemu__pe *me, const char *call, int pe)
{
    if (SHMEMU__LIKELY((unsigned)pe < (unsigned)me->npes))
        return SHMEMU_OK;
    return shmemu__fail(me, SHMEMU_EPE, call,
                        "pe %d is not a PE of this job (valid: 0..%d)", pe,
                        me->npes - 1);
}

int shmemu__check_sym_slow(shmemu__pe *me, const char *call, const char *what,
                           const void *addr, size_t nbytes, size_t *off_p)
    SHMEMU__HIDDEN;

/* ------------------------------------------------- static symmetric data */

/* SHMEMU_STATIC (static.c): whether a program's global and static
 * variables are symmetric.  shmem_init asks for them (OpenSHMEM programs
 * rely on it); other programs opt in with SHMEMU_STATIC=on. */
void shmemu__static_request(void) SHMEMU__HIDDEN;
/* Set by OpenSHMEM's shmem_init: an allocation's size may differ across
 * PEs (OpenSHMEM 1.1, Cray SHMEM, SOS); each takes the largest (mem.c). */
extern int shmemu__alloc_any_size SHMEMU__HIDDEN;
/* At a PE's start, before the wire-up sync: find the program's writable
 * data and, where asked for and the transport can (its alias op), make it
 * an alias of a reserved range of this PE's heap.  SHMEMU_OK, or a failure
 * with job->tl.why filled. */
int shmemu__static_attach(shmemu__pe *me) SHMEMU__HIDDEN;
/* addr in the static data and mapped: its heap offset in *off_p, 1; in the
 * static data but not symmetric here: -1; elsewhere 0. */
int shmemu__static_off(const shmemu__pe *me, const void *addr, size_t *off_p) SHMEMU__HIDDEN;
/* mark[p] = 1 for each page p of the static data that holds the program's
 * variables (.data, .bss) and nothing the loader writes (a lazily bound
 * GOT); the library's own data (sections shmemu_data, shmemu_bss) may share
 * such a page.  -1 where the program's file cannot be read. */
int shmemu__static_program_pages(const shmemu__pe *me, unsigned char *mark) SHMEMU__HIDDEN;
/* A one-line reason why addr (static data, not symmetric) cannot be
 * reached, naming the variable where the symbol table knows it. */
/* The variable at heap offset off when it lies in me's static data, as
 * "name+offset" (every PE runs the same program: one offset, one variable);
 * 0 otherwise. */
int shmemu__static_name(const shmemu__pe *me, uint64_t off, char *buf, size_t len)
    SHMEMU__HIDDEN;
/* Heap offset off as a report names it: its variable, else "heap+0x...". */
void shmemu__word_name(const shmemu__pe *me, uint64_t off, char *buf, size_t len)
    SHMEMU__HIDDEN;
/* " (variable name+offset)" for an address of the program's data, "" where
 * no symbol table knows it: what a report appends to the address. */
void shmemu__variable_note(const void *addr, char *buf, size_t len) SHMEMU__HIDDEN;
void shmemu__static_why(const shmemu__pe *me, const void *addr, char *buf, size_t len)
    SHMEMU__HIDDEN;

/* [addr, addr+nbytes) must lie inside one allocated block of this PE's
 * symmetric heap; sets *off_p to its heap offset.  nbytes > 0. */
static inline int shmemu__check_sym(shmemu__pe *me, const char *call,
                                    const char *what, const void *addr,
                                    size_t nbytes, size_t *off_p)
{
    size_t off = (size_t)((uintptr_t)addr - (uintptr_t)me->heap);
    if (SHMEMU__LIKELY(off - me->blk_off < me->blk_req &&
                       nbytes <= me->blk_off + me->blk_req - off)) {
        *off_p = off;
        return SHMEMU_OK;
    }
    return shmemu__check_sym_slow(me, call, what, addr, nbytes, off_p);
}

/* ----------------------------------------------------------- lifecycle */


/* SHMEMU_CHECK=device: the variant of ops whose symmetric memory behaves
 * as device memory (host loads and stores fault), or NULL (none). */
const struct shmemu_transport_ops *shmemu__device_view_of(const struct shmemu_transport_ops *ops)
    SHMEMU__HIDDEN;
/* The transport named name from the registry, or NULL with why set. */
const struct shmemu_transport_ops *shmemu__find_transport(const char *name, char *why,
                                                          size_t len) SHMEMU__HIDDEN;
/* shmemu_set_error_mode called outside any PE (-1: never): for jobs
 * created after (error.c). */
extern int shmemu__process_error_mode SHMEMU__HIDDEN;

/* How a failure on a PE acts on its job (shmemu__fail): whether another PE
 * ended the job on purpose, who prints a job-wide report, the job's error
 * mode, and ending the job.  The control plane's answers (ctl/plane.c),
 * set by the job layer before any PE runs: errors live on the ground
 * floor, ending a job does not. */
struct shmemu__fail_policy {
    int (*global_exit)(struct shmemu__job *job, int *code);
    int (*claim_report)(struct shmemu__job *job);
    int (*error_mode)(struct shmemu__job *job);
    int (*abort_job)(struct shmemu__job *job, int status, int pe, int rc, const char *msg,
                     const char *report);
};
void shmemu__set_fail_policy(const struct shmemu__fail_policy *p) SHMEMU__HIDDEN;


/* Copy src_or_null (NULL: zeros) over n bytes at off of this PE's own heap. */
void shmemu__own_heap_fill(shmemu__pe *me, size_t off, const void *src_or_null, size_t n)
    SHMEMU__HIDDEN;

/* Complete what this PE issued (quiet = 1) or order it (fence), then a
 * full memory fence; checker mode delivers what it holds first. */
int shmemu__complete(shmemu__pe *me, const char *call, int quiet) SHMEMU__HIDDEN;

/* Kinds of control collective (struct shmemu__rec.kind). */
enum {
    REC_ALLOC = 1,
    REC_FREE,
    REC_REALLOC,
    REC_SPLIT_STRIDED,
    REC_SPLIT_2D,
    REC_COLL /* shmemu_team_agree: a[0..4] values, a[5] the call's name hashed */
};
/* A free's or realloc's a[0] where it names no block: a team workspace
 * address (one reserved block at the heap's end, never the user's to
 * free); (size_t)-1, no heap block; (size_t)-2, NULL. */
#define SHMEMU__REC_WORKSPACE ((size_t)-3)

/* A failure every member of a collective detects alike: the reporter prints
 * it (and in ABORT mode ends the job), the others only record the status. */
int shmemu__collective_fail(shmemu__pe *me, int reporter, int status, const char *call,
                            const char *fmt, ...) SHMEMU__PRINTF(5, 6) SHMEMU__HIDDEN;
/* The same for a condition the program may handle (an allocation that
 * finds no room): reported alike, returned in every error mode. */
int shmemu__collective_refuse(shmemu__pe *me, int reporter, int status, const char *call,
                              const char *fmt, ...) SHMEMU__PRINTF(5, 6) SHMEMU__HIDDEN;

#endif /* SHMEMU_CORE_H */
