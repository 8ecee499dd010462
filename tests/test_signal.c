/* test_signal.c - put with signal: the data is complete whenever the signal
 * is seen; SET and ADD; nbi; typed forms; errors. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MSG 1000 /* odd-sized payload: not a multiple of any vector width */

/* PE 0 sends rounds of data + signal (SET round) to PE 1, which checks the
 * whole payload as soon as it sees the signal, then answers with a signal of
 * its own so PE 0 may reuse the buffer. */
static int body_ordering(void *arg)
{
    long rounds = *(long *)arg;
    int me = shmemu_my_pe();
    unsigned char *data = shmemu_malloc(MSG);
    uint64_t *sig = shmemu_calloc(2, sizeof(uint64_t));
    unsigned char priv[MSG];
    PE_CHECK(data && sig);
    for (long r = 1; r <= rounds; r++) {
        if (me == 0) {
            th_fill(priv, MSG, 0, (unsigned)r);
            PE_CHECK_OK(shmemu_putmem_signal(data, priv, MSG, &sig[0], (uint64_t)r,
                                             SHMEMU_SIGNAL_SET, 1));
            PE_CHECK_EQ(shmemu_signal_wait_until(&sig[1], SHMEMU_CMP_GE, (uint64_t)r), r);
        } else if (me == 1) {
            uint64_t got = shmemu_signal_wait_until(&sig[0], SHMEMU_CMP_GE, (uint64_t)r);
            PE_CHECK_EQ(got, r);
            long bad = th_verify(data, MSG, 0, (unsigned)r);
            if (bad >= 0)
                th_pe_fail(__FILE__, __LINE__, "round %ld: byte %ld stale after signal", r,
                           bad);
            PE_CHECK_OK(shmemu_putmem_signal(data, data, 0, &sig[1], 1, SHMEMU_SIGNAL_ADD,
                                             0));
        }
    }
    PE_CHECK_OK(shmemu_barrier_all());
    if (me == 1)
        PE_CHECK_EQ(shmemu_signal_fetch(&sig[0]), rounds);
    if (me == 0)
        PE_CHECK_EQ(shmemu_signal_fetch(&sig[1]), rounds);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(sig);
    shmemu_free(data);
    return 0;
}

static void test_ordering(void **state)
{
    (void)state;
    long rounds = th_iters(100000, 100);
    th_run(body_ordering, &rounds, TH_NPES(2, 3), 0);
}

/* Every PE sends its slot to PE 0 and adds 1 to one signal: when the count
 * reaches npes, every slot is complete. */
static int body_gather(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    unsigned char *slots = shmemu_malloc((size_t)np * MSG);
    uint64_t *sig = shmemu_calloc(1, sizeof(uint64_t));
    unsigned char priv[MSG];
    PE_CHECK(slots && sig);
    for (int round = 0; round < 20; round++) {
        th_fill(priv, MSG, me, (unsigned)round);
        int nbi = round % 2;
        int st = nbi ? shmemu_putmem_signal_nbi(slots + (size_t)me * MSG, priv, MSG, sig, 1,
                                                SHMEMU_SIGNAL_ADD, 0)
                     : shmemu_putmem_signal(slots + (size_t)me * MSG, priv, MSG, sig, 1,
                                            SHMEMU_SIGNAL_ADD, 0);
        PE_CHECK_OK(st);
        if (nbi)
            PE_CHECK_OK(shmemu_quiet());
        if (me == 0) {
            uint64_t want = (uint64_t)np * (uint64_t)(round + 1);
            PE_CHECK_EQ(shmemu_signal_wait_until(sig, SHMEMU_CMP_EQ, want), want);
            for (int p = 0; p < np; p++)
                PE_CHECK_EQ(th_verify(slots + (size_t)p * MSG, MSG, p, (unsigned)round), -1);
        }
        PE_CHECK_OK(shmemu_barrier_all());
    }
    shmemu_free(sig);
    shmemu_free(slots);
    return 0;
}

static void test_gather(void **state)
{
    (void)state;
    th_run(body_gather, NULL, TH_NPES_ALL, 0);
}

/* The typed forms move whole elements. */
#define X(NAME, TYPE)                                                          \
    static int typed_##NAME(void)                                              \
    {                                                                          \
        int me = shmemu_my_pe(), np = shmemu_n_pes(), to = (me + 1) % np;      \
        TYPE *dst = shmemu_calloc(5, sizeof(TYPE)), src[5];                    \
        uint64_t *sig = shmemu_calloc(1, sizeof(uint64_t));                    \
        for (int i = 0; i < 5; i++)                                            \
            src[i] = (TYPE)(me * 7 + i);                                       \
        PE_CHECK_OK(shmemu_##NAME##_put_signal(dst, src, 3, sig, 5,            \
                                               SHMEMU_SIGNAL_SET, to));        \
        PE_CHECK_OK(shmemu_##NAME##_put_signal_nbi(dst + 3, src + 3, 2, sig, 1, \
                                                   SHMEMU_SIGNAL_ADD, to));    \
        PE_CHECK_EQ(shmemu_signal_wait_until(sig, SHMEMU_CMP_EQ, 6), 6);       \
        int from = (me - 1 + np) % np;                                         \
        for (int i = 0; i < 5; i++)                                            \
            PE_CHECK(dst[i] == (TYPE)(from * 7 + i));                          \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        shmemu_free(sig);                                                      \
        shmemu_free(dst);                                                      \
        return 0;                                                              \
    }
SHMEMU_RMA_TYPES(X)
#undef X

static int body_typed(void *arg)
{
    (void)arg;
    int rc = 0;
#define X(NAME, TYPE) rc |= typed_##NAME();
    SHMEMU_RMA_TYPES(X)
#undef X
    return rc;
}

static void test_typed(void **state)
{
    (void)state;
    th_run(body_typed, NULL, TH_NPES(1, 2, 3), 0);
}

/* Signals with no data: every PE adds me + 1 to PE 0's word and sets its
 * right neighbour's second word to a value naming itself. */
static int body_set_add(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes(), right = (me + 1) % np;
    uint64_t *sig = shmemu_calloc(2, sizeof(uint64_t));
    PE_CHECK(sig != NULL);
    for (int round = 1; round <= 3; round++) {
        PE_CHECK_OK(shmemu_signal_add(&sig[0], (uint64_t)me + 1, 0));
        PE_CHECK_OK(shmemu_signal_set(&sig[1], (uint64_t)(round * 1000 + me), right));
        int left = (me - 1 + np) % np;
        uint64_t want = (uint64_t)(round * 1000 + left);
        PE_CHECK_EQ(shmemu_signal_wait_until(&sig[1], SHMEMU_CMP_EQ, want), want);
        PE_CHECK_OK(shmemu_barrier_all());
        if (me == 0)
            PE_CHECK_EQ(shmemu_signal_fetch(&sig[0]),
                        (uint64_t)round * (uint64_t)np * (uint64_t)(np + 1) / 2);
        PE_CHECK_OK(shmemu_barrier_all());
    }
    shmemu_free(sig);
    return 0;
}

static void test_set_add(void **state)
{
    (void)state;
    th_run(body_set_add, NULL, TH_NPES(1, 2, 3, 5), 0);
}

static int body_sig_errors(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    int np = shmemu_n_pes();
    char *data = shmemu_calloc(1, 64);
    uint64_t *sig = shmemu_calloc(2, sizeof(uint64_t)), local = 0;
    char priv[64] = {0};
    PE_CHECK_EQ(shmemu_putmem_signal(data, priv, 8, sig, 1, 7, 0), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_putmem_signal(data, priv, 8, (uint64_t *)(void *)(data + 4), 1,
                                     SHMEMU_SIGNAL_SET, 0),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_putmem_signal(data, priv, 8, &local, 1, SHMEMU_SIGNAL_SET, 0),
                SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_putmem_signal(data, priv, 16, (uint64_t *)(void *)(data + 8), 1,
                                     SHMEMU_SIGNAL_SET, 0),
                SHMEMU_EINVAL); /* overlaps dest */
    PE_CHECK_EQ(shmemu_putmem_signal(data, priv, 65, sig, 1, SHMEMU_SIGNAL_SET, 0),
                SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_putmem_signal(data, NULL, 8, sig, 1, SHMEMU_SIGNAL_SET, 0),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_putmem_signal(data, priv, 8, sig, 1, SHMEMU_SIGNAL_SET, np),
                SHMEMU_EPE);
    PE_CHECK_EQ(shmemu_signal_set((uint64_t *)(void *)(data + 4), 1, 0), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_signal_add(&local, 1, 0), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_signal_add(sig, 1, np), SHMEMU_EPE);
    PE_CHECK_EQ(shmemu_signal_fetch(&local), 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_signal_wait_until(sig, 99, 0), 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK_EQ(sig[0], 0); /* no signal was delivered by a failed call */
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(sig);
    shmemu_free(data);
    return 0;
}

static void test_sig_errors(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_sig_errors, NULL, TH_NPES(1, 2), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_putmem_signal: sig_op 7 is neither"));
    assert_non_null(strstr(err, "is not 8-byte aligned"));
    assert_non_null(strstr(err, "shmemu_putmem_signal: sig_addr 0x"));
    assert_non_null(strstr(err, "overlaps dest"));
    assert_non_null(strstr(err, "shmemu_signal_wait_until: cmp 99 is not one of"));
    assert_non_null(strstr(err, "shmemu_signal_set: sig_addr 0x"));
    assert_non_null(strstr(err, "shmemu_signal_add: sig_addr 0x"));
    assert_non_null(strstr(err, "shmemu_signal_add: pe 2 is not a PE of this job"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ordering),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_typed),
        cmocka_unit_test(test_sig_errors),
        cmocka_unit_test(test_set_add),
    };
    return cmocka_run_group_tests_name("signal", tests, NULL, NULL);
}
