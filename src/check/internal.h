/*
 * internal.h - the checker's private state, shared by its files (notes.c,
 * deliver.c, fuzz.c, layer.c and race.c); nothing outside src/check/ sees it.
 */
#ifndef SHMEMU_CHECK_INTERNAL_H
#define SHMEMU_CHECK_INTERNAL_H

#include <pthread.h>
#include <signal.h>

#include "check.h"
#include "runtime/core.h"

struct shmemu__race;


#define CHK_NOTES 8
#define CHK_NOTE_LEN 640
#define CHK_OT 8  /* overtakes remembered per destination PE */
#define CHK_RW 16 /* recent writes remembered per destination PE */
#define CHK_SITE 72
#define CHK_CALL 40

/* An operation X from PE src that was delivered before an earlier one, Y,
 * from the same PE to the same PE with no fence between them, while Y is
 * still in flight. */
struct chk_ot {
    int32_t src; /* -1: free */
    uint32_t active;
    /* Set by the destination when it woke on X while Y was in flight: its
     * count of acts (below) then, plus one.  0: not yet. */
    _Atomic uint64_t seen;
    uint64_t y_seq;
    uint64_t x_seq, x_epoch; /* X's issue order and fence epoch, */
    int32_t x_ctx, pad2;     /* and its context */
    uint64_t x_lo, x_hi; /* what X wrote (the flag) */
    uint64_t y_lo, y_hi; /* what Y will write (the data) */
    char x_call[CHK_CALL], y_call[CHK_CALL];
    char x_site[CHK_SITE], y_site[CHK_SITE];
};

/* A put that landed, and how busy its destination had been until then. */
struct chk_rw {
    int32_t src; /* -1: free */
    uint32_t pad;
    uint64_t lo, hi;
    uint64_t activity;
    char call[CHK_CALL];
    char site[CHK_SITE];
};

/* Per destination PE. */
struct chk_tgt {
    _Atomic uint32_t lock;
    uint32_t rw_next;
    /* Bumped whenever this PE completes a wait or a sync or issues an
     * operation: a writer can tell whether its reader did anything at all
     * since its previous write. */
    _Atomic uint64_t activity;
    /* The same, less the waits: an act is how a reader that woke on a flag
     * shows it has used what it read. */
    _Atomic uint64_t acts;
    /* Syncs this PE left, and its acts when it left the last one. */
    _Atomic uint64_t exits, exit_acts;
    _Atomic uint64_t landed; /* puts and AMOs carried out here */
    struct chk_ot ot[CHK_OT];
    struct chk_rw rw[CHK_RW];
};

struct chk_shared {
    _Atomic uint32_t lock;
    uint32_t nnotes;
    uint32_t dropped; /* notes not kept: the table was full */
    _Atomic int32_t finalized; /* PEs past shmemu_finalize (check_told_by_pe) */
    char notes[CHK_NOTES][CHK_NOTE_LEN];
    struct chk_tgt tgt[]; /* [npes] */
};


enum { H_PUT, H_AMO, H_GET };

struct held {
    int kind;
    struct shmemu_tl_rma rma; /* H_PUT, H_GET */
    struct shmemu_tl_amo amo; /* H_AMO */
    void *copy;               /* owned: a blocking put's data (rma.local
                                 points here), or a nonblocking put's source
                                 as it was at the call (rma.local points at
                                 the program's buffer, read on delivery) */
    uint64_t seq;             /* issue order */
    uint64_t epoch;           /* the stamp of the last fence on its context
                                 before it (shmemu__chk_fence_epoch) */
    int ctx;                  /* the context it was issued on: only that
                                 context's quiet completes it, only its
                                 fences order it */
    int64_t issued_ns;
    int64_t due_ns;           /* not delivered while waiting before this */
    const char *call;
    void *site;
    struct shmemu__who who;   /* the device thread that issued it (dev 0: host) */
    uint64_t tact;            /* a put's destination's activity count at issue;
                                 a get's source's landed count */
    uint32_t clock;           /* race: the issuer's clock at issue */
    int dev_data;             /* race: a device thread's plain store of data
                                 through a peer pointer (race.c, the GPU's scopes) */
    uint32_t *rel;            /* race: the clock vector it publishes, owned */
    size_t rel_off;           /*       on this word of the destination */
    int view;                 /* a store through a checked pointer
                                 (pointers.c): 1, or 2 once held, its page
                                 then kept from loads until it lands */
    int poisoned;             /* a nonblocking get whose destination was
                                 filled with GET_POISON at the call, and
                                 nothing else of ours has written there */
    int race_later;           /* race: its write is recorded when its
                                 context completes it (struct late_write) */
};

/* h is a device thread's store through a peer pointer: a GPU's plain
 * store, ordered for other PEs only by a system-scope fence (which lands
 * it), not by program order as the host's are. */
static inline int shmemu__chk_relaxed(const struct held *h)
{
    return h->view && h->who.dev;
}

/* Race detection without fuzzing: a put on a context other than the
 * default moves its data at once, but may land, as far as the program can
 * tell, any time until that context's quiet or fence (a barrier completes
 * the default context only): its write is recorded then, in conflict with
 * whatever was not ordered before the call or is not after that point. */
struct late_write {
    int ctx, pe;
    size_t off, nbytes;
    const char *call;
    void *site;
    struct shmemu__who who;
    uint32_t *then; /* the issuer's clock vector at the call, owned */
};

struct site_name {
    void *addr;
    char name[CHK_SITE];
};

/* Deliveries to one PE held back so that the reader there acts on what
 * it has without them: after a flag overtook a put there (until it woke
 * on the flag and acted), or after a sync that they were in flight across
 * (until it left the sync and acted). */
struct pause {
    int64_t from, until; /* 0: none */
    int64_t paid;        /* what the budget gave for it */
    int sync;            /* 1: the second kind */
    uint64_t exits;      /*    the reader's exits when it began */
};

/* A range of the PE's heap named signal pads (pads.c). */
struct chk_pads {
    size_t off, len;
    int told; /* reported once */
};

struct shmemu__chk {
    uint64_t rng;
    struct held *q;
    size_t n, cap, bytes;
    uint64_t seq, epoch;  /* epoch: fences so far, on every context */
    /* [ctx]: the epoch stamped by that context's last fence; fence_floor
     * stands for every context where the array could not grow (ordering
     * more than asked: never a false report). */
    uint64_t *fence_at;
    size_t nfence_at;
    uint64_t fence_floor;
    int64_t *next_ns; /* [npes]: no delivery to that PE while waiting before
                         this (a gap after the last one) */
    uint64_t *last_seq; /* [npes]: the newest operation delivered there */
    struct pause *ahead; /* [npes] */
    const char **last_call;
    void **last_site;
    int fuzz;
    int view_store; /* the put being issued is a store through a view */
    /* pe + 1: a device thread's signal or atomic went to that PE while the
     * PE's stores through peer pointers there were held (0: none since
     * they last all landed) */
    int views_passed;
    struct view *view; /* pointers.c: its views of peers' heaps, or NULL */
    struct own *own;   /* own.c: its own stores watched, or NULL */
    struct chk_pads pads[SHMEMU__PADS_MAX]; /* pads.c: its signal pads */
    int npads;
    int64_t budget, budget_at; /* for delays: see afford() */
    struct shmemu__race *race; /* NULL: no race detection */
    struct late_write *late;   /* [nlate]: see struct late_write */
    size_t nlate, caplate;
    int64_t last_long_ns; /* the last long hold began */
    int (*rma)(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d);
    int (*amo)(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d);
    const char *call; /* the library call in progress, and where from */
    void *site;
    struct shmemu__who who; /* the device thread running (dev 0: host) */
    pthread_t who_on;       /* on this thread (another of the PE's is host) */
    struct site_name names[32];
    unsigned next_name;
    /* Threads of one PE (threads.c) take turns in its checker state: every
     * entry point holds it (recursive: a hook may reach another). */
    pthread_mutex_t mu;
};

static inline void shmemu__chk_enter(shmemu__pe *me)
{
    pthread_mutex_lock(&me->chk->mu);
    shmemu__chk_depth++;
}
static inline void shmemu__chk_leave(shmemu__pe *me)
{
    shmemu__chk_depth--;
    pthread_mutex_unlock(&me->chk->mu);
}

/* The device thread running on the calling thread, or NULL (the host; a
 * PE's other host threads stay the host while one runs a kernel).  In
 * the PE's checker state (chk_enter). */
static inline const struct shmemu__who *shmemu__chk_who(const struct shmemu__chk *k)
{
    return k->who.dev && pthread_equal(k->who_on, pthread_self()) ? &k->who : NULL;
}

/* Bounds on what one PE holds: past them the oldest goes out. */
#define HOLD_MAX_OPS 512
#define HOLD_MAX_BYTES ((size_t)64 << 20)

#define BUDGET_MAX_NS 3000000

/* A nonblocking put's source up to this size is copied at the call, so
 * that a change before the put completed can be told. */
#define SOURCE_SNAPSHOT_MAX ((size_t)16 << 20)

/* What a nonblocking get's destination holds until the get is carried
 * out: NaN as float16, bfloat16, float, double; huge as an integer. */
#define GET_POISON SHMEMU_CHECK_GET_POISON

/* "function+0x1c" for a call site, cached per PE. */
const char *shmemu__check_site(shmemu__pe *me, void *addr) SHMEMU__HIDDEN;

struct chk_shared * shmemu__chk_shared(struct shmemu__job *job) SHMEMU__HIDDEN;
void * shmemu__chk_race_area(struct shmemu__job *job) SHMEMU__HIDDEN;
void shmemu__chk_lock(_Atomic uint32_t *l) SHMEMU__HIDDEN;
void shmemu__chk_unlock(_Atomic uint32_t *l) SHMEMU__HIDDEN;
uint64_t shmemu__chk_rnd(struct shmemu__chk *k) SHMEMU__HIDDEN;
int shmemu__chk_one_in(struct shmemu__chk *k, unsigned n) SHMEMU__HIDDEN;
int64_t shmemu__chk_afford(struct shmemu__chk *k, int64_t want) SHMEMU__HIDDEN;
void shmemu__chk_repay(struct shmemu__chk *k, int64_t spent, int64_t paid) SHMEMU__HIDDEN;
void shmemu__chk_nap(shmemu__pe *me, int64_t from) SHMEMU__HIDDEN;
const char * shmemu__chk_site_name(struct shmemu__chk *k, void *addr) SHMEMU__HIDDEN;
/* The site as reports name it, "function+0x1c, file.c:31" where the
 * module has the line, in buf (returned). */
const char *shmemu__chk_site_line(struct shmemu__chk *k, void *addr, char *buf, size_t len)
    SHMEMU__HIDDEN;
/* " by block (x,y,z) thread (x,y,z)" for a device thread, else "". */
void shmemu__chk_who_text(const struct shmemu__who *who, char *buf, size_t len) SHMEMU__HIDDEN;
struct chk_tgt * shmemu__chk_tgt(shmemu__pe *me, int pe) SHMEMU__HIDDEN;
void shmemu__chk_bump_activity(shmemu__pe *me, int acted) SHMEMU__HIDDEN;
int shmemu__chk_target_of(const struct held *h) SHMEMU__HIDDEN;
/* Must a (held) land before h: a fence between them on one context to one
 * PE, or both stores through pointers (program order). */
int shmemu__chk_orders(const struct held *a, const struct held *h) SHMEMU__HIDDEN;
int shmemu__chk_deliverable(const struct shmemu__chk *k, size_t i) SHMEMU__HIDDEN;
void shmemu__chk_written(const struct held *h, uint64_t *lo, uint64_t *hi) SHMEMU__HIDDEN;
int shmemu__chk_record_overtake(shmemu__pe *me, const struct held *h) SHMEMU__HIDDEN;
void shmemu__chk_remove_at(struct shmemu__chk *k, size_t i) SHMEMU__HIDDEN;
void shmemu__chk_perform(shmemu__pe *me, struct held *h) SHMEMU__HIDDEN;
int shmemu__chk_read_local(shmemu__pe *me, void *dst, const void *src, size_t n) SHMEMU__HIDDEN;
int shmemu__chk_is_flag(const struct held *h) SHMEMU__HIDDEN;
void shmemu__chk_pause_for(shmemu__pe *me, int dst, int sync) SHMEMU__HIDDEN;
int shmemu__chk_paused(shmemu__pe *me, int dst, int64_t now) SHMEMU__HIDDEN;
void shmemu__chk_deliver(shmemu__pe *me, size_t i) SHMEMU__HIDDEN;
size_t shmemu__chk_pick(shmemu__pe *me, size_t first) SHMEMU__HIDDEN;
int shmemu__chk_check_get_overtaken(shmemu__pe *me, const struct held *g) SHMEMU__HIDDEN;
void shmemu__chk_await_landing(shmemu__pe *me, const struct held *g) SHMEMU__HIDDEN;
void shmemu__chk_perturb_exit(struct shmemu__chk *k, int delivered) SHMEMU__HIDDEN;
int shmemu__chk_enqueue(shmemu__pe *me, struct held *h) SHMEMU__HIDDEN;
void shmemu__chk_deliver_fenced(shmemu__pe *me, int pe) SHMEMU__HIDDEN;
/* A fence on context ctx: later operations on it go after earlier ones. */
void shmemu__chk_fence(struct shmemu__chk *k, int ctx) SHMEMU__HIDDEN;
/* The stamp of context ctx's last fence (0: none yet). */
uint64_t shmemu__chk_fence_epoch(const struct shmemu__chk *k, int ctx) SHMEMU__HIDDEN;
void shmemu__chk_stamp(shmemu__pe *me, struct held *h, int flag, size_t flag_off) SHMEMU__HIDDEN;

/* Deliver, oldest first, what this PE holds for pe until nothing of it
 * writes [lo, hi): its own later accesses of those bytes then see it. */
void shmemu__chk_land_range(shmemu__pe *me, int pe, size_t lo, size_t hi) SHMEMU__HIDDEN;

/* Deliver, oldest first, what this PE holds until no store through a
 * pointer is held: an atomic instruction orders them before itself. */
void shmemu__chk_land_views(shmemu__pe *me) SHMEMU__HIDDEN;
int shmemu__chk_land_view_first(shmemu__pe *me) SHMEMU__HIDDEN;
/* x, a device thread's store through a peer pointer about to land: its
 * destination PE if it is a word that overtakes earlier stores there made
 * elsewhere in the code (a flag before its data; noted), else -1. */
int shmemu__chk_relaxed_flag(shmemu__pe *me, const struct held *x) SHMEMU__HIDDEN;

/* Checked pointers (pointers.c): a store through one was held (h->view
 * becomes 2: its page now faults on loads), or one held has landed. */
void shmemu__chk_view_held(shmemu__pe *me, struct held *h) SHMEMU__HIDDEN;
void shmemu__chk_view_landed(shmemu__pe *me, const struct held *h) SHMEMU__HIDDEN;
/* Is p inside this PE's checked pointers to peers' heaps? */
int shmemu__chk_in_view(shmemu__pe *me, const void *p) SHMEMU__HIDDEN;
/* Race detection's release of rel on word off of pe's heap; a device
 * thread's told where (a flag read with too narrow a scope names it:
 * scope.c). */
void shmemu__chk_release_told(shmemu__pe *me, int pe, size_t off, const uint32_t *rel)
    SHMEMU__HIDDEN;
/* The PE and heap offset of p if it lies in me's views; else 0. */
int shmemu__chk_view_locate(shmemu__pe *me, const void *p, int *pe, size_t *off) SHMEMU__HIDDEN;
/* An atomic instruction through a checked pointer on word off of pe's
 * heap: before it runs (what a non-fetching AMO would do at issue: fenced
 * work lands first, the race detector's release), and once it has. */
void shmemu__chk_view_amo_begin(shmemu__pe *me, int pe, size_t off) SHMEMU__HIDDEN;
void shmemu__chk_view_amo_end(shmemu__pe *me, int pe, size_t off) SHMEMU__HIDDEN;

/* The PE arrives at a sync of all PEs (where, as a report says it):
 * its signal pads must be back to zero (pads.c). */
void shmemu__chk_pads_check(shmemu__pe *me, const char *where) SHMEMU__HIDDEN;
/* Has me mapped its view of pe's heap (a shmemu_ptr to it)? */
int shmemu__chk_view_mapped(shmemu__pe *me, int pe) SHMEMU__HIDDEN;
/* 1 if me's program may load its view of pe's heap without a fault now
 * (loads not watched, or a run of pages open for loads there). */
int shmemu__chk_view_unseen(shmemu__pe *me, int pe) SHMEMU__HIDDEN;
/* 1 if me has views of peers' heaps at all (it took a peer's shmemu_ptr). */
int shmemu__chk_views_any(shmemu__pe *me) SHMEMU__HIDDEN;
/* The checker's SIGSEGV and SIGTRAP handlers on top (again, if another
 * was installed over them); -1 if they could not be. */
int shmemu__chk_handlers_install(void) SHMEMU__HIDDEN;
/* Whether a fault handler cannot carry out the program's accesses here:
 * no load/store transport, valgrind's CPU, fibers under ThreadSanitizer,
 * not x86-64. */
int shmemu__chk_no_faults(const struct shmemu_transport_ops *t) SHMEMU__HIDDEN;
/* own.c: 1 if the fault was a store to the PE's own watched memory (then
 * handled); the race detector's clock of me moved (an epoch ends). */
int shmemu__own_fault(siginfo_t *si, void *ucv) SHMEMU__HIDDEN;
/* The trap after a kernel's store of data that own.c steps: 1 if it was
 * one (handled). */
int shmemu__own_trap(void *ucv) SHMEMU__HIDDEN;
/* 1 if SIGTRAP is the checker's now (stepping may be used). */
int shmemu__chk_trap_ours(void) SHMEMU__HIDDEN;
void shmemu__own_epoch(shmemu__pe *me) SHMEMU__HIDDEN;
/* Where the library writes [p, p + n) of me's watched memory without a
 * fault (the transport's alias); p itself elsewhere. */
void *shmemu__own_lib_addr(shmemu__pe *me, void *p, size_t n) SHMEMU__HIDDEN;
/* Whether me's loads are watched (race detection of its plain accesses):
 * its own heap's and, through views, its peers'. */
int shmemu__own_watching(shmemu__pe *me) SHMEMU__HIDDEN;
#if defined(__x86_64__)
#include <ucontext.h>
/* Is the faulting load the program's to record (not the library's own,
 * in the C library only `rep movs`)?  The bytes it loads, from a (a byte
 * it did load) into [*lo, *hi). */
int shmemu__own_program_load(const ucontext_t *uc) SHMEMU__HIDDEN;
void shmemu__own_loaded_range(const ucontext_t *uc, uintptr_t a, uintptr_t *lo,
                              uintptr_t *hi) SHMEMU__HIDDEN;
#endif
/* pointers.c: the pages of peers' heaps opened for loads in this epoch
 * inaccessible again, so that the next load of each is seen. */
void shmemu__chk_view_epoch(shmemu__pe *me) SHMEMU__HIDDEN;
/* The program's code runs again (its access faulted, a kernel ended):
 * the pages of peers' heaps the library opened for its loads close. */
void shmemu__chk_view_program(shmemu__pe *me) SHMEMU__HIDDEN;
/* Where the library may read [p, p + n) of a peer's heap for the program
 * past the watch on loads (the transport's address of it), if p is in a
 * view and the PE holds no stores there; else p. */
const void *shmemu__chk_view_read_past(shmemu__pe *me, const void *p, size_t n) SHMEMU__HIDDEN;
/* Loads of peers' heaps no longer watched (the PE's own stopped being). */
void shmemu__chk_view_unwatch(shmemu__pe *me) SHMEMU__HIDDEN;

/* Address ranges a signal handler finds its state by, without a lock
 * (ranges.c): a fixed table of slots, each its range, then its owner. */
struct chk_range {
    _Atomic uintptr_t lo, hi;
    void *_Atomic owner;
};
struct chk_ranges {
    struct chk_range *slot;
    int cap;
    _Atomic int top;
};
/* The owner of the range holding a, or NULL. */
void *shmemu__chk_range_find(struct chk_ranges *t, uintptr_t a) SHMEMU__HIDDEN;
/* -1 when every slot is taken. */
int shmemu__chk_range_add(struct chk_ranges *t, void *owner, uintptr_t lo, uintptr_t hi)
    SHMEMU__HIDDEN;
/* Every range of owner's. */
void shmemu__chk_range_drop(struct chk_ranges *t, void *owner) SHMEMU__HIDDEN;

/* 1 if pc is in a system library's code (the C library's memcpy). */
int shmemu__chk_in_system_library(void *pc) SHMEMU__HIDDEN;
/* For reports on a fault: pc, or where the program called the system
 * library (memcpy, memset) that pc is in. */
void *shmemu__chk_user_pc(void *pc) SHMEMU__HIDDEN;
/* The same as a site: a call site is a return address, one past the call,
 * so the faulting instruction's site is one past it too (reports name the
 * line of the byte before a site). */
void *shmemu__chk_fault_site(void *pc) SHMEMU__HIDDEN;

/* Record the writes of context ctx (SHMEMU__CTX_ALL: of every one) that
 * wait for its completion (struct late_write). */
void shmemu__chk_late_flush(shmemu__pe *me, int ctx) SHMEMU__HIDDEN;

/* Deliver what is held of context ctx (SHMEMU__CTX_ALL: of every one, as a
 * quiet, barrier_all, collective allocation or leaving the job does), in a
 * fuzzed order that respects fences. */
void shmemu__chk_quiet(shmemu__pe *me, int ctx) SHMEMU__HIDDEN;

/* The control plane's hooks (hooks.h: struct shmemu__check_waits). */
/* While me waits: deliver held operations (each after its hold time) until
 * ready(me, arg) holds (1), nothing is held any more (0: wait normally), or
 * the job is aborted (its status). */
int shmemu__check_progress(shmemu__pe *me, int (*ready)(shmemu__pe *me, void *arg),
                           void *arg) SHMEMU__HIDDEN;

/* Team syncs (every kind, the internal ones too): on arrival at generation
 * gen of team slot, and once passed. */
void shmemu__check_sync_enter(shmemu__pe *me, int slot, uint32_t gen)
    SHMEMU__HIDDEN;
void shmemu__check_sync_exit(shmemu__pe *me, int slot, uint32_t gen)
    SHMEMU__HIDDEN;

#endif /* SHMEMU_CHECK_INTERNAL_H */
