/*
 * hello_spmd.c - an SPMD program: start it with shmemu-run, which runs one
 * process per PE:  build/shmemu-run -n 4 -- build/examples/hello_spmd
 * Started alone, it is a job of one PE.
 */
#include <stdio.h>

#include "shmemu.h"

int main(void)
{
    if (shmemu_init() != SHMEMU_OK)
        return 1;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    long *inbox = shmemu_calloc(1, sizeof(long));
    shmemu_long_p(inbox, 1000 + me, (me + 1) % n); /* to my right neighbour */
    shmemu_barrier_all();
    printf("PE %d/%d on %s got %ld from PE %d\n", me, n, shmemu_transport_name(), *inbox,
           (me - 1 + n) % n);
    shmemu_free(inbox);
    return shmemu_finalize() == SHMEMU_OK ? 0 : 1;
}
