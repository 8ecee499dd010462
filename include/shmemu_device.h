/*
 * shmemu_device.h - device-initiated communication: kernels whose threads
 * store into peers' heaps, fence, raise flags and wait, written once and
 * built two ways (docs/DEVICE.md):
 *
 *   nvcc  (the cuda transport): a real kernel; device calls are loads,
 *         stores, fences and atomics on peers' heaps mapped with CUDA IPC.
 *   cc    as C11 (local, shm, sim): each device thread is a fiber of the
 *         launching PE; threads switch at device calls, atomics, fences,
 *         __syncthreads and (built with shmemu-devcc) inside any loop, so
 *         spin-waits between threads, blocks and PEs make progress.
 *
 * A kernel file keeps CUDA's spellings (threadIdx, blockIdx, blockDim,
 * gridDim, __syncthreads, __threadfence*, atomicAdd/CAS/Exch and their
 * _system/_block forms, plain and volatile loads and stores through
 * shmemu_dev_ptr) and uses a macro for what C cannot spell:
 *
 *   struct args { float *buf; int n; };
 *   SHMEMU_KERNEL(scale, struct args, a) {
 *       int i = blockIdx.x * blockDim.x + threadIdx.x;
 *       if (i < a.n) a.buf[i] *= 2;
 *   }
 *   ... shmemu_launch_kernel(scale, 4, 128, &args);   (an int status)
 *
 * Device calls follow NVSHMEM's semantics with a shmemu_dev_ prefix: a
 * fence orders the calling thread's puts to each PE, a quiet completes
 * them, a put with signal is seen only with its data, and the end of a
 * kernel completes nothing (the host's shmemu_quiet or barrier does).
 */
#ifndef SHMEMU_DEVICE_H
#define SHMEMU_DEVICE_H

#include "shmemu.h"

/* Scopes of fences and atomics (the PTX memory model's .cta, .gpu, .sys):
 * a PE is one GPU, so only SYSTEM orders anything for another PE. */
enum { SHMEMU_DEV_SCOPE_BLOCK, SHMEMU_DEV_SCOPE_DEVICE, SHMEMU_DEV_SCOPE_SYSTEM };

#if defined(__CUDACC__)
/* ======================================================= nvcc: the GPU */
#error "shmemu_device.h: the nvcc build for the cuda transport is not written yet (docs/DEVICE.md)"
#else
/* ========================================================= C: the CPU */
#if defined(__cplusplus)
#error "shmemu_device.h: a kernel file builds as C11 (cc -x c, or shmemu-devcc) or with nvcc"
#endif
#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "shmemu_device.h: a kernel file builds as C11 or later"
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/** A grid or block shape (CUDA's dim3). */
typedef struct shmemu_dim3 {
    unsigned x, y, z;
} shmemu_dim3;
typedef shmemu_dim3 dim3;
/** dim3(x, y, z) as C spells it. */
#define SHMEMU_DIM3(x, y, z) ((shmemu_dim3){(unsigned)(x), (unsigned)(y), (unsigned)(z)})

/** The calling device thread as a kernel sees it. */
struct shmemu_dev_self {
    shmemu_dim3 thread_idx, block_idx, block_dim, grid_dim;
    const char *file; /* the device call it is in (for reports) */
    int line;
};
/** The running device thread; outside kernels a thread of its own (all
 *  zero) that device calls refuse. */
extern _Thread_local struct shmemu_dev_self *shmemu_devrt_self;

#define threadIdx (shmemu_devrt_self->thread_idx)
#define blockIdx (shmemu_devrt_self->block_idx)
#define blockDim (shmemu_devrt_self->block_dim)
#define gridDim (shmemu_devrt_self->grid_dim)
#define warpSize 32

/** A kernel: what SHMEMU_KERNEL defines and shmemu_launch_kernel runs. */
struct shmemu_kernel {
    const char *name, *file;
    void (*body)(const void *arg);
    size_t arg_size;
};

/* Qualifiers CUDA needs and C does not. */
#define SHMEMU_DEVICE static inline
#define SHMEMU_HOST
#define __device__
#define __host__
#define __forceinline__ inline

/** Define kernel `name` taking one argument struct `arg` of type `argtype`
 *  by value: SHMEMU_KERNEL(name, argtype, arg) { body } */
#define SHMEMU_KERNEL(name, argtype, arg)                                       \
    static void name##__shmemu_body(argtype arg);                                \
    static void name##__shmemu_entry(const void *shmemu_arg_)                    \
    {                                                                            \
        name##__shmemu_body(*(const argtype *)shmemu_arg_);                      \
    }                                                                            \
    const struct shmemu_kernel name##__shmemu_kernel = {                         \
        #name, __FILE__, name##__shmemu_entry, sizeof(argtype)};                 \
    static void name##__shmemu_body(argtype arg)

/** Block-shared memory: `type name[count]` shared by the threads of a
 *  block (a pointer here, an array under nvcc). */
#define SHMEMU_SHARED(type, name, count)                                        \
    static const char name##__shmemu_key = 0;                                    \
    type *name = (type *)shmemu_devrt_shared(&name##__shmemu_key,                 \
                                             sizeof(type) * (size_t)(count))

/* dim3 or a plain count, as CUDA's launch takes either. */
static inline shmemu_dim3 shmemu_devrt_dim3_id(shmemu_dim3 d) { return d; }
static inline shmemu_dim3 shmemu_devrt_dim3_n(unsigned long long n)
{
    shmemu_dim3 d = {(unsigned)n, 1, 1};
    if (n > 0xffffffffull) /* refused by the launch: no block count this large */
        d.x = 0;
    return d;
}
#define SHMEMU_DIM3_OF(v)                                                       \
    _Generic((v), shmemu_dim3: shmemu_devrt_dim3_id, default: shmemu_devrt_dim3_n)(v)

/** Run kernel `name` on the calling PE with `grid` blocks of `block` threads
 *  (counts or dim3), every block resident at once, on a copy of *argp; it
 *  returns when every thread has ended.  SHMEMU_OK or a status (a bad
 *  shape, a kernel that stalled: one line naming PE, block, thread and
 *  source line). */
#define shmemu_launch_kernel(name, grid, block, argp)                          \
    shmemu_devrt_launch(&name##__shmemu_kernel, SHMEMU_DIM3_OF(grid),            \
                        SHMEMU_DIM3_OF(block), (argp), sizeof *(argp), NULL)
/** The same, enqueued on a CUDA stream under nvcc; here it runs at once. */
#define shmemu_launch_kernel_on_stream(name, grid, block, argp, stream)        \
    shmemu_devrt_launch(&name##__shmemu_kernel, SHMEMU_DIM3_OF(grid),            \
                        SHMEMU_DIM3_OF(block), (argp), sizeof *(argp), (stream))

int shmemu_devrt_launch(const struct shmemu_kernel *k, shmemu_dim3 grid, shmemu_dim3 block,
                        const void *arg, size_t arg_size, void *stream);
void *shmemu_devrt_shared(const void *key, size_t bytes);
/* Where the calling device thread is, for reports; then the call. */
static inline int shmemu_devrt_at(const char *file, int line)
{
    struct shmemu_dev_self *s = shmemu_devrt_self;
    if (s->grid_dim.x) { /* in a kernel (outside, the call refuses) */
        s->file = file;
        s->line = line;
    }
    return 0;
}
#define SHMEMU_DEVRT_AT(fn) (shmemu_devrt_at(__FILE__, __LINE__), fn)

/* ---- intrinsics: barriers, fences, atomics --------------------------- */
void shmemu_devrt_syncthreads(void);
void shmemu_devrt_fence_scope(int scope);
/* A scheduling point before an atomic (another thread may run first). */
void shmemu_devrt_point(const void *addr);

#define __syncthreads() (shmemu_devrt_at(__FILE__, __LINE__), shmemu_devrt_syncthreads())
#define __threadfence_block()                                                    \
    (shmemu_devrt_at(__FILE__, __LINE__), shmemu_devrt_fence_scope(SHMEMU_DEV_SCOPE_BLOCK))
#define __threadfence()                                                          \
    (shmemu_devrt_at(__FILE__, __LINE__), shmemu_devrt_fence_scope(SHMEMU_DEV_SCOPE_DEVICE))
#define __threadfence_system()                                                   \
    (shmemu_devrt_at(__FILE__, __LINE__), shmemu_devrt_fence_scope(SHMEMU_DEV_SCOPE_SYSTEM))

/* Atomics of CUDA's types: each is one indivisible read-modify-write that
 * returns the old value (relaxed, as CUDA's; order them with fences). */
#define SHMEMU__ATOMIC_INT(T, tag)                                              \
    static inline T shmemu_devrt_add_##tag(T *p, T v)                          \
    { shmemu_devrt_point(p); return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); } \
    static inline T shmemu_devrt_sub_##tag(T *p, T v)                          \
    { shmemu_devrt_point(p); return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); } \
    static inline T shmemu_devrt_exch_##tag(T *p, T v)                         \
    { shmemu_devrt_point(p); return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); } \
    static inline T shmemu_devrt_cas_##tag(T *p, T cmp, T v)                   \
    {                                                                            \
        shmemu_devrt_point(p);                                                   \
        __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        return cmp;                                                              \
    }                                                                            \
    static inline T shmemu_devrt_and_##tag(T *p, T v)                          \
    { shmemu_devrt_point(p); return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); } \
    static inline T shmemu_devrt_or_##tag(T *p, T v)                           \
    { shmemu_devrt_point(p); return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); } \
    static inline T shmemu_devrt_xor_##tag(T *p, T v)                          \
    { shmemu_devrt_point(p); return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); } \
    static inline T shmemu_devrt_max_##tag(T *p, T v)                          \
    {                                                                            \
        shmemu_devrt_point(p);                                                   \
        T o = __atomic_load_n(p, __ATOMIC_SEQ_CST);                              \
        while (o < v && !__atomic_compare_exchange_n(p, &o, v, 1, __ATOMIC_SEQ_CST, \
                                                     __ATOMIC_SEQ_CST)) {}      \
        return o;                                                                \
    }                                                                            \
    static inline T shmemu_devrt_min_##tag(T *p, T v)                          \
    {                                                                            \
        shmemu_devrt_point(p);                                                   \
        T o = __atomic_load_n(p, __ATOMIC_SEQ_CST);                              \
        while (o > v && !__atomic_compare_exchange_n(p, &o, v, 1, __ATOMIC_SEQ_CST, \
                                                     __ATOMIC_SEQ_CST)) {}      \
        return o;                                                                \
    }
SHMEMU__ATOMIC_INT(int, i)
SHMEMU__ATOMIC_INT(unsigned, u)
SHMEMU__ATOMIC_INT(unsigned long long, ull)
SHMEMU__ATOMIC_INT(long long, ll)
#undef SHMEMU__ATOMIC_INT

/* Floating add and exchange: a compare-and-swap on the bits. */
#define SHMEMU__ATOMIC_FP(T, U, tag)                                            \
    static inline T shmemu_devrt_add_##tag(T *p, T v)                          \
    {                                                                            \
        shmemu_devrt_point(p);                                                   \
        U *w = (U *)(void *)p, o = __atomic_load_n(w, __ATOMIC_SEQ_CST), n;      \
        T f, g;                                                                  \
        do {                                                                     \
            __builtin_memcpy(&f, &o, sizeof f);                                  \
            g = f + v;                                                           \
            __builtin_memcpy(&n, &g, sizeof n);                                  \
        } while (!__atomic_compare_exchange_n(w, &o, n, 1, __ATOMIC_SEQ_CST,      \
                                              __ATOMIC_SEQ_CST));               \
        return f;                                                                \
    }                                                                            \
    static inline T shmemu_devrt_exch_##tag(T *p, T v)                         \
    {                                                                            \
        shmemu_devrt_point(p);                                                   \
        U n, o;                                                                  \
        T f;                                                                     \
        __builtin_memcpy(&n, &v, sizeof n);                                      \
        o = __atomic_exchange_n((U *)(void *)p, n, __ATOMIC_SEQ_CST);            \
        __builtin_memcpy(&f, &o, sizeof f);                                      \
        return f;                                                                \
    }
SHMEMU__ATOMIC_FP(float, unsigned, f)
SHMEMU__ATOMIC_FP(double, unsigned long long, d)
#undef SHMEMU__ATOMIC_FP

#define SHMEMU__AT_INT(op, p)                                                   \
    _Generic((p), int *: shmemu_devrt_##op##_i, unsigned *: shmemu_devrt_##op##_u, \
             unsigned long long *: shmemu_devrt_##op##_ull,                      \
             long long *: shmemu_devrt_##op##_ll)
#define SHMEMU__AT_ALL(op, p)                                                   \
    _Generic((p), int *: shmemu_devrt_##op##_i, unsigned *: shmemu_devrt_##op##_u, \
             unsigned long long *: shmemu_devrt_##op##_ull,                      \
             long long *: shmemu_devrt_##op##_ll, float *: shmemu_devrt_##op##_f,  \
             double *: shmemu_devrt_##op##_d)
/* The _system and _block forms are the same operations on the CPU. */
#define atomicAdd(p, v) (shmemu_devrt_at(__FILE__, __LINE__), SHMEMU__AT_ALL(add, p)((p), (v)))
#define atomicSub(p, v) (shmemu_devrt_at(__FILE__, __LINE__), SHMEMU__AT_INT(sub, p)((p), (v)))
#define atomicExch(p, v) (shmemu_devrt_at(__FILE__, __LINE__), SHMEMU__AT_ALL(exch, p)((p), (v)))
#define atomicCAS(p, c, v)                                                       \
    (shmemu_devrt_at(__FILE__, __LINE__), SHMEMU__AT_INT(cas, p)((p), (c), (v)))
#define atomicAnd(p, v) (shmemu_devrt_at(__FILE__, __LINE__), SHMEMU__AT_INT(and, p)((p), (v)))
#define atomicOr(p, v) (shmemu_devrt_at(__FILE__, __LINE__), SHMEMU__AT_INT(or, p)((p), (v)))
#define atomicXor(p, v) (shmemu_devrt_at(__FILE__, __LINE__), SHMEMU__AT_INT(xor, p)((p), (v)))
#define atomicMax(p, v) (shmemu_devrt_at(__FILE__, __LINE__), SHMEMU__AT_INT(max, p)((p), (v)))
#define atomicMin(p, v) (shmemu_devrt_at(__FILE__, __LINE__), SHMEMU__AT_INT(min, p)((p), (v)))
#define atomicAdd_system atomicAdd
#define atomicSub_system atomicSub
#define atomicExch_system atomicExch
#define atomicCAS_system atomicCAS
#define atomicAnd_system atomicAnd
#define atomicOr_system atomicOr
#define atomicXor_system atomicXor
#define atomicMax_system atomicMax
#define atomicMin_system atomicMin
#define atomicAdd_block atomicAdd
#define atomicSub_block atomicSub
#define atomicExch_block atomicExch
#define atomicCAS_block atomicCAS
#define atomicAnd_block atomicAnd
#define atomicOr_block atomicOr
#define atomicXor_block atomicXor
#define atomicMax_block atomicMax
#define atomicMin_block atomicMin

/* Inline PTX, textures and the like cannot run on the CPU: a kernel file
 * that uses them fails to build here instead of computing something else. */
#define asm _Static_assert(0, "inline PTX (asm) cannot run on the CPU transports");

/* ---- device calls (NVSHMEM's, shmemu_dev_ prefix) -------------------- */
/* Each records its source line for reports, then runs. */
int shmemu_devrt_my_pe(void);
int shmemu_devrt_n_pes(void);
void *shmemu_devrt_ptr(const void *dest, int pe);
int shmemu_devrt_team_my_pe(shmemu_team_t team);
int shmemu_devrt_team_n_pes(shmemu_team_t team);

/* Copies: *_block / *_warp are called by every thread of the block / warp
 * with the same arguments, and split the copy among them. */
void shmemu_devrt_putmem(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_getmem(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_putmem_nbi(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_getmem_nbi(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_putmem_block(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_getmem_block(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_putmem_nbi_block(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_getmem_nbi_block(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_putmem_warp(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_getmem_warp(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_putmem_nbi_warp(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_getmem_nbi_warp(void *dest, const void *src, size_t nbytes, int pe);
void shmemu_devrt_putmem_signal(void *dest, const void *src, size_t nbytes, uint64_t *sig,
                                uint64_t signal, int sig_op, int pe);
void shmemu_devrt_putmem_signal_nbi(void *dest, const void *src, size_t nbytes, uint64_t *sig,
                                    uint64_t signal, int sig_op, int pe);
void shmemu_devrt_putmem_signal_block(void *dest, const void *src, size_t nbytes,
                                      uint64_t *sig, uint64_t signal, int sig_op, int pe);
void shmemu_devrt_putmem_signal_nbi_block(void *dest, const void *src, size_t nbytes,
                                          uint64_t *sig, uint64_t signal, int sig_op, int pe);
void shmemu_devrt_signal_op(uint64_t *sig, uint64_t signal, int sig_op, int pe);
uint64_t shmemu_devrt_signal_wait_until(uint64_t *sig, int cmp, uint64_t value);
void shmemu_devrt_uint64_wait_until(uint64_t *ivar, int cmp, uint64_t value);
int shmemu_devrt_uint64_test(uint64_t *ivar, int cmp, uint64_t value);
uint64_t shmemu_devrt_signal_fetch(const uint64_t *sig);
void shmemu_devrt_fence(void);
void shmemu_devrt_quiet(void);
void shmemu_devrt_barrier_all(void);
void shmemu_devrt_sync_all(void);
void shmemu_devrt_barrier_all_block(void);
void shmemu_devrt_sync_all_block(void);
/* AMOs on uint64_t / int64_t words of PE pe (op: SHMEMU_DEV_AMO_*). */
enum { SHMEMU_DEV_AMO_FETCH, SHMEMU_DEV_AMO_SET, SHMEMU_DEV_AMO_SWAP, SHMEMU_DEV_AMO_ADD,
       SHMEMU_DEV_AMO_CSWAP };
uint64_t shmemu_devrt_amo(void *dest, int op, uint64_t value, uint64_t cond, int pe);

#define shmemu_dev_my_pe SHMEMU_DEVRT_AT(shmemu_devrt_my_pe)
#define shmemu_dev_n_pes SHMEMU_DEVRT_AT(shmemu_devrt_n_pes)
#define shmemu_dev_ptr SHMEMU_DEVRT_AT(shmemu_devrt_ptr)
#define shmemu_dev_team_my_pe SHMEMU_DEVRT_AT(shmemu_devrt_team_my_pe)
#define shmemu_dev_team_n_pes SHMEMU_DEVRT_AT(shmemu_devrt_team_n_pes)
#define shmemu_dev_putmem SHMEMU_DEVRT_AT(shmemu_devrt_putmem)
#define shmemu_dev_getmem SHMEMU_DEVRT_AT(shmemu_devrt_getmem)
#define shmemu_dev_putmem_nbi SHMEMU_DEVRT_AT(shmemu_devrt_putmem_nbi)
#define shmemu_dev_getmem_nbi SHMEMU_DEVRT_AT(shmemu_devrt_getmem_nbi)
#define shmemu_dev_putmem_block SHMEMU_DEVRT_AT(shmemu_devrt_putmem_block)
#define shmemu_dev_getmem_block SHMEMU_DEVRT_AT(shmemu_devrt_getmem_block)
#define shmemu_dev_putmem_nbi_block SHMEMU_DEVRT_AT(shmemu_devrt_putmem_nbi_block)
#define shmemu_dev_getmem_nbi_block SHMEMU_DEVRT_AT(shmemu_devrt_getmem_nbi_block)
#define shmemu_dev_putmem_warp SHMEMU_DEVRT_AT(shmemu_devrt_putmem_warp)
#define shmemu_dev_getmem_warp SHMEMU_DEVRT_AT(shmemu_devrt_getmem_warp)
#define shmemu_dev_putmem_nbi_warp SHMEMU_DEVRT_AT(shmemu_devrt_putmem_nbi_warp)
#define shmemu_dev_getmem_nbi_warp SHMEMU_DEVRT_AT(shmemu_devrt_getmem_nbi_warp)
#define shmemu_dev_putmem_signal SHMEMU_DEVRT_AT(shmemu_devrt_putmem_signal)
#define shmemu_dev_putmem_signal_nbi SHMEMU_DEVRT_AT(shmemu_devrt_putmem_signal_nbi)
#define shmemu_dev_putmem_signal_block SHMEMU_DEVRT_AT(shmemu_devrt_putmem_signal_block)
#define shmemu_dev_putmem_signal_nbi_block SHMEMU_DEVRT_AT(shmemu_devrt_putmem_signal_nbi_block)
#define shmemu_dev_signal_op SHMEMU_DEVRT_AT(shmemu_devrt_signal_op)
#define shmemu_dev_signal_wait_until SHMEMU_DEVRT_AT(shmemu_devrt_signal_wait_until)
#define shmemu_dev_signal_fetch SHMEMU_DEVRT_AT(shmemu_devrt_signal_fetch)
#define shmemu_dev_uint64_wait_until SHMEMU_DEVRT_AT(shmemu_devrt_uint64_wait_until)
#define shmemu_dev_uint64_test SHMEMU_DEVRT_AT(shmemu_devrt_uint64_test)
#define shmemu_dev_fence SHMEMU_DEVRT_AT(shmemu_devrt_fence)
#define shmemu_dev_quiet SHMEMU_DEVRT_AT(shmemu_devrt_quiet)
#define shmemu_dev_barrier_all SHMEMU_DEVRT_AT(shmemu_devrt_barrier_all)
#define shmemu_dev_sync_all SHMEMU_DEVRT_AT(shmemu_devrt_sync_all)
#define shmemu_dev_barrier_all_block SHMEMU_DEVRT_AT(shmemu_devrt_barrier_all_block)
#define shmemu_dev_sync_all_block SHMEMU_DEVRT_AT(shmemu_devrt_sync_all_block)

/* Typed single-element put (_p) and get (_g), NVSHMEM's common types. */
#define SHMEMU__DEV_PG(NAME, T)                                                 \
    static inline void shmemu_devrt_##NAME##_p(T *dest, T value, int pe)         \
    { shmemu_devrt_putmem(dest, &value, sizeof value, pe); }                     \
    static inline void shmemu_devrt_##NAME##_p_nbi(T *dest, T value, int pe)     \
    { shmemu_devrt_putmem_nbi(dest, &value, sizeof value, pe); }                 \
    static inline T shmemu_devrt_##NAME##_g(const T *src, int pe)                \
    { T v; shmemu_devrt_getmem(&v, src, sizeof v, pe); return v; }
SHMEMU__DEV_PG(char, char)
SHMEMU__DEV_PG(int, int)
SHMEMU__DEV_PG(long, long)
SHMEMU__DEV_PG(longlong, long long)
SHMEMU__DEV_PG(float, float)
SHMEMU__DEV_PG(double, double)
SHMEMU__DEV_PG(int32, int32_t)
SHMEMU__DEV_PG(int64, int64_t)
SHMEMU__DEV_PG(uint32, uint32_t)
SHMEMU__DEV_PG(uint64, uint64_t)
SHMEMU__DEV_PG(size, size_t)
#undef SHMEMU__DEV_PG
#define shmemu_dev_char_p SHMEMU_DEVRT_AT(shmemu_devrt_char_p)
#define shmemu_dev_int_p SHMEMU_DEVRT_AT(shmemu_devrt_int_p)
#define shmemu_dev_long_p SHMEMU_DEVRT_AT(shmemu_devrt_long_p)
#define shmemu_dev_longlong_p SHMEMU_DEVRT_AT(shmemu_devrt_longlong_p)
#define shmemu_dev_float_p SHMEMU_DEVRT_AT(shmemu_devrt_float_p)
#define shmemu_dev_double_p SHMEMU_DEVRT_AT(shmemu_devrt_double_p)
#define shmemu_dev_int32_p SHMEMU_DEVRT_AT(shmemu_devrt_int32_p)
#define shmemu_dev_int64_p SHMEMU_DEVRT_AT(shmemu_devrt_int64_p)
#define shmemu_dev_uint32_p SHMEMU_DEVRT_AT(shmemu_devrt_uint32_p)
#define shmemu_dev_uint64_p SHMEMU_DEVRT_AT(shmemu_devrt_uint64_p)
#define shmemu_dev_size_p SHMEMU_DEVRT_AT(shmemu_devrt_size_p)
#define shmemu_dev_char_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_char_p_nbi)
#define shmemu_dev_int_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_int_p_nbi)
#define shmemu_dev_long_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_long_p_nbi)
#define shmemu_dev_longlong_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_longlong_p_nbi)
#define shmemu_dev_float_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_float_p_nbi)
#define shmemu_dev_double_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_double_p_nbi)
#define shmemu_dev_int32_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_int32_p_nbi)
#define shmemu_dev_int64_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_int64_p_nbi)
#define shmemu_dev_uint32_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_uint32_p_nbi)
#define shmemu_dev_uint64_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_uint64_p_nbi)
#define shmemu_dev_size_p_nbi SHMEMU_DEVRT_AT(shmemu_devrt_size_p_nbi)
#define shmemu_dev_char_g SHMEMU_DEVRT_AT(shmemu_devrt_char_g)
#define shmemu_dev_int_g SHMEMU_DEVRT_AT(shmemu_devrt_int_g)
#define shmemu_dev_long_g SHMEMU_DEVRT_AT(shmemu_devrt_long_g)
#define shmemu_dev_longlong_g SHMEMU_DEVRT_AT(shmemu_devrt_longlong_g)
#define shmemu_dev_float_g SHMEMU_DEVRT_AT(shmemu_devrt_float_g)
#define shmemu_dev_double_g SHMEMU_DEVRT_AT(shmemu_devrt_double_g)
#define shmemu_dev_int32_g SHMEMU_DEVRT_AT(shmemu_devrt_int32_g)
#define shmemu_dev_int64_g SHMEMU_DEVRT_AT(shmemu_devrt_int64_g)
#define shmemu_dev_uint32_g SHMEMU_DEVRT_AT(shmemu_devrt_uint32_g)
#define shmemu_dev_uint64_g SHMEMU_DEVRT_AT(shmemu_devrt_uint64_g)
#define shmemu_dev_size_g SHMEMU_DEVRT_AT(shmemu_devrt_size_g)

/* AMOs (NVSHMEM's nvshmem_uint64_atomic_*; int64_t shares the words). */
static inline uint64_t shmemu_devrt_uint64_atomic_fetch_add(uint64_t *d, uint64_t v, int pe)
{ return shmemu_devrt_amo(d, SHMEMU_DEV_AMO_ADD, v, 0, pe); }
static inline void shmemu_devrt_uint64_atomic_add(uint64_t *d, uint64_t v, int pe)
{ (void)shmemu_devrt_amo(d, SHMEMU_DEV_AMO_ADD, v, 0, pe); }
static inline uint64_t shmemu_devrt_uint64_atomic_compare_swap(uint64_t *d, uint64_t cond,
                                                               uint64_t v, int pe)
{ return shmemu_devrt_amo(d, SHMEMU_DEV_AMO_CSWAP, v, cond, pe); }
static inline uint64_t shmemu_devrt_uint64_atomic_fetch(const uint64_t *d, int pe)
{ return shmemu_devrt_amo((void *)(uintptr_t)d, SHMEMU_DEV_AMO_FETCH, 0, 0, pe); }
static inline void shmemu_devrt_uint64_atomic_set(uint64_t *d, uint64_t v, int pe)
{ (void)shmemu_devrt_amo(d, SHMEMU_DEV_AMO_SET, v, 0, pe); }
static inline uint64_t shmemu_devrt_uint64_atomic_swap(uint64_t *d, uint64_t v, int pe)
{ return shmemu_devrt_amo(d, SHMEMU_DEV_AMO_SWAP, v, 0, pe); }
static inline int64_t shmemu_devrt_int64_atomic_fetch_add(int64_t *d, int64_t v, int pe)
{ return (int64_t)shmemu_devrt_amo(d, SHMEMU_DEV_AMO_ADD, (uint64_t)v, 0, pe); }
static inline void shmemu_devrt_int64_atomic_add(int64_t *d, int64_t v, int pe)
{ (void)shmemu_devrt_amo(d, SHMEMU_DEV_AMO_ADD, (uint64_t)v, 0, pe); }
static inline int64_t shmemu_devrt_int64_atomic_compare_swap(int64_t *d, int64_t cond,
                                                             int64_t v, int pe)
{ return (int64_t)shmemu_devrt_amo(d, SHMEMU_DEV_AMO_CSWAP, (uint64_t)v, (uint64_t)cond, pe); }
static inline int64_t shmemu_devrt_int64_atomic_fetch(const int64_t *d, int pe)
{ return (int64_t)shmemu_devrt_amo((void *)(uintptr_t)d, SHMEMU_DEV_AMO_FETCH, 0, 0, pe); }
static inline void shmemu_devrt_int64_atomic_set(int64_t *d, int64_t v, int pe)
{ (void)shmemu_devrt_amo(d, SHMEMU_DEV_AMO_SET, (uint64_t)v, 0, pe); }
static inline int64_t shmemu_devrt_int64_atomic_swap(int64_t *d, int64_t v, int pe)
{ return (int64_t)shmemu_devrt_amo(d, SHMEMU_DEV_AMO_SWAP, (uint64_t)v, 0, pe); }
#define shmemu_dev_uint64_atomic_fetch_add SHMEMU_DEVRT_AT(shmemu_devrt_uint64_atomic_fetch_add)
#define shmemu_dev_uint64_atomic_add SHMEMU_DEVRT_AT(shmemu_devrt_uint64_atomic_add)
#define shmemu_dev_uint64_atomic_compare_swap                                    \
    SHMEMU_DEVRT_AT(shmemu_devrt_uint64_atomic_compare_swap)
#define shmemu_dev_uint64_atomic_fetch SHMEMU_DEVRT_AT(shmemu_devrt_uint64_atomic_fetch)
#define shmemu_dev_uint64_atomic_set SHMEMU_DEVRT_AT(shmemu_devrt_uint64_atomic_set)
#define shmemu_dev_uint64_atomic_swap SHMEMU_DEVRT_AT(shmemu_devrt_uint64_atomic_swap)
#define shmemu_dev_int64_atomic_fetch_add SHMEMU_DEVRT_AT(shmemu_devrt_int64_atomic_fetch_add)
#define shmemu_dev_int64_atomic_add SHMEMU_DEVRT_AT(shmemu_devrt_int64_atomic_add)
#define shmemu_dev_int64_atomic_compare_swap                                     \
    SHMEMU_DEVRT_AT(shmemu_devrt_int64_atomic_compare_swap)
#define shmemu_dev_int64_atomic_fetch SHMEMU_DEVRT_AT(shmemu_devrt_int64_atomic_fetch)
#define shmemu_dev_int64_atomic_set SHMEMU_DEVRT_AT(shmemu_devrt_int64_atomic_set)
#define shmemu_dev_int64_atomic_swap SHMEMU_DEVRT_AT(shmemu_devrt_int64_atomic_swap)

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* !__CUDACC__ */

#endif /* SHMEMU_DEVICE_H */
