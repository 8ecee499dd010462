/* The smallest OpenSHMEM program a build system is pointed at with
 * CC=oshcc: each PE adds its number into PE 0's total. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    static long total;
    shmem_init();
    shmem_long_atomic_add(&total, shmem_my_pe() + 1, 0);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        printf("total %ld\n", total);
    shmem_finalize();
    return 0;
}
