/*
 * own.c - a PE's own plain stores to its symmetric memory, for race
 * detection (SHMEMU_CHECK=race).
 *
 * The race detector sees what goes through the library.  A PE that stores
 * a result into its own symmetric variable while a peer reads it with
 * shmem_g, with nothing ordering the two, races as surely as two puts do
 * (the check of an OpenSHMEM test suite did exactly that).  So under race
 * detection the program's view of its own heap is read-only, and so are the
 * pages of its static data that hold its variables (PE processes: static
 * data is symmetric there); the transport reaches the heaps through an
 * alias of its own (shmemu_tl_job.lib_base), so peers' puts do not fault.
 *
 * A store there faults.  The handler records it as a write of the bytes the
 * instruction stores (decoded; `rep movs`/`rep stos` whole), publishes the
 * PE's clock on the page, and makes the page writable until the PE's clock
 * next moves (an epoch: race.c calls shmemu__own_epoch), when it is
 * read-only again.  So each page costs a fault per epoch, and the stores
 * after the first in an epoch are not recorded (a conflict missed, never
 * one invented); but any of them may have been a flag (a release store is
 * a plain mov on x86), and a peer's acquire on the page learns the clock
 * they were all made at.  The PE's loads are not seen either: a plain
 * store's conflicts are judged against all that either side may have
 * learned by loading (race.c's plain_known).
 *
 * Not recorded: stores from inside the library (a get into the PE's own
 * buffer: recorded as the get) and atomic instructions.  A kernel's device
 * threads are the PE's: their stores are recorded as the host's are (they
 * never conflict with each other here, as threads of one PE).  Where a
 * fault handler cannot carry out the program's stores (valgrind, not
 * x86-64), in a ThreadSanitizer build (no aliases) and in jobs of more than
 * 1024 PEs nothing is protected.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "check.h"
#include "internal.h"
#include "race.h"
#include "x86_insn.h"

_Thread_local struct shmemu__lib_store shmemu__lib_store;

#if defined(__x86_64__)

#define OPEN_MAX 64 /* runs of pages open at once; past that, all they span closes */
#define OWN_SLOTS 2048

/* A kernel's stores of data are recorded one by one, a few per page in
 * an epoch (step_data), not only the first: at most this many pages and
 * this many stores each in an epoch, and this many in all in a launch
 * (each costs a fault: a kernel that writes megabytes would pay one per
 * 256 bytes; the pull of a flag's data is caught on the launch's first
 * pages as well as on any). */
#define STEP_PAGES 32
#define STEP_PAGE_MAX 16
#define STEP_LAUNCH_MAX 32
#define TRAP_FLAG 0x100

struct own {
    shmemu__pe *me;
    char *heap;             /* the program's view of its heap, protected part */
    size_t len;
    char *stat;             /* its static data (PE processes), or NULL */
    size_t stat_len;
    unsigned char *watched; /* per page of stat: protected (holds the program's) */
    size_t page;
    _Atomic int lock;
    struct {
        char *at;
        size_t len;
    } open[OPEN_MAX];   /* runs of pages opened in this epoch */
    int nopen, overflow; /* more: all of [lo, hi) of the heap, and stat */
    char *lo, *hi;
    unsigned faults; /* in this epoch */
    int heap_prot;   /* of the heap between epochs: PROT_NONE where loads are seen */
    /* A kernel's stores of data stepped in this epoch (step_data) */
    struct {
        char *at;
        unsigned n;
    } stepped[STEP_PAGES];
    unsigned nstepped; /* pages, in this epoch */
    unsigned steps;    /* stores, in this launch */
};

/* The page a store of this thread is being stepped on (step_data), and
 * its protection after the step. */
static _Thread_local struct {
    char *page;
    size_t len;
    int prot;
} own_step;

/* The library's own writable data, in sections of their own (the
 * Makefile renames them): where it is linked into the program, its
 * static data holds them too, and they are not the program's. */
extern char __start_shmemu_data[] __attribute__((weak));
extern char __stop_shmemu_data[] __attribute__((weak));
extern char __start_shmemu_bss[] __attribute__((weak));
extern char __stop_shmemu_bss[] __attribute__((weak));

static int in_library_data(uintptr_t a)
{
    return (a >= (uintptr_t)__start_shmemu_data && a < (uintptr_t)__stop_shmemu_data) ||
           (a >= (uintptr_t)__start_shmemu_bss && a < (uintptr_t)__stop_shmemu_bss);
}

/* And its code: a load from there (a wait's poll, a collective's reduction,
 * the verifier's check of a result) is the library's own. */
extern char __start_shmemu_text[] __attribute__((weak));
extern char __stop_shmemu_text[] __attribute__((weak));

static int in_library_code(void *pc)
{
    return (uintptr_t)pc >= (uintptr_t)__start_shmemu_text &&
           (uintptr_t)pc < (uintptr_t)__stop_shmemu_text;
}

/* Regions by address, for the handler (which takes no locks to find them). */
static struct chk_range slots[OWN_SLOTS];
static struct chk_ranges regions = {slots, OWN_SLOTS, 0};

static void own_lock(struct own *o)
{
    while (atomic_exchange_explicit(&o->lock, 1, memory_order_acquire))
        shmemu__relax();
}

static void own_unlock(struct own *o) { atomic_store_explicit(&o->lock, 0, memory_order_release); }

static int in_stat(const struct own *o, uintptr_t a)
{
    return o->stat && a - (uintptr_t)o->stat < o->stat_len;
}

/* The heap offset of a in o's regions. */
static size_t off_of(const shmemu__pe *me, const struct own *o, uintptr_t a)
{
    if (in_stat(o, a))
        return me->static_off + (size_t)(a - (uintptr_t)o->stat);
    return (size_t)(a - (uintptr_t)me->heap);
}

/* The watched pages of static data in [at, at + len) read-only again (a
 * string store may have opened some of the library's, which stay
 * writable: its own system calls may write there). */
static void close_static(struct own *o, char *at, size_t len)
{
    for (size_t p = (size_t)(at - o->stat) / o->page;
         p < o->stat_len / o->page && o->stat + p * o->page < at + len; p++)
        if (o->watched[p])
            mprotect(o->stat + p * o->page, o->page, PROT_READ);
}

/* Every page the PE opened read-only again.  Under o->lock. */
static void close_all(struct own *o)
{
    o->nstepped = 0;
    if (o->overflow) {
        if (o->hi > o->lo)
            mprotect(o->lo, (size_t)(o->hi - o->lo), o->heap_prot);
        if (o->stat)
            close_static(o, o->stat, o->stat_len);
    } else {
        /* The heap's runs close in one call, over the span they cover
         * (the pages between hold heap_prot already): each call flushes
         * the TLB of every CPU running a PE, and a kernel's threads open
         * runs in src, dest and scratch between two epochs (40% fewer
         * calls, 5% off a checked device allreduce). */
        char *lo = NULL, *hi = NULL;
        for (int i = 0; i < o->nopen; i++) {
            char *at = o->open[i].at, *end = at + o->open[i].len;
            if (in_stat(o, (uintptr_t)at)) {
                close_static(o, at, o->open[i].len);
                continue;
            }
            lo = !lo || at < lo ? at : lo;
            hi = end > hi ? end : hi;
        }
        if (hi > lo)
            mprotect(lo, (size_t)(hi - lo), o->heap_prot);
    }
    o->nopen = 0;
    o->overflow = 0;
    o->faults = 0;
    o->lo = o->hi = NULL;
}

void shmemu__own_epoch(shmemu__pe *me)
{
    struct own *o = me->chk ? me->chk->own : NULL;
    if (!o)
        return;
    own_lock(o);
    if (o->nopen || o->overflow)
        close_all(o);
    own_unlock(o);
    shmemu__chk_view_epoch(me);
}

/* The bytes the faulting instruction stores, from a: [*lo, *hi). */
static void stored_range(const ucontext_t *uc, uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
    const greg_t *g = uc->uc_mcontext.gregs;
    struct shmemu__rep_string r;
    struct shmemu__store st;
    *lo = a, *hi = a + 1;
    if (shmemu__x86_rep_string((const unsigned char *)g[REG_RIP], &r)) {
        if (!(g[REG_EFL] & 0x400) && (uintptr_t)g[REG_RDI] == a) /* DF clear: upwards */
            *hi = a + (size_t)g[REG_RCX] * r.size;
    } else if (shmemu__x86_decode_store(uc, &st) && st.ea <= a && a < st.ea + st.size) {
        *lo = st.ea, *hi = st.ea + st.size;
    }
}

/* 1 if the faulting load is the program's to record: not the library's
 * own (unless it runs a call that reads for the program, such as
 * shmemu_copy_local); inside the C library only `rep movs` (a large
 * memcpy), since its string functions read whole aligned blocks around
 * the bytes asked for, and a peer's put beside them is no conflict. */
int shmemu__own_program_load(const ucontext_t *uc)
{
    void *pc = (void *)uc->uc_mcontext.gregs[REG_RIP];
    struct shmemu__rep_string r;
    if (shmemu__lib_store.call)
        return 1;
    if (in_library_code(pc))
        return 0;
    if (!shmemu__chk_in_system_library(pc))
        return 1;
    if (!shmemu__x86_rep_string(pc, &r) || !r.movs)
        return 0;
    return !in_library_code(shmemu__chk_user_pc(pc)); /* who called memcpy */
}

/* The bytes the faulting instruction loads, from a: [*lo, *hi); a (a
 * byte it did load) where it is not one of the common loads. */
void shmemu__own_loaded_range(const ucontext_t *uc, uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
    const greg_t *g = uc->uc_mcontext.gregs;
    struct shmemu__rep_string r;
    uintptr_t ea;
    unsigned size;
    *lo = a, *hi = a + 1;
    if (shmemu__x86_rep_string((const unsigned char *)g[REG_RIP], &r)) {
        if (r.movs && !(g[REG_EFL] & 0x400) && (uintptr_t)g[REG_RSI] == a)
            *hi = a + (size_t)g[REG_RCX] * r.size;
    } else if (shmemu__x86_decode_load(uc, &ea, &size) && ea <= a && a < ea + size) {
        *lo = ea, *hi = ea + size;
    }
}

/* The access is the program's (not the library's, not an atomic): record
 * the part of it in o's region from a on, [*lo, *hi). */
static void record(shmemu__pe *me, struct own *o, const ucontext_t *uc, int write, uintptr_t a,
                   uintptr_t *lo, uintptr_t *hi)
{
    const struct shmemu__lib_store *lib = &shmemu__lib_store;
    void *pc = lib->call ? lib->site
                         : shmemu__chk_fault_site((void *)uc->uc_mcontext.gregs[REG_RIP]);
    /* The program's code runs: its loads of peers' heaps are seen again.
     * Not where the library's own code stores, itself or by the C
     * library's memcpy (the verifier writing a case's inputs, a built-in
     * kernel its output): each such fault closed the peers' heaps that
     * the library's loads had opened, and its next load opened them
     * again, two mprotects of a whole heap each. */
    if (lib->call || !in_library_code((char *)pc - 1))
        shmemu__chk_view_program(me);
    uintptr_t rlo = (uintptr_t)o->heap, rhi = rlo + o->len;
    if (in_stat(o, a))
        rlo = (uintptr_t)o->stat, rhi = rlo + o->stat_len;
    if (write)
        stored_range(uc, a, lo, hi);
    else
        shmemu__own_loaded_range(uc, a, lo, hi);
    *lo = *lo < rlo ? rlo : *lo;
    *hi = *hi > rhi ? rhi : *hi;
    shmemu__chk_enter(me);
    if (write)
        shmemu__race_own_store(me, me->chk->race, off_of(me, o, *lo), *hi - *lo,
                               lib->call ? lib->call : "plain store", pc,
                               shmemu__chk_who(me->chk));
    else
        shmemu__race_plain_load(me, me->chk->race, me->pe, off_of(me, o, *lo), *hi - *lo,
                              lib->call ? lib->call : "plain load", pc,
                              shmemu__chk_who(me->chk));
    shmemu__chk_leave(me);
}

/* A kernel's store of data (recorded) is carried out here, the page left
 * closed, so that the stores that follow are recorded too - up to
 * STEP_PAGE_MAX a page.  A peer that reads the data through a pointer is
 * recorded by its first load of a page, by whichever of its threads comes
 * first: with only the first store of the page recorded, the two rarely
 * met (the GPU's scopes, race.c).  A store the decoder knows, inside the
 * page, is written through the library's view of the heap and skipped;
 * any other runs with the page opened for that one instruction (the trap
 * flag): two mprotects, each a flush of every CPU's TLB where PEs are
 * threads, and a debug trap, three times the store's cost.  Not a string
 * instruction (it would trap at each element), not one already stepping
 * (a store across two pages), and only where the trap is ours. */
static int step_data(struct own *o, ucontext_t *uc, uintptr_t a)
{
    struct shmemu__rep_string rs;
    const unsigned char *pc = (const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
    if (own_step.page || shmemu__x86_rep_string(pc, &rs))
        return 0;
    char *page = (char *)(a & ~(uintptr_t)(o->page - 1));
    struct shmemu__store st;
    int emulate = shmemu__x86_decode_store(uc, &st) && st.ea >= (uintptr_t)page &&
                  st.ea + st.size <= (uintptr_t)page + o->page;
    if (!emulate && !shmemu__chk_trap_ours())
        return 0;
    int ok = 0;
    own_lock(o);
    if (o->steps < STEP_LAUNCH_MAX) {
        unsigned i = 0;
        while (i < o->nstepped && o->stepped[i].at != page)
            i++;
        if (i == o->nstepped && i < STEP_PAGES) {
            o->stepped[i].at = page;
            o->stepped[i].n = 0;
            o->nstepped++;
        }
        if (i < o->nstepped && o->stepped[i].n < STEP_PAGE_MAX) {
            o->stepped[i].n++;
            o->steps++;
            ok = 1;
        }
    }
    own_unlock(o);
    if (ok && emulate) {
        memcpy(shmemu__own_lib_addr(o->me, (void *)st.ea, st.size), st.bytes, st.size);
        uc->uc_mcontext.gregs[REG_RIP] += (greg_t)st.len;
        return 1;
    }
    if (!ok || mprotect(page, o->page, PROT_READ | PROT_WRITE) != 0)
        return 0;
    own_step.page = page;
    own_step.len = o->page;
    own_step.prot = o->heap_prot;
    uc->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
    return 1;
}

int shmemu__own_trap(void *ucv)
{
    if (!own_step.page)
        return 0;
    ucontext_t *uc = ucv;
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TRAP_FLAG;
    int saved_errno = errno;
    (void)mprotect(own_step.page, own_step.len, own_step.prot);
    errno = saved_errno;
    own_step.page = NULL;
    return 1;
}

int shmemu__own_fault(siginfo_t *si, void *ucv)
{
    uintptr_t a = (uintptr_t)si->si_addr, lo = a, hi = a + 1;
    struct own *o = shmemu__chk_range_find(&regions, a);
    ucontext_t *uc = ucv;
    int write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    if (!o || (!write && (o->heap_prot != PROT_NONE || in_stat(o, a)))) /* readable */
        return 0;
    int saved_errno = errno;
    shmemu__pe *was = shmemu__self;
    if (!was) /* a thread the program started: its PE's (threads.c) */
        shmemu__self = o->me;
    shmemu__pe *me = o->me;
    int data = 0;
    if (shmemu__self == me) {
        if (shmemu__chk_depth == 0 && !in_library_data(a) &&
            !shmemu__x86_atomic((const unsigned char *)uc->uc_mcontext.gregs[REG_RIP]) &&
            (write || shmemu__own_program_load(uc))) {
            record(me, o, uc, write, a, &lo, &hi);
            data = write && hi - lo > 8 && !in_stat(o, a) && shmemu__chk_who(me->chk);
        } else if (write) { /* the library's or an atomic: the program's stores that follow */
            shmemu__race_page_release(me, me->chk->race, off_of(me, o, a));
        }
    }
    if (data && step_data(o, uc, a)) {
        shmemu__self = was;
        errno = saved_errno;
        return 1;
    }
    /* A string store (memcpy, memset) opens every page it will write at
     * once: one fault, not one per page, each recording the rest again.
     * Each further fault in an epoch (a loop filling a buffer) opens an
     * aligned run twice as large, up to 2 MiB: each fault costs a
     * flush of every CPU's TLB where PEs are threads, and the stores after
     * the first on an open page go unrecorded anyway. */
    char *page = (char *)(a & ~(uintptr_t)(o->page - 1));
    size_t len = hi > a ? ((hi - 1) | (o->page - 1)) + 1 - (uintptr_t)page : o->page;
    own_lock(o);
    unsigned shift = o->faults++;
    size_t run = in_stat(o, a) ? o->page /* one by one: not all are watched */
                               : o->page << (shift < 9 ? shift : 9);
    if (run > len) {
        char *at = o->heap + ((size_t)(page - o->heap) & ~(run - 1));
        if (at + run > o->heap + o->len)
            run = (size_t)(o->heap + o->len - at);
        if ((char *)a >= at && run > len)
            page = at, len = run;
    }
    if (write && len > o->page && shmemu__self == me)
        shmemu__race_heap_release(me, me->chk->race); /* their pages' later stores */
    /* (opened for loads, a page already open for stores in this epoch
     * faults again on the next: recorded again, harmless) */
    int opened = mprotect(page, len, write ? PROT_READ | PROT_WRITE : PROT_READ) == 0;
    if (opened && o->nopen < OPEN_MAX) {
        o->open[o->nopen].at = page;
        o->open[o->nopen++].len = len;
    } else if (opened) {
        o->overflow = 1;
    }
    if (opened && !in_stat(o, (uintptr_t)page)) { /* the heap's extent */
        o->lo = !o->lo || page < o->lo ? page : o->lo;
        o->hi = page + len > o->hi ? page + len : o->hi;
    }
    own_unlock(o);
    shmemu__self = was;
    errno = saved_errno;
    return opened; /* else (no memory for one more mapping) a bare fault */
}

void *shmemu__own_lib_addr(shmemu__pe *me, void *p, size_t n)
{
    const struct own *o = me->chk ? me->chk->own : NULL;
    uintptr_t a = (uintptr_t)p;
    if (!o || !n)
        return p;
    char *lib = me->tlj->lib_base[me->pe];
    if (a - (uintptr_t)o->heap < o->len && n <= o->len - (a - (uintptr_t)o->heap))
        return lib + (a - (uintptr_t)o->heap);
    if (in_stat(o, a) && n <= o->stat_len - (a - (uintptr_t)o->stat))
        return lib + me->static_off + (a - (uintptr_t)o->stat);
    return p;
}

const void *shmemu__check_read_past(shmemu__pe *me, const void *p, size_t n)
{
    const void *q = shmemu__own_lib_addr(me, (void *)(uintptr_t)p, n);
    return q != p ? q : shmemu__chk_view_read_past(me, p, n);
}

void shmemu__own_kernel(shmemu__pe *me, int running, const void *code)
{
    struct own *o = me->chk ? me->chk->own : NULL;
    /* The runs of peers' heaps that the library's loads opened close
     * where the program's code runs next: a kernel of the program's (its
     * loads are seen from its first), the host's code after it.  Not
     * around a kernel of the library's (a built-in collective: the
     * library's code runs on; each close and open is an mprotect of every
     * page of a peer's heap in use, a fifth of a checked 4-PE allreduce
     * of 2^20 floats in all). */
    int program = !code || !in_library_code((void *)(uintptr_t)code);
    if (!o)
        return;
    if (running) {
        own_lock(o);
        o->steps = 0;
        own_unlock(o);
        if (program)
            shmemu__chk_view_program(me);
        return;
    }
    /* A kernel's stores are recorded as the host's are (its threads are
     * the PE's: they never conflict with each other here).  Once it has
     * ended, the host's next stores fault afresh, so that they are
     * recorded as the host's. */
    own_lock(o);
    close_all(o);
    own_unlock(o);
    shmemu__chk_view_epoch(me);
    if (program)
        shmemu__chk_view_program(me);
}

int shmemu__own_watching(shmemu__pe *me) { return me->chk && me->chk->own; }

void shmemu__own_start(shmemu__pe *me)
{
    struct shmemu__chk *k = me->chk;
    const struct shmemu__job *job = me->job;
    if (!k || !k->race || job->check.race_calls || !shmemu__race_tracks_own(k->race) ||
        !job->tl.lib_base || !job->tl.lib_base[me->pe] ||
        !SHMEMU_TL_HAS(job->transport, map_view) || shmemu__chk_no_faults(job->transport))
        return;
    struct own *o = calloc(1, sizeof(*o));
    if (!o)
        return;
    o->me = me;
    o->page = (size_t)sysconf(_SC_PAGESIZE);
    o->heap = me->heap;
    /* Loads of the heap are seen too (a fault of each page's first in an
     * epoch); not of static data, where the system calls the C library
     * makes on its own variables (a futex on a lock) would fail. */
    o->heap_prot = PROT_NONE;
    /* not the teams' workspaces at the top: the library's alone */
    o->len = (me->heap_size - SHMEMU__WORKSPACE_TOTAL) & ~(o->page - 1);
    if (me->static_mapped && me->static_len % o->page == 0) {
        o->stat = me->static_lo;
        o->stat_len = me->static_len;
        o->watched = calloc(o->stat_len / o->page, 1);
        if (o->watched && shmemu__static_program_pages(me, o->watched) != 0) {
            free(o->watched);
            o->watched = NULL;
            o->stat = NULL; /* not knowing, none */
        }
    }
    uintptr_t heap = (uintptr_t)o->heap, stat = (uintptr_t)o->stat;
    if ((o->stat && !o->watched) || shmemu__chk_handlers_install() != 0 ||
        shmemu__chk_range_add(&regions, o, heap, heap + o->len) != 0 ||
        (o->stat && shmemu__chk_range_add(&regions, o, stat, stat + o->stat_len) != 0) ||
        mprotect(o->heap, o->len, o->heap_prot) != 0) {
        shmemu__chk_range_drop(&regions, o);
        free(o->watched);
        free(o);
        return;
    }
    for (size_t p = 0; o->stat && p < o->stat_len / o->page; p++)
        if (o->watched[p])
            mprotect(o->stat + p * o->page, o->page, PROT_READ);
    k->own = o;
}

void shmemu__own_stop(shmemu__pe *me)
{
    struct own *o = me->chk ? me->chk->own : NULL;
    if (!o)
        return;
    shmemu__chk_view_unwatch(me);
    own_lock(o);
    mprotect(o->heap, o->len, PROT_READ | PROT_WRITE);
    for (size_t p = 0; o->stat && p < o->stat_len / o->page; p++)
        if (o->watched[p])
            mprotect(o->stat + p * o->page, o->page, PROT_READ | PROT_WRITE);
    me->chk->own = NULL;
    own_unlock(o);
    shmemu__chk_range_drop(&regions, o);
    free(o->watched);
    free(o);
}

#else /* not x86-64: the program's stores are not seen */

void shmemu__own_epoch(shmemu__pe *me) { (void)me; }
int shmemu__own_watching(shmemu__pe *me) { return (void)me, 0; }
int shmemu__own_fault(siginfo_t *si, void *ucv) { return (void)si, (void)ucv, 0; }
int shmemu__own_trap(void *ucv) { return (void)ucv, 0; }
void *shmemu__own_lib_addr(shmemu__pe *me, void *p, size_t n) { return (void)me, (void)n, p; }
const void *shmemu__check_read_past(shmemu__pe *me, const void *p, size_t n)
{
    return (void)me, (void)n, p;
}
void shmemu__own_kernel(shmemu__pe *me, int running, const void *code)
{
    (void)me, (void)running, (void)code;
}
void shmemu__own_start(shmemu__pe *me) { (void)me; }
void shmemu__own_stop(shmemu__pe *me) { (void)me; }

#endif
