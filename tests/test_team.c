/* test_team.c - team splits (strided, 2-D, nested), translation, team sync,
 * destroy and slot reuse, invalid and mismatched arguments. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Expected membership of (start, stride, size) in a parent of n PEs: the
 * index of parent PE p, or -1; or -2 when the triplet is invalid. */
static int expect_index(int n, int start, int stride, int size, int p)
{
    long last = (long)start + (long)(size - 1) * stride;
    if (size < 1 || start < 0 || start >= n || last < 0 || last >= n ||
        (stride == 0 && size != 1))
        return -2;
    for (int i = 0; i < size; i++)
        if (start + i * stride == p)
            return i;
    return -1;
}

static const int splits[][3] = {
    {0, 1, 1},  {0, 1, 2},  {0, 2, 2},  {1, 2, 3},  {2, 3, 2},  {0, 1, 7},
    {3, -1, 4}, {6, -2, 4}, {4, 0, 1},  {5, 1, 1},
    /* invalid */
    {0, 1, 0},  {-1, 1, 2}, {0, 1, 99}, {2, 0, 2},  {1, -1, 3}, {0, 4, 3},
};

static int body_split_table(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    for (size_t k = 0; k < sizeof(splits) / sizeof(splits[0]); k++) {
        int start = splits[k][0], stride = splits[k][1], size = splits[k][2];
        int want = expect_index(np, start, stride, size, me);
        shmemu_team_t t = 12345;
        int st = shmemu_team_split_strided(SHMEMU_TEAM_WORLD, start, stride, size, NULL, 0,
                                           &t);
        if (want == -2) {
            PE_CHECK_EQ(st, SHMEMU_EINVAL);
            PE_CHECK_EQ(t, SHMEMU_TEAM_INVALID);
            continue;
        }
        PE_CHECK_OK(st);
        if (want < 0) {
            PE_CHECK_EQ(t, SHMEMU_TEAM_INVALID);
            PE_CHECK_EQ(shmemu_team_my_pe(t), -1);
            continue;
        }
        PE_CHECK(t != SHMEMU_TEAM_INVALID && t != SHMEMU_TEAM_WORLD);
        PE_CHECK_EQ(shmemu_team_my_pe(t), want);
        PE_CHECK_EQ(shmemu_team_n_pes(t), size);
        for (int i = 0; i < size; i++) {
            int world = start + i * stride;
            PE_CHECK_EQ(shmemu_team_translate_pe(t, i, SHMEMU_TEAM_WORLD), world);
            PE_CHECK_EQ(shmemu_team_translate_pe(SHMEMU_TEAM_WORLD, world, t), i);
        }
        PE_CHECK_EQ(shmemu_team_translate_pe(t, size, SHMEMU_TEAM_WORLD), -1);
        PE_CHECK_EQ(shmemu_team_translate_pe(t, 0, SHMEMU_TEAM_INVALID), -1);
        PE_CHECK_OK(shmemu_team_sync(t));
        shmemu_team_destroy(t);
        PE_CHECK_OK(shmemu_last_status());
    }
    return 0;
}

static void test_split_table(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_split_table, NULL, TH_NPES(1, 2, 3, 4, 7, 8), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: PE 0/7 shmemu_team_split_strided: start 0, stride "
                                "1, size 0 do not name PEs of a parent team of 7 PEs"));
    assert_null(strstr(err, "PE 1/7 shmemu_team_split_strided")); /* reported once */
    free(err);
}

/* A split of a split: odd PEs, then every other one of those. */
static int body_nested(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    shmemu_team_t odd, sub;
    PE_CHECK_OK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 1, 2, np / 2, NULL, 0, &odd));
    if (me % 2 == 0) {
        PE_CHECK_EQ(odd, SHMEMU_TEAM_INVALID);
        /* a non-member passes the INVALID parent on: defined, nonzero */
        PE_CHECK_EQ(shmemu_team_split_strided(odd, 0, 1, 1, NULL, 0, &sub), SHMEMU_EINVAL);
        PE_CHECK_EQ(sub, SHMEMU_TEAM_INVALID);
        return 0;
    }
    int n_odd = np / 2, n_sub = (n_odd + 1) / 2;
    PE_CHECK_EQ(shmemu_team_n_pes(odd), n_odd);
    PE_CHECK_OK(shmemu_team_split_strided(odd, 0, 2, n_sub, NULL, 0, &sub));
    int oi = shmemu_team_my_pe(odd);
    if (oi % 2) {
        PE_CHECK_EQ(sub, SHMEMU_TEAM_INVALID);
    } else {
        PE_CHECK_EQ(shmemu_team_my_pe(sub), oi / 2);
        PE_CHECK_EQ(shmemu_team_n_pes(sub), n_sub);
        /* sub PE i is world PE 1 + 4i, odd PE 2i */
        for (int i = 0; i < n_sub; i++) {
            PE_CHECK_EQ(shmemu_team_translate_pe(sub, i, SHMEMU_TEAM_WORLD), 1 + 4 * i);
            PE_CHECK_EQ(shmemu_team_translate_pe(sub, i, odd), 2 * i);
            PE_CHECK_EQ(shmemu_team_translate_pe(odd, 2 * i, sub), i);
        }
        PE_CHECK_EQ(shmemu_team_translate_pe(odd, 1, sub), -1);
        PE_CHECK_OK(shmemu_team_sync(sub));
        shmemu_team_destroy(sub);
    }
    PE_CHECK_OK(shmemu_team_sync(odd));
    shmemu_team_destroy(odd);
    return 0;
}

static void test_nested(void **state)
{
    (void)state;
    th_run(body_nested, NULL, TH_NPES(2, 4, 7, 9, 16), 0);
}

/* 2-D split: coordinates, sizes, the ragged last row, and the translation
 * back to world numbers. */
static int body_2d(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    for (int xr = 1; xr <= np + 1; xr++) {
        shmemu_team_t xt, yt;
        PE_CHECK_OK(shmemu_team_split_2d(SHMEMU_TEAM_WORLD, xr, NULL, 0, &xt, NULL, 0, &yt));
        int x = me % xr, y = me / xr;
        int row = y * xr, xsize = np - row < xr ? np - row : xr;
        int ysize = (np - x + xr - 1) / xr;
        PE_CHECK_EQ(shmemu_team_my_pe(xt), x);
        PE_CHECK_EQ(shmemu_team_my_pe(yt), y);
        PE_CHECK_EQ(shmemu_team_n_pes(xt), xsize);
        PE_CHECK_EQ(shmemu_team_n_pes(yt), ysize);
        for (int i = 0; i < xsize; i++)
            PE_CHECK_EQ(shmemu_team_translate_pe(xt, i, SHMEMU_TEAM_WORLD), row + i);
        for (int j = 0; j < ysize; j++)
            PE_CHECK_EQ(shmemu_team_translate_pe(yt, j, SHMEMU_TEAM_WORLD), x + j * xr);
        PE_CHECK_OK(shmemu_team_sync(xt));
        PE_CHECK_OK(shmemu_team_sync(yt));
        shmemu_team_destroy(xt);
        shmemu_team_destroy(yt);
    }
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    shmemu_team_t a, b;
    PE_CHECK_EQ(shmemu_team_split_2d(SHMEMU_TEAM_WORLD, 0, NULL, 0, &a, NULL, 0, &b),
                SHMEMU_EINVAL);
    PE_CHECK(a == SHMEMU_TEAM_INVALID && b == SHMEMU_TEAM_INVALID);
    return 0;
}

static void test_2d(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_2d, NULL, TH_NPES(1, 2, 3, 6, 7, 10), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_team_split_2d: xrange 0 is not positive"));
    free(err);
}

/* Disjoint teams sync concurrently, many times, without passing early: the
 * round counter pattern of test_sync, per team. */
static int body_team_sync(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    shmemu_team_t row, col;
    int xr = np >= 4 ? 2 : 1;
    PE_CHECK_OK(shmemu_team_split_2d(SHMEMU_TEAM_WORLD, xr, NULL, 0, &row, NULL, 0, &col));
    long *slot = shmemu_calloc(2, sizeof(long));
    int n = shmemu_team_n_pes(col), i = shmemu_team_my_pe(col);
    int right = shmemu_team_translate_pe(col, (i + 1) % n, SHMEMU_TEAM_WORLD);
    long rounds = th_iters(20000, 100);
    for (long r = 1; r <= rounds; r++) {
        PE_CHECK_OK(shmemu_long_p(&slot[r % 2], r, right));
        PE_CHECK_OK(shmemu_quiet());
        PE_CHECK_OK(shmemu_team_sync(col));
        long got = __atomic_load_n(&slot[r % 2], __ATOMIC_ACQUIRE);
        if (got != r)
            th_pe_fail(__FILE__, __LINE__, "round %ld: slot holds %ld", r, got);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    (void)me;
    shmemu_free(slot);
    shmemu_team_destroy(row);
    shmemu_team_destroy(col);
    return 0;
}

static void test_team_sync(void **state)
{
    (void)state;
    th_run(body_team_sync, NULL, TH_NPES(2, 4, 5, 8), 0);
}

/* Slots: create until full (ENOMEM), destroy, reuse; stale handles; the
 * predefined teams cannot be destroyed; get_config. */
static int body_slots(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    int np = shmemu_n_pes();
    enum { MAXT = 80 };
    shmemu_team_t t[MAXT];
    int made = 0, st;
    shmemu_team_config_t cfg = {.num_contexts = 3};
    while (made < MAXT &&
           (st = shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, np, &cfg,
                                           SHMEMU_TEAM_NUM_CONTEXTS, &t[made])) == 0)
        made++;
    PE_CHECK(made >= 32 && made < MAXT);
    PE_CHECK_EQ(st, SHMEMU_ENOMEM);
    shmemu_team_config_t back = {0};
    PE_CHECK_OK(shmemu_team_get_config(t[0], SHMEMU_TEAM_NUM_CONTEXTS, &back));
    PE_CHECK_EQ(back.num_contexts, 3);
    shmemu_team_t stale = t[made - 1];
    for (int i = 0; i < made; i++)
        shmemu_team_destroy(t[i]);
    PE_CHECK_OK(shmemu_barrier_all()); /* every member has destroyed them */
    PE_CHECK_EQ(shmemu_team_sync(stale), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_team_my_pe(stale), -1);
    shmemu_team_t again;
    PE_CHECK_OK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, np, NULL, 0, &again));
    PE_CHECK(again != stale); /* a reused slot gets a new handle */
    PE_CHECK_EQ(shmemu_team_my_pe(stale), -1);
    PE_CHECK_OK(shmemu_team_sync(again));
    shmemu_team_destroy(again);
    shmemu_team_destroy(SHMEMU_TEAM_WORLD);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    shmemu_team_destroy(SHMEMU_TEAM_INVALID);
    PE_CHECK_OK(shmemu_last_status());
    PE_CHECK_EQ(shmemu_team_n_pes(SHMEMU_TEAM_SHARED), np);
    PE_CHECK_OK(shmemu_team_sync(SHMEMU_TEAM_SHARED));
    PE_CHECK_EQ(shmemu_team_sync(SHMEMU_TEAM_INVALID), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, 1, NULL, 0, NULL),
                SHMEMU_EINVAL);
    return 0;
}

static void test_slots(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_slots, NULL, TH_NPES(1, 3), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "no free team slot: all 64 are in use"));
    assert_non_null(strstr(err, "shmemu_team_destroy: the predefined team SHMEMU_TEAM_WORLD "
                                "cannot be destroyed"));
    assert_non_null(strstr(err, "shmemu_team_sync: team "));
    free(err);
}

/* PEs passing different triplets, each member of a new team that team's:
 * a team of each PE, teams of 3 consecutive PEs (the last one short), and
 * a PE left out of its own triplet.  Each team works on its own: its sum
 * of world PE numbers. */
static int body_groups(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    int64_t *v = shmemu_malloc(2 * sizeof(int64_t));
    PE_CHECK(v != NULL);
    for (int kind = 0; kind < 3; kind++) {
        int start = me, size = 1;
        if (kind == 1)
            start = me / 3 * 3, size = np - start < 3 ? np - start : 3;
        if (kind == 2 && me == np - 1 && np > 1)
            start = 0, size = 1; /* PE 0's own team; not one of this PE */
        shmemu_team_t t = 12345;
        PE_CHECK_OK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, start, 1, size, NULL, 0, &t));
        if (me < start || me >= start + size) {
            PE_CHECK_EQ(t, SHMEMU_TEAM_INVALID);
            PE_CHECK_OK(shmemu_barrier_all());
            continue;
        }
        PE_CHECK_EQ(shmemu_team_n_pes(t), size);
        PE_CHECK_EQ(shmemu_team_my_pe(t), me - start);
        PE_CHECK_EQ(shmemu_team_translate_pe(t, 0, SHMEMU_TEAM_WORLD), start);
        v[0] = me;
        PE_CHECK_OK(shmemu_allreduce(t, &v[1], &v[0], 1, SHMEMU_INT64, SHMEMU_SUM));
        PE_CHECK_EQ(v[1], (int64_t)size * start + (int64_t)size * (size - 1) / 2);
        shmemu_team_destroy(t);
        PE_CHECK_OK(shmemu_barrier_all());
    }
    shmemu_free(v);
    return 0;
}

static void test_groups(void **state)
{
    (void)state;
    th_run(body_groups, NULL, TH_NPES(1, 2, 3, 5, 7), 0);
}

/* PEs passing different triplets, one of which holds a PE that passed
 * another: SHMEMU_EMISMATCH everywhere, one report.  An invalid triplet on
 * one PE only: SHMEMU_EINVAL everywhere. */
static int body_mismatch(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    int me = shmemu_my_pe();
    shmemu_team_t t;
    PE_CHECK_EQ(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, me == 2 ? 2 : 3, NULL, 0,
                                          &t),
                SHMEMU_EMISMATCH);
    PE_CHECK_EQ(t, SHMEMU_TEAM_INVALID);
    PE_CHECK_EQ(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, me, 1, me == 3 ? 2 : 1, NULL, 0,
                                          &t),
                SHMEMU_EINVAL);
    PE_CHECK_EQ(t, SHMEMU_TEAM_INVALID);
    /* still in step: a proper split works */
    PE_CHECK_OK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, 3, NULL, 0, &t));
    shmemu_team_destroy(t);
    return 0;
}

static void test_mismatch(void **state)
{
    (void)state;
    th_capture_start();
    for (int k = 0; k < th_transport_count(); k++)
        assert_int_equal(th_launch(th_transport(k), 4, 0, body_mismatch, NULL), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: PE 0/4 shmemu_team_split_strided: PEs disagree: PE 0 "
                                "passed start 0, stride 1, size 3, a team that holds PE 2, "
                                "but PE 2 passed start 0, stride 1, size 2 (the members of "
                                "a new team must pass its triplet)\n"));
    assert_non_null(strstr(err, "shmemu: PE 3/4 shmemu_team_split_strided: start 3, stride 1, "
                                "size 2 do not name PEs of a parent team of 4 PEs\n"));
    assert_null(strstr(err, "PE 1/4 shmemu_team_split_strided"));
    assert_null(strstr(err, "PE 2/4 shmemu_team_split_strided"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_table), cmocka_unit_test(test_nested),
        cmocka_unit_test(test_2d),          cmocka_unit_test(test_team_sync),
        cmocka_unit_test(test_slots),       cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_groups),
    };
    return cmocka_run_group_tests_name("team", tests, NULL, NULL);
}
