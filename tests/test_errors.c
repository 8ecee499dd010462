/* test_errors.c - every error path of the foundation: exact status codes,
 * the one-line messages, RETURN and ABORT modes. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* RETURN mode: each bad call returns its status, records it, leaves memory
 * alone; good calls in between still work. */
static int body_return_mode(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    char *blk = shmemu_calloc(1, 1024);
    char *after = shmemu_calloc(1, 64);
    char priv[8192] = {0}, stackvar[16];
    PE_CHECK(blk && after);

    PE_CHECK_EQ(shmemu_putmem(blk, priv, 8, np), SHMEMU_EPE);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EPE);
    PE_CHECK_EQ(shmemu_putmem(blk, priv, 8, -1), SHMEMU_EPE);
    PE_CHECK_EQ(shmemu_getmem(priv, blk, 8, np + 5), SHMEMU_EPE);

    /* past the end of the block: the neighbour block must stay untouched */
    PE_CHECK_EQ(shmemu_putmem(blk + 1000, priv, 4096, me), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_putmem(blk + 1020, priv, 5, me), SHMEMU_ERANGE);
    PE_CHECK_OK(shmemu_putmem(blk + 1020, priv, 4, me)); /* exactly fits */
    PE_CHECK_EQ(shmemu_getmem(priv, blk + 1, 1024, me), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_putmem(stackvar, priv, 4, me), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_getmem(priv, stackvar, 4, me), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_putmem(blk - 64, priv, 4, me), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_int_put((int *)(void *)blk, (int *)(void *)priv, 257, me),
                SHMEMU_ERANGE);
    for (int i = 0; i < 64; i++)
        PE_CHECK_EQ(after[i], 0);

    PE_CHECK_EQ(shmemu_putmem(blk, NULL, 1, me), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_getmem(NULL, blk, 1, me), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_putmem(NULL, priv, 1, me), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_long_put((long *)(void *)blk, (long *)(void *)priv,
                                SIZE_MAX / 4, me),
                SHMEMU_EINVAL); /* nelems * 8 overflows */
    PE_CHECK_OK(shmemu_putmem(NULL, NULL, 0, me)); /* 0 bytes: a no-op */
    PE_CHECK_OK(shmemu_getmem(stackvar, stackvar, 0, me));
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_OK);

    /* a get with a bad source returns 0 and records the status */
    PE_CHECK_EQ(shmemu_int_g((int *)(void *)stackvar, me), 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_double_g((double *)(void *)blk, np), 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EPE);

    /* strided: every block is checked before the first moves */
    memset(priv, 0x5a, 64);
    PE_CHECK_EQ(shmemu_ibput(blk, priv, 1, 2, 2, 2, 1, me), SHMEMU_EINVAL); /* overlap */
    PE_CHECK_EQ(shmemu_ibput(blk, priv, 205, 1, 4, 6, 1, me), SHMEMU_ERANGE); /* last out */
    PE_CHECK_EQ(shmemu_ibput(blk + 8, priv, -9, 1, 1, 2, 1, me), SHMEMU_ERANGE); /* first */
    PE_CHECK_EQ(shmemu_long_iput((long *)(void *)blk, (long *)(void *)priv,
                                 PTRDIFF_MAX / 2, 1, 3, me),
                SHMEMU_EINVAL); /* the span overflows */
    PE_CHECK_EQ(shmemu_ibput(blk, NULL, 1, 1, 1, 2, 4, me), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_ibput(blk, priv, 1, 1, 1, 2, 0, me), SHMEMU_EINVAL); /* elsize 0 */
    PE_CHECK_EQ(shmemu_ibget(priv, blk, 1, 1, 1, 2, 4, np), SHMEMU_EPE);
    PE_CHECK_EQ(shmemu_ibget(priv, blk, 0, 1, 1, 2, 4, me), SHMEMU_EINVAL); /* dest repeats */
    for (int i = 0; i < 1024; i++)
        PE_CHECK_EQ(blk[i], 0);
    PE_CHECK_OK(shmemu_ibput(blk, priv, 1, 1, 0, 5, 1, me)); /* empty blocks: a no-op */
    PE_CHECK_OK(shmemu_ibput(blk, NULL, 1, 1, 3, 0, 1, me));
    PE_CHECK_OK(shmemu_ibput(blk + 1021, priv, 1, 1, 3, 1, 1, me)); /* exactly fits */
    PE_CHECK_EQ(blk[1023], 0x5a);
    blk[1021] = blk[1022] = blk[1023] = 0;

    /* after free, the block's addresses are no longer symmetric */
    shmemu_free(after);
    PE_CHECK_EQ(shmemu_putmem(after, priv, 1, me), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_set_error_mode(42), SHMEMU_EINVAL);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(blk);
    return 0;
}

static void test_return_mode(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_return_mode, NULL, TH_NPES(1, 2, 3, 4), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: PE 0/4 shmemu_putmem: pe 4 is not a PE of "
                                "this job (valid: 0..3)\n"));
    assert_non_null(strstr(err, "shmemu: PE 1/2 shmemu_putmem: pe -1 is not a PE"));
    assert_non_null(strstr(err, "+4096 is outside the symmetric heap (block 0x"));
    assert_non_null(strstr(err, "+1024)\n"));
    assert_non_null(strstr(err, "shmemu_int_put: dest 0x"));
    assert_non_null(strstr(err, "+1028 is outside the symmetric heap (block"));
    assert_non_null(strstr(err, "shmemu_putmem: src is NULL with 1 bytes\n"));
    assert_non_null(strstr(err, "shmemu_ibput: dst 1 is shorter than a block (bsize 2): "
                                "the blocks written would overlap\n"));
    assert_non_null(strstr(err, "shmemu_long_iput: dst 4611686018427387903 over 3 blocks "
                                "of 8-byte elements overflows the address space\n"));
    assert_non_null(strstr(err, "shmemu_ibput: src is NULL with 2 blocks\n"));
    assert_non_null(strstr(err, "shmemu_ibput: elsize is 0\n"));

    assert_non_null(strstr(err, "shmemu_putmem: dest is NULL with 1 bytes\n"));
    assert_non_null(strstr(err, "shmemu_long_put: nelems"));
    assert_non_null(strstr(err, "overflows size_t\n"));
    assert_non_null(strstr(err, "(not in an allocated block: heap offset"));
    assert_non_null(strstr(err, "shmemu_set_error_mode: mode 42 is neither"));
    free(err);
}

/* ABORT mode under shmemu_launch: the failing PE stops, the others are
 * released from the barrier they wait in, and the launcher gets the status. */
static int body_abort(void *arg)
{
    int *reached = arg;
    if (shmemu_my_pe() == 1) {
        char x = 0;
        shmemu_putmem(&x, &x, 1, 0); /* not symmetric */
        th_pe_fail(__FILE__, __LINE__, "returned from a failed call in ABORT mode");
    }
    shmemu_barrier_all(); /* PE 1 never arrives */
    __atomic_fetch_add(reached, 1, __ATOMIC_RELAXED);
    return 0;
}

static void test_abort_launch(void **state)
{
    (void)state;
    for (int t = 0; t < th_transport_count(); t++) {
        int reached = 0;
        th_capture_start();
        int rc = th_launch(th_transport(t), 4, 0, body_abort, &reached);
        char *err = th_capture_stop();
        assert_int_equal(rc, SHMEMU_ERANGE);
        assert_int_equal(reached, 0);
        assert_non_null(strstr(err, "shmemu: PE 1/4 shmemu_putmem: dest 0x"));
        assert_null(strstr(err, "FAIL"));
        assert_null(strstr(err, "PE 0/4")); /* released silently */
        free(err);
    }
}

/* ABORT mode in an SPMD process: the process exits non-zero with the line. */
static void abort_spmd_child(void)
{
    th_leave_launcher(); /* a process of its own, even under mpirun */
    if (shmemu_init() != SHMEMU_OK)
        _exit(50);
    int *x = shmemu_malloc(sizeof(int));
    shmemu_int_p(x + 1, 7, 0); /* one past the block */
    _exit(51);                 /* not reached */
}

static void test_abort_spmd(void **state)
{
    (void)state;
    static struct th_outcome o;
    th_fork_cmd(abort_spmd_child, &o);
    assert_true(WIFEXITED(o.status));
    assert_int_equal(WEXITSTATUS(o.status), 1);
    assert_non_null(strstr(o.out, "shmemu: PE 0/1 shmemu_int_p: dest 0x"));
    assert_non_null(strstr(o.out, "+4 is outside the symmetric heap (block 0x"));
    assert_non_null(strstr(o.out, "+4)\n"));
}

/* SHMEMU_ERRORS=return from the environment. */
static int body_env_return(void *arg)
{
    (void)arg;
    char c = 0;
    PE_CHECK_EQ(shmemu_putmem(&c, &c, 1, 0), SHMEMU_ERANGE);
    return 0;
}

static void test_env_errors(void **state)
{
    (void)state;
    setenv("SHMEMU_ERRORS", "return", 1);
    th_capture_start();
    int rc = th_launch(th_transport(0), 2, 0, body_env_return, NULL);
    setenv("SHMEMU_ERRORS", "sometimes", 1);
    int rc2 = th_launch(th_transport(0), 2, 0, body_env_return, NULL);
    unsetenv("SHMEMU_ERRORS");
    setenv("SHMEMU_HEAP_SIZE", "12 parsecs", 1);
    shmemu_opts o = {.npes = 2};
    int rc3 = shmemu_launch(&o, body_env_return, NULL);
    setenv("SHMEMU_HEAP_SIZE", "-5M", 1);
    int rc4 = shmemu_launch(&o, body_env_return, NULL);
    unsetenv("SHMEMU_HEAP_SIZE");
    char *err = th_capture_stop();
    assert_int_equal(rc, 0);
    assert_int_equal(rc2, SHMEMU_EINVAL);
    assert_int_equal(rc3, SHMEMU_EINVAL);
    assert_int_equal(rc4, SHMEMU_EINVAL);
    assert_non_null(strstr(err, "shmemu: shmemu_launch: SHMEMU_ERRORS='sometimes' is "
                                "malformed"));
    assert_non_null(strstr(err, "SHMEMU_HEAP_SIZE='12 parsecs' is malformed"));
    assert_non_null(strstr(err, "SHMEMU_HEAP_SIZE='-5M' is malformed"));
    free(err);
}

static int body_nothing(void *arg)
{
    (void)arg;
    return 0;
}

/* Bad launches return a status and say why; nothing is left running. */
static void test_bad_launch(void **state)
{
    (void)state;
    th_capture_start();
    shmemu_opts o = {.npes = 0};
    assert_int_equal(shmemu_launch(&o, body_nothing, NULL), SHMEMU_EINVAL);
    o.npes = -3;
    assert_int_equal(shmemu_launch(&o, body_nothing, NULL), SHMEMU_EINVAL);
    assert_int_equal(shmemu_launch(NULL, body_nothing, NULL), SHMEMU_EINVAL);
    o.npes = 2;
    assert_int_equal(shmemu_launch(&o, NULL, NULL), SHMEMU_EINVAL);
    o.transport = "infiniband";
    assert_int_equal(shmemu_launch(&o, body_nothing, NULL), SHMEMU_EINVAL);
    assert_int_equal(shmemu_last_status(), SHMEMU_EINVAL);
    o.transport = NULL;
    o.heap_size = SIZE_MAX / 2;
    assert_int_equal(shmemu_launch(&o, body_nothing, NULL), SHMEMU_EINVAL);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: shmemu_launch: opts->npes is 0 (must be"));
    assert_non_null(strstr(err, "shmemu: shmemu_launch: opts->npes is -3"));
    assert_non_null(strstr(err, "shmemu: shmemu_launch: opts is NULL"));
    assert_non_null(strstr(err, "shmemu: shmemu_launch: pe_main is NULL"));
    assert_non_null(strstr(err, "unknown transport 'infiniband' (known: local"));
    assert_non_null(strstr(err, "is too large (set it with opts.heap_size or "
                                "SHMEMU_HEAP_SIZE)"));
    free(err);
}

/* Calls from a thread that is not a PE fail cleanly (RETURN semantics: there
 * is no job to abort). */
static void test_outside_pe(void **state)
{
    (void)state;
    char c = 0;
    th_capture_start();
    assert_int_equal(shmemu_putmem(&c, &c, 1, 0), SHMEMU_EINVAL);
    assert_int_equal(shmemu_barrier_all(), SHMEMU_EINVAL);
    assert_null(shmemu_malloc(8));
    assert_int_equal(shmemu_last_status(), SHMEMU_EINVAL);
    assert_int_equal(shmemu_int_g(&(int){0}, 0), 0);
    assert_int_equal(shmemu_finalize(), SHMEMU_EINVAL);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: shmemu_putmem: called outside a PE"));
    assert_non_null(strstr(err, "shmemu: shmemu_malloc: called outside a PE"));
    assert_int_equal(shmemu_my_pe(), -1);
    assert_int_equal(shmemu_n_pes(), -1);
    assert_null(shmemu_transport_name());
    free(err);
}

static void test_strerror(void **state)
{
    (void)state;
    assert_string_equal(shmemu_strerror(SHMEMU_OK), "success");
    assert_string_equal(shmemu_strerror(SHMEMU_ERANGE),
                        "address range outside the symmetric heap or block");
    assert_string_equal(shmemu_strerror(SHMEMU_ETIMEDOUT), "timed out");
    assert_string_equal(shmemu_strerror(12345), "unknown status");
    /* every code has its own text */
    for (int a = SHMEMU_ETIMEDOUT; a <= 0; a++)
        for (int b = a + 1; b <= 0; b++)
            assert_string_not_equal(shmemu_strerror(a), shmemu_strerror(b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_return_mode), cmocka_unit_test(test_abort_launch),
        cmocka_unit_test(test_abort_spmd),  cmocka_unit_test(test_env_errors),
        cmocka_unit_test(test_bad_launch),  cmocka_unit_test(test_outside_pe),
        cmocka_unit_test(test_strerror),
    };
    return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
