/* test_devcc.c - kernel files built with shmemu-devcc, as a user builds
 * them (tests/device/, examples/): run as programs, and as collectives
 * loaded by shmemu-verify --lib, plain, under fuzz and race and under
 * PCT schedules on sim, correct kernels passing and planted bugs caught.
 * Apart from test_kernels: these run whole tools, not timing-bound
 * catches, so they may share the machine with other programs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "shmemu_device.h"

/* The CPU transports that run kernels and that this pass selects
 * (SHMEMU_TEST_TRANSPORTS), for a tool's --transport; the test is skipped,
 * saying why, where none is. */
static char *kernel_transports(void)
{
    static char list[64];
    char why[256];
    if (!*th_transports_wanted("local,shm,sim", list, sizeof(list), why, sizeof(why)))
        th_skip("no transport that runs kernels on the CPU (local, shm, sim) is selected: %s",
                why);
    return list;
}

/* sim runs the explored schedules and the verdicts a seed fixes: 1 where
 * this pass selects it, else 0 after saying so. */
static int sim_wanted(const char *what)
{
    char why[256];
    if (th_transport_wanted("sim", why, sizeof(why)))
        return 1;
    printf("# %s: left out, sim is not run here: %s\n", what, why);
    return 0;
}

/* Kernel files built with shmemu-devcc, as a user builds them: device
 * threads spinning on plain volatile loads within a block, across blocks
 * and across PEs (the loop hook gives the others turns), and the example
 * one-shot allreduce, plain and under fuzz. */
static void test_devcc_programs(void **state)
{
    (void)state;
#ifdef TH_TSAN
    th_skip("dev_spin's volatile flags between PE threads are data races to ThreadSanitizer "
            "by definition (a GPU idiom, not C11's)");
#endif
    static const char *const transports[] = {"local", "shm", "sim"};
    (void)kernel_transports();
    for (size_t i = 0; i < 3; i++) {
        char why[200];
        if (!th_transport_wanted(transports[i], why, sizeof(why)))
            continue;
        struct th_outcome o;
        char *spin[] = {th_tool("tests/dev_spin"), (char *)transports[i], "3", NULL};
        th_run_cmd(spin, NULL, &o);
        if (o.status != 0)
            fprintf(stderr, "%s", o.out);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out, "success"));
        char tv[40];
        snprintf(tv, sizeof(tv), "SHMEMU_TRANSPORT=%s", transports[i]);
        const char *plain[] = {tv, NULL}, *fuzz[] = {tv, "SHMEMU_CHECK=fuzz:5", NULL};
        char *ar[] = {th_tool("examples/device_allreduce"), "3", NULL};
        for (int f = 0; f < 2; f++) {
            th_run_cmd(ar, f ? fuzz : plain, &o);
            if (o.status != 0)
                fprintf(stderr, "%s", o.out);
            assert_int_equal(o.status, 0);
            assert_non_null(strstr(o.out, "on 3 PEs"));
            assert_non_null(strstr(o.out, ": ok"));
        }
    }
}

/* A matrix of jobs of PE threads is too slow under ThreadSanitizer. */
static void skip_matrix_under_tsan(void)
{
#ifdef TH_TSAN
    th_skip("the verifier's PEs are threads of one process here, and every case of the "
            "matrix is a job: the suite's TSan budget runs the kernels in test_rma and on");
#endif
}

/* A user's kernel behind a collective's signature, loaded by the verifier
 * (the tutorial's chapter 5): the correct one passes the quick matrix on
 * every CPU transport, plain and under fuzz and race, and sim's PCT
 * exploration; the one without its last barrier fails with wrong results. */
static void test_verify_kernel_lib(void **state)
{
    (void)state;
    skip_matrix_under_tsan();
    char lib[512];
    snprintf(lib, sizeof(lib), "%s", th_tool("examples/libmy_device_allreduce.so"));
    char *base[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                    "--dtype", "float", "--op", "sum", "--in-place", "no", "--quick",
                    "--transport", kernel_transports(), "--symbol", "my_device_allreduce",
                    NULL, NULL, NULL, NULL};
    struct th_outcome o;
    th_run_cmd(base, NULL, &o);
    if (o.status != 0)
        fail_msg("plain: exit %d: %s", o.status, o.out);
    assert_non_null(strstr(o.out, "allreduce      my_device_allreduce "));
    assert_non_null(strstr(o.out, " passed, 0 failed"));
    base[16] = "--fuzz";
    base[17] = "5";
    base[18] = "--race";
    th_run_cmd(base, NULL, &o);
    if (o.status != 0)
        fail_msg("fuzz and race: exit %d: %s", o.status, o.out);
    assert_non_null(strstr(o.out, "checker: fuzz seeds 1..5 and race"));
    assert_non_null(strstr(o.out, " passed, 0 failed"));
    if (!sim_wanted("PCT schedules and the buggy kernel"))
        return;
    /* PCT runs the highest PE until it blocks: a PE whose device threads
     * all wait gives way, or it starved the PEs it waited for. */
    char *pct[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                   "--dtype", "float", "--op", "sum", "--in-place", "no", "--npes", "3",
                   "--count", "7", "--symbol", "my_device_allreduce", "--explore", "10",
                   "--strategy", "pct:3", "--timeout", "20", NULL};
    th_run_cmd(pct, NULL, &o);
    if (o.status != 0)
        fail_msg("explore pct:3: exit %d: %s", o.status, o.out);
    assert_non_null(strstr(o.out, "2 passed, 0 failed"));
    base[15] = "my_device_allreduce_buggy";
    base[16] = NULL;
    base[13] = "sim"; /* the same verdict every run */
    th_run_cmd(base, NULL, &o);
    assert_true(WIFEXITED(o.status));
    assert_int_equal(WEXITSTATUS(o.status), 1);
    assert_non_null(strstr(o.out, "wrong result: dest["));
    assert_null(strstr(o.out, " passed, 0 failed"));
}

/* Kernels that poll volatile flags between PE threads race by C11's
 * definition, which ThreadSanitizer applies (a GPU idiom, not C11's). */
static void skip_volatile_flags_under_tsan(void)
{
#ifdef TH_TSAN
    th_skip("volatile flags between PE threads are data races to ThreadSanitizer by "
            "definition (a GPU idiom, not C11's)");
#endif
}

/* Kernels synchronised as vLLM's custom allreduce is (tests/device/
 * flag_barriers.cu): per-block counters raised with volatile stores and
 * polled with volatile loads, a last barrier whose thread 0 stores the
 * block's next count while its warp-mates have just read the old one.
 * Correct on a GPU, where a warp runs together: the quick matrix passes on
 * every CPU transport, plain, under fuzz and race, and under PCT schedules
 * on sim (a PE polling volatile flags gives way), with no report. */
static void test_verify_flag_barriers(void **state)
{
    (void)state;
    skip_volatile_flags_under_tsan();
    char lib[512];
    snprintf(lib, sizeof(lib), "%s", th_tool("tests/libflag_barriers.so"));
    static const char *const symbols[] = {"flag_oneshot", "flag_twoshot"};
    for (int s = 0; s < 2; s++) {
        char *base[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                        "--dtype", "float", "--op", "sum", "--in-place", "no", "--quick",
                        "--team", "world", "--transport", kernel_transports(), "--symbol",
                        (char *)symbols[s], NULL};
        struct th_outcome o;
        th_run_cmd(base, NULL, &o);
        if (o.status != 0)
            fail_msg("%s plain: exit %d: %s", symbols[s], o.status, o.out);
        assert_non_null(strstr(o.out, " passed, 0 failed"));
        /* checked: 3 and 5 PEs, the sizes of a part and of none */
        char *fuzz[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                        "--dtype", "float", "--op", "sum", "--in-place", "no", "--npes", "3,5",
                        "--count", "1,1000", "--team", "world", "--transport", kernel_transports(),
                        "--symbol", (char *)symbols[s], "--fuzz",
                        (char *)(th_quick() ? "3" : "10"), "--race", NULL};
        th_run_cmd(fuzz, NULL, &o);
        if (o.status != 0)
            fail_msg("%s fuzz and race: exit %d: %s", symbols[s], o.status, o.out);
        assert_non_null(strstr(o.out, th_quick() ? "checker: fuzz seeds 1..3 and race"
                                                 : "checker: fuzz seeds 1..10 and race"));
        assert_non_null(strstr(o.out, " passed, 0 failed"));
        if (!sim_wanted("PCT schedules"))
            continue;
        char *pct[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                       "--dtype", "float", "--op", "sum", "--in-place", "no", "--npes", "3,5",
                       "--count", "1000", "--team", "world", "--symbol", (char *)symbols[s],
                       "--explore", (char *)(th_quick() ? "20" : "100"), "--strategy", "pct:3",
                       "--timeout", "60", NULL};
        th_run_cmd(pct, NULL, &o);
        if (o.status != 0)
            fail_msg("%s explore pct:3: exit %d: %s", symbols[s], o.status, o.out);
        assert_non_null(strstr(o.out, "2 passed, 0 failed"));
    }
}

/* CUDA's vector types (vector_types.h), with CUDA's sizes and alignments:
 * a kernel's float4 loads index the same bytes on the CPU as on a GPU. */
_Static_assert(sizeof(char3) == 3 && _Alignof(char3) == 1, "char3");
_Static_assert(sizeof(uchar4) == 4 && _Alignof(uchar4) == 4, "uchar4");
_Static_assert(sizeof(short3) == 6 && _Alignof(short3) == 2, "short3");
_Static_assert(sizeof(ushort4) == 8 && _Alignof(ushort4) == 8, "ushort4");
_Static_assert(sizeof(int2) == 8 && _Alignof(int2) == 8, "int2");
_Static_assert(sizeof(int3) == 12 && _Alignof(int3) == 4, "int3");
_Static_assert(sizeof(uint4) == 16 && _Alignof(uint4) == 16, "uint4");
_Static_assert(sizeof(float2) == 8 && _Alignof(float2) == 8, "float2");
_Static_assert(sizeof(float4) == 16 && _Alignof(float4) == 16, "float4");
_Static_assert(sizeof(double2) == 16 && _Alignof(double2) == 16, "double2");
_Static_assert(sizeof(ulonglong2) == 16 && _Alignof(ulonglong2) == 16, "ulonglong2");

/* A kernel that moves its data in float4s (tests/device/vectors.cu): the
 * matrix plain on local, shm and sim, and checked at 3 PEs. */
static void test_verify_vectors(void **state)
{
    (void)state;
    skip_matrix_under_tsan();
    char lib[512];
    snprintf(lib, sizeof(lib), "%s", th_tool("tests/libvectors.so"));
    char *base[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                    "--dtype", "float", "--op", "sum", "--in-place", "no", "--team", "world",
                    "--symbol", "vec_oneshot", "--npes", "1,2,3,5", "--count", "0,1,7,1000,4097",
                    "--thorough", "--transport", kernel_transports(), NULL, NULL, NULL, NULL};
    int ntp = 1; /* 4 PE counts x 5 sizes on each transport */
    for (const char *c = base[21]; *c; c++)
        ntp += *c == ',';
    char want[2][40];
    snprintf(want[0], sizeof(want[0]), "\n%d passed, 0 failed", 20 * ntp);
    snprintf(want[1], sizeof(want[1]), "\n%d passed, 0 failed", ntp);
    struct th_outcome o;
    th_run_cmd(base, NULL, &o);
    if (o.status != 0 || !strstr(o.out, want[0]))
        fail_msg("plain: exit %d, wanted '%s': %s", o.status, want[0] + 1, o.out);
    base[16] = "3";
    base[18] = "1000";
    base[22] = "--fuzz";
    base[23] = "2";
    base[24] = "--race";
    th_run_cmd(base, NULL, &o);
    if (o.status != 0 || !strstr(o.out, "checker: fuzz seeds 1..2 and race") ||
        !strstr(o.out, want[1]))
        fail_msg("fuzz and race: exit %d: %s", o.status, o.out);
    /* The kernel takes float sums out of place on the world team and
     * declines the rest (SHMEMU_ENOTSUP): the whole quick matrix of
     * allreduce passes where it takes a case, and declines the others;
     * a matrix of none it takes verifies nothing, and says so. */
    char *all[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                   "--symbol", "vec_oneshot", "--quick", "--transport", NULL, "--json",
                   NULL, NULL};
    char first[16]; /* one transport of those selected */
    snprintf(first, sizeof(first), "%.*s", (int)strcspn(base[21], ","), base[21]);
    all[9] = first;
    char json[64];
    snprintf(json, sizeof(json), "/tmp/shmemu-declined.%d.json", (int)getpid());
    all[11] = json;
    th_run_cmd(all, NULL, &o);
    int passed = -1, failed = -1, declined = -1;
    const char *end = strstr(o.out, " declined\n");
    while (end && end > o.out && end[-1] != '\n')
        end--;
    if (o.status != 0 || !end ||
        sscanf(end, "%d passed, %d failed, %d declined", &passed, &failed, &declined) != 3 ||
        passed < 1 || failed != 0 || declined < 1 ||
        !strstr(o.out, "#   (vec_oneshot declined "))
        fail_msg("the quick matrix: exit %d: %s", o.status, o.out);
    FILE *f = fopen(json, "r");
    assert_non_null(f);
    char head[128] = "";
    assert_non_null(fgets(head, sizeof(head), f));
    fclose(f);
    unlink(json);
    char want_head[96];
    snprintf(want_head, sizeof(want_head), "{\"passed\": %d, \"failed\": 0, \"declined\": %d,",
             passed, declined);
    if (strncmp(head, want_head, strlen(want_head)))
        fail_msg("--json begins '%s', wanted '%s'", head, want_head);
    char *none[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                    "--symbol", "vec_oneshot", "--quick", "--transport", first, "--dtype",
                    "int32", NULL};
    th_run_cmd(none, NULL, &o);
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 1 || !strstr(o.out, " 0 failed, ") ||
        !strstr(o.out, "shmemu-verify: the algorithm declined every case (SHMEMU_ENOTSUP): "
                       "nothing was verified"))
        fail_msg("a matrix of cases it declines: status %d: %s", o.status, o.out);
}

/* vLLM's two-shot allreduce with its parts pulled through peer pointers
 * (tests/device/pull_twoshot.cu): the correct kernel passes on local, shm
 * and sim under fuzz and race and PCT schedules; the writer's
 * __threadfence() (vLLM 2760) and the reader's (aiter 4786) are each
 * reported on sim, naming the fence that is missing (local and shm: see
 * below). */
static void test_verify_pull_twoshot(void **state)
{
    (void)state;
    skip_volatile_flags_under_tsan();
    char lib[512];
    snprintf(lib, sizeof(lib), "%s", th_tool("tests/libpull_twoshot.so"));
    char *ok[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                  "--dtype", "float", "--op", "sum", "--in-place", "no", "--team", "world",
                  "--symbol", "pull_twoshot", "--npes", "2,3,4", "--count", "0,4,1000,4096",
                  "--transport", kernel_transports(), "--fuzz", (char *)(th_quick() ? "3" : "10"),
                  "--race", NULL};
    struct th_outcome o;
    th_run_cmd(ok, NULL, &o);
    if (o.status != 0 || !strstr(o.out, " passed, 0 failed"))
        fail_msg("fixed twin, fuzz and race: exit %d: %s", o.status, o.out);
    if (!sim_wanted("explored schedules and the planted bugs"))
        return;
    char *pct[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                   "--dtype", "float", "--op", "sum", "--in-place", "no", "--team", "world",
                   "--symbol", "pull_twoshot", "--npes", "3", "--count", "1000", "--explore",
                   (char *)(th_quick() ? "20" : "100"), "--strategy", "pct:3", "--fuzz", "2",
                   "--race", NULL};
    th_run_cmd(pct, NULL, &o);
    if (o.status != 0 || !strstr(o.out, "1 passed, 0 failed"))
        fail_msg("fixed twin, explored: exit %d: %s", o.status, o.out);
    static const struct {
        const char *sym, *says;
    } bugs[] = {{"pull_twoshot_devfence", "no system-scope fence "},
                {"pull_twoshot_noacq", "flag with plain loads and no system-scope acquire "
                                       "after them"}};
    /* The bugs' verdicts are asserted on sim alone (below), so the quick
     * pass runs them there only. */
    static const char *const tps[] = {"sim", "local", "shm"};
    int ntps = th_quick() ? 1 : 3;
    if (th_quick())
        printf("# the planted bugs on local and shm: left to the full suite (make test-full); "
               "their verdicts there are said, not asserted\n");
    for (int b = 0; b < 2; b++)
        for (int t = 0; t < ntps; t++) {
            char why[256];
            if (!th_transport_wanted(tps[t], why, sizeof(why)))
                continue;
            char *bad[] = {th_tool("shmemu-verify"), "--lib", lib, "--collective", "allreduce",
                           "--dtype", "float", "--op", "sum", "--in-place", "no", "--team",
                           "world", "--symbol", (char *)bugs[b].sym, "--npes", "3,4",
                           "--count", "1000,4096", "--thorough", "--transport", (char *)tps[t],
                           "--fuzz", "20", "--race", NULL};
            th_run_cmd(bad, NULL, &o);
            assert_true(WIFEXITED(o.status));
            int caught = WEXITSTATUS(o.status) == 1 && strstr(o.out, bugs[b].says);
            if (WEXITSTATUS(o.status) > 1 || (WEXITSTATUS(o.status) == 1 && !caught))
                fail_msg("%s on %s: status %d: %s", bugs[b].sym, tps[t], o.status, o.out);
            /* On sim the schedule, and so the verdict, is the seed's: asserted.
             * On local and shm whether the reader pulls before the writer's
             * next fence is the threads' timing (caught in most runs, fewer
             * under ASan): said, and asserted by test_scope_threadfence_device_pull
             * for a kernel where it does not depend on timing as much. */
            int asserted = !strcmp(tps[t], "sim");
#ifdef TH_ASAN
            /* (the part's memcpy is ASan's there, a string move: its stores
             * are not stepped one by one, and the two sides rarely meet) */
            asserted = 0;
#endif
            if (asserted && !caught)
                fail_msg("%s on sim: not caught: %s", bugs[b].sym, o.out);
            printf("# %s on %s: %s in 4 cases x 20 seeds\n", bugs[b].sym, tps[t],
                   caught ? "caught" : "not caught");
        }
}

/* NCCL's LL protocol (tests/device/ll_allgather.cu): data and flag in one
 * 8-byte volatile store through a peer pointer, no fence, lines reused two
 * rounds later with a new flag.  Correct on a GPU, so: the quick matrix
 * plain on local, shm and sim, then 3 and 5 PEs under fuzz and race, and
 * explored schedules on sim with fuzz and race, with no report. */
static void test_verify_ll_allgather(void **state)
{
    (void)state;
    skip_volatile_flags_under_tsan();
    char lib[512];
    snprintf(lib, sizeof(lib), "%s", th_tool("tests/libll_allgather.so"));
    char *common[] = {th_tool("shmemu-verify"), "--lib", lib, "--symbol", "ll_allgather",
                      "--collective", "allgather", "--team", "world", "--timeout", "60"};
    enum { NC = sizeof(common) / sizeof(common[0]) };
    char *plain[NC + 4], *fuzz[NC + 13], *pct[NC + 14];
    memcpy(plain, common, sizeof(common));
    memcpy(fuzz, common, sizeof(common));
    memcpy(pct, common, sizeof(common));
    char *p1[] = {"--quick", "--transport", kernel_transports(), NULL};
    char *f1[] = {"--dtype", "int32", "--npes", "3,5", "--count", "1,257", "--transport",
                  kernel_transports(), "--fuzz", (char *)(th_quick() ? "3" : "6"), "--race", NULL};
    char *x1[] = {"--dtype", "uint8", "--npes", "2,3,5", "--count", "1,101", "--explore",
                  (char *)(th_quick() ? "20" : "60"), "--strategy", "pct:3", "--check",
                  "fuzz:1,race", NULL};
    memcpy(plain + NC, p1, sizeof(p1));
    memcpy(fuzz + NC, f1, sizeof(f1));
    memcpy(pct + NC, x1, sizeof(x1));
    char **runs[] = {plain, fuzz, pct};
    const char *what[] = {"plain", "fuzz and race", "explored, fuzz and race"};
    for (int r = 0; r < 3; r++) {
        if (r == 2 && !sim_wanted("explored schedules"))
            break;
        struct th_outcome o;
        th_run_cmd(runs[r], NULL, &o);
        if (o.status != 0 || !strstr(o.out, " passed, 0 failed"))
            fail_msg("ll_allgather %s: exit %d: %s", what[r], o.status, o.out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devcc_programs),
        cmocka_unit_test(test_verify_kernel_lib),
        cmocka_unit_test(test_verify_flag_barriers),
        cmocka_unit_test(test_verify_vectors),
        cmocka_unit_test(test_verify_pull_twoshot),
        cmocka_unit_test(test_verify_ll_allgather),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
