/*
 * device - what kernels cost on the CPU transports (shmemu_device.h):
 *   handoff   one device thread giving the next its turn (two threads of a
 *             block meeting at __syncthreads: each meeting is two handoffs);
 *   launch    an empty kernel of one thread, start to end;
 *   64Ki      a kernel of 8 PEs x 32 blocks x 256 threads, every thread an
 *             atomic on a peer (launch to end, the slowest PE's time).
 * Median and spread of REPS repetitions (default 7), on the transport
 * given (default local).
 *
 *   build/device-bench [REPS] [TRANSPORT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shmemu_device.h"

#define MEETINGS 200000

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct bench_arg {
    long meetings;
    unsigned *count;
};

SHMEMU_KERNEL(k_meet, struct bench_arg, a)
{
    for (long i = 0; i < a.meetings; i++)
        __syncthreads();
}

SHMEMU_KERNEL(k_empty, struct bench_arg, a)
{
    (void)a;
}

SHMEMU_KERNEL(k_wide, struct bench_arg, a)
{
    int me = shmemu_dev_my_pe(), np = shmemu_dev_n_pes();
    atomicAdd((unsigned *)shmemu_dev_ptr(a.count, (me + 1) % np), 1u);
}

static double result_ns[3]; /* this repetition: handoff, launch, 64Ki */

static int pe_small(void *arg)
{
    (void)arg;
    struct bench_arg a = {MEETINGS, NULL};
    double t0 = now();
    if (shmemu_launch_kernel(k_meet, 1, 2, &a) != SHMEMU_OK)
        return 1;
    double t1 = now();
    for (int i = 0; i < 1000; i++)
        if (shmemu_launch_kernel(k_empty, 1, 1, &a) != SHMEMU_OK)
            return 1;
    double t2 = now();
    result_ns[0] = (t1 - t0) / (2.0 * MEETINGS);
    result_ns[1] = (t2 - t1) / 1000;
    return 0;
}

static int pe_wide(void *arg)
{
    (void)arg;
    unsigned *count = shmemu_calloc(1, sizeof(unsigned));
    struct bench_arg a = {0, count};
    shmemu_barrier_all();
    double t0 = now();
    int st = shmemu_launch_kernel(k_wide, 32, 256, &a);
    shmemu_barrier_all();
    double t1 = now();
    int ok = st == SHMEMU_OK && *count == 32 * 256;
    if (shmemu_my_pe() == 0)
        result_ns[2] = t1 - t0;
    shmemu_barrier_all();
    shmemu_free(count);
    return !ok;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 7;
    const char *transport = argc > 2 ? argv[2] : "local";
    if (reps < 1 || reps > 100) {
        fprintf(stderr, "device-bench: REPS must be 1..100, not '%s'\n", argv[1]);
        return 2;
    }
    double r[3][100];
    for (int i = 0; i < reps; i++) {
        shmemu_opts small = {.npes = 1, .transport = transport};
        shmemu_opts wide = {.npes = 8, .transport = transport};
        if (shmemu_launch(&small, pe_small, NULL) != SHMEMU_OK ||
            shmemu_launch(&wide, pe_wide, NULL) != SHMEMU_OK)
            return 1;
        for (int k = 0; k < 3; k++)
            r[k][i] = result_ns[k];
    }
    for (int k = 0; k < 3; k++)
        qsort(r[k], (size_t)reps, sizeof(double), cmp);
    int m = reps / 2;
    printf("# %s, median (min..max) of %d repetitions\n", transport, reps);
    printf("handoff between device threads  %8.1f ns (%.1f..%.1f)\n", r[0][m], r[0][0],
           r[0][reps - 1]);
    printf("empty launch, 1 thread          %8.2f us (%.2f..%.2f)\n", r[1][m] / 1e3,
           r[1][0] / 1e3, r[1][reps - 1] / 1e3);
    printf("8 PEs x 32 x 256 threads        %8.1f ms (%.1f..%.1f)\n", r[2][m] / 1e6,
           r[2][0] / 1e6, r[2][reps - 1] / 1e6);
    return 0;
}
