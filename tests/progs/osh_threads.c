/*
 * osh_threads.c - an OpenSHMEM 1.5 program with threads inside each PE
 * (SHMEM_THREAD_MULTIPLE), written from the specification, run by
 * test_compat under oshrun: threads the program starts call the library
 * as their PE, concurrently (puts, atomics, private contexts); one of them
 * waits on a flag that a thread of another PE sets late, while the main
 * thread sits in a barrier, a pattern that a deadlock detector counting
 * PEs instead of threads would call a deadlock; threads of every PE take
 * one lock in turn.  Prints "ok N" on PE 0,
 * or one "FAIL" line per wrong value and exits 1.
 */
#include <pthread.h>
#include <shmem.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "osh_check.h"

#define T 4     /* threads per PE */
#define K 250   /* operations per thread */
#define MAXPE 16

long slots[MAXPE][T][3]; /* [from PE][thread][round], written by puts */
long counter;            /* on PE 0: every thread of every PE adds to it */
long ctx_dst[MAXPE][T];  /* written through each thread's private context */
long flag;               /* set by the previous PE's late thread */
long lk;                 /* an OpenSHMEM lock every thread of every PE takes */
long guarded;            /* on PE 0: read and written only under lk */

struct arg {
    int tid, me, n;
};

static void *rma_amo(void *p)
{
    struct arg *a = p;
    CHECK(shmem_my_pe() == a->me, "thread %d sees PE %d", a->tid, shmem_my_pe());
    CHECK(shmem_n_pes() == a->n, "thread %d sees %d PEs", a->tid, shmem_n_pes());
    for (int r = 0; r < 3; r++)
        for (int pe = 0; pe < a->n; pe++)
            shmem_long_p(&slots[a->me][a->tid][r], a->me * 1000 + a->tid * 10 + r, pe);
    for (int i = 0; i < K; i++)
        shmem_long_atomic_inc(&counter, 0);
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        CHECK(0, "thread %d: no private context", a->tid);
        return NULL;
    }
    long v = a->me * 100 + a->tid;
    shmem_ctx_long_put(ctx, &ctx_dst[a->me][a->tid], &v, 1, (a->me + 1) % a->n);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    shmem_quiet();
    return NULL;
}

/* Threads of one PE contend for the lock with each other as with other
 * PEs' threads: a get and a put under it, never a lost update. */
static void *locked_adds(void *p)
{
    (void)p;
    for (int i = 0; i < 20; i++) {
        shmem_set_lock(&lk);
        long v = shmem_long_g(&guarded, 0);
        shmem_long_p(&guarded, v + 1, 0);
        shmem_clear_lock(&lk);
    }
    return NULL;
}

static void *waiter(void *p)
{
    struct arg *a = p;
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, a->me == 0 ? a->n : a->me);
    return NULL;
}

static void *late_setter(void *p)
{
    struct arg *a = p;
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    int next = (a->me + 1) % a->n;
    shmem_long_atomic_set(&flag, next == 0 ? a->n : next, next);
    return NULL;
}

static void run(void *(*fn)(void *), int nthreads, int me, int n, int barrier_meanwhile)
{
    pthread_t th[T];
    struct arg args[T];
    for (int t = 0; t < nthreads; t++) {
        args[t] = (struct arg){t, me, n};
        if (pthread_create(&th[t], NULL, fn, &args[t]) != 0) {
            CHECK(0, "pthread_create");
            exit(1);
        }
    }
    if (barrier_meanwhile)
        shmem_barrier_all();
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
}

/* "osh_threads late": a thread that called as its PE calls again after
 * the PE finalized; the call fails with one line, nothing else breaks. */
static _Atomic int late_go, late_first;
static void *late_caller(void *p)
{
    (void)p;
    shmem_long_p(&flag, 1, 0);
    late_first = 1;
    while (!late_go)
        sched_yield();
    shmem_long_p(&flag, 2, 0);
    printf("late call returned, my_pe %d\n", shmem_my_pe());
    return NULL;
}

static int late(void)
{
    pthread_t th;
    if (pthread_create(&th, NULL, late_caller, NULL) != 0)
        return 1;
    while (!late_first)
        sched_yield();
    shmem_finalize();
    late_go = 1;
    pthread_join(th, NULL);
    return 0;
}

static void *wait_then_set(void *p)
{
    struct arg *a = p;
    return a->tid == 0 ? waiter(p) : late_setter(p);
}

int main(int argc, char **argv)
{
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) {
        printf("FAIL shmem_init_thread\n");
        return 1;
    }
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (argc > 1 && !strcmp(argv[1], "late"))
        return late();
    if (n > MAXPE) {
        printf("FAIL at most %d PEs\n", MAXPE);
        shmem_global_exit(1);
    }
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    int q = -1;
    shmem_query_thread(&q);
    CHECK(q == SHMEM_THREAD_MULTIPLE, "query_thread %d", q);

    run(rma_amo, T, me, n, 0);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        for (int t = 0; t < T; t++)
            for (int r = 0; r < 3; r++)
                CHECK(slots[pe][t][r] == pe * 1000 + t * 10 + r, "slot [%d][%d][%d] = %ld", pe,
                      t, r, slots[pe][t][r]);
    int prev = (me + n - 1) % n;
    for (int t = 0; t < T; t++)
        CHECK(ctx_dst[prev][t] == prev * 100 + t, "ctx_dst[%d][%d] = %ld", prev, t,
              ctx_dst[prev][t]);
    if (me == 0)
        CHECK(counter == (long)n * T * K, "counter %ld, want %ld", counter, (long)n * T * K);

    run(locked_adds, T, me, n, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(guarded == (long)n * T * 20, "guarded %ld, want %ld", guarded, (long)n * T * 20);

    /* The main thread waits in a barrier while thread 0 waits on a flag
     * only another PE's thread 1 sets, 50 ms later: no deadlock. */
    run(wait_then_set, 2, me, n, 1);
    CHECK(flag == (me == 0 ? n : me), "flag %ld", flag);
    shmem_barrier_all();

    if (me == 0 && !failures)
        printf("ok %d\n", n);
    shmem_finalize();
    return failures ? 1 : 0;
}
