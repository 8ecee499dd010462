/*
 * shmemu-bench - latency and bandwidth of shmemu's primitives.
 *
 *   shmemu-bench [-t TRANSPORT] [-r REPS] [--csv] [TEST...]
 *
 *   shmemu-bench coll [OPTIONS]   (a collective over sizes: see bench/coll.c)
 *
 * TESTS: lat (8-byte put+quiet, get), bw (put/get bandwidth 4 KiB..64 MiB
 * against single-thread memcpy in the same repetitions), sync (remote
 * fetch_add, p + wait_until and put_signal + signal_wait_until ping-pong,
 * one way), ring (a token around 128 PEs), pollring (a token around 2, 4
 * and 8 PEs that poll for it with shmemu_long_g, then again at thread level
 * MULTIPLE), barrier (2, 4, 8, 64 PEs).
 * dev (heaps the host cannot touch: cuda, or shm under SHMEMU_CHECK=device):
 * 8-byte put/get/fetch_add latency, put/get bandwidth between heaps from
 * 4 KiB to half of -m SIZE (1G) against shmemu_copy_local of the same size.
 * scale: barrier_all, 8-byte allreduce and launch+finalize at 2 to 16,384
 * PEs (-n sets the counts).
 * Default: all but dev and scale; on cuda, dev and barrier (2, 4, 8 PEs);
 * on sim, scale.  -n 2,8,64 sets the PE counts of barrier and scale.  Each figure is the median of REPS repetitions
 * (default 7) with the min and max; A-vs-B comparisons (put vs memcpy) are
 * interleaved within each repetition so that placement changes of the VM's
 * vCPUs hit both alike.
 *
 * Under mpirun (or any PMIx launcher) it joins the launcher's job and runs
 * the tests that want as many PEs as the job has: `mpirun -np 2
 * shmemu-bench lat sync bw`, `mpirun -np 4 shmemu-bench -n 4 barrier`;
 * across hosts, that is how the figures against OSHMEM are taken.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shmemu.h"

#include "../tools/cli.h"
#include "bench.h"
#include "common.h"

/* The bare baseline of a put + quiet: a store and a full fence.
 * ThreadSanitizer refuses a standalone fence; there a sequentially
 * consistent store (the same full barrier on x86) stands in. */
#if defined(__SANITIZE_THREAD__)
#define BENCH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BENCH_TSAN 1
#endif
#endif
static inline void store_fenced(uint64_t *p, uint64_t v)
{
#ifdef BENCH_TSAN
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
#else
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* ------------------------------------------------------------- latency */

#define LAT_ITERS_MAPPED 200000
/* Where peers' heaps are not mapped here (ucx: every access a network
 * round trip of tens of microseconds) fewer turns give as steady a median. */
#define LAT_ITERS_NET 2000
static int lat_iters = LAT_ITERS_MAPPED;
#define LAT_ITERS lat_iters

static int pe_lat(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe();
    char *buf = shmemu_malloc(64);
    /* The hardware floor of a put + quiet: the same 8-byte store into the
     * peer's mapped heap followed by the full fence quiet needs (into our
     * own heap where the peer's is not mapped here). */
    uint64_t *peer = shmemu_ptr(buf, 1);
    if (!shmemu_ptr(buf, 1 - me)) /* every PE must agree on the turns */
        lat_iters = LAT_ITERS_NET;
    if (!peer)
        peer = (uint64_t *)(void *)buf;
    char priv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double put[MAX_REPS], get[MAX_REPS], stf[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        shmemu_barrier_all();
        if (me == 0) {
            double t0 = now_ns();
            for (int i = 0; i < LAT_ITERS; i++) {
                store_fenced(peer, (uint64_t)i);
            }
            double t1 = now_ns();
            for (int i = 0; i < LAT_ITERS; i++) {
                shmemu_putmem(buf, priv, 8, 1);
                shmemu_quiet();
            }
            double t2 = now_ns();
            for (int i = 0; i < LAT_ITERS; i++)
                shmemu_getmem(priv, buf, 8, 1);
            double t3 = now_ns();
            stf[r] = (t1 - t0) / LAT_ITERS;
            put[r] = (t2 - t1) / LAT_ITERS;
            get[r] = (t3 - t2) / LAT_ITERS;
        }
        shmemu_barrier_all();
    }
    if (me == 0) {
        row("bare_store8+fence", 2, 8, summarize(stf, reps), "ns", 0, NULL);
        row("put8+quiet", 2, 8, summarize(put, reps), "ns", ratio_med(put, stf, reps),
            "x bare_store8+fence");
        row("get8", 2, 8, summarize(get, reps), "ns", 0, NULL);
    }
    shmemu_free(buf);
    return 0;
}

/* ----------------------------------------------------------- bandwidth */

#define BW_MAX ((size_t)64 << 20)

/* Turns that move budget bytes of size each (at least 4). */
static size_t iters_for(size_t size, size_t budget)
{
    size_t it = budget / size;
    return it < 4 ? 4 : it;
}

static int pe_bw(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe();
    char *sym = shmemu_malloc(BW_MAX);
    /* Page-aligned private buffers, like the heap: every copy below moves
     * between equally aligned buffers, so the ratios compare library cost. */
    char *src = aligned_alloc(4096, BW_MAX), *dst = aligned_alloc(4096, BW_MAX);
    if (!sym || !src || !dst)
        return 1;
    memset(src, 1, BW_MAX); /* touch every page before timing */
    memset(dst, 2, BW_MAX);
    memset(sym, 3, BW_MAX);
    /* 256 MiB a figure, as bench/oshmem-bench.c moves: the same number of
     * calls behind each figure of the comparison (over a network too, now
     * that a put is no longer a round trip). */
    size_t budget = (size_t)256 << 20;
    for (size_t size = 4096; size <= BW_MAX; size *= 4) {
        double mc[MAX_REPS], put[MAX_REPS], get[MAX_REPS];
        size_t it = iters_for(size, budget);
        for (int r = 0; r < reps; r++) {
            shmemu_barrier_all();
            if (me == 0) {
                double t0 = now_ns();
                for (size_t i = 0; i < it; i++) {
                    memcpy(dst, src, size);
                    __asm__ __volatile__("" ::"r"(dst) : "memory");
                }
                double t1 = now_ns();
                for (size_t i = 0; i < it; i++)
                    shmemu_putmem(sym, src, size, 1);
                shmemu_quiet();
                double t2 = now_ns();
                for (size_t i = 0; i < it; i++)
                    shmemu_getmem(dst, sym, size, 1);
                double t3 = now_ns();
                double bytes = (double)size * (double)it;
                mc[r] = bytes / (t1 - t0);
                put[r] = bytes / (t2 - t1);
                get[r] = bytes / (t3 - t2);
            }
            shmemu_barrier_all();
        }
        if (me == 0) {
            row("memcpy", 1, size, summarize(mc, reps), "GB/s", 0, NULL);
            row("put", 2, size, summarize(put, reps), "GB/s", ratio_med(put, mc, reps),
                "x memcpy");
            row("get", 2, size, summarize(get, reps), "GB/s", ratio_med(get, mc, reps),
                "x memcpy");
        }
    }
    shmemu_barrier_all();
    free(src);
    free(dst);
    shmemu_free(sym);
    return 0;
}

/* -------------------------------------------------- atomics, ping-pong */

#define PP_ITERS (lat_iters / 2)

static int pe_sync_lat(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), peer = 1 - me;
    uint64_t *w = shmemu_calloc(8, sizeof(uint64_t)); /* [0] amo, [1] flag, [2] sig */
    char *data = shmemu_malloc(64);
    char priv[8] = {0};
    double amo[MAX_REPS], bare[MAX_REPS], pp[MAX_REPS], sig[MAX_REPS];
    uint64_t round = 0, *peer_word = shmemu_ptr(&w[0], 1);
    if (!shmemu_ptr(&w[0], peer)) /* every PE must agree on the turns */
        lat_iters = LAT_ITERS_NET;
    if (!peer_word) /* not mapped here: the floor on our own word */
        peer_word = &w[0];
    for (int r = 0; r < reps; r++) {
        shmemu_barrier_all();
        if (me == 0) {
            uint64_t sink = 0;
            double t0 = now_ns();
            for (int i = 0; i < LAT_ITERS; i++)
                sink += __atomic_fetch_add(peer_word, 1, __ATOMIC_SEQ_CST);
            double t1 = now_ns();
            for (int i = 0; i < LAT_ITERS; i++)
                sink += shmemu_uint64_atomic_fetch_add(&w[0], 1, 1);
            double t2 = now_ns();
            __asm__ __volatile__("" ::"r"(sink));
            bare[r] = (t1 - t0) / LAT_ITERS;
            amo[r] = (t2 - t1) / LAT_ITERS;
        }
        shmemu_barrier_all();
        /* p + wait_until: PE 0 sends i, PE 1 answers i; one way = half */
        double t0 = now_ns();
        for (int i = 0; i < PP_ITERS; i++) {
            round++;
            if (me == 0) {
                shmemu_uint64_p(&w[1], round, peer);
                shmemu_uint64_wait_until(&w[1], SHMEMU_CMP_EQ, round);
            } else {
                shmemu_uint64_wait_until(&w[1], SHMEMU_CMP_EQ, round);
                shmemu_uint64_p(&w[1], round, peer);
            }
        }
        pp[r] = (now_ns() - t0) / PP_ITERS / 2; /* ns, one way */
        shmemu_barrier_all();
        /* 8 bytes of data with a signal, answered alike */
        t0 = now_ns();
        for (int i = 0; i < PP_ITERS; i++) {
            round++;
            if (me == 0) {
                shmemu_putmem_signal(data, priv, 8, &w[2], round, SHMEMU_SIGNAL_SET, peer);
                shmemu_signal_wait_until(&w[2], SHMEMU_CMP_EQ, round);
            } else {
                shmemu_signal_wait_until(&w[2], SHMEMU_CMP_EQ, round);
                shmemu_putmem_signal(data, priv, 8, &w[2], round, SHMEMU_SIGNAL_SET, peer);
            }
        }
        sig[r] = (now_ns() - t0) / PP_ITERS / 2;
    }
    if (me == 0) {
        row("bare_fetch_add", 2, 8, summarize(bare, reps), "ns", 0, NULL);
        row("fetch_add", 2, 8, summarize(amo, reps), "ns", ratio_med(amo, bare, reps),
            "x bare_fetch_add");
        row("p+wait_until", 2, 8, summarize(pp, reps), "ns", 0, NULL);
        row("put_signal+wait", 2, 8, summarize(sig, reps), "ns", ratio_med(sig, pp, reps),
            "x p+wait_until");
    }
    shmemu_barrier_all();
    shmemu_free(data);
    shmemu_free(w);
    return 0;
}

/* A token around a ring: hop h is done by PE h % npes, which waits for the
 * token (wait_until, or a loop of shmemu_long_g when poll) and passes it
 * on with a p. */
static void token_ring(const char *name, long hops, int poll)
{
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *token = shmemu_calloc(1, sizeof(long));
    double t[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        *token = 0;
        shmemu_barrier_all();
        double t0 = now_ns();
        for (long h = me; h < hops; h += np) {
            if (h > 0 && !poll)
                shmemu_long_wait_until(token, SHMEMU_CMP_EQ, h);
            while (h > 0 && poll && shmemu_long_g(token, me) != h)
                ;
            shmemu_long_p(token, h + 1, (me + 1) % np);
        }
        shmemu_barrier_all();
        t[r] = (now_ns() - t0) / (double)hops / 1000.0;
    }
    if (me == 0)
        row(name, np, 8, summarize(t, reps), "us", 0, NULL);
    shmemu_barrier_all();
    shmemu_free(token);
}

/* Raise the PE's thread level to MULTIPLE, as a threaded OpenSHMEM
 * program's PEs do (their waits and polls take another path). */
static int go_multiple(const char *name)
{
    int got = -1;
    shmemu_init_thread(SHMEMU_THREAD_MULTIPLE, &got);
    if (got != SHMEMU_THREAD_MULTIPLE || shmemu_query_thread() != SHMEMU_THREAD_MULTIPLE) {
        fprintf(stderr, "%s: thread level %d, not MULTIPLE\n", name, got);
        return 1;
    }
    return 0;
}

/* A token ring as a PE's body.  The polled one (shmemu_long_g of the PE's
 * own word in a loop, as OpenSHMEM programs poll with shmem_g or
 * shmem_test): with more PEs than cores the PE holding the token must get
 * a core while the others spin.  mt: at SHMEMU_THREAD_MULTIPLE. */
struct ring_kind {
    const char *name;
    long hops;
    int poll, mt;
};
static const struct ring_kind ring_wait = {"ring_token_hop", 10000, 0, 0},
                              ring_wait_mt = {"ring_token_hop_mt", 10000, 0, 1},
                              ring_poll = {"poll_ring_hop", 2000, 1, 0},
                              ring_poll_mt = {"poll_ring_hop_mt", 2000, 1, 1};

static int pe_ring(void *arg)
{
    const struct ring_kind *k = arg;
    if (k->mt && go_multiple(k->name))
        return 1;
    token_ring(k->name, k->hops, k->poll);
    if (k->mt)
        shmemu_finalize(); /* the shmemu_init_thread of go_multiple */
    return 0;
}

/* ------------------------------------------------------------- barrier */

long bench_agreed_count(long *sym, double each_ns, double budget_ns, long most, long least)
{
    if (shmemu_my_pe() == 0) {
        double fit = each_ns > 0 ? budget_ns / each_ns : (double)most;
        long n = fit > (double)most ? most : (long)fit;
        least = least < most ? least : most;
        n = n < least ? least : n;
        for (int p = 0; p < shmemu_n_pes(); p++)
            shmemu_long_p(sym, n, p);
    }
    shmemu_barrier_all(); /* a quiet, then the barrier: the count has landed */
    return shmemu_long_g(sym, shmemu_my_pe()); /* not *sym: on cuda, GPU memory */
}

/* Barriers that fit in about budget_ns, at most iters (and no fewer than
 * 200, or iters if less), as PE 0 times a few: the PE count alone cannot
 * tell a shared-memory barrier (1 us) from one across nodes (1 ms).  Every
 * PE must run the same count; n is a symmetric long to pass it in. */
static long barrier_iters_at(long *n, long iters, double budget_ns)
{
    double t0 = now_ns();
    for (int i = 0; i < 20; i++)
        shmemu_barrier_all();
    return bench_agreed_count(n, (now_ns() - t0) / 20, budget_ns, iters, 200);
}

static long barrier_iters(long iters, double budget_ns)
{
    long *n = shmemu_malloc(sizeof(long));
    if (!n)
        return iters;
    long fit = barrier_iters_at(n, iters, budget_ns);
    shmemu_free(n);
    return fit;
}

static int pe_barrier(void *arg)
{
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long iters = barrier_iters(*(long *)arg, 2e8);
    double t[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        shmemu_barrier_all();
        double t0 = now_ns();
        for (long i = 0; i < iters; i++)
            shmemu_barrier_all();
        t[r] = (now_ns() - t0) / (double)iters / 1000.0;
    }
    if (me == 0) {
        char name[32];
        snprintf(name, sizeof(name), "barrier_all");
        row(name, np, 0, summarize(t, reps), "us", 0, NULL);
    }
    return 0;
}

/* ------------------------------------------------------ scale with PEs */

/* scale: barrier_all and an 8-byte allreduce at each PE count of -n (the
 * default on sim: 2 to 16,384), and what launching and ending an empty job
 * of that many PEs costs. */
static int scale_npes[16] = {2, 16, 64, 256, 1024, 4096, 16384};
static int n_scale = 7;

static int pe_scale(void *arg)
{
    long iters = *(long *)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *v = shmemu_malloc(3 * sizeof(long));
    if (!v)
        return 1;
    double bar[MAX_REPS], red[MAX_REPS];
    /* PE 0's clock is off by up to a barrier at either end (it runs at
     * some point of the others' turns): at least 50 barriers a loop, more
     * where they fit in 0.1 s. */
    long bar_iters = barrier_iters_at(&v[2], iters > 50 ? iters : 50, 1e8);
    /* An allreduce of n PEs is some 10 log2(n) scheduling points a PE on
     * sim: past 1,024 PEs one call a repetition is enough. */
    long red_iters = np > 1024 ? 1 : iters;
    v[0] = me;
    /* Barriers and allreduces in separate loops: PE 0 reads the clock when
     * it next runs, and on sim the others may by then be deep in whatever
     * follows (an allreduce's n - 1 puts each), which a timed barrier loop
     * followed by an allreduce charged to the barrier (100 ms at 4,096). */
    for (int r = 0; r < reps; r++) {
        shmemu_barrier_all();
        double t0 = now_ns();
        for (long i = 0; i < bar_iters; i++)
            shmemu_barrier_all();
        bar[r] = (now_ns() - t0) / (double)bar_iters / 1000;
    }
    for (int r = 0; r < reps; r++) {
        shmemu_barrier_all();
        double t0 = now_ns();
        for (long i = 0; i < red_iters; i++)
            shmemu_allreduce(SHMEMU_TEAM_WORLD, &v[1], &v[0], 1, SHMEMU_INT64, SHMEMU_SUM);
        red[r] = (now_ns() - t0) / (double)red_iters / 1000;
    }
    if (me == 0) {
        row("scale_barrier", np, 0, summarize(bar, reps), "us", 0, NULL);
        row("scale_allreduce8", np, 8, summarize(red, reps), "us", 0, NULL);
    }
    shmemu_free(v);
    return 0;
}

static int pe_empty(void *arg)
{
    (void)arg;
    return 0;
}

static int launch(int npes, size_t heap, int (*fn)(void *), void *arg);

static int run_scale(void)
{
    int rc = 0;
    for (int k = 0; k < n_scale; k++) {
        int np = scale_npes[k];
        long iters = 20000 / np > 2 ? 20000 / np : 2;
        double up[MAX_REPS];
        for (int r = 0; r < reps; r++) {
            double t0 = now_ns();
            rc |= launch(np, (size_t)2 << 20, pe_empty, NULL);
            up[r] = (now_ns() - t0) / 1e6;
        }
        row("scale_launch", np, 0, summarize(up, reps), "ms", 0, NULL);
        rc |= launch(np, (size_t)2 << 20, pe_scale, &iters);
    }
    return rc;
}

/* ------------------------------------------ heaps the host cannot touch */

/* cuda (and shm under SHMEMU_CHECK=device): latency of 8-byte operations
 * from a host buffer, and bandwidth between heaps against a copy of the
 * same size inside the PE's own heap in the same repetition, which on cuda
 * is the cudaMemcpyAsync + synchronize a hand-written copy costs. */
static size_t dev_max = (size_t)1 << 30;

static int pe_dev(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe();
    char *peer = shmemu_malloc(dev_max), *own = shmemu_malloc(dev_max);
    uint64_t *word = shmemu_calloc(1, sizeof(uint64_t));
    if (!peer || !own || !word)
        return 1;
    char priv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double put[MAX_REPS], get[MAX_REPS], amo[MAX_REPS];
    long dev_iters = 20000;
    for (int r = 0; r < reps; r++) {
        shmemu_barrier_all();
        if (me == 0) {
            double t0 = now_ns();
            for (long i = 0; i < dev_iters; i++) {
                shmemu_putmem(peer, priv, 8, 1);
                shmemu_quiet();
            }
            double t1 = now_ns();
            for (long i = 0; i < dev_iters; i++)
                shmemu_getmem(priv, peer, 8, 1);
            double t2 = now_ns();
            for (long i = 0; i < dev_iters; i++)
                (void)shmemu_uint64_atomic_fetch_add(word, 1, 1);
            double t3 = now_ns();
            put[r] = (t1 - t0) / (double)dev_iters;
            get[r] = (t2 - t1) / (double)dev_iters;
            amo[r] = (t3 - t2) / (double)dev_iters;
        }
        shmemu_barrier_all();
    }
    if (me == 0) {
        row("dev_put8+quiet", 2, 8, summarize(put, reps), "ns", 0, NULL);
        row("dev_get8", 2, 8, summarize(get, reps), "ns", 0, NULL);
        row("dev_fetch_add", 2, 8, summarize(amo, reps), "ns", 0, NULL);
    }
    for (size_t size = 4096; size <= dev_max / 2; size *= 4) {
        double cp[MAX_REPS], pt[MAX_REPS], gt[MAX_REPS];
        size_t it = iters_for(size, (size_t)256 << 20);
        for (int r = 0; r < reps; r++) {
            shmemu_barrier_all();
            if (me == 0) {
                double t0 = now_ns();
                for (size_t i = 0; i < it; i++)
                    shmemu_copy_local(own + dev_max / 2, own, size);
                double t1 = now_ns();
                for (size_t i = 0; i < it; i++)
                    shmemu_putmem(peer, own, size, 1);
                shmemu_quiet();
                double t2 = now_ns();
                for (size_t i = 0; i < it; i++)
                    shmemu_getmem(own, peer, size, 1);
                double t3 = now_ns();
                double bytes = (double)size * (double)it;
                cp[r] = bytes / (t1 - t0);
                pt[r] = bytes / (t2 - t1);
                gt[r] = bytes / (t3 - t2);
            }
            shmemu_barrier_all();
        }
        if (me == 0) {
            row("dev_copy_local", 1, size, summarize(cp, reps), "GB/s", 0, NULL);
            row("dev_put", 2, size, summarize(pt, reps), "GB/s", ratio_med(pt, cp, reps),
                "x dev_copy_local");
            row("dev_get", 2, size, summarize(gt, reps), "GB/s", ratio_med(gt, cp, reps),
                "x dev_copy_local");
        }
    }
    shmemu_barrier_all();
    shmemu_free(word);
    shmemu_free(own);
    shmemu_free(peer);
    return 0;
}

/* ---------------------------------------------------------------- main */

/* Started by a launcher (mpirun: PMIx in the environment, no shmemu-run
 * above): the job is the launcher's, each test runs in it when it wants
 * as many PEs as the job has, and is skipped otherwise (a heap large
 * enough for bw comes from SHMEMU_HEAP_SIZE).  This is how figures across
 * hosts are taken. */
static int spmd;

static int launch(int npes, size_t heap, int (*fn)(void *), void *arg)
{
    if (spmd) {
        if (npes != shmemu_n_pes())
            return 0;
        shmemu_barrier_all();
        int rc = fn(arg);
        shmemu_barrier_all();
        return rc;
    }
    shmemu_opts o = {.npes = npes, .transport = transport, .heap_size = heap};
    int rc = shmemu_launch(&o, fn, arg);
    if (rc)
        fprintf(stderr, "shmemu-bench: job of %d PEs failed: %d\n", npes, rc);
    return rc;
}

static void machine(void)
{
    printf("# shmemu-bench %s: transport %s, %d repetitions per figure "
           "(median, min, max)\n",
           SHMEMU_VERSION_STRING, transport, reps);
    print_machine();
    if (!csv)
        printf("%-18s %5s %10s %10s %10s %10s  %-5s %7s  %s\n", "# test", "npes",
               "bytes", "median", "min", "max", "unit", "ratio", "(same repetition)");
    else
        printf("test,transport,npes,bytes,median,min,max,unit,ratio,baseline\n");
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

static int barrier_npes[16] = {2, 4, 8, 64};
static int n_barrier = 4;

int main(int argc, char **argv)
{
    /* A row as soon as it is measured, also into a file or a pipe: a run cut
     * short (a time limit, a GPU lent for minutes) keeps what it measured. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "coll") == 0)
        return coll_main(argc - 1, argv + 1);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long k;
        uint64_t sz;
        char why[256];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: shmemu-bench [-t TRANSPORT] [-r REPS] [-n NPES,...] [-m SIZE] "
                   "[--csv] [lat] [bw] [sync] [ring] [pollring] [barrier] [dev] [scale]\n"
                   "       shmemu-bench coll --help\n");
            return 0;
        }
        if (!strcmp(a, "--csv")) {
            csv = 1;
            continue;
        }
        if (strcmp(a, "-t") && strcmp(a, "-r") && strcmp(a, "-m") && strcmp(a, "-n"))
            cli_die("shmemu-bench", "unknown option '%s' (see --help)", a);
        if (!v)
            cli_die("shmemu-bench", "%s needs a value", a);
        i++;
        if (!strcmp(a, "-t")) {
            int st = cli_transport(v, why, sizeof(why));
            if (st)
                cli_die("shmemu-bench", "-t %s: %s%s%s", v,
                        st == -1 ? "unknown transport (known: " : "cannot run here: ", why,
                        st == -1 ? ")" : "");
            transport = v;
        } else if (!strcmp(a, "-r")) {
            if (cli_long(v, 1, MAX_REPS, &k))
                cli_die("shmemu-bench", "-r takes 1..%d repetitions, not '%s'", MAX_REPS, v);
            reps = (int)k;
        } else if (!strcmp(a, "-m")) {
            if (cli_size(v, &sz) || sz > ((uint64_t)1 << 40))
                cli_die("shmemu-bench", "-m takes a size (bytes, or with K, M, G), not '%s'", v);
            dev_max = sz < 8192 ? 8192 : (size_t)sz;
        } else {
            n_barrier = n_scale = 0;
            char *copy = strdup(v), *save = NULL;
            for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (cli_long(tok, 1, 16384, &k) || n_barrier == 16)
                    cli_die("shmemu-bench", "-n takes up to 16 PE counts (1..16384), not '%s'", v);
                barrier_npes[n_barrier++] = scale_npes[n_scale++] = (int)k;
            }
            free(copy);
            if (!n_barrier)
                cli_die("shmemu-bench", "-n needs a PE count");
        }
    }
    static const char *const parts[] = {"lat", "bw", "sync", "ring", "pollring", "barrier",
                                        "dev", "scale"};
    for (int j = i; j < argc; j++) {
        int known = 0;
        for (size_t k2 = 0; k2 < sizeof(parts) / sizeof(parts[0]); k2++)
            known |= !strcmp(argv[j], parts[k2]);
        if (!known)
            cli_die("shmemu-bench", "unknown benchmark '%s' (lat, bw, sync, ring, pollring, "
                                    "barrier, dev, scale, or coll first)", argv[j]);
    }
    spmd = getenv("PMIX_RANK") && !getenv("SHMEMU_RUN_NPES");
    if (spmd && shmemu_init() != SHMEMU_OK)
        return 1;
    if (spmd)
        transport = shmemu_transport_name();
    if (!spmd || shmemu_my_pe() == 0)
        machine();
    int rc = 0;
    /* Device heaps: the host-side tests load and store heap bytes; the
     * default is dev and barriers of 2-8 PEs. */
    if (strcmp(transport, "cuda") == 0 && i >= argc) {
        rc |= launch(2, 2 * dev_max + ((size_t)4 << 20), pe_dev, NULL);
        for (int np = 2; np <= 8; np *= 2) {
            long iters = 2000;
            rc |= launch(np, (size_t)2 << 20, pe_barrier, &iters);
        }
        return rc ? 1 : 0;
    }
    /* sim: what it is for, cost against the PE count. */
    if (strcmp(transport, "sim") == 0 && i >= argc)
        return run_scale() ? 1 : 0;
    if (i < argc && wants(argc, argv, i, "scale"))
        rc |= run_scale();
    if (i < argc && wants(argc, argv, i, "dev"))
        rc |= launch(2, 2 * dev_max + ((size_t)4 << 20), pe_dev, NULL);
    if (wants(argc, argv, i, "lat"))
        rc |= launch(2, 0, pe_lat, NULL);
    if (wants(argc, argv, i, "bw"))
        rc |= launch(2, BW_MAX + ((size_t)4 << 20), pe_bw, NULL);
    if (wants(argc, argv, i, "sync"))
        rc |= launch(2, 0, pe_sync_lat, NULL);
    /* sim: one thread runs every PE, so no rows at MULTIPLE */
    int mt_rows = strcmp(transport, "sim") != 0;
    if (wants(argc, argv, i, "ring"))
        rc |= launch(128, (size_t)2 << 20, pe_ring, (void *)&ring_wait);
    if (wants(argc, argv, i, "ring") && mt_rows)
        for (int np = 2; np <= 128; np *= 4)
            rc |= launch(np, (size_t)2 << 20, pe_ring, (void *)&ring_wait_mt);
    if (wants(argc, argv, i, "pollring"))
        for (int np = 2; np <= 8; np *= 2)
            rc |= launch(np, (size_t)2 << 20, pe_ring, (void *)&ring_poll);
    if (wants(argc, argv, i, "pollring") && mt_rows)
        for (int np = 2; np <= 8; np *= 2)
            rc |= launch(np, (size_t)2 << 20, pe_ring, (void *)&ring_poll_mt);
    if (wants(argc, argv, i, "barrier")) {
        for (int k = 0; k < n_barrier; k++) {
            /* about 0.1-0.2 s a repetition whatever the PE count */
            long iters = barrier_npes[k] <= 2 ? 200000 : 200000 / barrier_npes[k] / barrier_npes[k] * 4;
            if (iters < 200)
                iters = 200;
            rc |= launch(barrier_npes[k], (size_t)2 << 20, pe_barrier, &iters);
        }
    }
    if (spmd)
        shmemu_finalize();
    return rc ? 1 : 0;
}
