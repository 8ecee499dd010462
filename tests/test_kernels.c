/* test_kernels.c - device-initiated code (shmemu_device.h) on the CPU
 * transports: thread and block indices for shapes of 1 to 65,536 threads,
 * every device call and its _block / _warp forms with exact bytes, waits
 * between threads, blocks and PEs, atomics, shared memory, device
 * barriers, a schedule on sim that replays, planted ordering bugs that the
 * checker catches (with their fixed twins passing), and misuse.  Kernel
 * files built with shmemu-devcc and run through the tools: test_devcc. */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"
#include "shmemu_device.h"

/* Where kernels cannot run (heaps the host cannot load, or peers' heaps
 * it does not map: staged, ucx, cuda without nvcc) the launch says so with
 * SHMEMU_ENOTSUP; test_misuse checks that line, the other bodies then
 * have nothing to do.  Asked with an empty kernel. */
struct none_arg {
    int unused;
};

SHMEMU_KERNEL(k_none, struct none_arg, a)
{
    (void)a;
}

static int kernels_run_here(void)
{
    struct none_arg a = {0};
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    int st = shmemu_launch_kernel(k_none, 1, 1, &a);
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_ABORT));
    PE_CHECK(st == SHMEMU_OK || st == SHMEMU_ENOTSUP);
    return st == SHMEMU_OK;
}

/* ---------------------------------------------------------------- ids */

struct ids_arg {
    unsigned *out; /* per global thread: a code of its indices */
    unsigned *count;
};

SHMEMU_KERNEL(k_ids, struct ids_arg, a)
{
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned g = b * (blockDim.x * blockDim.y * blockDim.z) + t;
    a.out[g] = b * 4096u + t + 1;
    atomicAdd(a.count, 1u);
}

struct shape {
    shmemu_dim3 grid, block;
};

static int body_ids(void *arg)
{
    (void)arg;
    static const struct shape shapes[] = {
        {{1, 1, 1}, {1, 1, 1}},    {{3, 1, 1}, {5, 1, 1}},    {{2, 3, 1}, {4, 2, 2}},
        {{1, 1, 2}, {32, 1, 1}},   {{7, 1, 1}, {33, 1, 1}},   {{64, 1, 1}, {1024, 1, 1}}};
    size_t max = 64 * 1024;
    unsigned *out = shmemu_malloc(max * sizeof(unsigned));
    unsigned *count = shmemu_calloc(1, sizeof(unsigned));
    PE_CHECK(out && count);
    if (!kernels_run_here())
        goto done;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        const struct shape *sh = &shapes[s];
        size_t nb = (size_t)sh->grid.x * sh->grid.y * sh->grid.z;
        size_t nt = (size_t)sh->block.x * sh->block.y * sh->block.z;
        if (nb * nt > 4096 && th_quick() && shmemu_n_pes() > 1)
            continue; /* the 65,536-thread launch once, on one PE, in quick mode */
#ifdef TH_TSAN
        if (nb * nt > 4096)
            continue; /* ThreadSanitizer counts each fiber as a thread (8,128 at most);
                         the other builds run this shape */
#endif
        memset(out, 0, max * sizeof(unsigned));
        *count = 0;
        struct ids_arg a = {out, count};
        PE_CHECK_OK(shmemu_launch_kernel(k_ids, sh->grid, sh->block, &a));
        PE_CHECK_EQ(*count, nb * nt);
        for (size_t b = 0; b < nb; b++)
            for (size_t t = 0; t < nt; t++)
                if (out[b * nt + t] != b * 4096 + t + 1)
                    th_pe_fail(__FILE__, __LINE__, "shape %zu: thread %zu of block %zu wrote %u",
                               s, t, b, out[b * nt + t]);
    }
    /* Plain counts as well as dim3. */
    *count = 0;
    struct ids_arg a = {out, count};
    PE_CHECK_OK(shmemu_launch_kernel(k_ids, 2, 3, &a));
    PE_CHECK_EQ(*count, 6);
done:
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(count);
    shmemu_free(out);
    return 0;
}

static void test_ids(void **state)
{
    (void)state;
    th_run(body_ids, NULL, TH_NPES(1, 2, 3), 0);
}

/* ------------------------------------------------------- warp functions */

enum { WF_XOR_SUM, WF_DOWN_SUM, WF_BCAST8, WF_SCAN, WF_BALLOT, WF_ANY, WF_ALL, WF_ALL_NOT,
       WF_DOUBLE, WF_ULL, WF_HALF_MASK, WF_SMALL_WARP, WF_COUNT };

struct warp_arg {
    long long *out; /* [global thread][WF_COUNT] */
};

/* Each thread records what CUDA's warp functions give it; -1 where a form
 * does not apply to its warp (the 8-lane warp of a 40-thread block). */
SHMEMU_KERNEL(k_warp, struct warp_arg, a)
{
    unsigned rank = threadIdx.x, lane = rank % 32;
    unsigned lanes = blockDim.x - rank / 32 * 32 < 32 ? blockDim.x - rank / 32 * 32 : 32;
    long long *o = a.out + ((size_t)blockIdx.x * blockDim.x + rank) * WF_COUNT;
    for (int f = 0; f < WF_COUNT; f++)
        o[f] = -1;
    __syncwarp();
    if (lanes == 32) {
        int v = (int)lane + 1;
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, off);
        o[WF_XOR_SUM] = v;
        float d = (float)lane + 1;
        for (int off = 16; off > 0; off >>= 1)
            d += __shfl_down_sync(0xffffffffu, d, off);
        o[WF_DOWN_SUM] = lane == 0 ? (long long)d : -1;
        o[WF_BCAST8] = __shfl_sync(0xffffffffu, (int)(lane * 10 + blockIdx.x), 5, 8);
        int scan = (int)lane + 1;
        for (int d2 = 1; d2 < 32; d2 *= 2) {
            int n = __shfl_up_sync(0xffffffffu, scan, d2);
            if ((int)lane >= d2)
                scan += n;
        }
        o[WF_SCAN] = scan;
        o[WF_BALLOT] = __ballot_sync(0xffffffffu, lane % 3 == 0);
        o[WF_ANY] = __any_sync(0xffffffffu, lane == 31);
        o[WF_ALL] = __all_sync(0xffffffffu, lane < 32);
        o[WF_ALL_NOT] = __all_sync(0xffffffffu, lane < 31);
        o[WF_DOUBLE] = (long long)(__shfl_xor_sync(0xffffffffu, (double)lane * 0.5, 1) * 2);
        o[WF_ULL] = (long long)(__shfl_sync(0xffffffffu, (unsigned long long)lane << 40, 31) >> 40);
        if (lane < 16) /* half the warp, its own mask */
            o[WF_HALF_MASK] = __shfl_xor_sync(0xffffu, (long)lane, 8);
        __syncwarp(0xffffffffu);
    } else {
        o[WF_SMALL_WARP] = __ballot_sync(0xffffffffu, 1) * 100 +
                           (unsigned)__shfl_xor_sync((1u << lanes) - 1, (int)lane, 4);
    }
}

static long long warp_expected(unsigned block, unsigned rank, unsigned bdim, int f)
{
    unsigned lane = rank % 32, lanes = bdim - rank / 32 * 32 < 32 ? bdim - rank / 32 * 32 : 32;
    if (lanes < 32)
        return f == WF_SMALL_WARP ? (long long)((1u << lanes) - 1) * 100 + (lane ^ 4) : -1;
    switch (f) {
    case WF_XOR_SUM: return 32 * 33 / 2;
    case WF_DOWN_SUM: return lane == 0 ? 32 * 33 / 2 : -1;
    case WF_BCAST8: return (long long)((lane / 8 * 8 + 5) * 10 + block);
    case WF_SCAN: return (long long)(lane + 1) * (lane + 2) / 2;
    case WF_BALLOT: {
        long long m = 0;
        for (unsigned l = 0; l < 32; l += 3)
            m |= 1ll << l;
        return m;
    }
    case WF_ANY: return 1;
    case WF_ALL: return 1;
    case WF_ALL_NOT: return 0;
    case WF_DOUBLE: return lane ^ 1;
    case WF_ULL: return 31;
    case WF_HALF_MASK: return lane < 16 ? (long long)(lane ^ 8) : -1;
    default: return -1;
    }
}

static int body_warp(void *arg)
{
    (void)arg;
    static const unsigned dims[] = {32, 40, 64, 96};
    long long *out = shmemu_malloc(2 * 96 * WF_COUNT * sizeof(long long));
    PE_CHECK(out != NULL);
    if (!kernels_run_here())
        goto done;
    for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
        struct warp_arg a = {out};
        PE_CHECK_OK(shmemu_launch_kernel(k_warp, 2, dims[d], &a));
        for (unsigned b = 0; b < 2; b++)
            for (unsigned r = 0; r < dims[d]; r++)
                for (int f = 0; f < WF_COUNT; f++) {
                    long long got = out[((size_t)b * dims[d] + r) * WF_COUNT + f];
                    long long want = warp_expected(b, r, dims[d], f);
                    if (got != want)
                        th_pe_fail(__FILE__, __LINE__,
                                   "block of %u: block %u thread %u form %d: %lld, not %lld",
                                   dims[d], b, r, f, got, want);
                }
    }
done:
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(out);
    return 0;
}

/* __syncwarp, __shfl_sync and its up/down/xor forms (int, long, unsigned
 * long long, float, double; a width below warpSize), __ballot_sync,
 * __any_sync and __all_sync: exact values in full warps, with half a warp
 * naming itself in the mask, and in a warp of 8 lanes. */
static void test_warp_functions(void **state)
{
    (void)state;
    th_run(body_warp, NULL, TH_NPES(1, 2, 3), 0);
}

struct warp_bad_arg {
    int form;
};

SHMEMU_KERNEL(k_warp_bad, struct warp_bad_arg, a)
{
    unsigned lane = threadIdx.x % 32;
    if (a.form == 0 && lane == 0)
        (void)__shfl_sync(0x2u, 1, 1); /* its own lane left out */
    if (a.form == 1)
        (void)__shfl_sync(0xffffffffu, 1, 0, 3); /* width not a power of two */
    if (a.form == 2 && lane < 2)
        (void)(lane ? __any_sync(0x3u, 1) : (int)__ballot_sync(0x3u, 1));
}

static int body_warp_bad(void *arg)
{
    (void)arg;
    if (!kernels_run_here())
        goto done;
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    for (int f = 0; f < 3; f++) {
        struct warp_bad_arg a = {f};
        PE_CHECK_EQ(shmemu_launch_kernel(k_warp_bad, 1, 32, &a), SHMEMU_EINVAL);
    }
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_ABORT));
done:
    PE_CHECK_OK(shmemu_barrier_all());
    return 0;
}

static void must_hold(const char *err, const char *words);

/* A lane that leaves itself out of its mask, a width that is not a power
 * of two, lanes of one mask calling different warp functions: EINVAL and
 * one line naming the kernel and the rule. */
static void test_warp_misuse(void **state)
{
    (void)state;
    for (int i = 0; i < th_transport_count(); i++) {
        th_capture_start();
        int rc = th_launch(th_transport(i), 1, 1 << 20, body_warp_bad, NULL);
        char *err = th_capture_stop();
        assert_int_equal(rc, SHMEMU_OK);
        if (!strstr(err, "has no load/store access to peers' heaps")) {
            must_hold(err, "PE 0/1 shmemu_launch_kernel: PE 0/1 block (0,0,0) thread (0,0,0) of "
                           "kernel k_warp_bad at tests/test_kernels.c:");
            must_hold(err, "__shfl_sync: mask 0x00000002 leaves out the calling lane 0: a "
                           "thread names itself in the mask it passes");
            must_hold(err, "__shfl_sync: width 3: a power of two from 1 to warpSize (32)");
            must_hold(err, "of mask 0x00000003 called __");
            must_hold(err, ": the lanes named in a mask call the same warp function");
        }
        free(err);
    }
}

/* ------------------------------------------------------------------ RMA */

struct rma_arg {
    unsigned char *dst, *src; /* symmetric, n bytes each */
    size_t n;
    int form; /* see below */
    long *lp;
    double *dp;
    uint64_t *u64;
};

enum { F_PUT, F_PUT_NBI, F_GET, F_GET_NBI, F_PUT_BLOCK, F_PUT_NBI_BLOCK, F_GET_BLOCK,
       F_GET_NBI_BLOCK, F_PUT_WARP, F_PUT_NBI_WARP, F_GET_WARP, F_GET_NBI_WARP, F_COUNT };

/* Thread 0 of block 0 (single forms) or every thread of block 0 (group
 * forms) moves n bytes: puts to the right neighbour, gets from the left. */
SHMEMU_KERNEL(k_rma, struct rma_arg, a)
{
    int me = shmemu_dev_my_pe(), np = shmemu_dev_n_pes();
    int right = (me + 1) % np, left = (me + np - 1) % np;
    if (blockIdx.x != 0)
        return;
    int lead = threadIdx.x == 0;
    switch (a.form) {
    case F_PUT: if (lead) shmemu_dev_putmem(a.dst, a.src, a.n, right); break;
    case F_PUT_NBI: if (lead) shmemu_dev_putmem_nbi(a.dst, a.src, a.n, right); break;
    case F_GET: if (lead) shmemu_dev_getmem(a.dst, a.src, a.n, left); break;
    case F_GET_NBI: if (lead) shmemu_dev_getmem_nbi(a.dst, a.src, a.n, left); break;
    case F_PUT_BLOCK: shmemu_dev_putmem_block(a.dst, a.src, a.n, right); break;
    case F_PUT_NBI_BLOCK: shmemu_dev_putmem_nbi_block(a.dst, a.src, a.n, right); break;
    case F_GET_BLOCK: shmemu_dev_getmem_block(a.dst, a.src, a.n, left); break;
    case F_GET_NBI_BLOCK: shmemu_dev_getmem_nbi_block(a.dst, a.src, a.n, left); break;
    case F_PUT_WARP: if (threadIdx.x < 32) shmemu_dev_putmem_warp(a.dst, a.src, a.n, right); break;
    case F_PUT_NBI_WARP:
        if (threadIdx.x < 32) shmemu_dev_putmem_nbi_warp(a.dst, a.src, a.n, right);
        break;
    case F_GET_WARP: if (threadIdx.x < 32) shmemu_dev_getmem_warp(a.dst, a.src, a.n, left); break;
    case F_GET_NBI_WARP:
        if (threadIdx.x < 32) shmemu_dev_getmem_nbi_warp(a.dst, a.src, a.n, left);
        break;
    }
    if (lead) {
        /* Typed single elements, both ways. */
        shmemu_dev_long_p(&a.lp[1], -7L * (me + 1), right);
        shmemu_dev_double_p_nbi(&a.dp[1], 0.5 * me, right);
        shmemu_dev_uint64_p(&a.u64[1], 0xF00DULL << me, right);
        shmemu_dev_quiet();
        a.lp[2] = shmemu_dev_long_g(&a.lp[0], left);
        a.dp[2] = shmemu_dev_double_g(&a.dp[0], left);
        a.u64[2] = shmemu_dev_uint64_g(&a.u64[0], left);
        shmemu_dev_quiet();
    }
}

static int body_rma(void *arg)
{
    (void)arg;
    static const size_t sizes[] = {0, 1, 7, 1001, 65536 + 3, (size_t)1 << 20};
    size_t max = (size_t)1 << 20;
    int me = shmemu_my_pe(), np = shmemu_n_pes(), left = (me + np - 1) % np;
    unsigned char *src = shmemu_malloc(max);
    long *lp = shmemu_calloc(3, sizeof(long));
    double *dp = shmemu_calloc(3, sizeof(double));
    uint64_t *u64 = shmemu_calloc(3, sizeof(uint64_t));
    unsigned char *dst = shmemu_malloc(max); /* last: free heap after its end */
    PE_CHECK(dst && src && lp && dp && u64);
    if (!kernels_run_here())
        goto done;
    lp[0] = 1000 + me;
    dp[0] = 1.25 * me;
    u64[0] = 0xABCD0000ULL + (uint64_t)me;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        if (th_quick() && sizes[s] > 70000)
            continue;
#ifdef TH_TSAN
        /* Each launch makes 128 fibers per PE, each a fresh ThreadSanitizer
         * thread state (milliseconds): there, one odd size inside a warp's
         * share and one across threads; the other builds run them all. */
        if (sizes[s] != 7 && sizes[s] != 1001)
            continue;
#endif
        for (int form = 0; form < F_COUNT; form++) {
            size_t n = sizes[s];
            /* Odd sizes end where their heap blocks end: the group forms'
             * empty slices (more threads than 16-byte units) start there. */
            size_t off = s % 2 ? max - n : 0;
            th_fill(src + off, max - off, me, (unsigned)(form * 31 + s));
            memset(dst, 0xEE, max);
            PE_CHECK_OK(shmemu_barrier_all());
            struct rma_arg a = {dst + off, src + off, n, form, lp, dp, u64};
            PE_CHECK_OK(shmemu_launch_kernel(k_rma, 2, 64, &a));
            PE_CHECK_OK(shmemu_barrier_all());
            /* Puts brought the left neighbour's bytes here; gets fetched them. */
            long bad = th_verify(dst + off, n, left, (unsigned)(form * 31 + s));
            if (bad >= 0)
                th_pe_fail(__FILE__, __LINE__, "form %d, %zu bytes: byte %ld wrong", form, n,
                           bad);
            if ((off + n < max && dst[off + n] != 0xEE) || (off && dst[off - 1] != 0xEE))
                th_pe_fail(__FILE__, __LINE__, "form %d, %zu bytes: wrote outside", form, n);
            PE_CHECK_EQ(lp[1], -7L * (left + 1));
            PE_CHECK(dp[1] == 0.5 * left);
            PE_CHECK_EQ(u64[1], 0xF00DULL << left);
            PE_CHECK_EQ(lp[2], 1000 + left);
            PE_CHECK(dp[2] == 1.25 * left);
            PE_CHECK_EQ(u64[2], 0xABCD0000ULL + (uint64_t)left);
        }
    }
done:
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(u64);
    shmemu_free(dp);
    shmemu_free(lp);
    shmemu_free(src);
    shmemu_free(dst);
    return 0;
}

static void test_rma(void **state)
{
    (void)state;
#ifdef TH_TSAN
    th_run(body_rma, NULL, TH_NPES(1, 3), 0); /* as above */
#else
    th_run(body_rma, NULL, TH_NPES(1, 2, 3, 4), 0);
#endif
}

/* Every typed _p, _p_nbi and _g, both AMO families, the intrinsics not
 * used elsewhere, team queries and putmem_signal_nbi_block, each with the
 * exact value it must leave. */
#define TYPED(X, P)                                                            \
    X(char, char, (char)(3 + (P)))                                             \
    X(int, int, -40000 - (P))                                                  \
    X(long, long, 1L << (40 + (P) % 8))                                        \
    X(longlong, long long, -(1LL << 50) - (P))                                 \
    X(float, float, 0.25f + (float)(P))                                        \
    X(double, double, -1.5 * ((P) + 1))                                        \
    X(int32, int32_t, INT32_MIN + (P))                                         \
    X(int64, int64_t, INT64_MIN + (P))                                         \
    X(uint32, uint32_t, UINT32_MAX - (uint32_t)(P))                            \
    X(uint64, uint64_t, UINT64_MAX - (uint64_t)(P))                            \
    X(size, size_t, (size_t)1 << 40 | (size_t)(P))

struct typed {
#define FIELD(NAME, T, V) T v_##NAME[4]; /* [0] put, [1] put_nbi, [2] mine, [3] got */
    TYPED(FIELD, 0)
#undef FIELD
};

struct more_arg {
    struct typed *ty; /* symmetric */
    int64_t *i64;     /* [0] swap, [1] fetch */
    uint64_t *u64;    /* [0] cswap, [1] add, [2] signal */
    unsigned char *data, *src;
    size_t n;
    int *ints;        /* atomicSub/Exch/And/Xor; [4] team rank, [5] team size */
    float *f;
};

SHMEMU_KERNEL(k_more, struct more_arg, a)
{
    int me = shmemu_dev_my_pe(), np = shmemu_dev_n_pes();
    int right = (me + 1) % np, left = (me + np - 1) % np;
    if (threadIdx.x == 0) {
#define PUT(NAME, T, V)                                                        \
    shmemu_dev_##NAME##_p(&a.ty->v_##NAME[0], V, right);                       \
    shmemu_dev_##NAME##_p_nbi(&a.ty->v_##NAME[1], V, right);
        TYPED(PUT, me)
#undef PUT
        shmemu_dev_quiet();
        shmemu_dev_sync_all();
#define GET(NAME, T, V) a.ty->v_##NAME[3] = shmemu_dev_##NAME##_g(&a.ty->v_##NAME[2], left);
        TYPED(GET, me)
#undef GET
        /* AMOs on the right PE's words. */
        (void)shmemu_dev_int64_atomic_swap(&a.i64[0], -5 - me, right);
        (void)shmemu_dev_int64_atomic_fetch_add(&a.i64[1], 10, right);
        shmemu_dev_uint64_atomic_add(&a.u64[1], 3, right);
        (void)shmemu_dev_uint64_atomic_compare_swap(&a.u64[0], 0, 100 + (uint64_t)me, right);
        a.ints[4] = shmemu_dev_team_my_pe(SHMEMU_TEAM_WORLD);
        a.ints[5] = shmemu_dev_team_n_pes(SHMEMU_TEAM_WORLD);
    }
    __syncthreads();
    shmemu_dev_putmem_signal_nbi_block(a.data, a.src, a.n, &a.u64[2], 1, SHMEMU_SIGNAL_ADD,
                                       right);
    atomicSub(&a.ints[0], 3);
    atomicAnd(&a.ints[1], ~(1 << threadIdx.x % 31));
    atomicXor(&a.ints[2], 1 << threadIdx.x % 31);
    __threadfence_block();
    if (threadIdx.x == 5)
        atomicExch(&a.ints[3], 77);
    if (threadIdx.x == 6)
        atomicExch(a.f, 2.5f);
    __threadfence();
    if (threadIdx.x == 0) {
        shmemu_dev_signal_wait_until(&a.u64[2], SHMEMU_CMP_EQ, 1);
        shmemu_dev_barrier_all();
        /* What the left PE did to mine is there, and only that. */
        if (shmemu_dev_int64_atomic_fetch(&a.i64[0], me) != -5 - left)
            a.ints[6] = 1;
    }
}

static int body_more(void *arg)
{
    (void)arg;
    int me = shmemu_my_pe(), np = shmemu_n_pes(), left = (me + np - 1) % np;
    size_t n = 333;
    struct typed *ty = shmemu_calloc(1, sizeof(*ty));
    int64_t *i64 = shmemu_calloc(2, 8);
    uint64_t *u64 = shmemu_calloc(3, 8);
    unsigned char *data = shmemu_calloc(n, 1), *src = shmemu_malloc(n);
    int *ints = shmemu_calloc(8, sizeof(int));
    float *f = shmemu_calloc(1, sizeof(float));
    PE_CHECK(ty && i64 && u64 && data && src && ints && f);
    if (kernels_run_here()) {
#define MINE(NAME, T, V) ty->v_##NAME[2] = V;
        TYPED(MINE, me)
#undef MINE
        th_fill(src, n, me, 9);
        ints[0] = 1000;
        ints[1] = -1;
        i64[1] = 7;
        PE_CHECK_OK(shmemu_barrier_all());
        struct more_arg a = {ty, i64, u64, data, src, n, ints, f};
        PE_CHECK_OK(shmemu_launch_kernel_on_stream(k_more, 1, 40, &a, NULL));
        PE_CHECK_OK(shmemu_barrier_all());
        /* The left PE's values: put here by it, and got from it. */
#define CHECK(NAME, T, V)                                                      \
    PE_CHECK(ty->v_##NAME[0] == (V) && ty->v_##NAME[1] == (V) && ty->v_##NAME[3] == (V));
        TYPED(CHECK, left)
#undef CHECK
        PE_CHECK_EQ(i64[0], -5 - left);
        PE_CHECK_EQ(i64[1], 17);
        PE_CHECK_EQ(u64[0], 100 + (uint64_t)left);
        PE_CHECK_EQ(u64[1], 3);
        PE_CHECK_EQ(u64[2], 1);
        PE_CHECK_EQ(th_verify(data, n, left, 9), -1);
        PE_CHECK_EQ(ints[0], 1000 - 3 * 40);
        PE_CHECK_EQ(ints[1], -1 & ~0x7fffffff);
        /* 40 threads: bits 0..8 flipped twice (threads k and k + 31), 9..30 once. */
        PE_CHECK_EQ(ints[2], 0x7fffffff & ~0x1ff);
        PE_CHECK_EQ(ints[3], 77);
        PE_CHECK(*f == 2.5f);
        PE_CHECK_EQ(ints[4], me);
        PE_CHECK_EQ(ints[5], np);
        PE_CHECK_EQ(ints[6], 0);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(f);
    shmemu_free(ints);
    shmemu_free(src);
    shmemu_free(data);
    shmemu_free(u64);
    shmemu_free(i64);
    shmemu_free(ty);
    return 0;
}

static void test_every_call(void **state)
{
    (void)state;
    th_run(body_more, NULL, TH_NPES(1, 2, 3), 0);
}

/* ------------------------------------------------------ signals, waits */

struct sig_arg {
    unsigned char *data, *src;
    uint64_t *sig; /* [0] from the left PE, [1] between blocks, [2] counter */
    size_t n;
    int rounds;
    int *errors;
};

/* Block 0, thread 0 sends rounds of data + signal to the right PE (plain,
 * nbi and _block forms in turn); the left PE's data is checked whole as
 * soon as its signal is seen.  Block 1 waits on a signal block 0 of the
 * same PE raises, and every thread of every block adds to a counter on
 * PE 0 that PE 0's block 0 waits to see complete. */
SHMEMU_KERNEL(k_sig, struct sig_arg, a)
{
    int me = shmemu_dev_my_pe(), np = shmemu_dev_n_pes();
    int right = (me + 1) % np, left = (me + np - 1) % np;
    unsigned nthreads = gridDim.x * blockDim.x;
    shmemu_dev_uint64_atomic_add(&a.sig[2], 1, 0);
    if (blockIdx.x == 0) {
        for (int r = 1; r <= a.rounds; r++) {
            for (size_t i = threadIdx.x; i < a.n; i += blockDim.x)
                a.src[i] = (unsigned char)(me * 31 + r * 7 + i);
            __syncthreads();
            int form = r % 3;
            if (form == 2)
                shmemu_dev_putmem_signal_block(a.data, a.src, a.n, &a.sig[0], (uint64_t)r,
                                               SHMEMU_SIGNAL_SET, right);
            else if (threadIdx.x == 0 && form == 0)
                shmemu_dev_putmem_signal(a.data, a.src, a.n, &a.sig[0], (uint64_t)r,
                                         SHMEMU_SIGNAL_SET, right);
            else if (threadIdx.x == 0)
                shmemu_dev_putmem_signal_nbi(a.data, a.src, a.n, &a.sig[0], 1,
                                             SHMEMU_SIGNAL_ADD, right);
            if (threadIdx.x == 0) {
                uint64_t got = shmemu_dev_signal_wait_until(&a.sig[0], SHMEMU_CMP_GE,
                                                            (uint64_t)r);
                if (got != (uint64_t)r)
                    atomicAdd(a.errors, 1);
                for (size_t i = 0; i < a.n; i++)
                    if (a.data[i] != (unsigned char)(left * 31 + r * 7 + i)) {
                        atomicAdd(a.errors, 1);
                        break;
                    }
                shmemu_dev_quiet();
            }
            /* The right PE read this round before it goes on: a barrier of
             * the PEs, from the whole block. */
            shmemu_dev_barrier_all_block();
        }
        if (threadIdx.x == 0)
            shmemu_dev_signal_op(&a.sig[1], 5, SHMEMU_SIGNAL_SET, me);
        if (me == 0 && threadIdx.x == 1)
            shmemu_dev_uint64_wait_until(&a.sig[2], SHMEMU_CMP_EQ, (uint64_t)nthreads * np);
    } else if (blockIdx.x == 1 && threadIdx.x == 2) {
        while (!shmemu_dev_uint64_test(&a.sig[1], SHMEMU_CMP_EQ, 5)) {
        }
        if (shmemu_dev_signal_fetch(&a.sig[1]) != 5)
            atomicAdd(a.errors, 1);
    }
}

static int body_sig(void *arg)
{
    (void)arg;
    size_t n = 1001;
    unsigned char *data = shmemu_calloc(n, 1), *src = shmemu_calloc(n, 1);
    uint64_t *sig = shmemu_calloc(3, sizeof(uint64_t));
    int *errors = shmemu_calloc(1, sizeof(int));
    PE_CHECK(data && src && sig && errors);
    if (kernels_run_here()) {
        struct sig_arg a = {data, src, sig, n, (int)th_iters(12, 4), errors};
        PE_CHECK_OK(shmemu_launch_kernel(k_sig, 3, 40, &a));
        PE_CHECK_EQ(*errors, 0);
        PE_CHECK_OK(shmemu_barrier_all());
        if (shmemu_my_pe() == 0)
            PE_CHECK_EQ(sig[2], 3 * 40 * shmemu_n_pes());
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(errors);
    shmemu_free(sig);
    shmemu_free(src);
    shmemu_free(data);
    return 0;
}

static void test_signals_waits(void **state)
{
    (void)state;
    th_run(body_sig, NULL, TH_NPES(1, 2, 3, 5), 0);
}

/* ----------------------------------------------- AMOs, atomics, shared */

struct amo_arg {
    uint64_t *ctr;  /* on PE 0: fetch_add total */
    int64_t *lock;  /* on PE 0: a lock taken with compare_swap */
    int64_t *inlock; /* on PE 0: threads inside the lock (must stay <= 1) */
    uint64_t *sw;   /* swap / set / fetch */
    int *ints;      /* atomicAdd/CAS/Max/Min on the PE's own words */
    unsigned long long *ull;
    float *f;
    double *d;
    int *bad;
    long *blocksum; /* per block: a sum through shared memory */
};

SHMEMU_KERNEL(k_amo, struct amo_arg, a)
{
    int me = shmemu_dev_my_pe();
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t old = shmemu_dev_uint64_atomic_fetch_add(a.ctr, 1, 0);
    if (old >= (uint64_t)gridDim.x * blockDim.x * shmemu_dev_n_pes())
        atomicAdd(a.bad, 1);
    if (threadIdx.x % 16 == 0) { /* a few threads per block take a lock on PE 0 */
        while (shmemu_dev_int64_atomic_compare_swap(a.lock, 0, 1, 0) != 0) {
        }
        if (shmemu_dev_int64_atomic_fetch_add(a.inlock, 1, 0) != 0)
            atomicAdd(a.bad, 1);
        shmemu_dev_int64_atomic_add(a.inlock, -1, 0);
        shmemu_dev_int64_atomic_set(a.lock, 0, 0);
    }
    atomicAdd(&a.ints[0], 2);
    atomicMax(&a.ints[1], (int)t);
    atomicMin(&a.ints[2], -(int)t);
    atomicAdd(a.ull, 3ull);
    atomicAdd_system(a.f, 0.5f);
    atomicAdd_block(a.d, 0.25);
    atomicOr(&a.ints[3], 1 << (t % 31));
    if (atomicCAS(&a.ints[4], 0, (int)t + 1) == 0)
        atomicAdd(&a.ints[5], 1); /* exactly one wins */
    SHMEMU_SHARED(long, part, 256);
    part[threadIdx.x] = (long)t * (me + 1);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        a.blocksum[blockIdx.x] = part[0];
        if (blockIdx.x == 0) {
            uint64_t prev = shmemu_dev_uint64_atomic_swap(a.sw, 11, me);
            shmemu_dev_uint64_atomic_set(a.sw + 1, prev + 1, me);
            if (shmemu_dev_uint64_atomic_fetch(a.sw + 1, me) != prev + 1)
                atomicAdd(a.bad, 1);
        }
    }
}

static int body_amo(void *arg)
{
    (void)arg;
    int np = shmemu_n_pes(), me = shmemu_my_pe();
    unsigned blocks = 4, threads = 128;
    uint64_t *ctr = shmemu_calloc(1, 8), *sw = shmemu_calloc(2, 8);
    int64_t *lock = shmemu_calloc(2, 8);
    int *ints = shmemu_calloc(8, sizeof(int));
    unsigned long long *ull = shmemu_calloc(1, sizeof(*ull));
    float *f = shmemu_calloc(1, sizeof(float));
    double *d = shmemu_calloc(1, sizeof(double));
    int *bad = shmemu_calloc(1, sizeof(int));
    long *blocksum = shmemu_calloc(blocks, sizeof(long));
    PE_CHECK(ctr && sw && lock && ints && ull && f && d && bad && blocksum);
    if (kernels_run_here()) {
        sw[0] = 4;
        struct amo_arg a = {ctr, lock, lock + 1, sw, ints, ull, f, d, bad, blocksum};
        PE_CHECK_OK(shmemu_barrier_all());
        PE_CHECK_OK(shmemu_launch_kernel(k_amo, blocks, threads, &a));
        PE_CHECK_OK(shmemu_barrier_all());
        unsigned n = blocks * threads;
        PE_CHECK_EQ(*bad, 0);
        if (me == 0) {
            PE_CHECK_EQ(*ctr, (uint64_t)n * np);
            PE_CHECK_EQ(lock[0], 0);
        }
        PE_CHECK_EQ(ints[0], 2 * n);
        PE_CHECK_EQ(ints[1], n - 1);
        PE_CHECK_EQ(ints[2], -(int)(n - 1));
        PE_CHECK_EQ(ints[3], 0x7fffffff);
        PE_CHECK(ints[4] >= 1 && ints[4] <= (int)n);
        PE_CHECK_EQ(ints[5], 1);
        PE_CHECK_EQ(*ull, 3ull * n);
        PE_CHECK(*f == 0.5f * n);
        PE_CHECK(*d == 0.25 * n);
        PE_CHECK_EQ(sw[0], 11);
        PE_CHECK_EQ(sw[1], 5);
        for (unsigned b = 0; b < blocks; b++) {
            long lo = (long)b * threads, hi = lo + threads - 1;
            PE_CHECK_EQ(blocksum[b], (lo + hi) * (long)threads / 2 * (me + 1));
        }
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(blocksum);
    shmemu_free(bad);
    shmemu_free(d);
    shmemu_free(f);
    shmemu_free(ull);
    shmemu_free(ints);
    shmemu_free(lock);
    shmemu_free(sw);
    shmemu_free(ctr);
    return 0;
}

static void test_amo_atomics_shared(void **state)
{
    (void)state;
    th_run(body_amo, NULL, TH_NPES(1, 2, 3, 4), 0);
}

/* ------------------------------------------------------------- barriers */

struct bar_arg {
    uint64_t *slots; /* one per PE, on every PE */
    int rounds;
    int *bad;
};

/* Each round every PE writes its round into its slot on every PE, meets
 * the others (barrier_all from one thread, then sync_all_block from the
 * whole block), and checks that every slot holds the round. */
SHMEMU_KERNEL(k_bar, struct bar_arg, a)
{
    int me = shmemu_dev_my_pe(), np = shmemu_dev_n_pes();
    for (int r = 1; r <= a.rounds; r++) {
        if (threadIdx.x == 0) {
            for (int p = 0; p < np; p++)
                shmemu_dev_uint64_p_nbi(&a.slots[me], (uint64_t)r, p);
            if (r % 2)
                shmemu_dev_barrier_all();
        }
        if (r % 2 == 0)
            shmemu_dev_barrier_all_block();
        else
            __syncthreads();
        if (threadIdx.x == 1)
            for (int p = 0; p < np; p++)
                if (a.slots[p] != (uint64_t)r)
                    atomicAdd(a.bad, 1);
        /* Nobody writes the next round before everyone has read this one. */
        __syncthreads();
        if (r % 2)
            shmemu_dev_sync_all_block();
        else if (threadIdx.x == 0)
            shmemu_dev_sync_all();
        __syncthreads();
    }
}

/* Every block calls the device barrier in turn, each after the one
 * before returned (a flag of the PE's own says so): barriers of one PE
 * that do not overlap are right, whichever threads call them. */
struct seq_arg {
    uint64_t *turn; /* on every PE: the blocks that have passed */
};

SHMEMU_KERNEL(k_bar_seq, struct seq_arg, a)
{
    int me = shmemu_dev_my_pe();
    if (threadIdx.x == 0) {
        shmemu_dev_uint64_wait_until(a.turn, SHMEMU_CMP_GE, blockIdx.x);
        shmemu_dev_sync_all();
        shmemu_dev_uint64_atomic_add(a.turn, 1, me);
    }
}

static int body_bar(void *arg)
{
    (void)arg;
    uint64_t *slots = shmemu_calloc((size_t)shmemu_n_pes(), 8);
    int *bad = shmemu_calloc(1, sizeof(int));
    PE_CHECK(slots && bad);
    if (kernels_run_here()) {
        struct bar_arg a = {slots, (int)th_iters(20, 4), bad};
        PE_CHECK_OK(shmemu_launch_kernel(k_bar, 1, 8, &a));
        /* And again in a second kernel: the device barrier's counters go on. */
        PE_CHECK_OK(shmemu_launch_kernel(k_bar, 1, 8, &a));
        PE_CHECK_EQ(*bad, 0);
        struct seq_arg s = {shmemu_calloc(1, sizeof(uint64_t))};
        PE_CHECK(s.turn != NULL);
        PE_CHECK_OK(shmemu_launch_kernel(k_bar_seq, 3, 4, &s));
        PE_CHECK_EQ(*s.turn, 3);
        shmemu_free(s.turn);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(bad);
    shmemu_free(slots);
    return 0;
}

static void test_barriers(void **state)
{
    (void)state;
    th_run(body_bar, NULL, TH_NPES(1, 2, 3, 7, 8), 0);
}

/* ---------------------------------------------------------- sim replay */

struct order_arg {
    unsigned *order; /* the order in which threads got a ticket */
    unsigned *next;
};

SHMEMU_KERNEL(k_order, struct order_arg, a)
{
    for (int i = 0; i < 3; i++) {
        unsigned ticket = atomicAdd(a.next, 1u);
        a.order[ticket] = blockIdx.x * blockDim.x + threadIdx.x;
    }
}

static uint64_t order_hash;

static int body_order(void *arg)
{
    (void)arg;
    unsigned *order = shmemu_calloc(48, sizeof(unsigned)), *next = shmemu_calloc(1, 4);
    PE_CHECK(order && next);
    struct order_arg a = {order, next};
    PE_CHECK_OK(shmemu_launch_kernel(k_order, 2, 8, &a));
    PE_CHECK_OK(shmemu_barrier_all());
    if (shmemu_my_pe() == 0) {
        uint64_t h = 1469598103934665603ULL;
        for (int i = 0; i < 48; i++)
            h = (h ^ order[i]) * 0x100000001b3ULL;
        order_hash = h;
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(next);
    shmemu_free(order);
    return 0;
}

static int sim_here(void)
{
    char why[200];
    return th_transport_wanted("sim", why, sizeof(why));
}

/* The same seed gives the same interleaving of device threads, 100 times
 * in 100; another seed gives another. */
static void test_sim_replay(void **state)
{
    (void)state;
    if (!sim_here())
        th_skip("sim is not built or not selected here (SHMEMU_TEST_TRANSPORTS)");
    uint64_t first = 0, sched = 0;
    int differs = 0;
    setenv("SHMEMU_SIM", "random,seed:42", 1);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(th_launch("sim", 2, 1 << 20, body_order, NULL), SHMEMU_OK);
        shmemu_sim_stats st;
        assert_int_equal(shmemu_sim_last(&st), SHMEMU_OK);
        if (i == 0) {
            first = order_hash;
            sched = st.schedule;
        }
        assert_true(order_hash == first);
        assert_true(st.schedule == sched);
    }
    for (int s = 1; s <= 5 && !differs; s++) {
        char v[40];
        snprintf(v, sizeof(v), "random,seed:%d", s);
        setenv("SHMEMU_SIM", v, 1);
        assert_int_equal(th_launch("sim", 2, 1 << 20, body_order, NULL), SHMEMU_OK);
        differs = order_hash != first;
    }
    unsetenv("SHMEMU_SIM");
    assert_true(differs);
}

/* ------------------------------------------------------- planted bugs */

/* Bugs GPU code has, each with its fixed twin:
 *   BUG_NO_FENCE    data put, then a flag with no fence between them
 *   BUG_NO_QUIET    putmem_nbi, then a signal with no quiet before it
 *   BUG_SRC         putmem_nbi's source changed before the quiet
 *   BUG_P_FLAG      putmem_nbi, then the flag put with uint64_p, no fence
 *                   (puts to one PE arrive in any order until a fence)
 *   BUG_PTR_SIGNAL  data stored through shmemu_dev_ptr, then signal_op,
 *                   no fence (a signal is not ordered after stores)
 *   BUG_SIGNAL_SRC  putmem_signal_nbi's source changed before the quiet
 *   BUG_GET_EARLY   getmem_nbi's destination read before the quiet */
enum { BUG_NO_FENCE, BUG_NO_QUIET, BUG_SRC, BUG_P_FLAG, BUG_PTR_SIGNAL, BUG_SIGNAL_SRC,
       BUG_GET_EARLY, BUG_COUNT };

struct bug_arg {
    int *data, *out, *src;
    uint64_t *sig;
    int n, bug, fixed;
};

SHMEMU_KERNEL(k_bug, struct bug_arg, a)
{
    int me = shmemu_dev_my_pe();
    if (threadIdx.x != 0)
        return;
    if (a.bug == BUG_GET_EARLY) { /* PE 0's src was filled before the launch */
        if (me == 1) {
            int got[16];
            shmemu_dev_getmem_nbi(got, a.src, sizeof(got), 0);
            if (a.fixed)
                shmemu_dev_quiet();
            for (int i = 0; i < a.n; i++)
                a.out[i] = got[i];
            shmemu_dev_quiet();
        }
        return;
    }
    if (me == 0) {
        for (int i = 0; i < a.n; i++)
            a.src[i] = 100 + i;
        if (a.bug == BUG_SIGNAL_SRC) {
            shmemu_dev_putmem_signal_nbi(a.data, a.src, a.n * sizeof(int), a.sig, 1,
                                         SHMEMU_SIGNAL_SET, 1);
            if (a.fixed)
                shmemu_dev_quiet();
            a.src[0] = -1;
            return;
        }
        if (a.bug == BUG_P_FLAG || a.bug == BUG_PTR_SIGNAL) {
            int *d = (int *)shmemu_dev_ptr(a.data, 1);
            if (a.bug == BUG_P_FLAG)
                shmemu_dev_putmem_nbi(a.data, a.src, a.n * sizeof(int), 1);
            else
                for (int i = 0; i < a.n; i++)
                    d[i] = a.src[i];
            if (a.fixed)
                shmemu_dev_fence();
            if (a.bug == BUG_P_FLAG)
                shmemu_dev_uint64_p(a.sig, 1, 1);
            else
                shmemu_dev_signal_op(a.sig, 1, SHMEMU_SIGNAL_SET, 1);
            return;
        }
        if (a.bug == BUG_NO_FENCE) {
            shmemu_dev_putmem(a.data, a.src, a.n * sizeof(int), 1);
            if (a.fixed)
                shmemu_dev_fence();
        } else {
            shmemu_dev_putmem_nbi(a.data, a.src, a.n * sizeof(int), 1);
            if (a.fixed)
                shmemu_dev_quiet();
            if (a.bug == BUG_SRC)
                a.src[0] = -1;
        }
        shmemu_dev_signal_op(a.sig, 1, SHMEMU_SIGNAL_SET, 1);
    } else if (me == 1) {
        shmemu_dev_signal_wait_until(a.sig, SHMEMU_CMP_EQ, 1);
        for (int i = 0; i < a.n; i++)
            a.out[i] = a.data[i];
    }
}

/* The buffers of a planted bug's kernel: n ints of data, source and what
 * the reader saw, and a signal word. */
struct bug_bufs {
    int *data, *src, *out;
    uint64_t *sig;
};

static struct bug_bufs bug_bufs_take(int n)
{
    struct bug_bufs b = {shmemu_calloc(n, sizeof(int)), shmemu_calloc(n, sizeof(int)),
                         shmemu_calloc(n, sizeof(int)), shmemu_calloc(1, 8)};
    PE_CHECK(b.data && b.src && b.out && b.sig);
    return b;
}

/* After the kernel: PE reader saw first, first + 1, ... */
static void bug_bufs_check(struct bug_bufs *b, int n, int reader, int first)
{
    PE_CHECK_OK(shmemu_barrier_all());
    if (shmemu_my_pe() == reader)
        for (int i = 0; i < n; i++)
            PE_CHECK_EQ(b->out[i], first + i);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(b->sig);
    shmemu_free(b->out);
    shmemu_free(b->src);
    shmemu_free(b->data);
}

static int body_bug(void *arg)
{
    const struct bug_arg *in = arg;
    int n = 16;
    struct bug_bufs b = bug_bufs_take(n);
    struct bug_arg a = {b.data, b.out, b.src, b.sig, n, in->bug, in->fixed};
    if (in->bug == BUG_GET_EARLY) {
        for (int i = 0; i < n; i++)
            b.src[i] = 100 + i;
        PE_CHECK_OK(shmemu_barrier_all());
    }
    PE_CHECK_OK(shmemu_launch_kernel(k_bug, 1, 2, &a));
    bug_bufs_check(&b, n, 1, 100);
    return 0;
}

/* body on npes PEs of transport under delivery fuzzing with seed (and
 * race detection), sim's schedule drawn from it too; what it printed in
 * *err. */
static int run_seeded(const char *transport, int npes, int (*body)(void *), void *arg, int seed,
                      int race, char **err)
{
    char check[40], sim[40];
    snprintf(check, sizeof(check), race ? "fuzz:%d,race" : "fuzz:%d", seed);
    snprintf(sim, sizeof(sim), "random,seed:%d", seed);
    setenv("SHMEMU_SIM", sim, 1);
    shmemu_opts o = {.npes = npes, .transport = transport, .heap_size = 1 << 20, .check = check};
    th_capture_start();
    int rc = th_launch_opts(&o, body, arg);
    *err = th_capture_stop();
    unsetenv("SHMEMU_SIM");
    return rc;
}

static int run_bug(const char *transport, int bug, int fixed, int seed, char **err)
{
    struct bug_arg a = {.bug = bug, .fixed = fixed};
    /* the fixed twins under race detection too: never a report */
    return run_seeded(transport, 2, body_bug, &a, seed, fixed, err);
}

/* Whether the planted bugs run on transport (-1: it is not selected).
 * Under ThreadSanitizer a planted bug on PE threads is the data race it
 * plants (a late put and its reader): only sim's one thread runs them
 * there; the fixed twins run everywhere. */
static int planted_on(const char *transport)
{
    char why[200];
    if (!th_transport_wanted(transport, why, sizeof(why)))
        return -1;
#ifdef TH_TSAN
    return !strcmp(transport, "sim");
#else
    return 1;
#endif
}

static void test_planted_bugs(void **state)
{
    (void)state;
    static const char *const transports[] = {"sim", "local", "shm"};
    static const char *const lines[] = {
        "shmemu_dev_signal_op reached PE 1 before the put at tests/test_kernels.c:",
        "shmemu_dev_signal_op reached PE 1 before the put at tests/test_kernels.c:",
        "shmemu_dev_putmem_nbi: its source (64 bytes to PE 1) changed before a quiet",
        "of kernel k_bug: its 8-byte put at tests/test_kernels.c:",
        ("shmemu_dev_signal_op on PE 1 may land there before this PE's stores through a peer "
         "pointer to PE 1"),
        "shmemu_dev_putmem_signal_nbi: its source (64 bytes to PE 1) changed before a quiet",
        "shmemu_dev_getmem_nbi at tests/test_kernels.c:"};
    static const char *const fixes[] = {
        NULL, NULL, NULL,
        "reached PE 1 before the put at tests/test_kernels.c:",
        "put __threadfence_system() (or shmemu_dev_fence()) between the stores and the flag",
        NULL,
        "(64 bytes from PE 0): its destination held poison (0xfe bytes: NaN as a float, huge "
        "as an integer) until a quiet completed the get; a value read from it before then is "
        "not the peer's: read it after shmemu_dev_quiet()"};
    /* the thread the report names (a get's note names its line only) */
    static const char *const who[] = {
        "PE 0/2 block (0,0,0) thread (0,0,0)", "PE 0/2 block (0,0,0) thread (0,0,0)",
        "PE 0/2 block (0,0,0) thread (0,0,0)", "PE 0/2 block (0,0,0) thread (0,0,0)",
        "PE 0/2 block (0,0,0) thread (0,0,0)", "PE 0/2 block (0,0,0) thread (0,0,0)",
        "PE 1/2 returned 1 from pe_main"};
    _Static_assert(sizeof(lines) / sizeof(lines[0]) == BUG_COUNT, "a line per bug");
    _Static_assert(sizeof(fixes) / sizeof(fixes[0]) == BUG_COUNT, "a fix per bug");
    _Static_assert(sizeof(who) / sizeof(who[0]) == BUG_COUNT, "a thread per bug");
    int ran = 0;
    for (size_t ti = 0; ti < 3; ti++) {
        int planted = planted_on(transports[ti]);
        if (planted < 0)
            continue;
        ran++;
        for (int bug = BUG_NO_FENCE; bug < BUG_COUNT; bug++) {
            int caught = 0, seeds = (int)th_iters(20, 2);
            if (bug == BUG_PTR_SIGNAL && !th_checked_ptrs(transports[ti])) {
                printf("# bug %d on %s: skipped, its peer pointers are not checked here\n",
                       bug, transports[ti]);
                continue;
            }
            for (int seed = 1; seed <= seeds; seed++) {
                char *err;
                int rc = planted ? run_bug(transports[ti], bug, 0, seed, &err) : SHMEMU_OK;
                if (!planted)
                    err = NULL;
                if (rc != SHMEMU_OK) {
                    /* Caught: the report names the thread and the lines. */
                    if (!strstr(err, lines[bug]) || (fixes[bug] && !strstr(err, fixes[bug])) ||
                        !strstr(err, who[bug])) {
                        fprintf(stderr, "bug %d on %s, seed %d: report lacks '%s':\n%s", bug,
                                transports[ti], seed, lines[bug], err);
                        fail();
                    }
                    caught++;
                }
                free(err);
                /* The fixed twin passes with the same seed. */
                rc = run_bug(transports[ti], bug, 1, seed, &err);
                if (rc != SHMEMU_OK)
                    fprintf(stderr, "fixed twin of bug %d on %s, seed %d failed:\n%s", bug,
                            transports[ti], seed, err);
                free(err);
                assert_int_equal(rc, SHMEMU_OK);
            }
            if (!planted) {
                printf("# bug %d on %s: only its fixed twin runs under ThreadSanitizer\n", bug,
                       transports[ti]);
                continue;
            }
            printf("# bug %d on %s: caught in %d of %d seeds\n", bug, transports[ti], caught,
                   seeds);
            /* A changed source, and a get's destination read early, are
             * caught every time.  A late put shows only where the
             * receiver reads before it lands: on sim each seed decides
             * exactly (these catch about half); elsewhere the threads'
             * timing does, so one catch in the seeds is asked. */
            if (bug == BUG_SRC || bug == BUG_SIGNAL_SRC || bug == BUG_GET_EARLY)
                assert_int_equal(caught, seeds);
            else if (!strcmp(transports[ti], "sim"))
                assert_true(caught >= seeds / 2);
            else
                assert_true(caught >= 1);
        }
    }
    if (!ran)
        th_skip("none of sim, local and shm is selected here (SHMEMU_TEST_TRANSPORTS)");
}

/* A fence orders puts per destination PE: PE 0 puts the data to PE 1,
 * then signals PE 2, which then reads the data from PE 1.  With
 * shmemu_dev_fence between them the data may still be on its way (a
 * quiet completes it); each form of the put, blocking and nbi. */
enum { FENCE3_NBI, FENCE3_BLOCKING };

struct fence3_arg {
    int *data, *src, *out;
    uint64_t *sig;
    int form, quiet;
};

#define FENCE3_N 64

SHMEMU_KERNEL(k_fence3, struct fence3_arg, a)
{
    int me = shmemu_dev_my_pe();
    if (threadIdx.x != 0)
        return;
    if (me == 0) {
        for (int i = 0; i < FENCE3_N; i++)
            a.src[i] = 300 + i;
        if (a.form == FENCE3_NBI)
            shmemu_dev_putmem_nbi(a.data, a.src, FENCE3_N * sizeof(int), 1);
        else
            shmemu_dev_putmem(a.data, a.src, FENCE3_N * sizeof(int), 1);
        if (a.quiet)
            shmemu_dev_quiet();
        else
            shmemu_dev_fence();
        shmemu_dev_signal_op(a.sig, 1, SHMEMU_SIGNAL_SET, 2);
    } else if (me == 2) {
        shmemu_dev_signal_wait_until(a.sig, SHMEMU_CMP_EQ, 1);
        shmemu_dev_getmem(a.out, a.data, FENCE3_N * sizeof(int), 1);
    }
}

static int body_fence3(void *arg)
{
    const struct fence3_arg *in = arg;
    struct bug_bufs b = bug_bufs_take(FENCE3_N);
    struct fence3_arg a = {b.data, b.src, b.out, b.sig, in->form, in->quiet};
    PE_CHECK_OK(shmemu_launch_kernel(k_fence3, 1, 2, &a));
    bug_bufs_check(&b, FENCE3_N, 2, 300);
    return 0;
}

/* A planted bug (body with bug) and its fixed twin (with ok) on npes PEs
 * of sim, local and shm, seeds 1..20 (quick: 4) under fuzz and race: the
 * twin passes with no note; the bug, where caught, is reported with every
 * one of needles (NULL-ended), and caught in half the seeds on sim (each
 * seed decides) and at least once elsewhere (the threads' timing decides
 * too).  own_loads: the report names the reader's plain load, so where a
 * PE's own loads are not watched only the twin runs. */
static void planted_pair(const char *what, int npes, int (*body)(void *), void *bug, void *ok,
                         const char *const *needles, int own_loads)
{
    static const char *const transports[] = {"sim", "local", "shm"};
    int ran = 0;
    for (size_t ti = 0; ti < 3; ti++) {
        int planted = planted_on(transports[ti]);
        if (planted < 0)
            continue;
        ran++;
        /* A report that names the reader's plain load needs its own loads
         * watched: not under valgrind (nor ThreadSanitizer). */
        if (own_loads && planted && !th_own_stores(transports[ti])) {
            printf("# %s on %s: only the fixed twin runs: a PE's own loads are not watched "
                   "here (valgrind)\n",
                   what, transports[ti]);
            planted = 0;
        }
        int caught = 0, seeds = (int)th_iters(20, 4);
        for (int seed = 1; seed <= seeds; seed++)
            for (int fixed = planted ? 0 : 1; fixed <= 1; fixed++) {
                char *err;
                int rc = run_seeded(transports[ti], npes, body, fixed ? ok : bug, seed, 1, &err);
                if (fixed && (rc != SHMEMU_OK || strstr(err, "note:")))
                    fail_msg("%s on %s, seed %d: the fixed twin failed (rc %d): %s", what,
                             transports[ti], seed, rc, err);
                if (!fixed && rc != SHMEMU_OK) {
                    for (const char *const *n = needles; *n; n++)
                        if (!strstr(err, *n))
                            fail_msg("%s on %s, seed %d: the report lacks '%s':\n%s", what,
                                     transports[ti], seed, *n, err);
                    caught++;
                }
                free(err);
            }
        if (!planted) {
            if (!own_loads || th_own_stores(transports[ti]))
                printf("# %s on %s: only the fixed twin runs under ThreadSanitizer\n", what,
                       transports[ti]);
            continue;
        }
        printf("# %s on %s: caught in %d of %d seeds\n", what, transports[ti], caught, seeds);
        if (!strcmp(transports[ti], "sim"))
            assert_true(caught >= seeds / 2);
        else
            assert_true(caught >= 1);
    }
    if (!ran)
        th_skip("none of sim, local and shm is selected here (SHMEMU_TEST_TRANSPORTS)");
}

static void test_fence_orders_per_pe(void **state)
{
    (void)state;
    for (int form = FENCE3_NBI; form <= FENCE3_BLOCKING; form++) {
        struct fence3_arg bug = {.form = form}, ok = {.form = form, .quiet = 1};
        /* a wrong value is the PE's own check; the report names the put,
         * the reader, the signal and the fix */
        const char *const needles[] = {
            form == FENCE3_NBI ? "PE 0's shmemu_dev_putmem_nbi by block (0,0,0) thread (0,0,0) "
                                 "(at tests/test_kernels.c:"
                               : "PE 0's shmemu_dev_putmem by block (0,0,0) thread (0,0,0) "
                                 "(at tests/test_kernels.c:",
            ") wrote bytes [0, 0x100) of PE 1's heap",
            "which PE 2's shmemu_dev_getmem by block (0,0,0) thread (0,0,0)",
            "before the thread's shmemu_dev_signal_op at tests/test_kernels.c:",
            " to PE 2, which may announce it",
            "a fence orders puts per destination PE",
            "put shmemu_dev_quiet() between the put and the signal",
            NULL};
        planted_pair(form == FENCE3_NBI ? "fence, put_nbi" : "fence, put", 3, body_fence3, &bug,
                     &ok, needles, 0);
    }
}

/* A device sync completes nothing (NVSHMEM's sync_all, unlike its
 * barrier_all): PE 0 puts to PE 1, both PEs sync, PE 1 reads. */
SHMEMU_KERNEL(k_sync_put, struct fence3_arg, a)
{
    if (threadIdx.x != 0)
        return;
    if (shmemu_dev_my_pe() == 0) {
        for (int i = 0; i < FENCE3_N; i++)
            a.src[i] = 500 + i;
        shmemu_dev_putmem_nbi(a.data, a.src, FENCE3_N * sizeof(int), 1);
    }
    if (a.quiet)
        shmemu_dev_barrier_all();
    else
        shmemu_dev_sync_all();
    if (shmemu_dev_my_pe() == 1)
        for (int i = 0; i < FENCE3_N; i++)
            a.out[i] = ((volatile int *)a.data)[i];
}

static int body_sync_put(void *arg)
{
    const struct fence3_arg *in = arg;
    struct bug_bufs b = bug_bufs_take(FENCE3_N);
    struct fence3_arg a = {b.data, b.src, b.out, b.sig, 0, in->quiet};
    PE_CHECK_OK(shmemu_launch_kernel(k_sync_put, 1, 2, &a));
    bug_bufs_check(&b, FENCE3_N, 1, 500);
    return 0;
}

static void test_sync_completes_nothing(void **state)
{
    (void)state;
    struct fence3_arg bug = {.quiet = 0}, ok = {.quiet = 1};
    const char *const needles[] = {
        "PE 0's shmemu_dev_putmem_nbi by block (0,0,0) thread (0,0,0) (at tests/test_kernels.c:",
        ") wrote bytes [0, 0x100) of PE 1's heap, which PE 1's plain load by block (0,0,0) "
        "thread (0,0,0)",
        "the thread's shmemu_dev_sync_all at tests/test_kernels.c:",
        "completes nothing (NVSHMEM: a sync orders no put): use shmemu_dev_barrier_all(), or "
        "shmemu_dev_quiet() before the sync",
        NULL};
    planted_pair("put_nbi, sync_all", 2, body_sync_put, &bug, &ok, needles, 1);
}

/* Primus-Turbo 482, the "cheap fence" that waits for one wave: every
 * thread (a wave) of PE 0's block puts its row of the payload with
 * putmem_nbi, the block meets at __syncthreads, and thread 0 alone
 * quiets and raises the tail.  Its quiet completes its own row only (a
 * fence or quiet orders the calling thread's puts, NVSHMEM), and
 * __syncthreads completes nothing, so PE 1 may see the tail and then the
 * other rows as they were.  The fix: each thread quiets its own puts
 * before __syncthreads. */
struct wave_arg {
    int *rows, *out; /* ROWS x ROW_LEN ints, symmetric */
    uint64_t *tail;
    int fixed;
};

enum { WAVES = 4, ROW_LEN = 24 };

static void must_hold(const char *err, const char *words);

SHMEMU_KERNEL(k_one_wave_quiet, struct wave_arg, a)
{
    int me = shmemu_dev_my_pe();
    unsigned w = threadIdx.x;
    if (me == 0) {
        int row[ROW_LEN];
        for (int i = 0; i < ROW_LEN; i++)
            row[i] = (int)(w * 1000 + (unsigned)i + 1);
        shmemu_dev_putmem_nbi(a.rows + w * ROW_LEN, row, sizeof(row), 1);
        if (a.fixed)
            shmemu_dev_quiet(); /* each wave completes its own row */
        __syncthreads();
        if (w == 0) {
            shmemu_dev_quiet(); /* the cheap fence: thread 0's row only */
            shmemu_dev_signal_op(a.tail, 1, SHMEMU_SIGNAL_SET, 1);
        }
    } else if (me == 1 && w == 0) {
        shmemu_dev_signal_wait_until(a.tail, SHMEMU_CMP_EQ, 1);
        for (int i = 0; i < WAVES * ROW_LEN; i++)
            a.out[i] = a.rows[i];
    }
}

static int body_one_wave(void *arg)
{
    int fixed = *(const int *)arg;
    int *rows = shmemu_calloc(WAVES * ROW_LEN, sizeof(int));
    int *out = shmemu_calloc(WAVES * ROW_LEN, sizeof(int));
    uint64_t *tail = shmemu_calloc(1, sizeof(uint64_t));
    PE_CHECK(rows && out && tail);
    struct wave_arg a = {rows, out, tail, fixed};
    PE_CHECK_OK(shmemu_launch_kernel(k_one_wave_quiet, 1, WAVES, &a));
    PE_CHECK_OK(shmemu_barrier_all());
    if (shmemu_my_pe() == 1)
        for (int w = 0; w < WAVES; w++)
            for (int i = 0; i < ROW_LEN; i++)
                PE_CHECK_EQ(out[w * ROW_LEN + i], w * 1000 + i + 1);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(tail);
    shmemu_free(out);
    shmemu_free(rows);
    return 0;
}

/* The one-wave quiet is caught on every transport that runs kernels
 * (stale rows read after the tail, with a note naming the tail's signal,
 * the other thread's put and its line, and the fix); its fixed twin
 * passes under --fuzz 20 --race, every seed. */
static void test_one_wave_quiet(void **state)
{
    (void)state;
    static const char *const transports[] = {"sim", "local", "shm"};
    int seeds = (int)th_iters(20, 4);
    int ran = 0;
    for (size_t ti = 0; ti < 3; ti++) {
        char why[200];
        if (!th_transport_wanted(transports[ti], why, sizeof(why)))
            continue;
        ran++;
        int planted = 1;
#ifdef TH_TSAN
        planted = !strcmp(transports[ti], "sim"); /* as test_planted_bugs */
#endif
        int caught = 0;
        for (int seed = 1; seed <= seeds; seed++)
            for (int fixed = !planted; fixed <= 1; fixed++) {
                char check[40], sim[40];
                snprintf(check, sizeof(check), fixed ? "fuzz:%d,race" : "fuzz:%d", seed);
                snprintf(sim, sizeof(sim), "random,seed:%d", seed);
                setenv("SHMEMU_SIM", sim, 1);
                shmemu_opts o = {.npes = 2, .transport = transports[ti],
                                 .heap_size = 1 << 20, .check = check};
                th_capture_start();
                int rc = th_launch_opts(&o, body_one_wave, &fixed);
                char *err = th_capture_stop();
                unsetenv("SHMEMU_SIM");
                if (fixed && rc != SHMEMU_OK)
                    fail_msg("%s, %s, every wave quiets: rc %d: %s", transports[ti], check,
                             rc, err);
                if (!fixed && rc != SHMEMU_OK) {
                    must_hold(err, "PE 0/2 block (0,0,0) thread (0,0,0) of kernel "
                                   "k_one_wave_quiet at tests/test_kernels.c:");
                    must_hold(err, "shmemu_dev_signal_op reached PE 1 before the put at "
                                   "tests/test_kernels.c:");
                    must_hold(err, "which this thread follows through __syncthreads: a fence "
                                   "or quiet orders only the calling thread's puts, and "
                                   "__syncthreads none (NVSHMEM)");
                    caught++;
                }
                free(err);
            }
        if (!planted) {
            printf("# one-wave quiet on %s: only its fixed twin runs under ThreadSanitizer\n",
                   transports[ti]);
            continue;
        }
        printf("# one-wave quiet on %s: caught in %d of %d seeds\n", transports[ti], caught,
               seeds);
        assert_true(caught >= 1);
    }
    if (!ran)
        th_skip("none of sim, local and shm is selected here (SHMEMU_TEST_TRANSPORTS)");
}

/* The 16-bit float conversions shmemu_device.h gives both sides (the
 * device built-ins and the cuda plugin's kernels use them): every value
 * round-trips, and the boundaries round to nearest even. */
static void test_half_conversions(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000; h++) {
        int nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
        uint16_t back = shmemu_dev_float_to_half(shmemu_dev_half_to_float((uint16_t)h));
        if (nan ? (back & 0x7e00) != 0x7e00 : back != h)
            fail_msg("half %#x came back as %#x", h, back);
        int bnan = (h & 0x7f80) == 0x7f80 && (h & 0x7f);
        back = shmemu_dev_float_to_bf16(shmemu_dev_bf16_to_float((uint16_t)h));
        if (bnan ? (back & 0x7fc0) != 0x7fc0 : back != h)
            fail_msg("bfloat16 %#x came back as %#x", h, back);
    }
    assert_int_equal(shmemu_dev_float_to_half(1.0f), 0x3c00);
    assert_int_equal(shmemu_dev_float_to_half(65504.0f), 0x7bff);
    assert_int_equal(shmemu_dev_float_to_half(65520.0f), 0x7c00);     /* rounds past the top */
    assert_int_equal(shmemu_dev_float_to_half(0x1p-24f), 0x0001);     /* smallest subnormal */
    assert_int_equal(shmemu_dev_float_to_half(0x1p-25f), 0x0000);     /* a tie: to even, 0 */
    assert_int_equal(shmemu_dev_float_to_half(1.0f + 0x1p-11f), 0x3c00); /* a tie: to even */
    assert_int_equal(shmemu_dev_float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);
    assert_int_equal(shmemu_dev_float_to_half(-2.0f), 0xc000);
    assert_true(shmemu_dev_half_to_float(0x0001) == 0x1p-24f);
    assert_int_equal(shmemu_dev_float_to_bf16(1.0f), 0x3f80);
    assert_int_equal(shmemu_dev_float_to_bf16(1.0f + 0x1p-8f), 0x3f80); /* a tie: to even */
    assert_int_equal(shmemu_dev_float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);
    assert_true(shmemu_dev_bf16_to_float(0x4049) == 3.140625f);
}

/* ------------------------------------------------------------- scopes */

/* The bug of vLLM's custom allreduce (issue 2760): PE 0's thread stores
 * the data into PE 1's buffer through a peer pointer, orders it with
 * __threadfence() -- device scope: nothing for another GPU -- and raises
 * PE 1's flag with a (relaxed) atomic.  PE 1 waits for the flag and copies
 * the data out.  The fixed twin fences with __threadfence_system().  Mode
 * SCOPE_NONE has no fence at all, a relaxed atomic after plain writes
 * (DeepEP's issue 661).  Mode SCOPE_READER has the writer right and the
 * reader wrong: it polls the flag with an atomic of device scope, which
 * synchronizes with nothing another GPU did (ROCm aiter's issue 4786). */
enum { SCOPE_DEVICE, SCOPE_SYSTEM, SCOPE_NONE, SCOPE_READER };
struct scope_arg {
    int *data;      /* symmetric, n ints, on its own page */
    unsigned *flag; /* symmetric */
    int *out;       /* PE 1 copies what it saw here */
    int n, round, mode;
};

SHMEMU_KERNEL(k_scope, struct scope_arg, a)
{
    if (threadIdx.x || blockIdx.x)
        return;
    if (shmemu_dev_my_pe() == 0) {
        int *d = (int *)shmemu_dev_ptr(a.data, 1);
        for (int i = 0; i < a.n; i++)
            d[i] = a.round * 1000 + i;
        if (a.mode == SCOPE_SYSTEM || a.mode == SCOPE_READER)
            __threadfence_system();
        else if (a.mode == SCOPE_DEVICE)
            __threadfence();
        atomicExch_system((unsigned *)shmemu_dev_ptr(a.flag, 1), (unsigned)a.round);
    } else if (shmemu_dev_my_pe() == 1) {
        if (a.mode == SCOPE_READER) /* device scope: synchronizes with nothing of PE 0's */
            while (atomicAdd(a.flag, 0u) < (unsigned)a.round) {
            }
        else
            while (atomicAdd_system(a.flag, 0u) < (unsigned)a.round) {
            }
        __threadfence_system();
        for (int i = 0; i < a.n; i++)
            a.out[i] = ((volatile int *)a.data)[i];
    }
}

static int body_scope(void *arg)
{
    const int *mode = arg;
    int n = 64;
    int *data = shmemu_calloc(4096, 1); /* a page of its own: the flag's is another */
    unsigned *flag = shmemu_calloc(4096, 1);
    int *out = shmemu_calloc((size_t)n, sizeof(int));
    PE_CHECK(data && flag && out);
    for (int r = 1; r <= 16; r++) {
        struct scope_arg a = {data, flag, out, n, r, *mode};
        PE_CHECK_OK(shmemu_launch_kernel(k_scope, 1, 32, &a));
        PE_CHECK_OK(shmemu_barrier_all());
        if (shmemu_my_pe() == 1)
            for (int i = 0; i < n; i++)
                PE_CHECK_EQ(out[i], r * 1000 + i);
        PE_CHECK_OK(shmemu_barrier_all());
    }
    shmemu_free(out);
    shmemu_free(flag);
    shmemu_free(data);
    return 0;
}

/* The same bug in the form vLLM's two-shot allreduce has it: PE 0's block
 * stores its part into its own buffer (float4s, as GPU kernels move data),
 * its thread 0 orders it with __threadfence() (mode SCOPE_DEVICE), or
 * nothing (SCOPE_NONE), and raises PE 1's flag with a volatile store
 * through a peer pointer; PE 1 polls its flag with a system-scope atomic,
 * fences at system scope,
 * and its block pulls the part through a peer pointer.  The data never
 * travels as a put, so no delivery holds it: the race detector knows the
 * scope rule (a kernel's plain stores are released to other PEs only by a
 * system-scope fence) and names it.  SCOPE_SYSTEM is the fixed twin. */
/* Kernels that poll volatile flags between PE threads race by C11's
 * definition, which ThreadSanitizer applies (a GPU idiom, not C11's). */
static void skip_volatile_flags_under_tsan(void)
{
#ifdef TH_TSAN
    th_skip("volatile flags between PE threads are data races to ThreadSanitizer by "
            "definition (a GPU idiom, not C11's)");
#endif
}

struct pull_arg {
    float4 *part;   /* symmetric: the writer's part, n4 float4s, its own pages */
    unsigned *flag; /* symmetric */
    float4 *out;    /* the reader copies what it saw here */
    int n4, round, mode;
};

SHMEMU_KERNEL(k_scope_pull, struct pull_arg, a)
{
    int me = shmemu_dev_my_pe();
    if (me == 0) {
        /* one 16-byte store at every optimization level (gcc -O1 splits a
         * float4's in two 8-byte moves, which may be flags: CHECK.md) */
        typedef float f4v __attribute__((vector_size(16), may_alias));
        for (int i = (int)threadIdx.x; i < a.n4; i += (int)blockDim.x)
            *(f4v *)(void *)&a.part[i] = (f4v){(float)(a.round * 1000 + 4 * i), (float)(4 * i + 1),
                                               (float)(4 * i + 2), (float)(4 * i + 3)};
        __syncthreads();
        if (threadIdx.x == 0) {
            if (a.mode == SCOPE_SYSTEM)
                __threadfence_system();
            else if (a.mode == SCOPE_DEVICE)
                __threadfence();
            *(volatile unsigned *)shmemu_dev_ptr(a.flag, 1) = (unsigned)a.round;
        }
    } else if (me == 1) {
        if (threadIdx.x == 0) { /* (an atomic: this file has no loop hook) */
            while (atomicAdd_system(a.flag, 0u) != (unsigned)a.round) {
            }
            __threadfence_system();
        }
        __syncthreads();
        const float4 *theirs = (const float4 *)shmemu_dev_ptr(a.part, 0);
        for (int i = (int)threadIdx.x; i < a.n4; i += (int)blockDim.x)
            a.out[i] = theirs[i];
    }
}

static int body_scope_pull(void *arg)
{
    const int *mode = arg;
    int n4 = 64;
    float4 *part = shmemu_calloc(4096, 1); /* pages of their own */
    unsigned *flag = shmemu_calloc(4096, 1);
    float4 *out = shmemu_calloc(4096, 1);
    PE_CHECK(part && flag && out);
    for (int r = 1; r <= 8; r++) {
        struct pull_arg a = {part, flag, out, n4, r, *mode};
        PE_CHECK_OK(shmemu_launch_kernel(k_scope_pull, 1, 32, &a));
        PE_CHECK_OK(shmemu_barrier_all());
        if (shmemu_my_pe() == 1)
            for (int i = 0; i < n4; i++)
                PE_CHECK(out[i].x == (float)(r * 1000 + 4 * i) && out[i].w == (float)(4 * i + 3));
        PE_CHECK_OK(shmemu_barrier_all());
    }
    shmemu_free(out);
    shmemu_free(flag);
    shmemu_free(part);
    return 0;
}

/* Caught on local, shm and sim, the report naming the missing
 * system-scope fence; the fixed twin passes every seed. */
static const char *const scope_what[] = {"__threadfence()", "__threadfence_system()",
                                         "no fence"};

/* body (its int: SCOPE_DEVICE, SCOPE_SYSTEM or SCOPE_NONE, up to last) on
 * tp with npes PEs under fuzz:seed,race for seeds 1..seeds: the fixed twin
 * (SCOPE_SYSTEM) passes every seed; a bug's failed run counts in
 * caught[mode] and prints every string of says (NULL-terminated). */
static void scope_seeds(const char *tp, int npes, int (*body)(void *), int last, int seeds,
                        const char *const *says, int caught[3])
{
    for (int seed = 1; seed <= seeds; seed++) {
        for (int mode = SCOPE_DEVICE; mode <= last; mode++) {
            char check[40];
            snprintf(check, sizeof(check), "fuzz:%d,race", seed);
            shmemu_opts o = {.npes = npes, .transport = tp, .heap_size = 1 << 20,
                             .check = check};
            th_capture_start();
            int rc = th_launch_opts(&o, body, &mode);
            char *err = th_capture_stop();
            if (mode == SCOPE_SYSTEM && rc != SHMEMU_OK)
                fail_msg("%s, fixed twin, seed %d: rc %d: %s", tp, seed, rc, err);
            if (rc != SHMEMU_OK) {
                caught[mode]++;
                for (const char *const *w = says; *w; w++)
                    if (!strstr(err, *w))
                        fail_msg("%s, %s, seed %d: the report does not say \"%s\": %s", tp,
                                 scope_what[mode], seed, *w, err);
            }
            free(err);
        }
    }
}

/* scope_seeds on every transport where device threads' stores through
 * peer pointers are held, each bug of modes SCOPE_DEVICE..last caught in
 * at least min_sim seeds on sim (whose runs depend on the seed alone), 1
 * elsewhere; what: the flag's kind, for the counts printed. */
static void scope_held_stores(const char *what, int npes, int (*body)(void *), int last,
                              int seeds, const char *const *says, int min_sim)
{
    int ran = 0;
    for (int tr = 0; tr < th_transport_count(); tr++) {
        const char *tp = th_transport(tr);
        if (!th_checked_ptrs(tp))
            continue;
        ran++;
        int caught[3] = {0};
        scope_seeds(tp, npes, body, last, seeds, says, caught);
        for (int mode = SCOPE_DEVICE; mode <= last; mode += 2) {
            printf("# %s before %s on %s: caught in %d of %d seeds\n", scope_what[mode], what,
                   tp, caught[mode], seeds);
            assert_true(caught[mode] >= (strcmp(tp, "sim") == 0 ? min_sim : 1));
        }
    }
    if (!ran && th_under_valgrind())
        th_skip("checked pointers are off under valgrind (its CPU gives a fault handler no "
                "registers to carry a store out with)");
    if (!ran)
        th_skip("a device thread's stores through peer pointers are held on local, shm and "
                "sim (x86-64), none of which is under test");
}

static void test_scope_threadfence_device_pull(void **state)
{
    (void)state;
    skip_volatile_flags_under_tsan();
    static const char *const says[] = {
        "race: PE 1's plain load by block (0,0,0) thread (",
        "which PE 0's plain store by block (0,0,0) thread (", "k_scope_pull__shmemu_entry+0x",
        "no system-scope fence of PE 0 came between the data and the flag",
        "__threadfence() orders them within PE 0's GPU only", NULL};
    int seeds = th_quick() ? 20 : 40;
    scope_held_stores("a pulled part's flag", 2, body_scope_pull, SCOPE_NONE, seeds, says, 1);
}

/* Where a device thread's peer pointers are the checker's views (local,
 * shm, sim): a device-scope fence, or none, lets the flag land before the
 * data in some seeds, with a note naming the scope and the fix; the fixed
 * twin passes every seed, with race detection too. */
static void test_scope_threadfence_device(void **state)
{
    (void)state;
    static const char *const what[] = {"__threadfence()", "__threadfence_system()",
                                       "no fence"};
    int ran = 0, seeds = 20;
#ifdef TH_TSAN
    seeds = 5; /* only the fixed twin runs there (below) */
#endif
    for (int tr = 0; tr < th_transport_count(); tr++) {
        const char *tp = th_transport(tr);
        if (!th_checked_ptrs(tp))
            continue;
        ran++;
        int caught[3] = {0}, planted = 1;
#ifdef TH_TSAN
        /* The planted bugs are the data race they plant (a late store and
         * its reader) to ThreadSanitizer: only the fixed twin runs. */
        planted = 0;
#endif
        for (int seed = 1; seed <= seeds; seed++) {
            for (int mode = SCOPE_DEVICE; mode <= SCOPE_NONE; mode++) {
                if (!planted && mode != SCOPE_SYSTEM)
                    continue;
                char check[40];
                snprintf(check, sizeof(check),
                         mode == SCOPE_SYSTEM ? "fuzz:%d,race" : "fuzz:%d", seed);
                shmemu_opts o = {.npes = 2, .transport = tp, .heap_size = 1 << 20,
                                 .check = check};
                th_capture_start();
                int rc = th_launch_opts(&o, body_scope, &mode);
                char *err = th_capture_stop();
                if (mode == SCOPE_SYSTEM && rc != SHMEMU_OK)
                    fail_msg("%s, fixed twin, seed %d: rc %d: %s", tp, seed, rc, err);
                if (rc != SHMEMU_OK) {
                    caught[mode]++;
                    if (!strstr(err, "PE 0/2 block (0,0,0) thread (0,0,0) of kernel k_scope "
                                     "at tests/test_kernels.c:") ||
                        !strstr(err, "CUDA's atomics are relaxed") ||
                        !strstr(err, "put __threadfence_system() (or shmemu_dev_fence()) "
                                     "between the stores and the flag"))
                        fail_msg("%s, %s, seed %d: the report does not name the fix: %s", tp,
                                 what[mode], seed, err);
                }
                free(err);
            }
        }
        for (int mode = SCOPE_DEVICE; mode <= SCOPE_NONE; mode += 2) {
            if (!planted) {
                printf("# %s before a flag on %s: only the fixed twin runs under "
                       "ThreadSanitizer\n", what[mode], tp);
                continue;
            }
            printf("# %s before a flag on %s: caught in %d of %d seeds\n", what[mode], tp,
                   caught[mode], seeds);
            assert_true(caught[mode] >= 1);
        }
    }
    if (!ran && th_under_valgrind())
        th_skip("checked pointers are off under valgrind (its CPU gives a fault handler no "
                "registers to carry a store out with)");
    if (!ran)
        th_skip("a device thread's stores through peer pointers are held on local, shm and "
                "sim (x86-64), none of which is under test");
}

/* The bug of vLLM's custom allreduce (issue 2760) as GPU authors write
 * it: every thread of PE 0's block stores floats into PE 1's buffer
 * through a peer pointer, __syncthreads(), and thread 0 fences with
 * __threadfence() (device scope) or not at all and raises PE 1's flag with
 * a volatile store through a peer pointer -- a plain store, as relaxed on
 * a GPU as the data's, so the flag may land first.  PE 1 waits for the
 * flag, fences at system scope and copies the data out.  SCOPE_SYSTEM is
 * the fixed twin. */
struct plain_flag_arg {
    float *data;    /* symmetric, n floats, a page of its own */
    unsigned *flag; /* symmetric */
    float *out;     /* PE 1 copies what it saw here */
    int n, round, mode;
};

SHMEMU_KERNEL(k_plain_flag, struct plain_flag_arg, a)
{
    if (shmemu_dev_my_pe() == 0) {
        float *d = (float *)shmemu_dev_ptr(a.data, 1);
        for (int i = (int)threadIdx.x; i < a.n; i += (int)blockDim.x)
            d[i] = (float)(a.round * 1000 + i);
        __syncthreads();
        if (threadIdx.x == 0) {
            if (a.mode == SCOPE_SYSTEM)
                __threadfence_system();
            else if (a.mode == SCOPE_DEVICE)
                __threadfence();
            *(volatile unsigned *)shmemu_dev_ptr(a.flag, 1) = (unsigned)a.round;
        }
    } else if (shmemu_dev_my_pe() == 1) {
        if (threadIdx.x == 0) { /* (an atomic: this file has no loop hook) */
            while (atomicAdd_system(a.flag, 0u) != (unsigned)a.round) {
            }
            __threadfence_system();
        }
        __syncthreads();
        for (int i = (int)threadIdx.x; i < a.n; i += (int)blockDim.x)
            a.out[i] = a.data[i];
    }
}

static int body_plain_flag(void *arg)
{
    const int *mode = arg;
    int n = 200;
    float *data = shmemu_calloc(4096, 1);
    unsigned *flag = shmemu_calloc(4096, 1);
    float *out = shmemu_calloc(4096, 1);
    PE_CHECK(data && flag && out);
    for (int r = 1; r <= 6; r++) {
        struct plain_flag_arg a = {data, flag, out, n, r, *mode};
        PE_CHECK_OK(shmemu_launch_kernel(k_plain_flag, 1, 32, &a));
        PE_CHECK_OK(shmemu_barrier_all());
        if (shmemu_my_pe() == 1)
            for (int i = 0; i < n; i++)
                PE_CHECK(out[i] == (float)(r * 1000 + i));
        PE_CHECK_OK(shmemu_barrier_all());
    }
    shmemu_free(out);
    shmemu_free(flag);
    shmemu_free(data);
    return 0;
}

/* A device thread's stores through peer pointers are unordered among
 * themselves until a system-scope fence: the volatile flag lands before
 * the floats in some seeds (every one here on sim), PE 1 copies stale
 * data, and the note names the flag's store, the data's and the fence.
 * The fixed twin passes every seed under fuzzing and race detection. */
static void test_scope_plain_flag(void **state)
{
    (void)state;
    skip_volatile_flags_under_tsan();
    static const char *const says[] = {
        "flag before data: PE 0's store by block (0,0,0) thread (0,0,0) (at "
        "k_plain_flag__shmemu_",
        "test_kernels.c:",
        "through a peer pointer landed on PE 1 while earlier stores of PE 0's threads there "
        "(at k_plain_flag__shmemu_",
        "__threadfence() orders them within PE 0's GPU only: put __threadfence_system() (or "
        "shmemu_dev_fence()) between the data and the flag",
        NULL};
    int seeds = th_quick() ? 10 : 20;
    scope_held_stores("a volatile flag", 2, body_plain_flag, SCOPE_NONE, seeds, says,
                      seeds / 2);
}

/* The barrier of vLLM's custom allreduce: after the block's stores of
 * data through peer pointers, threads t < npes each fence and raise PE
 * t's flag for this block with a volatile store, wait for PE t's flag in
 * their own pad, and fence again.  With the first fence narrowed to
 * __threadfence() the data may reach a peer after the flag raised by
 * thread t, even though thread 0's second fence -- of system scope --
 * comes after it: that fence orders nothing thread t stored.  PEs gather
 * every PE's part through the barrier, 3 PEs, 2 blocks of 32 threads. */
#define WF_PES 3
struct warp_flags_arg {
    float *gather;  /* symmetric: npes parts of n floats */
    unsigned *pad;  /* symmetric: [2 blocks][WF_PES] */
    float *out;     /* what this PE saw, npes * n */
    int n, round, mode;
};

SHMEMU_KERNEL(k_warp_flags, struct warp_flags_arg, a)
{
    int me = shmemu_dev_my_pe(), np = shmemu_dev_n_pes();
    int per = a.n / (int)gridDim.x, lo = (int)blockIdx.x * per;
    for (int p = 0; p < np; p++) {
        float *dst = (float *)shmemu_dev_ptr(a.gather, p) + me * a.n;
        for (int i = lo + (int)threadIdx.x; i < lo + per; i += (int)blockDim.x)
            dst[i] = (float)(a.round * 10000 + me * 1000 + i);
    }
    __syncthreads();
    if ((int)threadIdx.x < np) {
        unsigned *theirs = (unsigned *)shmemu_dev_ptr(a.pad, (int)threadIdx.x);
        if (a.mode == SCOPE_SYSTEM)
            __threadfence_system();
        else
            __threadfence();
        *(volatile unsigned *)&theirs[blockIdx.x * WF_PES + (unsigned)me] = (unsigned)a.round;
        while (atomicAdd_system(&a.pad[blockIdx.x * WF_PES + threadIdx.x], 0u) !=
               (unsigned)a.round) {
        }
        __threadfence_system();
    }
    __syncthreads();
    for (int q = 0; q < np; q++)
        for (int i = lo + (int)threadIdx.x; i < lo + per; i += (int)blockDim.x)
            a.out[q * a.n + i] = a.gather[q * a.n + i];
}

static int body_warp_flags(void *arg)
{
    const int *mode = arg;
    int n = 64, np = shmemu_n_pes();
    float *gather = shmemu_calloc((size_t)(np * n), sizeof(float));
    unsigned *pad = shmemu_calloc(2 * WF_PES, sizeof(unsigned));
    float *out = shmemu_calloc((size_t)(np * n), sizeof(float));
    PE_CHECK(gather && pad && out);
    for (int r = 1; r <= 3; r++) {
        struct warp_flags_arg a = {gather, pad, out, n, r, *mode};
        PE_CHECK_OK(shmemu_launch_kernel(k_warp_flags, 2, 32, &a));
        for (int q = 0; q < np; q++)
            for (int i = 0; i < n; i++)
                PE_CHECK(out[q * n + i] == (float)(r * 10000 + q * 1000 + i));
        /* (the next round's stores wait for every PE's reads) */
        PE_CHECK_OK(shmemu_barrier_all());
    }
    shmemu_free(out);
    shmemu_free(pad);
    shmemu_free(gather);
    return 0;
}

/* The fixed twin passes every seed under fuzzing and race detection on
 * local, shm and sim; the bug is caught on each (20 seeds of 20 at the
 * time of writing; on sim, where the run is the seed's, in half at
 * least). */
static void test_scope_warp_flags(void **state)
{
    (void)state;
    skip_volatile_flags_under_tsan();
    static const char *const says[] = {"flag before data: PE ", "(at k_warp_flags__shmemu_",
                                       "__threadfence() orders them within PE ", NULL};
    int seeds = th_quick() ? 10 : 20;
    scope_held_stores("each thread's flag", WF_PES, body_warp_flags, SCOPE_SYSTEM, seeds, says,
                      seeds / 2);
}

/* The reader's side: a flag polled with an atomic of device scope is
 * reported on every seed, with or without fuzzing, naming the atomic's
 * line and the fix; the fixed twin (SCOPE_SYSTEM: atomicAdd_system) is
 * test_scope_threadfence_device's, under race detection on every seed. */
static void test_scope_reader_device_atomic(void **state)
{
    (void)state;
    int ran = 0, seeds = (int)th_iters(10, 3);
    for (int tr = 0; tr < th_transport_count(); tr++) {
        const char *tp = th_transport(tr);
        if (!th_checked_ptrs(tp))
            continue;
        ran++;
        for (int seed = 0; seed <= seeds; seed++) {
            char check[40];
            if (seed)
                snprintf(check, sizeof(check), "fuzz:%d,race", seed);
            else
                snprintf(check, sizeof(check), "race");
            int mode = SCOPE_READER;
            shmemu_opts o = {.npes = 2, .transport = tp, .heap_size = 1 << 20, .check = check};
            th_capture_start();
            int rc = th_launch_opts(&o, body_scope, &mode);
            char *err = th_capture_stop();
            if (rc != SHMEMU_ERACE)
                fail_msg("%s, %s: rc %d, not SHMEMU_ERACE: %s", tp, check, rc, err);
            if (!strstr(err, "scope: PE 1/2 block (0,0,0) thread (0,0,0) of kernel k_scope at "
                             "tests/test_kernels.c:") ||
                !strstr(err, "an atomic of device scope reads the word at 0x") ||
                !strstr(err, "where PE 0 raised a flag (the atomic of PE 0/2 block (0,0,0) "
                                 "thread (0,0,0) of kernel k_scope at tests/test_kernels.c:") ||
                !strstr(err, "use a _system atomic (atomicAdd_system)"))
                fail_msg("%s, %s: the report does not name the atomic and the fix: %s", tp,
                         check, err);
            /* and how to run it again */
            char replay[80];
            snprintf(replay, sizeof(replay), "shmemu-check: replay: SHMEMU_CHECK=%s (", check);
            if (!strstr(err, replay))
                fail_msg("%s, %s: no '%s' line: %s", tp, check, replay, err);
            free(err);
        }
    }
    if (!ran && th_under_valgrind())
        th_skip("checked pointers are off under valgrind (its CPU gives a fault handler no "
                "registers to carry a store out with)");
    if (!ran)
        th_skip("device threads' peer pointers are checked on local, shm and sim (x86-64), "
                "none of which is under test");
}

/* ------------------------------------------- partly overlapping flags */

/* vLLM's custom allreduce (issue 2760): two writers raise flags in one
 * PE's signal area with stores of different widths, the second's 4 bytes
 * inside the first's 8, nothing ordering them: whichever lands last wins
 * half of the word, and the waiter sees a value neither wrote.  The fixed
 * twin gives each writer a slot of its own. */
struct overlap_arg {
    uint64_t *slots; /* symmetric, 2 words */
    int fixed;
};

SHMEMU_KERNEL(k_overlap, struct overlap_arg, a)
{
    if (threadIdx.x || blockIdx.x)
        return;
    int me = shmemu_dev_my_pe(), target = shmemu_dev_n_pes() - 1;
    if (me == 0) {
        volatile uint64_t *s = (uint64_t *)shmemu_dev_ptr(a.slots, target);
        *s = 0x100000001ull; /* OVERLAP_STORE0 */
    } else if (me == 1) {
        volatile uint32_t *s = (uint32_t *)shmemu_dev_ptr(a.slots + a.fixed, target);
        s[a.fixed ? 0 : 1] = 2; /* OVERLAP_STORE1 */
    }
}
enum { OVERLAP_STORE0 = __LINE__ - 6, OVERLAP_STORE1 = __LINE__ - 3 };

static int body_overlap(void *arg)
{
    int fixed = *(const int *)arg;
    uint64_t *slots = shmemu_calloc(2, sizeof(uint64_t));
    PE_CHECK(slots != NULL);
    struct overlap_arg a = {slots, fixed};
    PE_CHECK_OK(shmemu_launch_kernel(k_overlap, 1, 32, &a));
    PE_CHECK_OK(shmemu_barrier_all());
    if (fixed && shmemu_my_pe() == shmemu_n_pes() - 1) {
        PE_CHECK_EQ(slots[0], 0x100000001ull);
        PE_CHECK_EQ(slots[1], 2u);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(slots);
    return 0;
}

/* Reported under race detection on every seed where device threads' peer
 * pointers are checked (their stores are puts to the race detector),
 * naming both stores and the bytes they share; the twin never. */
static void test_signal_partial_overlap(void **state)
{
    (void)state;
    int ran = 0, seeds = (int)th_iters(20, 10); /* the twins: --fuzz 20 --race */
    for (int tr = 0; tr < th_transport_count(); tr++) {
        const char *tp = th_transport(tr);
        if (!th_checked_ptrs(tp))
            continue;
        ran++;
        for (int seed = 0; seed <= seeds; seed++)
            for (int fixed = 0; fixed <= 1; fixed++) {
                char check[40];
                snprintf(check, sizeof(check), seed ? "fuzz:%d,race" : "race", seed);
                shmemu_opts o = {.npes = 3, .transport = tp, .heap_size = 1 << 20,
                                 .check = check};
                th_capture_start();
                int rc = th_launch_opts(&o, body_overlap, &fixed);
                char *err = th_capture_stop();
                if (fixed && rc != SHMEMU_OK)
                    fail_msg("%s, %s, own slots: rc %d: %s", tp, check, rc, err);
                const char *r = strstr(err, "race: PE ");
                if (!fixed && (rc != SHMEMU_ERACE || !r ||
                               !strstr(r, "'s shmemu_ptr store by block (0,0,0) thread (0,0,0) "
                                          "(at k_overlap") ||
                               !strstr(r, "of PE 2's heap, which PE ") ||
                               !strstr(strstr(r, "which PE "),
                                       "'s shmemu_ptr store by block (0,0,0) thread (0,0,0) "
                                       "(at k_overlap") ||
                               !strstr(r, "no wait, signal or sync orders the two")))
                    fail_msg("%s, %s, overlapping flags: rc %d, not SHMEMU_ERACE with the "
                             "note: %s",
                             tp, check, rc, err);
                /* Both stores by their source lines (from the DWARF line
                 * table, through libdw, which ThreadSanitizer builds do not
                 * load from handlers). */
                char l0[64], l1[64];
                snprintf(l0, sizeof(l0), ", tests/test_kernels.c:%d)", OVERLAP_STORE0);
                snprintf(l1, sizeof(l1), ", tests/test_kernels.c:%d)", OVERLAP_STORE1);
                int tsan = 0;
#ifdef TH_TSAN
                tsan = 1;
#endif
                if (!fixed && !tsan &&
                    (!strstr(r, l0) || !strstr(r, l1)))
                    fail_msg("%s, %s, overlapping flags: the note lacks '%s' or '%s': %s",
                             tp, check, l0, l1, err);
                free(err);
            }
    }
    if (!ran)
        th_skip("device threads' stores through peer pointers are seen on local, shm and "
                "sim (x86-64, not under valgrind), none of which is under test");
}

/* ------------------------------------- a host waits on a kernel's store */

/* A kernel on PE 0 raises a flag in PE 1's heap -- a store through its
 * peer pointer, a device signal, a device AMO -- and waits on the device
 * for PE 1's host to answer, while PE 1's host sleeps in a wait on the
 * flag.  The kernel's store tells no sleeper; PE 1 must see it all the
 * same, and nothing is a deadlock or a livelock. */
enum { RAISE_STORE, RAISE_SIGNAL, RAISE_AMO, RAISE_FORMS };

struct raise_arg {
    uint64_t *flag, *answer; /* symmetric */
    int form;
};

SHMEMU_KERNEL(k_raise, struct raise_arg, a)
{
    if (threadIdx.x || blockIdx.x || shmemu_dev_my_pe() != 0)
        return;
    switch (a.form) {
    case RAISE_STORE:
        __atomic_store_n((uint64_t *)shmemu_dev_ptr(a.flag, 1), 7, __ATOMIC_RELEASE);
        break;
    case RAISE_SIGNAL: shmemu_dev_signal_op(a.flag, 7, SHMEMU_SIGNAL_SET, 1); break;
    default: shmemu_dev_uint64_atomic_set(a.flag, 7, 1);
    }
    shmemu_dev_uint64_wait_until(a.answer, SHMEMU_CMP_EQ, 8);
}

static int body_raise(void *arg)
{
    int form = *(const int *)arg;
    uint64_t *w = shmemu_calloc(2, sizeof(uint64_t));
    PE_CHECK(w != NULL);
    int run = kernels_run_here();
    PE_CHECK_OK(shmemu_barrier_all());
    if (run && shmemu_my_pe() == 0) {
        struct raise_arg a = {w, w + 1, form};
        /* time for PE 1 to fall asleep first (on sim the seeded
         * scheduler decides) */
        for (volatile long spin = 0; spin < 2000000; spin++)
            ;
        PE_CHECK_OK(shmemu_launch_kernel(k_raise, 1, 2, &a));
    } else if (run && shmemu_my_pe() == 1) {
        PE_CHECK_OK(shmemu_uint64_wait_until(w, SHMEMU_CMP_EQ, 7));
        PE_CHECK_OK(shmemu_uint64_p(w + 1, 8, 0));
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(w);
    return 0;
}

static void test_host_waits_on_kernel(void **state)
{
    (void)state;
    static const char *const checks[] = {NULL, "fuzz:1", "fuzz:2,race"};
    for (int tr = 0; tr < th_transport_count(); tr++)
        for (int c = 0; c < 3; c++)
            for (int form = 0; form < RAISE_FORMS; form++) {
                shmemu_opts o = {.npes = 2, .transport = th_transport(tr),
                                 .heap_size = 1 << 20, .check = checks[c]};
                th_capture_start();
                int rc = th_launch_opts(&o, body_raise, &form);
                char *err = th_capture_stop();
                if (rc != SHMEMU_OK)
                    fail_msg("%s, %s, form %d: rc %d: %s", th_transport(tr),
                             checks[c] ? checks[c] : "plain", form, rc, err);
                free(err);
            }
}

/* ------------------------------------------- a signal slot per block */

/* NCCL's device API gives each cooperative group its own barrier and
 * signal index; NVSHMEM's kernels index their slots by block.  Two blocks
 * that each put their part and SET one slot to the same value leave the
 * waiter nothing to tell them apart by: it passes on the first signal,
 * before the second block's data arrived.  The twins: a slot per block,
 * and one slot raised by every block after a handshake between them (each
 * block's data complete before any raises it: redundant, not wrong). */
enum { SLOT_PUT_SIGNAL, SLOT_SIGNAL_OP, SLOT_PER_BLOCK, SLOT_AFTER_HANDSHAKE, SLOT_FORMS };
enum { SLOT_N = 16 };

struct slot_arg {
    uint64_t *sig;   /* symmetric, 2 words */
    int *data;       /* symmetric, 2 blocks' parts */
    const int *src;
    unsigned *count; /* symmetric: the blocks' handshake */
    int form;
};

SHMEMU_KERNEL(k_slot, struct slot_arg, a)
{
    if (threadIdx.x)
        return;
    int to = (shmemu_dev_my_pe() + 1) % shmemu_dev_n_pes();
    unsigned b = blockIdx.x;
    int *d = a.data + b * SLOT_N;
    const int *s = a.src + b * SLOT_N;
    size_t bytes = SLOT_N * sizeof(int);
    switch (a.form) {
    case SLOT_PUT_SIGNAL:
        shmemu_dev_putmem_signal(d, s, bytes, a.sig, 1, SHMEMU_SIGNAL_SET, to); /* SLOT_LINE */
        break;
    case SLOT_SIGNAL_OP:
        shmemu_dev_putmem_nbi(d, s, bytes, to);
        shmemu_dev_fence();
        shmemu_dev_signal_op(a.sig, 1, SHMEMU_SIGNAL_SET, to);
        break;
    case SLOT_PER_BLOCK:
        shmemu_dev_putmem_signal(d, s, bytes, a.sig + b, 1, SHMEMU_SIGNAL_SET, to);
        break;
    default:
        shmemu_dev_putmem(d, s, bytes, to);
        shmemu_dev_quiet();
        atomicAdd(a.count, 1u);
        while (atomicAdd(a.count, 0u) < gridDim.x) {
        }
        shmemu_dev_signal_op(a.sig, 1, SHMEMU_SIGNAL_SET, to);
    }
}
enum { SLOT_LINE = __LINE__ - 19 };

static int body_slot(void *arg)
{
    int form = *(const int *)arg, me = shmemu_my_pe(), n = shmemu_n_pes();
    uint64_t *sig = shmemu_calloc(2, sizeof(uint64_t));
    int *data = shmemu_calloc(2 * SLOT_N, sizeof(int));
    int *src = shmemu_malloc(2 * SLOT_N * sizeof(int));
    unsigned *count = shmemu_calloc(1, sizeof(unsigned));
    PE_CHECK(sig && data && src && count);
    for (int i = 0; i < 2 * SLOT_N; i++)
        src[i] = me * 1000 + i;
    int run = kernels_run_here();
    /* the error mode is the job's: returned to abort once all have failed */
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    PE_CHECK_OK(shmemu_barrier_all());
    if (run) {
        struct slot_arg a = {sig, data, src, count, form};
        int rc = shmemu_launch_kernel(k_slot, 2, 4, &a);
        if (form == SLOT_PUT_SIGNAL || form == SLOT_SIGNAL_OP) {
            PE_CHECK_EQ(rc, SHMEMU_EINVAL);
        } else {
            PE_CHECK_OK(rc);
            shmemu_signal_wait_until(sig, SHMEMU_CMP_EQ, 1);
            if (form == SLOT_PER_BLOCK)
                shmemu_signal_wait_until(sig + 1, SHMEMU_CMP_EQ, 1);
            int from = (me + n - 1) % n;
            for (int i = 0; i < 2 * SLOT_N; i++)
                PE_CHECK_EQ(data[i], from * 1000 + i);
        }
    }
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_ABORT));
    shmemu_free(count);
    shmemu_free(src);
    shmemu_free(data);
    shmemu_free(sig);
    return 0;
}

/* Always (a plain run too: the rule needs no checker), on every transport
 * that runs kernels, at 2 and 3 PEs, under the checker's modes on several
 * seeds; whichever block raises the slot first, the other is named. */
static void test_signal_slot_per_block(void **state)
{
    (void)state;
    int seeds = (int)th_iters(5, 5);
    for (int tr = 0; tr < th_transport_count(); tr++) {
        const char *tp = th_transport(tr);
        for (int npes = 2; npes <= 3; npes++)
            for (int seed = -1; seed <= seeds; seed++)
                for (int form = 0; form < SLOT_FORMS; form++) {
                    char check[40] = "";
                    if (seed >= 0)
                        snprintf(check, sizeof(check), seed ? "fuzz:%d,race" : "race", seed);
                    shmemu_opts o = {.npes = npes, .transport = tp, .heap_size = 1 << 20,
                                     .check = seed >= 0 ? check : NULL};
                    th_capture_start();
                    int rc = th_launch_opts(&o, body_slot, &form);
                    char *err = th_capture_stop();
                    if (rc != SHMEMU_OK) {
                        fprintf(stderr, "%s", err);
                        fail_msg("%s, %d PEs, %s, form %d: rc %d", tp, npes,
                                 seed >= 0 ? check : "plain", form, rc);
                    }
                    if (strstr(err, "has no load/store access to peers' heaps")) {
                        free(err);
                        continue;
                    }
                    char line[64];
                    snprintf(line, sizeof(line), "did at tests/test_kernels.c:%d, ",
                             form == SLOT_PUT_SIGNAL ? SLOT_LINE : SLOT_LINE + 5);
                    const char *call = form == SLOT_PUT_SIGNAL ? "shmemu_dev_putmem_signal: SET "
                                                               : "shmemu_dev_signal_op: SET ";
                    int bug = form == SLOT_PUT_SIGNAL || form == SLOT_SIGNAL_OP;
                    if (bug && (!strstr(err, " thread (0,0,0) of kernel k_slot at "
                                             "tests/test_kernels.c:") ||
                                !strstr(err, call) || !strstr(err, "'s signal slot at heap "
                                                                   "offset 0x") ||
                                !strstr(err, " to 1, as block (") || !strstr(err, line) ||
                                !strstr(err, "a waiter cannot tell the two apart") ||
                                !strstr(err, "A slot per block (index it by blockIdx)")))
                        fail_msg("%s, %d PEs, %s, form %d: the shared slot is not named: %s",
                                 tp, npes, seed >= 0 ? check : "plain", form, err);
                    if (!bug && strstr(err, "signal slot"))
                        fail_msg("%s, %d PEs, %s, form %d: accused: %s", tp, npes,
                                 seed >= 0 ? check : "plain", form, err);
                    free(err);
                }
    }
}

/* ------------------------------------- a kernel that returns too soon */

/* ROCm aiter's issue 4082: each PE's kernel waits at a device barrier for
 * every input to be written, reads every PE's input with
 * shmemu_dev_getmem, and returns; the host then writes its next input,
 * while a slower peer may still read this one.  The fixed kernel ends with
 * a second barrier: every peer is done reading. */
struct early_arg {
    int *in, *out;
    int n, fixed;
    int round; /* > 0: the kernel stores its input itself (device threads' stores) */
};

/* The kernel's store of its input, which the report names. */
enum { EARLY_STORE_LINE = __LINE__ + 6 }; /* a.in[i] = ... below */

SHMEMU_KERNEL(k_early, struct early_arg, a)
{
    int np = shmemu_dev_n_pes(), me = shmemu_dev_my_pe();
    for (int i = (int)threadIdx.x; a.round && i < a.n; i += (int)blockDim.x)
        a.in[i] = a.round * 1000 + me * 100 + i;
    __syncthreads();
    if (threadIdx.x || blockIdx.x)
        return;
    shmemu_dev_barrier_all();
    /* its own input it has: only the peers' are fetched (a read of its own
     * would also take the granule's one reader record in the detector) */
    for (int p = 0; p < np; p++)
        if (p != me)
            shmemu_dev_getmem(a.out + (size_t)p * (size_t)a.n, a.in, (size_t)a.n * sizeof(int),
                              p);
    if (a.fixed)
        shmemu_dev_barrier_all();
}

static int body_early(void *arg)
{
    const struct early_arg *c = arg;
    int fixed = c->fixed, me = shmemu_my_pe(), np = shmemu_n_pes(), n = 16;
    int *in = shmemu_calloc((size_t)n, sizeof(int));
    int *out = shmemu_calloc((size_t)(n * np), sizeof(int));
    PE_CHECK(in && out);
    for (int r = 1; r <= 3; r++) {
        for (int i = 0; !c->round && i < n; i++) /* the host's plain stores: the next input */
            in[i] = r * 1000 + me * 100 + i;
        struct early_arg a = {in, out, n, fixed, c->round ? r : 0};
        PE_CHECK_OK(shmemu_launch_kernel(k_early, 1, 32, &a));
        for (int p = 0; fixed && p < np; p++)
            for (int i = 0; p != me && i < n; i++)
                PE_CHECK_EQ(out[p * n + i], r * 1000 + p * 100 + i);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(out);
    shmemu_free(in);
    return 0;
}

/* Under race detection the host's store of its next input and a peer's
 * device get of the last one, nothing between (the kernel returned
 * without a barrier), are reported on every seed where the PE's own stores
 * are watched, naming the store and the get's source line; so is the next
 * kernel's store of it by its device threads (named by its line), where
 * the kernel stores its input itself; the fixed kernel never. */
static void test_kernel_returns_early(void **state)
{
    (void)state;
    int ran = 0, seeds = (int)th_iters(20, 10); /* the twins: --fuzz 20 --race */
    for (int tr = 0; tr < th_transport_count(); tr++) {
        const char *tp = th_transport(tr);
        if (!th_own_stores(tp))
            continue;
        ran++;
        for (int dev = 0; dev <= 1; dev++) /* the input stored by the host, the kernel */
        for (int npes = 2; npes <= 3; npes++)
            for (int seed = 0; seed <= seeds; seed++)
                for (int fixed = 0; fixed <= 1; fixed++) {
                    char check[40];
                    snprintf(check, sizeof(check), seed ? "fuzz:%d,race" : "race", seed);
                    shmemu_opts o = {.npes = npes, .transport = tp, .heap_size = 1 << 20,
                                     .check = check};
                    struct early_arg c = {.fixed = fixed, .round = dev};
                    th_capture_start();
                    int rc = th_launch_opts(&o, body_early, &c);
                    char *err = th_capture_stop();
                    if (fixed && rc != SHMEMU_OK)
                        fail_msg("%s, %d PEs, %s, %s input, a barrier at the end: rc %d: %s",
                                 tp, npes, check, dev ? "kernel's" : "host's", rc, err);
                    /* the store: the host's, or a device thread's (which of
                     * them stores first is the schedule's) by its line */
                    const char *store = dev ? " (at k_early__shmemu_entry+"
                                            : "'s plain store (at body_early+";
                    char line[64];
                    snprintf(line, sizeof(line), ", tests/test_kernels.c:%d)", EARLY_STORE_LINE);
                    const char *r = strstr(err, "race: PE ");
                    if (!fixed && (rc != SHMEMU_ERACE || !r || !strstr(r, store) ||
                                   (dev && (!strstr(r, line) ||
                                            !strstr(r, "'s plain store by block (0,0,0) thread ("))) ||
                                   !strstr(r, "'s shmemu_dev_getmem by block (0,0,0) thread (0,0,0) "
                                              "(at tests/test_kernels.c:") ||
                                   !strstr(r, "no wait, signal or sync orders the two")))
                        fail_msg("%s, %d PEs, %s, %s input, no barrier at the end: rc %d, not "
                                 "SHMEMU_ERACE with the note: %s",
                                 tp, npes, check, dev ? "kernel's" : "host's", rc, err);
                    free(err);
                }
    }
    if (!ran)
        th_skip("a PE's own stores are watched on local, shm and sim (x86-64, not under "
                "valgrind or ThreadSanitizer), none of which is under test");
}

/* The same bug with the peers' inputs read through peer pointers, as a
 * custom allreduce kernel pulls them: after a device barrier (every input
 * written), each of 32 device threads sums its elements of every PE's
 * input, loaded through shmemu_dev_ptr (plain loads), into the caller's
 * private output; the host then copies its next input in with memcpy.
 * The fixed kernel ends with a second barrier.  The input spans four
 * pages, as a real one does: the checker sees the first load and store of
 * a page in an epoch, and a 64-byte input gave the two little chance to
 * meet. */
struct early_ptr_arg {
    int *in;   /* symmetric */
    long *sum; /* the caller's own memory */
    int n, fixed;
};

enum { EARLY_PTR_LOAD_LINE = __LINE__ + 11, EARLY_PTR_COPY_LINE = __LINE__ + 31 };

SHMEMU_KERNEL(k_early_ptr, struct early_ptr_arg, a)
{
    int np = shmemu_dev_n_pes();
    if (threadIdx.x == 0)
        shmemu_dev_barrier_all();
    __syncthreads();
    for (int i = (int)threadIdx.x; i < a.n; i += (int)blockDim.x) {
        long s = 0;
        for (int p = 0; p < np; p++)
            s += ((const int *)shmemu_dev_ptr(a.in, p))[i];
        a.sum[i] = s;
    }
    __syncthreads();
    if (a.fixed && threadIdx.x == 0)
        shmemu_dev_barrier_all();
}

static int body_early_ptr(void *arg)
{
    int fixed = *(const int *)arg, me = shmemu_my_pe(), np = shmemu_n_pes();
    enum { N = 4096 };
    int *in = shmemu_calloc(N, sizeof(int));
    int *next = malloc(N * sizeof(int));
    long *sum = malloc(N * sizeof(long));
    PE_CHECK(next != NULL && sum != NULL);
    PE_CHECK(in != NULL);
    for (int r = 1; r <= 3; r++) {
        for (int i = 0; i < N; i++)
            next[i] = r * 1000 + me * 100 + i;
        memcpy(in, next, N * sizeof(int)); /* the host's next input */
        struct early_ptr_arg a = {in, sum, N, fixed};
        PE_CHECK_OK(shmemu_launch_kernel(k_early_ptr, 1, 32, &a));
        for (int i = 0; fixed && i < N; i++)
            PE_CHECK_EQ(sum[i], (long)np * (r * 1000 + i) + 100L * np * (np - 1) / 2);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(in);
    free(next);
    free(sum);
    return 0;
}

/* One run of body_early_ptr: its status, and the report's text checked
 * where the bug was caught. */
static int run_early_ptr(const char *tp, int npes, const char *check, int fixed)
{
    shmemu_opts o = {.npes = npes, .transport = tp, .heap_size = 1 << 20, .check = check};
    th_capture_start();
    int rc = th_launch_opts(&o, body_early_ptr, &fixed);
    char *err = th_capture_stop();
    char load[80], copy[80];
    snprintf(load, sizeof(load), "'s plain load by block (0,0,0) thread (");
    snprintf(copy, sizeof(copy), "tests/test_kernels.c:%d)", EARLY_PTR_COPY_LINE);
    char line[64];
    snprintf(line, sizeof(line), "tests/test_kernels.c:%d)", EARLY_PTR_LOAD_LINE);
    if (fixed && rc != SHMEMU_OK)
        fail_msg("%s, %d PEs, %s, a barrier at the end: rc %d: %s", tp, npes, check, rc, err);
    if (!fixed && rc != SHMEMU_OK &&
        (rc != SHMEMU_ERACE || !strstr(err, load) || !strstr(err, line) ||
         !strstr(err, "'s plain store (at body_early_ptr+") || !strstr(err, copy)))
        fail_msg("%s, %d PEs, %s, no barrier at the end: rc %d, not the race of the copy and "
                 "the plain load: %s",
                 tp, npes, check, rc, err);
    free(err);
    return rc;
}

/* The host's copy of its next input and a peer's plain load of the last
 * one through its peer pointer, nothing between, are reported naming
 * both lines wherever they are seen in that order.  On sim that is the
 * schedule's, the same on every run: most of 40 explored pct:3 schedules
 * report it (39 of 40 at 2 and at 3 PEs when written).  On local and shm
 * it is the threads' timing (18-20 of 20 runs a PE count when written):
 * no run's verdict on the bug is fixed there, so the test asks for one
 * report among all the runs of the transport.  The fixed kernel is never
 * reported. */
static void test_kernel_returns_early_ptr(void **state)
{
    (void)state;
    int ran = 0, seeds = (int)th_iters(20, 10);
    for (int tr = 0; tr < th_transport_count(); tr++) {
        const char *tp = th_transport(tr);
        if (!th_own_stores(tp))
            continue;
        ran++;
        int found_tp = 0;
        for (int npes = 2; npes <= 3; npes++)
            for (int fixed = 0; fixed <= 1; fixed++) {
                int found = 0, runs = strcmp(tp, "sim") ? seeds : 40;
                for (int seed = 1; seed <= runs; seed++) {
                    char check[40], sim[40];
                    snprintf(check, sizeof(check), "fuzz:%d,race", seed);
                    snprintf(sim, sizeof(sim), "pct:3,seed:%d", seed);
                    setenv("SHMEMU_SIM", sim, 1);
                    found += run_early_ptr(tp, npes, check, fixed) == SHMEMU_ERACE;
                    unsetenv("SHMEMU_SIM");
                }
                if (!strcmp(tp, "sim") && !fixed && found < runs / 2)
                    fail_msg("sim, %d PEs: %d of %d pct:3 schedules reported the race, not "
                             "most",
                             npes, found, runs);
                found_tp += !fixed ? found : 0;
            }
        if (!found_tp)
            fail_msg("%s: none of %d runs at 2 and 3 PEs reported the race", tp, 2 * seeds);
    }
    if (!ran)
        th_skip("a PE's own stores are watched on local, shm and sim (x86-64, not under "
                "valgrind or ThreadSanitizer), none of which is under test");
}

/* ------------------------------------------ a kernel that reads early */

/* PE 0's thread puts 8 longs into every peer's buf, then all meet at a
 * device barrier; each peer's thread reads buf[1]: after the barrier
 * (fixed), or before it, while the put may still be landing (the bug: a
 * receiver reading before the sync that says the data is there). */
struct rdearly_arg {
    long *buf, *out; /* symmetric: 8 longs; 1 */
    int fixed;
};

enum { RDEARLY_LOAD_LINE = __LINE__ + 13, RDEARLY_PUT_LINE = __LINE__ + 11 };

SHMEMU_KERNEL(k_read_early, struct rdearly_arg, a)
{
    if (threadIdx.x || blockIdx.x)
        return;
    int me = shmemu_dev_my_pe(), np = shmemu_dev_n_pes();
    long src[8], early = 0;
    for (int i = 0; i < 8; i++)
        src[i] = 0x100 + i;
    for (int p = 1; me == 0 && p < np; p++)
        shmemu_dev_putmem(a.buf, src, sizeof(src), p);
    if (me && !a.fixed)
        early = ((volatile long *)a.buf)[1];
    shmemu_dev_barrier_all();
    if (me)
        *a.out = a.fixed ? ((volatile long *)a.buf)[1] : early;
}

static int body_read_early(void *arg)
{
    int fixed = *(const int *)arg;
    long *buf = shmemu_calloc(9, sizeof(long));
    PE_CHECK(buf != NULL);
    struct rdearly_arg a = {buf, buf + 8, fixed};
    PE_CHECK_OK(shmemu_launch_kernel(k_read_early, 1, 32, &a));
    if (fixed && shmemu_my_pe())
        PE_CHECK_EQ(buf[8], 0x101);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(buf);
    return 0;
}

/* Under race detection a device thread's plain load of its own heap is
 * recorded as the host's is: the early read is reported on every seed,
 * whichever lands first, naming the thread, the load's line and the put;
 * the fixed kernel passes. */
static void test_kernel_reads_early(void **state)
{
    (void)state;
    int ran = 0, seeds = (int)th_iters(20, 6);
    char load[128], put[128];
    snprintf(load, sizeof(load),
             "'s plain load by block (0,0,0) thread (0,0,0) (at k_read_early__shmemu_entry+");
    snprintf(put, sizeof(put),
             "0's shmemu_dev_putmem by block (0,0,0) thread (0,0,0) (at tests/test_kernels.c:%d)",
             RDEARLY_PUT_LINE);
    for (int tr = 0; tr < th_transport_count(); tr++) {
        const char *tp = th_transport(tr);
        if (!th_own_stores(tp))
            continue;
        ran++;
        for (int npes = 2; npes <= 3; npes++)
            for (int seed = 0; seed <= seeds; seed++)
                for (int fixed = 0; fixed <= 1; fixed++) {
                    char check[40], line[48];
                    snprintf(check, sizeof(check), seed ? "fuzz:%d,race" : "race", seed);
                    snprintf(line, sizeof(line), ", tests/test_kernels.c:%d)", RDEARLY_LOAD_LINE);
                    shmemu_opts o = {.npes = npes, .transport = tp, .heap_size = 1 << 20,
                                     .check = check};
                    th_capture_start();
                    int rc = th_launch_opts(&o, body_read_early, &fixed);
                    char *err = th_capture_stop();
                    const char *r = strstr(err, "race: PE ");
                    if (fixed && rc != SHMEMU_OK)
                        fail_msg("%s, %d PEs, %s, the read after the barrier: rc %d: %s", tp,
                                 npes, check, rc, err);
                    if (!fixed && (rc != SHMEMU_ERACE || !r || !strstr(r, load) ||
                                   !strstr(r, line) || !strstr(r, put) ||
                                   !strstr(r, "no wait, signal or sync orders the two")))
                        fail_msg("%s, %d PEs, %s, the read before the barrier: rc %d, not "
                                 "SHMEMU_ERACE with the note: %s",
                                 tp, npes, check, rc, err);
                    free(err);
                }
    }
    if (!ran)
        th_skip("a PE's own loads are watched on local, shm and sim (x86-64, not under "
                "valgrind or ThreadSanitizer), none of which is under test");
}

/* ------------------------------------------------------ signal pads */

/* A barrier over signal pads, PyTorch SymmetricMemory's way: thread 0 of
 * each PE adds 1 to every peer's pad and waits until its own counts the
 * others; the correct kernel then sets its pad back to 0 (the rule: a
 * kernel leaves its pads at zero), the buggy one leaves it raised, so the
 * next launch's barrier would pass at once on a GPU. */
struct pad_arg {
    unsigned *pad; /* symmetric */
    int reset;
};

SHMEMU_KERNEL(k_pads, struct pad_arg, a)
{
    if (threadIdx.x || blockIdx.x)
        return;
    int me = shmemu_dev_my_pe(), n = shmemu_dev_n_pes();
    for (int p = 0; p < n; p++)
        if (p != me)
            atomicAdd_system((unsigned *)shmemu_dev_ptr(a.pad, p), 1u);
    while (atomicAdd_system(a.pad, 0u) < (unsigned)(n - 1)) {
    }
    if (a.reset)
        atomicExch_system(a.pad, 0u);
}

static int body_pads(void *arg)
{
    int reset = *(const int *)arg;
    unsigned *pads = shmemu_calloc(16, sizeof(unsigned));
    PE_CHECK(pads != NULL);
    PE_CHECK_OK(shmemu_check_zero_pads(pads + 3, sizeof(unsigned)));
    for (int r = 0; r < 3; r++) {
        struct pad_arg a = {pads + 3, reset};
        PE_CHECK_OK(shmemu_launch_kernel(k_pads, 2, 32, &a));
        PE_CHECK_OK(shmemu_barrier_all());
        if (reset) /* before any PE's next launch raises it again */
            PE_CHECK_EQ(pads[3], 0u);
        PE_CHECK_OK(shmemu_barrier_all());
    }
    PE_CHECK_OK(shmemu_check_zero_pads(pads + 3, 0));
    shmemu_free(pads);
    return 0;
}

/* The rule is checked where every PE arrives at a barrier: the kernel
 * that leaves its pad raised is reported on every PE, transport and seed,
 * naming the pad, its value and the kernel; the one that resets it never.
 * A pad range outside the symmetric heap is refused in one line. */
static void test_signal_pads_back_to_zero(void **state)
{
    (void)state;
    int seeds = (int)th_iters(20, 10); /* the twin: --fuzz 20 --race */
    for (int tr = 0; tr < th_transport_count(); tr++) {
        const char *tp = th_transport(tr);
        for (int npes = 2; npes <= 3; npes++)
            for (int seed = 0; seed <= seeds; seed++)
                for (int reset = 0; reset <= 1; reset++) {
                    char check[40];
                    snprintf(check, sizeof(check), seed ? "fuzz:%d,race" : "race", seed);
                    shmemu_opts o = {.npes = npes, .transport = tp, .heap_size = 1 << 20,
                                     .check = check};
                    th_capture_start();
                    int rc = th_launch_opts(&o, body_pads, &reset);
                    char *err = th_capture_stop();
                    char want[64], value[200];
                    snprintf(want, sizeof(want), "contract: PE %d's signal pad heap+0x",
                             npes - 1);
                    snprintf(value, sizeof(value),
                             "is %#x, not 0, as it reached shmemu_barrier_all; the kernel that "
                             "used it last (k_pads) returned without resetting it",
                             (unsigned)(npes - 1));
                    if (reset && rc != SHMEMU_OK)
                        fail_msg("%s, %d PEs, %s, pads reset: rc %d: %s", tp, npes, check, rc,
                                 err);
                    if (!reset && (rc != SHMEMU_ERACE || !strstr(err, want) ||
                                   !strstr(err, value) ||
                                   !strstr(err, "(PyTorch SymmetricMemory's rule)")))
                        fail_msg("%s, %d PEs, %s, pads left raised: rc %d, not SHMEMU_ERACE "
                                 "with the note: %s",
                                 tp, npes, check, rc, err);
                    free(err);
                }
    }
    /* Outside race detection nothing is checked; a bad range always is. */
    int reset = 0;
    shmemu_opts o = {.npes = 2, .transport = th_transport(0), .heap_size = 1 << 20};
    assert_int_equal(th_launch_opts(&o, body_pads, &reset), SHMEMU_OK);
}

static int body_pads_bad(void *arg)
{
    (void)arg;
    unsigned local[4];
    unsigned *pads = shmemu_calloc(4, sizeof(unsigned));
    PE_CHECK(pads != NULL);
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    th_capture_start();
    int rc = shmemu_check_zero_pads(local, sizeof(local));
    char *err = th_capture_stop();
    PE_CHECK_EQ(rc, SHMEMU_ERANGE);
    char want[32];
    snprintf(want, sizeof(want), "PE %d", shmemu_my_pe());
    PE_CHECK(strstr(err, want) && strstr(err, "shmemu_check_zero_pads") && strstr(err, "sym"));
    free(err);
    th_capture_start();
    rc = shmemu_check_zero_pads(pads, 5 * sizeof(unsigned)); /* past its block */
    free(th_capture_stop());
    PE_CHECK_EQ(rc, SHMEMU_ERANGE);
    /* 16 ranges at most; naming one again changes it, 0 bytes drops it */
    unsigned char *many = shmemu_calloc(17, 1);
    PE_CHECK(many != NULL);
    for (int i = 0; i < 16; i++)
        PE_CHECK_OK(shmemu_check_zero_pads(many + i, 1));
    PE_CHECK_OK(shmemu_check_zero_pads(many + 3, 1));
    th_capture_start();
    rc = shmemu_check_zero_pads(many + 16, 1);
    err = th_capture_stop();
    PE_CHECK_EQ(rc, SHMEMU_ENOMEM);
    PE_CHECK(strstr(err, want) && strstr(err, "shmemu_check_zero_pads") &&
             strstr(err, "more than 16 ranges of signal pads") && strstr(err, "bytes 1"));
    free(err);
    PE_CHECK_OK(shmemu_check_zero_pads(many + 5, 0));
    PE_CHECK_OK(shmemu_check_zero_pads(many + 16, 1)); /* room again */
    for (int i = 0; i <= 16; i++)
        PE_CHECK_OK(shmemu_check_zero_pads(many + i, 0));
    shmemu_barrier_all();
    shmemu_free(many);
    shmemu_free(pads);
    return 0;
}

/* Bad ranges are refused in one line naming the PE, the call and sym, on
 * every transport (one PE: the capture of stderr is the process's). */
static void test_signal_pads_bad_range(void **state)
{
    (void)state;
    for (int tr = 0; tr < th_transport_count(); tr++) {
        shmemu_opts o = {.npes = 1, .transport = th_transport(tr), .heap_size = 1 << 20,
                         .check = "race"};
        if (th_launch_opts(&o, body_pads_bad, NULL) != SHMEMU_OK)
            fail_msg("%s: the bad ranges were not refused as they should be", th_transport(tr));
    }
}

/* A pad the host leaves raised, with no kernel run: reported as such at
 * the barrier; dropped from the pads before it, never. */
static int body_pads_host(void *arg)
{
    int drop = *(const int *)arg;
    uint64_t *pad = shmemu_calloc(2, sizeof(uint64_t));
    PE_CHECK(pad != NULL);
    PE_CHECK_OK(shmemu_check_zero_pads(pad, 2 * sizeof(uint64_t)));
    pad[1] = 7;
    if (drop)
        PE_CHECK_OK(shmemu_check_zero_pads(pad, 0));
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(pad);
    return 0;
}

static void test_signal_pads_dropped(void **state)
{
    (void)state;
    for (int tr = 0; tr < th_transport_count(); tr++)
        for (int drop = 0; drop <= 1; drop++) {
            const char *tp = th_transport(tr);
            shmemu_opts o = {.npes = 2, .transport = tp, .heap_size = 1 << 20, .check = "race"};
            th_capture_start();
            int rc = th_launch_opts(&o, body_pads_host, &drop);
            char *err = th_capture_stop();
            if (drop ? rc != SHMEMU_OK
                     : rc != SHMEMU_ERACE ||
                           !strstr(err, "(byte 8 of 16 named by shmemu_check_zero_pads) is "
                                        "0x7, not 0, as it reached shmemu_barrier_all; the "
                                        "kernel that used it last (none ran on this PE)"))
                fail_msg("%s, %s: rc %d: %s", tp, drop ? "dropped" : "left raised", rc, err);
            free(err);
        }
}

/* Exploration: sim's PCT schedules (depth 3) with delivery fuzzing and
 * race detection, seeds 1..200 -- every fixed twin of the bug classes
 * above passes each; every bug is found, and the schedule that found it,
 * run again from its seed, fails the same way with the same report. */
union explored_arg {
    int i; /* the body's int: a mode, a form, fixed */
    struct bug_arg bug;
    struct early_arg early;
    struct fence3_arg fence3;
};

struct explored {
    const char *what;
    int (*body)(void *);
    int npes;
    int buggy;
    int views; /* needs sim's checked peer pointers */
    union explored_arg arg;
};

static int explore_one(const struct explored *e, int seed, char **err, uint64_t *sched)
{
    char sim[40], check[40];
    snprintf(sim, sizeof(sim), "pct:3,seed:%d", seed);
    snprintf(check, sizeof(check), "fuzz:%d,race", seed);
    setenv("SHMEMU_SIM", sim, 1);
    shmemu_opts o = {.npes = e->npes, .transport = "sim", .heap_size = 1 << 20,
                     .check = check};
    union explored_arg arg = e->arg; /* the body's own copy */
    th_capture_start();
    int rc = th_launch_opts(&o, e->body, &arg);
    *err = th_capture_stop();
    unsetenv("SHMEMU_SIM");
    shmemu_sim_stats st;
    *sched = shmemu_sim_last(&st) == SHMEMU_OK ? st.schedule : 0;
    return rc;
}

static void test_explored_twins(void **state)
{
    (void)state;
    if (!sim_here())
        th_skip("sim is not built or not selected here (SHMEMU_TEST_TRANSPORTS)");
    static const struct explored cases[] = {
        {"__threadfence_system() before the flag", body_scope, 2, 0, 1, {.i = SCOPE_SYSTEM}},
        {"__threadfence() before the flag", body_scope, 2, 1, 1, {.i = SCOPE_DEVICE}},
        {"no fence before the flag", body_scope, 2, 1, 1, {.i = SCOPE_NONE}},
        {"a device-scope atomic polls the flag", body_scope, 2, 1, 1, {.i = SCOPE_READER}},
        {"__threadfence_system() before a volatile flag", body_plain_flag, 2, 0, 1,
         {.i = SCOPE_SYSTEM}},
        {"__threadfence() before a volatile flag", body_plain_flag, 2, 1, 1, {.i = SCOPE_DEVICE}},
        {"__threadfence_system() before each thread's flag", body_warp_flags, 3, 0, 1,
         {.i = SCOPE_SYSTEM}},
        {"__threadfence() before each thread's flag", body_warp_flags, 3, 1, 1,
         {.i = SCOPE_DEVICE}},
        {"a pulled part, __threadfence_system() before its flag", body_scope_pull, 2, 0, 1,
         {.i = SCOPE_SYSTEM}},
        {"a pulled part, __threadfence() before its flag", body_scope_pull, 2, 1, 1,
         {.i = SCOPE_DEVICE}},
        {"signal words of one width", body_overlap, 3, 0, 1, {.i = 1}},
        {"partly overlapping signal writes (vLLM 2760)", body_overlap, 3, 1, 1, {.i = 0}},
        {"a signal slot per block", body_slot, 3, 0, 1, {.i = SLOT_PER_BLOCK}},
        {"one slot, set after a handshake", body_slot, 3, 0, 1, {.i = SLOT_AFTER_HANDSHAKE}},
        {"the kernel waits for its peers' reads", body_early, 3, 0, 1,
         {.early = {.fixed = 1, .round = 1}}},
        {"the kernel returns while peers read (aiter 4082)", body_early, 3, 1, 1,
         {.early = {.fixed = 0, .round = 1}}},
        {"the kernel reads after the wait", body_read_early, 2, 0, 1, {.i = 1}},
        {"the kernel reads before the wait", body_read_early, 2, 1, 1, {.i = 0}},
        {"signal pads back to zero", body_pads, 3, 0, 1, {.i = 1}},
        {"a signal pad left raised", body_pads, 3, 1, 1, {.i = 0}},
        {"put, fence, signal", body_bug, 2, 0, 0, {.bug = {.bug = BUG_NO_FENCE, .fixed = 1}}},
        {"put, signal", body_bug, 2, 1, 0, {.bug = {.bug = BUG_NO_FENCE}}},
        {"put_nbi, quiet, signal", body_bug, 2, 0, 0, {.bug = {.bug = BUG_NO_QUIET, .fixed = 1}}},
        {"put_nbi, signal", body_bug, 2, 1, 0, {.bug = {.bug = BUG_NO_QUIET}}},
        {"put_nbi, quiet, source reused", body_bug, 2, 0, 0,
         {.bug = {.bug = BUG_SRC, .fixed = 1}}},
        {"put_nbi, source reused", body_bug, 2, 1, 0, {.bug = {.bug = BUG_SRC}}},
        {"put_nbi, fence, p flag", body_bug, 2, 0, 0,
         {.bug = {.bug = BUG_P_FLAG, .fixed = 1}}},
        {"put_nbi, p flag", body_bug, 2, 1, 0, {.bug = {.bug = BUG_P_FLAG}}},
        {"stores through a peer pointer, fence, signal", body_bug, 2, 0, 1,
         {.bug = {.bug = BUG_PTR_SIGNAL, .fixed = 1}}},
        {"stores through a peer pointer, signal", body_bug, 2, 1, 1,
         {.bug = {.bug = BUG_PTR_SIGNAL}}},
        {"put_signal_nbi, quiet, source reused", body_bug, 2, 0, 0,
         {.bug = {.bug = BUG_SIGNAL_SRC, .fixed = 1}}},
        {"put_signal_nbi, source reused", body_bug, 2, 1, 0, {.bug = {.bug = BUG_SIGNAL_SRC}}},
        {"get_nbi, quiet, read", body_bug, 2, 0, 0, {.bug = {.bug = BUG_GET_EARLY, .fixed = 1}}},
        {"get_nbi, read before the quiet", body_bug, 2, 1, 0,
         {.bug = {.bug = BUG_GET_EARLY}}},
        {"put, quiet, signal to a third PE", body_fence3, 3, 0, 0,
         {.fence3 = {.form = FENCE3_NBI, .quiet = 1}}},
        {"put, fence, signal to a third PE", body_fence3, 3, 1, 0,
         {.fence3 = {.form = FENCE3_NBI, .quiet = 0}}},
        {"put, barrier_all, read", body_sync_put, 2, 0, 0, {.fence3 = {.quiet = 1}}},
        {"put, sync_all, read", body_sync_put, 2, 1, 0, {.fence3 = {.quiet = 0}}},
        {"every wave quiets its rows, then the tail", body_one_wave, 2, 0, 0, {.i = 1}},
        {"one wave quiets, then the tail (Primus-Turbo 482)", body_one_wave, 2, 1, 0, {.i = 0}},
    };
    int seeds = (int)th_iters(200, 5);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const struct explored *e = &cases[c];
        if (e->views && !th_checked_ptrs("sim")) {
            printf("# %s: skipped, sim's peer pointers are not checked here\n", e->what);
            continue;
        }
        int found = 0;
        for (int seed = 1; seed <= seeds && !found; seed++) {
            char *err;
            uint64_t sched;
            int rc = explore_one(e, seed, &err, &sched);
            if (!e->buggy && rc != SHMEMU_OK && getenv("DBG_EXPLORE"))
                fprintf(stderr, "%s\n", err);
            if (!e->buggy && rc != SHMEMU_OK)
                fail_msg("%s, seed %d: a correct kernel failed (rc %d): %s", e->what, seed, rc,
                         err);
            /* (a shared signal slot is reported without failing the job) */
            if (!e->buggy && (strstr(err, "signal slot") || strstr(err, "race: ") ||
                              strstr(err, "scope: ")))
                fail_msg("%s, seed %d: a correct kernel was accused: %s", e->what, seed, err);
            if (e->buggy && rc != SHMEMU_OK) {
                char *again;
                uint64_t sched2;
                int rc2 = explore_one(e, seed, &again, &sched2);
                if (rc2 != rc || sched2 != sched || strcmp(again, err) != 0)
                    fail_msg("%s, seed %d: the replay differs (rc %d, then %d):\n%s\n---\n%s",
                             e->what, seed, rc, rc2, err, again);
                printf("# %s: found with seed %d, replayed\n", e->what, seed);
                found = 1;
                free(again);
            }
            free(err);
        }
        if (e->buggy && !found)
            fail_msg("%s: not found in %d explored schedules", e->what, seeds);
    }
}

/* ------------------------------------------------------------- misuse */

struct bad_arg {
    int what;
    int *buf;
};

SHMEMU_KERNEL(k_bad, struct bad_arg, a)
{
    int x = 0;
    if (blockIdx.x != 1 || threadIdx.x != 3)
        return;
    switch (a.what) {
    case 0: shmemu_dev_putmem(a.buf, &x, sizeof x, 99); break;
    case 1: shmemu_dev_putmem(&x, &x, sizeof x, 0); break;
    case 2: shmemu_dev_signal_op((uint64_t *)(void *)a.buf, 1, 7, 0); break;
    case 3: shmemu_dev_uint64_wait_until((uint64_t *)(void *)a.buf, 42, 0); break;
    case 4: shmemu_dev_signal_op((uint64_t *)(void *)(a.buf + 1), 1, SHMEMU_SIGNAL_SET, 0); break;
    case 5: shmemu_dev_putmem(a.buf, NULL, 4, 0); break;
    case 6: shmemu_dev_getmem(a.buf, a.buf + (1 << 20), 4, 0); break;
    case 7: shmemu_dev_putmem(a.buf + 6, &x, 3 * sizeof x, 0); break; /* past its block */
    }
}

/* Two threads of a block declare one shared array with different sizes. */
SHMEMU_KERNEL(k_bad_shared, struct bad_arg, a)
{
    (void)a;
    SHMEMU_SHARED(int, s, threadIdx.x == 0 ? 4 : 8);
    s[0] = 1;
}

/* The _block and _warp rule: every thread of the group, the same
 * arguments.  Case 0: each thread passes its own size; 1: half the block
 * calls; 2: a warp's threads name different destinations; 3: half the
 * block calls a block barrier; 4: every block calls the _block barrier at
 * once; 5: two threads of a block call the barrier at once (a PE has one
 * device barrier). */
SHMEMU_KERNEL(k_bad_group, struct bad_arg, a)
{
    switch (a.what) {
    case 0: shmemu_dev_putmem_block(a.buf, a.buf + 4, 4 + 4 * (threadIdx.x % 2), 0); break;
    case 1:
        if (threadIdx.x < 2)
            shmemu_dev_getmem_block(a.buf, a.buf + 4, 16, 0);
        break;
    case 2: shmemu_dev_putmem_warp(a.buf + (threadIdx.x % 2), a.buf + 4, 8, 0); break;
    case 3:
        if (threadIdx.x < 2)
            shmemu_dev_barrier_all_block();
        break;
    case 4: shmemu_dev_sync_all_block(); break;
    case 5:
        if (threadIdx.x < 2)
            shmemu_dev_barrier_all();
        break;
    }
}

/* Each case: its status and the words its line must hold. */
static const struct {
    int status;
    const char *words;
} bad_cases[] = {
    {SHMEMU_EPE, "shmemu_dev_putmem: pe 99 is not a PE of this job"},
    {SHMEMU_ERANGE, "shmemu_dev_putmem: dest 0x"},
    {SHMEMU_EINVAL, "shmemu_dev_signal_op: sig_op 7 is neither"},
    {SHMEMU_EINVAL, "shmemu_dev_uint64_wait_until: cmp 42 is not"},
    {SHMEMU_EINVAL, "shmemu_dev_signal_op: sig_addr 0x"},
    {SHMEMU_EINVAL, "shmemu_dev_putmem: src is NULL with 4 bytes"},
    {SHMEMU_ERANGE, "shmemu_dev_getmem: src 0x"},
    {SHMEMU_ERANGE, "+12 is outside the symmetric heap (block 0x"},
};
#define NBAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

static int body_bad(void *arg)
{
    (void)arg;
    int *buf = shmemu_calloc(8, sizeof(int));
    PE_CHECK(buf);
    int run = kernels_run_here();
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    struct bad_arg a = {0, buf};
    if (!run) {
        PE_CHECK_EQ(shmemu_launch_kernel(k_bad, 2, 4, &a), SHMEMU_ENOTSUP);
        PE_CHECK_EQ(shmemu_launch_kernel_plain(k_bad, 2, 4, &a), SHMEMU_ENOTSUP);
        goto done;
    }
    /* A plain launch checks as the collective one does, under its own name. */
    PE_CHECK_EQ(shmemu_launch_kernel_plain(k_bad, 3, 4, &a), bad_cases[0].status);
    PE_CHECK_EQ(shmemu_launch_kernel_plain(k_bad, 0, 4, &a), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_launch_kernel_plain_on_stream(k_bad, 1, 2000, &a, NULL), SHMEMU_EINVAL);
    for (size_t w = 0; w < NBAD; w++) {
        a.what = (int)w;
        PE_CHECK_EQ(shmemu_launch_kernel(k_bad, 2, 4, &a), bad_cases[w].status);
    }
    PE_CHECK_EQ(shmemu_launch_kernel(k_bad_shared, 1, 2, &a), SHMEMU_EINVAL);
    for (a.what = 0; a.what < 4; a.what++)
        PE_CHECK_EQ(shmemu_launch_kernel(k_bad_group, 1, 4, &a), SHMEMU_EINVAL);
    /* Two device barriers at once are reported where the calls overlap:
     * always with threads taking turns in order; sim's seeded order may
     * run one to its end before the other starts (no overlap, no bug). */
    if (strcmp(shmemu_transport_name(), "sim")) {
        a.what = 4;
        PE_CHECK_EQ(shmemu_launch_kernel(k_bad_group, 2, 4, &a), SHMEMU_EINVAL);
        a.what = 5;
        PE_CHECK_EQ(shmemu_launch_kernel(k_bad_group, 1, 4, &a), SHMEMU_EINVAL);
    }
    a.what = 0;
    /* Shapes CUDA refuses, and a call outside any kernel. */
    PE_CHECK_EQ(shmemu_launch_kernel(k_bad, 0, 4, &a), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_launch_kernel(k_bad, 1, 1025, &a), SHMEMU_EINVAL);
    int negative = -1; /* a count no dim3 holds: said as such, not as (0,1,1) */
    PE_CHECK_EQ(shmemu_launch_kernel(k_bad, negative, 4, &a), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_launch_kernel(k_bad, 1, negative, &a), SHMEMU_EINVAL);
    PE_CHECK_EQ(shmemu_launch_kernel(k_bad, SHMEMU_DIM3(1, 1, 1), SHMEMU_DIM3(1, 1, 65), &a),
                SHMEMU_EINVAL);
    shmemu_dev_quiet();
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EINVAL);
done:
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_ABORT));
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(buf);
    return 0;
}

static void must_hold(const char *err, const char *words)
{
    if (!strstr(err, words)) {
        fprintf(stderr, "missing '%s' in:\n%s", words, err);
        fail();
    }
}

/* Every bad argument gets its status and one line naming the PE, the
 * block, the thread, the kernel's source line, the call and the argument;
 * where kernels cannot run, the launch says why. */
static void test_misuse(void **state)
{
    (void)state;
    for (int i = 0; i < th_transport_count(); i++) {
        th_capture_start();
        int rc = th_launch(th_transport(i), 1, 1 << 20, body_bad, NULL);
        char *err = th_capture_stop();
        assert_int_equal(rc, SHMEMU_OK);
        if (strstr(err, "has no load/store access to peers' heaps")) {
            must_hold(err, "PE 0/1 shmemu_launch_kernel: kernel k_none: transport");
            must_hold(err, "PE 0/1 shmemu_launch_kernel_plain: kernel k_bad: transport");
            free(err);
            continue;
        }
        must_hold(err, "PE 0/1 shmemu_launch_kernel: PE 0/1 block (1,0,0) thread (3,0,0) of "
                       "kernel k_bad at tests/test_kernels.c:");
        for (size_t l = 0; l < NBAD; l++)
            must_hold(err, bad_cases[l].words);
        must_hold(err, "+4 is outside the symmetric heap (heap 0x");
        must_hold(err, "shmemu_launch_kernel: kernel k_bad: grid (0,1,1) is empty");
        must_hold(err, "PE 0/1 shmemu_launch_kernel_plain: PE 0/1 block (1,0,0) thread (3,0,0) of "
                       "kernel k_bad at tests/test_kernels.c:");
        must_hold(err, "shmemu_launch_kernel_plain: kernel k_bad: grid (0,1,1) is empty");
        must_hold(err, "shmemu_launch_kernel_plain: kernel k_bad: block (2000,1,1) has 2000 "
                       "threads");
        must_hold(err, "block (1025,1,1) has 1025 threads");
        must_hold(err, "shmemu_launch_kernel: kernel k_bad: grid is (0,0,0): a count of blocks "
                       "below 0 or past 4294967295 (CUDA allows 1 to 2147483647 blocks in x)\n");
        must_hold(err, "shmemu_launch_kernel: kernel k_bad: block is (0,0,0): a count of "
                       "threads below 0 or past 4294967295 (CUDA allows 1 to 1024 threads a "
                       "block)\n");
        must_hold(err, "block (1,1,65) has 65 threads");
        /* Which thread declares first is the schedule's choice. */
        must_hold(err, "SHMEMU_SHARED: declared with ");
        must_hold(err, " bytes by another thread of the block");
        must_hold(err, "shmemu_dev_quiet: called outside a kernel");
        /* Which thread of the group enters first is the schedule's choice. */
        must_hold(err, "shmemu_dev_putmem_block: the size differs from thread ");
        must_hold(err, "'s, which called shmemu_dev_putmem_block(0x");
        must_hold(err, "every thread of the block calls a _block routine with the same "
                       "arguments");
        must_hold(err, "shmemu_dev_getmem_block: only 2 of the 4 threads of its block called "
                       "it: every thread of the block calls a _block routine");
        must_hold(err, "shmemu_dev_barrier_all_block: only 2 of the 4 threads of its block");
        must_hold(err, "shmemu_dev_putmem_warp: the first address differs from thread ");
        must_hold(err, "every thread of the warp calls a _warp routine with the same arguments");
        if (!strcmp(th_transport(i), "sim")) {
            free(err);
            continue;
        }
        /* Which block (or thread) enters first is the schedule's choice. */
        must_hold(err, "shmemu_dev_sync_all_block: entered the device barrier while PE 0/1 "
                       "block (");
        must_hold(err, "shmemu_dev_barrier_all: entered the device barrier while PE 0/1 "
                       "block (0,0,0) thread (");
        must_hold(err, " of kernel k_bad_group at tests/test_kernels.c:");
        must_hold(err, " is in it: a PE's barrier runs on one thread at a time (NVSHMEM's "
                       "rule); call it from one thread, or one block's (_block)\n");
        free(err);
    }
}

/* -------------------------------------------------- residency of blocks */

/* Which blocks run at once: a plain launch (CUDA's <<<>>>) promises no
 * more than one, and runs them as room frees up, at most
 * SHMEMU_DEVICE_RESIDENT at a time; shmemu_launch_kernel (NVSHMEM's
 * collective launch) keeps every block resident, so its blocks may wait
 * for each other. */
struct waves_arg {
    unsigned *running, *peak; /* blocks inside now; the most at once */
    unsigned *order, *next;   /* the order in which blocks entered */
    unsigned *sum;            /* what the threads added: the work was all done */
};

SHMEMU_KERNEL(k_waves, struct waves_arg, a)
{
    if (threadIdx.x == 0) {
        unsigned now = atomicAdd(a.running, 1u) + 1;
        atomicMax(a.peak, now);
        a.order[atomicAdd(a.next, 1u)] = blockIdx.x;
    }
    __syncthreads(); /* turns for the other blocks' threads */
    atomicAdd(a.sum, blockIdx.x * blockDim.x + threadIdx.x + 1);
    __syncthreads();
    if (threadIdx.x == 0)
        atomicSub(a.running, 1u);
}

/* Every block but the last waits for the last one's signal: fine when
 * every block is resident, a wait that may never end on a plain launch
 * with room for fewer. */
struct meet_arg {
    uint64_t *flag;
    uint64_t round;
};

SHMEMU_KERNEL(k_blocks_meet, struct meet_arg, a)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == gridDim.x - 1)
        shmemu_dev_signal_op(a.flag, 1, SHMEMU_SIGNAL_ADD, shmemu_dev_my_pe());
    else
        shmemu_dev_signal_wait_until(a.flag, SHMEMU_CMP_GE, a.round);
}

struct waves_cfg {
    int plain;
    unsigned resident; /* what SHMEMU_DEVICE_RESIDENT says (plain) */
    int meet;          /* run k_blocks_meet rather than k_waves */
};

static int body_waves(void *arg)
{
    const struct waves_cfg *c = arg;
    const unsigned nb = 6, nt = 5;
    unsigned *w = shmemu_calloc(16, sizeof(unsigned));
    uint64_t *flag = shmemu_calloc(1, sizeof(uint64_t));
    PE_CHECK(w && flag);
    for (uint64_t round = 1; round <= 2; round++) {
        int st;
        if (c->meet) {
            struct meet_arg m = {flag, round};
            st = c->plain ? shmemu_launch_kernel_plain(k_blocks_meet, nb, nt, &m)
                          : shmemu_launch_kernel(k_blocks_meet, nb, nt, &m);
            PE_CHECK_OK(st);
            PE_CHECK_EQ(*flag, round);
            continue;
        }
        memset(w, 0, 16 * sizeof(unsigned));
        struct waves_arg a = {w, w + 1, w + 2, w + 8, w + 9};
        st = c->plain ? shmemu_launch_kernel_plain(k_waves, nb, nt, &a)
                      : shmemu_launch_kernel(k_waves, nb, nt, &a);
        PE_CHECK_OK(st);
        PE_CHECK_EQ(*a.sum, nb * nt * (nb * nt + 1) / 2);
        PE_CHECK_EQ(*a.next, nb);
        PE_CHECK_EQ(*a.running, 0);
        if (c->plain) {
            unsigned at_once = c->resident < nb ? c->resident : nb;
            PE_CHECK(*a.peak >= 1 && *a.peak <= at_once);
            /* Blocks become resident in index order: one at a time, in
             * exactly that order. */
            for (unsigned b = 0; c->resident == 1 && b < nb; b++)
                PE_CHECK_EQ(a.order[b], b);
        }
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(flag);
    shmemu_free(w);
    return 0;
}

static void set_resident(unsigned n)
{
    char v[16];
    snprintf(v, sizeof(v), "%u", n);
    setenv("SHMEMU_DEVICE_RESIDENT", v, 1);
}

/* Plain launches run their blocks in waves of SHMEMU_DEVICE_RESIDENT (1,
 * 2, all), collective ones all at once; blocks that wait for each other
 * pass on a collective launch and on a plain one with room for them all,
 * on every transport that runs kernels, plainly and checked. */
static void test_plain_launch_waves(void **state)
{
    (void)state;
    static const unsigned residents[] = {1, 2, 6, 100};
    for (size_t r = 0; r < sizeof(residents) / sizeof(residents[0]); r++) {
        set_resident(residents[r]);
        struct waves_cfg plain = {1, residents[r], 0};
        th_run(body_waves, &plain, TH_NPES(1, 3), 1 << 20);
    }
    set_resident(1);
    struct waves_cfg coll = {0, 0, 0}, coll_meet = {0, 0, 1};
    th_run(body_waves, &coll, TH_NPES(1, 3), 1 << 20);
    th_run(body_waves, &coll_meet, TH_NPES(1, 3), 1 << 20);
    set_resident(6);
    struct waves_cfg roomy_meet = {1, 6, 1};
    th_run(body_waves, &roomy_meet, TH_NPES(2), 1 << 20);
    unsetenv("SHMEMU_DEVICE_RESIDENT");
}

/* A plain launch whose blocks wait for each other, with room for fewer
 * than all: blocks 0 to 4 wait for block 5, which cannot start while they
 * hold the places.  The job's deadlock detection ends it, and the
 * launch's line names the blocks that had not started, the wait, the rule
 * and the fix; every seed on every transport, plain and checked. */
static void test_plain_launch_blocks_wait(void **state)
{
    (void)state;
    setenv("SHMEMU_LIVELOCK", "0.5", 1);
    setenv("SHMEMU_TIMEOUT", "60", 1); /* a regression fails, it does not hang */
    int ran = 0;
    for (int i = 0; i < th_transport_count(); i++) {
        const char *tl = th_transport(i);
        char why[200];
        if (!th_transport_wanted(tl, why, sizeof(why)) ||
            (strcmp(tl, "local") && strcmp(tl, "shm") && strcmp(tl, "sim")))
            continue;
        ran++;
        for (unsigned resident = 1; resident <= 5; resident += 4) {
            for (int checked = 0; checked <= 1; checked++) {
                set_resident(resident);
                struct waves_cfg c = {1, resident, 1};
                shmemu_opts o = {.npes = 2, .transport = tl, .heap_size = 1 << 20,
                                 .check = checked ? "fuzz:3,race" : NULL};
                th_capture_start();
                int rc = th_launch_opts(&o, body_waves, &c);
                char *err = th_capture_stop();
                char want[160];
                snprintf(want, sizeof(want), "%u of its 6 blocks had not started while block "
                         "(0,0,0) thread (0,0,0) waited at tests/test_kernels.c:",
                         6 - resident);
                if (rc != SHMEMU_EDEADLOCK || !strstr(err, want) ||
                    !strstr(err, "shmemu_dev_signal_wait_until") ||
                    !strstr(err, "a plain launch (shmemu_launch_kernel_plain, CUDA's <<<>>>) "
                                 "runs blocks as room frees up") ||
                    !strstr(err, "launch with shmemu_launch_kernel (every block resident")) {
                    fprintf(stderr, "%s, resident %u, checked %d: status %d, report:\n%s", tl,
                            resident, checked, rc, err);
                    fail();
                }
                free(err);
            }
        }
    }
    unsetenv("SHMEMU_DEVICE_RESIDENT");
    unsetenv("SHMEMU_LIVELOCK");
    unsetenv("SHMEMU_TIMEOUT");
    if (!ran)
        th_skip("none of local, shm and sim is selected here (SHMEMU_TEST_TRANSPORTS)");
}

/* Every device thread of every PE waits for a signal nobody sends: the
 * job's livelock detection ends it as deadlocked, naming the wait. */
SHMEMU_KERNEL(k_stuck, struct bad_arg, a)
{
    shmemu_dev_uint64_wait_until((uint64_t *)(void *)a.buf, SHMEMU_CMP_EQ, 1);
}

static int body_stuck(void *arg)
{
    (void)arg;
    int *buf = shmemu_calloc(8, sizeof(int));
    PE_CHECK(buf);
    struct bad_arg a = {0, buf};
    (void)shmemu_launch_kernel(k_stuck, 2, 3, &a);
    return 0;
}

static void test_stuck(void **state)
{
    (void)state;
    if (!sim_here())
        th_skip("sim is not built or not selected here (SHMEMU_TEST_TRANSPORTS)");
    /* sim's time is its steps (1 us each): a tenth of a second is 100,000
     * of them, far more than the detection needs to see every PE poll the
     * same words, and each step costs tens of microseconds of real time
     * under ThreadSanitizer (a second took 15 to 100 s there). */
    setenv("SHMEMU_LIVELOCK", "0.1", 1);
    th_capture_start();
    int rc = th_launch("sim", 3, 1 << 20, body_stuck, NULL);
    char *err = th_capture_stop();
    unsetenv("SHMEMU_LIVELOCK");
    assert_int_equal(rc, SHMEMU_EDEADLOCK);
    if (!strstr(err, "shmemu_dev_uint64_wait_until")) {
        fprintf(stderr, "%s", err);
        fail();
    }
    free(err);
}

/* A launch in a job another PE has ended: in ABORT mode the PE unwinds
 * before any device thread runs, and whatever the launch had made goes
 * with it (`make asan` sees a launch left behind as a leak). */
static atomic_int after_abort_ran;

SHMEMU_KERNEL(k_after_abort, struct none_arg, a)
{
    (void)a;
    atomic_fetch_add(&after_abort_ran, 1);
}

static int body_launch_after_abort(void *arg)
{
    (void)arg;
    if (shmemu_my_pe() == 0)
        return 1; /* ends the job */
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_RETURN));
    while (shmemu_quiet() == SHMEMU_OK)
        sched_yield();
    PE_CHECK_EQ(shmemu_last_status(), SHMEMU_EABORTED);
    PE_CHECK_OK(shmemu_set_error_mode(SHMEMU_ERRORS_ABORT));
    struct none_arg a = {0};
    (void)shmemu_launch_kernel(k_after_abort, 2, 3, &a);
    th_pe_fail(__FILE__, __LINE__, "a launch in an ended job returned in ABORT mode");
    return 1;
}

static void test_launch_after_abort(void **state)
{
    (void)state;
    /* PEs that are threads or fibers of this process: the kernel's count
     * is read here */
    static const char *const transports[] = {"local", "sim"};
    int ran = 0;
    for (size_t i = 0; i < 2; i++) {
        char why[200];
        if (!th_transport_wanted(transports[i], why, sizeof(why))) {
            printf("# %s: skipped: %s\n", transports[i], why);
            continue;
        }
        atomic_store(&after_abort_ran, 0);
        th_capture_start();
        int rc = th_launch(transports[i], 2, 1 << 20, body_launch_after_abort, NULL);
        char *err = th_capture_stop();
        if (rc == SHMEMU_OK || !strstr(err, "PE 0/2 returned 1 from pe_main; ending the job") ||
            strstr(err, "FAIL PE") || atomic_load(&after_abort_ran) != 0)
            fail_msg("%s: rc %d, %d device threads ran: %s", transports[i], rc,
                     atomic_load(&after_abort_ran), err);
        free(err);
        ran++;
    }
    if (!ran)
        th_skip("neither local nor sim is selected here (SHMEMU_TEST_TRANSPORTS)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids),
        cmocka_unit_test(test_warp_functions),
        cmocka_unit_test(test_warp_misuse),
        cmocka_unit_test(test_rma),
        cmocka_unit_test(test_every_call),
        cmocka_unit_test(test_signals_waits),
        cmocka_unit_test(test_amo_atomics_shared),
        cmocka_unit_test(test_barriers),
        cmocka_unit_test(test_sim_replay),
        cmocka_unit_test(test_planted_bugs),
        cmocka_unit_test(test_fence_orders_per_pe),
        cmocka_unit_test(test_sync_completes_nothing),
        cmocka_unit_test(test_one_wave_quiet),
        cmocka_unit_test(test_scope_threadfence_device),
        cmocka_unit_test(test_scope_threadfence_device_pull),
        cmocka_unit_test(test_scope_plain_flag),
        cmocka_unit_test(test_scope_warp_flags),
        cmocka_unit_test(test_scope_reader_device_atomic),
        cmocka_unit_test(test_signal_partial_overlap),
        cmocka_unit_test(test_signal_slot_per_block),
        cmocka_unit_test(test_host_waits_on_kernel),
        cmocka_unit_test(test_kernel_returns_early),
        cmocka_unit_test(test_kernel_returns_early_ptr),
        cmocka_unit_test(test_kernel_reads_early),
        cmocka_unit_test(test_signal_pads_back_to_zero),
        cmocka_unit_test(test_signal_pads_bad_range),
        cmocka_unit_test(test_signal_pads_dropped),
        cmocka_unit_test(test_explored_twins),
        cmocka_unit_test(test_half_conversions),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_stuck),
        cmocka_unit_test(test_launch_after_abort),
        cmocka_unit_test(test_plain_launch_waves),
        cmocka_unit_test(test_plain_launch_blocks_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
