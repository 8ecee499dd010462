/* test_cuda.c - the cuda transport where no GPU answers (CI): it is listed
 * with CUDA's own reason, selecting it ends with SHMEMU_ENODEV and that
 * reason (never a crash or a hang), a damaged plugin is named, and the
 * stream-ordered calls refuse transports without streams.  Where a GPU is
 * present, a CUDA program's kernels work on peers' heaps (test_kernels),
 * and test_staged runs the device-heap suite on cuda. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "shmemu_cuda.h"

/* cuda's entry in the transport list: usable, and why not. */
static int cuda_info(char *why, size_t len)
{
    return th_transport_usable("cuda", why, len);
}

static int plugin_built(void)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof(path), "%s/libshmemu-cuda.so", th_build_dir());
    return stat(path, &st) == 0;
}

static void test_listed_with_reason(void **state)
{
    (void)state;
    char why[256];
    if (cuda_info(why, sizeof(why))) {
        th_skip("a GPU answers here: the no-device path is not reachable");
    }
    if (plugin_built()) {
        /* "no device (<CUDA's error string>)" */
        size_t n = strlen(why);
        if (strncmp(why, "no device (", 11) != 0 || n < 14 || why[n - 1] != ')')
            fail_msg("reason is '%s'", why);
    } else if (strncmp(why, "not built (no libshmemu-cuda.so in ", 35) != 0) {
        fail_msg("reason is '%s'", why);
    }
}

static int never_runs(void *arg)
{
    (void)arg;
    fprintf(stderr, "a PE ran\n");
    return 1;
}

static void test_launch_enodev(void **state)
{
    (void)state;
    char why[256], want[400];
    if (cuda_info(why, sizeof(why)))
        th_skip("a GPU answers here: the no-device path is not reachable");
    snprintf(want, sizeof(want), "shmemu: shmemu_launch: transport 'cuda' is unavailable here: %s\n",
             why);
    for (int npes = 1; npes <= 3; npes++) {
        th_capture_start();
        shmemu_opts o = {.npes = npes, .transport = "cuda"};
        int st = shmemu_launch(&o, never_runs, NULL);
        char *err = th_capture_stop();
        assert_int_equal(st, SHMEMU_ENODEV);
        assert_string_equal(err, want);
        free(err);
    }
}

/* Run cmd; its exit status and what it wrote (stdout and stderr). */
static int run_cmd(const char *cmd, char *out, size_t len)
{
    char file[] = "/tmp/shmemu-test-cuda-XXXXXX";
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    char full[8192];
    snprintf(full, sizeof(full), "%s >%s 2>&1", cmd, file);
    int rc = system(full);
    FILE *f = fopen(file, "r");
    size_t n = f ? fread(out, 1, len - 1, f) : 0;
    out[n] = '\0';
    if (f)
        fclose(f);
    unlink(file);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

static void test_shmemu_run_enodev(void **state)
{
    (void)state;
    char why[256], cmd[4096], out[2048];
    if (cuda_info(why, sizeof(why)))
        th_skip("a GPU answers here: the no-device path is not reachable");
    snprintf(cmd, sizeof(cmd), "timeout 60 %s/shmemu-run -t cuda -n 2 %s/examples/hello_spmd",
             th_build_dir(), th_build_dir());
    int rc = run_cmd(cmd, out, sizeof(out));
    /* refused before anything starts: one line, the usage error's status */
    char want[512];
    snprintf(want, sizeof(want), "shmemu-run: -t cuda: the transport cannot run here: %s\n", why);
    assert_int_equal(rc, 2);
    if (strcmp(out, want) != 0)
        fail_msg("shmemu-run said: %s\nwanted: %s", out, want);
}

/* A file that is not our plugin is named, not loaded blindly. */
static void test_wrong_plugin(void **state)
{
    (void)state;
    char cmd[4096], out[4096];
    snprintf(cmd, sizeof(cmd),
             "SHMEMU_CUDA_PLUGIN=%s/libshmemu.so %s/shmemu-info", th_build_dir(),
             th_build_dir());
    assert_int_equal(run_cmd(cmd, out, sizeof(out)), 0);
    if (!strstr(out, "libshmemu.so is not a shmemu " SHMEMU_VERSION_STRING " CUDA plugin"))
        fail_msg("shmemu-info said: %s", out);
    snprintf(cmd, sizeof(cmd), "SHMEMU_CUDA_PLUGIN=/nonexistent/x.so %s/shmemu-info",
             th_build_dir());
    assert_int_equal(run_cmd(cmd, out, sizeof(out)), 0);
    if (!strstr(out, "cuda   SHMEMU_CUDA_PLUGIN=/nonexistent/x.so: no such file"))
        fail_msg("shmemu-info said: %s", out);
}

/* On transports without streams: SHMEMU_ENOTSUP and one line each. */
static int body_no_streams(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    char *sym = shmemu_malloc(64);
    uint64_t *sig = shmemu_calloc(1, 8);
    PE_CHECK(sym && sig);
    char buf[64] = {0};
    PE_CHECK_EQ(shmemu_putmem_on_stream(sym, buf, 8, (me + 1) % n, NULL), SHMEMU_ENOTSUP);
    PE_CHECK_EQ(shmemu_getmem_on_stream(buf, sym, 1, me, NULL), SHMEMU_ENOTSUP);
    PE_CHECK_EQ(shmemu_putmem_signal_on_stream(sym, buf, 0, sig, 1, SHMEMU_SIGNAL_SET, me, NULL),
                SHMEMU_ENOTSUP);
    PE_CHECK_EQ(shmemu_quiet_on_stream(NULL), SHMEMU_ENOTSUP);
    PE_CHECK_EQ(shmemu_barrier_all_on_stream(NULL), SHMEMU_ENOTSUP);
    PE_CHECK_EQ(shmemu_my_device(), -1);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ENOTSUP);
    /* Misuse is found before the transport is asked. */
    PE_CHECK_EQ(shmemu_putmem_on_stream(sym, buf, 8, n, NULL), SHMEMU_EPE);
    PE_CHECK_EQ(shmemu_putmem_on_stream(sym, buf, 65, me, NULL), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_putmem_signal_on_stream(sym, buf, 8, NULL, 1, 0, me, NULL),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_putmem_signal_on_stream(sym, buf, 8, sig, 1, 7, me, NULL),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_putmem_signal_on_stream(sig, buf, 8, sig, 1, SHMEMU_SIGNAL_ADD, me,
                                               NULL),
                SHMEMU_EINVAL); /* the signal inside the data */
    PE_CHECK_EQ(shmemu_getmem_on_stream(NULL, sym, 8, me, NULL), SHMEMU_EINVAL);
    PE_CHECK_OK(shmemu_putmem_on_stream(sym, buf, 0, me, NULL)); /* nothing to move */
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(sig);
    shmemu_free(sym);
    return 0;
}

static void test_streams_refused(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_no_streams, NULL, TH_NPES(1, 3), TH_HEAP);
    char *err = th_capture_stop();
    char first[96]; /* every transport th_run used refused alike; the first one named */
    snprintf(first, sizeof(first), " shmemu_putmem_on_stream: the %s transport has no streams",
             th_transport(0));
    if (!strstr(err, first) ||
        !strstr(err, " transport has no streams (stream-ordered calls need a GPU transport: "
                     "cuda)") ||
        !strstr(err, "shmemu_barrier_all_on_stream:") ||
        !strstr(err, "sig_op 7 is neither SHMEMU_SIGNAL_SET nor SHMEMU_SIGNAL_ADD") ||
        !strstr(err, "shmemu_putmem_signal_on_stream: sig_addr is NULL with 8 bytes") ||
        !strstr(err, "shmemu_putmem_signal_on_stream: sig_addr ") ||
        !strstr(err, " overlaps dest ") ||
        !strstr(err, "shmemu_getmem_on_stream: dest is NULL with 8 bytes"))
        fail_msg("refusals not reported: %s", err);
    free(err);
}

/* Where a GPU answers: a CUDA program of a user's kind (tests/cuda/kernels.cu:
 * kernels storing into and adding to peers' heaps through shmemu_ptr, a
 * stream-ordered put from device memory, an allreduce over kernel-written
 * data) on 1, 2, 3 and 8 PEs sharing the devices there are. */
static void test_kernels(void **state)
{
    (void)state;
    char why[256], cmd[4096], out[8192];
    if (!cuda_info(why, sizeof(why))) {
        th_skip("no GPU here (%s): the kernel program is not run", why);
    }
    struct stat st;
    snprintf(cmd, sizeof(cmd), "%s/tests/cuda_kernels", th_build_dir());
    if (stat(cmd, &st) != 0) { /* make leaves it out of sanitizer builds */
        th_skip("%s was not built (a sanitizer build, or no nvcc): not run", cmd);
    }
    static const int npes[] = {1, 2, 3, 8};
    for (size_t i = 0; i < sizeof(npes) / sizeof(npes[0]); i++) {
        snprintf(cmd, sizeof(cmd),
                 "timeout 150 %s/shmemu-run -t cuda -n %d --timeout 120 %s/tests/cuda_kernels",
                 th_build_dir(), npes[i], th_build_dir());
        int rc = run_cmd(cmd, out, sizeof(out));
        int oks = 0;
        for (const char *p = out; (p = strstr(p, ": ok\n")); p++)
            oks++;
        if (rc != 0 || oks != npes[i])
            fail_msg("%d PEs: exit %d, %d PEs ok: %s", npes[i], rc, oks, out);
    }
}

/* The kernel files of shmemu_device.h as nvcc built them (one source with
 * the CPU builds): on a CPU transport the launch says, in one line, that
 * they run on cuda (the first refusal ends the job); where a GPU answers,
 * the one-shot allreduce kernel and the spinning threads run there on 2 to
 * 4 PEs. */
static void test_device_api_nvcc(void **state)
{
    (void)state;
    char why[256], cmd[4096], out[8192], ar[1024], spin[1024];
    struct stat st;
    snprintf(ar, sizeof(ar), "%s/examples/device_allreduce_cuda", th_build_dir());
    snprintf(spin, sizeof(spin), "%s/tests/dev_spin_cuda", th_build_dir());
    if (stat(ar, &st) != 0 || stat(spin, &st) != 0)
        th_skip("the nvcc builds of the kernel files are not here (a sanitizer build, or no "
                "nvcc): not run");
    snprintf(cmd, sizeof(cmd), "SHMEMU_TRANSPORT=local %s 2", ar);
    int rc = run_cmd(cmd, out, sizeof(out));
    /* The first PE to refuse ends the job, so the other may be stopped
     * before it prints: one line from either PE is the whole verdict. */
    static const char refusal[] = " shmemu_launch_kernel: a kernel built with nvcc runs on the "
                                  "cuda transport (this job runs on local";
    char pe0[256], pe1[256];
    snprintf(pe0, sizeof(pe0), "PE 0/2%s", refusal);
    snprintf(pe1, sizeof(pe1), "PE 1/2%s", refusal);
    if (rc == 0 || (!strstr(out, pe0) && !strstr(out, pe1)))
        fail_msg("on local: exit %d: %s", rc, out);
    if (!cuda_info(why, sizeof(why)))
        th_skip("no GPU here (%s): the nvcc-built kernels are not run", why);
    for (int n = 2; n <= 4; n++) {
        snprintf(cmd, sizeof(cmd), "SHMEMU_TRANSPORT=cuda timeout 120 %s %d", ar, n);
        rc = run_cmd(cmd, out, sizeof(out));
        if (rc != 0 || !strstr(out, ": ok"))
            fail_msg("allreduce kernel, %d PEs: exit %d: %s", n, rc, out);
        snprintf(cmd, sizeof(cmd), "timeout 120 %s cuda %d", spin, n);
        rc = run_cmd(cmd, out, sizeof(out));
        if (rc != 0 || !strstr(out, "success"))
            fail_msg("spin kernels, %d PEs: exit %d: %s", n, rc, out);
    }
}

/* Where a GPU answers: hello_spmd reads its inbox with a plain load
 * (*inbox), which SHMEMU_CHECK=device reports on shm (test_device); on
 * cuda the load faults for real, and the report is the same one. */
static void test_host_load_reported(void **state)
{
    (void)state;
    char why[256], cmd[4096], out[8192];
    if (!cuda_info(why, sizeof(why)))
        th_skip("no GPU here (%s): a host load cannot fault on device memory", why);
    snprintf(cmd, sizeof(cmd),
             "timeout 90 %s/shmemu-run -t cuda -n 2 --timeout 60 %s/examples/hello_spmd",
             th_build_dir(), th_build_dir());
    int rc = run_cmd(cmd, out, sizeof(out));
    assert_int_not_equal(rc, 0);
    assert_int_not_equal(rc, 124);
    if (!strstr(out, ": host load of symmetric memory at 0x") ||
        !strstr(out, "'s heap, byte 0 of the 8-byte block at offset 0) at main+0x") ||
        !strstr(out, "on the cuda transport symmetric memory is device memory"))
        fail_msg("shmemu-run said: %s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listed_with_reason),
        cmocka_unit_test(test_launch_enodev),
        cmocka_unit_test(test_shmemu_run_enodev),
        cmocka_unit_test(test_wrong_plugin),
        cmocka_unit_test(test_streams_refused),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_device_api_nvcc),
        cmocka_unit_test(test_host_load_reported),
    };
    return cmocka_run_group_tests_name("cuda", tests, NULL, NULL);
}
