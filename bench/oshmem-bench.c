/*
 * oshmem-bench - shmemu-bench's figures, measured through the OpenSHMEM API
 * with Open MPI's OSHMEM, for bench/vs-oshmem.sh.  Same rows, same method:
 *
 *   oshrun -np N oshmem-bench [-r REPS] [lat] [bw] [sync] [barrier]
 *
 * lat, bw and sync use PEs 0 and 1; barrier uses every PE.
 */
#include <shmem.h>

#include "common.h"

#define LAT_ITERS 200000
#define PP_ITERS 100000
#define BW_MAX ((size_t)64 << 20)

static void lat(void)
{
    int me = shmem_my_pe();
    char *buf = shmem_malloc(64);
    char priv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double put[MAX_REPS], get[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        shmem_barrier_all();
        if (me == 0) {
            double t0 = now_ns();
            for (int i = 0; i < LAT_ITERS; i++) {
                shmem_putmem(buf, priv, 8, 1);
                shmem_quiet();
            }
            double t1 = now_ns();
            for (int i = 0; i < LAT_ITERS; i++)
                shmem_getmem(priv, buf, 8, 1);
            double t2 = now_ns();
            put[r] = (t1 - t0) / LAT_ITERS;
            get[r] = (t2 - t1) / LAT_ITERS;
        }
        shmem_barrier_all();
    }
    if (me == 0) {
        row("put8+quiet", 2, 8, summarize(put, reps), "ns", 0, NULL);
        row("get8", 2, 8, summarize(get, reps), "ns", 0, NULL);
    }
    shmem_free(buf);
}

static void bw(void)
{
    int me = shmem_my_pe();
    char *sym = shmem_malloc(BW_MAX);
    char *src = aligned_alloc(4096, BW_MAX), *dst = aligned_alloc(4096, BW_MAX);
    memset(src, 1, BW_MAX);
    memset(dst, 2, BW_MAX);
    memset(sym, 3, BW_MAX);
    for (size_t size = 4096; size <= BW_MAX; size *= 4) {
        double put[MAX_REPS], get[MAX_REPS];
        size_t it = ((size_t)256 << 20) / size;
        if (it < 4)
            it = 4;
        for (int r = 0; r < reps; r++) {
            shmem_barrier_all();
            if (me == 0) {
                double t0 = now_ns();
                for (size_t i = 0; i < it; i++)
                    shmem_putmem(sym, src, size, 1);
                shmem_quiet();
                double t1 = now_ns();
                for (size_t i = 0; i < it; i++)
                    shmem_getmem(dst, sym, size, 1);
                double t2 = now_ns();
                put[r] = (double)size * (double)it / (t1 - t0);
                get[r] = (double)size * (double)it / (t2 - t1);
            }
            shmem_barrier_all();
        }
        if (me == 0) {
            row("put", 2, size, summarize(put, reps), "GB/s", 0, NULL);
            row("get", 2, size, summarize(get, reps), "GB/s", 0, NULL);
        }
    }
    free(src);
    free(dst);
    shmem_free(sym);
}

static void sync_lat(void)
{
    int me = shmem_my_pe(), peer = 1 - me;
    long *w = shmem_calloc(8, sizeof(long));
    double amo[MAX_REPS], pp[MAX_REPS];
    long round = 0;
    for (int r = 0; r < reps; r++) {
        shmem_barrier_all();
        if (me == 0) {
            long sink = 0;
            double t0 = now_ns();
            for (int i = 0; i < LAT_ITERS; i++)
                sink += shmem_long_atomic_fetch_add(&w[0], 1, 1);
            amo[r] = (now_ns() - t0) / LAT_ITERS;
            __asm__ __volatile__("" ::"r"(sink));
        }
        shmem_barrier_all();
        double t0 = now_ns();
        for (int i = 0; i < PP_ITERS; i++) {
            round++;
            if (me == 0) {
                shmem_long_p(&w[1], round, peer);
                shmem_long_wait_until(&w[1], SHMEM_CMP_EQ, round);
            } else {
                shmem_long_wait_until(&w[1], SHMEM_CMP_EQ, round);
                shmem_long_p(&w[1], round, peer);
            }
        }
        pp[r] = (now_ns() - t0) / PP_ITERS / 2;
    }
    if (me == 0) {
        row("fetch_add", 2, 8, summarize(amo, reps), "ns", 0, NULL);
        row("p+wait_until", 2, 8, summarize(pp, reps), "ns", 0, NULL);
    }
    shmem_barrier_all();
    shmem_free(w);
}

static void barrier(void)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    long iters = np <= 2 ? 200000 : 200000 / np / np * 4;
    if (iters < 200)
        iters = 200;
    double t[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        shmem_barrier_all();
        double t0 = now_ns();
        for (long i = 0; i < iters; i++)
            shmem_barrier_all();
        t[r] = (now_ns() - t0) / (double)iters / 1000.0;
    }
    if (me == 0)
        row("barrier_all", np, 0, summarize(t, reps), "us", 0, NULL);
}

static int wants(int argc, char **argv, int first, const char *name)
{
    if (first >= argc)
        return 1;
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int i = 1;
    if (argc > 2 && strcmp(argv[1], "-r") == 0) {
        reps = atoi(argv[2]);
        i = 3;
    }
    if (reps < 1 || reps > MAX_REPS)
        return 2;
    shmem_init();
    transport = "oshmem";
    int two = shmem_n_pes() >= 2;
    if (two && wants(argc, argv, i, "lat"))
        lat();
    if (two && wants(argc, argv, i, "bw"))
        bw();
    if (two && wants(argc, argv, i, "sync"))
        sync_lat();
    if (wants(argc, argv, i, "barrier"))
        barrier();
    shmem_finalize();
    return 0;
}
