/* test_misuse.c - misuse that once crashed, corrupted or desynchronised a
 * job: size overflows in collectives, freeing the team workspace, using a
 * destroyed team, PEs in different collective calls, large alignments,
 * argument names in messages.  Each bad call must return its status, leave
 * memory alone and leave the job usable. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* After a misuse the job must still compute: an allreduce with known sums. */
static void check_still_works(void)
{
    int np = shmemu_n_pes(), me = shmemu_my_pe();
    long *v = shmemu_malloc(2 * sizeof(long));
    PE_CHECK(v != NULL);
    v[0] = me + 1;
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_OK(shmemu_allreduce(SHMEMU_TEAM_WORLD, &v[1], &v[0], 1, SHMEMU_INT64,
                                 SHMEMU_SUM));
    PE_CHECK_EQ(v[1], (long)np * (np + 1) / 2);
    shmemu_free(v);
    PE_CHECK_OK(shmemu_last_status());
}

/* Defect: count * npes and count * elem_size wrapped, the bounds check saw
 * a few bytes and a huge memcpy followed. */
static int body_overflow(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    int np = shmemu_n_pes();
    unsigned char *a = shmemu_calloc(1, 4096), *b = shmemu_calloc(1, 4096);
    PE_CHECK(a && b);
    shmemu_team_t w = SHMEMU_TEAM_WORLD;
    /* Wraps times npes (when npes > 1), times the element size, or both. */
    const size_t counts[] = {SIZE_MAX, SIZE_MAX / 2 + 1, SIZE_MAX / 8 + 1, SIZE_MAX / 24 + 1,
                             4097};
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        size_t c = counts[k];
        /* EINVAL when count * esize * (npes or 1) overflows, else ERANGE
         * (the buffers hold 4096 bytes). */
#define EXPECT(esize, f) (c > SIZE_MAX / (esize) / (f) ? SHMEMU_EINVAL : SHMEMU_ERANGE)
        size_t n = (size_t)np;
        PE_CHECK_EQ(shmemu_alltoallmem(w, b, a, c), EXPECT(1, n));
        PE_CHECK_EQ(shmemu_fcollectmem(w, b, a, c), EXPECT(1, n));
        PE_CHECK_EQ(shmemu_broadcastmem(w, b, a, c, 0), EXPECT(1, 1));
        PE_CHECK_EQ(shmemu_alltoall(w, b, a, c, SHMEMU_INT64), EXPECT(8, n));
        PE_CHECK_EQ(shmemu_allgather(w, b, a, c, SHMEMU_DOUBLE), EXPECT(8, n));
        PE_CHECK_EQ(shmemu_allgather_bruck(w, b, a, c, SHMEMU_UINT64), EXPECT(8, n));
        PE_CHECK_EQ(shmemu_allgather_rd(w, b, a, c, SHMEMU_UINT16), EXPECT(2, n));
        PE_CHECK_EQ(shmemu_reduce_scatter(w, b, a, c, SHMEMU_UINT64, SHMEMU_SUM),
                    EXPECT(8, n));
        PE_CHECK_EQ(shmemu_reduce_scatter_rhalving(w, b, a, c, SHMEMU_UINT64, SHMEMU_SUM),
                    EXPECT(8, n));
        PE_CHECK_EQ(shmemu_allreduce(w, b, a, c, SHMEMU_INT64, SHMEMU_SUM), EXPECT(8, 1));
        PE_CHECK_EQ(shmemu_allreduce_ring(w, b, a, c, SHMEMU_FLOAT, SHMEMU_MAX), EXPECT(4, 1));
        PE_CHECK_EQ(shmemu_broadcast(w, b, a, c, SHMEMU_DOUBLE, 0), EXPECT(8, 1));
        PE_CHECK_EQ(shmemu_reduce(w, b, a, c, SHMEMU_UINT64, SHMEMU_MAX, 0), EXPECT(8, 1));
        PE_CHECK_EQ(shmemu_long_sum_reduce(w, (long *)(void *)b, (long *)(void *)a, c),
                    EXPECT(sizeof(long), 1));
#undef EXPECT
    }
    for (int i = 0; i < 4096; i++) /* nothing was written */
        PE_CHECK_EQ(b[i], 0);
    shmemu_free(a);
    shmemu_free(b);
    check_still_works();
    return 0;
}

static void test_overflow(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_overflow, NULL, TH_NPES(1, 2, 3, 5), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_alltoall_pairwise: count 18446744073709551615 of "
                                "1-byte elements times 2 PEs overflows size_t\n"));
    assert_non_null(strstr(err, "shmemu_allreduce_"));
    free(err);
}

/* A bad free names the mistake: a pointer into a block, a block freed
 * already, an address outside the heap; the heap is left as it was. */
static int body_bad_free(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    char *a = shmemu_malloc(256), *b = shmemu_malloc(256);
    PE_CHECK(a != NULL && b != NULL);
    memset(b, 0x5a, 256);
    shmemu_free(a + 8);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    shmemu_free(a);
    PE_CHECK_OK(shmemu_last_status());
    shmemu_free(a);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    char local[16];
    shmemu_free(local);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    for (int i = 0; i < 256; i++)
        PE_CHECK_EQ(b[i], 0x5a);
    shmemu_free(b);
    PE_CHECK_OK(shmemu_last_status());
    check_still_works();
    return 0;
}

static void test_bad_free(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_bad_free, NULL, TH_NPES(1, 3), (size_t)2 << 20);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: PE 0/3 shmemu_free: ptr 0x"));
    assert_non_null(strstr(err, " is 8 bytes into the block at 0x"));
    assert_non_null(strstr(err, ": pass the address shmemu_malloc returned\n"));
    assert_non_null(strstr(err, " is not an allocated block: it was freed already, or never "
                                "returned by shmemu_malloc\n"));
    assert_non_null(strstr(err, " is not in the symmetric heap (not a block returned by "
                                "shmemu_malloc)\n"));
    /* PE 0 alone speaks for the PEs, which all made the same call */
    assert_null(strstr(err, "PE 1/3 shmemu_free"));
    free(err);
}

/* Defect: the reserved team workspaces could be freed or realloc'd, and
 * later blocks then overlapped every team's signal words. */
static int body_workspace(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    char *ws = shmemu_team_workspace(SHMEMU_TEAM_WORLD);
    PE_CHECK(ws != NULL);
    shmemu_free(ws);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    shmemu_free(ws + 64);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK(shmemu_realloc(ws, 128) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    shmemu_team_t t;
    PE_CHECK_OK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, shmemu_n_pes(), NULL, 0,
                                          &t));
    char *tws = shmemu_team_workspace(t);
    shmemu_free(tws);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    /* Fill the heap with blocks: none may reach into a workspace. */
    size_t lo = (size_t)-1, hi = 0;
    void *blk[64];
    int nb = 0;
    while (nb < 64 && (blk[nb] = shmemu_malloc(96 << 10)) != NULL) {
        uintptr_t p = (uintptr_t)blk[nb];
        lo = p < lo ? p : lo;
        hi = p + (96 << 10) > hi ? p + (96 << 10) : hi;
        nb++;
    }
    PE_CHECK(nb > 0);
    PE_CHECK(hi <= (uintptr_t)ws || lo >= (uintptr_t)ws + SHMEMU_TEAM_WORKSPACE_BYTES);
    PE_CHECK(hi <= (uintptr_t)tws || lo >= (uintptr_t)tws + SHMEMU_TEAM_WORKSPACE_BYTES);
    for (int i = 0; i < nb; i++)
        shmemu_free(blk[i]);
    shmemu_team_destroy(t);
    check_still_works();
    return 0;
}

static void test_workspace(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_workspace, NULL, TH_NPES(1, 2, 3), (size_t)2 << 20);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: PE 0/3 shmemu_free: ptr 0x"));
    assert_non_null(strstr(err, " is in a team workspace, which the library reserves (not a "
                                "block returned by shmemu_malloc)\n"));
    assert_non_null(strstr(err, "shmemu_realloc: ptr 0x"));
    free(err);
}

/* Defect: a destroyed team kept working on the PE that destroyed it, and a
 * second destroy freed the slot that other members still used. */
static int body_destroy(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *x = shmemu_calloc(1, sizeof(long));
    shmemu_team_t t;
    PE_CHECK_OK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, np, NULL, 0, &t));
    if (me == 0) {
        shmemu_team_destroy(t);
        PE_CHECK_OK(shmemu_last_status());
        /* dead here, at once */
        PE_CHECK_EQ(shmemu_team_my_pe(t), -1);
        PE_CHECK_EQ(shmemu_team_n_pes(t), -1);
        PE_CHECK_EQ(shmemu_team_translate_pe(t, 0, SHMEMU_TEAM_WORLD), -1);
        PE_CHECK_EQ(shmemu_team_sync(t), SHMEMU_EINVAL);
        PE_CHECK(shmemu_team_workspace(t) == NULL);
        PE_CHECK_EQ(shmemu_allreduce(t, x, x, 1, SHMEMU_INT64, SHMEMU_SUM), SHMEMU_EINVAL);
        shmemu_team_destroy(t); /* twice: an error, the slot stays */
        PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    /* New teams may not take the slot the others still use. */
    shmemu_team_t u[3];
    for (int i = 0; i < 3; i++)
        PE_CHECK_OK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, np, NULL, 0, &u[i]));
    if (me != 0) {
        PE_CHECK_EQ(shmemu_team_n_pes(t), np);
        PE_CHECK_EQ(shmemu_team_my_pe(t), me);
        shmemu_team_destroy(t);
        PE_CHECK_OK(shmemu_last_status());
        PE_CHECK_EQ(shmemu_team_my_pe(t), -1);
    }
    for (int i = 0; i < 3; i++) {
        PE_CHECK_OK(shmemu_team_sync(u[i]));
        shmemu_team_destroy(u[i]);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    /* Every member destroyed t: its slot is free again, many times over. */
    for (int i = 0; i < 150; i++) {
        PE_CHECK_OK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, np, NULL, 0, &t));
        shmemu_team_destroy(t);
    }
    shmemu_free(x);
    check_still_works();
    return 0;
}

static void test_destroy(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_destroy, NULL, TH_NPES(1, 2, 3, 4), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: PE 0/2 shmemu_team_destroy: team "));
    assert_non_null(strstr(err, " was destroyed on this PE (shmemu_team_destroy)\n"));
    assert_non_null(strstr(err, "shmemu: PE 0/3 shmemu_team_sync: team "));
    free(err);
}

/* Defect: in RETURN mode, PEs in different collective calls ran different
 * numbers of internal syncs and every later barrier paired with the wrong
 * call.  Now every PE gets SHMEMU_EMISMATCH and the job stays in step. */
static int body_mixed_calls(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *blk = shmemu_malloc(64);
    PE_CHECK(blk != NULL);
    for (int round = 0; round < 3; round++) {
        /* 1. PE 0 frees while the others allocate */
        void *p = NULL;
        if (me == 0)
            shmemu_free(blk);
        else
            p = shmemu_malloc(128);
        PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EMISMATCH);
        PE_CHECK(p == NULL);
        check_still_works();
        /* 2. a team split against an allocation */
        shmemu_team_t t = 7;
        if (me == np - 1)
            PE_CHECK_EQ(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, np, NULL, 0, &t),
                        SHMEMU_EMISMATCH);
        else
            PE_CHECK(shmemu_malloc(256) == NULL);
        PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EMISMATCH);
        check_still_works();
        /* 3. a barrier against an allocation */
        if (me == 0)
            PE_CHECK_EQ(shmemu_barrier_all(), SHMEMU_EMISMATCH);
        else
            PE_CHECK(shmemu_calloc(4, 8) == NULL);
        PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EMISMATCH);
        check_still_works();
        /* 4. a team sync against a free */
        if (me == 1)
            PE_CHECK_EQ(shmemu_team_sync(SHMEMU_TEAM_WORLD), SHMEMU_EMISMATCH);
        else
            shmemu_free(blk);
        PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EMISMATCH);
        check_still_works();
        /* 5. PE 0 frees a stack address while the others free blk */
        long local;
        shmemu_free(me == 0 ? (void *)&local : (void *)blk);
        PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EMISMATCH);
        check_still_works();
    }
    /* Still in step: blk is still allocated everywhere, and a put lands. */
    blk[0] = -1;
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_OK(shmemu_long_p(blk, me, (me + 1) % np));
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(blk[0], (me + np - 1) % np);
    shmemu_free(blk);
    PE_CHECK_OK(shmemu_last_status());
    return 0;
}

static void test_mixed_calls(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_mixed_calls, NULL, TH_NPES(2, 3, 5), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: PE 0/3 shmemu_free: PEs disagree: PE 0 passed block "
                                "at heap offset 0x0 but PE 1 is in an allocation, not a free"));
    assert_non_null(strstr(err, "shmemu: PE 0/2 shmemu_free: PEs disagree: PE 0 passed a pointer "
                                "that is no heap block but PE 1 passed block at heap offset 0x0"));
    assert_non_null(strstr(err, "shmemu: PE 0/5 shmemu_barrier_all: PEs disagree: this PE is "
                                "in a barrier or team sync while others of the team are in "
                                "a collective allocation, free or team split\n"));
    free(err);
}

/* ABORT mode: the same mismatch ends the job with SHMEMU_EMISMATCH. */
static int body_mixed_abort(void *arg)
{
    (void)arg;
    if (shmemu_my_pe() == 0)
        shmemu_barrier_all();
    else
        shmemu_malloc(64);
    return 0;
}

static void test_mixed_abort(void **state)
{
    (void)state;
    th_capture_start();
    for (int k = 0; k < th_transport_count(); k++)
        assert_int_equal(th_launch(th_transport(k), 3, 0, body_mixed_abort, NULL),
                         SHMEMU_EMISMATCH);
    free(th_capture_stop());
}

/* Checker mode: members that pass different counts, roots or ops to a
 * collective get SHMEMU_EMISMATCH, with the values that differ, and the
 * job stays usable. */
static int body_coll_args(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *v = shmemu_calloc(16, sizeof(long));
    PE_CHECK(v != NULL);
    PE_CHECK_EQ(shmemu_allreduce_ring(SHMEMU_TEAM_WORLD, v + 8, v, me == 1 ? 4 : 5, SHMEMU_INT64,
                                      SHMEMU_SUM),
                SHMEMU_EMISMATCH);
    PE_CHECK_EQ(shmemu_broadcast_tree(SHMEMU_TEAM_WORLD, v + 8, v, 3, SHMEMU_INT64,
                                      me == np - 1 ? 1 : 0),
                SHMEMU_EMISMATCH);
    PE_CHECK_EQ(shmemu_allreduce(SHMEMU_TEAM_WORLD, v + 8, v, 3, SHMEMU_INT64,
                                 me ? SHMEMU_MAX : SHMEMU_SUM),
                SHMEMU_EMISMATCH);
    PE_CHECK_OK(shmemu_barrier_all());
    /* the call itself: agreeing values pass, bad arguments are refused alone */
    long long same[2] = {17, 3};
    PE_CHECK_OK(shmemu_team_agree(SHMEMU_TEAM_WORLD, "my_coll", "count,root", same, 2));
    PE_CHECK_EQ(shmemu_team_agree(SHMEMU_TEAM_WORLD, "my_coll", "count", NULL, 1),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_team_agree(SHMEMU_TEAM_WORLD, "my_coll", "a,b,c,d,e,f", same, 6),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_team_agree(SHMEMU_TEAM_INVALID, "my_coll", "count", same, 1),
                SHMEMU_EINVAL);
    long long mine[1] = {me == 2 ? 8 : 7};
    PE_CHECK_EQ(shmemu_team_agree(SHMEMU_TEAM_WORLD, "my_coll", "chunk", mine, 1),
                SHMEMU_EMISMATCH);
    check_still_works();
    shmemu_free(v);
    return 0;
}

static void test_coll_args(void **state)
{
    (void)state;
    th_capture_start();
    for (int t = 0; t < th_transport_count(); t++) {
        shmemu_opts o = {.npes = 3, .transport = th_transport(t), .heap_size = TH_HEAP,
                         .check = "race"};
        assert_int_equal(shmemu_launch(&o, body_coll_args, NULL), 0);
    }
    char *err = th_capture_stop();
    /* types and ops by name; no root or op where the call takes none */
    assert_non_null(strstr(err, "shmemu: PE 0/3 shmemu_allreduce_ring: PEs disagree: PE 0 passed "
                                "count 5, dtype int64, op sum but PE 1 passed count 4, dtype "
                                "int64, op sum\n"));
    assert_non_null(strstr(err, "shmemu_broadcast_tree: PEs disagree: PE 0 passed count 3, root "
                                "0, dtype int64 but PE 2 passed count 3, root 1, dtype int64\n"));
    assert_non_null(strstr(err, "PE 1 passed count 3, dtype int64, op max\n"));
    assert_non_null(strstr(err, "shmemu_team_agree: vals is NULL\n"));
    assert_non_null(strstr(err, "shmemu_team_agree: nvals is not in 0..5\n"));
    assert_non_null(strstr(err, "my_coll: PEs disagree: PE 0 passed chunk 7 but PE 2 passed "
                                "chunk 8\n"));
    free(err);
}

/* Alignments above 2 MiB hold on every PE; the cap and non-powers of two
 * are refused with the real reason. */
static int body_align(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    const size_t aligns[] = {1, 64, (size_t)4 << 20, (size_t)16 << 20};
    for (size_t k = 0; k < sizeof(aligns) / sizeof(aligns[0]); k++) {
        int *p = shmemu_align(aligns[k], 100);
        PE_CHECK(p != NULL);
        PE_CHECK_EQ((uintptr_t)p % aligns[k], 0);
        PE_CHECK_OK(shmemu_int_p(p, me, (me + 1) % np));
        PE_CHECK_OK(shmemu_barrier_all());
        PE_CHECK_EQ(*p, (me + np - 1) % np);
        shmemu_free(p);
    }
    PE_CHECK(shmemu_align((size_t)512 << 20, 8) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK(shmemu_align(3, 8) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK(shmemu_align(0, 8) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    check_still_works();
    return 0;
}

static void test_align(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_align, NULL, TH_NPES(1, 2, 3), (size_t)40 << 20);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_align: alignment 536870912 is larger than the "
                                "largest supported, 268435456"));
    assert_non_null(strstr(err, "shmemu_align: alignment 3 is not a power of two\n"));
    assert_null(strstr(err, "alignment 4194304"));
    free(err);
}

/* Messages name the argument as the prototype does. */
static int body_names(void *arg)
{
    (void)arg;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    char *b = shmemu_calloc(1, 64);
    PE_CHECK_EQ(shmemu_signal_fetch((const uint64_t *)(void *)(b + 4)), 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_signal_fetch(NULL), 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    (void)shmemu_int_test((int *)(void *)(b + 2), SHMEMU_CMP_EQ, 0);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    shmemu_free(b);
    return 0;
}

static void test_names(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_names, NULL, TH_NPES(1), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_signal_fetch: sig_addr 0x"));
    assert_non_null(strstr(err, "shmemu_signal_fetch: sig_addr is NULL"));
    assert_non_null(strstr(err, "shmemu_int_test: ivar 0x"));
    assert_null(strstr(err, "shmemu_signal_fetch: ivar"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overflow),    cmocka_unit_test(test_workspace),
        cmocka_unit_test(test_destroy),     cmocka_unit_test(test_mixed_calls),
        cmocka_unit_test(test_mixed_abort), cmocka_unit_test(test_coll_args),
        cmocka_unit_test(test_align),       cmocka_unit_test(test_bad_free),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests_name("misuse", tests, NULL, NULL);
}
