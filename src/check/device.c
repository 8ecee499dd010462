/* device.c - the report for a host load or store on symmetric memory that
 * the host cannot address: device discipline (SHMEMU_CHECK=device), and the
 * transports whose heaps really are elsewhere (cuda: GPU memory; staged).
 *
 * The transport's device view (transports/shm/shm.h) places every heap at
 * addresses the host cannot touch, as a GPU's are; the library reaches the
 * bytes through the transport.  A load or store by the program itself then
 * faults, and this handler turns the fault into the job's report: which PE,
 * which heap and symmetric block, load or store, and the code location,
 * then ends the PE as an error in ABORT mode does.  On cuda the same program
 * faults for real (a device address in the host's view of unified
 * addressing): the same report, where a bare SIGSEGV would say nothing.
 * Faults elsewhere go to whatever handled SIGSEGV before.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <execinfo.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "check.h"
#include "internal.h"
#include "ctl/plane.h"
#include "runtime/dispatch.h"

static struct sigaction previous;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

/* Which heap holds addr, as this process addresses heaps; -1 if none. */
static int heap_of(const shmemu__pe *me, uintptr_t addr, size_t *off_p)
{
    const struct shmemu_tl_job *tl = me->tlj;
    for (int p = 0; p < me->npes; p++) {
        uintptr_t base = (uintptr_t)tl->heap_base[p];
        if (addr >= base && addr - base < me->heap_size) {
            *off_p = (size_t)(addr - base);
            return p;
        }
    }
    return -1;
}

static void describe_block(const shmemu__pe *me, size_t off, char *buf, size_t len)
{
    const struct shmemu__blk *b = shmemu__heap_find(&me->alloc, off);
    if (off >= me->heap_size - SHMEMU__WORKSPACE_TOTAL)
        snprintf(buf, len, "in the teams' workspaces");
    else if (!b || !b->used)
        snprintf(buf, len, "outside any allocated block");
    else
        snprintf(buf, len, "byte %zu of the %zu-byte block at offset %#zx", off - b->off,
                 b->req, b->off);
}

static int system_path(const char *path)
{
    return path && (strncmp(path, "/lib", 4) == 0 || strncmp(path, "/usr/lib", 8) == 0);
}

/* The code segments of the loaded objects, and which are a system
 * library's: dladdr on every store a checked program makes would cost a
 * fifth of its run.  Filled again (when nobody else is) on a miss: an
 * object loaded since. */
#define CODE_MAX 64
static struct code_range {
    _Atomic uintptr_t lo, hi;
    _Atomic int sys;
} code[CODE_MAX];
static _Atomic int ncode, code_busy;

static int add_code(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        int n = atomic_load(&ncode);
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || n == CODE_MAX)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        atomic_store(&code[n].lo, lo);
        atomic_store(&code[n].hi, lo + ph->p_memsz);
        atomic_store(&code[n].sys, system_path(info->dlpi_name));
        atomic_store_explicit(&ncode, n + 1, memory_order_release);
    }
    return 0;
}

/* A system library's code (memcpy, memset in libc): the report then also
 * names the user's code that called it. */
int shmemu__chk_in_system_library(void *pc)
{
    uintptr_t a = (uintptr_t)pc;
    for (int pass = 0; pass < 2; pass++) {
        int n = atomic_load_explicit(&ncode, memory_order_acquire);
        for (int i = 0; i < n; i++)
            if (a >= atomic_load_explicit(&code[i].lo, memory_order_relaxed) &&
                a < atomic_load_explicit(&code[i].hi, memory_order_relaxed))
                return atomic_load_explicit(&code[i].sys, memory_order_relaxed);
        if (pass || atomic_exchange(&code_busy, 1))
            break;
        atomic_store(&ncode, 0);
        dl_iterate_phdr(add_code, NULL);
        atomic_store(&code_busy, 0);
    }
    Dl_info info; /* another thread refills the table, or not code at all */
    return dladdr(pc, &info) && system_path(info.dli_fname);
}

void *shmemu__chk_user_pc(void *pc)
{
    if (!shmemu__chk_in_system_library(pc))
        return pc;
    void *frames[32];
    int n = backtrace(frames, 32), k = 0;
    while (k < n && frames[k] != pc) /* up to the interrupted frame */
        k++;
    for (k++; k < n; k++)
        if (!shmemu__chk_in_system_library(frames[k]))
            return (char *)frames[k] - 1; /* a return address: the call is just before */
    return pc;
}

void *shmemu__chk_fault_site(void *pc)
{
    void *user = shmemu__chk_user_pc(pc);
    return user == pc ? (char *)pc + 1 : (char *)user + 1;
}

static void name_site(void *pc, char *buf, size_t len)
{
    shmemu__format_site(pc, buf, len);
    void *user = shmemu__chk_user_pc(pc);
    if (user == pc)
        return;
    char caller[160];
    size_t used = strlen(buf);
    shmemu__format_site(user, caller, sizeof(caller));
    snprintf(buf + used, len - used, ", called from %s", caller);
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
    shmemu__pe *me = shmemu__self;
    size_t off = 0;
    int owner = me && !me->direct ? heap_of(me, (uintptr_t)si->si_addr, &off) : -1;
    if (owner < 0) { /* not ours: as if we had never been here */
        sigaction(SIGSEGV, &previous, NULL);
        return; /* the access faults again, under the previous handler */
    }
    const char *what = "access";
    void *pc = NULL;
#if defined(__x86_64__)
    ucontext_t *uc = ucv;
    what = uc->uc_mcontext.gregs[REG_ERR] & 2 ? "store" : "load";
    pc = (void *)uc->uc_mcontext.gregs[REG_RIP];
#else
    (void)ucv;
#endif
    char block[96], site[320] = "an unknown location", line[700], why[64];
    describe_block(me, off, block, sizeof(block));
    if (pc)
        name_site(pc, site, sizeof(site));
    if (me->job->check.device)
        snprintf(why, sizeof(why), "under SHMEMU_CHECK=device");
    else
        snprintf(why, sizeof(why), "on the %s transport", shmemu__tl_name(me->job));
    snprintf(line, sizeof(line),
             "shmemu: PE %d/%d: host %s of symmetric memory at %p (PE %d's heap, %s) at %s: "
             "%s symmetric memory is device memory; reach it with "
             "shmemu_getmem/putmem or shmemu_copy_local/reduce_local\n",
             me->pe, me->npes, what, si->si_addr, owner, block, site, why);
    shmemu__last_status = SHMEMU_EDEVICE;
    if (shmemu__plane_claim_report(me->job))
        shmemu__emit(line);
    line[strlen(line) - 1] = '\0';
    shmemu__abort_job(me->job, SHMEMU_EABORTED, me->pe, SHMEMU_EDEVICE,
                      line + strlen("shmemu: "), NULL);
    /* End the PE as an error in ABORT mode does; the handler's frame and
     * the blocked signal go with it. */
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    if (me->abort_jmp)
        longjmp(*me->abort_jmp, 1);
    exit(EXIT_FAILURE);
}

int shmemu__device_check_start(shmemu__pe *me)
{
    if (me->direct)
        return 0;
    /* Whether ours is the handler now, not whether we once installed it:
     * a program (or a test runner) may have put its own back since.  The
     * lock: PEs that are threads start side by side, and a second install
     * would take the first for "previous" and loop on foreign faults. */
    pthread_mutex_lock(&install_lock);
    struct sigaction sa;
    int st = sigaction(SIGSEGV, NULL, &sa);
    if (st == 0 && !((sa.sa_flags & SA_SIGINFO) && sa.sa_sigaction == on_fault)) {
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        st = sigaction(SIGSEGV, &sa, &previous);
    }
    pthread_mutex_unlock(&install_lock);
    return st == 0 ? 0 : -1;
}
