/*
 * crashy - an SPMD program for the crash tests and scripts/stress.sh.
 *
 *   crashy HOW WHERE     PE 2 (or the last PE) crashes HOW -- segv, abort,
 *                        exit3, kill, or none -- once the others are WHERE:
 *                        barrier, wait (wait_until on a flag nobody sets),
 *                        compute (a loop that never calls shmemu), or
 *                        exit-early (return from main without finalizing).
 *                        With CRASHY_VICTIM_COMPUTES set, the victim loops
 *                        forever instead of crashing.
 *   crashy random SEED   every PE runs a loop of puts, AMOs, signals and
 *                        barriers; PE SEED % npes crashes, in a way and at
 *                        an iteration drawn from SEED.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shmemu.h"

static void crash(const char *how)
{
    fflush(stdout);
    if (!strcmp(how, "segv")) {
        volatile uintptr_t bad = 8; /* opaque to the compiler: a real fault */
        *(volatile int *)bad = 1;
    }
    else if (!strcmp(how, "abort"))
        abort();
    else if (!strcmp(how, "exit3"))
        _exit(3);
    else if (!strcmp(how, "kill"))
        raise(SIGKILL);
    fprintf(stderr, "crashy: unknown way to crash '%s'\n", how);
    _exit(99);
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static int place(const char *how, const char *where)
{
    int me = shmemu_my_pe(), n = shmemu_n_pes(), victim = n > 2 ? 2 : n - 1;
    int *flag = shmemu_calloc(1, sizeof(int));
    shmemu_barrier_all();
    if (me == victim && getenv("CRASHY_VICTIM_COMPUTES"))
        where = "compute";
    else if (me == victim && strcmp(how, "none")) {
        nap_ms(100); /* let the others get where they are going */
        crash(how);
    }
    if (!strcmp(where, "barrier"))
        shmemu_barrier_all();
    else if (!strcmp(where, "wait"))
        shmemu_int_wait_until(flag, SHMEMU_CMP_EQ, 1);
    else
        for (volatile unsigned long spin = 0;; spin++)
            ;
    fprintf(stderr, "crashy: PE %d returned from %s after PE %d crashed\n", me, where,
            victim);
    return 1;
}

static int random_loop(unsigned long seed)
{
    const char *hows[] = {"segv", "abort", "exit3", "kill"};
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    int victim = (int)(seed % (unsigned long)n);
    long at = (long)((seed / 7) % 200);
    const char *how = hows[(seed / 13) % 4];
    long *token = shmemu_calloc(4, sizeof(long));
    uint64_t *sig = shmemu_calloc(1, sizeof(uint64_t));
    for (long i = 0; i < 200; i++) {
        if (me == victim && i == at)
            crash(how);
        shmemu_long_p(&token[i % 4], i, (me + 1) % n);
        shmemu_long_atomic_add(&token[3], 1, (me + n - 1) % n);
        shmemu_putmem_signal(&token[1], &i, sizeof(i), sig, 1, SHMEMU_SIGNAL_ADD,
                             (me + 1) % n);
        shmemu_signal_wait_until(sig, SHMEMU_CMP_GE, (uint64_t)(i + 1));
        if (i % 16 == 0)
            shmemu_barrier_all();
    }
    shmemu_barrier_all();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: crashy HOW WHERE | crashy random SEED\n");
        return 2;
    }
    if (shmemu_init() != SHMEMU_OK)
        return 1;
    if (!strcmp(argv[2], "exit-early")) {
        shmemu_barrier_all();
        return 0; /* no shmemu_finalize: the library's atexit hook leaves */
    }
    int rc = !strcmp(argv[1], "random") ? random_loop(strtoul(argv[2], NULL, 10))
                                        : place(argv[1], argv[2]);
    shmemu_finalize();
    return rc;
}
