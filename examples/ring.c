/*
 * ring.c - the quick-start demo: N PEs pass data around a ring.
 *
 * Each PE puts a message into its right neighbour's symmetric buffer, then
 * all meet at a barrier and print what they received.  Run: ring [NPES]
 * (local transport, 4 PEs by default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmemu.h"

#define MSG_LEN 64

static int pe_main(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    char *inbox = shmemu_calloc(1, MSG_LEN); /* symmetric: one per PE */
    long *sum = shmemu_calloc(1, sizeof(long));
    if (!inbox || !sum)
        return 1;

    char msg[MSG_LEN];
    snprintf(msg, sizeof(msg), "hello from PE %d", me);
    shmemu_putmem(inbox, msg, sizeof(msg), (me + 1) % n);
    shmemu_barrier_all(); /* the put is complete and visible everywhere */

    /* Second lap: a running sum, each PE adding its number and passing it on
     * with a single-element put. */
    long partial = 0;
    for (int step = 0; step < n; step++) {
        if (step == me)
            shmemu_long_p(sum, *sum + me, (me + 1) % n);
        shmemu_barrier_all();
        if (step == me)
            partial = *sum;
    }
    /* PEs share stdout: take turns so the lines come out in PE order. */
    for (int turn = 0; turn < n; turn++) {
        if (turn == me) {
            printf("PE %d/%d received \"%s\"; sum of the PE numbers before it: %ld\n",
                   me, n, inbox, partial);
            fflush(stdout);
        }
        shmemu_barrier_all();
    }
    if (me == 0)
        printf("the sum came back around the ring to PE 0: %ld (expected %ld)\n", *sum,
               (long)n * (n - 1) / 2);
    shmemu_barrier_all();
    shmemu_free(sum);
    shmemu_free(inbox);
    return 0;
}

int main(int argc, char **argv)
{
    shmemu_opts opts = {.npes = argc > 1 ? atoi(argv[1]) : 4};
    int rc = shmemu_launch(&opts, pe_main, NULL);
    if (rc != SHMEMU_OK)
        fprintf(stderr, "ring: job failed: %d (%s)\n", rc, shmemu_strerror(rc));
    return rc == SHMEMU_OK ? 0 : 1;
}
