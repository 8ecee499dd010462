/* old_std.c - an OpenSHMEM program in C89 that is also C++98: shmem.h must
 * serve suites built with old language levels (-std=c89, -std=c++98),
 * without C11's _Thread_local or generic names.  Typed calls only: a put
 * around a ring, a fetch-add, a reduction and an active-set broadcast.
 * Prints "old_std ok N" from PE 0 when every value is right. */
#include <shmem.h>
#include <stdio.h>

long pSync[SHMEM_BCAST_SYNC_SIZE];
long bcast_src[4], bcast_dst[4];
int counter;

int main(void)
{
    int me, n, i, bad = 0;
    long *ring, *sum;
    for (i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    ring = (long *)shmem_malloc(2 * sizeof(long));
    sum = ring + 1;
    shmem_long_p(ring, (long)me, (me + 1) % n);
    shmem_int_atomic_fetch_add(&counter, me + 1, 0);
    shmem_barrier_all();
    if (*ring != (long)((me + n - 1) % n))
        bad++;
    if (me == 0 && counter != n * (n + 1) / 2)
        bad++;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sum, ring, 1);
    if (*sum != (long)n * (n - 1) / 2)
        bad++;
    for (i = 0; i < 4; i++)
        bcast_src[i] = 100 + i;
    shmem_barrier_all();
    shmem_broadcast64(bcast_dst, bcast_src, 4, 0, 0, 0, n, pSync);
    for (i = 0; i < 4 && me != 0; i++)
        if (bcast_dst[i] != 100 + i)
            bad++;
    if (bad) /* PE 0 then sees a count off by the failures */
        shmem_int_atomic_add(&counter, bad, 0);
    shmem_barrier_all();
    if (me == 0 && counter == n * (n + 1) / 2)
        printf("old_std ok %d\n", n);
    shmem_free(ring);
    shmem_finalize();
    return bad != 0;
}
