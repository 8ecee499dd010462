/* test_rma.c - put and get: sizes, offsets, every peer, every type, nbi. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define BIG (((size_t)1 << 20) + 3)

/* Each round k, PE me puts to (me + k) % n, so every PE receives exactly one
 * put per round, from (me - k) mod n: the PE itself when k = 0. */
static int body_roundtrip(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    const size_t sizes[] = {0, 1, 7, 4096, BIG};
    const size_t offs[] = {0, 5};
    size_t cap = BIG + 16;
    unsigned char *sym = shmemu_malloc(cap);
    unsigned char *src = shmemu_malloc(cap);
    unsigned char *priv = malloc(cap);
    PE_CHECK(sym && src && priv);
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (size_t oi = 0; oi < 2; oi++) {
            size_t n = sizes[si], off = offs[oi];
            int rounds = th_quick() && np > 4 ? 2 : np;
            for (int k = 0; k < rounds; k++) {
                int to = (me + k) % np, from = (me - k + np) % np;
                unsigned salt = (unsigned)(n * 31 + off * 7 + (size_t)k);
                memset(sym, 0, cap);
                th_fill(priv, n, me, salt);
                PE_CHECK_OK(shmemu_barrier_all());
                PE_CHECK_OK(shmemu_putmem(sym + off, priv, n, to));
                PE_CHECK_OK(shmemu_barrier_all());
                PE_CHECK_EQ(th_verify(sym + off, n, from, salt), -1);
                for (size_t g = 0; g < off; g++) /* bytes around dest untouched */
                    PE_CHECK_EQ(sym[g], 0);
                PE_CHECK_EQ(sym[off + n], 0);

                th_fill(src + off, n, me, salt ^ 0x5a5a);
                memset(priv, 0xee, cap);
                PE_CHECK_OK(shmemu_barrier_all());
                PE_CHECK_OK(shmemu_getmem(priv, src + off, n, to));
                PE_CHECK_EQ(th_verify(priv, n, to, salt ^ 0x5a5a), -1);
                PE_CHECK_EQ(priv[n], 0xee);
                PE_CHECK_OK(shmemu_barrier_all());
            }
        }
    }
    free(priv);
    shmemu_free(src);
    shmemu_free(sym);
    return 0;
}

static void test_roundtrip(void **state)
{
    (void)state;
    th_run(body_roundtrip, NULL, TH_NPES_ALL, 0);
}

/* Every typed variant: put, get, put_nbi, get_nbi, p, g, with exact values
 * that differ per PE and element.  PE me talks to its right neighbour. */
#define N_ELEMS 7
#define X(NAME, TYPE)                                                          \
    static int typed_##NAME(void)                                              \
    {                                                                          \
        int me = shmemu_my_pe(), np = shmemu_n_pes();                          \
        int right = (me + 1) % np, left = (me - 1 + np) % np;                  \
        TYPE *dst = shmemu_malloc(4 * N_ELEMS * sizeof(TYPE));                 \
        PE_CHECK(dst != NULL);                                                 \
        TYPE *src = dst + N_ELEMS, *gsrc = dst + 2 * N_ELEMS,                  \
             *slot = dst + 3 * N_ELEMS;                                        \
        TYPE priv[N_ELEMS];                                                    \
        for (int i = 0; i < N_ELEMS; i++) {                                    \
            src[i] = (TYPE)(me * 11 + i + 1);                                  \
            gsrc[i] = (TYPE)(me * 13 + i + 2);                                 \
            dst[i] = slot[i] = (TYPE)0;                                        \
        }                                                                      \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        PE_CHECK_OK(shmemu_##NAME##_put(dst, src, N_ELEMS, right));            \
        PE_CHECK_OK(shmemu_##NAME##_p(&slot[0], (TYPE)(me + 3), right));       \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        for (int i = 0; i < N_ELEMS; i++)                                      \
            PE_CHECK(dst[i] == (TYPE)(left * 11 + i + 1));                     \
        PE_CHECK(slot[0] == (TYPE)(left + 3));                                 \
        PE_CHECK_OK(shmemu_##NAME##_get(priv, gsrc, N_ELEMS, right));          \
        for (int i = 0; i < N_ELEMS; i++)                                      \
            PE_CHECK(priv[i] == (TYPE)(right * 13 + i + 2));                   \
        PE_CHECK(shmemu_##NAME##_g(&gsrc[N_ELEMS - 1], right) ==               \
                 (TYPE)(right * 13 + N_ELEMS + 1));                            \
        PE_CHECK_OK(shmemu_last_status());                                     \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        PE_CHECK_OK(shmemu_##NAME##_put_nbi(&slot[1], src, N_ELEMS - 1, left)); \
        memset(priv, 0, sizeof(priv));                                         \
        PE_CHECK_OK(shmemu_##NAME##_get_nbi(priv, src, N_ELEMS, left));        \
        PE_CHECK_OK(shmemu_quiet());                                           \
        for (int i = 0; i < N_ELEMS; i++)                                      \
            PE_CHECK(priv[i] == (TYPE)(left * 11 + i + 1));                    \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        for (int i = 1; i < N_ELEMS; i++)                                      \
            PE_CHECK(slot[i] == (TYPE)(right * 11 + i));                       \
        PE_CHECK_OK(shmemu_barrier_all());                                     \
        shmemu_free(dst);                                                      \
        return 0;                                                              \
    }
SHMEMU_RMA_TYPES(X)
#undef X

static int body_typed(void *arg)
{
    (void)arg;
    int rc = 0;
#define X(NAME, TYPE) rc |= typed_##NAME();
    SHMEMU_RMA_TYPES(X)
#undef X
    return rc;
}

static void test_typed(void **state)
{
    (void)state;
    th_run(body_typed, NULL, TH_NPES(1, 2, 3, 5), 0);
}

/* Many non-blocking puts of odd sizes to every PE, completed by one quiet,
 * then checked after a barrier. */
static int body_nbi(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    const size_t n = 1001;
    unsigned char *buf = shmemu_malloc(n * (size_t)np);
    unsigned char *priv = malloc(n * (size_t)np);
    PE_CHECK(buf && priv);
    for (int p = 0; p < np; p++) {
        th_fill(priv + (size_t)p * n, n, me, (unsigned)p);
        PE_CHECK_OK(shmemu_putmem_nbi(buf + (size_t)me * n, priv + (size_t)p * n, n, p));
    }
    PE_CHECK_OK(shmemu_quiet());
    PE_CHECK_OK(shmemu_barrier_all());
    for (int p = 0; p < np; p++)
        PE_CHECK_EQ(th_verify(buf + (size_t)p * n, n, p, (unsigned)me), -1);
    memset(priv, 0, n * (size_t)np);
    for (int p = 0; p < np; p++)
        PE_CHECK_OK(shmemu_getmem_nbi(priv + (size_t)p * n, buf + (size_t)me * n, n, p));
    PE_CHECK_OK(shmemu_quiet());
    for (int p = 0; p < np; p++) /* p's slot for me holds what I put there */
        PE_CHECK_EQ(th_verify(priv + (size_t)p * n, n, me, (unsigned)p), -1);
    PE_CHECK_OK(shmemu_barrier_all());
    free(priv);
    shmemu_free(buf);
    return 0;
}

static void test_nbi(void **state)
{
    (void)state;
    th_run(body_nbi, NULL, TH_NPES_ALL, 0);
}

/* A put to self whose source overlaps the destination (both in one block)
 * behaves like memmove, forwards and backwards, small and bulk. */
static int body_overlap(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe();
    const size_t n = 10000;
    unsigned char *b = shmemu_malloc(n + 64), *ref = malloc(n + 64);
    PE_CHECK(b && ref);
    const size_t lens[] = {3, 8, 100, 5000};
    const long shifts[] = {1, -1, 7, -7, 64, -64};
    for (size_t li = 0; li < 4; li++)
        for (size_t si = 0; si < 6; si++) {
            th_fill(b, n + 64, me, 9);
            memcpy(ref, b, n + 64);
            size_t from = 100, to = (size_t)((long)from + shifts[si]);
            memmove(ref + to, ref + from, lens[li]);
            PE_CHECK_OK(shmemu_putmem(b + to, b + from, lens[li], me));
            PE_CHECK(memcmp(b, ref, n + 64) == 0);
            th_fill(b, n + 64, me, 9);
            PE_CHECK_OK(shmemu_getmem(b + to, b + from, lens[li], me));
            PE_CHECK(memcmp(b, ref, n + 64) == 0);
        }
    free(ref);
    shmemu_free(b);
    return 0;
}

static void test_overlap(void **state)
{
    (void)state;
    th_run(body_overlap, NULL, TH_NPES(1, 2), 0);
}

/* A stream of small puts to one peer, as a collective over a network makes
 * them (the ucx transport combines them into one message where UCX would
 * send a message per put): every size, each checked at the target; writes
 * to one place ordered by fences (the later wins, small over bulk and bulk
 * over small); a PE reads back what it just wrote; and a put whose PE then
 * computes, calling nothing, still arrives. */
static const size_t stream_sizes[] = {1, 2, 3, 8, 13, 100, 1001, 4096, 8191, 8192, 8193, 20000};
#define N_STREAM (sizeof(stream_sizes) / sizeof(stream_sizes[0]))

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int body_stream(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    int right = (me + 1) % np, left = (me - 1 + np) % np;
    size_t per = 0;
    for (size_t i = 0; i < N_STREAM; i++)
        per += stream_sizes[i] + 1; /* a byte between puts stays untouched */
    const int reps = th_quick() ? 20 : 60;
    size_t cap = per * (size_t)reps;
    unsigned char *sym = shmemu_malloc(cap), *priv = malloc(20000), *exp = malloc(20000);
    long *flag = shmemu_malloc(sizeof(long));
    PE_CHECK(sym && priv && exp && flag);
    memset(sym, 0xcc, cap);
    *flag = 0;
    PE_CHECK_OK(shmemu_barrier_all());
    size_t off = 0;
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i < N_STREAM; i++) {
            size_t n = stream_sizes[i];
            th_fill(priv, n, me, (unsigned)(r * N_STREAM + i));
            PE_CHECK_OK(shmemu_putmem(sym + off, priv, n, right));
            off += n + 1;
        }
    PE_CHECK_OK(shmemu_quiet());
    PE_CHECK_OK(shmemu_barrier_all());
    off = 0;
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i < N_STREAM; i++) {
            size_t n = stream_sizes[i];
            PE_CHECK_EQ(th_verify(sym + off, n, left, (unsigned)(r * N_STREAM + i)), -1);
            PE_CHECK_EQ(sym[off + n], 0xcc);
            off += n + 1;
        }

    /* Overwrites, each ordered after the one before by a fence. */
    PE_CHECK_OK(shmemu_barrier_all());
    th_fill(priv, 8, me, 1);
    PE_CHECK_OK(shmemu_putmem(sym, priv, 8, right));
    PE_CHECK_OK(shmemu_fence());
    th_fill(priv, 20000, me, 2);
    PE_CHECK_OK(shmemu_putmem(sym, priv, 20000, right));
    PE_CHECK_OK(shmemu_fence());
    th_fill(priv, 100, me, 3);
    PE_CHECK_OK(shmemu_putmem(sym, priv, 100, right));
    PE_CHECK_OK(shmemu_fence());
    th_fill(priv, 7, me, 4);
    PE_CHECK_OK(shmemu_putmem_nbi(sym + 50, priv, 7, right));
    PE_CHECK_OK(shmemu_quiet());
    PE_CHECK_OK(shmemu_barrier_all());
    th_fill(exp, 20000, left, 2);
    th_fill(exp, 100, left, 3);
    th_fill(exp + 50, 7, left, 4);
    PE_CHECK(memcmp(sym, exp, 20000) == 0);

    /* Read back at once what was just put (no quiet in between). */
    PE_CHECK_OK(shmemu_barrier_all());
    th_fill(priv, 13, me, 5);
    PE_CHECK_OK(shmemu_putmem(sym + 30000, priv, 13, right));
    memset(exp, 0, 13);
    PE_CHECK_OK(shmemu_getmem(exp, sym + 30000, 13, right));
    PE_CHECK(memcmp(exp, priv, 13) == 0);

    /* Put, then compute without calling the library: the put arrives.  Not
     * on sim, whose PEs are fibers of one thread: one that never calls the
     * library never lets another run. */
    PE_CHECK_OK(shmemu_barrier_all());
    if (strcmp(shmemu_transport_name(), "sim") != 0) {
        PE_CHECK_OK(shmemu_long_p(flag, me + 1, right));
        double t0 = seconds();
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != left + 1 && seconds() - t0 < 30)
            ;
        PE_CHECK_EQ(__atomic_load_n(flag, __ATOMIC_ACQUIRE), left + 1);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(flag);
    shmemu_free(sym);
    free(exp);
    free(priv);
    return 0;
}

static void test_stream(void **state)
{
    (void)state;
    th_run(body_stream, NULL, TH_NPES(1, 2, 3, 5), 0);
}

/* Strided RMA: shapes of blocks and strides (either sign, a repeated
 * source block, contiguous, bulk), elements of 8 bytes (typed) and 3 bytes
 * (shmemu_ibput with an odd elsize).  Each element's bytes name the PE and
 * the element; what lies between the blocks written must stay untouched. */
struct shape {
    size_t bsize, nblocks;
    ptrdiff_t dst, sst;
};
static const struct shape shapes[] = {
    {1, 0, 1, 1},  {0, 4, 1, 1},  {1, 1, 9, 9},      {1, 7, 3, 2},      {3, 5, 4, 7},
    {4, 3, 4, 4},  {5, 4, -6, 5}, {2, 6, 2, 0},      {3, 4, 3, -3},     {1, 9, -1, 1},
    {250, 40, 257, 251},
};

static unsigned char elem_byte(int pe, ptrdiff_t e, size_t b)
{
    return (unsigned char)(pe * 61 + e * 7 + (ptrdiff_t)b * 3 + 1);
}

/* The lowest element index a side touches, and how many it spans. */
static void extent(ptrdiff_t stride, const struct shape *sh, ptrdiff_t *lo, size_t *span)
{
    ptrdiff_t last = (ptrdiff_t)(sh->nblocks ? sh->nblocks - 1 : 0) * stride;
    *lo = last < 0 ? last : 0;
    *span = (size_t)((last < 0 ? -last : last)) + sh->bsize + 1;
}

static int strided_case(const struct shape *sh, size_t es, int get)
{
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    int peer = get ? (me + 1) % np : (me + np - 1) % np; /* whose data lands here */
    ptrdiff_t dlo, slo;
    size_t dspan, sspan;
    extent(sh->dst, sh, &dlo, &dspan);
    extent(sh->sst, sh, &slo, &sspan);
    size_t pad = 16;
    unsigned char *dbuf = get ? malloc((dspan + 2 * pad) * es)
                              : shmemu_malloc((dspan + 2 * pad) * es);
    unsigned char *sbuf = get ? shmemu_malloc((sspan + 2 * pad) * es)
                              : malloc((sspan + 2 * pad) * es);
    PE_CHECK(dbuf && sbuf);
    unsigned char *d0 = dbuf + (pad - (size_t)dlo) * es; /* element 0 of dest */
    unsigned char *s0 = sbuf + (pad - (size_t)slo) * es;
    memset(dbuf, 0xee, (dspan + 2 * pad) * es);
    for (size_t e = 0; e < sspan; e++)
        for (size_t b = 0; b < es; b++)
            s0[((ptrdiff_t)e + slo) * (ptrdiff_t)es + (ptrdiff_t)b] =
                elem_byte(me, (ptrdiff_t)e + slo, b);
    PE_CHECK_OK(shmemu_barrier_all());
    int st;
    if (es == 8 && !get)
        st = shmemu_long_ibput((long *)(void *)d0, (const long *)(void *)s0, sh->dst, sh->sst,
                               sh->bsize, sh->nblocks, (me + 1) % np);
    else if (es == 8)
        st = shmemu_long_ibget((long *)(void *)d0, (const long *)(void *)s0, sh->dst, sh->sst,
                               sh->bsize, sh->nblocks, peer);
    else if (!get)
        st = shmemu_ibput(d0, s0, sh->dst, sh->sst, sh->bsize, sh->nblocks, es, (me + 1) % np);
    else
        st = shmemu_ibget(d0, s0, sh->dst, sh->sst, sh->bsize, sh->nblocks, es, peer);
    PE_CHECK_OK(st);
    PE_CHECK_OK(shmemu_barrier_all());
    /* walk every element of the dest extent and its padding */
    for (ptrdiff_t e = dlo - (ptrdiff_t)pad; e < dlo + (ptrdiff_t)(dspan + pad); e++) {
        ptrdiff_t from = 0; /* which source element lands at e, if any */
        int hit = 0;
        for (size_t i = 0; i < sh->nblocks && sh->bsize; i++) {
            ptrdiff_t j = e - (ptrdiff_t)i * sh->dst;
            if (j >= 0 && j < (ptrdiff_t)sh->bsize)
                from = (ptrdiff_t)i * sh->sst + j, hit = 1;
        }
        for (size_t b = 0; b < es; b++) {
            unsigned char want = hit ? elem_byte(peer, from, b) : 0xee;
            unsigned char got = d0[e * (ptrdiff_t)es + (ptrdiff_t)b];
            if (got != want) {
                fprintf(stderr,
                        "PE %d %s bsize %zu nblocks %zu dst %td sst %td es %zu: "
                        "element %td byte %zu is %u, want %u\n",
                        me, get ? "ibget" : "ibput", sh->bsize, sh->nblocks, sh->dst,
                        sh->sst, es, e, b, got, want);
                return 1;
            }
        }
    }
    PE_CHECK_OK(shmemu_barrier_all());
    if (get) {
        free(dbuf);
        shmemu_free(sbuf);
    } else {
        shmemu_free(dbuf);
        free(sbuf);
    }
    return 0;
}

static int body_strided(void *arg)
{
    (void)arg;
    int rc = 0;
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]) && !rc; i++)
        for (int get = 0; get < 2 && !rc; get++) {
            rc |= strided_case(&shapes[i], 8, get);
            rc |= strided_case(&shapes[i], 3, get);
        }
    /* the element-strided typed forms are blocks of one */
    int a[12], b[12];
    int me = shmemu_my_pe(), np = shmemu_n_pes();
    for (int i = 0; i < 12; i++)
        a[i] = me * 100 + i;
    int *sa = shmemu_malloc(sizeof(a)), *sb = shmemu_calloc(12, sizeof(int));
    PE_CHECK(sa && sb);
    memcpy(sa, a, sizeof(a));
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_OK(shmemu_int_iput(sb, sa, 3, 2, 4, (me + 1) % np));
    PE_CHECK_OK(shmemu_barrier_all());
    int from = (me + np - 1) % np;
    for (int i = 0; i < 12; i++) {
        int want = i % 3 == 0 ? from * 100 + 2 * (i / 3) : 0;
        PE_CHECK_EQ(sb[i], want);
    }
    PE_CHECK_OK(shmemu_int_iget(b, sa, 1, 4, 3, (me + 1) % np));
    for (int i = 0; i < 3; i++)
        PE_CHECK_EQ(b[i], ((me + 1) % np) * 100 + 4 * i);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(sb);
    shmemu_free(sa);
    return rc;
}

static void test_strided(void **state)
{
    (void)state;
    th_run(body_strided, NULL, TH_NPES(1, 2, 3, 5), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_typed),
        cmocka_unit_test(test_nbi),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_strided),
    };
    return cmocka_run_group_tests_name("rma", tests, NULL, NULL);
}
