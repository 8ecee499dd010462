/*
 * shmemx_names.c - a program written for Sandia OpenSHMEM 1.4, which
 * offered teams, team collectives, several-word waits, nonblocking fetching
 * atomics and put-with-signal as shmemx_ extensions before OpenSHMEM 1.5
 * made them standard.  test_compat builds it with oshcc (C11, C89 and as
 * C++) and runs it under oshrun.  One "FAIL" line per wrong value, or
 * "shmemx ok N" on PE 0.  With "bad", a put-with-signal to a PE that does
 * not exist: the job ends with one line naming the shmemx_ routine.
 */
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond, what)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("FAIL PE %d line %d: %s\n", shmem_my_pe(), __LINE__, what); \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static long src[8], dst[64], word, box[4];
static int isrc, idst[8], flags[8];
static uint64_t sig;

int main(int argc, char **argv)
{
    int me, n, i, even_me, k;
    shmemx_team_t evens = SHMEMX_TEAM_INVALID, x, y;
    shmemx_team_config_t conf;
    size_t idx;
    long f = -1, got;
    double t0, t1;

    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    if (argc > 1 && !strcmp(argv[1], "bad"))
        shmemx_long_put_signal(&box[0], src, 1, &sig, 1, SHMEMX_SIGNAL_ADD, n);
    t0 = shmemx_wtime();
    CHECK(shmemx_team_n_pes(SHMEMX_TEAM_WORLD) == n, "team_n_pes(WORLD)");
    CHECK(shmemx_team_my_pe(SHMEMX_TEAM_WORLD) == me, "team_my_pe(WORLD)");
    CHECK(shmemx_team_n_pes(SHMEMX_TEAM_NODE) == n, "one node");

    /* The even PEs as a team; its numbering; its configuration. */
    CHECK(shmemx_team_split_strided(SHMEMX_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens) == 0,
          "split_strided");
    even_me = me % 2 == 0 ? me / 2 : -1;
    CHECK(shmemx_team_my_pe(evens) == even_me, "team_my_pe(evens)");
    if (even_me >= 0) {
        CHECK(shmemx_team_translate_pe(evens, even_me, SHMEMX_TEAM_WORLD) == me, "translate");
        shmemx_team_get_config(evens, &conf);
        CHECK(conf.num_contexts == 0, "get_config without a mask");
        CHECK(shmemx_team_sync(evens) == 0, "team_sync");
        /* Collectives on it: sum, broadcast, fcollect, alltoall. */
        isrc = even_me + 1;
        CHECK(shmemx_int_sum_reduce(evens, &idst[0], &isrc, 1) == 0, "sum_reduce");
        k = shmemx_team_n_pes(evens);
        CHECK(idst[0] == k * (k + 1) / 2, "sum_reduce's value");
        for (i = 0; i < 8; i++)
            src[i] = 100 * me + i;
        CHECK(shmemx_long_broadcast(evens, dst, src, 3, 0) == 0, "broadcast");
        CHECK(dst[0] == 0 && dst[2] == 2, "broadcast's values");
        CHECK(shmemx_long_fcollect(evens, dst, src, 2) == 0, "fcollect");
        for (i = 0; i < k; i++)
            CHECK(dst[2 * i] == 200 * i && dst[2 * i + 1] == 200 * i + 1, "fcollect's values");
        for (i = 0; i < k && i < 8; i++)
            src[i] = 10 * even_me + i;
        CHECK(shmemx_long_alltoall(evens, dst, src, 1) == 0, "alltoall");
        for (i = 0; i < k && i < 8; i++)
            CHECK(dst[i] == 10 * i + even_me, "alltoall's values");
    }
    CHECK(shmemx_team_destroy(evens) == 0, "team_destroy");
    CHECK(shmemx_team_split_2d(SHMEMX_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d");
    CHECK(shmemx_team_n_pes(x) == (n < 2 ? n : (me / 2 * 2 + 2 <= n ? 2 : 1)), "x team");
    shmemx_team_destroy(x);
    shmemx_team_destroy(y);
    shmem_barrier_all();

    /* Several words: every PE sets its flag at PE 0, which waits for all. */
    shmem_int_p(&flags[me], 1, 0);
    if (me == 0) {
        shmemx_int_wait_until_all(flags, (size_t)n, NULL, SHMEM_CMP_EQ, 1);
        CHECK(shmemx_int_test_all(flags, (size_t)n, NULL, SHMEM_CMP_EQ, 1) == 1, "test_all");
        idx = shmemx_int_test_any(flags, (size_t)n, NULL, SHMEM_CMP_EQ, 1);
        CHECK(idx < (size_t)n, "test_any");
    }
    shmem_barrier_all();

    /* A fetching atomic left to the quiet, then a put with its signal. */
    shmemx_long_atomic_fetch_add_nbi(&f, &word, me + 1, 0);
    shmem_quiet();
    CHECK(f >= 0, "fetch_add_nbi's value");
    shmem_barrier_all();
    if (me == 0)
        CHECK(word == (long)n * (n + 1) / 2, "fetch_add_nbi's sum");
    got = me;
    shmemx_long_put_signal(&box[0], &got, 1, &sig, 1, SHMEMX_SIGNAL_ADD, (me + 1) % n);
    shmem_uint64_wait_until(&sig, SHMEM_CMP_EQ, 1);
    CHECK(box[0] == (me + n - 1) % n, "put_signal's data before its signal");
    CHECK(shmemx_signal_fetch(&sig) == 1, "signal_fetch");
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L || defined(__cplusplus)
    shmem_barrier_all();
    shmemx_wait_until_all(flags, (size_t)(me == 0 ? n : 0), NULL, SHMEM_CMP_EQ, 1);
#endif
    t1 = shmemx_wtime();
    CHECK(t1 >= t0, "wtime is monotonic");
    shmem_barrier_all();
    shmem_finalize();
    if (me == 0 && failures == 0)
        printf("shmemx ok %d\n", n);
    return failures != 0;
}
