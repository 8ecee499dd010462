/* test_pointers.c - shmemu_ptr under the checker.  On local, shm and sim
 * a peer's pointer is a checked view (src/check/pointers.c): every store through it is seen
 * and held like a put.  Correct code through such pointers must never be
 * accused and must get what a pointer promises; every store instruction
 * form the checker decodes must store exactly the bytes the CPU would.
 * (The planted bug, stores then a flag with no fence, is in test_check.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "harness.h"

/* Correct code that writes peers through shmemu_ptr is never accused, and
 * gets what a pointer promises: its loads read the peer's heap, its own
 * later store to the same bytes wins, a read-modify-write reads its own
 * earlier stores, atomics stay atomic against the other PEs.  Sizes 1, 13,
 * 4097 bytes across a page, 256 KiB by memcpy and 1 MiB + 3 by memset (rep
 * movs and rep stos: one put each).  Where shmemu_ptr gives NULL for a peer
 * under the checker (no views: not x86-64), the same effects go by RMA. */
enum { PBIG = (1 << 20) + 3, PCOPY = 256 << 10 };

static char pattern(int round, int writer, size_t i)
{
    return (char)(round * 31 + writer * 7 + (int)(i % 251));
}

static void put_or_store(char *peer, char *sym, const char *src, size_t n, int to)
{
    if (peer)
        memcpy(peer, src, n);
    else
        PE_CHECK_OK(shmemu_putmem(sym, src, n, to));
}

static int body_ptr_ok(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes(), to = (me + 1) % n, from = (me + n - 1) % n;
    char *big = shmemu_calloc(PBIG, 1);
    long *w = shmemu_calloc(64, sizeof(long));
    long *counter = shmemu_calloc(1, sizeof(long));
    uint64_t *flag = shmemu_calloc(1, sizeof(uint64_t));
    char *src = malloc(PBIG), *want = malloc(PBIG);
    PE_CHECK(big && w && counter && flag && src && want);
    for (int i = 0; i < 64; i++)
        w[i] = me * 1000 + i;
    PE_CHECK(shmemu_ptr(w, me) == w); /* its own heap: its own address */
    char *pb = shmemu_ptr(big, to);
    long *pw = shmemu_ptr(w, to), *pc = shmemu_ptr(counter, 0);
    PE_CHECK_EQ(pb != NULL, th_checked_ptrs(shmemu_transport_name()));
    PE_CHECK_OK(shmemu_barrier_all());
    if (pw) /* loads read the peer's heap */
        for (int i = 0; i < 64; i++)
            PE_CHECK_EQ(pw[i], to * 1000 + i);
    PE_CHECK_OK(shmemu_barrier_all());
    static const size_t at[] = {0, 3, 4090, 8192}, len[] = {1, 13, 4097, PCOPY};
    for (int round = 1; round <= 2; round++) {
        for (size_t i = 0; i < PBIG; i++)
            src[i] = pattern(round, me, i);
        for (int k = 0; k < 4; k++)
            put_or_store(pb ? pb + at[k] : NULL, big + at[k], src + at[k], len[k], to);
        /* memset of 1 MiB + 3 past the copies, and 100 bytes over the
         * third: the later store wins */
        if (pb) {
            memset(pb + 8192 + PCOPY, round, PBIG - 8192 - PCOPY);
            memset(pb + 4100, round + 1, 100);
        } else {
            memset(src + 8192 + PCOPY, round, PBIG - 8192 - PCOPY);
            memset(src + 4100, round + 1, 100);
            PE_CHECK_OK(shmemu_putmem(big + 8192 + PCOPY, src + 8192 + PCOPY,
                                      PBIG - 8192 - PCOPY, to));
            /* puts, unlike stores, are unordered without a fence */
            PE_CHECK_OK(shmemu_fence());
            PE_CHECK_OK(shmemu_putmem(big + 4100, src + 4100, 100, to));
        }
        if (pb) { /* its own stores, still held, read back through the pointer */
            PE_CHECK_EQ(pb[8192 + PCOPY - 1], src[8192 + PCOPY - 1]);
            PE_CHECK_EQ(pb[4100], (char)(round + 1));
            PE_CHECK_EQ(pb[PBIG - 1], (char)round);
#if defined(__x86_64__)
            /* one instruction over three pages (memcpy adds a store of its
             * head that lands it first): its last page reads it too */
            memset(want, 0x70 + round, 3 * 4096);
            void *d = pb + 8192 + 100;
            const void *s = want;
            size_t c = 3 * 4096;
            __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
            PE_CHECK_EQ(pb[8192 + 100 + 3 * 4096 - 1], 0x70 + round);
            memcpy(pb + 8192 + 100, src + 8192 + 100, 3 * 4096); /* as it was */
#endif
        }
        for (int i = 0; i < 64; i++) {
            if (pw && i) { /* each reads the store before it */
                pw[i] += round;
                pw[i] += 1;
            } else if (pw) { /* two stores to one word: the second wins */
                ((volatile long *)pw)[0] = -1;
                ((volatile long *)pw)[0] = round;
            } else if (i) {
                PE_CHECK_OK(shmemu_long_atomic_add(&w[i], round + 1, to));
            } else {
                PE_CHECK_OK(shmemu_long_p(&w[0], round, to));
            }
        }
        for (int k = 0; k < 50; k++)
            if (pc)
                __atomic_fetch_add(pc, 1, __ATOMIC_RELAXED);
            else
                PE_CHECK_OK(shmemu_long_atomic_add(counter, 1, 0));
        PE_CHECK_OK(shmemu_fence());
        PE_CHECK_OK(shmemu_uint64_atomic_set(flag, (uint64_t)round, to));
        PE_CHECK_OK(shmemu_uint64_wait_until(flag, SHMEMU_CMP_GE, (uint64_t)round));
        /* what the previous PE wrote here, from first principles */
        memset(want, 0, PBIG);
        for (int k = 0; k < 4; k++)
            for (size_t i = at[k]; i < at[k] + len[k]; i++)
                want[i] = pattern(round, from, i);
        memset(want + 8192 + PCOPY, round, PBIG - 8192 - PCOPY);
        memset(want + 4100, round + 1, 100);
        if (round > 1) /* bytes no copy of this round wrote keep round 1's */
            for (size_t i = 0; i < 8192; i++)
                if (!(i < 1 || (i >= 3 && i < 16) || (i >= 4090 && i < 4090 + 4097)))
                    want[i] = big[i];
        for (size_t i = 0; i < PBIG; i++)
            if (big[i] != want[i])
                th_pe_fail(__FILE__, __LINE__, "round %d: big[%zu] = %d, not %d", round, i,
                           big[i], want[i]);
        PE_CHECK_EQ(w[0], round);
        for (int i = 1; i < 64; i++)
            PE_CHECK_EQ(w[i], me * 1000 + i + (round == 1 ? 2 : 5));
        PE_CHECK_OK(shmemu_barrier_all());
        if (me == 0)
            PE_CHECK_EQ(*counter, 50L * n * round);
        PE_CHECK_OK(shmemu_barrier_all());
    }
    free(src);
    free(want);
    return 0;
}

static void test_ptr_correct(void **state)
{
    (void)state;
    static const char *const checks[] = {"fuzz:1", "fuzz:2,race", "race", "fuzz:9"};
    for (int t = 0; t < th_transport_count(); t++)
        for (int npes = 2; npes <= 4; npes++)
            for (int c = 0; c < 4; c++) {
                shmemu_opts o = {.npes = npes, .transport = th_transport(t),
                                 .heap_size = TH_HEAP, .check = checks[c]};
                char notes[4096] = "";
                int rc = shmemu_launch(&o, body_ptr_ok, NULL);
                shmemu_check_notes(notes, sizeof(notes));
                if (rc != SHMEMU_OK)
                    fail_msg("%s, %d PEs, %s: returned %d; notes: %s", th_transport(t), npes,
                             checks[c], rc, notes);
            }
}

/* body on every transport under test where checked pointers exist, 2 and
 * 3 PEs, under each of checks (with_sim 0: not on sim, whose PEs are
 * fibers of one thread).  Where none is under test, a skip that says why. */
static void on_checked(int (*body)(void *), const char *const *checks, int nchecks,
                       int with_sim)
{
#if defined(__x86_64__)
    int ran = 0;
    for (int t = 0; t < th_transport_count(); t++) {
        const char *tp = th_transport(t);
        if (!th_checked_ptrs(tp) || (!with_sim && strcmp(tp, "sim") == 0))
            continue;
        ran++;
        for (int npes = 2; npes <= 3; npes++)
            for (int c = 0; c < nchecks; c++) {
                shmemu_opts o = {.npes = npes, .transport = tp, .heap_size = TH_HEAP,
                                 .check = checks[c]};
                int rc = shmemu_launch(&o, body, NULL);
                if (rc != SHMEMU_OK)
                    fail_msg("%s, %d PEs, %s: returned %d", tp, npes, checks[c], rc);
            }
    }
    if (!ran && th_under_valgrind())
        th_skip("checked pointers are off under valgrind (its CPU gives a fault handler no "
                "registers to carry a store out with)");
    if (!ran)
        th_skip("checked pointers exist on local, shm and sim, none of which is under test");
#else
    (void)body, (void)checks, (void)nchecks, (void)with_sim;
    th_skip("checked pointers are x86-64 only (the fault's kind, the trap flag)");
#endif
}

/* ------------------------------------------------ flags through pointers */

/* Data stored through a pointer, then the flag stored through one too with
 * C11 release or sequentially consistent order and no fence: correct (the
 * atomic orders the stores before it, on a CPU and with CUDA's system-scope
 * atomics alike), so never accused.  On x86 a release store is a plain
 * mov: stores through pointers therefore land in program order. */
static int body_release_flag(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes(), to = (me + 1) % n, from = (me + n - 1) % n;
    long *data = shmemu_calloc(512, sizeof(long));
    uint64_t *flag = shmemu_calloc(1, sizeof(uint64_t));
    PE_CHECK(data && flag);
    long *pd = shmemu_ptr(data, to);
    uint64_t *pf = shmemu_ptr(flag, to);
    PE_CHECK(pd && pf);
    for (int round = 1; round <= 6; round++) {
        for (int i = 0; i < 512; i++)
            pd[i] = round * 10000 + me * 1000 + i;
        if (round % 2)
            __atomic_store_n(pf, (uint64_t)round, __ATOMIC_RELEASE);
        else
            __atomic_store_n(pf, (uint64_t)round, __ATOMIC_SEQ_CST);
        PE_CHECK_OK(shmemu_uint64_wait_until(flag, SHMEMU_CMP_GE, (uint64_t)round));
        for (int i = 0; i < 512; i++)
            PE_CHECK_EQ(data[i], round * 10000 + from * 1000 + i);
        PE_CHECK_OK(shmemu_barrier_all());
    }
    return 0;
}

/* ----------------------------------------------------- threads of a PE */

/* Threads the program started store through the PE's pointer (they never
 * call the library: their stores alone are seen), each into its own part
 * of the peer's buffer; then the PE fences and flags. */
enum { TSTORE_THREADS = 3, TSTORE_N = 300 };

struct tstore {
    long *peer;
    int tid, round;
};

static void *thread_stores(void *p)
{
    struct tstore *a = p;
    for (int i = 0; i < TSTORE_N; i++)
        a->peer[a->tid * TSTORE_N + i] = a->round * 100000 + a->tid * 1000 + i;
    return NULL;
}

static int body_threads(void *arg)
{
    (void)arg;
    int got = -1;
    PE_CHECK_OK(shmemu_init_thread(SHMEMU_THREAD_MULTIPLE, &got));
    PE_CHECK_EQ(got, SHMEMU_THREAD_MULTIPLE);
    int me = shmemu_my_pe(), n = shmemu_n_pes(), to = (me + 1) % n;
    long *buf = shmemu_calloc(TSTORE_THREADS * TSTORE_N, sizeof(long));
    uint64_t *flag = shmemu_calloc(1, sizeof(uint64_t));
    PE_CHECK(buf && flag);
    long *peer = shmemu_ptr(buf, to);
    PE_CHECK(peer != NULL);
    for (int round = 1; round <= 3; round++) {
        pthread_t th[TSTORE_THREADS];
        struct tstore a[TSTORE_THREADS];
        for (int t = 0; t < TSTORE_THREADS; t++) {
            a[t] = (struct tstore){peer, t, round};
            PE_CHECK_EQ(pthread_create(&th[t], NULL, thread_stores, &a[t]), 0);
        }
        for (int t = 0; t < TSTORE_THREADS; t++)
            pthread_join(th[t], NULL);
        PE_CHECK_OK(shmemu_fence());
        PE_CHECK_OK(shmemu_uint64_atomic_set(flag, (uint64_t)round, to));
        PE_CHECK_OK(shmemu_uint64_wait_until(flag, SHMEMU_CMP_GE, (uint64_t)round));
        for (int t = 0; t < TSTORE_THREADS; t++)
            for (int i = 0; i < TSTORE_N; i++)
                PE_CHECK_EQ(buf[t * TSTORE_N + i], round * 100000 + t * 1000 + i);
        PE_CHECK_OK(shmemu_barrier_all());
    }
    PE_CHECK_OK(shmemu_finalize()); /* the reference init_thread took */
    return 0;
}

static void test_release_flag(void **state)
{
    (void)state;
    /* Quick: one fuzz seed with race and one without (each check costs
     * seconds under the sanitizers, whose signal handling every held
     * store's fault goes through). */
    static const char *const checks[] = {"fuzz:2,race", "fuzz:1", "fuzz:3", "fuzz:4,race",
                                         "fuzz:5", "race"};
    on_checked(body_release_flag, checks, th_quick() ? 2 : 6, 1);
}

static void test_threads(void **state)
{
    (void)state;
    static const char *const checks[] = {"fuzz:1", "fuzz:3,race"};
    /* Threads the program starts run outside sim's scheduler: not there. */
    on_checked(body_threads, checks, 2, 0);
}

/* ------------------------------------------------ store instruction forms */

#if defined(__x86_64__)
/* Each form the checker carries out from the fault (mov from a register or
 * an immediate, 8-bit high registers, REX-extended registers, SIB and
 * RIP-free addressing; SSE, AVX and AVX-512 moves of every width, non-
 * temporal ones), and one store across a page (single-stepped).  Run on
 * the peer's pointer and on a private reference: the bytes must agree. */
static void __attribute__((noinline)) gpr_sse_stores(unsigned char *p, int r)
{
    uint64_t v = 0x1122334455667788ull * (uint64_t)r;
    __asm__ volatile("movb %b1, 0(%0)" ::"r"(p), "q"(v) : "memory");
    __asm__ volatile("movb %%ah, 1(%0)" ::"r"(p), "a"(v) : "memory");
    __asm__ volatile("movw %w1, 2(%0)" ::"r"(p), "r"(v) : "memory");
    __asm__ volatile("movl %k1, 4(%0)" ::"r"(p), "r"(v) : "memory");
    __asm__ volatile("movq %1, 8(%0)" ::"r"(p), "r"(v) : "memory");
    __asm__ volatile("movb $0x5a, 24(%0)" ::"r"(p) : "memory");
    __asm__ volatile("movw $0x1234, 26(%0)" ::"r"(p) : "memory");
    __asm__ volatile("movl $0x89abcdef, 28(%0)" ::"r"(p) : "memory");
    __asm__ volatile("movq $-5, 32(%0)" ::"r"(p) : "memory");
    register uint64_t r9 __asm__("r9") = v + 2;
    __asm__ volatile("movq %1, 40(%0)" ::"r"(p), "r"(r9) : "memory");
    __asm__ volatile("movq %1, (%0,%2,8)" ::"r"(p), "r"(v + 3), "r"((long)6) : "memory");
    __asm__ volatile("movq %1, -8(%0,%2,4)" ::"r"(p + 64), "r"(v + 4), "r"((long)-2) : "memory");
    __asm__ volatile("movnti %1, 256(%0)" ::"r"(p), "r"(v * 3) : "memory");
    __m128i x = _mm_set1_epi32((int)v);
    _mm_storeu_si128((__m128i *)(void *)(p + 64), x);
    _mm_store_si128((__m128i *)(void *)(p + 80), _mm_add_epi32(x, x));
    _mm_store_ss((float *)(void *)(p + 96), _mm_set1_ps(1.5f * (float)r));
    _mm_store_sd((double *)(void *)(p + 104), _mm_set1_pd(2.5 * r));
    _mm_storel_epi64((__m128i *)(void *)(p + 112), _mm_set1_epi32(r * 7));
    _mm_stream_si128((__m128i *)(void *)(p + 128), _mm_set1_epi32(r * 9));
    register __m128i x12 __asm__("xmm12") = _mm_set1_epi32(r * 11);
    __asm__ volatile("movdqu %1, 144(%0)" ::"r"(p), "x"(x12) : "memory");
    __asm__ volatile("movq %1, 4092(%0)" ::"r"(p), "r"(v * 5) : "memory"); /* across a page */
}

static void __attribute__((noinline, target("avx2"))) avx2_stores(unsigned char *p, int r)
{
    __m256i y = _mm256_set_epi64x(r, r * 2, r * 3, 0x0102030405060708ll * r);
    _mm256_storeu_si256((__m256i *)(void *)(p + 160), y);
    _mm256_store_si256((__m256i *)(void *)(p + 192), _mm256_add_epi64(y, y));
    _mm_storeu_si128((__m128i *)(void *)(p + 224), _mm_set1_epi16((short)(r * 3)));
    register __m256i y12 __asm__("ymm12") = _mm256_set1_epi32(r * 19);
    __asm__ volatile("vmovdqu %1, 288(%0)" ::"r"(p), "x"(y12) : "memory");
}

static void __attribute__((noinline, target("avx512f,avx512bw,avx512vl")))
avx512_stores(unsigned char *p, int r)
{
    _mm512_storeu_si512((void *)(p + 320), _mm512_set_epi64(r, 2, 3, 4, 5, 6, 7, r * 9));
    register __m256i y20 __asm__("ymm20") = _mm256_set1_epi32(r * 13);
    __asm__ volatile("vmovdqu64 %1, 448(%0)" ::"r"(p), "v"(y20) : "memory");
    register __m512i z25 __asm__("zmm25") = _mm512_set1_epi32(r * 17);
    __asm__ volatile("vmovdqu32 %1, 512(%0)" ::"r"(p), "v"(z25) : "memory");
    __asm__ volatile("vmovdqu8 %1, 640(%0)" ::"r"(p), "v"(z25) : "memory");
    __asm__ volatile("vmovdqu64 %1, -64(%0)" ::"r"(p + 768), "v"(z25) : "memory"); /* disp8 * 64 */
}

static void stores(unsigned char *p, int r)
{
    gpr_sse_stores(p, r);
    if (__builtin_cpu_supports("avx2"))
        avx2_stores(p, r);
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl"))
        avx512_stores(p, r);
}

static int body_forms(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), n = shmemu_n_pes(), to = (me + 1) % n;
    unsigned char *buf = shmemu_calloc(8192, 1);
    unsigned char *ref = aligned_alloc(64, 8192);
    uint64_t *flag = shmemu_calloc(1, sizeof(uint64_t));
    PE_CHECK(buf && ref && flag);
    unsigned char *p = shmemu_ptr(buf, to);
    PE_CHECK(p != NULL);
    for (int r = 1; r <= 3; r++) {
        stores(p, r);
        PE_CHECK_OK(shmemu_fence());
        PE_CHECK_OK(shmemu_uint64_atomic_set(flag, (uint64_t)r, to));
        PE_CHECK_OK(shmemu_uint64_wait_until(flag, SHMEMU_CMP_GE, (uint64_t)r));
        memset(ref, 0, 8192);
        stores(ref, r);
        for (int i = 0; i < 8192; i++)
            if (buf[i] != ref[i])
                th_pe_fail(__FILE__, __LINE__, "round %d: byte %d is %#x, not %#x", r, i,
                           buf[i], ref[i]);
        PE_CHECK_OK(shmemu_barrier_all());
    }
    free(ref);
    return 0;
}
#endif

static void test_store_forms(void **state)
{
    (void)state;
#if defined(__x86_64__)
    static const char *const checks[] = {"fuzz:1", "race", "fuzz:4,race"};
    on_checked(body_forms, checks, 3, 1);
#else
    on_checked(NULL, NULL, 0, 1);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ptr_correct),
        cmocka_unit_test(test_store_forms),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_release_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
