/* test_tools.c - every flag of shmemu-verify, shmemu-run, shmemu-bench and
 * shmemu-info with a good and a bad value.  A bad one gets exactly one line
 * that names the tool and the offending value, exit status 2, and no work
 * (no case run, no PE started); a good one is honoured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

struct row {
    const char *tool;    /* in the build directory */
    const char *args;    /* split at spaces; "@HELLO" is the SPMD example */
    const char *env;     /* one NAME=VALUE, or NULL */
    int status;          /* wanted exit status */
    const char *needle;  /* in the output: the offending value, or the work done */
};

/* Bad values: one line, status 2. */
static const struct row bad[] = {
    {"shmemu-verify", "--npes 0", NULL, 2, "'0' is not a PE count"},
    {"shmemu-verify", "--npes 99999", NULL, 2, "'99999' is not a PE count"},
    {"shmemu-verify", "--npes x", NULL, 2, "'x'"},
    {"shmemu-verify", "--npes 1-40", NULL, 2, "more than 32 values"},
    {"shmemu-verify", "--count 1Q", NULL, 2, "'1Q' is not a count"},
    {"shmemu-verify", "--dtype nope", NULL, 2, "unknown dtype 'nope'"},
    {"shmemu-verify", "--op nope", NULL, 2, "unknown op 'nope'"},
    {"shmemu-verify", "--collective nope", NULL, 2, "'nope'"},
    {"shmemu-verify", "--algo nope", NULL, 2, "no algorithm 'nope'"},
    {"shmemu-verify", "--in-place maybe", NULL, 2, "'maybe'"},
    {"shmemu-verify", "--team nope", NULL, 2, "'nope'"},
    {"shmemu-verify", "--transport bogus", NULL, 2, "unknown transport 'bogus'"},
    {"shmemu-verify", "--transport local,bogus", NULL, 2, "unknown transport 'bogus'"},
    {"shmemu-verify", "--seed banana", NULL, 2, "'banana'"},
    {"shmemu-verify", "--seed 1K", NULL, 2, "'1K'"},
    {"shmemu-verify", "--inputs some", NULL, 2, "'some'"},
    {"shmemu-verify", "--max-bytes 1Q", NULL, 2, "'1Q'"},
    {"shmemu-verify", "--max-bytes 0", NULL, 2, "'0'"},
    {"shmemu-verify", "--heap-size 0", NULL, 2, "'0'"},
    {"shmemu-verify", "--heap-size 12X", NULL, 2, "'12X'"},
    {"shmemu-verify", "--timeout 0", NULL, 2, "'0'"},
    {"shmemu-verify", "--timeout soon", NULL, 2, "'soon'"},
    {"shmemu-verify", "--fuzz 0", NULL, 2, "'0'"},
    {"shmemu-verify", "--fuzz", NULL, 2, "--fuzz needs a value"},
    {"shmemu-verify", "--explore 0", NULL, 2, "'0'"},
    {"shmemu-verify", "--explore 2 --transport local", NULL, 2, "need the sim transport"},
    {"shmemu-verify", "--explore 2 --sim random,seed:1", NULL, 2, "leave out --sim"},
    {"shmemu-verify", "--strategy greedy", NULL, 2, "'greedy'"},
    {"shmemu-verify", "--strategy pct:99", NULL, 2, "'pct:99'"},
    {"shmemu-verify", "--check nope", NULL, 2, "'nope'"},
    {"shmemu-verify", "--json /nonexistent/dir/out.json", NULL, 2, "/nonexistent/dir/out.json"},
    {"shmemu-verify", "--lib /nonexistent/lib.so --symbol f --collective allreduce", NULL, 2,
     "cannot load /nonexistent/lib.so"},
    {"shmemu-verify", "--lib x.so", NULL, 2, "--lib needs --symbol and --collective"},
    {"shmemu-verify", "--bogus", NULL, 2, "unknown option '--bogus'"},
    {"shmemu-verify", "--quick --thorough", NULL, 2, "give one"},
    {"shmemu-verify", "--dtype float --op bxor", NULL, 2, "--op bxor with --dtype float"},
    {"shmemu-verify", "--dtype float --op bxor --collective allreduce", NULL, 2,
     "no case of allreduce"},
    {"shmemu-run", "-n 0 @HELLO", NULL, 2, "not '0'"},
    {"shmemu-run", "-n x @HELLO", NULL, 2, "not 'x'"},
    {"shmemu-run", "-n", NULL, 2, "-n needs a value"},
    {"shmemu-run", "-n 2 -t bogus @HELLO", NULL, 2, "-t bogus: unknown transport"},
    {"shmemu-run", "-n 2 @HELLO", "SHMEMU_TRANSPORT=bogus", 2,
     "SHMEMU_TRANSPORT=bogus: unknown transport"},
    {"shmemu-run", "-n 2 -t local @HELLO", NULL, 2, "'local' runs PEs as threads"},
    {"shmemu-run", "-n 2 @HELLO", "SHMEMU_TRANSPORT=sim", 2, "'sim' runs PEs as threads"},
    {"shmemu-run", "-n 2 --heap-size 1Q @HELLO", NULL, 2, "'1Q'"},
    {"shmemu-run", "-n 2 --bind some @HELLO", NULL, 2, "'some'"},
    {"shmemu-run", "-n 2 --timeout 0 @HELLO", NULL, 2, "'0'"},
    {"shmemu-run", "-n 2 --bogus @HELLO", NULL, 2, "unknown option '--bogus'"},
    {"shmemu-run", "-n 2 --bind-to everything @HELLO", NULL, 2, "'everything'"},
    {"shmemu-run", "-n 2 -wdir /nonexistent/dir @HELLO", NULL, 2, "/nonexistent/dir"},
    {"shmemu-run", "-N 0 @HELLO", NULL, 2, "not '0'"},
    {"shmemu-run", "-n 2 -x", NULL, 2, "-x needs a value"},
    {"shmemu-run", "-n 2 -genv ONLY_NAME", NULL, 2, "needs a name and a value"},
    {"shmemu-run", "-n 2", NULL, 2, "no program to run"},
    {"shmemu-run", "@HELLO", NULL, 2, "how many PEs"},
    {"shmemu-bench", "--bogus", NULL, 2, "unknown option '--bogus'"},
    {"shmemu-bench", "-r 0", NULL, 2, "not '0'"},
    {"shmemu-bench", "-r many", NULL, 2, "not 'many'"},
    {"shmemu-bench", "-r", NULL, 2, "-r needs a value"},
    {"shmemu-bench", "-t bogus", NULL, 2, "-t bogus: unknown transport"},
    {"shmemu-bench", "-m 1Q", NULL, 2, "'1Q'"},
    {"shmemu-bench", "-n 0", NULL, 2, "'0'"},
    {"shmemu-bench", "nonsense", NULL, 2, "unknown benchmark 'nonsense'"},
    {"shmemu-bench", "coll --bogus", NULL, 2, "unknown option '--bogus'"},
    {"shmemu-bench", "coll --coll nope", NULL, 2, "--coll"},
    {"shmemu-bench", "coll --algo nope", NULL, 2, "no allreduce algorithm 'nope'"},
    {"shmemu-bench", "coll --npes 0", NULL, 2, "--npes"},
    {"shmemu-bench", "coll --npes x", NULL, 2, "--npes"},
    {"shmemu-bench", "coll -t bogus", NULL, 2, "-t bogus: unknown"},
    {"shmemu-bench", "coll -b 1Q", NULL, 2, "-b/-e"},
    {"shmemu-bench", "coll -b 2K -e 1K", NULL, 2, "-b <= -e"},
    {"shmemu-bench", "coll -f 1 -b 8 -e 64", NULL, 2, "-f"},
    {"shmemu-bench", "coll -d nope", NULL, 2, "-d"},
    {"shmemu-bench", "coll -o nope", NULL, 2, "-o"},
    {"shmemu-bench", "coll -d float -o bxor", NULL, 2, "that op does not apply"},
    {"shmemu-bench", "coll --root 5 --npes 2", NULL, 2, "--root"},
    {"shmemu-bench", "coll --reps 0", NULL, 2, "--reps"},
    {"shmemu-bench", "coll --rounds 9", NULL, 2, "--rounds"},
    {"shmemu-bench", "coll --coll allgather --inplace", NULL, 2, "--inplace"},
    {"shmemu-bench", "coll --reps", NULL, 2, "--reps needs a value"},
    {"shmemu-info", "--bogus", NULL, 2, "unknown option '--bogus'"},
    {"shmemu-info", "--parsable", NULL, 2, "--parsable goes with --oshmem"},
};

/* Good values: honoured (the work they ask for is done). */
static const struct row good[] = {
    {"shmemu-verify",
     "--collective broadcast --npes 2,3 --count 1K --dtype int8 --in-place no --team world "
     "--transport local --seed 18446744073709551615 --inputs random --max-bytes 1G "
     "--heap-size 16M --timeout 60",
     NULL, 0, "6 passed, 0 failed"}, /* tree, chain and dev_pull, on 2 and 3 PEs */
    {"shmemu-verify", "--collective allreduce --algo ring --npes 3 --count 7 --dtype int32 "
                      "--op sum,max --transport local,shm --check race -v",
     NULL, 0, "6 passed, 0 failed"},
    {"shmemu-verify", "--collective allreduce --algo rd --npes 2 --count 3 --dtype int64 --op sum "
                      "--fuzz 2 --race",
     NULL, 0, "4 passed, 0 failed"},
    {"shmemu-verify", "--collective allgather --algo ring --npes 3 --count 2 --dtype int16 "
                      "--explore 2 --strategy pct:2",
     NULL, 0, "2 passed, 0 failed"},
    {"shmemu-verify", "--collective alltoall --npes 2 --count 5 --dtype uint8 --team strided "
                      "--transport sim --sim rr,seed:3 --json /dev/null",
     NULL, 0, "passed, 0 failed"},
    {"shmemu-run", "-n 2 --heap-size 16M --bind none --timeout 60 --tag-output @HELLO", NULL, 0,
     "on shm got 1001 from PE 1"},
    {"shmemu-run", "-np 3 @HELLO", "SHMEMU_TRANSPORT=shm", 0, "PE 2/3 on shm got"},
    {"shmemu-run", "--np=2 --bind-to l3cache -x SHMEM_DEBUG=1 -genv A B --oversubscribe @HELLO",
     NULL, 0, "PE 1/2 on shm got"},
    {"shmemu-bench", "-t local -r 1 -n 2 -m 8K barrier", NULL, 0, "barrier_all"},
    {"shmemu-bench", "coll --coll reduce --algo auto --npes 3 -t local -b 8 -e 64 -f 2 -d int32 "
                     "-o max --root 1 --reps 1 --rounds 1 --no-mpi --csv",
     NULL, 0, "64,16,int32,max"},
    {"shmemu-bench", "coll --coll broadcast --npes 2 -b 1K -e 1K --inplace --no-check --no-mpi "
                     "--reps 1",
     NULL, 0, "Avg bus bandwidth"},
    /* the heap holds an allgather's src, as large as its dest (8 MiB on 3
     * PEs ran out of it); 2 rounds of 64 repetitions a row */
    {"shmemu-bench", "coll --coll allgather --npes 3 -t local -b 8M -e 8M --reps 1 --rounds 1 "
                     "--no-check --no-mpi",
     NULL, 0, "Avg bus bandwidth"},
    {"shmemu-bench", "coll --npes 2 -t local -b 8 -e 8 --reps 64 --rounds 2 --no-check --no-mpi",
     NULL, 0, "Avg bus bandwidth"},
    {"shmemu-info", "", NULL, 0, "transports (in priority order):"},
    {"shmemu-info", "--oshmem --parsable", NULL, 0, ""},
};

static void run_row(const struct row *r, struct th_outcome *o)
{
    char buf[1024], hello[4096];
    char *argv[48];
    int n = 0;
    snprintf(hello, sizeof(hello), "%s", th_tool("examples/hello_spmd"));
    snprintf(buf, sizeof(buf), "%s", r->args);
    argv[n++] = th_tool(r->tool);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && n < 47;
         t = strtok_r(NULL, " ", &save))
        argv[n++] = strcmp(t, "@HELLO") ? t : hello;
    argv[n] = NULL;
    const char *env[] = {r->env, NULL};
    th_run_cmd(argv, env, o);
}

static void test_bad_values(void **state)
{
    (void)state;
    th_skip_under_mpirun("the tools are run as programs of their own");
    int failures = 0;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const struct row *r = &bad[i];
        struct th_outcome o;
        run_row(r, &o);
        const char *nl = strchr(o.out, '\n');
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "%s", r->tool);
        int ok = WIFEXITED(o.status) && WEXITSTATUS(o.status) == r->status && nl &&
                 !nl[1] && !strncmp(o.out, prefix, strlen(prefix)) && strstr(o.out, r->needle);
        if (!ok) {
            printf("FAIL %s %s%s%s: status %#x, wanted exit %d and one line with '%s'; "
                   "output:\n%s\n",
                   r->tool, r->args, r->env ? " with " : "", r->env ? r->env : "", o.status,
                   r->status, r->needle, o.out);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* cuda refused where it cannot run (one line, before any case or PE). */
static void test_cuda_refused(void **state)
{
    (void)state;
    th_skip_under_mpirun("the tools are run as programs of their own");
    char why[256];
    if (th_transport_usable("cuda", why, sizeof(why)))
        th_skip("a GPU answers here: cuda is not refused");
    static const struct row rows[] = {
        {"shmemu-verify", "--transport cuda", NULL, 2, "'cuda' cannot run here: "},
        {"shmemu-run", "-n 2 -t cuda @HELLO", NULL, 2, "-t cuda: the transport cannot run"},
        {"shmemu-bench", "-t cuda", NULL, 2, "-t cuda: cannot run here: "},
        {"shmemu-bench", "coll -t cuda", NULL, 2, "-t cuda: cannot run here: "},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct th_outcome o;
        run_row(&rows[i], &o);
        const char *nl = strchr(o.out, '\n');
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 2 || !nl || nl[1] ||
            !strstr(o.out, rows[i].needle) || !strstr(o.out, why))
            fail_msg("%s %s: status %#x, output:\n%s", rows[i].tool, rows[i].args, o.status,
                     o.out);
    }
}

static void test_good_values(void **state)
{
    (void)state;
    th_skip_under_mpirun("the tools are run as programs of their own");
    int failures = 0;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        const struct row *r = &good[i];
        struct th_outcome o;
        run_row(r, &o);
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != r->status ||
            !strstr(o.out, r->needle)) {
            printf("FAIL %s %s%s%s: status %#x, wanted exit %d and '%s'; output:\n%s\n",
                   r->tool, r->args, r->env ? " with " : "", r->env ? r->env : "", o.status,
                   r->status, r->needle, o.out);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* shmemu-bench coll's bound: for each row, the bytes the collective must
 * move (allreduce 3nS, reduce_scatter (n+1)S, allgather 2nS, broadcast in
 * place 2(n-1)S, S the row's size, n the PEs) at twice the rate of the
 * copy the run timed (copy_gbs, GB/s = bytes per ns), and of_bound =
 * bound / time. */
static void test_bench_bound(void **state)
{
    (void)state;
    th_skip_under_mpirun("the tools are run as programs of their own");
    static const struct {
        const char *args;
        double per_size; /* traffic / S */
    } runs[] = {
        {"--coll allreduce --npes 3 -b 12 -e 12K -f 32", 9},
        {"--coll reduce_scatter --npes 3 -b 12 -e 12K -f 32", 4},
        {"--coll allgather --npes 3 -b 12 -e 12K -f 32", 6},
        {"--coll broadcast --inplace --npes 3 -b 12 -e 12K -f 32", 4},
    };
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        char args[256];
        snprintf(args, sizeof(args), "coll %s -t local --reps 1 --rounds 1 --no-mpi --csv",
                 runs[i].args);
        struct row r = {"shmemu-bench", args, NULL, 0, ""};
        struct th_outcome o;
        run_row(&r, &o);
        if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0)
            fail_msg("shmemu-bench %s: status %#x: %s", args, o.status, o.out);
        const char *p = strstr(o.out, ",wrong,bound_us,of_bound,copy_gbs\n");
        assert_non_null(p);
        int rows = 0;
        for (p = strchr(p, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
            double f[14];
            const char *q = p;
            int nf = 0;
            for (; nf < 14; nf++) {
                f[nf] = strtod(q, NULL); /* (text fields read as 0) */
                q = strpbrk(q, ",\n");
                if (!q || *q == '\n')
                    break;
                q++;
            }
            if (nf != 13)
                fail_msg("shmemu-bench %s: a row of %d fields: %s", args, nf + 1, o.out);
            double size = f[0], time = f[5], bound = f[11], of = f[12], gbs = f[13];
            double want = runs[i].per_size * size / (2 * gbs * 1e3);
            if (gbs <= 0 || fabs(bound - want) > 1e-6 + 1e-5 * want ||
                fabs(of - bound / time) > 1e-6 + 1e-3 * of)
                fail_msg("shmemu-bench %s: size %.0f: bound %.6f us (want %.6f at %.3f GB/s), "
                         "of bound %.6f (want %.6f for %.3f us): %s",
                         args, size, bound, want, gbs, of, bound / time, time, o.out);
            rows++;
            if (!strchr(p, '\n'))
                break;
        }
        assert_int_equal(rows, 3); /* 12, 384 and 12288 bytes */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_cuda_refused),
        cmocka_unit_test(test_good_values),
        cmocka_unit_test(test_bench_bound),
    };
    return cmocka_run_group_tests_name("tools", tests, NULL, NULL);
}
