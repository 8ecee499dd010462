/* pointers.c - checked pointers: shmemu_ptr in checker mode.
 *
 * An algorithm's load/store path (stores through shmemu_ptr, then a flag)
 * is where ports to GPUs break: a GPU's stores to a peer are weakly
 * ordered, so a flag raised without a fence may land before the data.  If
 * shmemu_ptr gave NULL under the checker, that path never ran while
 * checked.  Here a peer's pointer is an address in a view of its heap that
 * the transport maps read-only (map_view):
 *
 * - a load reads the heap, as through any pointer;
 * - a store faults; the handler maps a private copy of the page in its
 *   place and single-steps the instruction (the trap flag); at the trap it
 *   takes the bytes that changed, puts the shared page back, and issues
 *   them as a put through the checker's table, which holds it until a
 *   fence or quiet like any other: a missing fence shows as it does for
 *   puts, with the store's location as the call site;
 * - an atomic instruction (lock prefix, xchg) runs on the shared page
 *   itself, so that it stays atomic against the other PEs, and counts as a
 *   non-fetching AMO when it starts and a fetching one when done;
 * - while one of its stores is held the page is inaccessible: a load, or a
 *   store of those bytes, first lands what the PE holds there, so that a PE
 *   reads its own writes and its later store wins, as on any machine.
 *
 * Each PE has views of its own, so that what one PE holds makes only its
 * own view of a page inaccessible: PEs that are threads of one process
 * (local, sim) have one each, as PEs that are processes do.  Where a
 * transport can map a heap again (map_view) and on x86-64 (the fault's
 * kind and the trap flag).  Threads of one PE take turns through its
 * view's lock from a store's fault to its trap; on sim, where PEs are
 * fibers of one thread, another PE may run while a handler of ours waits
 * in the scheduler, so everything of a step is the view's (its PE's).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif

#include "check.h"
#include "ctl/wait.h"
#include "internal.h"
#include "race.h"
#include "runtime/dispatch.h"
#include "x86_insn.h"

_Thread_local int shmemu__chk_depth;

#if defined(__x86_64__)

#define TRAP_FLAG 0x100
#define OPEN_MAX 8
/* The widest store one instruction makes (AVX-512); the bytes from the
 * fault's address on that it may write. */
#define STORE_MAX 64
#define ROPEN_MAX 64 /* runs of pages opened for loads at once */

struct open_page {
    char *at; /* the page in the view */
    int pe;
    size_t off;            /* its offset in pe's heap */
    int atomic;            /* the shared page, writable: an atomic instruction */
    int counted;           /*   and the checker was told, of this word */
    size_t word;
    unsigned char *before; /* a store: the private copy's bytes before it */
};

struct dirty {
    char *at;
    uint32_t n; /* stores held on the page */
};

struct view {
    shmemu__pe *me;
    _Atomic pid_t stepper; /* the thread between a store's fault and its trap */
    int (*map)(struct shmemu_tl_job *job, int pe, size_t off, void *addr, size_t len,
               int writable);
    char *base; /* npes heaps, stride apart */
    size_t stride, len, page;
    int npes;
    unsigned char *mapped; /* [npes] */
    const char *call;      /* what reports call a store */
    struct dirty *dirty;
    size_t ndirty, dcap;
    struct open_page open[OPEN_MAX];
    int nopen;
    int owns_lock;      /* the pending trap releases the step lock */
    uintptr_t rip;      /* the instruction being stepped */
    void *site;         /* where the program made it */
    unsigned char *buf; /* OPEN_MAX pages: open[i].before */
    /* Loads watched (race detection of plain accesses): between epochs a
     * mapped view is inaccessible, and the first load of a page in an
     * epoch faults, is recorded, and opens a run of pages for reading
     * until the next epoch (own.c does the same for the PE's own heap). */
    int watch;
    _Atomic int rlock;
    struct {
        char *at;
        size_t len;
        int lib; /* opened by the library's load: open until the program's next */
    } ropen[ROPEN_MAX];
    int nropen, roverflow; /* more: every mapped view closes */
    int nlib;              /* runs of ropen the library opened */
    unsigned rfaults;      /* in this epoch */
};

/* The process's views, found by address from the signal handlers (which
 * cannot take locks).  A view is its PE's until that PE ends; only its
 * PE's threads fault in it. */
#define VIEWS_MAX 4096
static struct chk_range slots[VIEWS_MAX];
static struct chk_ranges views = {slots, VIEWS_MAX, 0};
static struct sigaction prev_segv, prev_trap;
static _Atomic int installed;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static pid_t my_tid(void) { return (pid_t)syscall(SYS_gettid); }

static struct view *view_at(uintptr_t a) { return shmemu__chk_range_find(&views, a); }

/* The view whose store this thread is stepping: its PE's (sim runs every
 * PE in one thread), else the one view this thread steps in (a thread the
 * program started, that has no PE). */
static struct view *view_stepping(void)
{
    pid_t self = my_tid();
    struct view *any = NULL;
    int top = atomic_load_explicit(&views.top, memory_order_acquire), n = 0;
    for (int i = 0; i < top; i++) {
        struct view *v = atomic_load_explicit(&slots[i].owner, memory_order_acquire);
        /* the lock first: nopen is its holder's */
        if (!v || atomic_load_explicit(&v->stepper, memory_order_acquire) != self || !v->nopen)
            continue;
        if (v->me == shmemu__self)
            return v;
        any = v;
        n++;
    }
    return n == 1 ? any : NULL;
}

/* 1 if this call took the view's lock, 0 if the thread held it already (a
 * fault while it steps, or in a handler of ours). */
static int step_lock(struct view *v)
{
    pid_t self = my_tid(), none = 0;
    if (atomic_load_explicit(&v->stepper, memory_order_acquire) == self)
        return 0;
    while (!atomic_compare_exchange_weak_explicit(&v->stepper, &none, self,
                                                  memory_order_acquire, memory_order_relaxed)) {
        none = 0;
        sched_yield();
    }
    return 1;
}

static void step_unlock(struct view *v)
{
    atomic_store_explicit(&v->stepper, 0, memory_order_release);
}

/* A thread the program started has no PE of its own until it calls the
 * library; in a process that hosts one PE it is that PE's (threads.c), and
 * the checker works as that PE while it handles the thread's store. */
static shmemu__pe *adopt(struct view *v, shmemu__pe **was)
{
    *was = shmemu__self;
    if (!*was)
        shmemu__self = v->me;
    return shmemu__self == v->me ? v->me : NULL;
}

static struct dirty *dirty_of(struct view *v, const char *at)
{
    for (size_t i = 0; i < v->ndirty; i++)
        if (v->dirty[i].at == at)
            return &v->dirty[i];
    return NULL;
}

static int is_open(const struct view *v, const char *at)
{
    for (int i = 0; i < v->nopen; i++)
        if (v->open[i].at == at)
            return 1;
    return 0;
}

static char *page_at(const struct view *v, int pe, size_t off)
{
    return v->base + (size_t)pe * v->stride + (off & ~(v->page - 1));
}

/* A view page's protection at rest (no store held on it, not opened for
 * loads in this epoch). */
static int rest_prot(const struct view *v)
{
    return v->watch ? PROT_NONE : PROT_READ;
}

/* Each page of [off, off + n) of pe's heap. */
#define FOR_PAGES(v, pe, off, n, at)                                           \
    for (char *at = page_at(v, pe, off), *at##_end = page_at(v, pe, (off) + (n) - 1); \
         at <= at##_end; at += (v)->page)

void shmemu__chk_view_held(shmemu__pe *me, struct held *h)
{
    struct view *v = me->chk->view;
    if (!v || h->kind != H_PUT || !h->rma.nbytes)
        return;
    h->view = 2;
    FOR_PAGES(v, h->rma.pe, h->rma.off, h->rma.nbytes, at) {
        struct dirty *d = dirty_of(v, at);
        if (!d) {
            if (v->ndirty == v->dcap) {
                size_t cap = v->dcap ? v->dcap * 2 : 16;
                struct dirty *nd = realloc(v->dirty, cap * sizeof(*nd));
                if (!nd)
                    continue; /* untracked: the PE may read its store late, never wrongly
                                 ordered */
                v->dirty = nd;
                v->dcap = cap;
            }
            d = &v->dirty[v->ndirty++];
            d->at = at;
            d->n = 0;
            if (!is_open(v, at))
                mprotect(at, v->page, PROT_NONE);
        }
        d->n++;
    }
}

void shmemu__chk_view_landed(shmemu__pe *me, const struct held *h)
{
    struct view *v = me->chk->view;
    if (!v || h->view != 2)
        return;
    FOR_PAGES(v, h->rma.pe, h->rma.off, h->rma.nbytes, at) {
        struct dirty *d = dirty_of(v, at);
        if (!d || --d->n)
            continue;
        *d = v->dirty[--v->ndirty];
        if (!is_open(v, at)) /* an open page gets its mapping back when closed */
            mprotect(at, v->page, rest_prot(v));
    }
}

/* A fault not ours: to whoever handled the signal before. */
static _Thread_local int chaining;

static void chain(const struct sigaction *prev, int sig, siginfo_t *si, void *uc)
{
    /* A handler installed over ours may chain back to us, and ours then
     * to it: a fault nobody takes would go round for ever. */
    if (!chaining && (prev->sa_flags & SA_SIGINFO)) {
        chaining = 1;
        prev->sa_sigaction(sig, si, uc);
        chaining = 0;
        return;
    }
    if (!chaining && prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        chaining = 1;
        prev->sa_handler(sig);
        chaining = 0;
        return;
    }
    /* The default action: a fault recurs on return, a trap is raised again
     * (it stays blocked until then). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = prev->sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL;
    sigaction(sig, &dfl, NULL);
    if (sig == SIGTRAP)
        raise(sig);
}

/* The PE lands what it holds on [lo, hi) of pe's heap (see above). */
static void land(shmemu__pe *me, int pe, size_t lo, size_t hi)
{
    shmemu__chk_enter(me);
    shmemu__chk_land_range(me, pe, lo, hi);
    shmemu__chk_leave(me);
}

/* What the checker is told between store_begin and store_end is a store
 * through a pointer, made at v->site; the library call it was in the
 * middle of (if any) is its call again afterwards. */
struct told {
    const char *call;
    void *site;
};

static struct told store_begin(shmemu__pe *me, struct view *v)
{
    struct shmemu__chk *k = me->chk;
    shmemu__chk_enter(me);
    struct told was = {k->call, k->site};
    k->call = v->call;
    k->site = v->site;
    return was;
}

static void store_end(shmemu__pe *me, struct told was)
{
    me->chk->call = was.call;
    me->chk->site = was.site;
    shmemu__chk_leave(me);
}

static void issue_put(shmemu__pe *me, struct view *v, int pe, size_t off, void *bytes,
                      size_t n)
{
    struct told was = store_begin(me, v);
    me->chk->view_store = 1;
    struct shmemu_tl_rma d = {.op = SHMEMU_TL_PUT, .pe = pe, .off = off, .local = bytes,
                              .nbytes = n, .sig_op = SHMEMU_TL_SIG_NONE};
    (void)shmemu__tl_rma(me, &d);
    me->chk->view_store = 0;
    store_end(me, was);
}

/* The stepped instruction is done: every page it opened gets its shared
 * mapping back (inaccessible again if stores are held on it), then the
 * checker learns what the instruction did. */
static void close_pages(struct view *v, shmemu__pe *me)
{
    struct open_page done[OPEN_MAX];
    size_t lo[OPEN_MAX], hi[OPEN_MAX];
    int n = v->nopen, owned = v->owns_lock;
    for (int i = 0; i < n; i++) {
        struct open_page *o = &v->open[i];
        lo[i] = hi[i] = 0;
        if (!o->atomic) {
            size_t a = 0, b = v->page;
            while (a < b && (unsigned char)o->at[a] == o->before[a])
                a++;
            while (b > a && (unsigned char)o->at[b - 1] == o->before[b - 1])
                b--;
            memcpy(o->before + a, o->at + a, b - a); /* the new bytes */
            lo[i] = a;
            hi[i] = b;
        }
        v->map(me->tlj, o->pe, o->off, o->at, v->page, 0);
        done[i] = *o;
    }
    v->nopen = 0;
    v->owns_lock = 0;
    for (int i = 0; i < n; i++)
        if (v->watch || dirty_of(v, done[i].at))
            mprotect(done[i].at, v->page, PROT_NONE);
    for (int i = 0; i < n; i++) {
        if (done[i].atomic && done[i].counted) {
            struct told was = store_begin(me, v);
            shmemu__chk_view_amo_end(me, done[i].pe, done[i].word);
            store_end(me, was);
        } else if (hi[i] > lo[i]) {
            issue_put(me, v, done[i].pe, done[i].off + lo[i], done[i].before + lo[i],
                      hi[i] - lo[i]);
        }
    }
    if (owned)
        step_unlock(v);
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
    if (shmemu__own_trap(ucv))
        return;
    struct view *v = view_stepping();
    if (!v) {
        chain(&prev_trap, sig, si, ucv);
        return;
    }
    ucontext_t *uc = ucv;
    /* A string instruction repeats in place: its pages stay open until it
     * is done (or too many are). */
    if ((uintptr_t)uc->uc_mcontext.gregs[REG_RIP] == v->rip && v->nopen < OPEN_MAX - 1)
        return;
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TRAP_FLAG;
    shmemu__pe *was;
    shmemu__pe *me = adopt(v, &was);
    int saved_errno = errno;
    if (me)
        close_pages(v, me);
    errno = saved_errno;
    shmemu__self = was;
}

static int in_view(const struct view *v, uintptr_t a)
{
    uintptr_t base = (uintptr_t)v->base;
    return a >= base && a - base < v->stride * (size_t)v->npes;
}

/* A `rep movs` or `rep stos` whose destination from here on is one PE's
 * heap, going up: carried out at once as one put, rather than stepped an
 * element at a time (a trap each).  1 if done. */
static int emulate_rep(struct view *v, shmemu__pe *me, ucontext_t *uc, int pe, size_t off)
{
    greg_t *g = uc->uc_mcontext.gregs;
    struct shmemu__rep_string r;
    if (!shmemu__x86_rep_string((const unsigned char *)g[REG_RIP], &r) || (g[REG_EFL] & 0x400)) /* DF */
        return 0;
    size_t total = (size_t)g[REG_RCX] * r.size;
    if ((uintptr_t)g[REG_RDI] != (uintptr_t)v->base + (size_t)pe * v->stride + off ||
        total > v->len - off || !total)
        return 0;
    const void *src = (const void *)g[REG_RSI];
    void *fill = NULL;
    if (r.movs) {
        if (in_view(v, (uintptr_t)src) || in_view(v, (uintptr_t)src + total - 1))
            return 0; /* from another view: stepped, its loads see held stores */
    } else {
        if (!(fill = malloc(total)))
            return 0;
        uint64_t val = (uint64_t)g[REG_RAX];
        for (size_t i = 0; i < total; i += r.size)
            memcpy((char *)fill + i, &val, r.size);
        src = fill;
    }
    v->site = shmemu__chk_fault_site((void *)g[REG_RIP]);
    land(me, pe, off, off + total); /* the PE's own stores there go first */
    issue_put(me, v, pe, off, (void *)src, total);
    free(fill);
    g[REG_RDI] += (greg_t)total;
    if (r.movs)
        g[REG_RSI] += (greg_t)total;
    g[REG_RCX] = 0;
    g[REG_RIP] += (greg_t)r.len;
    return 1;
}

/* A store shmemu__x86_decode_store knows, inside the faulting page: carried out as a
 * put of exactly its bytes.  1 if done. */
static int emulate_store(struct view *v, shmemu__pe *me, ucontext_t *uc, int pe, size_t off)
{
    struct shmemu__store st;
    if (shmemu__x86_atomic((const unsigned char *)uc->uc_mcontext.gregs[REG_RIP]) ||
        !shmemu__x86_decode_store(uc, &st))
        return 0;
    uintptr_t page = (uintptr_t)page_at(v, pe, off);
    if (st.ea < page || st.ea + st.size > page + v->page)
        return 0; /* across pages: stepped */
    size_t at = (size_t)(st.ea - ((uintptr_t)v->base + (size_t)pe * v->stride));
    v->site = shmemu__chk_fault_site((void *)uc->uc_mcontext.gregs[REG_RIP]);
    if (dirty_of(v, (char *)page))
        land(me, pe, at, at + st.size); /* the PE's own stores there go first */
    issue_put(me, v, pe, at, st.bytes, st.size);
    uc->uc_mcontext.gregs[REG_RIP] += (greg_t)st.len;
    return 1;
}

static void rlock(struct view *v)
{
    while (atomic_exchange_explicit(&v->rlock, 1, memory_order_acquire))
        shmemu__relax();
}

static void runlock(struct view *v) { atomic_store_explicit(&v->rlock, 0, memory_order_release); }

/* Pages of [at, at + len) to prot, but for those stepped now (a store's
 * private copy) and those holding stores (inaccessible: a load must first
 * land them).  0, or -1 if a call failed. */
static int protect_run(struct view *v, char *at, size_t len, int prot)
{
    char *from = at, *end = at + len;
    int st = 0;
    for (char *p = at; p < end; p += v->page) {
        if (!is_open(v, p) && !dirty_of(v, p))
            continue;
        if (p > from)
            st |= mprotect(from, (size_t)(p - from), prot);
        from = p + v->page;
    }
    if (end > from)
        st |= mprotect(from, (size_t)(end - from), prot);
    return st;
}

/* A run of pe's heap closes for loads: what was published there so far
 * the program may have loaded, what comes later it cannot unseen. */
static void close_run(struct view *v, char *at, size_t len)
{
    (void)protect_run(v, at, len, PROT_NONE);
    if (v->me->chk && v->me->chk->race)
        shmemu__race_heap_seen(v->me, v->me->chk->race,
                               (int)((size_t)(at - v->base) / v->stride));
}

/* The runs opened for loads closed: the library's (lib), or the
 * program's and all with an overflow (!lib).  Under v->rlock. */
static void close_runs(struct view *v, int lib)
{
    if (v->roverflow) {
        for (int pe = 0; pe < v->npes; pe++)
            if (v->mapped[pe])
                close_run(v, v->base + (size_t)pe * v->stride, v->len);
        v->nropen = v->nlib = 0;
        v->roverflow = 0;
        return;
    }
    int kept = 0;
    for (int i = 0; i < v->nropen; i++) {
        if (v->ropen[i].lib == lib)
            close_run(v, v->ropen[i].at, v->ropen[i].len);
        else
            v->ropen[kept++] = v->ropen[i];
    }
    v->nropen = kept;
    v->nlib = lib ? 0 : kept;
}

/* [at, at + len) was opened for loads: by the library's (lib), closed
 * where the program's code runs next, or the program's, closed at the
 * epoch's end.  Under v->rlock. */
static void add_run(struct view *v, char *at, size_t len, int lib)
{
    if (v->nropen < ROPEN_MAX) {
        v->ropen[v->nropen].at = at;
        v->ropen[v->nropen].len = len;
        v->ropen[v->nropen++].lib = lib;
        v->nlib += lib;
    } else {
        v->roverflow = 1; /* every mapped view closes */
    }
}

/* The first load of a page of pe's heap in this epoch (a at offset off):
 * recorded as the program's plain load, and a run of pages opened for
 * loads.  Each further fault of an epoch opens an aligned run twice as
 * large, up to 2 MiB (a kernel pulling a peer's buffer faults a few times
 * an epoch, not once a page), but for pages with stores held (protect_run). */
static void watched_load(struct view *v, shmemu__pe *me, ucontext_t *uc, int pe, size_t off,
                         uintptr_t a)
{
    char *heap = v->base + (size_t)pe * v->stride;
    int program = shmemu__chk_depth == 0 &&
                  !shmemu__x86_atomic((const unsigned char *)uc->uc_mcontext.gregs[REG_RIP]) &&
                  shmemu__own_program_load(uc);
    if (program) {
        uintptr_t lo, hi, hlo = (uintptr_t)heap, hhi = hlo + v->len;
        shmemu__own_loaded_range(uc, a, &lo, &hi);
        lo = lo < hlo ? hlo : lo;
        hi = hi > hhi ? hhi : hi;
        void *pc = shmemu__chk_fault_site((void *)uc->uc_mcontext.gregs[REG_RIP]);
        shmemu__chk_enter(me);
        shmemu__race_plain_load(me, me->chk->race, pe, lo - hlo, hi - lo, "plain load", pc,
                                shmemu__chk_who(me->chk));
        shmemu__chk_leave(me);
    }
    char *page = page_at(v, pe, off);
    size_t len = v->page;
    rlock(v);
    if (program && v->nlib)
        close_runs(v, 1);
    /* The library's own loads (a built-in kernel pulling a peer's buffer)
     * are not recorded: their fault opens all of the peer's heap at once,
     * until the program's code runs again (its next fault, the kernel's
     * end), not only until the epoch's end: a built-in collective's
     * epochs come often, and each closing flushes every CPU's TLB. */
    unsigned shift = program ? v->rfaults++ : 63;
    size_t run = shift < 9 ? v->page << shift : program ? v->page << 9 : v->len;
    if (run > len) {
        char *at = run == v->len ? heap : heap + ((size_t)(page - heap) & ~(run - 1));
        if (at + run > heap + v->len)
            run = (size_t)(heap + v->len - at);
        if (run > len)
            page = at, len = run;
    }
    if (protect_run(v, page, len, PROT_READ) == 0)
        add_run(v, page, len, !program);
    runlock(v);
}

void shmemu__chk_view_epoch(shmemu__pe *me)
{
    struct view *v = me->chk ? me->chk->view : NULL;
    if (!v || !v->watch)
        return;
    int took = step_lock(v); /* no store is between its fault and its trap */
    rlock(v);
    close_runs(v, 0);
    v->rfaults = 0;
    runlock(v);
    if (took)
        step_unlock(v);
}

void shmemu__chk_view_program(shmemu__pe *me)
{
    struct view *v = me->chk ? me->chk->view : NULL;
    if (!v || !v->nlib)
        return;
    int took = step_lock(v);
    rlock(v);
    close_runs(v, 1);
    runlock(v);
    if (took)
        step_unlock(v);
}

/* Loads watched or not from now on: every mapped view at rest so. */
static void view_watch(struct view *v, int on)
{
    int took = step_lock(v);
    rlock(v);
    v->watch = on;
    for (int pe = 0; pe < v->npes; pe++) {
        char *heap = v->base + (size_t)pe * v->stride;
        for (size_t at = 0; v->mapped[pe] && at < v->len;) {
            size_t end = at;
            while (end < v->len && !is_open(v, heap + end) && !dirty_of(v, heap + end))
                end += v->page;
            if (end > at)
                mprotect(heap + at, end - at, rest_prot(v));
            at = end + v->page;
        }
    }
    v->nropen = v->nlib = 0;
    v->roverflow = 0;
    runlock(v);
    if (took)
        step_unlock(v);
}

const void *shmemu__chk_view_read_past(shmemu__pe *me, const void *p, size_t n)
{
    struct view *v = me->chk ? me->chk->view : NULL;
    uintptr_t a = (uintptr_t)p;
    if (!v || !v->watch || !in_view(v, a))
        return p;
    int pe = (int)((a - (uintptr_t)v->base) / v->stride);
    size_t off = (a - (uintptr_t)v->base) % v->stride;
    if (!v->mapped[pe] || off >= v->len || n > v->len - off)
        return p;
    /* not where the PE holds stores: it reads its own writes */
    FOR_PAGES(v, pe, off, n, at)
        if (dirty_of(v, at) || is_open(v, at))
            return p;
    char *lib = shmemu__tl_ptr_direct(me->job, pe, off);
    return lib ? lib : p;
}

void shmemu__chk_view_unwatch(shmemu__pe *me)
{
    struct view *v = me->chk ? me->chk->view : NULL;
    if (v && v->watch)
        view_watch(v, 0);
}

static void on_fault(struct view *v, shmemu__pe *me, int sig, siginfo_t *si, void *ucv)
{
    uintptr_t a = (uintptr_t)si->si_addr, base = (uintptr_t)v->base;
    int pe = (int)((a - base) / v->stride);
    size_t off = (a - base) % v->stride;
    if (off >= v->len || !v->mapped[pe]) {
        chain(&prev_segv, sig, si, ucv);
        return;
    }
    int saved_errno = errno;
    ucontext_t *uc = ucv;
    int write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    char *at = page_at(v, pe, off);
    size_t poff = off & ~(v->page - 1);
    if (!write && !dirty_of(v, at)) {
        if (!v->watch) { /* a readable page: not a fault of ours */
            chain(&prev_segv, sig, si, ucv);
            return;
        }
        watched_load(v, me, ucv, pe, off, a);
        errno = saved_errno;
        return;
    }
    int took = step_lock(v);
    if (write && v->nopen == OPEN_MAX) { /* cannot be one instruction's: not ours */
        if (took)
            step_unlock(v);
        chain(&prev_segv, sig, si, ucv);
        return;
    }
    /* Only a page with stores held faults on a load: they land, so that
     * the PE reads its own writes. */
    if (!write) {
        if (shmemu__chk_depth == 0)
            land(me, pe, poff, poff + v->page);
        struct dirty *d = dirty_of(v, at);
        if (d) { /* could not land them here (inside the library): read late */
            *d = v->dirty[--v->ndirty];
            if (mprotect(at, v->page, PROT_READ) == 0 && v->watch) {
                /* open for loads as the library's loads open a run */
                rlock(v);
                add_run(v, at, v->page, 1);
                runlock(v);
            }
        }
        if (took)
            step_unlock(v);
        errno = saved_errno;
        return;
    }
    void *pc = (void *)uc->uc_mcontext.gregs[REG_RIP];
    if (!v->nopen && shmemu__chk_depth == 0 &&
        (emulate_rep(v, me, uc, pe, off) || emulate_store(v, me, uc, pe, off))) {
        if (took)
            step_unlock(v);
        errno = saved_errno;
        return;
    }
    if (!v->nopen) {
        v->rip = (uintptr_t)pc;
        v->site = shmemu__chk_fault_site(pc);
    }
    struct open_page *o = &v->open[v->nopen];
    o->at = at;
    o->pe = pe;
    o->off = poff;
    o->counted = 0;
    size_t end = off + STORE_MAX < poff + v->page ? off + STORE_MAX : poff + v->page;
    /* The PE's own held stores of these bytes land first: the new one goes
     * after them, and a read-modify-write reads them. */
    if (shmemu__chk_depth == 0 && dirty_of(v, at))
        land(me, pe, off, end);
    /* From inside the library (it writes where the program asked it to),
     * nothing can be held: the store goes straight to the heap. */
    o->atomic = shmemu__x86_atomic(pc) || shmemu__chk_depth > 0;
    if (o->atomic) {
        if (shmemu__chk_depth == 0) {
            o->word = off & ~(size_t)7;
            struct told was = store_begin(me, v);
            shmemu__chk_view_amo_begin(me, pe, o->word);
            store_end(me, was);
            o->counted = 1;
        }
        v->map(me->tlj, pe, poff, at, v->page, 1);
    } else {
        o->before = v->buf + (size_t)v->nopen * v->page;
        memcpy(o->before, shmemu__tl_ptr_direct(me->job, pe, poff), v->page);
        mmap(at, v->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
             0);
        memcpy(at, o->before, v->page);
    }
    v->nopen++;
    if (took)
        v->owns_lock = 1;
    uc->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
    errno = saved_errno;
}

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
    if (shmemu__own_fault(si, ucv))
        return;
    uintptr_t a = (uintptr_t)si->si_addr;
    struct view *v = view_at(a);
    shmemu__pe *was;
    shmemu__pe *me = v && in_view(v, a) ? adopt(v, &was) : NULL;
    if (!me) {
        if (v && in_view(v, a))
            shmemu__self = was;
        chain(&prev_segv, sig, si, ucv);
        return;
    }
    on_fault(v, me, sig, si, ucv);
    shmemu__self = was;
}

/* Ours installed over whatever handles sig now (which then gets the
 * signals that are not ours), unless ours is what does.  Again for each new
 * view: a transport may have put its own in the meantime (sim's stack
 * guard, for one run) and taken it away again with ours. */
static int install_one(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *prev)
{
    struct sigaction cur, sa;
    if (sigaction(sig, NULL, &cur) != 0)
        return -1;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == fn)
        return 0;
    memset(&sa, 0, sizeof(sa));
    /* NODEFER: the checker may fault again while handling one (a put whose
     * source is a view). */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = fn;
    *prev = cur;
    return sigaction(sig, &sa, NULL);
}

static int install(void)
{
    pthread_mutex_lock(&install_lock);
    if (!atomic_load(&installed)) {
        shmemu__x86_init();
        atomic_store(&installed, 1);
    }
    int st = install_one(SIGSEGV, on_segv, &prev_segv) || install_one(SIGTRAP, on_trap, &prev_trap)
                 ? -1
                 : 0;
    pthread_mutex_unlock(&install_lock);
    return st;
}

/* Valgrind runs the program on its own CPU: a handler of ours gets no
 * registers of the faulting instruction it could step or carry out. */
static int under_valgrind(void)
{
#if defined(RUNNING_ON_VALGRIND)
    if (RUNNING_ON_VALGRIND)
        return 1;
#endif
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload") != NULL;
}

int shmemu__chk_handlers_install(void) { return install(); }

int shmemu__chk_no_faults(const struct shmemu_transport_ops *t)
{
    if (!(t->caps & SHMEMU_TL_CAP_LOAD_STORE) || under_valgrind())
        return 1;
#if defined(SHMEMU__TSAN)
    /* PEs that are fibers may switch inside our handlers (landing a store
     * passes a scheduling point), which ThreadSanitizer cannot follow. */
    if (t->caps & SHMEMU_TL_CAP_COOPERATIVE)
        return 1;
#endif
    return 0;
}

int shmemu__chk_view_mapped(shmemu__pe *me, int pe)
{
    const struct view *v = me->chk ? me->chk->view : NULL;
    return v && v->mapped[pe];
}

int shmemu__chk_view_unseen(shmemu__pe *me, int pe)
{
    struct view *v = me->chk ? me->chk->view : NULL;
    if (!v || !v->watch)
        return 1;
    char *heap = v->base + (size_t)pe * v->stride;
    rlock(v);
    int open = v->roverflow;
    for (int i = 0; i < v->nropen && !open; i++)
        open = v->ropen[i].at >= heap && v->ropen[i].at < heap + v->len;
    runlock(v);
    return open;
}

int shmemu__chk_views_any(shmemu__pe *me) { return me->chk && me->chk->view; }

int shmemu__check_views_held(shmemu__pe *me)
{
    const struct view *v = me->chk ? me->chk->view : NULL;
    return v && v->ndirty;
}

int shmemu__chk_trap_ours(void)
{
    struct sigaction cur;
    return sigaction(SIGTRAP, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
           cur.sa_sigaction == on_trap;
}

static struct view *view_of(shmemu__pe *me)
{
    struct view *v = me->chk->view;
    if (v)
        return v;
    const struct shmemu_transport_ops *t = me->job->transport;
    if (!SHMEMU_TL_HAS(t, map_view) || shmemu__chk_no_faults(t))
        return NULL;
    v = calloc(1, sizeof(*v));
    if (!v)
        return NULL;
    v->me = me;
    v->map = t->map_view;
    v->npes = me->npes;
    v->page = (size_t)sysconf(_SC_PAGESIZE);
    v->len = (me->heap_size + v->page - 1) & ~(v->page - 1);
    v->stride = shmemu_tl_heap_stride(me->heap_size);
    v->mapped = calloc((size_t)me->npes, 1);
    v->buf = malloc(OPEN_MAX * v->page);
    void *base = mmap(NULL, v->stride * (size_t)v->npes, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!v->mapped || !v->buf || base == MAP_FAILED || install() != 0 ||
        shmemu__chk_range_add(&views, v, (uintptr_t)base,
                              (uintptr_t)base + v->stride * (size_t)v->npes) != 0) {
        if (base != MAP_FAILED)
            munmap(base, v->stride * (size_t)v->npes);
        free(v->mapped);
        free(v->buf);
        free(v);
        return NULL;
    }
    v->base = base;
    me->chk->view = v;
    return v;
}

int shmemu__chk_in_view(shmemu__pe *me, const void *p)
{
    const struct view *v = me->chk ? me->chk->view : NULL;
    return v && in_view(v, (uintptr_t)p);
}

int shmemu__chk_view_locate(shmemu__pe *me, const void *p, int *pe, size_t *off)
{
    const struct view *v = me->chk ? me->chk->view : NULL;
    if (!v || !in_view(v, (uintptr_t)p))
        return 0;
    size_t at = (size_t)((uintptr_t)p - (uintptr_t)v->base);
    *pe = (int)(at / v->stride);
    *off = at % v->stride;
    return *off < v->len;
}

void *shmemu__check_ptr(shmemu__pe *me, int pe, size_t off)
{
    if (pe == me->pe) /* its own heap: its own loads and stores (own.c) */
        return shmemu__tl_ptr_direct(me->job, pe, off) ? me->heap + off : NULL;
    shmemu__chk_enter(me);
    struct view *v = view_of(me);
    void *p = NULL;
    if (v && !v->mapped[pe] &&
        v->map(me->tlj, pe, 0, v->base + (size_t)pe * v->stride, v->len, 0) == SHMEMU_OK) {
        v->mapped[pe] = 1;
        if (shmemu__own_watching(me)) { /* its loads watched as the PE's own heap's */
            v->watch = 1;
            mprotect(v->base + (size_t)pe * v->stride, v->len, PROT_NONE);
        }
    }
    if (v && v->mapped[pe]) {
        v->call = shmemu__is_osh_call(shmemu__user_call("shmemu_ptr")) ? "shmem_ptr store"
                                                                          : "shmemu_ptr store";
        p = v->base + (size_t)pe * v->stride + off;
    }
    shmemu__chk_leave(me);
    return p;
}

void shmemu__check_ptr_fini(shmemu__pe *me)
{
    struct view *v = me->chk ? me->chk->view : NULL;
    if (!v)
        return;
    me->chk->view = NULL;
    shmemu__chk_range_drop(&views, v);
    munmap(v->base, v->stride * (size_t)v->npes);
    free(v->dirty);
    free(v->mapped);
    free(v->buf);
    free(v);
}

#else /* not x86-64: no pointers under the checker */

int shmemu__chk_handlers_install(void) { return -1; }
int shmemu__chk_no_faults(const struct shmemu_transport_ops *t) { return (void)t, 1; }
int shmemu__chk_view_mapped(shmemu__pe *me, int pe) { return (void)me, (void)pe, 0; }
int shmemu__chk_views_any(shmemu__pe *me) { return (void)me, 0; }
int shmemu__check_views_held(shmemu__pe *me) { return (void)me, 0; }
int shmemu__chk_view_unseen(shmemu__pe *me, int pe) { return (void)me, (void)pe, 1; }
int shmemu__chk_trap_ours(void) { return 0; }

void shmemu__chk_view_held(shmemu__pe *me, struct held *h) { (void)me, (void)h; }
void shmemu__chk_view_landed(shmemu__pe *me, const struct held *h) { (void)me, (void)h; }
int shmemu__chk_in_view(shmemu__pe *me, const void *p) { return (void)me, (void)p, 0; }
int shmemu__chk_view_locate(shmemu__pe *me, const void *p, int *pe, size_t *off)
{
    return (void)me, (void)p, (void)pe, (void)off, 0;
}

void *shmemu__check_ptr(shmemu__pe *me, int pe, size_t off)
{
    return pe == me->pe && shmemu__tl_ptr_direct(me->job, pe, off) ? me->heap + off : NULL;
}

void shmemu__check_ptr_fini(shmemu__pe *me) { (void)me; }
void shmemu__chk_view_epoch(shmemu__pe *me) { (void)me; }
void shmemu__chk_view_program(shmemu__pe *me) { (void)me; }
const void *shmemu__chk_view_read_past(shmemu__pe *me, const void *p, size_t n)
{
    return (void)me, (void)n, p;
}
const void *shmemu__chk_view_read_past(shmemu__pe *me, const void *p, size_t n)
{
    struct view *v = me->chk ? me->chk->view : NULL;
    uintptr_t a = (uintptr_t)p;
    if (!v || !v->watch || !in_view(v, a))
        return p;
    int pe = (int)((a - (uintptr_t)v->base) / v->stride);
    size_t off = (a - (uintptr_t)v->base) % v->stride;
    if (!v->mapped[pe] || off >= v->len || n > v->len - off)
        return p;
    /* not where the PE holds stores: it reads its own writes */
    FOR_PAGES(v, pe, off, n, at)
        if (dirty_of(v, at) || is_open(v, at))
            return p;
    char *lib = shmemu__tl_ptr_direct(me->job, pe, off);
    return lib ? lib : p;
}

void shmemu__chk_view_unwatch(shmemu__pe *me) { (void)me; }

#endif
