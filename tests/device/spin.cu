/* spin.cu - device threads that wait on each other with plain volatile
 * loads (no device call in the loop), within a block, across blocks and
 * across PEs: built with shmemu-devcc, whose loop hook gives the others a
 * turn (on the GPU the warps run side by side).  Built both ways: with
 * shmemu-devcc for the CPU transports, with nvcc for cuda.  Exit status 0
 * when every PE saw every value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * its own: where PEs take turns (sim), its spin must give them theirs.  A
 * plain launch (CUDA's <<<>>>) suffices: its one block waits for another
 * PE, never for a block of its own launch. */
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
    int *flag = (int *)shmemu_calloc(3, sizeof(int)), *seen = (int *)shmemu_calloc(3, sizeof(int));
    int minus1 = -1, got[3] = {0, 0, 0};
    if (!flag || !seen)
        return 1;
    /* Through a put: the heap may be one the host cannot load (cuda). */
    shmemu_putmem(&flag[0], &minus1, sizeof(int), shmemu_my_pe());
    shmemu_barrier_all();
    struct spin_args a = {flag, seen};
    int st = shmemu_launch_kernel(spin, 2, 4, &a); /* block 0 waits for block 1 */
    if (st == SHMEMU_OK)
        st = shmemu_launch_kernel_plain(spin_alone, 1, 1, &a);
    shmemu_getmem(got, seen, sizeof(got), shmemu_my_pe());
    int ok = st == SHMEMU_OK && got[0] == 1 && got[1] == 1 && got[2] == 1;
    if (!ok)
        printf("PE %d: status %d, seen %d %d %d\n", shmemu_my_pe(), st, got[0], got[1], got[2]);
    shmemu_barrier_all();
    shmemu_free(seen);
    shmemu_free(flag);
    return !ok;
}

int main(int argc, char **argv)
{
    shmemu_opts o;
    memset(&o, 0, sizeof(o));
    o.npes = argc > 2 ? atoi(argv[2]) : 3;
    o.transport = argc > 1 ? argv[1] : "local";
    int st = shmemu_launch(&o, pe_main, NULL);
    printf("spin on %s, %d PEs: %s\n", o.transport, o.npes, shmemu_strerror(st));
    return st != SHMEMU_OK;
}
