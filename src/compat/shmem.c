/*
 * shmem.c - the parts of OpenSHMEM 1.5 that shmemu has no call for: start
 * and end, locks (the active-set collectives with their pSync arrays,
 * strided alltoall, long double and complex reductions are in
 * collectives.c).  Built on the public API (plus the core's hooks for static
 * data and global exit), so checker mode sees every access they make.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shmem.h"
#include "shmemx.h"
#include "runtime/config.h"
#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "job/job.h"

/* ----------------------------------------------------- start and end */

/* An OpenSHMEM start-up variable (any value turns it on), or its
 * deprecated SMA_ name ("SHMEM_VERSION": "SMA_VERSION"). */
static const char *spec_env(const char *name)
{
    const char *v = getenv(name);
    if (v && *v)
        return v;
    char sma[32];
    snprintf(sma, sizeof(sma), "SMA_%s", name + 6);
    v = getenv(sma);
    return v && *v ? v : NULL;
}

/* OpenSHMEM's start-up variables (1.5, "Environment Variables").
 * SHMEM_SYMMETRIC_SIZE is read with shmemu's settings. */
static void startup_report(void)
{
    shmemu__pe *me = shmemu__self;
    if (!me)
        return;
    const char *v;
    if (me->pe == 0 && (v = spec_env("SHMEM_VERSION")))
        printf("%s (OpenSHMEM %d.%d)\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION,
               SHMEM_MINOR_VERSION);
    if (me->pe == 0 && (v = spec_env("SHMEM_INFO"))) {
        printf("%s (OpenSHMEM %d.%d)\nOpenSHMEM variables:\n"
               "  SHMEM_SYMMETRIC_SIZE  heap bytes per PE (K, M, G, T suffixes, a "
               "fraction allowed: 1.5G); SHMEMU_HEAP_SIZE wins\n"
               "  SHMEM_VERSION         print the library version at start-up\n"
               "  SHMEM_INFO            print this text at start-up\n"
               "  SHMEM_DEBUG           one line per PE at start-up: where it runs\n"
               "  (each also as its deprecated SMA_ name; the SHMEM_ one wins)\n"
               "shmemu settings (variable = value in effect [default]):\n",
               SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
        shmemu__params_print(stdout);
    }
    if ((v = spec_env("SHMEM_DEBUG")))
        fprintf(stderr, "shmemu: PE %d/%d: transport %s, pid %d, heap %zu bytes, thread level %d, "
                "checker %s\n",
                me->pe, shmemu_n_pes(), shmemu_transport_name(), (int)getpid(), me->heap_size,
                shmemu_query_thread(), shmemu_check_enabled() ? "on" : "off");
    fflush(NULL);
}

/* What an OpenSHMEM program gets that shmemu's own do not: symmetric
 * globals, and allocations whose size may differ across PEs. */
static void openshmem_program(void)
{
    shmemu__static_request();
    shmemu__alloc_any_size = 1;
}

void shmem_init(void)
{
    SHMEMU_OSH_CALL;
    openshmem_program();
    if (shmemu_init() != SHMEMU_OK)
        exit(1); /* shmemu_init said why */
    startup_report();
}

void start_pes(int npes)
{
    (void)npes; /* the launcher decides */
    shmem_init();
}

/* SHMEM_THREAD_* are shmemu's levels (shmem.h checks it). */
int shmem_init_thread(int requested, int *provided)
{
    SHMEMU_OSH_CALL;
    openshmem_program();
    int was_pe = shmemu__self != NULL;
    if (shmemu_init_thread(requested, provided) != SHMEMU_OK)
        return -1;
    if (!was_pe)
        startup_report();
    return 0;
}

void shmem_pcontrol(const int level, ...) { (void)level; }

double shmemx_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void shmem_query_thread(int *provided)
{
    if (provided)
        *provided = shmemu_query_thread();
}

/* Collective: every PE is through its last call before any leaves. */
void shmem_finalize(void)
{
    if (shmemu_my_pe() < 0)
        return;
    (void)shmemu_barrier_all();
    (void)shmemu_finalize();
}

void shmem_global_exit(int status)
{
    shmemu__pe *me = shmemu__self;
    fflush(NULL);
    if (me) {
        char msg[96], line[160];
        snprintf(msg, sizeof(msg), "PE %d called shmem_global_exit(%d)", me->pe, status);
        /* The one line about it (none for status 0, a normal ending);
         * the other PEs exit quietly with the same status. */
        snprintf(line, sizeof(line), "shmemu: PE %d/%d shmem_global_exit: ending the job "
                 "with status %d\n", me->pe, me->npes, status);
        /* A launcher of the transport's own (mpirun) ends every process
         * with the status, before any of them ends without a word to it. */
        (void)shmemu__job_launcher_abort(me->job, status, msg);
        shmemu__abort_job(me->job, SHMEMU__GLOBAL_EXIT, me->pe, status, msg,
                          status ? line : "");
    }
    _exit(status);
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name)
        snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

/* -------------------------------------------------------------- locks */

/* A ticket lock in the lock word on PE 0: the high half hands out
 * tickets, the low half is the ticket served.  First come, first served,
 * so no PE starves under contention. */
#define TICKET (1L << 32)

static void backoff(unsigned *ns)
{
    struct timespec ts = {0, (long)*ns};
    nanosleep(&ts, NULL); /* the holder needs the core more than we do */
    if (*ns < 1000000)
        *ns *= 2;
}

/* The held-lock table of the calling thread's PE (NULL outside a PE):
 * found, added to or removed from under its guard.  held: 1 if this
 * thread holds lock, 2 if another thread of the PE does, 0 if none. */
enum { LOCK_FIND, LOCK_ADD, LOCK_DROP };
static int held_locks(const long *lock, int op)
{
    shmemu__pe *me = shmemu__cur();
    if (!me)
        return 0;
    struct shmemu__osh_locks *l = &me->osh_locks;
    unsigned long self = (unsigned long)pthread_self();
    while (atomic_flag_test_and_set_explicit(&l->guard, memory_order_acquire))
        sched_yield();
    int i = 0, held = 0;
    while (i < l->n && l->held[i].lock != lock)
        i++;
    if (i < l->n)
        held = l->held[i].thread == self ? 1 : 2;
    if (op == LOCK_ADD && l->n < 16)
        l->held[l->n++] = (__typeof__(l->held[0])){lock, self};
    else if (op == LOCK_ADD)
        l->lost = 1;
    else if (op == LOCK_DROP && i < l->n)
        l->held[i] = l->held[--l->n];
    else if (op == LOCK_FIND && !held && l->lost)
        held = 2; /* untracked: maybe held */
    atomic_flag_clear_explicit(&l->guard, memory_order_release);
    return held;
}

/* A lock is a symmetric long: said so in the lock routine's own words
 * (the atomics under it would name their dest).  Outside a PE the atomic
 * reports that instead. */
static int lock_bad(const char *call, const long *lock)
{
    if (shmemu_my_pe() < 0)
        return 0;
    if (!lock)
        return shmemu_error(SHMEMU_EINVAL, call, "lock is NULL");
    if ((uintptr_t)lock % sizeof(long))
        return shmemu_error(SHMEMU_EINVAL, call, "lock %p is not aligned to its 8-byte long",
                            (const void *)lock);
    if (!shmemu_addr_accessible(lock, 0))
        return shmemu_error(SHMEMU_EINVAL, call,
                            "lock %p is not symmetric: a lock is a symmetric long (a "
                            "global or static variable, or from shmem_malloc) set to 0",
                            (const void *)lock);
    return 0;
}

void shmem_set_lock(long *lock)
{
    SHMEMU_OSH_CALL;
    if (lock_bad(__func__, lock))
        return;
    if (held_locks(lock, LOCK_FIND) == 1) {
        (void)shmemu_error(SHMEMU_EINVAL, "shmem_set_lock",
                           "this thread holds lock %p already: it would wait for itself",
                           (void *)lock);
        return;
    }
    long t = shmemu_long_atomic_fetch_add(lock, TICKET, 0) >> 32;
    unsigned ns = 1000;
    while ((shmemu_long_atomic_fetch(lock, 0) & 0xffffffffL) != (t & 0xffffffffL)) {
        if (shmemu_last_status())
            return;
        backoff(&ns);
    }
    (void)held_locks(lock, LOCK_ADD);
}

void shmem_clear_lock(long *lock)
{
    SHMEMU_OSH_CALL;
    if (lock_bad(__func__, lock))
        return;
    if (!held_locks(lock, LOCK_FIND)) {
        (void)shmemu_error(SHMEMU_EINVAL, "shmem_clear_lock",
                           "lock %p is not held by this PE (no shmem_set_lock, or "
                           "successful shmem_test_lock, took it)",
                           (void *)lock);
        return;
    }
    (void)held_locks(lock, LOCK_DROP);
    (void)shmemu_quiet(); /* what the holder wrote is visible to the next */
    /* Fetching: done on return (a plain add would wait for a quiet). */
    (void)shmemu_long_atomic_fetch_add(lock, 1, 0);
}

int shmem_test_lock(long *lock)
{
    SHMEMU_OSH_CALL;
    if (lock_bad(__func__, lock))
        return 1; /* not taken */
    long v = shmemu_long_atomic_fetch(lock, 0);
    if (((v >> 32) & 0xffffffffL) != (v & 0xffffffffL))
        return 1; /* held, or others queue for it */
    if (shmemu_long_atomic_compare_swap(lock, v, v + TICKET, 0) != v)
        return 1;
    (void)held_locks(lock, LOCK_ADD);
    return 0;
}
