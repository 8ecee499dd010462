/* test_staged.c - transports whose heaps the host cannot touch: staged
 * (docs/DESIGN.md, "Writing a transport"), shm under SHMEMU_CHECK=device
 * (symmetric memory as device memory, test_device.c has its reports), and
 * cuda where a GPU is present (skipped with CUDA's reason elsewhere, see
 * test_cuda.c).
 * Every byte is read back through
 * gets, so these tests also prove that the core never loads or stores heap
 * bytes itself (a stray access faults: the heap addresses are inaccessible).
 * Wire-up, nonblocking puts held until quiet or progress, signals, waits on
 * the own heap, atomics, local compute (shmemu_copy_local,
 * shmemu_reduce_local), every reference collective and the verifier all run
 * on it. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "shmemu_cuda.h"

/* The transports these tests run on; "shm+device" is shm under
 * SHMEMU_CHECK=device. */
static const char *const heapless[] = {"staged", "shm+device", "cuda"};
#define NHEAPLESS (sizeof(heapless) / sizeof(heapless[0]))

/* The transport's name, and the checker mode that goes with it. */
static const char *tl_name(const char *t)
{
    return strcmp(t, "shm+device") == 0 ? "shm" : t;
}
static const char *tl_check(const char *t)
{
    return strcmp(t, "shm+device") == 0 ? "device" : NULL;
}

static int usable(const char *t, int say)
{
    t = tl_name(t);
    const char *name;
    int ok;
    char why[256];
    for (int i = 0; shmemu_transport_info(i, &name, &ok, why, sizeof(why)) == SHMEMU_OK; i++)
        if (strcmp(name, t) == 0) {
            if (!ok && say)
                printf("# transport %s skipped: it cannot run here: %s\n", t, why);
            return ok;
        }
    return 0;
}

/* Puts of sizes 0, 1, odd and large to every PE, read back with gets. */
static int body_rma(void *arg)
{
    const char *tl = arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    static const size_t sizes[] = {0, 1, 7, 4093, (size_t)1 << 20};
    size_t max = (size_t)1 << 20;
    char *sym = shmemu_malloc(max * (size_t)n);
    PE_CHECK(sym != NULL);
    PE_CHECK_EQ(shmemu_heap_host_accessible(), 0);
    if (strcmp(tl, "staged") == 0) { /* no direct access at all */
        PE_CHECK(shmemu_ptr(sym, me) == NULL);
        PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ENOTSUP);
    } else { /* a device address, for kernels */
        PE_CHECK(shmemu_ptr(sym, (me + 1) % n) != NULL);
    }
    char *buf = malloc(max), *back = malloc(max);
    PE_CHECK(buf && back);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t len = sizes[k];
        th_fill(buf, len, me, (unsigned)k);
        /* Each PE writes its slot on every PE, nonblocking for odd k. */
        for (int p = 0; p < n; p++) {
            if (k % 2)
                PE_CHECK_OK(shmemu_putmem_nbi(sym + (size_t)me * max, buf, len, p));
            else
                PE_CHECK_OK(shmemu_putmem(sym + (size_t)me * max, buf, len, p));
        }
        PE_CHECK_OK(shmemu_barrier_all()); /* completes the nbi ones */
        for (int p = 0; p < n; p++)
            for (int src = 0; src < n; src++) {
                memset(back, 0, len);
                PE_CHECK_OK(shmemu_getmem(back, sym + (size_t)src * max, len, p));
                PE_CHECK_EQ(th_verify(back, len, src, (unsigned)k), -1);
            }
        PE_CHECK_OK(shmemu_barrier_all());
    }
    free(buf);
    free(back);
    shmemu_free(sym);
    return 0;
}

/* calloc's zeros and realloc's move are the core's own writes to the heap:
 * through the transport here. */
static int body_alloc(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe();
    unsigned char *z = shmemu_calloc(1000, 3);
    void *after = shmemu_malloc(64); /* realloc must move z: local_copy */
    PE_CHECK(z != NULL && after != NULL);
    unsigned char back[3000];
    memset(back, 0xff, sizeof(back));
    PE_CHECK_OK(shmemu_getmem(back, z, sizeof(back), me));
    for (size_t i = 0; i < sizeof(back); i++)
        PE_CHECK_EQ(back[i], 0);
    unsigned char pat[3000];
    th_fill(pat, sizeof(pat), me, 9);
    PE_CHECK_OK(shmemu_putmem(z, pat, sizeof(pat), me));
    PE_CHECK_OK(shmemu_barrier_all());
    unsigned char *r = shmemu_realloc(z, 9000);
    PE_CHECK(r != NULL);
    PE_CHECK_OK(shmemu_getmem(back, r, sizeof(back), me));
    PE_CHECK_EQ(th_verify(back, sizeof(back), me, 9), -1);
    PE_CHECK(r != z);
    shmemu_free(r);
    shmemu_free(after);
    return 0;
}

/* Ring: an nbi put with a signal to the next PE, then a wait on our own
 * signal word (read through the transport).  No quiet: the waiting PE's
 * own progress must move its outstanding put. */
static int body_signal(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    long *data = shmemu_calloc(64, sizeof(long));
    uint64_t *sig = shmemu_calloc(1, sizeof(uint64_t));
    PE_CHECK(data && sig);
    long out[64];
    for (int round = 1; round <= 20; round++) {
        for (int i = 0; i < 64; i++)
            out[i] = (long)me * 1000000 + round * 100 + i;
        PE_CHECK_OK(shmemu_putmem_signal_nbi(data, out, sizeof(out), sig, (uint64_t)round,
                                             SHMEMU_SIGNAL_SET, (me + 1) % n));
        PE_CHECK_EQ(shmemu_signal_wait_until(sig, SHMEMU_CMP_GE, (uint64_t)round),
                    (uint64_t)round);
        long in[64];
        PE_CHECK_OK(shmemu_getmem(in, data, sizeof(in), me));
        int from = (me + n - 1) % n;
        for (int i = 0; i < 64; i++)
            PE_CHECK_EQ(in[i], (long)from * 1000000 + round * 100 + i);
        PE_CHECK_OK(shmemu_barrier_all()); /* nobody overwrites before all read */
    }
    return 0;
}

/* Atomics from every PE on PE 0's counter, and an int wait. */
static int body_amo(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    long *ctr = shmemu_calloc(1, sizeof(long));
    int *flag = shmemu_calloc(1, sizeof(int));
    PE_CHECK(ctr && flag);
    for (int i = 0; i < 100; i++)
        shmemu_long_atomic_add(ctr, i + 1, 0);
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(shmemu_long_atomic_fetch(ctr, 0), (long)n * 5050);
    if (me == 0)
        for (int p = 0; p < n; p++)
            PE_CHECK_OK(shmemu_int_atomic_set(flag, 7, p));
    PE_CHECK_OK(shmemu_int_wait_until(flag, SHMEMU_CMP_EQ, 7));
    PE_CHECK_EQ(shmemu_int_atomic_compare_swap(flag, 7, me, me), 7);
    PE_CHECK_EQ(shmemu_int_atomic_fetch(flag, me), me);
    return 0;
}

/* Local compute on the heap: copies and reductions between heap and host
 * memory, in every combination, with sizes 0, 1, odd and large. */
static int body_local(void *arg)
{
    const char *tl = arg;
    int me = shmemu_my_pe();
    static const size_t counts[] = {0, 1, 7, 100003};
    size_t max = 100003;
    int64_t *h = shmemu_malloc(2 * max * sizeof(int64_t)), *h2 = h + max;
    int64_t *a = malloc(max * sizeof(int64_t)), *b = malloc(max * sizeof(int64_t));
    PE_CHECK(h && a && b);
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        size_t c = counts[k];
        for (size_t i = 0; i < c; i++)
            a[i] = (int64_t)(i * 3 + (size_t)me);
        PE_CHECK_OK(shmemu_copy_local(h, a, c * sizeof(int64_t)));      /* host -> heap */
        PE_CHECK_OK(shmemu_copy_local(h2, h, c * sizeof(int64_t)));     /* heap -> heap */
        PE_CHECK_OK(shmemu_reduce_local(SHMEMU_INT64, SHMEMU_SUM, h2, h2, a, c)); /* mixed */
        PE_CHECK_OK(shmemu_reduce_local(SHMEMU_INT64, SHMEMU_MAX, h, h, h2, c));  /* on heap */
        memset(b, 0, max * sizeof(int64_t));
        PE_CHECK_OK(shmemu_copy_local(b, h2, c * sizeof(int64_t)));     /* heap -> host */
        for (size_t i = 0; i < c; i++)
            PE_CHECK_EQ(b[i], 2 * (int64_t)(i * 3 + (size_t)me));
        PE_CHECK_OK(shmemu_getmem(b, h, c * sizeof(int64_t), me));
        for (size_t i = 0; i < c; i++)
            PE_CHECK_EQ(b[i], 2 * (int64_t)(i * 3 + (size_t)me));
    }
    /* overlapping, as memmove */
    for (size_t i = 0; i < 16; i++)
        a[i] = (int64_t)i;
    PE_CHECK_OK(shmemu_copy_local(h, a, 16 * sizeof(int64_t)));
    PE_CHECK_OK(shmemu_copy_local(h + 1, h, 15 * sizeof(int64_t)));
    PE_CHECK_OK(shmemu_copy_local(b, h, 16 * sizeof(int64_t)));
    PE_CHECK_EQ(b[0], 0);
    for (size_t i = 1; i < 16; i++)
        PE_CHECK_EQ(b[i], (int64_t)i - 1);
    /* misuse: one line and a status, never a fault (the error mode is the
     * job's: every PE is in RETURN mode before any misuses, and done before
     * any goes back) */
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(shmemu_copy_local(NULL, h, 8), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_reduce_local(SHMEMU_FLOAT, SHMEMU_BXOR, h, h, h, 1), SHMEMU_EINVAL);
    /* A range from the heap's first block that runs 32 MiB on, off the end
     * of the 16 MiB heap (into a host buffer that holds it all). */
    size_t far = (size_t)32 << 20;
    char *big = malloc(far);
    PE_CHECK(big != NULL);
    PE_CHECK_EQ(shmemu_copy_local(big, h, far), SHMEMU_ERANGE);
    PE_CHECK_EQ(shmemu_reduce_local(SHMEMU_INT64, SHMEMU_SUM, big, big, h, far / 8),
                SHMEMU_ERANGE);
    free(big);
    /* A pointer into the gap after the heap (staged's and shm's layouts;
     * on cuda, 64 MiB on may be a peer's heap as this process maps it). */
    if (strcmp(tl, "cuda") != 0)
        PE_CHECK_EQ(shmemu_copy_local(b, (char *)h + ((size_t)64 << 20), 8), SHMEMU_ERANGE);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_set_error_mode(SHMEMU_ERRORS_ABORT);
    free(a);
    free(b);
    shmemu_free(h);
    return 0;
}

/* Reads nelems int64 of the heap into a fresh host array. */
static int64_t *host_copy(const int64_t *sym, size_t nelems)
{
    int64_t *h = malloc((nelems ? nelems : 1) * sizeof(int64_t));
    if (h && shmemu_copy_local(h, sym, nelems * sizeof(int64_t)) != SHMEMU_OK) {
        free(h);
        return NULL;
    }
    return h;
}

static int put_values(int64_t *sym, size_t nelems, int64_t (*f)(int me, size_t i))
{
    int64_t *h = malloc((nelems ? nelems : 1) * sizeof(int64_t));
    if (!h)
        return SHMEMU_ENOMEM;
    for (size_t i = 0; i < nelems; i++)
        h[i] = f(shmemu_my_pe(), i);
    int st = shmemu_copy_local(sym, h, nelems * sizeof(int64_t));
    free(h);
    return st;
}

static int64_t v_plain(int me, size_t i) { return (int64_t)me * 100000 + (int64_t)i; }

/* Every reference algorithm on heaps the host cannot touch, values checked
 * exactly against sums written out here. */
static int body_coll(void *arg)
{
    (void)arg;
    PE_CHECK_EQ(shmemu_heap_host_accessible(), 0);
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    static const size_t counts[] = {0, 1, 7, 4097};
    size_t max = 4097;
    int64_t *src = shmemu_malloc(max * (size_t)n * sizeof(int64_t));
    int64_t *dst = shmemu_malloc((max + (size_t)n) * (size_t)n * sizeof(int64_t));
    PE_CHECK(src && dst);
    shmemu_allreduce_fn ar[] = {shmemu_allreduce_oneshot, shmemu_allreduce_ring,
                                shmemu_allreduce_rd, shmemu_allreduce_rabenseifner,
                                shmemu_allreduce_tree, shmemu_allreduce};
    shmemu_allreduce_fn rs[] = {shmemu_reduce_scatter_ring, shmemu_reduce_scatter_rhalving};
    shmemu_allgather_fn ag[] = {shmemu_allgather_ring, shmemu_allgather_bruck,
                                shmemu_allgather_rd};
    shmemu_broadcast_fn bc[] = {shmemu_broadcast_tree, shmemu_broadcast_chain};
    int64_t tri = (int64_t)n * (n - 1) / 2; /* sum of PE numbers */
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        size_t c = counts[k];
        for (size_t a = 0; a < sizeof(ar) / sizeof(ar[0]); a++) {
            PE_CHECK_OK(put_values(src, c, v_plain));
            PE_CHECK_OK(ar[a](SHMEMU_TEAM_WORLD, dst, src, c, SHMEMU_INT64, SHMEMU_SUM));
            int64_t *got = host_copy(dst, c);
            PE_CHECK(got);
            for (size_t i = 0; i < c; i++)
                PE_CHECK_EQ(got[i], 100000 * tri + (int64_t)n * (int64_t)i);
            free(got);
        }
        for (size_t a = 0; a < sizeof(rs) / sizeof(rs[0]); a++) {
            PE_CHECK_OK(put_values(src, c * (size_t)n, v_plain));
            PE_CHECK_OK(rs[a](SHMEMU_TEAM_WORLD, dst, src, c, SHMEMU_INT64, SHMEMU_SUM));
            int64_t *got = host_copy(dst, c);
            PE_CHECK(got);
            for (size_t i = 0; i < c; i++)
                PE_CHECK_EQ(got[i], 100000 * tri + (int64_t)n * (int64_t)((size_t)me * c + i));
            free(got);
        }
        for (size_t a = 0; a < sizeof(ag) / sizeof(ag[0]); a++) {
            PE_CHECK_OK(put_values(src, c, v_plain));
            PE_CHECK_OK(ag[a](SHMEMU_TEAM_WORLD, dst, src, c, SHMEMU_INT64));
            int64_t *got = host_copy(dst, c * (size_t)n);
            PE_CHECK(got);
            for (int p = 0; p < n; p++)
                for (size_t i = 0; i < c; i++)
                    PE_CHECK_EQ(got[(size_t)p * c + i], (int64_t)p * 100000 + (int64_t)i);
            free(got);
        }
        for (size_t a = 0; a < sizeof(bc) / sizeof(bc[0]); a++) {
            PE_CHECK_OK(put_values(src, c, v_plain));
            PE_CHECK_OK(bc[a](SHMEMU_TEAM_WORLD, dst, src, c, SHMEMU_INT64, n - 1));
            int64_t *got = host_copy(dst, c);
            PE_CHECK(got);
            for (size_t i = 0; i < c; i++)
                PE_CHECK_EQ(got[i], (int64_t)(n - 1) * 100000 + (int64_t)i);
            free(got);
        }
        /* alltoall: block p of my src goes to PE p's block me */
        PE_CHECK_OK(put_values(src, c * (size_t)n, v_plain));
        PE_CHECK_OK(shmemu_alltoall(SHMEMU_TEAM_WORLD, dst, src, c, SHMEMU_INT64));
        int64_t *got = host_copy(dst, c * (size_t)n);
        PE_CHECK(got);
        for (int p = 0; p < n; p++)
            for (size_t i = 0; i < c; i++)
                PE_CHECK_EQ(got[(size_t)p * c + i],
                            (int64_t)p * 100000 + (int64_t)((size_t)me * c + i));
        free(got);
        /* collect: PE p contributes p + c elements */
        size_t mine = (size_t)me + c, total = (size_t)n * c + (size_t)tri;
        PE_CHECK_OK(put_values(src, mine, v_plain));
        PE_CHECK_OK(shmemu_collectmem(SHMEMU_TEAM_WORLD, dst, src, mine * sizeof(int64_t)));
        got = host_copy(dst, total);
        PE_CHECK(got);
        size_t at = 0;
        for (int p = 0; p < n; p++)
            for (size_t i = 0; i < (size_t)p + c; i++)
                PE_CHECK_EQ(got[at++], (int64_t)p * 100000 + (int64_t)i);
        free(got);
    }
    shmemu_free(dst);
    shmemu_free(src);
    return 0;
}

/* The stream-ordered calls (cuda only: the others refuse them, test_cuda),
 * on the legacy default stream (NULL), so that this test needs no CUDA of
 * its own: a put and a put with signal to the right neighbour, a barrier on
 * the stream, then what landed read back; a nonblocking put ordered before
 * a get on the stream by quiet_on_stream. */
static int body_stream(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    static const size_t sizes[] = {1, 7, 4093, (size_t)1 << 20};
    size_t max = (size_t)1 << 20;
    char *a = shmemu_malloc(max), *b = shmemu_malloc(max);
    uint64_t *sig = shmemu_calloc(1, sizeof(uint64_t));
    char *buf = malloc(max), *back = malloc(max);
    PE_CHECK(a && b && sig && buf && back);
    PE_CHECK(shmemu_my_device() >= 0);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t len = sizes[k];
        th_fill(buf, len, me, (unsigned)(40 + k));
        PE_CHECK_OK(shmemu_putmem_on_stream(a, buf, len, right, NULL));
        th_fill(buf, len, me, (unsigned)(50 + k)); /* src reusable on return */
        PE_CHECK_OK(shmemu_putmem_signal_on_stream(b, buf, len, sig, 1, SHMEMU_SIGNAL_ADD,
                                                   right, NULL));
        PE_CHECK_EQ(shmemu_signal_wait_until(sig, SHMEMU_CMP_GE, k + 1), k + 1);
        PE_CHECK_OK(shmemu_getmem(back, b, len, me)); /* the signal came after its data */
        PE_CHECK_EQ(th_verify(back, len, left, (unsigned)(50 + k)), -1);
        PE_CHECK_OK(shmemu_barrier_all_on_stream(NULL));
        PE_CHECK_OK(shmemu_getmem(back, a, len, me));
        PE_CHECK_EQ(th_verify(back, len, left, (unsigned)(40 + k)), -1);
        /* get on the stream from the right neighbour's a: what its left
         * (this PE) put there */
        memset(back, 0, len);
        PE_CHECK_OK(shmemu_getmem_on_stream(back, a, len, right, NULL));
        PE_CHECK_OK(shmemu_barrier_all_on_stream(NULL));
        PE_CHECK_EQ(th_verify(back, len, me, (unsigned)(40 + k)), -1);
        /* an nbi put on the PE's own queue, then a get on the stream that
         * quiet_on_stream orders after it */
        th_fill(buf, len, me, (unsigned)(60 + k));
        PE_CHECK_OK(shmemu_putmem_nbi(b, buf, len, me));
        PE_CHECK_OK(shmemu_quiet_on_stream(NULL));
        memset(back, 0, len);
        PE_CHECK_OK(shmemu_getmem_on_stream(back, b, len, me, NULL));
        PE_CHECK_OK(shmemu_barrier_all_on_stream(NULL));
        PE_CHECK_EQ(th_verify(back, len, me, (unsigned)(60 + k)), -1);
        PE_CHECK_OK(shmemu_quiet());
        PE_CHECK_OK(shmemu_barrier_all());
    }
    free(buf);
    free(back);
    shmemu_free(sig);
    shmemu_free(b);
    shmemu_free(a);
    return 0;
}

/* Runs body on every transport of the list with 1, 2, 3 and 5 PEs; 0, or
 * 1 with what failed in msg. */
static int run_all_status(int (*body)(void *), char *msg, size_t len)
{
    static const int npes[] = {1, 2, 3, 5};
    for (size_t t = 0; t < NHEAPLESS; t++) {
        if (!usable(heapless[t], 1))
            continue;
        const char *check = tl_check(heapless[t]);
        if (check)
            setenv("SHMEMU_CHECK", check, 1);
        for (size_t i = 0; i < sizeof(npes) / sizeof(npes[0]); i++) {
            int rc = th_launch(tl_name(heapless[t]), npes[i], (size_t)16 << 20, body,
                               (void *)(uintptr_t)heapless[t]);
            if (rc != 0) {
                unsetenv("SHMEMU_CHECK");
                snprintf(msg, len, "%s, %d PEs: rc %d", heapless[t], npes[i], rc);
                return 1;
            }
        }
        unsetenv("SHMEMU_CHECK");
    }
    return 0;
}

static void run_all(int (*body)(void *))
{
    char msg[128];
    if (run_all_status(body, msg, sizeof(msg)))
        fail_msg("%s", msg);
}

static void test_rma(void **state) { (void)state; run_all(body_rma); }
static void test_alloc(void **state) { (void)state; run_all(body_alloc); }
static void test_signal(void **state) { (void)state; run_all(body_signal); }
static void test_amo(void **state) { (void)state; run_all(body_amo); }

static void test_local(void **state)
{
    (void)state;
    th_capture_start();
    char msg[128];
    int failed = run_all_status(body_local, msg, sizeof(msg));
    char *err = th_capture_stop(); /* before any failure: else its words are lost */
    if (failed) { /* the failing job's words: the end (cmocka cuts long messages) */
        size_t n = strlen(err);
        const char *why = strstr(err, "FAIL PE");
        fail_msg("%s: %s", msg, why ? why : n > 600 ? err + n - 600 : err);
    }
    if (!strstr(err, "shmemu_copy_local: dst is NULL with 8 bytes") ||
        !strstr(err, "shmemu_reduce_local: op bxor (6) does not apply to dtype float") ||
        !strstr(err, "runs off the end of a symmetric heap"))
        fail_msg("misuse not reported in one line each: %s", err);
    free(err);
}
static void test_coll(void **state) { (void)state; run_all(body_coll); }

/* The device-initiated built-ins are kernels, which run where the host
 * loads peers' heaps, or on a GPU (cuda: test_verify runs them there):
 * on staged and under SHMEMU_CHECK=device each call refuses with a status
 * and one line, and the job goes on. */
static int body_dev_refused(void *arg)
{
    if (!strcmp((const char *)arg, "cuda"))
        return 0;
    int64_t *src = shmemu_malloc(64), *dst = shmemu_malloc(64 * 8);
    PE_CHECK(src && dst);
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    PE_CHECK_EQ(shmemu_allreduce_dev_oneshot(SHMEMU_TEAM_WORLD, dst, src, 3, SHMEMU_INT64,
                                             SHMEMU_SUM),
                SHMEMU_ENOTSUP);
    PE_CHECK_EQ(shmemu_allgather_dev_ring(SHMEMU_TEAM_WORLD, dst, src, 1, SHMEMU_INT64),
                SHMEMU_ENOTSUP);
    PE_CHECK_OK(shmemu_barrier_all()); /* the mode is the process's: PEs may be its threads */
    shmemu_set_error_mode(SHMEMU_ERRORS_ABORT);
    shmemu_free(dst);
    shmemu_free(src);
    return 0;
}

static void test_dev_refused(void **state)
{
    (void)state;
    th_capture_start();
    char msg[128];
    int failed = run_all_status(body_dev_refused, msg, sizeof(msg));
    char *err = th_capture_stop();
    if (failed)
        fail_msg("%s: %s", msg, err);
    if (usable("staged", 0) &&
        !strstr(err, "shmemu_launch_kernel: kernel shmemu__dc_oneshot: transport staged has no "
                     "load/store access to peers' heaps"))
        fail_msg("staged: no refusal line: %s", err);
    if (!strstr(err, "shmemu_launch_kernel: kernel shmemu__dc_ag_ring: kernels do not run under "
                     "SHMEMU_CHECK=device"))
        fail_msg("shm+device: no refusal line: %s", err);
    free(err);
}

static void test_stream(void **state)
{
    (void)state;
    if (!usable("cuda", 1))
        skip();
    static const int npes[] = {1, 2, 3, 5};
    for (size_t i = 0; i < sizeof(npes) / sizeof(npes[0]); i++) {
        int rc = th_launch("cuda", npes[i], (size_t)16 << 20, body_stream, NULL);
        if (rc != 0)
            fail_msg("cuda, %d PEs: rc %d", npes[i], rc);
    }
}

/* The verifier stages its buffers through shmemu_copy_local: every built-in
 * algorithm passes on staged, and a planted bug is still found. */
static int forgets_last(shmemu_team_t team, void *dest, const void *src, size_t count,
                        shmemu_dtype_t dtype, shmemu_op_t op)
{
    return shmemu_allreduce_ring(team, dest, src, count ? count - 1 : 0, dtype, op);
}

static void verify_on(const char *tl)
{
    for (int coll = 0; coll < SHMEMU_COLL_COUNT; coll++) {
        const char *name;
        void (*fn)(void);
        for (int i = 0; shmemu_verify_builtin((shmemu_coll_t)coll, i, &name, &fn) == SHMEMU_OK;
             i++) {
            if (!strncmp(name, "dev_", 4) && strcmp(tl, "cuda")) { /* test_dev_refused */
                printf("# %s left out on %s: device-initiated built-ins run on local, shm, sim "
                       "and cuda\n",
                       name, tl);
                continue;
            }
            shmemu_verify_case vc = {.coll = (shmemu_coll_t)coll, .algo = name, .fn = fn,
                                     .transport = tl_name(tl), .check = tl_check(tl),
                                     .npes = 5, .count = 33,
                                     .dtype = SHMEMU_FLOAT16, .op = SHMEMU_SUM,
                                     .root = 3, .seed = 9};
            shmemu_verify_result r;
            assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_OK);
            if (!r.passed)
                fail_msg("%s %s on %s: %s", shmemu_coll_name((shmemu_coll_t)coll), name, tl,
                         r.reason);
        }
    }
    shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE, .algo = "planted",
                             .fn = (void (*)(void))forgets_last, .transport = tl_name(tl),
                             .check = tl_check(tl), .npes = 3,
                             .count = 17, .dtype = SHMEMU_INT32, .op = SHMEMU_SUM, .seed = 9};
    shmemu_verify_result r;
    assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_OK);
    assert_false(r.passed);
    assert_int_equal(r.index, 16);
    assert_string_equal(r.got, "(never written)");
}

static void test_verify(void **state)
{
    (void)state;
    for (size_t t = 0; t < NHEAPLESS; t++)
        if (usable(heapless[t], 0))
            verify_on(heapless[t]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rma),
        cmocka_unit_test(test_alloc),
        cmocka_unit_test(test_signal),
        cmocka_unit_test(test_amo),
        cmocka_unit_test(test_local),
        cmocka_unit_test(test_coll),
        cmocka_unit_test(test_dev_refused),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_verify),
    };
    return cmocka_run_group_tests_name("heaps the host cannot touch", tests, NULL, NULL);
}
