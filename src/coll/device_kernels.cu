/*
 * device_kernels.cu - the device-initiated built-in collectives, written
 * with shmemu_device.h alone: device threads read peers' memory through
 * shmemu_dev_ptr, push with device puts, and raise and wait on signals, as
 * NVSHMEM's and the custom-allreduce kernels do.  The library builds this
 * file as C for the CPU transports (each device thread a fiber of its PE);
 * the cuda plugin holds its nvcc build, which a launch on cuda runs by the
 * kernel's name (shmemu_cuda_library_kernel, at the end).  Where the two
 * builds must differ -- how a thread's elements are laid out, how a
 * launch is made -- small helpers say so; the kernels' bodies are one.
 *
 * Every kernel synchronises its blocks and the team through dc_grid: the
 * blocks of a PE meet at an arrival counter, and the last one does the
 * step's inter-PE part (a barrier of the team, or a ring's signal and
 * wait) for all of them.  Its tags are coll.h's: (sequence << 32) | (step
 * + 1), so that words never need resetting and waits compare with >=.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shmemu_device.h"
#include "device.h"

/* A launch's shape on the CPU: enough threads per block that the
 * _block forms and __syncthreads are exercised, few enough fibers that
 * sim's 16-PE cases stay quick. */
#ifndef __CUDACC__
enum { DC_BLOCKS = 2, DC_THREADS = 64 };
#endif
/* Elements a thread holds between a window's read and its write: a GPU
 * thread's registers, a CPU thread's contiguous run (fewer windows, fewer
 * barriers). */
#ifdef __CUDACC__
enum { DC_WINDOW = 16 };
#else
enum { DC_WINDOW = 512 };
#endif

/* ------------------------------------------------------------- elements */

/* An element as a value: integers widened (signed ones sign-extended) so
 * that wrapping sums, products and bitwise ops keep the low bits exact;
 * every float type as a double (exact for all of them). */
union dc_val {
    uint64_t u;
    int64_t i;
    double d;
};

/* A GPU thread's element loop; the CPU build hands its contiguous runs to
 * the library's vectorised kernels instead (dc_reduce). */
#ifdef __CUDACC__
SHMEMU_DEVICE union dc_val dc_load(int dt, const void *p, size_t i)
{
    union dc_val v;
    v.u = 0;
    switch (dt) {
    case SHMEMU_INT8: v.i = ((const int8_t *)p)[i]; break;
    case SHMEMU_INT16: v.i = ((const int16_t *)p)[i]; break;
    case SHMEMU_INT32: v.i = ((const int32_t *)p)[i]; break;
    case SHMEMU_INT64: v.i = ((const int64_t *)p)[i]; break;
    case SHMEMU_UINT8: v.u = ((const uint8_t *)p)[i]; break;
    case SHMEMU_UINT16: v.u = ((const uint16_t *)p)[i]; break;
    case SHMEMU_UINT32: v.u = ((const uint32_t *)p)[i]; break;
    case SHMEMU_UINT64: v.u = ((const uint64_t *)p)[i]; break;
    case SHMEMU_FLOAT: v.d = ((const float *)p)[i]; break;
    case SHMEMU_DOUBLE: v.d = ((const double *)p)[i]; break;
    case SHMEMU_FLOAT16: v.d = shmemu_dev_half_to_float(((const uint16_t *)p)[i]); break;
    case SHMEMU_BFLOAT16: v.d = shmemu_dev_bf16_to_float(((const uint16_t *)p)[i]); break;
    default: break;
    }
    return v;
}

/* Integers through their unsigned type of the same width: the low bits. */
SHMEMU_DEVICE void dc_store(int dt, void *p, size_t i, union dc_val v)
{
    switch (dt) {
    case SHMEMU_INT8: case SHMEMU_UINT8: ((uint8_t *)p)[i] = (uint8_t)v.u; break;
    case SHMEMU_INT16: case SHMEMU_UINT16: ((uint16_t *)p)[i] = (uint16_t)v.u; break;
    case SHMEMU_INT32: case SHMEMU_UINT32: ((uint32_t *)p)[i] = (uint32_t)v.u; break;
    case SHMEMU_INT64: case SHMEMU_UINT64: ((uint64_t *)p)[i] = v.u; break;
    case SHMEMU_FLOAT: ((float *)p)[i] = (float)v.d; break;
    case SHMEMU_DOUBLE: ((double *)p)[i] = v.d; break;
    case SHMEMU_FLOAT16: ((uint16_t *)p)[i] = shmemu_dev_float_to_half((float)v.d); break;
    case SHMEMU_BFLOAT16: ((uint16_t *)p)[i] = shmemu_dev_float_to_bf16((float)v.d); break;
    default: break;
    }
}

/* Element i of src into dst, bit for bit (a NaN's payload included). */
SHMEMU_DEVICE void dc_copy(size_t esize, void *dst, const void *src, size_t i)
{
    switch (esize) {
    case 1: ((uint8_t *)dst)[i] = ((const uint8_t *)src)[i]; break;
    case 2: ((uint16_t *)dst)[i] = ((const uint16_t *)src)[i]; break;
    case 4: ((uint32_t *)dst)[i] = ((const uint32_t *)src)[i]; break;
    default: ((uint64_t *)dst)[i] = ((const uint64_t *)src)[i]; break;
    }
}

/* min and max of floats as the host kernels: IEEE 754-2019 minimum and
 * maximum (a NaN wins, -0 < +0), the same bits in any order. */
SHMEMU_DEVICE double dc_fmin(double a, double b)
{
    return isnan(a) || isnan(b) ? (double)NAN : a < b ? a : b < a ? b : signbit(a) ? a : b;
}

SHMEMU_DEVICE double dc_fmax(double a, double b)
{
    return isnan(a) || isnan(b) ? (double)NAN : a > b ? a : b > a ? b : signbit(a) ? b : a;
}

/* a OP b, rounded to the element type as a GPU library rounds each step
 * (a double holds a float's, a half's or a bfloat16's exact sum or
 * product, so rounding it once more gives the type's own result). */
SHMEMU_DEVICE union dc_val dc_op(int dt, int op, union dc_val a, union dc_val b)
{
    union dc_val r;
    if (dt == SHMEMU_FLOAT || dt == SHMEMU_DOUBLE || dt == SHMEMU_FLOAT16 ||
        dt == SHMEMU_BFLOAT16) {
        r.d = op == SHMEMU_SUM    ? a.d + b.d
              : op == SHMEMU_PROD ? a.d * b.d
              : op == SHMEMU_MIN  ? dc_fmin(a.d, b.d)
                                  : dc_fmax(a.d, b.d);
        if (dt == SHMEMU_FLOAT)
            r.d = (float)r.d;
        else if (dt == SHMEMU_FLOAT16)
            r.d = shmemu_dev_half_to_float(shmemu_dev_float_to_half((float)r.d));
        else if (dt == SHMEMU_BFLOAT16)
            r.d = shmemu_dev_bf16_to_float(shmemu_dev_float_to_bf16((float)r.d));
        return r;
    }
    int is_signed = dt == SHMEMU_INT8 || dt == SHMEMU_INT16 || dt == SHMEMU_INT32 ||
                    dt == SHMEMU_INT64;
    switch (op) {
    case SHMEMU_SUM: r.u = a.u + b.u; break;
    case SHMEMU_PROD: r.u = a.u * b.u; break;
    case SHMEMU_MIN: r = (is_signed ? b.i < a.i : b.u < a.u) ? b : a; break;
    case SHMEMU_MAX: r = (is_signed ? b.i > a.i : b.u > a.u) ? b : a; break;
    case SHMEMU_BAND: r.u = a.u & b.u; break;
    case SHMEMU_BOR: r.u = a.u | b.u; break;
    default: r.u = a.u ^ b.u; break;
    }
    return r;
}
#endif

/* --------------------------------------------------------- synchronisation */

SHMEMU_DEVICE int dc_pe(const struct shmemu__devcoll *a, int member)
{
    return a->pe0 + member * a->stride;
}

SHMEMU_DEVICE uint64_t dc_tag(const struct shmemu__devcoll *a, uint64_t step)
{
    return (a->seq << 32) | (step + 1);
}

/* Chunk i of count split n ways (coll.h's chunk_off). */
SHMEMU_DEVICE size_t dc_chunk(size_t count, int n, int i)
{
    size_t base = count / (size_t)n, rem = count % (size_t)n;
    return base * (size_t)i + ((size_t)i < rem ? (size_t)i : rem);
}

/* A dissemination barrier of the team, run by one thread: round r tells
 * the member 2^r ahead and waits for the one 2^r behind. */
SHMEMU_DEVICE void dc_barrier(const struct shmemu__devcoll *a, uint64_t gen)
{
    for (int r = 0, d = 1; d < a->n; r++, d *= 2) {
        uint64_t tag = dc_tag(a, gen * DC_MAX_ROUNDS + (uint64_t)r);
        shmemu_dev_fence();
        shmemu_dev_signal_op(&a->ws[DC_W_ROUND + r], tag, SHMEMU_SIGNAL_SET,
                             dc_pe(a, (a->me + d) % a->n));
        shmemu_dev_signal_wait_until(&a->ws[DC_W_ROUND + r], SHMEMU_CMP_GE, tag);
    }
}

/* What the last block to arrive does for the PE: a team barrier, or a
 * signal to member `to` on word sig_word (step sig_step) and then a wait
 * for this PE's word wait_word to reach step wait_step (-1: none). */
struct dc_act {
    int barrier;
    int to, sig_word;
    uint64_t sig_step;
    int wait_word;
    uint64_t wait_step;
};

/* Every thread of every block of the PE calls it with the same act.  The
 * stores each block made before it are ordered for the peers by the
 * system-scope fences: each block's first thread fences after
 * __syncthreads (cumulative over what the block stored), the last one
 * again before it signals or meets the team.  Its signals are completed
 * (quiet) before the release, so that the next step's signal, which
 * another block's thread may send, cannot overtake them. */
SHMEMU_DEVICE void dc_grid(const struct shmemu__devcoll *a, uint64_t *gen, struct dc_act act)
{
    uint64_t g = ++*gen;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long *arrive = (unsigned long long *)&a->ws[DC_W_ARRIVE];
        __threadfence_system();
        if (atomicAdd(arrive, 1ull) == (unsigned long long)gridDim.x - 1) {
            atomicExch(arrive, 0ull); /* nobody arrives again before the release */
            if (act.barrier)
                dc_barrier(a, g);
            if (act.to >= 0) {
                shmemu_dev_fence();
                shmemu_dev_signal_op(&a->ws[act.sig_word], dc_tag(a, act.sig_step),
                                     SHMEMU_SIGNAL_SET, dc_pe(a, act.to));
            }
            shmemu_dev_quiet();
            if (act.wait_word >= 0)
                shmemu_dev_signal_wait_until(&a->ws[act.wait_word], SHMEMU_CMP_GE,
                                             dc_tag(a, act.wait_step));
            __threadfence_system();
            atomicExch((unsigned long long *)&a->ws[DC_W_RELEASE],
                       (unsigned long long)dc_tag(a, g));
        } else {
            shmemu_dev_uint64_wait_until(&a->ws[DC_W_RELEASE], SHMEMU_CMP_GE, dc_tag(a, g));
        }
    }
    __syncthreads();
}

SHMEMU_DEVICE struct dc_act dc_team_barrier(void)
{
    struct dc_act act = {1, -1, 0, 0, -1, 0};
    return act;
}

SHMEMU_DEVICE struct dc_act dc_signal_wait(int to, int sig_word, uint64_t sig_step, int wait_word,
                                           uint64_t wait_step)
{
    struct dc_act act = {0, to, sig_word, sig_step, wait_word, wait_step};
    return act;
}

SHMEMU_DEVICE size_t dc_tid(void)
{
    return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

SHMEMU_DEVICE size_t dc_nthreads(void)
{
    return (size_t)gridDim.x * blockDim.x;
}

/* This thread's share of the elements [lo, hi): for (i = r.i; i < r.end;
 * i += r.step).  On a GPU the grid strides over the range, so that
 * neighbouring threads touch neighbouring elements (coalesced); on the
 * CPU, where a device thread runs its loop to the end before the next one
 * starts, each takes one contiguous slice (with the stride, every load
 * missed the cache: a one-shot allreduce ran five times slower). */
struct dc_range {
    size_t i, end, step;
};

SHMEMU_DEVICE struct dc_range dc_share(size_t lo, size_t hi)
{
    size_t t = dc_tid(), nt = dc_nthreads();
    struct dc_range r;
#ifdef __CUDACC__
    r.i = lo + t;
    r.end = hi;
    r.step = nt;
#else
    size_t n = hi > lo ? hi - lo : 0;
    r.i = lo + dc_chunk(n, (int)nt, (int)t);
    r.end = lo + dc_chunk(n, (int)nt, (int)t + 1);
    r.step = 1;
#endif
    return r;
}

/* This thread's elements of the window of DC_WINDOW per thread starting
 * at w0, within [0, count): strided on a GPU, contiguous on the CPU, as
 * dc_share. */
SHMEMU_DEVICE struct dc_range dc_window(size_t w0, size_t count)
{
    size_t t = dc_tid();
    struct dc_range r;
#ifdef __CUDACC__
    r.i = w0 + t;
    r.end = w0 + dc_nthreads() * DC_WINDOW;
    r.step = dc_nthreads();
#else
    r.i = w0 + t * DC_WINDOW;
    r.end = r.i + DC_WINDOW;
    r.step = 1;
#endif
    if (r.end > count)
        r.end = count;
    return r;
}

/* dst[i] = x[i] OP y[i] over r (y NULL: x[i], bit for bit).  On the CPU
 * the run is contiguous and goes to the library's vectorised kernels
 * (shmemu_reduce_local: the same per-step rounding as dc_op); dst may be
 * x or y. */
SHMEMU_DEVICE void dc_reduce(const struct shmemu__devcoll *a, void *dst, const void *x,
                             const void *y, struct dc_range r)
{
#ifdef __CUDACC__
    for (; r.i < r.end; r.i += r.step)
        if (y)
            dc_store(a->dtype, dst, r.i,
                     dc_op(a->dtype, a->op, dc_load(a->dtype, x, r.i), dc_load(a->dtype, y, r.i)));
        else
            dc_copy(a->esize, dst, x, r.i);
#else
    if (r.end <= r.i)
        return;
    size_t off = r.i * a->esize, n = r.end - r.i;
    if (y)
        shmemu_reduce_local((shmemu_dtype_t)a->dtype, (shmemu_op_t)a->op, (char *)dst + off,
                            (const char *)x + off, (const char *)y + off, n);
    else if ((char *)dst + off != (const char *)x + off)
        memmove((char *)dst + off, (const char *)x + off, n * a->esize);
#endif
}

/* What a thread holds of a window: its k-th element of the window's range
 * in v[k] (a GPU's registers), or the run packed as elements (the CPU's). */
struct dc_acc {
    union dc_val v[DC_WINDOW];
};

/* acc = x OP y over r (y NULL: x); the window's element i at the slot the
 * range gives it. */
SHMEMU_DEVICE void dc_acc_set(const struct shmemu__devcoll *a, struct dc_acc *acc, const void *x,
                              const void *y, struct dc_range r)
{
#ifdef __CUDACC__
    for (int k = 0; r.i < r.end; r.i += r.step, k++) {
        union dc_val v = dc_load(a->dtype, x, r.i);
        acc->v[k] = y ? dc_op(a->dtype, a->op, v, dc_load(a->dtype, y, r.i)) : v;
    }
#else
    /* as dc_reduce with dst the packed run: shift the operands instead */
    struct dc_range z = {0, r.end > r.i ? r.end - r.i : 0, 1};
    size_t off = r.i * a->esize;
    dc_reduce(a, acc->v, (const char *)x + off, y ? (const char *)y + off : NULL, z);
#endif
}

/* acc = acc OP y over r. */
SHMEMU_DEVICE void dc_acc_fold(const struct shmemu__devcoll *a, struct dc_acc *acc, const void *y,
                               struct dc_range r)
{
#ifdef __CUDACC__
    for (int k = 0; r.i < r.end; r.i += r.step, k++)
        acc->v[k] = dc_op(a->dtype, a->op, acc->v[k], dc_load(a->dtype, y, r.i));
#else
    struct dc_range z = {0, r.end > r.i ? r.end - r.i : 0, 1};
    dc_reduce(a, acc->v, acc->v, (const char *)y + r.i * a->esize, z);
#endif
}

/* dst = acc over r. */
SHMEMU_DEVICE void dc_acc_store(const struct shmemu__devcoll *a, void *dst,
                                const struct dc_acc *acc, struct dc_range r)
{
#ifdef __CUDACC__
    for (int k = 0; r.i < r.end; r.i += r.step, k++)
        dc_store(a->dtype, dst, r.i, acc->v[k]);
#else
    struct dc_range z = {0, r.end > r.i ? r.end - r.i : 0, 1};
    dc_reduce(a, (char *)dst + r.i * a->esize, acc->v, NULL, z);
#endif
}

/* --------------------------------------------------------------- kernels */

/* One-shot allreduce (vLLM's and SGLang's small-message shape): after a
 * barrier, every PE reads every member's src and reduces in team order,
 * so that every member computes the same bits; a second barrier keeps
 * each src unchanged until everyone has read it.  In place, the result
 * may not be written while peers still read src: each window is reduced
 * into what the threads hold, then a barrier, then written. */
SHMEMU_KERNEL(shmemu__dc_oneshot, struct shmemu__devcoll, a)
{
    uint64_t gen = 0;
    dc_grid(&a, &gen, dc_team_barrier()); /* every input ready, every dest free */
    if (a.dest != a.src) {
        struct dc_range r = dc_share(0, a.count);
        for (int m = 0; m < a.n; m++) {
            const void *peer = shmemu_dev_ptr(a.src, dc_pe(&a, m));
            dc_reduce(&a, a.dest, m ? a.dest : peer, m ? peer : NULL, r);
        }
        dc_grid(&a, &gen, dc_team_barrier()); /* nobody reads my src any more */
        return;
    }
    for (size_t w0 = 0; w0 < a.count; w0 += dc_nthreads() * DC_WINDOW) {
        struct dc_acc acc;
        struct dc_range r = dc_window(w0, a.count);
        for (int m = 0; m < a.n; m++) {
            const void *peer = shmemu_dev_ptr(a.src, dc_pe(&a, m));
            if (m)
                dc_acc_fold(&a, &acc, peer, r);
            else
                dc_acc_set(&a, &acc, peer, NULL, r);
        }
        dc_grid(&a, &gen, dc_team_barrier()); /* every member read this window */
        dc_acc_store(&a, a.dest, &acc, r);
    }
}

/* Two-shot allreduce (the custom allreduce's large-message shape): each
 * PE reduces its chunk of every member's src into its dest, then copies
 * the other chunks out of their reducers' dest.  In place it needs no
 * window: a PE writes only its own chunk, which no peer reads. */
SHMEMU_KERNEL(shmemu__dc_twoshot, struct shmemu__devcoll, a)
{
    uint64_t gen = 0;
    struct dc_range mine = dc_share(dc_chunk(a.count, a.n, a.me), dc_chunk(a.count, a.n, a.me + 1));
    dc_grid(&a, &gen, dc_team_barrier());
    for (int q = 0; q < a.n; q++) { /* my own src first: in place, it is dest */
        const void *peer = shmemu_dev_ptr(a.src, dc_pe(&a, (a.me + q) % a.n));
        dc_reduce(&a, a.dest, q ? a.dest : peer, q ? peer : NULL, mine);
    }
    dc_grid(&a, &gen, dc_team_barrier()); /* every chunk reduced */
    for (int q = 1; q < a.n; q++) {
        int m = (a.me + q) % a.n;
        const void *peer = shmemu_dev_ptr(a.dest, dc_pe(&a, m));
        dc_reduce(&a, a.dest, peer, NULL,
                  dc_share(dc_chunk(a.count, a.n, m), dc_chunk(a.count, a.n, m + 1)));
    }
    dc_grid(&a, &gen, dc_team_barrier()); /* nobody reads my dest any more */
}

/* Ring allgather with device puts: at step s each block puts its share of
 * chunk me - s to the right neighbour's dest, completes it (quiet), and
 * the PE signals once every block has; the chunk that arrives from the
 * left is the one forwarded next.  The first barrier keeps a PE from
 * writing into a neighbour that is still in the previous call. */
SHMEMU_KERNEL(shmemu__dc_ag_ring, struct shmemu__devcoll, a)
{
    uint64_t gen = 0;
    size_t bytes = a.count * a.esize;
    size_t b_lo = dc_chunk(bytes, (int)gridDim.x, (int)blockIdx.x),
           b_hi = dc_chunk(bytes, (int)gridDim.x, (int)blockIdx.x + 1);
    int right = (a.me + 1) % a.n;
    char *dest = (char *)a.dest;
    dc_grid(&a, &gen, dc_team_barrier());
    dc_reduce(&a, dest + (size_t)a.me * bytes, a.src, NULL, dc_share(0, a.count));
    for (int s = 0; s + 1 < a.n; s++) {
        size_t c = (size_t)((a.me - s + a.n) % a.n);
        const char *from = s == 0 ? (const char *)a.src : dest + c * bytes;
        shmemu_dev_putmem_nbi_block(dest + c * bytes + b_lo, from + b_lo, b_hi - b_lo,
                                    dc_pe(&a, right));
        shmemu_dev_quiet(); /* this thread's share has landed */
        dc_grid(&a, &gen, dc_signal_wait(right, DC_W_PUSH, (uint64_t)s, DC_W_PUSH, (uint64_t)s));
    }
}

/* Ring reduce-scatter that pulls partials: the partial of chunk c starts
 * at member c + 1 and travels right, each member adding its own src's
 * chunk, ending at c.  A member computes its partial into registers,
 * window by window, out of the left neighbour's dest, tells the left one
 * it has read it, waits until the right one has read the previous partial
 * in its own dest, and only then overwrites it: dest is the only buffer,
 * so the credits stand in for double buffering. */
SHMEMU_KERNEL(shmemu__dc_rs_ring, struct shmemu__devcoll, a)
{
    uint64_t gen = 0;
    size_t win = dc_nthreads() * DC_WINDOW;
    size_t nwin = (a.count + win - 1) / win;
    int left = (a.me - 1 + a.n) % a.n, right = (a.me + 1) % a.n;
    const void *ldest = shmemu_dev_ptr(a.dest, dc_pe(&a, left));
    for (int s = 0; s < a.n; s++) {
        size_t c = (size_t)((a.me - s - 1 + 2 * a.n) % a.n);
        const char *mine = (const char *)a.src + c * a.count * a.esize;
        for (size_t w = 0; w < nwin; w++) {
            uint64_t step = (uint64_t)s * nwin + w, prev = step - nwin;
            struct dc_acc acc;
            struct dc_range r = dc_window(w * win, a.count);
            if (s > 0) /* the left one's partial of this window is there */
                dc_grid(&a, &gen, dc_signal_wait(-1, 0, 0, DC_W_PROD, prev));
            dc_acc_set(&a, &acc, s ? ldest : mine, s ? mine : NULL, r);
            if (s > 0) /* read it: tell the left one; wait for the right one */
                dc_grid(&a, &gen, dc_signal_wait(left, DC_W_CONS, prev, DC_W_CONS, prev));
            dc_acc_store(&a, a.dest, &acc, r);
            if (s + 1 < a.n) /* my partial of this window is there */
                dc_grid(&a, &gen, dc_signal_wait(right, DC_W_PROD, step, -1, 0));
        }
    }
}

/* Broadcast by pulling: after a barrier every member copies the root's
 * src; a second barrier keeps the root's src unchanged until all have. */
SHMEMU_KERNEL(shmemu__dc_bcast_pull, struct shmemu__devcoll, a)
{
    uint64_t gen = 0;
    dc_grid(&a, &gen, dc_team_barrier());
    const void *from = shmemu_dev_ptr(a.src, dc_pe(&a, a.root));
    if (a.dest != from)
        dc_reduce(&a, a.dest, from, NULL, dc_share(0, a.count));
    dc_grid(&a, &gen, dc_team_barrier());
}

#ifdef __CUDACC__
/* On a GPU, blocks of 512 threads, one per 256 KiB of the collective's
 * data up to 32 (a small call waits on one block's barrier only). */
enum { DC_THREADS = 512 };
static unsigned dc_blocks(const struct shmemu__devcoll *a)
{
    size_t bytes = a->count * a->esize * (a->kind == DC_AG_RING || a->kind == DC_RS_RING ? a->n : 1);
    size_t b = bytes / (256 << 10) + 1;
    return b > 32 ? 32u : (unsigned)b;
}
#else
static unsigned dc_blocks(const struct shmemu__devcoll *a)
{
    (void)a;
    return DC_BLOCKS;
}
#endif

#ifndef __CUDACC__
int shmemu__devcoll_launch(const struct shmemu__devcoll *a)
{
    unsigned nb = dc_blocks(a);
    switch (a->kind) {
    case DC_ONESHOT: return shmemu_launch_kernel(shmemu__dc_oneshot, nb, DC_THREADS, a);
    case DC_TWOSHOT: return shmemu_launch_kernel(shmemu__dc_twoshot, nb, DC_THREADS, a);
    case DC_AG_RING: return shmemu_launch_kernel(shmemu__dc_ag_ring, nb, DC_THREADS, a);
    case DC_RS_RING: return shmemu_launch_kernel(shmemu__dc_rs_ring, nb, DC_THREADS, a);
    default: return shmemu_launch_kernel(shmemu__dc_bcast_pull, nb, DC_THREADS, a);
    }
}
#endif

#ifdef __CUDACC__
/* The cuda plugin's entry (transports/cuda/plugin.h, kernel): the C build
 * of this file launches a kernel by name, the transport hands it to the
 * plugin with the table of every PE's heap, and this build's twin runs on
 * the PE's stream.  No call into the library: the plugin stands alone. */
extern "C" int shmemu_cuda_library_kernel(const char *name, const void *arg, size_t arg_size,
                                          const void *table, cudaStream_t stream,
                                          cudaError_t *err);
extern "C" int shmemu_cuda_library_kernel(const char *name, const void *arg, size_t arg_size,
                                          const void *table, cudaStream_t stream,
                                          cudaError_t *err)
{
    if (arg_size != sizeof(struct shmemu__devcoll) || strncmp(name, "shmemu__dc_", 11) != 0)
        return SHMEMU_ENOTSUP;
    const struct shmemu__devcoll *a = (const struct shmemu__devcoll *)arg;
    dim3 grid(dc_blocks(a)), block(DC_THREADS);
    cudaError_t e = cudaMemcpyToSymbolAsync(shmemu_devrt_t, table, sizeof(shmemu_devrt_t), 0,
                                            cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess) {
        switch (a->kind) {
        case DC_ONESHOT: shmemu__dc_oneshot<<<grid, block, 0, stream>>>(*a); break;
        case DC_TWOSHOT: shmemu__dc_twoshot<<<grid, block, 0, stream>>>(*a); break;
        case DC_AG_RING: shmemu__dc_ag_ring<<<grid, block, 0, stream>>>(*a); break;
        case DC_RS_RING: shmemu__dc_rs_ring<<<grid, block, 0, stream>>>(*a); break;
        default: shmemu__dc_bcast_pull<<<grid, block, 0, stream>>>(*a); break;
        }
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    *err = e;
    return SHMEMU_OK;
}
#endif
