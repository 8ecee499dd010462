/*
 * fiber-switch - what one switch between two fibers costs: the sim
 * transport's (Boost.Context's fcontext, transports/common/fiber.h) against
 * glibc's swapcontext, interleaved in each repetition.  Prints the median
 * and the spread of REPS repetitions (default 7).
 *
 *   build/fiber-switch [REPS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>

#include "common/fiber.h"

#define SWITCHES 2000000L
#define STACK (64 << 10)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static struct shmemu_fiber root, fib;
static void fc_body(void *arg)
{
    (void)arg;
    for (;;)
        shmemu_fiber_switch(&fib, &root);
}

static ucontext_t uc_root, uc_fib;
static void uc_body(void)
{
    for (;;)
        swapcontext(&uc_fib, &uc_root);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int reps; /* not a local: swapcontext returns twice */

int main(int argc, char **argv)
{
    reps = argc > 1 ? atoi(argv[1]) : 7;
    if (reps < 1 || reps > 100)
        reps = 7;
    char *mem = mmap(NULL, 2 * STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return 1;
    shmemu_fiber_root(&root);
    shmemu_fiber_make(&fib, mem, STACK, 0, fc_body, NULL);
    getcontext(&uc_fib);
    uc_fib.uc_stack.ss_sp = mem + STACK;
    uc_fib.uc_stack.ss_size = STACK;
    uc_fib.uc_link = NULL;
    makecontext(&uc_fib, uc_body, 0);
    double fc[100], uc[100];
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (long i = 0; i < SWITCHES / 2; i++)
            shmemu_fiber_switch(&root, &fib);
        double t1 = now();
        for (long i = 0; i < SWITCHES / 2; i++)
            swapcontext(&uc_root, &uc_fib);
        double t2 = now();
        fc[r] = (t1 - t0) / SWITCHES;
        uc[r] = (t2 - t1) / SWITCHES;
    }
    double fr[100];
    for (int r = 0; r < reps; r++)
        fr[r] = uc[r] / fc[r];
    qsort(fc, (size_t)reps, sizeof(double), cmp);
    qsort(uc, (size_t)reps, sizeof(double), cmp);
    qsort(fr, (size_t)reps, sizeof(double), cmp);
    printf("# one switch, ns: median (min..max) of %d repetitions of %ld switches\n", reps,
           SWITCHES);
    printf("fcontext    %6.1f (%.1f..%.1f)\n", fc[reps / 2], fc[0], fc[reps - 1]);
    printf("swapcontext %6.1f (%.1f..%.1f)\n", uc[reps / 2], uc[0], uc[reps - 1]);
    printf("swapcontext / fcontext, same repetition: %.1fx (%.1f..%.1f)\n", fr[reps / 2], fr[0],
           fr[reps - 1]);
    shmemu_fiber_free(&fib);
    munmap(mem, 2 * STACK);
    return 0;
}
