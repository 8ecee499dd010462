/* test_device.c - device discipline (SHMEMU_CHECK=device): on shm,
 * symmetric memory behaves as a GPU's does to the host.  A host load or
 * store on it (directly, or through shmemu_ptr) ends the job with
 * SHMEMU_EDEVICE and one report naming the PE, the heap, the block, the
 * kind of access and the code; the library's own calls keep working (the
 * whole device-heap suite runs on it in test_staged).  The transports whose
 * heaps really are not host memory (staged here; cuda in test_cuda) give
 * the same report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

static int launch_device(int npes, int (*body)(void *), const char *check)
{
    shmemu_opts o = {.npes = npes, .transport = "shm", .heap_size = TH_HEAP,
                     .check = check};
    return shmemu_launch(&o, body, NULL);
}

/* These cases plant the host access that faults: under valgrind that
 * access is an invalid read or write of its own, before the report. */
static void need_real_faults(void)
{
    if (th_under_valgrind()) {
        printf("# skipped under valgrind: the case faults on purpose, which valgrind "
               "reports as an invalid access\n");
        skip();
    }
}

/* Where the job runs: shm under SHMEMU_CHECK=device, or a transport whose
 * heaps the host cannot address, unchecked. */
static const char *on_tl = "shm";

/* PE n-1 stores into its own block (byte 12 of a 4096-byte block). */
static int __attribute__((noinline)) stores_on_heap(void *arg)
{
    (void)arg;
    int *x = shmemu_malloc(4096);
    PE_CHECK(x != NULL);
    int v = 5;
    PE_CHECK_OK(shmemu_putmem(x, &v, sizeof(v), (shmemu_my_pe() + 1) % shmemu_n_pes()));
    PE_CHECK_OK(shmemu_barrier_all());
    if (shmemu_my_pe() == shmemu_n_pes() - 1)
        ((volatile int *)x)[3] = 7;
    shmemu_barrier_all();
    return 0;
}

/* PE 0 loads a peer's word through shmemu_ptr (a device address). */
static int __attribute__((noinline)) loads_through_ptr(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    long *x = shmemu_calloc(16, sizeof(long));
    PE_CHECK(x != NULL);
    long *peer = shmemu_ptr(x + 5, (me + 1) % n);
    PE_CHECK(peer != NULL);
    PE_CHECK_EQ(shmemu_heap_host_accessible(), 0);
    PE_CHECK_OK(shmemu_barrier_all());
    long got = 0;
    if (me == 0)
        got = *(volatile long *)peer;
    shmemu_barrier_all();
    return (int)got;
}

static void expect_report(int (*body)(void *), int npes, const char *what, int owner,
                          const char *block, const char *site)
{
    th_capture_start();
    int device_view = strcmp(on_tl, "shm") == 0;
    int st = device_view ? launch_device(npes, body, "device")
                         : th_launch(on_tl, npes, TH_HEAP, body, NULL);
    char *err = th_capture_stop();
    char want[256];
    assert_int_equal(st, SHMEMU_EDEVICE);
    snprintf(want, sizeof(want), ": host %s of symmetric memory at 0x", what);
    if (!strstr(err, want))
        fail_msg("%d PEs: no '%s' in: %s", npes, want, err);
    snprintf(want, sizeof(want), "(PE %d's heap, %s) at %s+0x", owner, block, site);
    if (!strstr(err, want))
        fail_msg("%d PEs: no '%s' in: %s", npes, want, err);
    if (device_view)
        snprintf(want, sizeof(want), "under SHMEMU_CHECK=device symmetric memory is device "
                                     "memory; reach it with shmemu_getmem/putmem");
    else
        snprintf(want, sizeof(want), "on the %s transport symmetric memory is device memory; "
                                     "reach it with shmemu_getmem/putmem", on_tl);
    if (!strstr(err, want))
        fail_msg("%d PEs: no '%s' in: %s", npes, want, err);
    /* One report: the others only see the abort. */
    const char *first = strstr(err, "of symmetric memory at");
    if (strstr(first + 1, "of symmetric memory at"))
        fail_msg("%d PEs: reported twice: %s", npes, err);
    free(err);
}

static void test_store_reported(void **state)
{
    (void)state;
    need_real_faults();
    for (int npes = 1; npes <= 3; npes++) {
        char block[64];
        snprintf(block, sizeof(block), "byte 12 of the 4096-byte block at offset 0");
        expect_report(stores_on_heap, npes, "store", npes - 1, block, "stores_on_heap");
    }
}

/* PE 0 loads its own word, as a CPU-only program would. */
static int __attribute__((noinline)) loads_own(void *arg)
{
    (void)arg;
    long *x = shmemu_calloc(16, sizeof(long));
    PE_CHECK(x != NULL);
    PE_CHECK_OK(shmemu_barrier_all());
    long got = 0;
    if (shmemu_my_pe() == 0)
        got = ((volatile long *)x)[2];
    shmemu_barrier_all();
    return (int)got;
}

/* staged's heaps are addresses the host cannot touch (PEs are threads):
 * unchecked, a stray load or store is reported as under the check, not a
 * bare SIGSEGV that takes the whole process. */
static void test_staged_reported(void **state)
{
    (void)state;
    need_real_faults();
    on_tl = "staged";
    for (int npes = 1; npes <= 3; npes++) {
        expect_report(stores_on_heap, npes, "store", npes - 1,
                      "byte 12 of the 4096-byte block at offset 0", "stores_on_heap");
        expect_report(loads_own, npes, "load", 0, "byte 16 of the 128-byte block at offset 0",
                      "loads_own");
    }
    on_tl = "shm";
}

static void test_ptr_load_reported(void **state)
{
    (void)state;
    need_real_faults();
    for (int npes = 1; npes <= 3; npes += 2)
        expect_report(loads_through_ptr, npes, "load", 1 % npes,
                      "byte 40 of the 128-byte block at offset 0", "loads_through_ptr");
}

/* Correct code under device discipline combined with fuzzing and race
 * detection: passes; a planted bug is still caught. */
static int forgets_last(shmemu_team_t team, void *dest, const void *src, size_t count,
                        shmemu_dtype_t dtype, shmemu_op_t op)
{
    return shmemu_allreduce_ring(team, dest, src, count ? count - 1 : 0, dtype, op);
}

static void test_combined(void **state)
{
    (void)state;
    need_real_faults();
    shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE, .algo = "ring",
                             .fn = (void (*)(void))shmemu_allreduce_ring, .transport = "shm",
                             .check = "fuzz:3,race,device", .npes = 3, .count = 4099,
                             .dtype = SHMEMU_INT32, .op = SHMEMU_SUM, .seed = 5};
    shmemu_verify_result r;
    assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_OK);
    if (!r.passed)
        fail_msg("ring under fuzz,race,device: %s", r.reason);
    vc.algo = "planted";
    vc.fn = (void (*)(void))forgets_last;
    assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_OK);
    assert_false(r.passed);
    assert_int_equal(r.index, 4098);
}

/* A user's allreduce written for the CPU: memcpy from its own src, a host
 * loop over dest. */
static int __attribute__((noinline)) cpu_only_allreduce(shmemu_team_t team, void *dest,
                                                        const void *src, size_t count,
                                                        shmemu_dtype_t dtype, shmemu_op_t op)
{
    (void)team, (void)dtype, (void)op;
    memcpy(dest, src, count * sizeof(int32_t));
    return shmemu_barrier_all();
}

static void test_verifier_reports(void **state)
{
    (void)state;
    need_real_faults();
    shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE, .algo = "cpu_only",
                             .fn = (void (*)(void))cpu_only_allreduce, .transport = "shm",
                             .check = "device", .npes = 2, .count = 1000,
                             .dtype = SHMEMU_INT32, .op = SHMEMU_SUM, .seed = 1};
    shmemu_verify_result r;
    th_capture_start();
    assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_OK);
    char *err = th_capture_stop();
    assert_false(r.passed);
    if (!strstr(r.reason, "loaded or stored symmetric memory on the host"))
        fail_msg("reason: %s", r.reason);
    /* memcpy is libc's; the report names the user's function that called it */
    if (!strstr(err, ", called from cpu_only_allreduce+0x"))
        fail_msg("report: %s", err);
    free(err);
}

static int never_runs(void *arg)
{
    (void)arg;
    return 1;
}

static void test_needs_shm(void **state)
{
    (void)state;
    th_capture_start();
    shmemu_opts o = {.npes = 2, .transport = "local", .check = "device"};
    int st = shmemu_launch(&o, never_runs, NULL);
    char *err = th_capture_stop();
    assert_int_equal(st, SHMEMU_EINVAL);
    assert_string_equal(err, "shmemu: shmemu_launch: SHMEMU_CHECK=device runs on the shm "
                             "transport, not 'local' (select it with SHMEMU_TRANSPORT=shm or "
                             "opts.transport)\n");
    free(err);
    th_capture_start();
    o.transport = "shm";
    o.check = "device:3";
    st = shmemu_launch(&o, never_runs, NULL);
    free(th_capture_stop());
    assert_int_equal(st, SHMEMU_EINVAL);
}

/* A program started by shmemu-run that reads its heap with a plain load. */
static void test_spmd_reported(void **state)
{
    (void)state;
    need_real_faults();
    char cmd[4096], out[4096] = "";
    char file[] = "/tmp/shmemu-test-device-XXXXXX";
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    snprintf(cmd, sizeof(cmd),
             "SHMEMU_CHECK=device timeout 60 %s/shmemu-run -n 2 %s/examples/hello_spmd "
             ">%s 2>&1",
             th_build_dir(), th_build_dir(), file);
    int rc = system(cmd);
    ssize_t n = read(fd, out, sizeof(out) - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(file);
    assert_true(WIFEXITED(rc));
    assert_int_not_equal(WEXITSTATUS(rc), 0);
    assert_int_not_equal(WEXITSTATUS(rc), 124);
    if (!strstr(out, ": host load of symmetric memory at 0x") ||
        !strstr(out, "'s heap, byte 0 of the 8-byte block at offset 0) at main+0x"))
        fail_msg("shmemu-run said: %s", out);
}

/* shmemu-verify inside a job (shmemu-run) under device discipline: its own
 * bookkeeping on symmetric memory goes through the library too, so the
 * cases run and pass (as on cuda, where the heap is GPU memory). */
static void test_verify_in_job(void **state)
{
    (void)state;
    char *argv[] = {th_tool("shmemu-run"), "-t", "shm", "-n", "3", "--timeout", "100", "--",
                    th_tool("shmemu-verify"), "--collective", "allreduce", "--algo", "ring",
                    "--npes", "3", "--count", "1,4097", "--dtype", "int32,bfloat16",
                    "--transport", "shm", NULL};
    const char *env[] = {"SHMEMU_CHECK=device", NULL};
    static struct th_outcome o;
    th_run_cmd(argv, env, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 ||
        !strstr(o.out, "inside a job of 3 PEs on shm") || !strstr(o.out, " passed, 0 failed"))
        fail_msg("shmemu-verify in a job said: %s", o.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_reported),
        cmocka_unit_test(test_ptr_load_reported),
        cmocka_unit_test(test_staged_reported),
        cmocka_unit_test(test_combined),
        cmocka_unit_test(test_verifier_reports),
        cmocka_unit_test(test_needs_shm),
        cmocka_unit_test(test_spmd_reported),
        cmocka_unit_test(test_verify_in_job),
    };
    return cmocka_run_group_tests_name("device discipline", tests, NULL, NULL);
}
