/*
 * device.h - the device layer's state: kernels of include/shmemu_device.h
 * run on the CPU, each device thread a fiber of the launching PE
 * (docs/DEVICE.md).  launch.c makes and schedules the threads; calls.c is
 * what they call.
 */
#ifndef SHMEMU_DEVICE_INTERNAL_H
#define SHMEMU_DEVICE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/core.h"
#include "shmemu_device.h"
#include "common/fiber.h"

/* DT_PENDING: its block is not resident yet (a plain launch runs at most
 * SHMEMU_DEVICE_RESIDENT blocks at once). */
enum { DT_READY, DT_SYNC, DT_DONE, DT_PENDING };

struct dev_block;
struct dev_launch;

/* A put the checker holds back until a fence, quiet or delivery point lets
 * it arrive (docs/DEVICE.md: what is ordered and what is not). */
struct dev_put {
    struct dev_put *next;
    int pe;
    char *dst;          /* where it lands (the peer's heap, as mapped here) */
    const char *src;    /* the caller's source (for "source changed") */
    size_t n;
    int nbi;
    int overtaken;      /* a signal, AMO or device sync of its thread went past it */
    int told_pe;        /* the first such to another PE went there (+1; 0: none) */
    const char *told_call, *told_file; /* ... from there */
    int told_line;
    unsigned char told_sync; /* ... or a device sync passed it (told_pe: its PE) */
    const char *file;
    int line;
    const char *call;
    size_t off;         /* dest's heap offset */
    uint32_t clock;     /* the race detector's, at issue */
    unsigned bgen;      /* its block's __syncthreads passed before it was issued */
    unsigned fgen;      /* its thread's shmemu_dev_fence calls before it was issued */
    unsigned char fenced; /* a fence of its thread came after it ... */
    unsigned fbgen;     /* ... when its block had passed that many __syncthreads */
    uint64_t seq;       /* issued as the launch's seq-th put */
    unsigned char data[]; /* the bytes as they were when the put was issued */
};

struct dev_thread {
    struct shmemu_dev_self self; /* first: what the header's macros read */
    struct shmemu_fiber fib;
    struct dev_block *blk;
    struct dev_launch *L;
    unsigned rank;        /* in its block */
    int state;            /* DT_* */
    const char *waits;    /* what it waits for now (NULL: not waiting) */
    int wait_pe;          /* the word it watches: PE, heap offset, value seen */
    size_t wait_off;
    uint64_t wait_val;
    const void *spin_at;  /* the word of its last atomic, if that left it as it was */
    uint32_t budget;      /* basic blocks until the loop hook yields */
    unsigned char spun;   /* its last turn ended on the budget: it spins, or computes */
    uint32_t lockstep;    /* basic blocks it still runs in step with its warp */
    uint32_t step;        /* basic blocks it ran since its warp last came together */
    struct dev_put *held, **held_tail; /* checker: puts not yet delivered */
    unsigned fences;      /* its shmemu_dev_fence calls (the epochs of its puts) */
    struct dev_put *watch; /* delivered nbi puts whose sources a quiet frees */
    /* checker: nbi gets a quiet completes (dst: the destination, poisoned
     * until then; src: the peer's bytes as mapped), in issue order */
    struct dev_put *gets;
    struct {
        unsigned mask, n;
    } wx[4];              /* warp functions it called, per mask (their meeting points) */
    unsigned warp_calls;  /* _warp calls it has made (their meeting point) */
    unsigned block_calls; /* _block calls it has made */
};

/* A group's (a block's, a warp's) current _block or _warp call: what its
 * first thread passed, which the others must pass too (NVSHMEM's rule),
 * and how many have entered it. */
struct dev_group {
    unsigned seq, rank, arrived, prev_arrived;
    const char *call;
    const void *a, *b;
    size_t n;
    int pe;
};

/* A meeting of the lanes of a warp named in a mask, at their inst'th warp
 * function with that mask: who arrived with what, who has left. */
struct dev_wx {
    unsigned mask, inst, arrived, left;
    int kind;
    uint64_t v[32];
};
#define DEV_WX_SLOTS 4

struct dev_shared {
    const void *key;
    void *mem;
    size_t bytes;
};

struct dev_block {
    unsigned nthreads, arrived; /* live threads; those in __syncthreads */
    unsigned gen;               /* its __syncthreads passed so far */
    uint64_t sync_seq;          /* shmemu__check_seq when it last passed one */
    struct dev_group group;     /* its _block calls */
    struct dev_group *warps;    /* its warps' _warp calls */
    struct dev_wx *wx;          /* its warps' warp functions, DEV_WX_SLOTS each (or NULL) */
    /* Block-shared memory (SHMEMU_SHARED), by the key of its declaration. */
    struct dev_shared *shared;
    unsigned nshared, cap;
    /* The PE its threads put to since the block last waited, ran an atomic
     * or met the other blocks at a device barrier (pe + 1; 0: none; -1:
     * several): a signal the block raises now announces that data. */
    int sig_pe;
};

/* The last SET of a signal slot by this launch: by which block, to what. */
struct dev_sig_set {
    const uint64_t *w; /* the slot (its address here); NULL: a free entry */
    uint64_t v;
    unsigned block;
    struct shmemu_dev_self who;
};
#define DEV_SIG_SETS 256

struct dev_launch {
    const struct shmemu_kernel *k;
    void *arg;
    shmemu__pe *me;
    shmemu_dim3 grid, block;
    unsigned nblocks, per_block;
    size_t total, ndone;
    struct dev_thread *th;
    size_t *live, nlive; /* threads not yet ended, as of the last pass */
    struct dev_block *blk;
    char *stacks;
    size_t stack_size, stacks_len;
    size_t stride, guard; /* between stacks; the guard page below each (0: none) */
    struct shmemu_fiber root;
    struct dev_thread *cur;
    int progress;        /* something happened since the scheduler looked */
    int spins;           /* a thread ran out its loop budget since then */
    unsigned busy;       /* passes in which something did (schedule) */
    int failed;          /* a status: the launch ends */
    char why[512];       /* its line */
    int checked;         /* checker mode: puts are held and fuzzed */
    unsigned resident;   /* at most this many blocks run at once (plain) */
    unsigned started;    /* blocks made resident so far */
    int stalled;         /* every resident thread waited while blocks were pending */
    int draw;            /* choices come from the transport's schedule */
    unsigned char coop;  /* the PE takes turns with others (me->coop) */
    uint64_t rng;
    uint64_t puts;       /* puts issued (dev_put.seq) */
    uint64_t *ws;        /* the world team's workspace (the device barrier) */
    struct dev_thread *in_barrier; /* the thread inside the device barrier, or NULL */
    struct dev_sig_set *sets; /* DEV_SIG_SETS, allocated at the first SET */
};

/* The launch running on this OS thread (a PE's), or NULL. */
/* initial-exec: the loop hook reads it on every basic block of a kernel
 * file, and the default model for a shared library calls __tls_get_addr
 * each time (three quarters of a one-shot allreduce's time). */
extern _Thread_local struct dev_launch *shmemu__dev_launch
    __attribute__((tls_model("initial-exec")));

/* The calling device thread, or NULL with a line naming call when it is
 * not in a kernel. */
struct dev_thread *shmemu__dev_me(const char *call);
/* Give the other device threads a turn; waiting says what this one waits
 * for (NULL: it is not waiting, so it made progress). */
void shmemu__dev_yield(struct dev_thread *t, const char *waiting);
/* "PE p/n block (x,y,z) thread (x,y,z) of kernel K at file:line". */
void shmemu__dev_where(const struct dev_thread *t, char *buf, size_t len);
/* End the launch with status and a line naming the thread and its call;
 * the thread runs no more. */
/* group.c: the slice [*lo, *lo + *len) of n bytes that thread r of a
 * group of g copies; t's warp (its first rank, its size); the point where
 * every thread of t's warp has arrived; a group call's entry (the
 * arguments agree) and, once the group met, its check (all came). */
void shmemu__dev_slice(size_t n, unsigned r, unsigned g, size_t *lo, size_t *len) SHMEMU__HIDDEN;
unsigned shmemu__dev_warp_of(const struct dev_thread *t, unsigned *first) SHMEMU__HIDDEN;
void shmemu__dev_warp_sync(struct dev_thread *t, const char *call) SHMEMU__HIDDEN;
/* Thread t's warp came together (a warp function): it runs in step. */
void shmemu__dev_in_step(struct dev_thread *t) SHMEMU__HIDDEN;
struct dev_group *shmemu__dev_group_enter(struct dev_thread *t, int warp, const char *call,
                                          const void *a, const void *b, size_t n, int pe,
                                          unsigned *seq_p) SHMEMU__HIDDEN;
void shmemu__dev_group_check(struct dev_thread *t, const struct dev_group *g, unsigned seq,
                             unsigned size, int warp, const char *call) SHMEMU__HIDDEN;

_Noreturn void shmemu__dev_fail(struct dev_thread *t, int status, const char *call,
                                const char *fmt, ...) SHMEMU__PRINTF(4, 5);
/* The same, for a thread that goes on (or has ended): the scheduler
 * stops the launch. */
void shmemu__dev_record(struct dev_thread *t, int status, const char *call, const char *fmt,
                        ...) SHMEMU__PRINTF(4, 5);
/* A draw in [0, n) for the scheduler and the checker's delivery choices. */
uint64_t shmemu__dev_draw(struct dev_launch *L, uint64_t n);
/* Deliver what t holds for pe (every PE: -1, with the PE's stores
 * through peer pointers: shmemu__dev_land_views), oldest first. */
void shmemu__dev_deliver(struct dev_thread *t, int pe);
/* The PE's stores through peer pointers land, in an order a GPU may
 * deliver them; if a flag lands before its data, the other PEs get turns
 * to read it first (wait), or the rest stays held for a later landing
 * (!wait: the scheduler's draws). */
void shmemu__dev_land_views(struct dev_launch *L, int wait);
/* Fuzz, where the held puts land (every thread waiting, the kernel's
 * end): mostly, a word put after data to the same PE without a fence
 * between (by the same thread, or one that follows the data's thread
 * through __syncthreads) lands first, as it may on a GPU, and the data it
 * overtook is marked.  Returns whether it did: the other PEs should get
 * turns to read before the rest lands. */
int shmemu__dev_deliver_flags_first(struct dev_launch *L);
/* Deliver t's oldest held put (fuzz's delivery points). */
void shmemu__dev_deliver_oldest(struct dev_thread *t);
/* A quiet of t: the sources of its delivered nbi puts are free again
 * (each checked unchanged first). */
void shmemu__dev_quiet_sources(struct dev_thread *t);
/* A quiet of t (or the launch's end): its nbi gets complete, each
 * destination checked unwritten since the get poisoned it. */
void shmemu__dev_complete_gets(struct dev_thread *t);
/* Free what t still holds after delivering it (the launch ends). */
void shmemu__dev_flush(struct dev_thread *t);

#endif /* SHMEMU_DEVICE_INTERNAL_H */
