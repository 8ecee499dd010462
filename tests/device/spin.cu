/* spin.cu - device threads that wait on each other with plain volatile
 * loads (no device call in the loop), within a block, across blocks and
 * across PEs: built with shmemu-devcc, whose loop hook gives the others a
 * turn.  Exit status 0 when every PE saw every value. */
#include <stdio.h>
#include <stdlib.h>

#include "shmemu_device.h"

struct spin_args {
    int *flag;  /* [0]: block 0 to block 1; [1]: from the left PE */
    int *seen;
};

SHMEMU_KERNEL(spin, struct spin_args, a)
{
    int me = shmemu_dev_my_pe(), np = shmemu_dev_n_pes();
    volatile int *f = a.flag;
    if (blockIdx.x == 0 && threadIdx.x == 1) {
        while (f[0] != 0) { /* block 1 resets it first */
        }
        f[0] = 7;
    } else if (blockIdx.x == 1 && threadIdx.x == 0) {
        f[0] = 0;
        while (f[0] != 7) {
        }
        a.seen[0] = 1;
        /* Then the right PE's flag, with a system-scope store and fence. */
        int *peer = (int *)shmemu_dev_ptr(&a.flag[1], (me + 1) % np);
        __threadfence_system();
        atomicExch_system(peer, me + 100);
    } else if (blockIdx.x == 1 && threadIdx.x == 1) {
        while (f[1] != (me + np - 1) % np + 100) {
        }
        a.seen[1] = 1;
    }
}

/* One thread alone, spinning on a flag the left PE raises from a kernel of
 * its own: where PEs take turns (sim), its spin must give them theirs. */
SHMEMU_KERNEL(spin_alone, struct spin_args, a)
{
    int me = shmemu_dev_my_pe(), np = shmemu_dev_n_pes();
    volatile int *f = a.flag;
    atomicExch_system((int *)shmemu_dev_ptr(&a.flag[2], (me + 1) % np), 1);
    while (f[2] != 1) {
    }
    a.seen[2] = 1;
}

static int pe_main(void *arg)
{
    (void)arg;
    int *flag = shmemu_calloc(3, sizeof(int)), *seen = shmemu_calloc(3, sizeof(int));
    flag[0] = -1;
    shmemu_barrier_all();
    struct spin_args a = {flag, seen};
    int st = shmemu_launch_kernel(spin, 2, 4, &a);
    if (st == SHMEMU_OK)
        st = shmemu_launch_kernel(spin_alone, 1, 1, &a);
    int ok = st == SHMEMU_OK && seen[0] == 1 && seen[1] == 1 && seen[2] == 1;
    if (!ok)
        printf("PE %d: status %d, seen %d %d %d\n", shmemu_my_pe(), st, seen[0], seen[1],
               seen[2]);
    shmemu_barrier_all();
    shmemu_free(seen);
    shmemu_free(flag);
    return !ok;
}

int main(int argc, char **argv)
{
    shmemu_opts o = {.npes = argc > 2 ? atoi(argv[2]) : 3,
                     .transport = argc > 1 ? argv[1] : "local"};
    int st = shmemu_launch(&o, pe_main, NULL);
    printf("spin on %s, %d PEs: %s\n", o.transport, o.npes, shmemu_strerror(st));
    return st != SHMEMU_OK;
}
