/* test_staged.c - the staged transport, whose heaps the host cannot touch
 * (docs/DESIGN.md, "Writing a transport"): every byte is read back through
 * gets, so these tests also prove that the core never loads or stores heap
 * bytes itself (a stray access faults: the heap addresses are inaccessible).
 * Wire-up, nonblocking puts held until quiet or progress, signals, waits on
 * the own heap, atomics and the collectives all run on it. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define T "staged"

static int usable(void)
{
    const char *name;
    int ok;
    for (int i = 0; shmemu_transport_info(i, &name, &ok, NULL, 0) == SHMEMU_OK; i++)
        if (strcmp(name, T) == 0)
            return ok;
    return 0;
}

/* Puts of sizes 0, 1, odd and large to every PE, read back with gets. */
static int body_rma(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    static const size_t sizes[] = {0, 1, 7, 4093, (size_t)1 << 20};
    size_t max = (size_t)1 << 20;
    char *sym = shmemu_malloc(max * (size_t)n);
    PE_CHECK(sym != NULL);
    PE_CHECK(shmemu_ptr(sym, me) == NULL); /* not host-addressable */
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ENOTSUP);
    char *buf = malloc(max), *back = malloc(max);
    PE_CHECK(buf && back);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t len = sizes[k];
        th_fill(buf, len, me, (unsigned)k);
        /* Each PE writes its slot on every PE, nonblocking for odd k. */
        for (int p = 0; p < n; p++) {
            if (k % 2)
                PE_CHECK_OK(shmemu_putmem_nbi(sym + (size_t)me * max, buf, len, p));
            else
                PE_CHECK_OK(shmemu_putmem(sym + (size_t)me * max, buf, len, p));
        }
        PE_CHECK_OK(shmemu_barrier_all()); /* completes the nbi ones */
        for (int p = 0; p < n; p++)
            for (int src = 0; src < n; src++) {
                memset(back, 0, len);
                PE_CHECK_OK(shmemu_getmem(back, sym + (size_t)src * max, len, p));
                PE_CHECK_EQ(th_verify(back, len, src, (unsigned)k), -1);
            }
        PE_CHECK_OK(shmemu_barrier_all());
    }
    free(buf);
    free(back);
    shmemu_free(sym);
    return 0;
}

/* calloc's zeros and realloc's move are the core's own writes to the heap:
 * through the transport here. */
static int body_alloc(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe();
    unsigned char *z = shmemu_calloc(1000, 3);
    void *after = shmemu_malloc(64); /* realloc must move z: local_copy */
    PE_CHECK(z != NULL && after != NULL);
    unsigned char back[3000];
    memset(back, 0xff, sizeof(back));
    PE_CHECK_OK(shmemu_getmem(back, z, sizeof(back), me));
    for (size_t i = 0; i < sizeof(back); i++)
        PE_CHECK_EQ(back[i], 0);
    unsigned char pat[3000];
    th_fill(pat, sizeof(pat), me, 9);
    PE_CHECK_OK(shmemu_putmem(z, pat, sizeof(pat), me));
    PE_CHECK_OK(shmemu_barrier_all());
    unsigned char *r = shmemu_realloc(z, 9000);
    PE_CHECK(r != NULL);
    PE_CHECK_OK(shmemu_getmem(back, r, sizeof(back), me));
    PE_CHECK_EQ(th_verify(back, sizeof(back), me, 9), -1);
    PE_CHECK(r != z);
    shmemu_free(r);
    shmemu_free(after);
    return 0;
}

/* Ring: an nbi put with a signal to the next PE, then a wait on our own
 * signal word (read through the transport).  No quiet: the waiting PE's
 * own progress must move its outstanding put. */
static int body_signal(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    long *data = shmemu_calloc(64, sizeof(long));
    uint64_t *sig = shmemu_calloc(1, sizeof(uint64_t));
    PE_CHECK(data && sig);
    long out[64];
    for (int round = 1; round <= 20; round++) {
        for (int i = 0; i < 64; i++)
            out[i] = (long)me * 1000000 + round * 100 + i;
        PE_CHECK_OK(shmemu_putmem_signal_nbi(data, out, sizeof(out), sig, (uint64_t)round,
                                             SHMEMU_SIGNAL_SET, (me + 1) % n));
        PE_CHECK_EQ(shmemu_signal_wait_until(sig, SHMEMU_CMP_GE, (uint64_t)round),
                    (uint64_t)round);
        long in[64];
        PE_CHECK_OK(shmemu_getmem(in, data, sizeof(in), me));
        int from = (me + n - 1) % n;
        for (int i = 0; i < 64; i++)
            PE_CHECK_EQ(in[i], (long)from * 1000000 + round * 100 + i);
        PE_CHECK_OK(shmemu_barrier_all()); /* nobody overwrites before all read */
    }
    return 0;
}

/* Atomics from every PE on PE 0's counter, and an int wait. */
static int body_amo(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    long *ctr = shmemu_calloc(1, sizeof(long));
    int *flag = shmemu_calloc(1, sizeof(int));
    PE_CHECK(ctr && flag);
    for (int i = 0; i < 100; i++)
        shmemu_long_atomic_add(ctr, i + 1, 0);
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(shmemu_long_atomic_fetch(ctr, 0), (long)n * 5050);
    if (me == 0)
        for (int p = 0; p < n; p++)
            PE_CHECK_OK(shmemu_int_atomic_set(flag, 7, p));
    PE_CHECK_OK(shmemu_int_wait_until(flag, SHMEMU_CMP_EQ, 7));
    PE_CHECK_EQ(shmemu_int_atomic_compare_swap(flag, 7, me, me), 7);
    PE_CHECK_EQ(shmemu_int_atomic_fetch(flag, me), me);
    return 0;
}

/* The reference collectives need host-addressable heaps (for now): a clean
 * refusal, never a fault. */
static int body_coll(void *arg)
{
    (void)arg;
    PE_CHECK_EQ(shmemu_heap_host_accessible(), 0);
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    long *d = shmemu_calloc(4, sizeof(long));
    PE_CHECK(d != NULL);
    PE_CHECK_EQ(shmemu_allreduce(SHMEMU_TEAM_WORLD, d, d, 4, SHMEMU_INT64, SHMEMU_SUM),
                SHMEMU_ENOTSUP);
    return 0;
}

static void run_all(int (*body)(void *))
{
    if (!usable())
        skip();
    static const int npes[] = {1, 2, 3, 5};
    for (size_t i = 0; i < sizeof(npes) / sizeof(npes[0]); i++) {
        int rc = th_launch(T, npes[i], (size_t)16 << 20, body, NULL);
        if (rc != 0)
            fail_msg("staged, %d PEs: rc %d", npes[i], rc);
    }
}

static void test_rma(void **state) { (void)state; run_all(body_rma); }
static void test_alloc(void **state) { (void)state; run_all(body_alloc); }
static void test_signal(void **state) { (void)state; run_all(body_signal); }
static void test_amo(void **state) { (void)state; run_all(body_amo); }

static void test_coll(void **state)
{
    (void)state;
    th_capture_start();
    run_all(body_coll);
    char *err = th_capture_stop();
    if (!strstr(err, "shmemu_allreduce") || !strstr(err, "not host-addressable"))
        fail_msg("no one-line refusal: %s", err);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rma),
        cmocka_unit_test(test_alloc),
        cmocka_unit_test(test_signal),
        cmocka_unit_test(test_amo),
        cmocka_unit_test(test_coll),
    };
    return cmocka_run_group_tests_name("staged", tests, NULL, NULL);
}
