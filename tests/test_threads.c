/*
 * test_threads.c - threads inside a PE, through shmemu's own API: threads
 * a PE starts join it (shmemu_thread_attach; implicitly where a process
 * hosts one PE) and call concurrently (puts, gets, atomics, waits); the
 * thread level granted; what a thread that joined no PE gets; and a
 * multithreaded PE whose one thread waits while another works is never
 * called deadlocked.  Every transport, several PE counts.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define T 3   /* helper threads per PE */
#define K 200 /* atomics per thread */

struct shared {
    long *slots;   /* [npes][T], symmetric */
    long *counter; /* on PE 0 */
    long *flag;    /* symmetric */
    shmemu_pe_handle pe;
    int attach; /* join explicitly (a PE that shares its process) */
    int late_on;            /* flag_pair: the late variant */
    pthread_barrier_t late; /*   its threads 0 and 2 */
};

struct targ {
    struct shared *s;
    int tid;
    int bad; /* what went wrong, counted: PE_CHECK cannot unwind a helper */
};

#define T_CHECK(a, cond) ((cond) ? (void)0 : (void)((a)->bad++))

/* Where PEs share a process every thread attaches; elsewhere the odd
 * ones do (the even ones are adopted), so both ways run everywhere. */
static int attaches(const struct targ *a) { return a->s->attach || a->tid % 2; }

static int join_pe(struct targ *a)
{
    return attaches(a) ? shmemu_thread_attach(a->s->pe) : SHMEMU_OK;
}

static void *worker(void *p)
{
    struct targ *a = p;
    if (join_pe(a) != SHMEMU_OK) {
        a->bad++;
        return NULL;
    }
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    T_CHECK(a, me >= 0 && n > 0);
    for (int pe = 0; pe < n; pe++)
        T_CHECK(a, shmemu_long_p(&a->s->slots[me * T + a->tid], me * 100 + a->tid, pe) ==
                       SHMEMU_OK);
    for (int i = 0; i < K; i++)
        T_CHECK(a, shmemu_long_atomic_add(a->s->counter, 1, 0) == SHMEMU_OK);
    T_CHECK(a, shmemu_quiet() == SHMEMU_OK);
    /* a get of the neighbour's own slot: written before its threads started */
    long v = -1;
    T_CHECK(a, shmemu_getmem(&v, &a->s->flag[0], sizeof(v), (me + 1) % n) == SHMEMU_OK);
    T_CHECK(a, v == 0);
    if (attaches(a))
        T_CHECK(a, shmemu_thread_detach() == SHMEMU_OK);
    return NULL;
}

/* Thread 0 waits for the flag that PE me-1's thread 1 sets 20 ms late.
 *
 * With s->late, the setter is thread 2, and it then waits outside the
 * library for thread 0 (a thread that ends has its operations delivered:
 * this one does not end; thread 1 does nothing).  Under the checker the set
 * is held until a thread of its PE delivers it, and the only one still
 * inside is the waiter (the PE's own thread is in pthread_join): it must
 * deliver what its siblings issued after it began to wait, or every PE
 * waits for ever (SOS's mt_a2a did, now and then). */
static void *flag_pair(void *p)
{
    struct targ *a = p;
    if (join_pe(a) != SHMEMU_OK) {
        a->bad++;
        return NULL;
    }
    int me = shmemu_my_pe(), n = shmemu_n_pes(), late = a->s->late_on;
    if (a->tid == 0) {
        T_CHECK(a, shmemu_long_wait_until(a->s->flag, SHMEMU_CMP_EQ, 1) == SHMEMU_OK);
    } else if (a->tid == (late ? 2 : 1)) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        T_CHECK(a, shmemu_long_atomic_set(a->s->flag, 1, (me + 1) % n) == SHMEMU_OK);
    }
    if (late && a->tid != 1)
        pthread_barrier_wait(&a->s->late);
    if (attaches(a))
        T_CHECK(a, shmemu_thread_detach() == SHMEMU_OK);
    return NULL;
}

static int run_threads(void *(*fn)(void *), struct shared *s, int nthreads, int barrier)
{
    pthread_t th[T];
    struct targ a[T];
    for (int t = 0; t < nthreads; t++) {
        a[t] = (struct targ){s, t, 0};
        PE_CHECK_EQ(pthread_create(&th[t], NULL, fn, &a[t]), 0);
    }
    if (barrier) /* the PE's own thread meanwhile: a barrier */
        PE_CHECK_OK(shmemu_barrier_all());
    int bad = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        bad += a[t].bad;
    }
    return bad;
}

static int body_threads(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    const char *tl = shmemu_transport_name();
    struct shared s = {0};
    s.slots = shmemu_calloc((size_t)n * T, sizeof(long));
    s.counter = shmemu_calloc(1, sizeof(long));
    s.flag = shmemu_calloc(1, sizeof(long));
    PE_CHECK(s.slots && s.counter && s.flag);
    s.pe = shmemu_self();
    PE_CHECK(s.pe != NULL);
    if (!strcmp(tl, "sim")) { /* fibers of one thread: no threads of a PE */
        PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
        PE_CHECK_EQ(shmemu_thread_attach(s.pe), SHMEMU_ENOTSUP);
        PE_CHECK_EQ(shmemu_query_thread(), SHMEMU_THREAD_SINGLE);
        int got = -1;
        PE_CHECK_OK(shmemu_init_thread(SHMEMU_THREAD_MULTIPLE, &got));
        PE_CHECK_EQ(got, SHMEMU_THREAD_FUNNELED);
        PE_CHECK_EQ(shmemu_query_thread(), SHMEMU_THREAD_FUNNELED);
        PE_CHECK_OK(shmemu_finalize()); /* the reference init_thread took */
        PE_CHECK_OK(shmemu_barrier_all());
        return 0;
    }
    /* PEs that are threads of one process: a new thread is no PE until it
     * joins one.  A process of its own (shm): it is that PE at once. */
    s.attach = !strcmp(tl, "local");
    PE_CHECK_EQ(shmemu_query_thread(), SHMEMU_THREAD_SINGLE);
    int got = -1; /* inside a PE: a reference, and the level raised */
    PE_CHECK_OK(shmemu_init_thread(SHMEMU_THREAD_SERIALIZED, &got));
    PE_CHECK_EQ(got, SHMEMU_THREAD_SERIALIZED);
    PE_CHECK_EQ(shmemu_query_thread(), SHMEMU_THREAD_SERIALIZED);
    PE_CHECK_OK(shmemu_finalize());
    PE_CHECK_OK(shmemu_barrier_all());

    PE_CHECK_EQ(run_threads(worker, &s, T, 0), 0);
    PE_CHECK_EQ(shmemu_query_thread(), SHMEMU_THREAD_MULTIPLE);
    PE_CHECK_OK(shmemu_init_thread(SHMEMU_THREAD_FUNNELED, &got)); /* keeps MULTIPLE */
    PE_CHECK_EQ(got, SHMEMU_THREAD_MULTIPLE);
    PE_CHECK_OK(shmemu_finalize());
    PE_CHECK_OK(shmemu_barrier_all());
    for (int pe = 0; pe < n; pe++)
        for (int t = 0; t < T; t++)
            PE_CHECK_EQ(s.slots[pe * T + t], pe * 100 + t);
    if (me == 0)
        PE_CHECK_EQ(*s.counter, (long)n * T * K);
    PE_CHECK_OK(shmemu_barrier_all());

    PE_CHECK_EQ(run_threads(flag_pair, &s, 2, 1), 0);
    PE_CHECK_EQ(*s.flag, 1);
    PE_CHECK_OK(shmemu_barrier_all());
    *s.flag = 0;
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(pthread_barrier_init(&s.late, NULL, 2), 0);
    s.late_on = 1;
    PE_CHECK_EQ(run_threads(flag_pair, &s, 3, 0), 0);
    pthread_barrier_destroy(&s.late);
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(*s.flag, 1);
    shmemu_free(s.flag);
    shmemu_free(s.counter);
    shmemu_free(s.slots);
    return 0;
}

static void test_threads_join_pe(void **state)
{
    (void)state;
    th_run(body_threads, NULL, TH_NPES(1, 2, 3, 5), 0);
}

/* The same under the checker: no accusation, no hang. */
static void test_threads_checked(void **state)
{
    (void)state;
    setenv("SHMEMU_CHECK", "fuzz:1,race", 1);
    th_run(body_threads, NULL, TH_NPES(2, 3), 0);
    setenv("SHMEMU_CHECK", "fuzz:2", 1);
    th_run(body_threads, NULL, TH_NPES(3), 0);
    unsetenv("SHMEMU_CHECK");
}

/* A thread that joined no PE, where PEs share the process: each call
 * fails with EINVAL and says why; attaching twice or to NULL is refused. */
static void *stranger(void *p)
{
    long *word = p;
    int *bad = calloc(1, sizeof(int));
    if (!bad)
        return NULL;
    *bad += shmemu_my_pe() != -1;
    *bad += shmemu_long_p(word, 1, 0) != SHMEMU_EINVAL;
    *bad += shmemu_thread_attach(NULL) != SHMEMU_EINVAL;
    *bad += shmemu_thread_detach() != SHMEMU_EINVAL;
    return bad;
}

static shmemu_pe_handle handles[2];

static int body_stranger(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe();
    PE_CHECK_EQ(shmemu_init_thread(7, NULL), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_init_thread(-1, NULL), SHMEMU_EINVAL);
    handles[me] = shmemu_self();
    PE_CHECK_OK(shmemu_barrier_all());
    /* this thread is PE me: it cannot also become the other PE */
    PE_CHECK_EQ(shmemu_thread_attach(handles[1 - me]), SHMEMU_EINVAL);
    PE_CHECK_OK(shmemu_thread_attach(handles[me])); /* its own: no change */
    long *word = shmemu_calloc(1, sizeof(long));
    PE_CHECK(word);
    pthread_t th;
    PE_CHECK_EQ(pthread_create(&th, NULL, stranger, word), 0);
    void *ret = NULL;
    pthread_join(th, &ret);
    PE_CHECK(ret != NULL);
    PE_CHECK_EQ(*(int *)ret, 0);
    free(ret);
    PE_CHECK_EQ(*word, 0);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(word);
    return 0;
}

static void test_stranger_refused(void **state)
{
    (void)state;
    setenv("SHMEMU_ERRORS", "return", 1);
    th_capture_start();
    int st = th_launch("local", 2, TH_HEAP, body_stranger, NULL);
    char *err = th_capture_stop();
    assert_int_equal(st, SHMEMU_OK);
    assert_non_null(strstr(err, "called outside a PE"));
    assert_non_null(strstr(err, "shmemu_thread_attach: pe is NULL"));
    assert_non_null(strstr(err, "shmemu_thread_attach: this thread already is PE"));
    assert_non_null(strstr(err, "shmemu_init_thread: requested thread level 7 is not one of"));
    free(err);
    unsetenv("SHMEMU_ERRORS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_join_pe),
        cmocka_unit_test(test_threads_checked),
        cmocka_unit_test(test_stranger_refused),
    };
    return cmocka_run_group_tests_name("threads", tests, NULL, NULL);
}
