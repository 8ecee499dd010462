/*
 * osh_ctx.c - contexts as OpenSHMEM 1.5 defines them, under oshrun:
 *
 *   osh_ctx team       a context of a team takes team-relative PE numbers
 *   osh_ctx good       puts on a private context, shmem_ctx_quiet, barrier:
 *                      every value arrives (under the checker too)
 *   osh_ctx missing    the same without shmem_ctx_quiet: a barrier completes
 *                      the default context only, so under the checker
 *                      (which holds each context's puts apart) old values
 *                      are read; prints "stale N"
 *   osh_ctx fenced     data, shmem_ctx_fence, flag, all on one context; the
 *                      reader waits for the flag: the data is there
 *   osh_ctx wrongfence the same with the fence on another context, which
 *                      orders nothing of the first: under the checker the
 *                      reader sees old data; prints "stale N"
 *
 * Prints "ok N" (or "stale N") on PE 0; one "FAIL" line per wrong value.
 */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "osh_check.h"

static long buf[64];
static int x;

static void team_ctx(int me, int n)
{
    shmem_team_t even;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even);
    /* As the specification's example of shmem_team_create_ctx: a PE
     * outside the team gets SHMEM_CTX_INVALID, and quiets, fences and
     * destroys it all the same (no-ops). */
    shmem_ctx_t c;
    int rc = shmem_team_create_ctx(even, 0, &c);
    CHECK((rc == 0) == (even != SHMEM_TEAM_INVALID), "team_create_ctx returned %d", rc);
    CHECK(rc == 0 || c == SHMEM_CTX_INVALID, "failed team_create_ctx left ctx valid");
    if (c != SHMEM_CTX_INVALID) {
        int tme = shmem_team_my_pe(even), tn = shmem_team_n_pes(even);
        shmem_ctx_int_p(c, &x, 100 + me, (tme + 1) % tn); /* team numbering */
    }
    shmem_ctx_fence(c);
    shmem_ctx_quiet(c);
    const int first = 0; /* in the team's numbering */
    shmem_ctx_pe_quiet(c, &first, 1);
    shmem_ctx_destroy(c);
    shmem_barrier_all();
    int want = me % 2 ? 0 : 100 + (me == 0 ? 2 * ((n + 1) / 2 - 1) : me - 2);
    CHECK(x == want, "x = %d, want %d", x, want);
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
}

static int rounds(int me, int n, int quiet)
{
    shmem_ctx_t c;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0, "ctx_create");
    long src[64];
    int stale = 0;
    for (int it = 1; it <= 100; it++) {
        for (int i = 0; i < 64; i++)
            src[i] = it * 1000 + me;
        shmem_ctx_long_put(c, buf, src, 64, (me + 1) % n);
        if (quiet)
            shmem_ctx_quiet(c);
        shmem_barrier_all();
        long want = it * 1000 + (me + n - 1) % n;
        for (int i = 0; i < 64; i++)
            if (buf[i] != want) {
                stale++;
                break;
            }
        shmem_barrier_all();
    }
    shmem_ctx_destroy(c);
    return stale;
}

/* A put on context c to the next PE, completed by shmem_ctx_quiet before
 * the barrier (right) or only by shmem_ctx_destroy after it; the reader
 * reads through the library (a get from its own heap), which the race
 * detector sees. */
static int read_after_barrier(int me, int n, int quiet)
{
    shmem_ctx_t c;
    CHECK(shmem_ctx_create(0, &c) == 0, "ctx_create");
    long src[64], got[64];
    for (int i = 0; i < 64; i++)
        src[i] = 1000 + me;
    shmem_ctx_long_put(c, buf, src, 64, (me + 1) % n);
    if (quiet)
        shmem_ctx_quiet(c);
    shmem_barrier_all();
    shmem_long_get(got, buf, 64, me);
    int stale = 0;
    for (int i = 0; i < 64; i++)
        stale += got[i] != 1000 + (me + n - 1) % n;
    shmem_barrier_all();
    shmem_ctx_destroy(c);
    return stale;
}

/* Data then flag to the next PE on context c, a fence between them on c
 * (right) or on another context; the reader waits for the flag. */
static long data[16], flag;
static int flag_rounds(int me, int n, int right, long nrounds)
{
    shmem_ctx_t c, other;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0 &&
              shmem_ctx_create(SHMEM_CTX_PRIVATE, &other) == 0,
          "ctx_create");
    int stale = 0, next = (me + 1) % n, prev = (me + n - 1) % n;
    long src[16];
    for (long it = 1; it <= nrounds; it++) {
        for (int i = 0; i < 16; i++)
            src[i] = it * 1000 + me;
        shmem_ctx_long_put(c, data, src, 16, next);
        shmem_ctx_fence(right ? c : other);
        shmem_ctx_long_atomic_set(c, &flag, it, next);
        shmem_long_wait_until(&flag, SHMEM_CMP_GE, it);
        for (int i = 0; i < 16; i++)
            if (data[i] != it * 1000 + prev) {
                stale++;
                break;
            }
        shmem_ctx_quiet(c);
        shmem_barrier_all(); /* read before the next round writes */
    }
    shmem_ctx_destroy(other);
    shmem_ctx_destroy(c);
    return stale;
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    const char *mode = argc > 1 ? argv[1] : "";
    static int total;
    if (!strcmp(mode, "team")) {
        team_ctx(me, n);
    } else if (!strcmp(mode, "good")) {
        int stale = rounds(me, n, 1);
        CHECK(stale == 0, "%d rounds read old values after shmem_ctx_quiet", stale);
    } else if (!strcmp(mode, "quieted") || !strcmp(mode, "unquieted")) {
        int stale = read_after_barrier(me, n, mode[0] == 'q');
        CHECK(stale == 0, "read %d old values", stale);
    } else if (!strcmp(mode, "fenced")) {
        int stale = flag_rounds(me, n, 1, 100);
        CHECK(stale == 0, "%d rounds read old data after the flag with a fence", stale);
    } else if (!strcmp(mode, "missing") || !strcmp(mode, "wrongfence")) {
        /* about 2% of rounds show it: enough rounds that none is unlikely */
        int stale = mode[0] == 'm' ? rounds(me, n, 0) : flag_rounds(me, n, 0, 500);
        shmem_int_atomic_add(&total, stale, 0);
        shmem_barrier_all();
        if (me == 0)
            printf("stale %d\n", total);
        shmem_finalize();
        return 0;
    } else {
        CHECK(0, "usage: osh_ctx team|good|missing|fenced|wrongfence|quieted|unquieted");
    }
    shmem_barrier_all();
    if (me == 0 && !failures)
        printf("ok %d\n", n);
    shmem_finalize();
    return failures ? 1 : 0;
}
