/*
 * launch.c - a kernel on the CPU: every device thread of the launch a fiber
 * of the launching PE, all resident at once, scheduled by the PE's own
 * thread (docs/DEVICE.md).
 *
 * A thread runs until it reaches a device call, an atomic, a fence,
 * __syncthreads or (in files built with shmemu-devcc) a loop's back edge
 * a few thousand times; then the scheduler picks the next ready thread:
 * in turn, or by a draw from sim's seeded schedule (so that a run replays
 * and --explore varies it), or by the checker's seeded draws.  A pass over
 * the threads in which none made progress (all wait) is a scheduling point
 * for the PEs (sim) or a yield of the CPU, and counts as a poll of the word
 * the first waiter watches for the job's livelock detection, which thus
 * sees kernels stuck on every PE as it sees host loops.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "check/check.h"
#include "ctl/livelock.h"
#include "device.h"
#include "runtime/dispatch.h"

/* Outside kernels: a thread of its own, all zero, that nobody writes
 * (shmemu_devrt_at writes only where gridDim.x is set). */
static struct shmemu_dev_self host_self;
_Thread_local struct shmemu_dev_self *shmemu_devrt_self = &host_self;
_Thread_local struct dev_launch *shmemu__dev_launch __attribute__((tls_model("initial-exec")));

/* Where PEs take turns in one thread (sim), the kernel in progress and
 * the running device thread are the PE's (runtime/core.h). */
static void state_save(void *slot[2])
{
    slot[0] = shmemu__dev_launch;
    slot[1] = shmemu_devrt_self == &host_self ? NULL : shmemu_devrt_self;
}

static void state_load(void *const slot[2])
{
    shmemu__dev_launch = slot[0];
    shmemu_devrt_self = slot[1] ? slot[1] : &host_self;
}

static const struct shmemu__pe_state_hooks state_hooks = {state_save, state_load};

/* A thread of a launch switches back here after LOOP_BUDGET basic blocks
 * without a device call (shmemu-devcc's loop hook). */
#define LOOP_BUDGET 4096u

/* Where a warp's threads are together (the kernel's start, a
 * __syncthreads, a warp function), a GPU runs them as one: each instruction for all of them
 * before the next.  Kernels rely on it: vLLM's custom allreduce reads its
 * per-block flag in every thread and has thread 0 store the next value a
 * few branches later, with no __syncthreads between (its last barrier).
 * Run one thread to its end, as turns between device calls do, and thread
 * 0 stores before thread 1 reads: thread 1 waits for a flag nobody sends.
 * So for the next LOCKSTEP basic blocks the threads of a warp take turns
 * block by block (files built with shmemu-devcc, whose loop hook sees
 * them), no thread going ahead of a warp-mate that can run. */
#define LOCKSTEP 4u

/* Passes of a launch, each with work done, after which a PE that takes
 * turns (sim) gives way as a spinner does (schedule). */
#define BUSY_PASSES 16u

struct dev_thread *shmemu__dev_me(const char *call)
{
    struct dev_launch *L = shmemu__dev_launch;
    if (SHMEMU__LIKELY(L && L->cur))
        return L->cur;
    shmemu__pe *me = shmemu__self;
    (void)shmemu__fail(me, SHMEMU_EINVAL, call,
                       "called outside a kernel (device calls run in a kernel that "
                       "shmemu_launch_kernel started)");
    return NULL;
}

uint64_t shmemu__dev_draw(struct dev_launch *L, uint64_t n)
{
    uint64_t r;
    if (L->draw && shmemu__tl_sched_draw(L->me->job, n, &r) == 0)
        return r;
    /* splitmix64 */
    uint64_t z = (L->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (z ^ (z >> 31)) % n;
}

void shmemu__dev_where(const struct dev_thread *t, char *buf, size_t len)
{
    const struct shmemu_dev_self *s = &t->self;
    snprintf(buf, len, "PE %d/%d block (%u,%u,%u) thread (%u,%u,%u) of kernel %s at %s:%d",
             t->L->me->pe, t->L->me->npes, s->block_idx.x, s->block_idx.y, s->block_idx.z,
             s->thread_idx.x, s->thread_idx.y, s->thread_idx.z, t->L->k->name,
             s->file ? s->file : t->L->k->file, s->line);
}

static void vrecord(struct dev_thread *t, int status, const char *call, const char *fmt,
                    va_list ap) SHMEMU__PRINTF(4, 0);
static void vrecord(struct dev_thread *t, int status, const char *call, const char *fmt,
                    va_list ap)
{
    struct dev_launch *L = t->L;
    char msg[300], where[200];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    shmemu__dev_where(t, where, sizeof(where));
    if (!L->failed) {
        L->failed = status;
        snprintf(L->why, sizeof(L->why), "%s: %s: %s", where, call, msg);
    }
}

void shmemu__dev_record(struct dev_thread *t, int status, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrecord(t, status, call, fmt, ap);
    va_end(ap);
}

_Noreturn void shmemu__dev_fail(struct dev_thread *t, int status, const char *call,
                                const char *fmt, ...)
{
    struct dev_launch *L = t->L;
    va_list ap;
    va_start(ap, fmt);
    vrecord(t, status, call, fmt, ap);
    va_end(ap);
    if (t->state == DT_DONE)
        L->ndone--; /* counted once below */
    t->state = DT_DONE;
    L->ndone++;
    /* The scheduler reports it on the PE's own stack, where an abort may
     * unwind (error mode abort). */
    shmemu_fiber_exit(&t->fib, &L->root);
}

/* ------------------------------------------------------------- threads */

static void block_arrive_exit(struct dev_launch *L, struct dev_block *b);

static void thread_main(void *arg)
{
    struct dev_thread *t = arg;
    struct dev_launch *L = t->L;
    L->k->body(L->arg);
    /* The end of a thread completes nothing: what it holds stays held
     * (the launch's end delivers it, after the others had a turn). */
    t->state = DT_DONE;
    L->ndone++;
    L->progress = 1;
    block_arrive_exit(L, t->blk);
    shmemu_fiber_exit(&t->fib, &L->root);
}

void shmemu__dev_yield(struct dev_thread *t, const char *waiting)
{
    struct dev_launch *L = t->L;
    t->waits = waiting;
    if (!waiting)
        L->progress = 1;
    t->budget = LOOP_BUDGET;
    shmemu_fiber_switch(&t->fib, &L->root);
    if (L->failed) /* a delivery of its puts failed meanwhile */
        shmemu__dev_fail(t, L->failed, "shmemu_launch_kernel", "stopped");
}

static const char *narrow_scope(const struct dev_thread *t)
{
    switch (t->self.atomic_scope) {
    case SHMEMU_DEV_SCOPE_BLOCK: return "block";
    case SHMEMU_DEV_SCOPE_DEVICE: return "device";
    default: return NULL;
    }
}

void shmemu_devrt_point(const void *addr)
{
    struct dev_thread *t = shmemu__dev_me("atomic");
    if (!t)
        return;
    shmemu__pe *me = t->L->me;
    size_t off = (size_t)((const char *)addr - me->heap) & ~(size_t)7;
    const void *word = addr == t->spin_at && off < me->heap_size
                           ? shmemu__tl_ptr_direct(me->job, me->pe, off)
                           : NULL;
    if (word) {
        /* Its last atomic left this word of its PE's as it was: a spin
         * (atomicAdd(flag, 0) until a peer raises it).  It waits, as in a
         * wait_until: the others get the turns, sim's PCT puts the PE below
         * those that work, and a word nobody will change is a livelock. */
        t->wait_pe = me->pe;
        t->wait_off = off;
        t->wait_val = __atomic_load_n((const uint64_t *)word, __ATOMIC_ACQUIRE);
        shmemu__dev_yield(t, "an atomic that leaves its word as it was (a spin)");
        t->waits = NULL;
    } else {
        shmemu__dev_yield(t, NULL);
    }
    t->blk->sig_pe = 0; /* a handshake between blocks, maybe (calls.c) */
    /* After the turn: nothing runs between this and the atomic itself. */
    if (me->chk)
        shmemu__check_dev_atomic(me, addr, narrow_scope(t), 0);
}

void shmemu_devrt_done(const void *addr, int changed)
{
    struct dev_launch *L = shmemu__dev_launch;
    struct dev_thread *t = L ? L->cur : NULL;
    if (!t)
        return;
    t->spin_at = changed ? NULL : addr;
    if (changed)
        L->progress = 1;
    if (L->me->chk)
        shmemu__check_dev_atomic(L->me, addr, narrow_scope(t), 1);
}

/* The loop hook: a file built with shmemu-devcc calls it on every basic
 * block (-fsanitize-coverage=trace-pc), so that a thread spinning on a
 * volatile load lets the others run. */
__attribute__((visibility("default"))) void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void)
{
    struct dev_launch *L = shmemu__dev_launch;
    struct dev_thread *t = L ? L->cur : NULL;
    if (!t)
        return;
    if (t->lockstep) { /* its warp-mates' turn at this block */
        t->lockstep--;
        t->step++;
        L->progress = 1;
        shmemu_fiber_switch(&t->fib, &L->root);
    } else if (--t->budget == 0) {
        t->budget = LOOP_BUDGET;
        t->waits = NULL;
        t->spun = 1;
        L->spins = 1; /* it computes, or spins: it cannot tell which */
        shmemu_fiber_switch(&t->fib, &L->root);
    }
}

void shmemu__dev_in_step(struct dev_thread *t)
{
    t->lockstep = LOCKSTEP;
    t->step = 0;
}

/* The threads of block b are together again (it started, or passed a
 * __syncthreads): their warps run in step for a while. */
static void warps_together(struct dev_launch *L, struct dev_block *b)
{
    struct dev_thread *th = L->th + (size_t)(b - L->blk) * L->per_block;
    for (unsigned i = 0; i < L->per_block; i++)
        shmemu__dev_in_step(&th[i]);
}

/* The thread to run in t's place: the warp-mate in step furthest behind
 * (that can run: one waiting in a device call holds nobody back), or t. */
static struct dev_thread *in_step(struct dev_launch *L, struct dev_thread *t)
{
    struct dev_thread *first = t - t->rank + (t->rank & ~31u), *best = t;
    unsigned n = L->per_block - (t->rank & ~31u);
    for (unsigned i = 0; i < (n < 32 ? n : 32); i++) {
        struct dev_thread *u = &first[i];
        if (u->lockstep && u->state == DT_READY && !u->waits && u->step < best->step)
            best = u;
    }
    return best;
}

/* ------------------------------------------------------ __syncthreads */

/* Every live thread of block b has arrived at __syncthreads: all go on. */
static void block_release(struct dev_launch *L, struct dev_block *b)
{
    size_t first = (size_t)(b - L->blk) * L->per_block;
    b->arrived = 0;
    b->gen++;
    b->sync_seq = shmemu__check_seq(L->me);
    warps_together(L, b);
    for (unsigned i = 0; i < L->per_block; i++)
        if (L->th[first + i].state == DT_SYNC) {
            L->th[first + i].state = DT_READY;
            L->th[first + i].waits = NULL; /* in step with its warp again */
        }
    L->progress = 1;
}

/* A block of a plain launch becomes resident: its threads may run. */
static void block_start(struct dev_launch *L, unsigned b)
{
    size_t first = (size_t)b * L->per_block;
    for (unsigned i = 0; i < L->per_block; i++)
        L->th[first + i].state = DT_READY;
    warps_together(L, &L->blk[b]);
    L->progress = 1;
}

/* A thread that ended no longer holds its block's barrier back; the last
 * of a block makes room for the next block of a plain launch. */
static void block_arrive_exit(struct dev_launch *L, struct dev_block *b)
{
    b->nthreads--;
    if (b->nthreads && b->arrived == b->nthreads)
        block_release(L, b);
    if (!b->nthreads && L->started < L->nblocks)
        block_start(L, L->started++);
}

void shmemu_devrt_syncthreads(void)
{
    struct dev_thread *t = shmemu__dev_me("__syncthreads");
    if (!t)
        return;
    struct dev_block *b = t->blk;
    if (++b->arrived == b->nthreads) {
        block_release(t->L, b);
        shmemu__dev_yield(t, NULL);
        return;
    }
    t->state = DT_SYNC;
    shmemu__dev_yield(t, "__syncthreads");
}

void *shmemu_devrt_shared(const void *key, size_t bytes)
{
    struct dev_thread *t = shmemu__dev_me("SHMEMU_SHARED");
    if (!t)
        return NULL;
    struct dev_block *b = t->blk;
    for (unsigned i = 0; i < b->nshared; i++)
        if (b->shared[i].key == key) {
            if (b->shared[i].bytes != bytes)
                shmemu__dev_fail(t, SHMEMU_EINVAL, "SHMEMU_SHARED",
                                 "declared with %zu bytes here and %zu bytes by another "
                                 "thread of the block",
                                 bytes, b->shared[i].bytes);
            return b->shared[i].mem;
        }
    if (b->nshared == b->cap) {
        unsigned cap = b->cap ? 2 * b->cap : 4;
        struct dev_shared *n = realloc(b->shared, cap * sizeof(*n));
        if (!n)
            shmemu__dev_fail(t, SHMEMU_ENOMEM, "SHMEMU_SHARED", "out of memory");
        b->shared = n;
        b->cap = cap;
    }
    /* Zeroed, as nothing in CUDA promises: a read before any write sees
     * the same thing every run. */
    void *mem = calloc(1, bytes ? bytes : 1);
    if (!mem)
        shmemu__dev_fail(t, SHMEMU_ENOMEM, "SHMEMU_SHARED", "%zu bytes: out of memory", bytes);
    b->shared[b->nshared++] = (struct dev_shared){key, mem, bytes};
    return mem;
}

/* ------------------------------------------------------------- launch */

/* Stacks of launches that ended, kept for the next ones of this process
 * (the PEs of the next job too): mapping, guarding, touching and
 * unmapping them was a third of a small device collective's time.  At
 * most STACK_POOL mappings of STACK_POOL_BYTES in all; the process's
 * end returns them. */
struct stack_map {
    char *mem;
    size_t len, stride, guard;
};
enum { STACK_POOL = 64 };
#define STACK_POOL_BYTES ((size_t)256 << 20)
static struct stack_map stack_pool[STACK_POOL];
static int stack_pooled;
static size_t stack_pool_bytes;
static pthread_mutex_t stack_lock = PTHREAD_MUTEX_INITIALIZER;

/* Pooled stacks of at least len bytes at this stride and guard, or NULL. */
static char *stack_take(size_t len, size_t stride, size_t guard, size_t *len_p)
{
    char *mem = NULL;
    pthread_mutex_lock(&stack_lock);
    for (int i = 0; i < stack_pooled; i++) {
        struct stack_map *m = &stack_pool[i];
        if (m->stride == stride && m->guard == guard && m->len >= len) {
            mem = m->mem;
            *len_p = m->len;
            stack_pool_bytes -= m->len;
            *m = stack_pool[--stack_pooled];
            break;
        }
    }
    pthread_mutex_unlock(&stack_lock);
#if defined(__SANITIZE_ADDRESS__)
    if (mem) /* a fiber's frames may have left their redzones poisoned */
        __asan_unpoison_memory_region(mem, *len_p);
#endif
    return mem;
}

/* A forked child (a PE process of a later job, a test's command) gets
 * none of the stacks (MADV_DONTFORK): copying a pool of guarded stacks
 * meant thousands of mappings per fork, and each fork of a long test
 * program paid for them.  So it starts with an empty pool. */
static void stack_pool_forget(void)
{
    stack_pooled = 0;
    stack_pool_bytes = 0;
    pthread_mutex_init(&stack_lock, NULL); /* a thread of the parent may have held it */
}

static void stack_pool_at_fork(void) { pthread_atfork(NULL, NULL, stack_pool_forget); }

static void stack_give(struct dev_launch *L)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, stack_pool_at_fork);
    pthread_mutex_lock(&stack_lock);
    int kept = stack_pooled < STACK_POOL && L->stacks_len <= STACK_POOL_BYTES - stack_pool_bytes;
    if (kept) {
        stack_pool[stack_pooled++] = (struct stack_map){L->stacks, L->stacks_len, L->stride, L->guard};
        stack_pool_bytes += L->stacks_len;
    }
    pthread_mutex_unlock(&stack_lock);
    if (!kept)
        munmap(L->stacks, L->stacks_len);
}

static void launch_free(struct dev_launch *L)
{
    free(L->live);
    if (L->th)
        for (size_t i = 0; i < L->total; i++)
            shmemu_fiber_free(&L->th[i].fib);
    if (L->blk)
        for (unsigned i = 0; i < L->nblocks; i++) {
            for (unsigned j = 0; j < L->blk[i].nshared; j++)
                free(L->blk[i].shared[j].mem);
            free(L->blk[i].shared);
            free(L->blk[i].warps);
            free(L->blk[i].wx);
        }
    if (L->th)
        for (size_t i = 0; i < L->total; i++)
            shmemu__dev_flush(&L->th[i]);
    if (L->stacks)
        stack_give(L);
    free(L->sets);
    free(L->th);
    free(L->blk);
    free(L->arg);
    shmemu_fiber_root_fini(&L->root);
    free(L);
}

static int launch_make(struct dev_launch *L, const void *arg, size_t arg_size)
{
    shmemu__pe *me = L->me;
    L->arg = malloc(arg_size ? arg_size : 1);
    L->th = calloc(L->total, sizeof(*L->th));
    L->blk = calloc(L->nblocks, sizeof(*L->blk));
    L->live = malloc(L->total * sizeof(*L->live));
    if (!L->arg || !L->th || !L->blk || !L->live)
        return SHMEMU_ENOMEM;
    for (size_t i = 0; i < L->total; i++)
        L->live[i] = i;
    L->nlive = L->total;
    memcpy(L->arg, arg, arg_size);
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    L->stack_size = (me->job->params.DEVICE_STACK + pg - 1) / pg * pg;
    if (L->stack_size < 4 * pg)
        L->stack_size = 4 * pg;
    /* A guard page below each stack while the mappings stay few (each
     * guard splits the region: the kernel allows about 65,000 per
     * process); above that, none. */
    size_t guard = L->total <= 1024 ? pg : 0, stride = guard + L->stack_size;
    if (L->total > SIZE_MAX / stride)
        return SHMEMU_ENOMEM;
    L->stacks_len = stride * L->total;
    L->stride = stride;
    L->guard = guard;
    int cached = (L->stacks = stack_take(L->stacks_len, stride, guard, &L->stacks_len)) != NULL;
    if (!cached) {
        L->stacks = mmap(NULL, L->stacks_len, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (L->stacks != MAP_FAILED)
            (void)madvise(L->stacks, L->stacks_len, MADV_DONTFORK); /* stack_give */
    }
    if (L->stacks == MAP_FAILED) {
        L->stacks = NULL;
        return SHMEMU_ENOMEM;
    }
    shmemu_fiber_root(&L->root);
    for (unsigned b = 0; b < L->nblocks; b++) {
        L->blk[b].nthreads = L->per_block;
        if (!(L->blk[b].warps = calloc((L->per_block + 31) / 32, sizeof(struct dev_group))))
            return SHMEMU_ENOMEM;
        for (unsigned i = 0; i < L->per_block; i++) {
            size_t n = (size_t)b * L->per_block + i;
            struct dev_thread *t = &L->th[n];
            char *mem = L->stacks + n * stride;
            if (guard && !cached && mprotect(mem, guard, PROT_NONE) != 0)
                return SHMEMU_ENOMEM;
            t->L = L;
            t->blk = &L->blk[b];
            t->rank = i;
            t->budget = LOOP_BUDGET;
            t->lockstep = LOCKSTEP;
            t->held_tail = &t->held;
            t->self.grid_dim = L->grid;
            t->self.block_dim = L->block;
            t->self.block_idx = (shmemu_dim3){b % L->grid.x, b / L->grid.x % L->grid.y,
                                             b / L->grid.x / L->grid.y};
            t->self.thread_idx = (shmemu_dim3){i % L->block.x, i / L->block.x % L->block.y,
                                              i / L->block.x / L->block.y};
            t->self.file = L->k->file;
            if (b >= L->started)
                t->state = DT_PENDING;
            shmemu_fiber_make(&t->fib, mem, L->stack_size, guard, thread_main, t);
        }
    }
    return SHMEMU_OK;
}

/* The first waiting thread, for the poll the job's livelock detection
 * samples and for reports. */
static struct dev_thread *first_waiter(struct dev_launch *L)
{
    for (size_t i = 0; i < L->total; i++)
        if (L->th[i].state != DT_DONE && L->th[i].waits)
            return &L->th[i];
    return NULL;
}

/* A live thread that would run if drawn (not waiting, not at
 * __syncthreads): a pass draws with replacement, so one without progress
 * may have missed it. */
static int runnable_left(const struct dev_launch *L)
{
    for (size_t i = 0; i < L->nlive; i++) {
        const struct dev_thread *t = &L->th[L->live[i]];
        if (t->state == DT_READY && !t->waits)
            return 1;
    }
    return 0;
}

/* For the checker's notes: where the running device thread is. */
static void kernel_where(shmemu__pe *me, char *buf, size_t len)
{
    const struct dev_launch *L = shmemu__dev_launch;
    const struct dev_thread *t = L ? L->cur : NULL;
    if (!t) {
        snprintf(buf, len, "PE %d/%d", me->pe, me->npes);
        return;
    }
    const struct shmemu_dev_self *s = &t->self;
    snprintf(buf, len, "PE %d/%d block (%u,%u,%u) thread (%u,%u,%u) of kernel %s at %s:%d", me->pe,
             me->npes, s->block_idx.x, s->block_idx.y, s->block_idx.z, s->thread_idx.x,
             s->thread_idx.y, s->thread_idx.z, L->k->name, s->file ? s->file : "?", s->line);
}

static void run_one(struct dev_launch *L, struct dev_thread *t)
{
    /* Where PEs take turns (sim), a turn starts only from here, on the
     * PE's own stack: a library call from a device thread (shmemu_ptr, a
     * team query, the checker's perturbation) must not switch PEs from a
     * device thread's stack, so the PE does not take turns meanwhile. */
    unsigned char coop = L->me->coop;
    L->me->coop = 0;
    L->me->in_kernel = 1;
    L->me->kernel_where = kernel_where;
    L->me->kernel_synced = t->blk->sync_seq;
    L->cur = t;
    shmemu_devrt_self = &t->self;
    if (L->me->chk) /* the checker names the thread in its reports */
        shmemu__check_dev_who(L->me, &t->self);
    shmemu_fiber_switch(&L->root, &t->fib);
    if (L->me->chk)
        shmemu__check_dev_who(L->me, NULL);
    shmemu_devrt_self = &host_self;
    L->cur = NULL;
    L->me->in_kernel = 0;
    L->me->coop = coop;
}


/* The other PEs' turn (sim: they run now, on this OS thread, so this
 * thread's device state is put aside meanwhile), or the CPU to them. */
/* The other PEs' turn (coop) or the CPU's; stuck: every thread waits, so
 * nothing here moves before another PE acts. */
static void host_turn(struct dev_launch *L, int nap, int stuck)
{
    shmemu__dev_launch = NULL;
    if (L->coop && stuck)
        shmemu__coop_spin(L->me);
    else if (nap)
        shmemu__nap(20000);
    else
        shmemu__relax();
    shmemu__dev_launch = L;
}

/* A signal, AMO or flag overtook puts still held: the other PEs get turns
 * to read what it announced before the rest lands (fuzz: as late as a GPU
 * may deliver it, bounded so that nothing waits on it forever). */
static void held_turns(struct dev_launch *L)
{
    for (int r = 0; r < 64 && !shmemu__aborted(L->me); r++)
        host_turn(L, r >= 8, 0);
}

/* A flag of this PE's landed on pe before its data
 * (shmemu__dev_land_views): the other PEs get turns to read what it
 * announced before the rest lands, as launch_end gives them for an
 * atomic that overtook puts (about a millisecond where PEs run at once),
 * and beyond while the checker's pause for pe's reader lasts (it ends
 * once that PE acted, or after a bounded time paid from the fuzzing's
 * budget).  Where PEs take turns, a fixed number of turns: the schedule
 * replays. */
static void reader_turns(struct dev_launch *L, int pe)
{
    for (int r = 0; !shmemu__aborted(L->me); r++) {
        if (r >= 64 && (L->coop || !shmemu__check_paused(L->me, pe)))
            break;
        /* On a device thread's stack (its fence) where PEs take turns, the
         * PE cannot give its turn (run_one): the thread gives way to the
         * scheduler, which gives the PEs their turns between passes. */
        if (L->coop && L->cur)
            shmemu__dev_yield(L->cur, NULL);
        else
            host_turn(L, r >= 8, 0);
    }
}

/* The PE's stores through peer pointers land (a system-scope fence, a
 * draw of the scheduler, every thread waiting, the kernel's end): a
 * GPU's reach another GPU in any order until then, so one goes first as
 * the checker picks (mostly the newest: a flag raised without a fence, or
 * by another thread than the one fencing).  If that was a flag before its
 * data, the rest waits: for the other PEs' turns where wait, else for a
 * later landing. */
void shmemu__dev_land_views(struct dev_launch *L, int wait)
{
    shmemu__pe *me = L->me;
    if (!L->checked)
        return; /* nothing is held */
    for (int p = 0; wait && p < me->npes; p++) /* one carried out at its store */
        if (shmemu__check_paused(me, p))
            reader_turns(L, p);
    /* A signal or atomic overtook them: the readers' turns first (a draw
     * leaves them to a later landing). */
    int pe = shmemu__check_views_passed(me);
    if (pe >= 0 && !wait)
        return;
    if (pe >= 0)
        reader_turns(L, pe);
    pe = shmemu__check_land_view_first(me);
    if (pe >= 0 && !wait)
        return;
    if (pe >= 0)
        reader_turns(L, pe);
    shmemu__check_land_views(me);
}

static const char call_name[] = "shmemu_launch_kernel";
static const char call_plain[] = "shmemu_launch_kernel_plain";

/* Why the launch stopped when the job was aborted.  Where a plain launch
 * had blocks waiting to start while every resident thread waited (the
 * job's deadlock or livelock detection then ended it), the rule, in a
 * line of its own: the job's report, printed once, is another PE's or
 * the detector's. */
static void stopped_why(struct dev_launch *L)
{
    snprintf(L->why, sizeof(L->why), "kernel %s stopped: the job was aborted", L->k->name);
    const struct dev_thread *w = L->stalled ? first_waiter(L) : NULL;
    if (!w)
        return;
    const struct shmemu_dev_self *s = &w->self;
    char line[768];
    snprintf(line, sizeof(line),
             "shmemu: PE %d/%d %s: kernel %s: %u of its %u blocks had not started while "
             "block (%u,%u,%u) thread (%u,%u,%u) waited at %s:%d (%s): a plain launch "
             "(shmemu_launch_kernel_plain, CUDA's <<<>>>) runs blocks as room frees up, here "
             "%u at once (SHMEMU_DEVICE_RESIDENT), so a wait between its blocks may never "
             "end: launch with shmemu_launch_kernel (every block resident at once, NVSHMEM's "
             "collective launch)\n",
             L->me->pe, L->me->npes, call_plain, L->k->name, L->nblocks - L->started,
             L->nblocks, s->block_idx.x, s->block_idx.y, s->block_idx.z, s->thread_idx.x,
             s->thread_idx.y, s->thread_idx.z, s->file ? s->file : "?", s->line, w->waits,
             L->resident);
    shmemu__emit(line);
}

static void schedule(struct dev_launch *L)
{
    shmemu__pe *me = L->me;
    size_t next = 0;
    unsigned idle = 0;
    int shuffle = L->draw || L->checked;
    while (L->ndone < L->total && !L->failed) {
        if (shmemu__aborted(me)) { /* another PE failed: its line said why */
            L->failed = SHMEMU_EABORTED;
            stopped_why(L);
            break;
        }
        L->progress = L->spins = 0;
        /* A pass after one in which every thread waited is likely one
         * more: its CPU time (the waits' checks, the nap) is polling, not
         * work that livelock detection must not interrupt. */
        int64_t cpu0 = idle && !L->coop ? shmemu__thread_cpu_ns() : 0;
        /* A pass picks among the threads still running: drawing among all
         * of them, most of a short kernel's picks found one that ended. */
        size_t live = 0;
        for (size_t i = 0; i < L->nlive; i++)
            if (L->th[L->live[i]].state != DT_DONE)
                L->live[live++] = L->live[i];
        L->nlive = live;
        for (size_t n = 0; n < live && !L->failed; n++) {
            size_t j = L->live[shuffle ? (size_t)shmemu__dev_draw(L, live) : next++ % live];
            struct dev_thread *t = &L->th[j];
            if (t->lockstep)
                t = in_step(L, t);
            t->spun = 0;
            if (t->state == DT_READY)
                run_one(L, t);
            /* Fuzz: now and then a held put of some thread arrives, and
             * now and then the stores through peer pointers (a GPU's land
             * in the end, fence or not: a thread spinning after a plain
             * flag store must not wait forever).  The odds are per unit
             * of a thread's work: a turn that ran out its loop budget
             * took thousands of basic blocks where one that made a call
             * took a few, and a waiter polling a plain flag in a loop
             * paid that for every turn until the flag landed. */
            if (L->checked && !L->failed && shmemu__dev_draw(L, t->spun ? 4 : 64) == 0) {
                struct dev_thread *h = &L->th[shmemu__dev_draw(L, L->total)];
                /* (a put a signal overtook, seldom: its reader gets the
                 * time to look, and yet a spinner never waits forever) */
                if (h->held && (!h->held->overtaken || shmemu__dev_draw(L, 16) == 0))
                    shmemu__dev_deliver_oldest(h);
                else if (shmemu__dev_draw(L, 8) == 0)
                    shmemu__dev_land_views(L, 0);
            }
        }
        if (L->progress || L->spins) {
            idle = 0;
            L->stalled = 0;
            shmemu__poll_progress(me);
            /* Where PEs take turns, each pass is one: a thread may spin on
             * a word only another PE's turn changes (the loop hook counts
             * a spin as work, since it cannot tell it from computing, and
             * so does a fence in a spin's loop).  Every BUSY_PASSES passes
             * the turn is a spinner's: under PCT the PE drops below the
             * others, or a PE polling volatile flags with the highest
             * priority starved the PEs that raise them.  A pass in which
             * no thread did more than run out its loop budget gives way
             * at once: it computed or spun, and a spin's thousands of
             * basic blocks per thread per pass made a PE waiting for a
             * held store's landing (fuzz) cost tens of milliseconds. */
            if (L->coop)
                host_turn(L, 0, !L->progress || ++L->busy % BUSY_PASSES == 0);
            else if (!L->progress)
                host_turn(L, 0, 0); /* the CPU to a PE whose store it may wait for */
            continue;
        }
        if (runnable_left(L))
            continue;
        /* Every thread waits: for another PE.  A poll for the job's
         * livelock detection (which ends the job when every PE waits so),
         * and the CPU to the others. */
        if (L->checked) { /* holding never deadlocks */
            if (shmemu__dev_deliver_flags_first(L))
                held_turns(L);
            for (size_t i = 0; i < L->total && !L->failed; i++)
                if (L->th[i].held)
                    shmemu__dev_deliver(&L->th[i], -1);
            shmemu__dev_land_views(L, 1);
        }
        struct dev_thread *w = first_waiter(L);
        L->stalled = L->started < L->nblocks;
        if (w)
            shmemu__polled(me, w->waits, NULL, w->wait_pe, w->wait_off, 8, w->wait_val);
        else
            shmemu__polled(me, call_name, NULL, me->pe, 0, 0, 0);
        host_turn(L, !L->coop && ++idle >= 64, 1);
        if (cpu0)
            __atomic_fetch_add(&me->poll_tl_cpu_ns, shmemu__thread_cpu_ns() - cpu0,
                               __ATOMIC_RELAXED);
    }
}

/* The kernel has ended.  What its threads still hold arrives now -- but
 * where a signal, an AMO or a flag put overtook it, only after the other
 * PEs had turns to read what that announced (held_turns). */
static void launch_end(struct dev_launch *L)
{
    int overtaken = !L->failed && shmemu__dev_deliver_flags_first(L);
    for (size_t i = 0; i < L->total; i++)
        for (struct dev_put *p = L->th[i].held; p; p = p->next) {
            overtaken |= p->overtaken;
            /* announced to a reader elsewhere (a signal to another PE,
             * a sync it passed): that reader may act first (this PE's
             * own reads of it come after the launch) */
            if (p->told_pe && p->told_pe - 1 != L->me->pe && !L->failed)
                shmemu__check_pause_reader(L->me, p->told_pe - 1);
        }
    if (overtaken)
        held_turns(L);
    if (L->checked && !L->failed)
        shmemu__dev_land_views(L, 1);
    for (size_t i = 0; i < L->total && !L->failed; i++) {
        shmemu__dev_deliver(&L->th[i], -1);
        shmemu__dev_quiet_sources(&L->th[i]);
        shmemu__dev_complete_gets(&L->th[i]);
    }
}

/* An abort unwound the PE out of its kernel (a device thread's call failed
 * in abort mode): the launch goes, as it would have on its return. */
static void launch_abandon(shmemu__pe *me)
{
    struct dev_launch *L = me->kernel_live;
    me->kernel_abandon = NULL;
    me->kernel_live = NULL;
    me->in_kernel = 0;
    shmemu__own_kernel(me, 0, NULL);
    if (shmemu__dev_launch == L)
        shmemu__dev_launch = NULL;
    shmemu_devrt_self = &host_self;
    if (L) {
        me->coop = L->coop; /* run_one lent it away */
        launch_free(L);
    }
}

static int launch(const struct shmemu_kernel *k, shmemu_dim3 grid, shmemu_dim3 block,
                  const void *arg, size_t arg_size, void *stream, int plain)
{
    const char *call = plain ? call_plain : call_name;
    (void)stream; /* the CPU runs it now: there is no stream to order on */
    shmemu__pe *me = shmemu__self;
    if (!me)
        return shmemu__fail(NULL, SHMEMU_EINVAL, call, "called outside a PE");
    if (!k || !k->body)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "kernel is NULL");
    if (!atomic_load_explicit(&shmemu__pe_state, memory_order_acquire))
        atomic_store_explicit(&shmemu__pe_state, &state_hooks, memory_order_release);
    if (shmemu__dev_launch)
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "kernel %s launched from inside kernel %s (no dynamic parallelism "
                            "on the CPU)",
                            k->name, shmemu__dev_launch->k->name);
    if (!arg && arg_size)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "kernel %s: argp is NULL", k->name);
    if (arg_size != k->arg_size)
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "kernel %s takes %zu bytes of argument, argp points to %zu", k->name,
                            k->arg_size, arg_size);
    uint64_t nb = (uint64_t)grid.x * grid.y * grid.z, nt = (uint64_t)block.x * block.y * block.z;
    /* (0,0,0): what the header makes of a count that fits no dim3 */
    if (!grid.x && !grid.y && !grid.z)
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "kernel %s: grid is (0,0,0): a count of blocks below 0 or past "
                            "4294967295 (CUDA allows 1 to 2147483647 blocks in x)",
                            k->name);
    if (!block.x && !block.y && !block.z)
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "kernel %s: block is (0,0,0): a count of threads below 0 or past "
                            "4294967295 (CUDA allows 1 to 1024 threads a block)",
                            k->name);
    if (nb == 0 || grid.y > 65535 || grid.z > 65535)
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "kernel %s: grid (%u,%u,%u) is empty or beyond CUDA's limits", k->name,
                            grid.x, grid.y, grid.z);
    if (nt == 0 || nt > 1024 || block.z > 64)
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "kernel %s: block (%u,%u,%u) has %llu threads (CUDA allows 1 to "
                            "1024, z at most 64)",
                            k->name, block.x, block.y, block.z, (unsigned long long)nt);
    if (nb * nt > (1u << 20))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "kernel %s: %llu threads in one launch; the CPU runs at most "
                            "1,048,576 (every block resident at once)",
                            k->name, (unsigned long long)(nb * nt));
    struct shmemu_tl_stream dev = {.kind = SHMEMU_TL_STREAM_DEVICE, .device = -1};
    if (!me->direct && !me->job->check.device && shmemu__tl_stream(me, &dev) == SHMEMU_OK &&
        dev.device >= 0) {
        /* A transport with a device of its own (cuda) runs the library's
         * kernels as it built them: by name, with the table a kernel built
         * by nvcc gets. */
        struct shmemu_devrt_table table;
        int st = shmemu_devrt_cuda_table(&table);
        if (st)
            return st;
        struct shmemu_tl_stream d = {.kind = SHMEMU_TL_STREAM_KERNEL, .kernel = k->name,
                                     .arg = arg, .arg_size = arg_size, .table = &table};
        st = shmemu__tl_stream(me, &d);
        if (st != SHMEMU_ENOTSUP)
            return st ? shmemu__tl_failed(me, st, call, "kernel %s", k->name) : shmemu__ok();
    }
    if (!me->direct && me->job->check.device)
        return shmemu__fail(me, SHMEMU_ENOTSUP, call,
                            "kernel %s: kernels do not run under SHMEMU_CHECK=device (the heap "
                            "plays device memory that this process cannot load; check them "
                            "without it, or with fuzz and race)",
                            k->name);
    if (!me->direct)
        return shmemu__fail(me, SHMEMU_ENOTSUP, call,
                            "kernel %s: transport %s has no load/store access to peers' heaps; "
                            "device code runs on local, shm and sim (and cuda under nvcc)",
                            k->name, shmemu__tl_name(me->job));
    /* Device threads load and store every peer's heap (their puts too):
     * ucx maps a peer's only within a node. */
    for (int p = 0; p < me->npes; p++)
        if (!shmemu__tl_ptr_direct(me->job, p, 0))
            return shmemu__fail(me, SHMEMU_ENOTSUP, call,
                                "kernel %s: PE %d's heap is not mapped in this process "
                                "(transport %s): device code needs load/store access to every "
                                "PE's heap",
                                k->name, p, shmemu__tl_name(me->job));
    /* Before the launch exists: a call into the library unwinds the PE in
     * ABORT mode once another PE ended the job, and a launch made but not
     * yet handed to kernel_abandon would then be lost. */
    void *ws = shmemu_team_workspace(SHMEMU_TEAM_WORLD);
    if (!ws)
        return shmemu_last_status();
    struct dev_launch *L = calloc(1, sizeof(*L));
    if (!L)
        return shmemu__fail(me, SHMEMU_ENOMEM, call, "out of memory");
    *L = (struct dev_launch){.k = k, .me = me, .grid = grid, .block = block,
                             .nblocks = (unsigned)nb, .per_block = (unsigned)nt,
                             .total = (size_t)(nb * nt), .checked = me->job->check.fuzz,
                             .draw = me->coop, .coop = me->coop,
                             .rng = me->job->check.seed * 0x9e3779b97f4a7c15ULL +
                                    (uint64_t)me->pe +
                                    me->kernel_launches++ * 0xd1b54a32d192ed03ULL,
                             .resident = (unsigned)nb, .started = (unsigned)nb};
    if (plain && (uint64_t)me->job->params.DEVICE_RESIDENT < nb)
        L->resident = L->started = (unsigned)me->job->params.DEVICE_RESIDENT;
    int st = launch_make(L, arg, arg_size);
    if (st) {
        launch_free(L);
        return shmemu__fail(me, st, call, "kernel %s: no memory for %zu device threads", k->name,
                            (size_t)(nb * nt));
    }
    L->ws = ws;
    shmemu__dev_launch = L;
    me->kernel_live = L;
    me->kernel_abandon = launch_abandon;
    /* whose code the kernel is: the library's built-ins, or the program's */
    const void *code = (const void *)(uintptr_t)k->body;
    shmemu__own_kernel(me, 1, code);
    shmemu__check_dev_kernel(me, 1);
    schedule(L);
    launch_end(L);
    shmemu__check_dev_kernel(me, 0);
    shmemu__own_kernel(me, 0, code);
    me->last_kernel = L->k->name;
    me->kernel_abandon = NULL;
    me->kernel_live = NULL;
    shmemu__dev_launch = NULL;
    st = L->failed;
    char why[sizeof(L->why)];
    memcpy(why, L->why, sizeof(why));
    launch_free(L);
    if (st)
        return shmemu__fail(me, st, call, "%s", why);
    return shmemu__ok();
}

int shmemu_devrt_launch(const struct shmemu_kernel *k, shmemu_dim3 grid, shmemu_dim3 block,
                        const void *arg, size_t arg_size, void *stream)
{
    return launch(k, grid, block, arg, arg_size, stream, 0);
}

int shmemu_devrt_launch_plain(const struct shmemu_kernel *k, shmemu_dim3 grid,
                              shmemu_dim3 block, const void *arg, size_t arg_size, void *stream)
{
    return launch(k, grid, block, arg, arg_size, stream, 1);
}
