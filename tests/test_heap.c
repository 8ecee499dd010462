/* test_heap.c - symmetric allocation: reuse, alignment, calloc, realloc,
 * mismatches, exhaustion, ptr and addr_accessible; the allocator itself. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runtime/heap.h"

static int body_reuse(void *arg)
{
    (void)arg;
    char *a = shmemu_malloc(1000), *b = shmemu_malloc(2000), *c;
    PE_CHECK(a && b && a != b);
    PE_CHECK_EQ((uintptr_t)a % 64, 0);
    PE_CHECK_EQ((uintptr_t)b % 64, 0);
    shmemu_free(a);
    c = shmemu_malloc(1000); /* best fit: the freed block */
    PE_CHECK(c == a);
    shmemu_free(c);
    shmemu_free(b);
    /* Everything free again and merged: one block spanning both fits. */
    char *d = shmemu_malloc(3000);
    PE_CHECK(d == a);
    shmemu_free(d);

    /* Many blocks, freed in a shuffled order, then reallocated. */
    enum { K = 37 };
    char *blk[K], *again[K];
    for (int i = 0; i < K; i++) {
        blk[i] = shmemu_malloc((size_t)(i * 97 + 1));
        PE_CHECK(blk[i] != NULL);
        memset(blk[i], i, (size_t)(i * 97 + 1));
    }
    for (int i = 0; i < K; i++)
        for (size_t j = 0; j < (size_t)(i * 97 + 1); j++)
            PE_CHECK_EQ((unsigned char)blk[i][j], i); /* no overlap */
    for (int i = 0; i < K; i++)
        shmemu_free(blk[(i * 11) % K]);
    for (int i = 0; i < K; i++)
        again[i] = shmemu_malloc((size_t)(i * 97 + 1));
    for (int i = 0; i < K; i++) {
        PE_CHECK(again[i] == blk[i]); /* same layout on a fresh heap */
        shmemu_free(again[i]);
    }
    PE_CHECK(shmemu_malloc(0) == NULL);
    PE_CHECK_OK(shmemu_last_status());
    shmemu_free(NULL);
    PE_CHECK_OK(shmemu_last_status());
    return 0;
}

static void test_reuse(void **state)
{
    (void)state;
    th_run(body_reuse, NULL, TH_NPES(1, 2, 3, 7), 0);
}

/* ucx maps a peer's heap only where both run on this machine and UCX may
 * use shared memory (not under UCX_TLS=tcp): elsewhere shmemu_ptr gives
 * NULL, as OpenSHMEM's shmem_ptr does for a peer not mapped here. */
static int peers_unmapped(void)
{
    return strcmp(shmemu_transport_name(), "ucx") == 0;
}

static int body_align(void *arg)
{
    (void)arg;
    const size_t aligns[] = {1, 8, 64, 128, 4096, 1 << 20, 2 << 20, 4 << 20, 8 << 20};
    for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
        char *pad = shmemu_malloc(24); /* knock the next block off alignment */
        char *p = shmemu_align(aligns[i], 100);
        PE_CHECK(p != NULL);
        PE_CHECK_EQ((uintptr_t)p % aligns[i], 0);
        /* The same offset is aligned on the peer too: check via ptr (ucx
         * maps no peer's heap here: only one PE checks its own). */
        char *peer = shmemu_ptr(p, (shmemu_my_pe() + 1) % shmemu_n_pes());
        PE_CHECK(peer != NULL || (peers_unmapped() && shmemu_n_pes() > 1));
        PE_CHECK_EQ((uintptr_t)peer % aligns[i], 0);
        shmemu_free(p);
        shmemu_free(pad);
    }
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    const size_t bad[] = {0, 3, 48, (size_t)512 << 20};
    for (size_t i = 0; i < 4; i++) {
        PE_CHECK(shmemu_align(bad[i], 100) == NULL);
        PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    }
    PE_CHECK(shmemu_malloc(10) != NULL); /* heaps still agree afterwards */
    return 0;
}

static void test_align(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_align, NULL, TH_NPES(1, 2, 5), (size_t)32 << 20);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_align: alignment 3 is not a power of two"));
    assert_non_null(strstr(err, "shmemu_align: alignment 536870912 is larger than the "
                                "largest supported, 268435456"));
    free(err);
}

static int body_calloc(void *arg)
{
    (void)arg;
    unsigned char *dirty = shmemu_malloc(5000);
    PE_CHECK(dirty != NULL);
    memset(dirty, 0xab, 5000);
    shmemu_free(dirty);
    unsigned char *z = shmemu_calloc(1000, 5);
    PE_CHECK(z == dirty); /* the same, dirty block comes back zeroed */
    for (int i = 0; i < 5000; i++)
        PE_CHECK_EQ(z[i], 0);
    shmemu_free(z);
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    PE_CHECK(shmemu_calloc(SIZE_MAX / 2, 3) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
    PE_CHECK(shmemu_calloc(0, 3) == NULL);
    PE_CHECK_OK(shmemu_last_status());
    return 0;
}

static void test_sym_calloc(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_calloc, NULL, TH_NPES(1, 3, 4), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "overflows size_t"));
    free(err);
}

static int body_realloc(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    unsigned char *a = shmemu_malloc(100);
    PE_CHECK(a != NULL);
    th_fill(a, 100, me, 1);
    unsigned char *b = shmemu_realloc(a, 1000); /* room behind it: in place */
    PE_CHECK(b == a);
    PE_CHECK_EQ(th_verify(b, 100, me, 1), -1);
    unsigned char *wall = shmemu_malloc(64); /* now it cannot grow in place */
    th_fill(b, 1000, me, 2);
    unsigned char *c = shmemu_realloc(b, 100000);
    PE_CHECK(c != NULL && c != b);
    PE_CHECK_EQ(th_verify(c, 1000, me, 2), -1);
    /* The moved block is symmetric: a put into the peer's copy lands. */
    PE_CHECK_OK(shmemu_putmem(c + 99000, c, 1000, (me + 1) % np));
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(th_verify(c + 99000, 1000, (me - 1 + np) % np, 2), -1);
    unsigned char *d = shmemu_realloc(c, 10); /* shrink in place */
    PE_CHECK(d == c);
    PE_CHECK(shmemu_realloc(d, 0) == NULL); /* frees */
    unsigned char *e = shmemu_realloc(NULL, 77);
    PE_CHECK(e != NULL);
    shmemu_free(e);
    shmemu_free(wall);
    return 0;
}

static void test_sym_realloc(void **state)
{
    (void)state;
    th_run(body_realloc, NULL, TH_NPES(1, 2, 3), 0);
}

/* PE 1 asks for a different size: every PE gets NULL and EMISMATCH, the
 * first PE names both sizes, and the heaps stay in step afterwards. */
static int body_mismatch(void *arg)
{
    (void)arg;
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    int me = shmemu_my_pe();
    void *p = shmemu_malloc(me == 1 ? 2048 : 1024);
    PE_CHECK(p == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EMISMATCH);
    char *q = shmemu_malloc(64);
    PE_CHECK(q != NULL);
    PE_CHECK_OK(shmemu_putmem(q, "x", 1, 1)); /* symmetric: still valid */
    /* free with different pointers is a mismatch too */
    char *r = shmemu_malloc(64);
    shmemu_free(me == 1 ? q : r);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EMISMATCH);
    shmemu_free(r);
    shmemu_free(q);
    PE_CHECK_OK(shmemu_last_status());
    return 0;
}

static void test_mismatch(void **state)
{
    (void)state;
    th_capture_start();
    for (int t = 0; t < th_transport_count(); t++)
        assert_int_equal(th_launch(th_transport(t), 3, 0, body_mismatch, NULL), 0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu: PE 0/3 shmemu_malloc: PEs disagree: PE 0 passed "
                                "size 1024, alignment 64 but PE 1 passed size 2048"));
    assert_non_null(strstr(err, "shmemu: PE 0/3 shmemu_free: PEs disagree"));
    assert_null(strstr(err, "PE 1/3 shmemu_malloc")); /* reported once */
    free(err);
}

/* The mismatch in ABORT mode ends the job with the status. */
static int body_mismatch_abort(void *arg)
{
    (void)arg;
    shmemu_malloc(shmemu_my_pe() == 2 ? 8 : 16);
    th_pe_fail(__FILE__, __LINE__, "shmemu_malloc returned after a mismatch");
}

static void test_mismatch_abort(void **state)
{
    (void)state;
    th_capture_start();
    int rc = th_launch(th_transport(0), 4, 0, body_mismatch_abort, NULL);
    char *err = th_capture_stop();
    assert_int_equal(rc, SHMEMU_EMISMATCH);
    assert_non_null(strstr(err, "PEs disagree"));
    assert_null(strstr(err, "FAIL"));
    free(err);
}

/* No room is not misuse: NULL comes back in either error mode (as from
 * malloc, shmem_malloc, nvshmem_malloc), and the job goes on. */
static int body_enomem(void *arg)
{
    if (arg)
        shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    void *a = shmemu_malloc((size_t)1 << 20);
    PE_CHECK(a != NULL);
    PE_CHECK(shmemu_malloc((size_t)3 << 20) == NULL); /* 3 MiB usable, 1 MiB taken */
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ENOMEM);
    void *b = shmemu_malloc((size_t)1 << 19); /* the failure changed nothing */
    PE_CHECK(b != NULL);
    shmemu_free(b);
    shmemu_free(a);
    return 0;
}

static void test_enomem(void **state)
{
    (void)state;
    th_capture_start();
    for (int t = 0; t < th_transport_count(); t++)
        for (int mode = 0; mode < 2; mode++)
            assert_int_equal(th_launch(th_transport(t), 2, 2 << 20, body_enomem,
                                       mode ? "return" : NULL),
                             0);
    char *err = th_capture_stop();
    assert_non_null(strstr(err, "shmemu_malloc: no room for 3145728 bytes (heap 3145728 "
                                "bytes"));
    assert_non_null(strstr(err, "SHMEMU_HEAP_SIZE"));
    free(err);
}

static int body_ptr(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    long *x = shmemu_calloc((size_t)np, sizeof(long));
    PE_CHECK(x != NULL);
    PE_CHECK_EQ(shmemu_heap_host_accessible(), 1); /* local, shm, ucx: host memory */
    for (int p = 0; p < np; p++) {
        long *px = shmemu_ptr(x, p);
        if (p != me && !px && peers_unmapped()) {
            PE_CHECK(px == NULL);
            PE_CHECK(shmemu_addr_accessible(x, p)); /* reachable by RMA */
            PE_CHECK_OK(shmemu_long_p(&x[me], me * 100 + p, p));
            continue;
        }
        PE_CHECK(px != NULL);
        PE_CHECK(p != me || px == x);
        px[me] = me * 100 + p; /* a direct store into p's copy */
        PE_CHECK(shmemu_addr_accessible(x, p));
    }
    PE_CHECK_OK(shmemu_barrier_all());
    for (int p = 0; p < np; p++)
        PE_CHECK_EQ(x[p], p * 100 + me);
    long stack = 0;
    PE_CHECK(shmemu_ptr(&stack, 0) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ERANGE);
    PE_CHECK(shmemu_ptr(x, np) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EPE);
    PE_CHECK(!shmemu_addr_accessible(&stack, 0));
    PE_CHECK(!shmemu_addr_accessible(x, -1));
    PE_CHECK_OK(shmemu_barrier_all());
    /* a freed block is not symmetric any more: NULL, as the header says */
    char *gone = shmemu_malloc(4096), *kept = shmemu_malloc(64);
    PE_CHECK(gone && kept);
    shmemu_free(gone);
    PE_CHECK(shmemu_ptr(gone + 100, 0) == NULL);
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_ERANGE);
    shmemu_free(kept);
    shmemu_free(x);
    return 0;
}

static void test_ptr(void **state)
{
    (void)state;
    th_run(body_ptr, NULL, TH_NPES(1, 2, 4, 7), 0);
    assert_int_equal(shmemu_heap_host_accessible(), 0); /* outside any PE */
}

/* shmemu_copy_local and shmemu_reduce_local between private memory and the
 * heap, sizes 0, 1, odd and large, overlapping copies, and misuse (the
 * staged transport, whose heap the host cannot touch, has its own in
 * test_staged.c). */
static int body_local(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe();
    static const size_t counts[] = {0, 1, 7, 100003};
    size_t max = 100003;
    int32_t *h = shmemu_malloc(2 * max * sizeof(int32_t)), *h2 = h + max;
    int32_t *a = malloc(max * sizeof(int32_t)), *b = malloc(max * sizeof(int32_t));
    PE_CHECK(h && a && b);
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        size_t c = counts[k];
        for (size_t i = 0; i < c; i++)
            a[i] = (int32_t)(i * 5) - me;
        PE_CHECK_OK(shmemu_copy_local(h, a, c * sizeof(int32_t)));
        PE_CHECK_OK(shmemu_copy_local(h2, h, c * sizeof(int32_t)));
        PE_CHECK_OK(shmemu_reduce_local(SHMEMU_INT32, SHMEMU_PROD, h2, h2, a, c));
        memset(b, 0, max * sizeof(int32_t));
        PE_CHECK_OK(shmemu_copy_local(b, h2, c * sizeof(int32_t)));
        for (size_t i = 0; i < c; i++) {
            int32_t v = (int32_t)(i * 5) - me;
            PE_CHECK_EQ(b[i], (int32_t)((uint32_t)v * (uint32_t)v));
        }
    }
    for (int i = 0; i < 16; i++)
        h[i] = i;
    PE_CHECK_OK(shmemu_copy_local(h + 1, h, 15 * sizeof(int32_t))); /* overlap */
    PE_CHECK_EQ(h[0], 0);
    for (int i = 1; i < 16; i++)
        PE_CHECK_EQ(h[i], i - 1);
    /* the error mode is the job's: all PEs switch before any misuses */
    shmemu_set_error_mode(SHMEMU_ERRORS_RETURN);
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_EQ(shmemu_copy_local(h, NULL, 4), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_reduce_local(SHMEMU_INT32, SHMEMU_SUM, h, h, NULL, 4), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_reduce_local(SHMEMU_DOUBLE, SHMEMU_BAND, h, h, h, 1), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_reduce_local(SHMEMU_INT32, SHMEMU_SUM, h, h, h, SIZE_MAX / 2),
                SHMEMU_EINVAL);
    PE_CHECK_OK(shmemu_copy_local(NULL, NULL, 0)); /* nothing to copy */
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_set_error_mode(SHMEMU_ERRORS_ABORT);
    free(a);
    free(b);
    shmemu_free(h);
    return 0;
}

static void test_local(void **state)
{
    (void)state;
    th_capture_start();
    th_run(body_local, NULL, TH_NPES(1, 3), 0);
    char *err = th_capture_stop();
    if (!strstr(err, "shmemu_copy_local: src is NULL with 4 bytes") ||
        !strstr(err, "shmemu_reduce_local: b is NULL with 4 elements") ||
        !strstr(err, "shmemu_reduce_local: op band (4) does not apply to dtype double") ||
        !strstr(err, "overflows size_t") || !strstr(err, "PE 0/"))
        fail_msg("misuse not reported in one line each, with the PE: %s", err);
    free(err);
}

/* The allocator on its own: random allocations and frees keep the table
 * sorted, gap-free, non-overlapping, aligned, and merge free neighbours. */
static void check_table(const struct shmemu__heap *h)
{
    size_t at = 0;
    for (size_t i = 0; i < h->n; i++) {
        assert_int_equal(h->v[i].off, at);
        assert_true(h->v[i].len > 0);
        assert_true(h->v[i].used || i == 0 || h->v[i - 1].used); /* merged */
        if (h->v[i].used)
            assert_true(h->v[i].req <= h->v[i].len);
        at += h->v[i].len;
    }
    assert_int_equal(at, h->size);
}

static void test_allocator(void **state)
{
    (void)state;
    struct shmemu__heap h;
    const size_t size = (size_t)8 << 20;
    size_t high = 0, want_high = 0; /* the end of every block handed out */
    assert_int_equal(shmemu__heap_init(&h, size, 0, &high), 0);
    enum { SLOTS = 64 };
    size_t off[SLOTS], align[SLOTS];
    int live[SLOTS] = {0};
    unsigned seed = 12345;
    for (int step = 0; step < 20000; step++) {
        seed = seed * 1103515245u + 12345u;
        int s = (int)((seed >> 8) % SLOTS);
        if (live[s]) {
            assert_int_equal(shmemu__heap_free(&h, off[s]), 0);
            assert_int_equal(shmemu__heap_free(&h, off[s]), -1); /* double free */
            live[s] = 0;
        } else {
            size_t n = 1 + (seed >> 4) % 200000;
            align[s] = (size_t)1 << ((seed >> 20) % 14);
            if (shmemu__heap_alloc(&h, n, align[s], &off[s]) == 0) {
                assert_int_equal(off[s] % align[s], 0);
                const struct shmemu__blk *b = shmemu__heap_find(&h, off[s]);
                assert_int_equal(b->off, off[s]);
                assert_int_equal(b->req, n);
                live[s] = 1;
                if (b->off + b->len > want_high)
                    want_high = b->off + b->len;
            }
        }
        assert_int_equal(high, want_high);
        if (step % 97 == 0)
            check_table(&h);
    }
    for (int s = 0; s < SLOTS; s++)
        if (live[s])
            assert_int_equal(shmemu__heap_free(&h, off[s]), 0);
    check_table(&h);
    assert_int_equal(h.n, 1); /* everything merged back into one block */
    assert_null(shmemu__heap_find(&h, size));
    shmemu__heap_fini(&h);

    /* growing a block in place raises the mark; shrinking and freeing do
     * not lower it; the reserved top is not counted */
    size_t o;
    high = 0;
    assert_int_equal(shmemu__heap_init(&h, size, (size_t)1 << 20, &high), 0);
    assert_int_equal(high, 0);
    assert_int_equal(shmemu__heap_alloc(&h, 100, 64, &o), 0);
    assert_int_equal(o, 0);
    assert_int_equal(high, 128);
    assert_int_equal(shmemu__heap_resize(&h, o, 1000), 0);
    assert_int_equal(high, 1024);
    assert_int_equal(shmemu__heap_resize(&h, o, 10), 0);
    assert_int_equal(shmemu__heap_free(&h, o), 0);
    assert_int_equal(high, 1024);
    shmemu__heap_fini(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocator), cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_align),     cmocka_unit_test(test_sym_calloc),
        cmocka_unit_test(test_sym_realloc),   cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_mismatch_abort), cmocka_unit_test(test_enomem),
        cmocka_unit_test(test_ptr),       cmocka_unit_test(test_local),
    };
    return cmocka_run_group_tests_name("heap", tests, NULL, NULL);
}
