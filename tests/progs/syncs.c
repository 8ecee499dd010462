/*
 * syncs - an SPMD program for the barriers and team syncs of a job's
 * control plane, meant for the one over the network (test_ucx runs it
 * under mpirun with SHMEMU_UCX_CONTROL=network).  Prints one "FAIL" line
 * per wrong value and "ok NPES" from PE 0 when every PE passed.
 *
 *   syncs order    a sync never lets a PE through early: rounds of "put
 *                  the round number to the right, sync, read what came
 *                  from the left", on the world and on strided teams of
 *                  every other and every third PE (sizes that are not
 *                  powers of two), with team slots reused, the world
 *                  backwards (stride -1) and a team of one (stride 0)
 *   syncs mixed    PEs in different collective calls (a barrier or team
 *                  sync against an allocation, a free against an
 *                  allocation, a split against an allocation) all get
 *                  SHMEMU_EMISMATCH, in ERRORS_RETURN mode, and the job
 *                  stays in step
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osh_check.h" /* CHECK, failures */
#include "shmemu.h"

/* Rounds of put-right, sync, read-left on team (world PEs start + i *
 * stride); box is symmetric, one long per round parity. */
static void ring_rounds(shmemu_team_t team, int start, int stride, long *box, int rounds)
{
    int n = shmemu_team_n_pes(team), i = shmemu_team_my_pe(team);
    int right = start + (i + 1) % n * stride, left = (i + n - 1) % n;
    for (int r = 1; r <= rounds; r++) {
        /* Parity: a fast left neighbour's next put lands in the other box. */
        long v = (long)r * 1000 + left;
        CHECK(shmemu_long_p(&box[r & 1], (long)r * 1000 + i, right) == SHMEMU_OK, "put");
        CHECK(shmemu_quiet() == SHMEMU_OK, "quiet");
        CHECK(shmemu_team_sync(team) == SHMEMU_OK, "team_sync");
        CHECK(box[r & 1] == v, "round %d on a team of %d: got %ld from member %d, want %ld", r,
              n, box[r & 1], left, v);
        /* Nobody writes this box again before all have read it. */
        CHECK(shmemu_team_sync(team) == SHMEMU_OK, "team_sync");
    }
}

static void order(void)
{
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *box = shmemu_calloc(2, sizeof(long));
    CHECK(box != NULL, "calloc");
    for (int r = 1; r <= 300; r++) { /* the world's barrier */
        CHECK(shmemu_long_p(&box[r & 1], r, (me + 1) % np) == SHMEMU_OK, "put");
        CHECK(shmemu_barrier_all() == SHMEMU_OK, "barrier_all");
        CHECK(box[r & 1] == r, "barrier round %d: got %ld", r, box[r & 1]);
        CHECK(shmemu_barrier_all() == SHMEMU_OK, "barrier_all");
    }
    ring_rounds(SHMEMU_TEAM_WORLD, 0, 1, box, 100);
    /* Teams of every other and every third PE, made and destroyed twice:
     * a slot a team leaves is taken by the next with its syncs at zero. */
    for (int pass = 0; pass < 2; pass++) {
        for (int stride = 2; stride <= 3; stride++) {
            for (int start = 0; start < stride && start < np; start++) {
                int size = (np - start + stride - 1) / stride;
                shmemu_team_t t = SHMEMU_TEAM_INVALID;
                CHECK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, start, stride, size, NULL,
                                                0, &t) == SHMEMU_OK,
                      "split");
                int member = me >= start && (me - start) % stride == 0;
                CHECK((t != SHMEMU_TEAM_INVALID) == member, "membership of team %d/%d", start,
                      stride);
                if (member) {
                    ring_rounds(t, start, stride, box, 40 + pass);
                    shmemu_team_destroy(t);
                }
                CHECK(shmemu_barrier_all() == SHMEMU_OK, "barrier_all");
            }
        }
    }
    /* The world backwards (stride -1) and a team of PE 0 alone (stride 0):
     * members as the API numbers them, on every plane. */
    static const int odd[2][3] = {{-1, -1, 0}, {0, 0, 1}};
    for (int k = 0; k < 2; k++) {
        int start = odd[k][0] < 0 ? np - 1 : odd[k][0], stride = odd[k][1];
        int size = odd[k][2] ? odd[k][2] : np;
        shmemu_team_t t = SHMEMU_TEAM_INVALID;
        CHECK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, start, stride, size, NULL, 0, &t) ==
                  SHMEMU_OK,
              "split %d/%d/%d", start, stride, size);
        int member = stride ? 1 : me == start;
        CHECK((t != SHMEMU_TEAM_INVALID) == member, "membership of team %d/%d", start, stride);
        if (member && t != SHMEMU_TEAM_INVALID) {
            ring_rounds(t, start, stride, box, 20);
            shmemu_team_destroy(t);
        }
        CHECK(shmemu_barrier_all() == SHMEMU_OK, "barrier_all");
    }
    shmemu_free(box);
}

/* A plain barrier and an allocation, then more: does the job still work? */
static void still_works(void)
{
    int np = shmemu_n_pes(), me = shmemu_my_pe();
    long *v = shmemu_malloc(2 * sizeof(long));
    CHECK(v != NULL, "malloc");
    if (!v)
        return;
    v[0] = me + 1;
    CHECK(shmemu_barrier_all() == SHMEMU_OK, "barrier_all");
    CHECK(shmemu_allreduce(SHMEMU_TEAM_WORLD, &v[1], &v[0], 1, SHMEMU_INT64, SHMEMU_SUM) ==
              SHMEMU_OK,
          "allreduce");
    CHECK(v[1] == (long)np * (np + 1) / 2, "sum %ld", v[1]);
    shmemu_free(v);
    CHECK(shmemu_last_status() == SHMEMU_OK, "status %d", shmemu_last_status());
}

static void mixed(void)
{
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    CHECK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN) == SHMEMU_OK, "error mode");
    long *blk = shmemu_malloc(64);
    CHECK(blk != NULL, "malloc");
    for (int round = 0; round < 3; round++) {
        void *p = NULL;
        if (me == 0) /* a free against allocations */
            shmemu_free(blk);
        else
            p = shmemu_malloc(128);
        CHECK(shmemu_last_status() == SHMEMU_EMISMATCH, "free/malloc: %d",
              shmemu_last_status());
        CHECK(p == NULL, "malloc in a mismatch");
        still_works();
        shmemu_team_t t = 7; /* a split against allocations */
        if (me == np - 1)
            CHECK(shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 1, np, NULL, 0, &t) ==
                      SHMEMU_EMISMATCH,
                  "split");
        else
            CHECK(shmemu_malloc(256) == NULL, "malloc in a mismatch");
        CHECK(shmemu_last_status() == SHMEMU_EMISMATCH, "split/malloc: %d",
              shmemu_last_status());
        still_works();
        if (me == 0) /* a barrier against allocations */
            CHECK(shmemu_barrier_all() == SHMEMU_EMISMATCH, "barrier");
        else
            CHECK(shmemu_calloc(4, 8) == NULL, "calloc in a mismatch");
        CHECK(shmemu_last_status() == SHMEMU_EMISMATCH, "barrier/calloc: %d",
              shmemu_last_status());
        still_works();
        if (me == 1 % np) /* a team sync against frees */
            CHECK(shmemu_team_sync(SHMEMU_TEAM_WORLD) == SHMEMU_EMISMATCH, "team_sync");
        else
            shmemu_free(blk);
        CHECK(shmemu_last_status() == SHMEMU_EMISMATCH, "team_sync/free: %d",
              shmemu_last_status());
        still_works();
    }
    /* In step: blk is still allocated everywhere, and a put lands. */
    blk[0] = -1;
    CHECK(shmemu_barrier_all() == SHMEMU_OK, "barrier_all");
    CHECK(shmemu_long_p(blk, me, (me + 1) % np) == SHMEMU_OK, "put");
    CHECK(shmemu_barrier_all() == SHMEMU_OK, "barrier_all");
    CHECK(blk[0] == (me + np - 1) % np, "got %ld", blk[0]);
    shmemu_free(blk);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "order") && strcmp(argv[1], "mixed"))) {
        fprintf(stderr, "usage: syncs order|mixed\n");
        return 2;
    }
    if (shmemu_init() != SHMEMU_OK)
        return 1;
    if (!strcmp(argv[1], "mixed") && shmemu_n_pes() < 2) {
        printf("ok 1\n"); /* nobody to disagree with */
    } else {
        if (!strcmp(argv[1], "order"))
            order();
        else
            mixed();
        /* Every PE's failures, summed at PE 0. */
        int *sum = shmemu_calloc(1, sizeof(int));
        if (sum) {
            CHECK(shmemu_int_atomic_add(sum, failures > 0, 0) == SHMEMU_OK, "atomic");
            CHECK(shmemu_barrier_all() == SHMEMU_OK, "barrier_all");
            if (shmemu_my_pe() == 0 && *sum == 0 && failures == 0)
                printf("ok %d\n", shmemu_n_pes());
            shmemu_free(sum);
        }
    }
    fflush(stdout);
    shmemu_finalize();
    return failures ? 1 : 0;
}
