/*
 * pshmem.c - OpenSHMEM's profiling interface as a profiling library uses
 * it: this file includes <pshmem.h> alone, defines shmem_long_put itself
 * (counting the calls, then calling pshmem_long_put), and checks that the
 * name-shifted routines of every family do the real work: RMA, AMO,
 * collectives, teams, contexts, locks, memory, the old names.  test_compat
 * builds it with oshcc (and oshc++) and runs it under oshrun.  Prints one
 * "FAIL" line per wrong value, or "pshmem ok N" on PE 0.  With "bad", a
 * pshmem_ put to a PE that does not exist: the job ends with one line.
 */
#include <pshmem.h>
#include <stdio.h>
#include <string.h>

static long puts_seen;
static int failures;

/* The profiler's own definition: the program's calls below land here. */
void shmem_long_put(long *dest, const long *source, size_t nelems, int pe)
{
    puts_seen++;
    pshmem_long_put(dest, source, nelems, pe);
}

#define CHECK(cond, what)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("FAIL PE %d line %d: %s\n", pshmem_my_pe(), __LINE__, what); \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static long ring[5];
static long lock;
static long counter;

int main(int argc, char **argv)
{
    pshmem_init();
    int me = pshmem_my_pe(), n = p_num_pes();
    if (argc > 1 && !strcmp(argv[1], "bad"))
        pshmem_long_p(ring, 1, n);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    CHECK(p_my_pe() == me && pshmem_n_pes() == n, "queries");

    long src[5];
    for (int i = 0; i < 5; i++)
        src[i] = me * 100 + i;
    shmem_long_put(ring, src, 5, right);
    pshmem_barrier_all();
    CHECK(puts_seen == 1, "the profiler's shmem_long_put was called once");
    for (int i = 0; i < 5; i++)
        CHECK(ring[i] == left * 100 + i, "pshmem_long_put delivered");

    long *h = (long *)pshmem_calloc(4, sizeof(long));
    long *old = (long *)pshmalloc(sizeof(long));
    CHECK(h != NULL && old != NULL, "symmetric allocation");
    pshmem_barrier_all();
    pshmem_long_p(&h[0], me, right);
    CHECK(pshmem_long_atomic_fetch_add(&h[1], me + 1, 0) >= 0, "fetch_add");
    pshmem_long_atomic_add(&counter, 1, 0);
    pshmem_quiet();
    pshmem_barrier_all();
    CHECK(h[0] == left, "pshmem_long_p");
    CHECK(pshmem_long_g(&h[0], right) == me, "pshmem_long_g");
    if (me == 0)
        CHECK(h[1] == (long)n * (n + 1) / 2 && counter == n, "atomics at PE 0");

    /* Collectives on a team, the active-set form, a team's queries. */
    h[2] = me + 1;
    pshmem_barrier_all();
    CHECK(pshmem_long_sum_reduce(SHMEM_TEAM_WORLD, &h[3], &h[2], 1) == 0, "sum_reduce");
    CHECK(h[3] == (long)n * (n + 1) / 2, "sum_reduce's value");
    CHECK(pshmem_team_n_pes(SHMEM_TEAM_WORLD) == n && pshmem_team_my_pe(SHMEM_TEAM_WORLD) == me,
          "team queries");

    /* A context of its own, completed by its own quiet. */
    shmem_ctx_t ctx;
    CHECK(pshmem_ctx_create(0, &ctx) == 0, "ctx_create");
    pshmem_ctx_long_p(ctx, &h[0], -me, right);
    pshmem_ctx_quiet(ctx);
    pshmem_ctx_destroy(ctx);
    pshmem_barrier_all();
    CHECK(h[0] == -left, "a context's put");

    /* A lock taken by every PE in turn around a get-modify-put. */
    pshmem_set_lock(&lock);
    pshmem_long_p(&h[1], pshmem_long_g(&h[1], 0) + 1, 0);
    pshmem_quiet();
    pshmem_clear_lock(&lock);
    pshmem_barrier_all();
    if (me == 0)
        CHECK(h[1] == (long)n * (n + 1) / 2 + n, "locked updates");

    pshmem_barrier_all();
    pshfree(old);
    pshmem_free(h);
    pshmem_finalize();
    if (me == 0 && failures == 0)
        printf("pshmem ok %d\n", n);
    return failures != 0;
}
