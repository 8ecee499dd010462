/*
 * osh_features.c - an OpenSHMEM 1.5 program, written from the
 * specification, run by test_compat under oshrun: global and static
 * symmetric data, atomics (blocking and nbi), locks, strided RMA, the
 * active-set collectives with pSync, team collectives, long double and
 * complex reductions, contexts, the C11 generic forms, and the OpenSHMEM
 * 1.6 additions shmemu has (block-strided RMA, signal set/add, pe_quiet,
 * sessions, scans).  Prints "ok N" on
 * PE 0, or one "FAIL" line per wrong value and exits 1.
 *
 *   osh_features            every check
 *   osh_features exit N     PE 1 (or 0 alone) calls shmem_global_exit(N)
 *                           while the others wait in a barrier, and PE 2
 *                           (if any) computes outside the library
 *   osh_features big        allocates 96 MiB (more than the default heap)
 *   osh_features misuse K   a bad call K (0: a put whose bytes overflow
 *                           size_t, 1: a put past the end of the static
 *                           data, 2: a put on a destroyed context, 3: a
 *                           context destroyed twice, 4: a lock set twice
 *                           by one thread, 5: a lock cleared that was
 *                           never set, 6: PE 0 waits on a flag nobody
 *                           sets, 7: PE 0 polls one with shmem_long_g,
 *                           8: every PE polls the next PE's, 9: the
 *                           default context destroyed, 10: a lock that is
 *                           not symmetric, 11: a block freed twice, 12:
 *                           an active-set broadcast whose bytes overflow
 *                           size_t, 13: an active-set alltoall too long
 *                           for the address space, 14: a put after
 *                           shmem_finalize, 15: a wait with an unknown
 *                           comparison, 16: a put-with-signal with an
 *                           unknown signal operation, 17: the world team
 *                           destroyed, 18: a team synced after it was
 *                           destroyed, 19: a put on a context handle
 *                           that was never created, 20: a split of a
 *                           destroyed team), which ends the job
 *                           with one line (a deadlock or livelock report
 *                           for 6 to 8)
 *   osh_features init_thread L   shmem_init_thread(L): a bad level fails
 *                           with one line; exits 3 when it fails
 *   osh_features race T     PEs 0 and 1 put 16 longs into the last PE's
 *                           static buffer: unordered (T 0), or ordered by
 *                           a quiet and a barrier (T 1, the correct twin)
 *   osh_features verdict T  shmemvv's result check: each PE stores its
 *                           verdict into a static int with a plain store
 *                           and PE 0 reads every PE's with shmem_int_g:
 *                           unordered (T 0), or with a barrier between
 *                           (T 1, the correct twin)
 */
#include <complex.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osh_check.h"

long pSync[SHMEM_REDUCE_SYNC_SIZE];
long pSync2[SHMEM_BCAST_SYNC_SIZE];
double pWrk[64];
static int counter;          /* .bss */
static long seeded = 1234;   /* .data: its initial value survives */
long lock;
long src[64], dst[256];
int isrc[16], idst[64];
long flag;

static void reset_psync(void)
{
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        pSync2[i] = SHMEM_SYNC_VALUE;
}

static void globals_and_atomics(int me, int n)
{
    CHECK(seeded == 1234, "initialised global %ld", seeded);
    shmem_int_atomic_add(&counter, me + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter == n * (n + 1) / 2, "counter %d, want %d", counter, n * (n + 1) / 2);
    long f = -1;
    shmem_long_atomic_fetch_add_nbi(&f, &seeded, 1, (me + 1) % n);
    shmem_quiet();
    CHECK(f >= 1234 && f < 1234 + n, "fetch_add_nbi fetched %ld", f);
    shmem_barrier_all();
    CHECK(seeded == 1235, "seeded %ld after one add", seeded);
    CHECK(shmem_addr_accessible(&counter, (me + 1) % n), "global not accessible");
    /* NULL only in checker mode, whose layer must see every access */
    CHECK(shmem_ptr(&counter, me) != NULL || shmemu_check_enabled(), "shmem_ptr of a global");
    /* generic forms, a context first or not */
    shmem_p(&flag, (long)me + 10, (me + 1) % n);
    shmem_barrier_all();
    CHECK(flag == (me + n - 1) % n + 10, "shmem_p: flag %ld", flag);
    CHECK(shmem_g(&flag, (me + 1) % n) == me + 10, "shmem_g");
    CHECK(shmem_g(SHMEM_CTX_DEFAULT, &flag, (me + 1) % n) == me + 10, "shmem_g with ctx");
    shmem_barrier_all();
}

static void locks(int me, int n)
{
    for (int round = 0; round < 20; round++) {
        shmem_set_lock(&lock);
        int c = shmem_int_g(&counter, 0); /* a read-modify-write the lock protects */
        shmem_int_p(&counter, c + 1, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter == n * (n + 1) / 2 + 20 * n, "counter %d after locked adds", counter);
    int got = shmem_test_lock(&lock) == 0;
    if (got)
        shmem_clear_lock(&lock);
    shmem_barrier_all();
    if (n == 1)
        CHECK(got, "test_lock on a free lock");
}

static void strided(int me, int n)
{
    for (int i = 0; i < 16; i++)
        isrc[i] = me * 100 + i;
    memset(idst, 0, sizeof(idst));
    shmem_barrier_all();
    /* every other source element into every third slot of the next PE */
    shmem_int_iput(idst, isrc, 3, 2, 5, (me + 1) % n);
    shmem_barrier_all();
    int from = (me + n - 1) % n;
    for (int i = 0; i < 5; i++)
        CHECK(idst[3 * i] == from * 100 + 2 * i, "iput idst[%d] = %d", 3 * i, idst[3 * i]);
    CHECK(idst[1] == 0 && idst[2] == 0, "iput wrote between its strides");
    int back[5];
    shmem_int_iget(back, isrc, 1, 3, 5, (me + 1) % n);
    for (int i = 0; i < 5; i++)
        CHECK(back[i] == ((me + 1) % n) * 100 + 3 * i, "iget back[%d] = %d", i, back[i]);
    shmem_barrier_all();
}

/* Active set: every other PE from 0 (a non-power-of-two count with 5+). */
static void active_set(int me, int n)
{
    int size = (n + 1) / 2, in = me % 2 == 0;
    for (int i = 0; i < 8; i++)
        src[i] = me * 1000 + i;
    memset(dst, 0, sizeof(dst));
    shmem_barrier_all();
    if (in) {
        shmem_barrier(0, 1, size, pSync);
        shmem_fcollect64(dst, src, 3, 0, 1, size, pSync);
        for (int k = 0; k < size; k++)
            for (int i = 0; i < 3; i++)
                CHECK(dst[3 * k + i] == 2 * k * 1000 + i, "fcollect dst[%d] = %ld", 3 * k + i,
                      dst[3 * k + i]);
        /* collect: member k gives k + 1 elements */
        shmem_collect64(dst, src, (size_t)(me / 2 + 1), 0, 1, size, pSync);
        int at = 0;
        for (int k = 0; k < size; k++)
            for (int i = 0; i <= k; i++, at++)
                CHECK(dst[at] == 2 * k * 1000 + i, "collect dst[%d] = %ld", at, dst[at]);
        memset(dst, 0, sizeof(dst));
        shmem_broadcast64(dst, src, 4, size - 1, 0, 1, size, pSync2);
        int root_pe = 2 * (size - 1);
        for (int i = 0; i < 4; i++)
            CHECK(me == root_pe ? dst[i] == 0 : dst[i] == root_pe * 1000 + i,
                  "broadcast dst[%d] = %ld", i, dst[i]);
        for (int k = 0; k < size; k++)
            src[k] = me * 1000 + k;
        shmem_alltoall64(dst, src, 1, 0, 1, size, pSync);
        for (int k = 0; k < size; k++)
            CHECK(dst[k] == 2 * k * 1000 + me / 2, "alltoall dst[%d] = %ld", k, dst[k]);
        static double d[3], r[3]; /* symmetric: static */
        d[0] = me, d[1] = 0.5, d[2] = -me;
        shmem_double_sum_to_all(r, d, 3, 0, 1, size, pWrk, pSync);
        double want = 0;
        for (int k = 0; k < size; k++)
            want += 2 * k;
        CHECK(r[0] == want && r[1] == 0.5 * size && r[2] == -want, "sum_to_all %g %g %g", r[0],
              r[1], r[2]);
        static long mx[2], mr[2];
        mx[0] = me, mx[1] = -me;
        shmem_long_max_to_all(mr, mx, 2, 0, 1, size, (long *)pWrk, pSync);
        CHECK(mr[0] == 2 * (size - 1) && mr[1] == 0, "max_to_all %ld %ld", mr[0], mr[1]);
        /* in place, long double */
        static long double ld[2];
        ld[0] = me + 0.25L, ld[1] = 2;
        shmem_longdouble_prod_to_all(ld, ld, 2, 0, 1, size, (long double *)pWrk, pSync);
        CHECK(ld[1] == (long double)(1L << size), "longdouble prod_to_all %Lg", ld[1]);
    }
    shmem_barrier_all();
}

/* What OpenSHMEM 1.5 lets fail, failing as it says (a nonzero status and
 * SHMEM_TEAM_INVALID on every PE of the parent; the job goes on): a split
 * whose triplet names no PE (size 0) or is invalid, a split when the
 * library has no team left to give, shmem_team_get_config on
 * SHMEM_TEAM_INVALID; get_config with mask 0 does nothing. */
static void team_limits(int me, int n)
{
    shmem_team_t t = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &t) != 0 &&
              t == SHMEM_TEAM_INVALID,
          "split of size 0: team %d", (int)t);
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &t) != 0 &&
              t == SHMEM_TEAM_INVALID,
          "split of %d PEs out of %d: team %d", n + 1, n, (int)t);
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0 &&
              t == SHMEM_TEAM_INVALID,
          "split of SHMEM_TEAM_INVALID: team %d", (int)t);
    shmem_team_config_t cfg = {.num_contexts = 77};
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0 &&
              cfg.num_contexts == 77,
          "get_config(SHMEM_TEAM_INVALID): num_contexts %d", cfg.num_contexts);
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL) == 0, "get_config with mask 0");
    /* Split until the library has no team left, then go on. */
    enum { MANY = 256 };
    static shmem_team_t made[MANY];
    int k = 0, rc = 0;
    while (k < MANY) {
        t = SHMEM_TEAM_WORLD;
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t);
        if (rc != 0)
            break;
        made[k++] = t;
    }
    CHECK(rc != 0 && t == SHMEM_TEAM_INVALID && k > 0 && k < MANY,
          "splits until none is left: %d made, then rc %d, team %d", k, rc, (int)t);
    static int counts[1];
    counts[0] = k; /* every PE ran out at the same split */
    shmem_barrier_all();
    CHECK(shmem_int_g(&counts[0], (me + 1) % n) == k, "PE %d ran out after %d teams, PE %d "
                                                       "after %d", me, k, (me + 1) % n,
          shmem_int_g(&counts[0], (me + 1) % n));
    shmem_barrier_all();
    for (int i = 0; i < k; i++)
        shmem_team_destroy(made[i]);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t) == 0 &&
              shmem_team_n_pes(t) == n,
          "a split after the teams were destroyed");
    shmem_team_destroy(t);
}

static void team_collectives(int me, int n)
{
    static long s[4], r[4];
    s[0] = me, s[1] = me * 2, s[2] = -me, s[3] = 7;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, r, s, 4);
    long t = (long)n * (n - 1) / 2;
    CHECK(r[0] == t && r[1] == 2 * t && r[2] == -t && r[3] == 7L * n, "long sum_reduce");
    shmem_sum_reduce(SHMEM_TEAM_WORLD, r, s, 4); /* generic */
    CHECK(r[0] == t, "generic sum_reduce");
    static long double ls, lr;
    ls = me + 1.0L;
    shmem_longdouble_max_reduce(SHMEM_TEAM_WORLD, &lr, &ls, 1);
    CHECK(lr == n, "longdouble max_reduce %Lg", lr);
    static double _Complex cs, cr;
    cs = me + 1.0 * I;
    shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, &cr, &cs, 1);
    CHECK(creal(cr) == (double)t && cimag(cr) == n, "complexd sum_reduce %g%+gi", creal(cr),
          cimag(cr));
    /* alltoalls: element k of block j at stride 2 in src, stride 3 in dst */
    int *as = shmem_malloc(sizeof(int) * 2 * 2 * (size_t)n);
    int *ad = shmem_calloc(3 * 2 * (size_t)n, sizeof(int));
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 2; k++)
            as[(j * 2 + k) * 2] = me * 100 + j * 10 + k;
    shmem_int_alltoalls(SHMEM_TEAM_WORLD, ad, as, 3, 2, 2);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++)
            CHECK(ad[(i * 2 + k) * 3] == i * 100 + me * 10 + k, "alltoalls ad[%d] = %d",
                  (i * 2 + k) * 3, ad[(i * 2 + k) * 3]);
    shmem_free(ad);
    shmem_free(as);
}

/* OpenSHMEM 1.1's asymmetric allocation (removed in 1.2, still accepted
 * by SOS and Cray SHMEM): PE p asks for p + 1 ints; every PE gets one
 * block, and each PE fills all of its right neighbour's. */
static void asymmetric_alloc(int me, int n)
{
    int *buf = shmem_malloc(sizeof(int) * (size_t)(me + 1));
    int *zeroed = shmem_calloc((size_t)(me + 1), sizeof(int));
    CHECK(buf != NULL && zeroed != NULL, "asymmetric shmem_malloc/calloc");
    if (!buf || !zeroed)
        return;
    for (int i = 0; i <= me; i++)
        CHECK(zeroed[i] == 0, "asymmetric calloc [%d] = %d", i, zeroed[i]);
    int right = (me + 1) % n, in[64];
    for (int i = 0; i <= right; i++)
        in[i] = right * 100 + i;
    shmem_barrier_all();
    shmem_int_put(buf, in, (size_t)right + 1, right);
    shmem_barrier_all();
    for (int i = 0; i <= me; i++)
        CHECK(buf[i] == me * 100 + i, "asymmetric block [%d] = %d", i, buf[i]);
    /* The next block is symmetric again: at one offset on every PE. */
    long *after = shmem_malloc(sizeof(long));
    CHECK(after != NULL, "shmem_malloc after asymmetric ones");
    if (after) {
        *after = -1;
        shmem_barrier_all();
        shmem_long_p(after, 7000 + me, right);
        shmem_barrier_all();
        CHECK(*after == 7000 + (me + n - 1) % n, "block after asymmetric ones: %ld", *after);
        shmem_free(after);
    }
    shmem_free(zeroed);
    shmem_free(buf);
}

static void contexts_and_p2p(int me, int n)
{
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "ctx_create");
    shmem_ctx_long_put(ctx, &dst[me], &src[0], 1, (me + 1) % n);
    shmem_ctx_quiet(ctx);
    shmem_ctx_long_atomic_inc(ctx, &flag, 0);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    if (me == 0) /* its flag: PE n - 1's shmem_p, then one increment a PE */
        shmem_long_wait_until(&flag, SHMEM_CMP_GE, (long)((n - 1) % n + 10 + n));
    shmem_barrier_all();
    long vals[3] = {1, 2, 3};
    static long ivars[3] = {1, 0, 3}; /* waited words are symmetric */
    int status[3] = {0, 1, 0};
    shmem_cmp_t eq = SHMEM_CMP_EQ; /* the type SOS-style programs name */
    CHECK(shmem_long_test_all_vector(ivars, 3, status, eq, vals),
          "test_all_vector with the odd one excluded");
    CHECK(shmem_long_test_any_vector(ivars, 3, NULL, SHMEM_CMP_NE, vals) == 1,
          "test_any_vector");
    shmem_barrier_all();
}

/* OpenSHMEM 1.6: ibput/ibget, signal_set/add, pe_quiet, sessions, scans. */
static void openshmem_1_6(int me, int n)
{
    static long bs[32], bd[64];
    static uint64_t sig;
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    for (int i = 0; i < 32; i++)
        bs[i] = me * 1000 + i;
    memset(bd, 0, sizeof(bd));
    sig = 0;
    shmem_barrier_all();
    /* 3 blocks of 2: from every 5th element to every 4th slot of next */
    shmem_long_ibput(bd, bs, 4, 5, 2, 3, next);
    shmem_barrier_all();
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 4; j++)
            CHECK(bd[4 * b + j] == (j < 2 ? prev * 1000 + 5 * b + j : 0),
                  "ibput bd[%d] = %ld", 4 * b + j, bd[4 * b + j]);
    long got[9] = {0};
    shmem_ibget(SHMEM_CTX_DEFAULT, got, bs, 3, 7, 2, 3, next); /* generic, ctx */
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 3; j++)
            CHECK(got[3 * b + j] == (j < 2 ? next * 1000 + 7 * b + j : 0),
                  "ibget got[%d] = %ld", 3 * b + j, got[3 * b + j]);
    int32_t small[4] = {-1, -1, -1, -1};
    shmem_ibget32(small, bs, 2, 4, 1, 2, next); /* low words of bs[0], bs[2] */
    CHECK(small[0] == (int32_t)(next * 1000) && small[1] == -1 &&
              small[2] == (int32_t)(next * 1000 + 2),
          "ibget32 %d %d %d", small[0], small[1], small[2]);
    shmem_barrier_all();
    /* signals without data, and pe_quiet on the one PE written */
    shmem_signal_add(&sig, (uint64_t)me + 1, 0);
    shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, &sig, 1, 0);
    int target[1] = {0};
    shmem_pe_quiet(target, 1);
    shmem_pe_quiet(NULL, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(sig == (uint64_t)n * (n + 1) / 2 + (uint64_t)n, "signal_add: %llu",
              (unsigned long long)sig);
    shmem_barrier_all();
    if (me == 0)
        shmem_signal_set(&sig, 77, n - 1);
    if (me == n - 1)
        CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 77) == 77, "signal_set");
    shmem_barrier_all();
    /* a session is a hint: nothing changes */
    shmem_ctx_session_config_t cfg = {.total_ops = 4};
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, &cfg,
                            SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_long_p(&bd[40], me, next);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    CHECK(bd[40] == prev, "put in a session: %ld", bd[40]);
    /* scans over 3 elements: element i of PE p's src is p + i */
    static int is[3], id[3];
    static double ds[3], dd[3];
    for (int i = 0; i < 3; i++)
        is[i] = me + i, ds[i] = 0.5 * (me + i);
    shmem_int_sum_inscan(SHMEM_TEAM_WORLD, id, is, 3);
    for (int i = 0; i < 3; i++)
        CHECK(id[i] == me * (me + 1) / 2 + i * (me + 1), "int inscan id[%d] = %d", i, id[i]);
    shmem_sum_exscan(SHMEM_TEAM_WORLD, dd, ds, 3); /* generic */
    for (int i = 0; i < 3; i++)
        CHECK(dd[i] == 0.5 * ((me - 1) * me / 2 + i * me), "double exscan dd[%d] = %g", i,
              dd[i]);
    shmem_sum_inscan(SHMEM_TEAM_WORLD, is, is, 3); /* in place */
    CHECK(is[2] == me * (me + 1) / 2 + 2 * (me + 1), "in-place inscan %d", is[2]);
    shmem_barrier_all();
}

static int stuck_flag[2]; /* misuse 6 to 8: nobody sets them */
static long polled_flag;
static long raced[16]; /* "race" */
static int verdict;    /* "verdict" */

int main(int argc, char **argv)
{
    reset_psync();
    if (argc > 2 && !strcmp(argv[1], "init_thread")) {
        int provided = -1, rc = shmem_init_thread(atoi(argv[2]), &provided);
        printf("shmem_init_thread: %d, provided %d\n", rc, provided);
        if (rc == 0)
            shmem_finalize();
        return rc == 0 ? 0 : 3;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (argc > 2 && !strcmp(argv[1], "exit")) {
        if (me == (n > 1 ? 1 : 0))
            shmem_global_exit(atoi(argv[2]));
        if (me == 2)
            for (volatile unsigned long spin = 0;; spin++) /* never enters the library */
                if (!(spin & 0xfffff))
                    usleep(1000);
        shmem_barrier_all(); /* the others wait here until the exit ends them */
        printf("FAIL: PE %d left the barrier after shmem_global_exit\n", me);
        return 1;
    }
    if (argc > 2 && !strcmp(argv[1], "misuse")) {
        static long global[4];
        long local[4] = {0};
        long *blk = shmem_malloc(sizeof(local));
        shmem_ctx_t ctx;
        int k = atoi(argv[2]);
        if (k == 0)
            shmem_long_put(blk, local, (size_t)1 << 61, 0); /* 2^64 bytes: wraps to 0 */
        else if (k == 1)
            shmem_long_put(global, local, (size_t)-1, 0);
        else if (k == 6 && me == 0)
            shmem_int_wait_until(&stuck_flag[1], SHMEM_CMP_EQ, 5);
        else if (k == 7 && me == 0)
            while (shmem_long_g(&polled_flag, 1) != 5)
                ;
        else if (k == 8)
            while (shmem_long_g(&polled_flag, (me + 1) % n) != 5)
                ;
        else if (k == 9)
            shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
        else if (k == 10)
            shmem_set_lock(local);
        else if (k == 12)
            shmem_broadcast64(dst, src, (size_t)1 << 62, 0, 0, 0, n, pSync2);
        else if (k == 13)
            shmem_alltoall64(dst, src, (size_t)1 << 62, 0, 0, n, pSync2);
        else if (k == 15 && me == 0) /* 15-17: PE 0 alone, which reports */
            shmem_long_wait_until(blk, 42, 0);
        else if (k == 16 && me == 0)
            shmem_long_put_signal(blk, local, 1, (uint64_t *)blk, 1, 77, 0);
        else if (k == 17 && me == 0)
            shmem_team_destroy(SHMEM_TEAM_WORLD);
        else if (k == 18) {
            shmem_team_t t;
            shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t);
            shmem_team_destroy(t);
            if (me == 0)
                shmem_team_sync(t);
        }
        else if (k == 20) { /* a split of a destroyed team: reported, unlike a bad triplet */
            shmem_team_t t, u;
            shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t);
            shmem_team_destroy(t);
            shmem_team_split_strided(t, 0, 1, 1, NULL, 0, &u);
        } else if (k == 19) { /* a handle no shmem_ctx_create ever set */
            shmem_ctx_t garbage = (shmem_ctx_t)(void *)&local[1];
            shmem_ctx_long_p(garbage, global, 1, 0);
        } else if (k == 11) {
            shmem_free(blk);
            shmem_free(blk);
        } else if (k == 14) {
            shmem_finalize();
            shmem_long_p(global, 1, 0); /* no PE any more: the process ends */
            printf("FAIL: PE %d went on after a put outside a PE\n", me);
            return 0;
        } else if (k == 4 || k == 5) {
            static long mlock;
            if (k == 4)
                shmem_set_lock(&mlock);
            if (k == 4 || me == 1)
                shmem_set_lock(&mlock); /* PE 1 waits its turn (k 4), or holds it */
            shmem_clear_lock(&mlock);   /* k 5: PE 0 never set it */
        } else if (k < 6 && shmem_ctx_create(0, &ctx) == 0) {
            shmem_ctx_destroy(ctx);
            if (k == 2)
                shmem_ctx_long_p(ctx, global, 1, 0);
            else
                shmem_ctx_destroy(ctx);
        }
        shmem_barrier_all();
        printf("FAIL: PE %d went on after a bad put\n", me);
        shmem_finalize();
        return 1;
    }
    if (argc > 2 && !strcmp(argv[1], "race")) {
        long mine[16];
        for (int i = 0; i < 16; i++)
            mine[i] = me * 100 + i;
        int ordered = atoi(argv[2]);
        if (me == 0)
            shmem_long_put(raced, mine, 16, n - 1);
        if (ordered) {
            shmem_quiet();
            shmem_barrier_all();
        }
        if (me == 1)
            shmem_long_put(raced, mine, 16, n - 1);
        shmem_barrier_all();
        if (ordered && me == n - 1)
            for (int i = 0; i < 16; i++)
                CHECK(raced[i] == 100 + i, "raced[%d] = %ld", i, raced[i]);
        shmem_finalize();
        return failures ? 1 : 0;
    }
    if (argc > 2 && !strcmp(argv[1], "verdict")) {
        int ordered = atoi(argv[2]), all = 1;
        verdict = 1000 + me;
        if (ordered)
            shmem_barrier_all();
        if (me == 0)
            for (int p = 1; p < n; p++)
                all &= shmem_int_g(&verdict, p) == 1000 + p;
        shmem_barrier_all();
        if (ordered)
            CHECK(all, "a verdict read after the barrier was not the one stored");
        shmem_finalize();
        return failures ? 1 : 0;
    }
    if (argc > 1 && !strcmp(argv[1], "big")) {
        size_t sz = (size_t)96 << 20;
        char *p = shmem_malloc(sz);
        CHECK(p != NULL, "shmem_malloc(96 MiB)");
        if (p) {
            p[sz - 1] = (char)me;
            shmem_barrier_all();
            CHECK(shmem_char_g(&p[sz - 1], (me + 1) % n) == (char)((me + 1) % n), "last byte");
            shmem_free(p);
        }
        if (me == 0 && !failures)
            printf("ok big %d\n", n);
        shmem_finalize();
        return failures ? 1 : 0;
    }
    int major, minor;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    CHECK(major == 1 && minor == 5 && !strncmp(name, "shmemu", 6), "version %d.%d %s", major,
          minor, name);
    globals_and_atomics(me, n);
    locks(me, n);
    strided(me, n);
    active_set(me, n);
    team_collectives(me, n);
    team_limits(me, n);
    contexts_and_p2p(me, n);
    openshmem_1_6(me, n);
    if (n <= 64)
        asymmetric_alloc(me, n);
    shmem_barrier_all();
    if (me == 0 && !failures)
        printf("ok %d\n", n);
    shmem_finalize();
    return failures ? 1 : 0;
}
