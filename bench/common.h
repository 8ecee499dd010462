/*
 * common.h - what shmemu-bench and oshmem-bench share: repetitions, the
 * clock, median/min/max, and the row format (so their outputs line up and
 * bench/vs-oshmem.sh can pair them).
 */
#ifndef SHMEMU_BENCH_COMMON_H
#define SHMEMU_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 64

/* Not every program uses all three. */
static int reps __attribute__((unused)) = 7;
static int csv __attribute__((unused));
static const char *transport __attribute__((unused)) = "local";

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct stats {
    double med, min, max;
};

/* (coll's rows gather up to 8 rounds of MAX_REPS repetitions) */
#define MAX_SAMPLES (MAX_REPS * 8)

static inline struct stats summarize(const double *v, int n)
{
    double s[MAX_SAMPLES];
    n = n > MAX_SAMPLES ? MAX_SAMPLES : n;
    memcpy(s, v, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    struct stats st = {n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2, s[0], s[n - 1]};
    return st;
}

/* One output row.  base: what ratio compares with (NULL: no ratio); the
 * ratio is the median over repetitions of (this / base) in the same
 * repetition, so a change of VM placement between repetitions cancels. */
static inline void row(const char *test, int npes, size_t size, struct stats st,
                const char *unit, double ratio, const char *base)
{
    if (csv) {
        printf("%s,%s,%d,%zu,%.4g,%.4g,%.4g,%s,", test, transport, npes, size, st.med,
               st.min, st.max, unit);
        if (base)
            printf("%.3f,%s", ratio, base);
        else
            printf(",");
        printf("\n");
    } else {
        printf("%-18s %5d %10zu %10.3f %10.3f %10.3f  %-5s", test, npes, size, st.med,
               st.min, st.max, unit);
        if (base)
            printf(" %7.3f  %s", ratio, base);
        printf("\n");
    }
    fflush(stdout);
}

/* Median of a[r] / b[r]. */
static inline double ratio_med(const double *a, const double *b, int n)
{
    double r[MAX_REPS];
    for (int i = 0; i < n; i++)
        r[i] = a[i] / b[i];
    return summarize(r, n).med;
}

/* "# machine: <CPU model>, <n> online CPUs" */
static inline void print_machine(void)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof(line), f))
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    snprintf(model, sizeof(model), "%s", c + 2);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        fclose(f);
    }
    printf("# machine: %s, %ld online CPUs\n", model, sysconf(_SC_NPROCESSORS_ONLN));
}

#endif
