/*
 * calls.c - the device calls of shmemu_device.h on the CPU: loads, stores
 * and atomics on peers' heaps as mapped in this process (the transports
 * that run kernels here all map them), with NVSHMEM's ordering rules.
 *
 * Plainly run, a put is a copy that lands at once.  In checker mode
 * (fuzz), a put is held by its thread, with a copy of its source, until
 * something orders it: a quiet or a system-scope fence of that thread, a
 * wait of that thread (not a device sync's: a sync completes nothing), a
 * later signal, AMO or get of that thread to the same PE after a fence (a
 * fence orders per destination PE), a seeded draw of the scheduler, or
 * the end of the launch; signals and AMOs act at once.  So a flag raised
 * without a fence after the data it announces arrives first, as it may on
 * a GPU, and a waiter reads stale data; a note names both lines.  An nbi
 * put whose symmetric source changed before it was delivered is an error
 * (the source belongs to the put until quiet).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "ctl/wait.h"
#include "device.h"
#include "runtime/dispatch.h"
#include "runtime/heap.h"
#include "runtime/value.h"


/* t: the calling device thread; outside a kernel the call has said so
 * (shmemu__dev_me) and returns, with ret where it returns a value. */
#define ME_OR(call, ret)                                                       \
    struct dev_thread *t = shmemu__dev_me(call);                               \
    if (!t)                                                                    \
        return ret
#define ME(call) ME_OR(call, )

/* PE pe's address of the symmetric object at sym, checked as the host's
 * calls check theirs (inside one allocated block of the heap; the
 * program's static data are not symmetric on a GPU); the calling thread
 * fails with a line where it is not one. */
static char *peer_addr(struct dev_thread *t, const char *call, const char *what,
                       const void *sym, size_t n, int pe)
{
    shmemu__pe *me = t->L->me;
    if ((unsigned)pe >= (unsigned)me->npes)
        shmemu__dev_fail(t, SHMEMU_EPE, call, "pe %d is not a PE of this job (valid: 0..%d)", pe,
                         me->npes - 1);
    size_t off = (size_t)((uintptr_t)sym - (uintptr_t)me->heap);
    if (!sym || off >= me->heap_size)
        shmemu__dev_fail(t, SHMEMU_ERANGE, call,
                         "%s %p+%zu is outside the symmetric heap (heap %p+%zu)", what, sym, n,
                         (void *)me->heap, me->heap_size);
    const struct shmemu__blk *b = shmemu__heap_find(&me->alloc, off);
    if (!b->used)
        shmemu__dev_fail(t, SHMEMU_ERANGE, call,
                         "%s %p+%zu is outside the symmetric heap (not in an allocated block: "
                         "heap offset %#zx is free)",
                         what, sym, n, off);
    if (n > b->off + b->req - off)
        shmemu__dev_fail(t, SHMEMU_ERANGE, call,
                         "%s %p+%zu is outside the symmetric heap (block %p+%zu)", what, sym, n,
                         (void *)(me->heap + b->off), b->req);
    return shmemu__tl_ptr_direct(me->job, pe, off);
}

static void check_local(struct dev_thread *t, const char *call, const char *what,
                        const void *p, size_t n)
{
    if (!p && n)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call, "%s is NULL with %zu bytes", what, n);
}

/* The heap offset of symmetric address sym (peer_addr checked it). */
static size_t sym_off(const struct dev_thread *t, const void *sym)
{
    return (size_t)((const char *)sym - t->L->me->heap);
}

/* ------------------------------------------------------------ holding */

static int in_own_heap(shmemu__pe *me, const void *p, size_t n)
{
    size_t off = (size_t)((uintptr_t)p - (uintptr_t)me->heap);
    return off < me->heap_size && n <= me->heap_size - off;
}

/* An nbi put's symmetric source must keep its bytes until a quiet: a
 * change is an error, whether or not the put had arrived meanwhile. */
static void check_source(struct dev_thread *t, const struct dev_put *p)
{
    if (memcmp(p->src, p->data, p->n) == 0)
        return;
    t->self.file = p->file;
    t->self.line = p->line;
    shmemu__dev_record(t, SHMEMU_ERACE, p->call,
                       "its source (%zu bytes to PE %d) changed before a quiet completed the "
                       "put: the GPU may send the old bytes, the new or a mix",
                       p->n, p->pe);
}

/* A put's bytes land: a naturally aligned word of 1, 2, 4 or 8 bytes in
 * one atomic store, as a GPU delivers it (a waiter polling the word never
 * sees it torn, and the thread sanitizer sees the pairing with its atomic
 * loads); anything else as a copy. */
#define LAND_WORD(T)                                                           \
    do {                                                                       \
        T v;                                                                   \
        memcpy(&v, src, sizeof(v));                                            \
        __atomic_store_n((T *)dst, v, __ATOMIC_RELEASE);                       \
    } while (0)

static void land_bytes(void *dst, const void *src, size_t n)
{
    uintptr_t a = (uintptr_t)dst;
    if (n == 8 && !(a & 7))
        LAND_WORD(uint64_t);
    else if (n == 4 && !(a & 3))
        LAND_WORD(uint32_t);
    else if (n == 2 && !(a & 1))
        LAND_WORD(uint16_t);
    else if (n == 1)
        LAND_WORD(uint8_t);
    else
        memmove(dst, src, n);
}

static void deliver_one(struct dev_thread *t, struct dev_put *p)
{
    /* Why a reader there may have missed it, if one did (the race
     * detector's report): a device sync passed it, or a signal to another
     * PE that no quiet ordered it before. */
    char why[320] = "";
    if (p->told_sync)
        snprintf(why, sizeof(why),
                 "the thread's %s at %s:%d came between them and completes nothing (NVSHMEM: "
                 "a sync orders no put): use shmemu_dev_barrier_all(), or shmemu_dev_quiet() "
                 "before the sync",
                 p->told_call, p->told_file ? p->told_file : "?", p->told_line);
    else if (p->told_pe)
        snprintf(why, sizeof(why),
                 "only a quiet orders it before the thread's %s at %s:%d to PE %d, which may "
                 "announce it (a fence orders puts per destination PE: NVSHMEM, OpenSHMEM): "
                 "put shmemu_dev_quiet() between the put and the signal",
                 p->told_call, p->told_file ? p->told_file : "?", p->told_line, p->told_pe - 1);
    shmemu__check_dev_landed(t->L->me, p->pe, p->off, p->n, p->clock, p->call, p->file, p->line,
                             &t->self, why[0] ? why : NULL);
    land_bytes(p->dst, p->data, p->n);
    shmemu__notify(t->L->me, p->pe); /* a host waiting on the word */
    if (p->nbi && in_own_heap(t->L->me, p->src, p->n)) {
        check_source(t, p);
        p->next = t->watch; /* its source stays watched until a quiet */
        t->watch = p;
        return;
    }
    free(p);
}

void shmemu__dev_quiet_sources(struct dev_thread *t)
{
    while (t->watch) {
        struct dev_put *p = t->watch;
        t->watch = p->next;
        check_source(t, p);
        free(p);
    }
}

/* t's held puts to pe (every PE: -1) land, in the order t issued them;
 * with fenced, only those a fence of t ordered before its block's
 * __syncthreads number gen (OWN_GEN: before anything t does now). */
#define OWN_GEN UINT_MAX
static void deliver_some(struct dev_thread *t, int pe, int fenced, unsigned gen)
{
    struct dev_put **pp = &t->held;
    while (*pp) {
        struct dev_put *p = *pp;
        if ((pe >= 0 && p->pe != pe) ||
            (fenced && !(p->fenced && (gen == OWN_GEN || p->fbgen < gen)))) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        if (!*pp)
            t->held_tail = pp;
        deliver_one(t, p);
    }
    if (!t->held)
        t->held_tail = &t->held;
}

void shmemu__dev_deliver(struct dev_thread *t, int pe)
{
    /* Everything this thread put, and (coarser than the GPU: the PE's, not
     * the thread's) its stores through peer pointers' views (shm). */
    if (pe < 0)
        shmemu__dev_land_views(t->L, 1);
    deliver_some(t, pe, 0, 0);
}

/* shmemu_dev_fence: what t holds now arrives at each PE before anything t
 * sends that PE later -- per destination, as OpenSHMEM's and NVSHMEM's
 * fence promise: a put to one PE and a signal to another stay unordered
 * until a quiet.  Nothing lands now. */
static void fence_puts(struct dev_thread *t)
{
    for (struct dev_put *p = t->held; p; p = p->next)
        if (!p->fenced) {
            p->fenced = 1;
            p->fbgen = t->blk->gen;
        }
    t->fences++;
}

/* Before t's signal, AMO or get acts on pe: the puts to pe that a fence
 * ordered before it land first -- t's own, and those of its block's
 * threads that fenced before a __syncthreads t has passed (the rule the
 * checker keeps for fences: cumulative through __syncthreads). */
static void deliver_fenced(struct dev_thread *t, int pe)
{
    if (!t->L->checked)
        return;
    deliver_some(t, pe, 1, OWN_GEN);
    struct dev_launch *L = t->L;
    struct dev_thread *blk = L->th + (size_t)(t->blk - L->blk) * L->per_block;
    for (unsigned i = 0; i < L->per_block; i++)
        if (&blk[i] != t && blk[i].held)
            deliver_some(&blk[i], pe, 1, t->blk->gen);
}

void shmemu__dev_deliver_oldest(struct dev_thread *t)
{
    struct dev_put *p = t->held;
    if (!p)
        return;
    t->held = p->next;
    if (!t->held)
        t->held_tail = &t->held;
    deliver_one(t, p);
}

/* A put's symmetric source, n bytes at src, to pe, that must keep its
 * bytes until t's next quiet (an nbi put with signal, which lands at
 * once). */
static void watch_source(struct dev_thread *t, const char *call, const void *src, size_t n,
                         int pe)
{
    if (!t->L->checked || !n || !in_own_heap(t->L->me, src, n))
        return;
    struct dev_put *p = malloc(sizeof(*p) + n);
    if (!p)
        shmemu__dev_fail(t, SHMEMU_ENOMEM, call, "no memory to watch a %zu-byte source", n);
    *p = (struct dev_put){.pe = pe, .src = src, .n = n, .nbi = 1, .file = t->self.file,
                          .line = t->self.line, .call = call};
    memcpy(p->data, src, n);
    p->next = t->watch;
    t->watch = p;
}

static int poisoned(const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != SHMEMU_CHECK_GET_POISON)
            return 0;
    return 1;
}

void shmemu__dev_complete_gets(struct dev_thread *t)
{
    while (t->gets) {
        struct dev_put *g = t->gets;
        t->gets = g->next;
        if (!t->L->failed && !poisoned((const unsigned char *)g->dst, g->n)) {
            t->self.file = g->file;
            t->self.line = g->line;
            shmemu__dev_record(t, SHMEMU_ERACE, g->call,
                               "its destination (%zu bytes from PE %d) was written before a "
                               "quiet completed the get: the GPU may write it at any time "
                               "until then",
                               g->n, g->pe);
        }
        memmove(g->dst, g->src, g->n);
        /* (printed only if the job then fails: one note per line) */
        shmemu__check_note(t->L->me->job,
                           "%s at %s:%d (%zu bytes from PE %d): its destination held poison "
                           "(0x%02x bytes: NaN as a float, huge as an integer) until a quiet "
                           "completed the get; a value read from it before then is not the "
                           "peer's: read it after shmemu_dev_quiet()",
                           g->call, g->file, g->line, g->n, g->pe, SHMEMU_CHECK_GET_POISON);
        free(g);
    }
}

void shmemu__dev_flush(struct dev_thread *t)
{
    while (t->gets) {
        struct dev_put *g = t->gets;
        t->gets = g->next;
        free(g);
    }
    while (t->held) {
        struct dev_put *p = t->held;
        t->held = p->next;
        free(p);
    }
    t->held_tail = &t->held;
    while (t->watch) {
        struct dev_put *p = t->watch;
        t->watch = p->next;
        free(p);
    }
}

/* A put of n bytes from src to dst (pe's heap, at offset off): now, or
 * held (fuzz). */
static void put_bytes(struct dev_thread *t, const char *call, char *dst, size_t off,
                      const void *src, size_t n, int pe, int nbi)
{
    shmemu__pe *me = t->L->me;
    if (!n)
        return;
    struct dev_block *b = t->blk;
    b->sig_pe = b->sig_pe == 0 || b->sig_pe == pe + 1 ? pe + 1 : -1;
    if (!t->L->checked) {
        shmemu__check_dev_access(me, 1, pe, off, n, shmemu__check_dev_clock(me), call,
                                 t->self.file, t->self.line, &t->self);
        land_bytes(dst, src, n);
        shmemu__notify(me, pe);
        return;
    }
    struct dev_put *p = malloc(sizeof(*p) + n);
    if (!p)
        shmemu__dev_fail(t, SHMEMU_ENOMEM, call, "no memory to hold a %zu-byte put", n);
    *p = (struct dev_put){.pe = pe, .dst = dst, .src = src, .n = n, .nbi = nbi,
                          .file = t->self.file, .line = t->self.line, .call = call,
                          .off = off, .clock = shmemu__check_dev_clock(me),
                          .bgen = t->blk->gen, .fgen = t->fences, .seq = t->L->puts++};
    memcpy(p->data, src, n);
    *t->held_tail = p;
    t->held_tail = &p->next;
}

/* ------------------------------------------------- flags before data */

#define FLAG_BYTES 8 /* a put this small may be a flag */
#define FLAG_PICKS 8 /* the newest such puts weighed at one landing */

static int overlaps(const struct dev_put *a, const struct dev_put *b)
{
    return a->pe == b->pe && a->off < b->off + b->n && b->off < a->off + a->n;
}

/* Must y, held by thread ty, land before x, held by tx?  Issued earlier
 * to the same PE, with a fence between: tx's own, or ty's before a
 * __syncthreads that tx passed before issuing x. */
static int ordered_before(const struct dev_thread *tx, const struct dev_put *x,
                          const struct dev_thread *ty, const struct dev_put *y)
{
    return y->pe == x->pe && y->seq < x->seq &&
           (ty == tx ? y->fgen < x->fgen : y->fenced && y->fbgen < x->bgen);
}

/* Would x, held by thread tx, overtake y, held by ty, if it landed first?
 * Not ordered by anything: y issued earlier to the same PE by the same
 * thread, or by a thread that tx follows through __syncthreads (a fence
 * orders only its caller's puts, __syncthreads none), with no fence that
 * orders them (ordered_before). */
static int may_overtake(const struct dev_thread *tx, const struct dev_put *x,
                        const struct dev_thread *ty, const struct dev_put *y)
{
    return y->pe == x->pe && y->seq < x->seq && (ty == tx || y->bgen < x->bgen) &&
           !ordered_before(tx, x, ty, y);
}

/* x (held by t) lands before the puts it may overtake, if none of them
 * writes its bytes; each is marked and the first named in a note. */
static int flag_first(struct dev_thread *t, struct dev_put *x)
{
    struct dev_launch *L = t->L;
    struct dev_thread *blk = L->th + (size_t)(t->blk - L->blk) * L->per_block;
    const struct dev_put *first = NULL;
    const struct dev_thread *by = NULL;
    for (unsigned i = 0; i < L->per_block; i++)
        for (const struct dev_put *y = blk[i].held; y; y = y->next) {
            if (y != x && ordered_before(t, x, &blk[i], y))
                return 0; /* a fence keeps x behind y */
            if (y != x && may_overtake(t, x, &blk[i], y)) {
                if (overlaps(x, y))
                    return 0; /* the same bytes keep their order */
                if (!first || y->seq < first->seq) {
                    first = y;
                    by = &blk[i];
                }
            }
        }
    if (!first)
        return 0;
    for (unsigned i = 0; i < L->per_block; i++)
        for (struct dev_put *y = blk[i].held; y; y = y->next)
            if (y != x && may_overtake(t, x, &blk[i], y))
                y->overtaken = 1;
    const struct shmemu_dev_self *o = &by->self;
    char whose[96] = "";
    if (by != t)
        snprintf(whose, sizeof(whose), " by thread (%u,%u,%u), which it follows through "
                 "__syncthreads", o->thread_idx.x, o->thread_idx.y, o->thread_idx.z);
    const struct shmemu_dev_self *s = &t->self;
    shmemu__check_note(L->me->job,
                       "flag before data: PE %d/%d block (%u,%u,%u) thread (%u,%u,%u) of "
                       "kernel %s: its %zu-byte put at %s:%d reached PE %d before the "
                       "put at %s:%d to PE %d%s: puts to one PE arrive in any order until "
                       "a fence or quiet of the thread that issued them%s (NVSHMEM): %s",
                       L->me->pe, L->me->npes, s->block_idx.x, s->block_idx.y,
                       s->block_idx.z, s->thread_idx.x, s->thread_idx.y, s->thread_idx.z,
                       L->k->name, x->n, x->file, x->line, x->pe, first->file, first->line,
                       x->pe, whose, by == t ? "" : ", and __syncthreads orders none",
                       by == t ? "put shmemu_dev_fence() between the data and the flag, or "
                                 "send both with shmemu_dev_putmem_signal"
                               : "have each thread call shmemu_dev_quiet() (or _fence) "
                                 "before __syncthreads, or send the data with "
                                 "shmemu_dev_putmem_signal");
    /* out of t's list, then it lands */
    struct dev_put **pp = &t->held;
    while (*pp != x)
        pp = &(*pp)->next;
    *pp = x->next;
    if (t->held_tail == &x->next)
        t->held_tail = pp;
    deliver_one(t, x);
    return 1;
}

int shmemu__dev_deliver_flags_first(struct dev_launch *L)
{
    if (!L->checked)
        return 0;
    struct dev_put *pick[FLAG_PICKS];
    struct dev_thread *of[FLAG_PICKS];
    unsigned n = 0;
    for (size_t i = 0; i < L->total; i++)
        for (struct dev_put *x = L->th[i].held; x; x = x->next) {
            if (x->n > FLAG_BYTES)
                continue;
            unsigned at = n < FLAG_PICKS ? n++ : FLAG_PICKS;
            while (at > 0 && pick[at - 1]->seq < x->seq) { /* newest first */
                if (at < FLAG_PICKS) {
                    pick[at] = pick[at - 1];
                    of[at] = of[at - 1];
                }
                at--;
            }
            if (at < FLAG_PICKS) {
                pick[at] = x;
                of[at] = &L->th[i];
            }
        }
    if (!n || shmemu__dev_draw(L, 4) == 0) /* (now and then in order) */
        return 0;
    int landed = 0;
    for (unsigned i = 0; i < n; i++)
        landed |= flag_first(of[i], pick[i]);
    return landed;
}

/* A signal or AMO to pe is about to act while t holds puts to pe that
 * nothing orders before it: they may arrive after it. */
static void note_unordered(struct dev_thread *t, const char *call, int pe)
{
    int noted = 0;
    for (struct dev_put *p = t->held; p; p = p->next)
        if (p->pe == pe && !noted++) {
            char where[200];
            shmemu__dev_where(t, where, sizeof(where));
            shmemu__check_note(t->L->me->job,
                               "%s: %s reached PE %d before the put at %s:%d to PE %d: no fence "
                               "or quiet orders the put before it (shmemu_dev_fence, or "
                               "shmemu_dev_putmem_signal)",
                               where, call, pe, p->file, p->line, pe);
        }
    /* Its puts to other PEs went out before it too, and only a quiet
     * orders them before it (a fence orders per PE): the signal may
     * announce them to a third PE, whose reader the launch's end waits
     * for before they land. */
    for (struct dev_put *p = t->held; p; p = p->next) {
        p->overtaken = 1;
        if (p->pe != pe && !p->told_pe) {
            p->told_pe = pe + 1;
            p->told_call = call;
            p->told_file = t->self.file;
            p->told_line = t->self.line;
        }
    }
    /* Other threads' puts that this thread follows through __syncthreads
     * (issued before one it has passed): the signal announces them too,
     * yet a fence or quiet orders only its own caller's puts (NVSHMEM),
     * and __syncthreads none -- a "cheap fence" that waits for one wave
     * while others wrote the payload (Primus-Turbo 482). */
    struct dev_launch *L = t->L;
    size_t first = (size_t)(t->blk - L->blk) * L->per_block;
    noted = 0;
    for (unsigned i = 0; i < L->per_block; i++) {
        struct dev_thread *u = &L->th[first + i];
        for (struct dev_put *p = u == t ? NULL : u->held; p; p = p->next) {
            if (p->pe != pe || p->bgen >= t->blk->gen)
                continue;
            if (!noted++) {
                char where[200];
                shmemu__dev_where(t, where, sizeof(where));
                const struct shmemu_dev_self *o = &u->self;
                shmemu__check_note(L->me->job,
                                   "%s: %s reached PE %d before the put at %s:%d to PE %d by "
                                   "thread (%u,%u,%u), which this thread follows through "
                                   "__syncthreads: a fence or quiet orders only the calling "
                                   "thread's puts, and __syncthreads none (NVSHMEM): have "
                                   "each thread call shmemu_dev_quiet() (or _fence) before "
                                   "__syncthreads, or put with shmemu_dev_putmem_signal",
                                   where, call, pe, p->file, p->line, pe, o->thread_idx.x,
                                   o->thread_idx.y, o->thread_idx.z);
            }
            p->overtaken = 1;
        }
    }
}

/* ------------------------------------------------------------- queries */

int shmemu_devrt_my_pe(void)
{
    struct dev_launch *L = shmemu__dev_launch;
    return L ? L->me->pe : shmemu_my_pe();
}

int shmemu_devrt_n_pes(void)
{
    struct dev_launch *L = shmemu__dev_launch;
    return L ? L->me->npes : shmemu_n_pes();
}

void *shmemu_devrt_ptr(const void *dest, int pe)
{
    /* As the host's: a peer's address, or NULL; in checker mode a view
     * whose stores the checker sees (shm).  Where the checker has no such
     * view (local, sim: the host gets NULL there), the address itself:
     * a kernel's peer pointers must work wherever kernels run. */
    void *p = shmemu_ptr(dest, pe);
    struct dev_launch *L = shmemu__dev_launch;
    if (!p && L && L->me->chk && L->me->direct && (unsigned)pe < (unsigned)L->me->npes) {
        size_t off = (size_t)((uintptr_t)dest - (uintptr_t)L->me->heap);
        if (off < L->me->heap_size) {
            p = shmemu__tl_ptr_direct(L->me->job, pe, off);
            if (pe != L->me->pe)
                shmemu__direct_stores(L->me);
            shmemu__ok();
        }
    }
    return p;
}

int shmemu_devrt_team_my_pe(shmemu_team_t team) { return shmemu_team_my_pe(team); }
int shmemu_devrt_team_n_pes(shmemu_team_t team) { return shmemu_team_n_pes(team); }

/* ---------------------------------------------------------------- RMA */

static void do_put(struct dev_thread *t, const char *call, void *dest, const void *src,
                   size_t n, int pe, int nbi)
{
    char *dst = peer_addr(t, call, "dest", dest, n, pe);
    check_local(t, call, "src", src, n);
    put_bytes(t, call, dst, sym_off(t, dest), src, n, pe, nbi);
}

/* A get of n bytes: now, or (nbi, checker mode) at the thread's next
 * quiet, its destination poisoned until then -- a value read before the
 * quiet is wrong even where the buffer held the right one, as on a GPU
 * it may not have arrived. */
static void do_get(struct dev_thread *t, const char *call, void *dest, const void *src,
                   size_t n, int pe, int nbi)
{
    const char *from = peer_addr(t, call, "src", src, n, pe);
    check_local(t, call, "dest", dest, n);
    deliver_fenced(t, pe); /* a get follows what a fence ordered before it */
    shmemu__pe *me = t->L->me;
    shmemu__check_dev_access(me, 0, pe, sym_off(t, src), n, shmemu__check_dev_clock(me), call,
                             t->self.file, t->self.line, &t->self);
    if (!n)
        return;
    const char *d = dest;
    if (!nbi || !t->L->checked || (d < from + n && from < d + n) ||
        shmemu__check_in_view(me, dest)) { /* (into a peer's heap: its stores) */
        memmove(dest, from, n);
        return;
    }
    struct dev_put *g = malloc(sizeof(*g));
    if (!g)
        shmemu__dev_fail(t, SHMEMU_ENOMEM, call, "no memory to hold a %zu-byte get", n);
    *g = (struct dev_put){.pe = pe, .dst = dest, .src = from, .n = n, .nbi = 1,
                          .file = t->self.file, .line = t->self.line, .call = call};
    memset(dest, SHMEMU_CHECK_GET_POISON, n);
    struct dev_put **pp = &t->gets;
    while (*pp)
        pp = &(*pp)->next;
    *pp = g;
}

#define GROUP_COPY(NAME, CALL, IS_PUT, NBI, WARP)                              \
    void shmemu_devrt_##NAME(void *dest, const void *src, size_t nbytes, int pe) \
    {                                                                          \
        ME(CALL);                                                              \
        unsigned first = 0, g = WARP ? shmemu__dev_warp_of(t, &first) : t->L->per_block;    \
        unsigned r = WARP ? t->rank - first : t->rank, seq;                    \
        struct dev_group *grp = shmemu__dev_group_enter(t, WARP, CALL, dest, src, nbytes, pe, &seq); \
        size_t lo, len;                                                        \
        shmemu__dev_slice(nbytes, r, g, &lo, &len);                                        \
        /* The whole range, by every thread: an empty slice starts at its   \
         * end, which may be the end of the heap block. */                  \
        (void)peer_addr(t, CALL, IS_PUT ? "dest" : "src", IS_PUT ? dest : src, nbytes, pe); \
        check_local(t, CALL, IS_PUT ? "src" : "dest", IS_PUT ? src : dest, nbytes); \
        if (len && IS_PUT)                                                     \
            do_put(t, CALL, (char *)dest + lo, (const char *)src + lo, len, pe, NBI); \
        else if (len)                                                          \
            do_get(t, CALL, (char *)dest + lo, (const char *)src + lo, len, pe, NBI); \
        if (WARP)                                                              \
            shmemu__dev_warp_sync(t, CALL);                                                \
        else                                                                   \
            shmemu_devrt_syncthreads();                                        \
        shmemu__dev_group_check(t, grp, seq, g, WARP, CALL);                               \
    }

void shmemu_devrt_putmem(void *dest, const void *src, size_t nbytes, int pe)
{
    ME("shmemu_dev_putmem");
    do_put(t, "shmemu_dev_putmem", dest, src, nbytes, pe, 0);
    shmemu__dev_yield(t, NULL);
}

void shmemu_devrt_putmem_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
    ME("shmemu_dev_putmem_nbi");
    do_put(t, "shmemu_dev_putmem_nbi", dest, src, nbytes, pe, 1);
    shmemu__dev_yield(t, NULL);
}

void shmemu_devrt_getmem(void *dest, const void *src, size_t nbytes, int pe)
{
    ME("shmemu_dev_getmem");
    shmemu__dev_yield(t, NULL);
    do_get(t, "shmemu_dev_getmem", dest, src, nbytes, pe, 0);
}

void shmemu_devrt_getmem_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
    ME("shmemu_dev_getmem_nbi");
    shmemu__dev_yield(t, NULL);
    do_get(t, "shmemu_dev_getmem_nbi", dest, src, nbytes, pe, 1);
}

GROUP_COPY(putmem_block, "shmemu_dev_putmem_block", 1, 0, 0)
GROUP_COPY(getmem_block, "shmemu_dev_getmem_block", 0, 0, 0)
GROUP_COPY(putmem_nbi_block, "shmemu_dev_putmem_nbi_block", 1, 1, 0)
GROUP_COPY(getmem_nbi_block, "shmemu_dev_getmem_nbi_block", 0, 1, 0)
GROUP_COPY(putmem_warp, "shmemu_dev_putmem_warp", 1, 0, 1)
GROUP_COPY(getmem_warp, "shmemu_dev_getmem_warp", 0, 0, 1)
GROUP_COPY(putmem_nbi_warp, "shmemu_dev_putmem_nbi_warp", 1, 1, 1)
GROUP_COPY(getmem_nbi_warp, "shmemu_dev_getmem_nbi_warp", 0, 1, 1)

/* ------------------------------------------------------------ signals */

static uint64_t *signal_word(struct dev_thread *t, const char *call, uint64_t *sig, int pe)
{
    if ((uintptr_t)sig % 8)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call, "sig_addr %p is not 8-byte aligned",
                         (void *)sig);
    return (uint64_t *)(void *)peer_addr(t, call, "sig_addr", sig, 8, pe);
}

/* The block's threads waited, or ran an atomic: what they put so far may
 * be what another block's signal announces (a grid-wide handshake), so a
 * signal this block raises next is not taken to announce it. */
static void block_synced(struct dev_thread *t) { t->blk->sig_pe = 0; }

/* A slot SET by one block of this launch to v and SET to v again by
 * another that brings data of its own (NCCL: a signal or barrier slot per
 * cooperative group; NVSHMEM's kernels index theirs by block): nothing
 * changed the word between, so no waiter can tell the two apart, and one
 * that passes on the first reads the second's data before it arrived (or
 * waits for a second signal that never shows).  Judged at the SET itself
 * (old is what the exchange found there). */
static void check_slot(struct dev_thread *t, const char *call, const uint64_t *w, uint64_t v,
                       uint64_t old, int pe, size_t off, int data)
{
    struct dev_launch *L = t->L;
    if (!L->sets && !(L->sets = calloc(DEV_SIG_SETS, sizeof(*L->sets))))
        return;
    unsigned block = (unsigned)(t->blk - L->blk);
    size_t h = ((uintptr_t)w >> 3) * 0x9e3779b97f4a7c15ull >> 56;
    struct dev_sig_set *e = NULL;
    for (unsigned i = 0; i < DEV_SIG_SETS; i++) {
        struct dev_sig_set *c = &L->sets[(h + i) % DEV_SIG_SETS];
        if (c->w == w || !c->w) {
            e = c;
            break;
        }
    }
    if (!e) /* full: the slots after these are not judged */
        return;
    if (e->w == w && data && e->block != block && e->v == v && old == v) {
        const struct shmemu_dev_self *o = &e->who;
        shmemu__dev_fail(t, SHMEMU_EINVAL, call,
                         "SET PE %d's signal slot at heap offset 0x%zx to %llu, as block "
                         "(%u,%u,%u) did at %s:%d, "
                         "and nothing changed it between: a waiter cannot tell the two apart "
                         "and may pass before this block's data arrived. A slot per block "
                         "(index it by blockIdx), or SHMEMU_SIGNAL_ADD and wait for the count",
                         pe, off, (unsigned long long)v, o->block_idx.x,
                         o->block_idx.y, o->block_idx.z, o->file, o->line);
    }
    *e = (struct dev_sig_set){.w = w, .v = v, .block = block, .who = t->self};
}

/* data: the call carries data of its own (putmem_signal) */
static void signal_apply(struct dev_thread *t, const char *call, uint64_t *w, uint64_t v,
                         int op, int pe, size_t off, int data)
{
    struct dev_block *b = t->blk;
    data = data || b->sig_pe == pe + 1 || b->sig_pe < 0;
    if (op == SHMEMU_SIGNAL_SET)
        check_slot(t, call, w, v, __atomic_exchange_n(w, v, __ATOMIC_RELEASE), pe, off, data);
    else if (op == SHMEMU_SIGNAL_ADD)
        __atomic_fetch_add(w, v, __ATOMIC_RELEASE);
    else
        shmemu__dev_fail(t, SHMEMU_EINVAL, call,
                         "sig_op %d is neither SHMEMU_SIGNAL_SET nor SHMEMU_SIGNAL_ADD", op);
    if (b->sig_pe == pe + 1) /* announced */
        b->sig_pe = 0;
    shmemu__notify(t->L->me, pe);
}

void shmemu_devrt_signal_op(uint64_t *sig, uint64_t signal, int sig_op, int pe)
{
    static const char call[] = "shmemu_dev_signal_op";
    ME(call);
    uint64_t *w = signal_word(t, call, sig, pe);
    shmemu__dev_yield(t, NULL);
    deliver_fenced(t, pe);
    if (t->L->checked) {
        note_unordered(t, call, pe);
        shmemu__check_dev_amo(t->L->me, pe, sym_off(t, sig), call);
    }
    shmemu__check_dev_release(t->L->me, pe, sym_off(t, sig));
    signal_apply(t, call, w, signal, sig_op, pe, sym_off(t, sig), 0);
}

/* The data, then the signal, as one unit: whoever sees the signal sees the
 * data (earlier puts stay as unordered as they were). */
static void put_signal(struct dev_thread *t, const char *call, void *dest, const void *src,
                       size_t n, uint64_t *sig, uint64_t signal, int sig_op, int pe, int nbi)
{
    char *dst = peer_addr(t, call, "dest", dest, n, pe);
    check_local(t, call, "src", src, n);
    uint64_t *w = signal_word(t, call, sig, pe);
    shmemu__pe *me = t->L->me;
    deliver_fenced(t, pe);
    shmemu__check_dev_access(me, 1, pe, sym_off(t, dest), n, shmemu__check_dev_clock(me), call,
                             t->self.file, t->self.line, &t->self);
    if (n)
        memmove(dst, src, n);
    if (nbi)
        watch_source(t, call, src, n, pe);
    if (t->L->checked) {
        note_unordered(t, call, pe);
        shmemu__check_dev_amo(me, pe, sym_off(t, sig), call);
    }
    shmemu__check_dev_release(me, pe, sym_off(t, sig));
    signal_apply(t, call, w, signal, sig_op, pe, sym_off(t, sig), n > 0);
}

/* A put with signal lands as one unit as soon as it is issued, so the
 * nbi form is the same operation. */
static void put_signal_call(const char *call, void *dest, const void *src, size_t nbytes,
                            uint64_t *sig, uint64_t signal, int sig_op, int pe, int nbi)
{
    ME(call);
    shmemu__dev_yield(t, NULL);
    put_signal(t, call, dest, src, nbytes, sig, signal, sig_op, pe, nbi);
}

void shmemu_devrt_putmem_signal(void *dest, const void *src, size_t nbytes, uint64_t *sig,
                                uint64_t signal, int sig_op, int pe)
{
    put_signal_call("shmemu_dev_putmem_signal", dest, src, nbytes, sig, signal, sig_op, pe, 0);
}

void shmemu_devrt_putmem_signal_nbi(void *dest, const void *src, size_t nbytes, uint64_t *sig,
                                    uint64_t signal, int sig_op, int pe)
{
    put_signal_call("shmemu_dev_putmem_signal_nbi", dest, src, nbytes, sig, signal, sig_op, pe,
                    1);
}

/* Every thread copies its slice; after the block has met, one thread
 * raises the signal, so that it follows every slice. */
static void put_signal_block(const char *call, void *dest, const void *src, size_t nbytes,
                             uint64_t *sig, uint64_t signal, int sig_op, int pe, int nbi)
{
    ME(call);
    unsigned seq;
    struct dev_group *grp = shmemu__dev_group_enter(t, 0, call, dest, src, nbytes, pe, &seq);
    size_t lo, len;
    shmemu__dev_slice(nbytes, t->rank, t->L->per_block, &lo, &len);
    char *dst = peer_addr(t, call, "dest", dest, nbytes, pe);
    check_local(t, call, "src", src, nbytes);
    uint64_t *w = signal_word(t, call, sig, pe);
    shmemu__pe *me = t->L->me;
    deliver_fenced(t, pe);
    shmemu__check_dev_access(me, 1, pe, sym_off(t, dest) + lo, len, shmemu__check_dev_clock(me),
                             call, t->self.file, t->self.line, &t->self);
    if (len)
        memmove(dst + lo, (const char *)src + lo, len);
    if (nbi) /* its slice stays the source until the thread's quiet */
        watch_source(t, call, (const char *)src + lo, len, pe);
    shmemu_devrt_syncthreads();
    shmemu__dev_group_check(t, grp, seq, t->L->per_block, 0, call);
    if (t->rank == 0) {
        if (t->L->checked) {
            note_unordered(t, call, pe);
            shmemu__check_dev_amo(me, pe, sym_off(t, sig), call);
        }
        shmemu__check_dev_release(me, pe, sym_off(t, sig));
        signal_apply(t, call, w, signal, sig_op, pe, sym_off(t, sig), nbytes > 0);
    }
    shmemu_devrt_syncthreads();
}

void shmemu_devrt_putmem_signal_block(void *dest, const void *src, size_t nbytes,
                                      uint64_t *sig, uint64_t signal, int sig_op, int pe)
{
    put_signal_block("shmemu_dev_putmem_signal_block", dest, src, nbytes, sig, signal, sig_op,
                     pe, 0);
}

void shmemu_devrt_putmem_signal_nbi_block(void *dest, const void *src, size_t nbytes,
                                          uint64_t *sig, uint64_t signal, int sig_op, int pe)
{
    put_signal_block("shmemu_dev_putmem_signal_nbi_block", dest, src, nbytes, sig, signal,
                     sig_op, pe, 1);
}

/* ---------------------------------------------------------------- waits */

/* v cmp value for a uint64_t word: 1, 0, or -1 for a bad cmp (the host
 * waits' comparison). */
static int cmp_ok(uint64_t v, int cmp, uint64_t value)
{
    return shmemu__vt_compare(SHMEMU__VTYPE(uint64_t), v, cmp, value);
}

static uint64_t wait_word(struct dev_thread *t, const char *call, uint64_t *ivar, int cmp,
                          uint64_t value, int keep_puts)
{
    shmemu__pe *me = t->L->me;
    uint64_t *w = (uint64_t *)(void *)peer_addr(t, call, "ivar", ivar, 8, me->pe);
    if ((uintptr_t)ivar % 8)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call, "ivar %p is not 8-byte aligned", (void *)ivar);
    if (cmp_ok(0, cmp, 0) < 0)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call, "cmp %d is not a SHMEMU_CMP_* value", cmp);
    /* What it holds arrives while it waits: holding never deadlocks.  But
     * for a device sync's waits, which complete nothing (held until the
     * scheduler finds every thread waiting). */
    if (keep_puts)
        shmemu__dev_land_views(t->L, 1);
    else
        shmemu__dev_deliver(t, -1);
    for (;;) {
        uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        if (cmp_ok(v, cmp, value)) {
            t->waits = NULL;
            block_synced(t);
            shmemu__check_dev_acquire(me, me->pe, sym_off(t, ivar));
            return v;
        }
        t->wait_pe = me->pe;
        t->wait_off = (size_t)((char *)ivar - me->heap);
        t->wait_val = v;
        shmemu__dev_yield(t, call);
    }
}

uint64_t shmemu_devrt_signal_wait_until(uint64_t *sig, int cmp, uint64_t value)
{
    ME_OR("shmemu_dev_signal_wait_until", 0);
    return wait_word(t, "shmemu_dev_signal_wait_until", sig, cmp, value, 0);
}

void shmemu_devrt_uint64_wait_until(uint64_t *ivar, int cmp, uint64_t value)
{
    ME("shmemu_dev_uint64_wait_until");
    (void)wait_word(t, "shmemu_dev_uint64_wait_until", ivar, cmp, value, 0);
}

int shmemu_devrt_uint64_test(uint64_t *ivar, int cmp, uint64_t value)
{
    static const char call[] = "shmemu_dev_uint64_test";
    ME_OR(call, 0);
    shmemu__pe *me = t->L->me;
    uint64_t *w = (uint64_t *)(void *)peer_addr(t, call, "ivar", ivar, 8, me->pe);
    if (cmp_ok(0, cmp, 0) < 0)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call, "cmp %d is not a SHMEMU_CMP_* value", cmp);
    uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    int ok = cmp_ok(v, cmp, value);
    if (ok) {
        block_synced(t);
        shmemu__check_dev_acquire(me, me->pe, sym_off(t, ivar));
    }
    if (!ok) { /* a poll: a turn for the others */
        t->wait_pe = me->pe;
        t->wait_off = (size_t)((char *)ivar - me->heap);
        t->wait_val = v;
        shmemu__dev_yield(t, call);
        t->waits = NULL;
    }
    return ok;
}

uint64_t shmemu_devrt_signal_fetch(const uint64_t *sig)
{
    static const char call[] = "shmemu_dev_signal_fetch";
    ME_OR(call, 0);
    shmemu__pe *me = t->L->me;
    const uint64_t *w = (const uint64_t *)(void *)peer_addr(t, call, "sig_addr", sig, 8, me->pe);
    uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    block_synced(t);
    shmemu__check_dev_acquire(me, me->pe, sym_off(t, sig)); /* a poll loop reads the data next */
    t->wait_pe = me->pe;
    t->wait_off = (size_t)((const char *)sig - me->heap);
    t->wait_val = v;
    shmemu__dev_yield(t, call);
    t->waits = NULL;
    return v;
}

/* ------------------------------------------------------- fences, quiet */

/* Under fuzzing, a system-scope fence lets the other threads run up to
 * their next call first: where a warp's threads run in step, each in turn
 * to its next call, the first to fence would otherwise always land the
 * PE's stores before its warp-mates had made theirs (a flag each raises
 * right after the same __threadfence(), which on a GPU all issue at once
 * and may land before the data the fence then lands).  Only where it
 * holds such stores: a built-in collective's kernels hold none. */
static void fence_turn(struct dev_thread *t)
{
    if (t->L->checked && shmemu__check_views_held(t->L->me))
        shmemu__dev_yield(t, NULL);
}

void shmemu_devrt_fence_scope(int scope)
{
    ME("__threadfence");
    /* Only a system-scope fence orders anything for another PE: it lets
     * the thread's held puts arrive (docs/DEVICE.md). */
    if (scope == SHMEMU_DEV_SCOPE_SYSTEM) {
        fence_turn(t);
        shmemu__dev_deliver(t, -1);
        shmemu__check_dev_sys_fence(t->L->me);
    }
    shmemu__full_fence();
    shmemu__dev_yield(t, NULL);
}

void shmemu_devrt_fence(void)
{
    ME("shmemu_dev_fence");
    fence_turn(t);
    /* its puts keep their place per PE (fence_puts); its stores through
     * peer pointers land, as the system-scope fence the GPU makes of it */
    fence_puts(t);
    shmemu__dev_land_views(t->L, 1);
    shmemu__check_dev_sys_fence(t->L->me);
    shmemu__full_fence();
    shmemu__dev_yield(t, NULL);
}

void shmemu_devrt_quiet(void)
{
    ME("shmemu_dev_quiet");
    fence_turn(t);
    shmemu__dev_deliver(t, -1);
    shmemu__check_dev_sys_fence(t->L->me);
    shmemu__dev_quiet_sources(t);
    shmemu__dev_complete_gets(t);
    shmemu__full_fence();
    shmemu__dev_yield(t, NULL);
}

/* ------------------------------------------------------------------ AMOs */

uint64_t shmemu_devrt_amo(void *dest, int op, uint64_t value, uint64_t cond, int pe)
{
    static const char call[] = "shmemu_dev_atomic";
    ME_OR(call, 0);
    if ((uintptr_t)dest % 8)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call, "dest %p is not 8-byte aligned", dest);
    uint64_t *w = (uint64_t *)(void *)peer_addr(t, call, "dest", dest, 8, pe);
    shmemu__dev_yield(t, NULL);
    block_synced(t);
    deliver_fenced(t, pe);
    if (t->L->checked && op != SHMEMU_DEV_AMO_FETCH) {
        note_unordered(t, call, pe);
        shmemu__check_dev_amo(t->L->me, pe, sym_off(t, dest), call);
    }
    shmemu__pe *me = t->L->me;
    size_t off = sym_off(t, dest);
    uint64_t old;
    /* As the host's AMOs: one that writes publishes what came before it,
     * one that reads learns what the word's writers published. */
    if (op != SHMEMU_DEV_AMO_FETCH)
        shmemu__check_dev_release(me, pe, off);
    switch (op) {
    case SHMEMU_DEV_AMO_FETCH: old = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;
    case SHMEMU_DEV_AMO_SET:
        __atomic_store_n(w, value, __ATOMIC_SEQ_CST);
        shmemu__notify(me, pe);
        return 0;
    case SHMEMU_DEV_AMO_SWAP: old = __atomic_exchange_n(w, value, __ATOMIC_SEQ_CST); break;
    case SHMEMU_DEV_AMO_ADD: old = __atomic_fetch_add(w, value, __ATOMIC_SEQ_CST); break;
    case SHMEMU_DEV_AMO_CSWAP:
        __atomic_compare_exchange_n(w, &cond, value, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        old = cond;
        break;
    default: shmemu__dev_fail(t, SHMEMU_EINVAL, call, "op %d is not an AMO", op);
    }
    if (op != SHMEMU_DEV_AMO_FETCH)
        shmemu__notify(me, pe);
    shmemu__check_dev_acquire(me, pe, off);
    return old;
}

/* -------------------------------------------------------------- barriers */

/* Every PE's device barrier: a dissemination over counters that only
 * grow (words of the world team's workspace), so that consecutive
 * barriers, in one kernel or the next, never need resetting. */
/* A device sync of all PEs is about to pass the puts still held by t and
 * by the threads it follows through __syncthreads: it completes none of
 * them (NVSHMEM), so a peer past it may read a destination before its put
 * lands.  The launch's end holds them until that reader has acted, and a
 * race report names the sync. */
static void sync_passes(struct dev_thread *t, const char *call)
{
    struct dev_launch *L = t->L;
    struct dev_thread *blk = L->th + (size_t)(t->blk - L->blk) * L->per_block;
    for (unsigned i = 0; i < L->per_block; i++)
        for (struct dev_put *p = blk[i].held; p; p = p->next) {
            if (&blk[i] != t && p->bgen >= t->blk->gen)
                continue;
            p->overtaken = 1;
            if (!p->told_pe) {
                p->told_pe = p->pe + 1;
                p->told_sync = 1;
                p->told_call = call;
                p->told_file = t->self.file;
                p->told_line = t->self.line;
            }
        }
}

static void dev_sync_all(struct dev_thread *t, const char *call)
{
    shmemu__pe *me = t->L->me;
    uint64_t *ws = t->L->ws;
    if (!ws)
        shmemu__dev_fail(t, SHMEMU_EINVAL, call, "the world team has no workspace");
    /* One set of words per PE: a second barrier of the same PE running at
     * once (a thread of every block calling it) counts its arrivals into
     * the first, which may then pass before every PE arrived.  Reported
     * only where the two calls do overlap, which is what the rule forbids. */
    if (t->L->in_barrier) {
        char other[256];
        shmemu__dev_where(t->L->in_barrier, other, sizeof(other));
        shmemu__dev_fail(t, SHMEMU_EINVAL, call,
                         "entered the device barrier while %s is in it: a PE's barrier runs "
                         "on one thread at a time (NVSHMEM's rule); call it from one thread, "
                         "or one block's (_block)",
                         other);
    }
    t->L->in_barrier = t;
    block_synced(t);
    if (t->L->checked)
        sync_passes(t, call);
    uint64_t seq = __atomic_add_fetch(&ws[SHMEMU_DEVRT_W_SEQ], 1, __ATOMIC_RELAXED);
    /* to the race detector, a system-scope fence (what plain stores of
     * data the PE made are released by its arrival) and a sync of all PEs
     * (the seq-th on each) */
    shmemu__check_dev_sys_fence(me);
    shmemu__check_dev_barrier(me, 0, (uint32_t)seq);
    int n = me->npes;
    for (int r = 0, d = 1; d < n && r < SHMEMU_DEVRT_ROUNDS; r++, d <<= 1) {
        uint64_t *mine = &ws[SHMEMU_DEVRT_W_ROUND + r];
        int to = (me->pe + d) % n;
        uint64_t *w = (uint64_t *)(void *)peer_addr(t, call, "workspace", mine, 8, to);
        __atomic_fetch_add(w, 1, __ATOMIC_RELEASE);
        (void)wait_word(t, call, mine, SHMEMU_CMP_GE, seq, 1);
    }
    shmemu__check_dev_barrier(me, 1, (uint32_t)seq);
    shmemu__dev_yield(t, NULL);
    t->L->in_barrier = NULL; /* returning: a barrier entered now is the next one */
}

void shmemu_devrt_sync_all(void)
{
    ME("shmemu_dev_sync_all");
    dev_sync_all(t, "shmemu_dev_sync_all");
}

void shmemu_devrt_barrier_all(void)
{
    ME("shmemu_dev_barrier_all");
    shmemu__dev_deliver(t, -1);
    shmemu__dev_quiet_sources(t);
    shmemu__dev_complete_gets(t);
    shmemu__full_fence();
    dev_sync_all(t, "shmemu_dev_barrier_all");
}

/* The _block forms: the block meets, one thread synchronises the PEs
 * (after every thread's puts arrived), the block meets again. */
static void block_barrier(const char *call, int quiet)
{
    ME(call);
    unsigned seq;
    struct dev_group *grp = shmemu__dev_group_enter(t, 0, call, NULL, NULL, 0, -1, &seq);
    if (quiet) {
        shmemu__dev_deliver(t, -1);
        shmemu__dev_quiet_sources(t);
    shmemu__dev_complete_gets(t);
    }
    shmemu_devrt_syncthreads();
    shmemu__dev_group_check(t, grp, seq, t->L->per_block, 0, call);
    if (t->rank == 0)
        dev_sync_all(t, call);
    shmemu_devrt_syncthreads();
}

void shmemu_devrt_barrier_all_block(void) { block_barrier("shmemu_dev_barrier_all_block", 1); }
void shmemu_devrt_sync_all_block(void) { block_barrier("shmemu_dev_sync_all_block", 0); }
