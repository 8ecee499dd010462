/*
 * shmemu_device.h - device-initiated communication: kernels whose threads
 * store into peers' heaps, fence, raise flags and wait, written once and
 * built two ways (docs/DEVICE.md):
 *
 *   nvcc  (the cuda transport): a real kernel; device calls are loads,
 *         stores, fences and atomics on peers' heaps mapped with CUDA IPC.
 *   cc    as C11 (local, shm, sim): each device thread is a fiber of the
 *         launching PE; threads switch at device calls, atomics, fences,
 *         __syncthreads, warp functions and (built with shmemu-devcc)
 *         inside any loop, so spin-waits between threads, blocks and PEs
 *         make progress.
 *
 * A kernel file keeps CUDA's spellings (threadIdx, blockIdx, blockDim,
 * gridDim, __syncthreads, __threadfence*, atomicAdd/CAS/Exch and their
 * _system/_block forms, __syncwarp, __shfl*_sync, __ballot/any/all_sync,
 * plain and volatile loads and stores through shmemu_dev_ptr) and uses a
 * macro for what C cannot spell:
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

#include <stdint.h>
#include <string.h>

#include "shmemu.h"

/* Scopes of fences and atomics (the PTX memory model's .cta, .gpu, .sys):
 * a PE is one GPU, so only SYSTEM orders anything for another PE. */
enum { SHMEMU_DEV_SCOPE_BLOCK, SHMEMU_DEV_SCOPE_DEVICE, SHMEMU_DEV_SCOPE_SYSTEM };

/* X(NAME, TYPE): the types of the typed single-element calls
 * (shmemu_dev_NAME_p, _p_nbi, _g), NVSHMEM's common ones. */
#define SHMEMU_DEV_PG_TYPES(X)                                                  \
    X(char, char)                                                              \
    X(int, int)                                                                \
    X(long, long)                                                              \
    X(longlong, long long)                                                     \
    X(float, float)                                                            \
    X(double, double)                                                          \
    X(int32, int32_t)                                                          \
    X(int64, int64_t)                                                          \
    X(uint32, uint32_t)                                                        \
    X(uint64, uint64_t)                                                        \
    X(size, size_t)

/* Words of the world team's workspace (uint64_t units) the device barrier
 * uses, on the CPU and the GPU alike: a count of this PE's device
 * barriers, then one arrival counter per dissemination round (coll.h
 * leaves 200..232 to it). */
enum { SHMEMU_DEVRT_W_SEQ = 200, SHMEMU_DEVRT_W_ROUND = 201, SHMEMU_DEVRT_ROUNDS = 32 };

/* What a kernel built with nvcc needs from the library: every PE's heap as
 * this PE's device addresses it (CUDA IPC mappings), and the world team's
 * workspace (the device barrier's words).  Filled on the host at each
 * launch; SHMEMU_ENOTSUP (one line) on a transport without devices. */
#define SHMEMU_DEVRT_MAX_PES 1024
struct shmemu_devrt_table {
    char *heap;
    size_t heap_size;
    uint64_t *ws;
    int me, npes;
    char *base[SHMEMU_DEVRT_MAX_PES];
};
#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
int shmemu_devrt_cuda_table(struct shmemu_devrt_table *t);
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__)
/* ======================================================= nvcc: the GPU */
/* Device calls are loads, stores, system-scope fences and atomics on the
 * peers' heaps; nothing in a kernel calls the host.  Each translation unit
 * has its own copy of the table, set before each of its launches. */
#include <cuda_runtime.h>
#include <stdio.h> /* device printf: a bad argument's line */

static __constant__ struct shmemu_devrt_table shmemu_devrt_t;

#define SHMEMU_DEVICE static __device__ __forceinline__
#define SHMEMU_HOST extern "C"
#define SHMEMU_DIM3(x, y, z) dim3((x), (y), (z))
#define SHMEMU_KERNEL(name, argtype, arg) __global__ void name(argtype arg)
#define SHMEMU_SHARED(type, name, count)                                        \
    __shared__ type name##__shmemu_shared[count];                                \
    type *name = name##__shmemu_shared

/* Launch k on the calling PE's device with the table set first; sync: wait
 * for the kernel (shmemu_launch_kernel) or only enqueue it (_on_stream).
 * coop: every block resident at once (a cooperative launch, which CUDA
 * refuses when the grid does not fit the device), else CUDA's <<<>>>. */
template <typename A>
static inline int shmemu_devrt_cuda_launch(void (*k)(A), dim3 grid, dim3 block, const A *arg,
                                           cudaStream_t stream, int sync, int coop)
{
    static struct shmemu_devrt_table t;
    const char *call = coop ? "shmemu_launch_kernel" : "shmemu_launch_kernel_plain";
    int st = shmemu_devrt_cuda_table(&t);
    if (st != SHMEMU_OK)
        return st;
    cudaError_t e = cudaMemcpyToSymbolAsync(shmemu_devrt_t, &t, sizeof(t), 0,
                                            cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess && coop) {
        void *args[] = {(void *)arg};
        e = cudaLaunchCooperativeKernel((const void *)k, grid, block, args, 0, stream);
    } else if (e == cudaSuccess) {
        k<<<grid, block, 0, stream>>>(*arg);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess && sync)
        e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess)
        return shmemu_error(SHMEMU_ENODEV, call, "%s", cudaGetErrorString(e));
    return SHMEMU_OK;
}
#define shmemu_launch_kernel(name, grid, block, argp)                          \
    shmemu_devrt_cuda_launch(name, dim3(grid), dim3(block), (argp), (cudaStream_t)0, 1, 1)
#define shmemu_launch_kernel_on_stream(name, grid, block, argp, stream)        \
    shmemu_devrt_cuda_launch(name, dim3(grid), dim3(block), (argp),             \
                             (cudaStream_t)(stream), 0, 1)
#define shmemu_launch_kernel_plain(name, grid, block, argp)                    \
    shmemu_devrt_cuda_launch(name, dim3(grid), dim3(block), (argp), (cudaStream_t)0, 1, 0)
#define shmemu_launch_kernel_plain_on_stream(name, grid, block, argp, stream)  \
    shmemu_devrt_cuda_launch(name, dim3(grid), dim3(block), (argp),             \
                             (cudaStream_t)(stream), 0, 0)

static __device__ __forceinline__ int shmemu_dev_my_pe(void) { return shmemu_devrt_t.me; }
static __device__ __forceinline__ int shmemu_dev_n_pes(void) { return shmemu_devrt_t.npes; }
/* The world team only, on the device. */
static __device__ __forceinline__ int shmemu_dev_team_my_pe(shmemu_team_t team)
{
    return team == SHMEMU_TEAM_WORLD ? shmemu_devrt_t.me : -1;
}
static __device__ __forceinline__ int shmemu_dev_team_n_pes(shmemu_team_t team)
{
    return team == SHMEMU_TEAM_WORLD ? shmemu_devrt_t.npes : -1;
}
static __device__ __forceinline__ void *shmemu_dev_ptr(const void *dest, int pe)
{
    size_t off = (size_t)((const char *)dest - shmemu_devrt_t.heap);
    if ((unsigned)pe >= (unsigned)shmemu_devrt_t.npes || off >= shmemu_devrt_t.heap_size)
        return NULL;
    return shmemu_devrt_t.base[pe] + off;
}

/* The peer address a device call acts on; a bad PE or an address outside
 * the heap prints one line (PE, block, thread, call, argument) and traps,
 * so that the launch fails instead of storing through a wild pointer. */
static __device__ __forceinline__ char *shmemu_devrt_peer(const void *sym, size_t n, int pe,
                                                          const char *call)
{
    size_t off = (size_t)((const char *)sym - shmemu_devrt_t.heap);
    if ((unsigned)pe >= (unsigned)shmemu_devrt_t.npes || off >= shmemu_devrt_t.heap_size ||
        n > shmemu_devrt_t.heap_size - off) {
        printf("shmemu: PE %d/%d block (%u,%u,%u) thread (%u,%u,%u): %s: pe %d, address %p "
               "(%llu bytes): not a PE of this job, or outside the symmetric heap\n",
               shmemu_devrt_t.me, shmemu_devrt_t.npes, blockIdx.x, blockIdx.y, blockIdx.z,
               threadIdx.x, threadIdx.y, threadIdx.z, call, pe, sym, (unsigned long long)n);
        __trap();
    }
    return shmemu_devrt_t.base[pe] + off;
}

/* A copy by the threads [r, r + g) of a group, 8 bytes at a time where
 * both ends allow. */
static __device__ __forceinline__ void shmemu_devrt_copy(char *dst, const char *src, size_t n,
                                                         unsigned r, unsigned g)
{
    if ((((uintptr_t)dst | (uintptr_t)src) & 7) == 0) {
        size_t words = n / 8;
        for (size_t i = r; i < words; i += g)
            ((volatile uint64_t *)dst)[i] = ((const volatile uint64_t *)src)[i];
        for (size_t i = words * 8 + r; i < n; i += g)
            ((volatile char *)dst)[i] = ((const volatile char *)src)[i];
    } else {
        for (size_t i = r; i < n; i += g)
            ((volatile char *)dst)[i] = ((const volatile char *)src)[i];
    }
}
static __device__ __forceinline__ unsigned shmemu_devrt_rank(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

static __device__ __forceinline__ void shmemu_dev_putmem(void *d, const void *s, size_t n, int pe)
{
    shmemu_devrt_copy(shmemu_devrt_peer(d, n, pe, "shmemu_dev_putmem"), (const char *)s, n, 0, 1);
}
static __device__ __forceinline__ void shmemu_dev_getmem(void *d, const void *s, size_t n, int pe)
{
    shmemu_devrt_copy((char *)d, shmemu_devrt_peer(s, n, pe, "shmemu_dev_getmem"), n, 0, 1);
}
#define shmemu_dev_putmem_nbi shmemu_dev_putmem
#define shmemu_dev_getmem_nbi shmemu_dev_getmem
static __device__ __forceinline__ void shmemu_dev_putmem_block(void *d, const void *s, size_t n,
                                                               int pe)
{
    shmemu_devrt_copy(shmemu_devrt_peer(d, n, pe, "shmemu_dev_putmem_block"), (const char *)s, n,
                      shmemu_devrt_rank(), blockDim.x * blockDim.y * blockDim.z);
    __syncthreads();
}
static __device__ __forceinline__ void shmemu_dev_getmem_block(void *d, const void *s, size_t n,
                                                               int pe)
{
    shmemu_devrt_copy((char *)d, shmemu_devrt_peer(s, n, pe, "shmemu_dev_getmem_block"), n,
                      shmemu_devrt_rank(), blockDim.x * blockDim.y * blockDim.z);
    __syncthreads();
}
#define shmemu_dev_putmem_nbi_block shmemu_dev_putmem_block
#define shmemu_dev_getmem_nbi_block shmemu_dev_getmem_block
static __device__ __forceinline__ void shmemu_dev_putmem_warp(void *d, const void *s, size_t n,
                                                              int pe)
{
    shmemu_devrt_copy(shmemu_devrt_peer(d, n, pe, "shmemu_dev_putmem_warp"), (const char *)s, n,
                      shmemu_devrt_rank() % warpSize, warpSize);
    __syncwarp();
}
static __device__ __forceinline__ void shmemu_dev_getmem_warp(void *d, const void *s, size_t n,
                                                              int pe)
{
    shmemu_devrt_copy((char *)d, shmemu_devrt_peer(s, n, pe, "shmemu_dev_getmem_warp"), n,
                      shmemu_devrt_rank() % warpSize, warpSize);
    __syncwarp();
}
#define shmemu_dev_putmem_nbi_warp shmemu_dev_putmem_warp
#define shmemu_dev_getmem_nbi_warp shmemu_dev_getmem_warp

static __device__ __forceinline__ void shmemu_dev_fence(void) { __threadfence_system(); }
static __device__ __forceinline__ void shmemu_dev_quiet(void) { __threadfence_system(); }

static __device__ __forceinline__ void shmemu_devrt_signal(uint64_t *sig, uint64_t v, int op,
                                                           int pe)
{
    unsigned long long *w =
        (unsigned long long *)shmemu_devrt_peer(sig, 8, pe, "shmemu_dev_signal_op");
    if (op == SHMEMU_SIGNAL_ADD)
        atomicAdd_system(w, (unsigned long long)v);
    else
        atomicExch_system(w, (unsigned long long)v);
}
static __device__ __forceinline__ void shmemu_dev_signal_op(uint64_t *sig, uint64_t v, int op,
                                                            int pe)
{
    shmemu_devrt_signal(sig, v, op, pe);
}
static __device__ __forceinline__ void shmemu_dev_putmem_signal(void *d, const void *s, size_t n,
                                                                uint64_t *sig, uint64_t v,
                                                                int op, int pe)
{
    shmemu_dev_putmem(d, s, n, pe);
    __threadfence_system(); /* the data before the signal */
    shmemu_devrt_signal(sig, v, op, pe);
}
#define shmemu_dev_putmem_signal_nbi shmemu_dev_putmem_signal
static __device__ __forceinline__ void shmemu_dev_putmem_signal_block(void *d, const void *s,
                                                                      size_t n, uint64_t *sig,
                                                                      uint64_t v, int op, int pe)
{
    shmemu_devrt_copy(shmemu_devrt_peer(d, n, pe, "shmemu_dev_putmem_signal_block"),
                      (const char *)s, n, shmemu_devrt_rank(), blockDim.x * blockDim.y * blockDim.z);
    __threadfence_system();
    __syncthreads(); /* every slice ordered before thread 0's signal */
    if (shmemu_devrt_rank() == 0)
        shmemu_devrt_signal(sig, v, op, pe);
    __syncthreads();
}
#define shmemu_dev_putmem_signal_nbi_block shmemu_dev_putmem_signal_block

static __device__ __forceinline__ int shmemu_devrt_cmp(uint64_t v, int cmp, uint64_t value)
{
    switch (cmp) {
    case SHMEMU_CMP_EQ: return v == value;
    case SHMEMU_CMP_NE: return v != value;
    case SHMEMU_CMP_GT: return v > value;
    case SHMEMU_CMP_GE: return v >= value;
    case SHMEMU_CMP_LT: return v < value;
    default: return v <= value;
    }
}
static __device__ __forceinline__ uint64_t shmemu_dev_signal_fetch(const uint64_t *sig)
{
    uint64_t v = *(const volatile uint64_t *)sig;
    __threadfence_system();
    return v;
}
static __device__ __forceinline__ uint64_t shmemu_dev_signal_wait_until(uint64_t *sig, int cmp,
                                                                        uint64_t value)
{
    uint64_t v;
    while (!shmemu_devrt_cmp(v = *(volatile uint64_t *)sig, cmp, value)) {
    }
    __threadfence_system(); /* what the signal announced, after it */
    return v;
}
static __device__ __forceinline__ void shmemu_dev_uint64_wait_until(uint64_t *ivar, int cmp,
                                                                    uint64_t value)
{
    (void)shmemu_dev_signal_wait_until(ivar, cmp, value);
}
static __device__ __forceinline__ int shmemu_dev_uint64_test(uint64_t *ivar, int cmp,
                                                             uint64_t value)
{
    int ok = shmemu_devrt_cmp(*(volatile uint64_t *)ivar, cmp, value);
    __threadfence_system();
    return ok;
}

/* Typed single elements. */
#define SHMEMU__DEV_PG(NAME, T)                                                 \
    static __device__ __forceinline__ void shmemu_dev_##NAME##_p(T *d, T v, int pe) \
    { *(volatile T *)shmemu_devrt_peer(d, sizeof(T), pe, "shmemu_dev_" #NAME "_p") = v; } \
    static __device__ __forceinline__ void shmemu_dev_##NAME##_p_nbi(T *d, T v, int pe) \
    { *(volatile T *)shmemu_devrt_peer(d, sizeof(T), pe, "shmemu_dev_" #NAME "_p_nbi") = v; } \
    static __device__ __forceinline__ T shmemu_dev_##NAME##_g(const T *s, int pe) \
    { return *(const volatile T *)shmemu_devrt_peer(s, sizeof(T), pe, "shmemu_dev_" #NAME "_g"); }
SHMEMU_DEV_PG_TYPES(SHMEMU__DEV_PG)
#undef SHMEMU__DEV_PG

/* AMOs: system-scope atomics on the peer's word. */
#define SHMEMU__DEV_AMO(NAME, T)                                                \
    static __device__ __forceinline__ unsigned long long *shmemu_devrt_w_##NAME(const T *d, int pe) \
    { return (unsigned long long *)shmemu_devrt_peer(d, 8, pe, "shmemu_dev_" #NAME "_atomic"); } \
    static __device__ __forceinline__ T shmemu_dev_##NAME##_atomic_fetch_add(T *d, T v, int pe) \
    { return (T)atomicAdd_system(shmemu_devrt_w_##NAME(d, pe), (unsigned long long)v); } \
    static __device__ __forceinline__ void shmemu_dev_##NAME##_atomic_add(T *d, T v, int pe) \
    { (void)atomicAdd_system(shmemu_devrt_w_##NAME(d, pe), (unsigned long long)v); } \
    static __device__ __forceinline__ T shmemu_dev_##NAME##_atomic_compare_swap(T *d, T c, T v, \
                                                                               int pe) \
    { return (T)atomicCAS_system(shmemu_devrt_w_##NAME(d, pe), (unsigned long long)c, \
                                 (unsigned long long)v); }                      \
    static __device__ __forceinline__ T shmemu_dev_##NAME##_atomic_fetch(const T *d, int pe) \
    { return (T)atomicOr_system(shmemu_devrt_w_##NAME(d, pe), 0ull); }          \
    static __device__ __forceinline__ void shmemu_dev_##NAME##_atomic_set(T *d, T v, int pe) \
    { (void)atomicExch_system(shmemu_devrt_w_##NAME(d, pe), (unsigned long long)v); } \
    static __device__ __forceinline__ T shmemu_dev_##NAME##_atomic_swap(T *d, T v, int pe) \
    { return (T)atomicExch_system(shmemu_devrt_w_##NAME(d, pe), (unsigned long long)v); }
SHMEMU__DEV_AMO(uint64, uint64_t)
SHMEMU__DEV_AMO(int64, int64_t)
#undef SHMEMU__DEV_AMO

/* The device barrier: the CPU side's dissemination (src/device/calls.c)
 * over the same words. */
static __device__ __forceinline__ void shmemu_dev_sync_all(void)
{
    uint64_t *ws = shmemu_devrt_t.ws;
    int me = shmemu_devrt_t.me, n = shmemu_devrt_t.npes;
    unsigned long long seq = atomicAdd((unsigned long long *)&ws[SHMEMU_DEVRT_W_SEQ], 1ull) + 1;
    for (int r = 0, d = 1; d < n && r < SHMEMU_DEVRT_ROUNDS; r++, d <<= 1) {
        uint64_t *w = &ws[SHMEMU_DEVRT_W_ROUND + r];
        atomicAdd_system((unsigned long long *)shmemu_dev_ptr(w, (me + d) % n), 1ull);
        while (*(volatile uint64_t *)w < seq) {
        }
    }
    __threadfence_system();
}
static __device__ __forceinline__ void shmemu_dev_barrier_all(void)
{
    __threadfence_system();
    shmemu_dev_sync_all();
}
static __device__ __forceinline__ void shmemu_dev_sync_all_block(void)
{
    __syncthreads();
    if (shmemu_devrt_rank() == 0)
        shmemu_dev_sync_all();
    __syncthreads();
}
static __device__ __forceinline__ void shmemu_dev_barrier_all_block(void)
{
    __threadfence_system();
    shmemu_dev_sync_all_block();
}
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

/* CUDA's vector types (vector_types.h), with its sizes and alignments, so
 * that the 8- and 16-byte loads and stores kernels move data with
 * (float4, uint4, int2...) build for the CPU too, and make_TYPEn() as
 * CUDA's.  The 64-bit types come in 2s: CUDA 13 deprecates their 4s. */
#define SHMEMU_VEC2(n, t, al)                                                    \
    typedef struct n##2 { _Alignas(al) t x; t y; } n##2;                         \
    static inline n##2 make_##n##2(t x, t y) { return (n##2){x, y}; }
#define SHMEMU_VEC3(n, t, al)                                                    \
    typedef struct n##3 { _Alignas(al) t x; t y, z; } n##3;                      \
    static inline n##3 make_##n##3(t x, t y, t z) { return (n##3){x, y, z}; }
#define SHMEMU_VEC4(n, t, al)                                                    \
    typedef struct n##4 { _Alignas(al) t x; t y, z, w; } n##4;                   \
    static inline n##4 make_##n##4(t x, t y, t z, t w) { return (n##4){x, y, z, w}; }
/* the 8-, 16- and 32-bit types: in 2, 3 and 4, aligned as CUDA aligns them */
#define SHMEMU_VEC234(n, t, a2, a3, a4)                                          \
    SHMEMU_VEC2(n, t, a2) SHMEMU_VEC3(n, t, a3) SHMEMU_VEC4(n, t, a4)
SHMEMU_VEC234(char, char, 2, 1, 4)
SHMEMU_VEC234(uchar, unsigned char, 2, 1, 4)
SHMEMU_VEC234(short, short, 4, 2, 8)
SHMEMU_VEC234(ushort, unsigned short, 4, 2, 8)
SHMEMU_VEC234(int, int, 8, 4, 16)
SHMEMU_VEC234(uint, unsigned int, 8, 4, 16)
SHMEMU_VEC234(float, float, 8, 4, 16)
SHMEMU_VEC2(long, long, 16)
SHMEMU_VEC2(ulong, unsigned long, 16)
SHMEMU_VEC2(longlong, long long, 16)
SHMEMU_VEC2(ulonglong, unsigned long long, 16)
SHMEMU_VEC2(double, double, 16)
#undef SHMEMU_VEC234
#undef SHMEMU_VEC4
#undef SHMEMU_VEC3
#undef SHMEMU_VEC2

/** The calling device thread as a kernel sees it. */
struct shmemu_dev_self {
    shmemu_dim3 thread_idx, block_idx, block_dim, grid_dim;
    const char *file; /* the device call it is in (for reports) */
    int line;
    int atomic_scope; /* of the atomic it is in: SHMEMU_DEV_SCOPE_* */
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
    if (n > 0xffffffffull) /* a negative int, or too large: refused by the launch, */
        d.x = d.y = d.z = 0; /* which says so (a count gives y and z of 1) */
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

/** As CUDA's kernel<<<grid, block>>>: no promise that the blocks run at
 *  once.  Here they run as room frees up, at most SHMEMU_DEVICE_RESIDENT
 *  at a time (1 by default, all that CUDA promises), so a kernel whose
 *  blocks wait for each other stalls, and the job's deadlock detection
 *  ends it naming this rule.  Otherwise as shmemu_launch_kernel. */
#define shmemu_launch_kernel_plain(name, grid, block, argp)                    \
    shmemu_devrt_launch_plain(&name##__shmemu_kernel, SHMEMU_DIM3_OF(grid),      \
                              SHMEMU_DIM3_OF(block), (argp), sizeof *(argp), NULL)
/** The same, enqueued on a CUDA stream under nvcc; here it runs at once. */
#define shmemu_launch_kernel_plain_on_stream(name, grid, block, argp, stream)  \
    shmemu_devrt_launch_plain(&name##__shmemu_kernel, SHMEMU_DIM3_OF(grid),      \
                              SHMEMU_DIM3_OF(block), (argp), sizeof *(argp), (stream))

int shmemu_devrt_launch(const struct shmemu_kernel *k, shmemu_dim3 grid, shmemu_dim3 block,
                        const void *arg, size_t arg_size, void *stream);
int shmemu_devrt_launch_plain(const struct shmemu_kernel *k, shmemu_dim3 grid,
                              shmemu_dim3 block, const void *arg, size_t arg_size,
                              void *stream);
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
/* The same for an atomic, with its scope (the checker's rules differ). */
static inline int shmemu_devrt_at_scope(const char *file, int line, int scope)
{
    struct shmemu_dev_self *s = shmemu_devrt_self;
    if (s->grid_dim.x) {
        s->file = file;
        s->line = line;
        s->atomic_scope = scope;
    }
    return 0;
}

/* ---- intrinsics: barriers, fences, atomics --------------------------- */
void shmemu_devrt_syncthreads(void);
void shmemu_devrt_fence_scope(int scope);
/* A scheduling point before an atomic (another thread may run first),
 * and the atomic done: whether it changed the word (an atomic that leaves
 * it as it was, again and again, is a spin), and what the checker learns
 * from the value it read. */
void shmemu_devrt_point(const void *addr);
void shmemu_devrt_done(const void *addr, int changed);

#define __syncthreads() (shmemu_devrt_at(__FILE__, __LINE__), shmemu_devrt_syncthreads())
#define __threadfence_block()                                                    \
    (shmemu_devrt_at(__FILE__, __LINE__), shmemu_devrt_fence_scope(SHMEMU_DEV_SCOPE_BLOCK))
#define __threadfence()                                                          \
    (shmemu_devrt_at(__FILE__, __LINE__), shmemu_devrt_fence_scope(SHMEMU_DEV_SCOPE_DEVICE))
#define __threadfence_system()                                                   \
    (shmemu_devrt_at(__FILE__, __LINE__), shmemu_devrt_fence_scope(SHMEMU_DEV_SCOPE_SYSTEM))

/* ---- warp functions: __syncwarp, __shfl*_sync, __ballot/any/all_sync ---
 * The threads named in mask meet (each calls with the same mask, as CUDA
 * requires), and each gets its result: a lane's value (shuffles, of up to
 * 8 bytes: integers, float, double), the mask of lanes whose predicate
 * holds (ballot), or whether any or all hold. */
enum {
    SHMEMU_WARP_SYNC,
    SHMEMU_WARP_SHFL,
    SHMEMU_WARP_SHFL_UP,
    SHMEMU_WARP_SHFL_DOWN,
    SHMEMU_WARP_SHFL_XOR,
    SHMEMU_WARP_BALLOT,
    SHMEMU_WARP_ANY,
    SHMEMU_WARP_ALL
};
uint64_t shmemu_devrt_warp(int kind, unsigned mask, uint64_t v, int arg, int width);

#define SHMEMU__WARP_SHFL_T(T, tag)                                                   \
    static inline T shmemu_devrt_shfl_##tag(int kind, unsigned mask, T v, int arg, int width) \
    {                                                                                 \
        uint64_t b_ = 0;                                                              \
        memcpy(&b_, &v, sizeof(v));                                                   \
        b_ = shmemu_devrt_warp(kind, mask, b_, arg, width);                           \
        memcpy(&v, &b_, sizeof(v));                                                   \
        return v;                                                                     \
    }
SHMEMU__WARP_SHFL_T(int, i)
SHMEMU__WARP_SHFL_T(unsigned, u)
SHMEMU__WARP_SHFL_T(long, l)
SHMEMU__WARP_SHFL_T(unsigned long, ul)
SHMEMU__WARP_SHFL_T(long long, ll)
SHMEMU__WARP_SHFL_T(unsigned long long, ull)
SHMEMU__WARP_SHFL_T(float, f)
SHMEMU__WARP_SHFL_T(double, d)
#undef SHMEMU__WARP_SHFL_T

#define SHMEMU__WARP_SHFL(kind, mask, var, arg, width)                                \
    (shmemu_devrt_at(__FILE__, __LINE__),                                             \
     _Generic((var),                                                                  \
         unsigned: shmemu_devrt_shfl_u,                                               \
         long: shmemu_devrt_shfl_l,                                                   \
         unsigned long: shmemu_devrt_shfl_ul,                                         \
         long long: shmemu_devrt_shfl_ll,                                             \
         unsigned long long: shmemu_devrt_shfl_ull,                                   \
         float: shmemu_devrt_shfl_f,                                                  \
         double: shmemu_devrt_shfl_d,                                                 \
         default: shmemu_devrt_shfl_i)((kind), (mask), (var), (int)(arg), (int)(width)))
/* The optional last argument, width (warpSize when left out). */
#define SHMEMU__WARP_A1(a, ...) a
#define SHMEMU__WARP_A2(a, b, ...) b
#define SHMEMU__WARP_SHFL_ARGS(kind, mask, var, ...)                                 \
    SHMEMU__WARP_SHFL(kind, mask, var, SHMEMU__WARP_A1(__VA_ARGS__, 0),                \
                      SHMEMU__WARP_A2(__VA_ARGS__, 32, 0))
#define __shfl_sync(mask, var, ...) SHMEMU__WARP_SHFL_ARGS(SHMEMU_WARP_SHFL, mask, var, __VA_ARGS__)
#define __shfl_up_sync(mask, var, ...)                                                \
    SHMEMU__WARP_SHFL_ARGS(SHMEMU_WARP_SHFL_UP, mask, var, __VA_ARGS__)
#define __shfl_down_sync(mask, var, ...)                                              \
    SHMEMU__WARP_SHFL_ARGS(SHMEMU_WARP_SHFL_DOWN, mask, var, __VA_ARGS__)
#define __shfl_xor_sync(mask, var, ...)                                               \
    SHMEMU__WARP_SHFL_ARGS(SHMEMU_WARP_SHFL_XOR, mask, var, __VA_ARGS__)
/* __syncwarp() or __syncwarp(mask): the last of {full mask, mask}. */
#define SHMEMU__WARP_MASK(...)                                                        \
    ((unsigned[]){0xffffffffu, __VA_ARGS__}[sizeof((unsigned[]){0xffffffffu, __VA_ARGS__}) / \
                                                sizeof(unsigned) - 1])
#define __syncwarp(...)                                                               \
    ((void)(shmemu_devrt_at(__FILE__, __LINE__),                                      \
            shmemu_devrt_warp(SHMEMU_WARP_SYNC, SHMEMU__WARP_MASK(__VA_ARGS__), 0, 0, 32)))
#define __ballot_sync(mask, pred)                                                     \
    ((unsigned)(shmemu_devrt_at(__FILE__, __LINE__),                                  \
                shmemu_devrt_warp(SHMEMU_WARP_BALLOT, (mask), (pred) != 0, 0, 32)))
#define __any_sync(mask, pred)                                                        \
    ((int)(shmemu_devrt_at(__FILE__, __LINE__),                                       \
           shmemu_devrt_warp(SHMEMU_WARP_ANY, (mask), (pred) != 0, 0, 32)))
#define __all_sync(mask, pred)                                                        \
    ((int)(shmemu_devrt_at(__FILE__, __LINE__),                                       \
           shmemu_devrt_warp(SHMEMU_WARP_ALL, (mask), (pred) != 0, 0, 32)))

/* Atomics of CUDA's types: each is one indivisible read-modify-write that
 * returns the old value (relaxed, as CUDA's; order them with fences). */
#define SHMEMU__ATOMIC_INT(T, tag)                                             \
    static inline T shmemu_devrt_add_##tag(T *p, T v)                          \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        T o_ = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                     \
        shmemu_devrt_done(p, v != 0);                                          \
        return o_;                                                             \
    }                                                                          \
    static inline T shmemu_devrt_sub_##tag(T *p, T v)                          \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        T o_ = __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);                     \
        shmemu_devrt_done(p, v != 0);                                          \
        return o_;                                                             \
    }                                                                          \
    static inline T shmemu_devrt_exch_##tag(T *p, T v)                         \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        T o_ = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                    \
        shmemu_devrt_done(p, o_ != v);                                         \
        return o_;                                                             \
    }                                                                          \
    static inline T shmemu_devrt_cas_##tag(T *p, T cmp, T v)                   \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        T want = cmp;                                                          \
        __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_SEQ_CST,           \
                                    __ATOMIC_SEQ_CST);                         \
        shmemu_devrt_done(p, cmp == want && v != want);                        \
        return cmp;                                                            \
    }                                                                          \
    static inline T shmemu_devrt_and_##tag(T *p, T v)                          \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        T o_ = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                     \
        shmemu_devrt_done(p, (o_ & v) != o_);                                  \
        return o_;                                                             \
    }                                                                          \
    static inline T shmemu_devrt_or_##tag(T *p, T v)                           \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        T o_ = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                      \
        shmemu_devrt_done(p, (o_ | v) != o_);                                  \
        return o_;                                                             \
    }                                                                          \
    static inline T shmemu_devrt_xor_##tag(T *p, T v)                          \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        T o_ = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                     \
        shmemu_devrt_done(p, v != 0);                                          \
        return o_;                                                             \
    }                                                                          \
    static inline T shmemu_devrt_max_##tag(T *p, T v)                          \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        T o = __atomic_load_n(p, __ATOMIC_SEQ_CST);                            \
        while (o < v &&                                                        \
               !__atomic_compare_exchange_n(p, &o, v, 1, __ATOMIC_SEQ_CST,     \
                                            __ATOMIC_SEQ_CST)) {}              \
        shmemu_devrt_done(p, o < v);                                           \
        return o;                                                              \
    }                                                                          \
    static inline T shmemu_devrt_min_##tag(T *p, T v)                          \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        T o = __atomic_load_n(p, __ATOMIC_SEQ_CST);                            \
        while (o > v &&                                                        \
               !__atomic_compare_exchange_n(p, &o, v, 1, __ATOMIC_SEQ_CST,     \
                                            __ATOMIC_SEQ_CST)) {}              \
        shmemu_devrt_done(p, o > v);                                           \
        return o;                                                              \
    }
SHMEMU__ATOMIC_INT(int, i)
SHMEMU__ATOMIC_INT(unsigned, u)
SHMEMU__ATOMIC_INT(unsigned long long, ull)
SHMEMU__ATOMIC_INT(long long, ll)
#undef SHMEMU__ATOMIC_INT

/* Floating add and exchange: a compare-and-swap on the bits. */
#define SHMEMU__ATOMIC_FP(T, U, tag)                                           \
    static inline T shmemu_devrt_add_##tag(T *p, T v)                          \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        U *w = (U *)(void *)p, o = __atomic_load_n(w, __ATOMIC_SEQ_CST), n;    \
        T f, g;                                                                \
        do {                                                                   \
            __builtin_memcpy(&f, &o, sizeof f);                                \
            g = f + v;                                                         \
            __builtin_memcpy(&n, &g, sizeof n);                                \
        } while (!__atomic_compare_exchange_n(w, &o, n, 1, __ATOMIC_SEQ_CST,   \
                                              __ATOMIC_SEQ_CST));              \
        shmemu_devrt_done(p, n != o);                                          \
        return f;                                                              \
    }                                                                          \
    static inline T shmemu_devrt_exch_##tag(T *p, T v)                         \
    {                                                                          \
        shmemu_devrt_point(p);                                                 \
        U n, o;                                                                \
        T f;                                                                   \
        __builtin_memcpy(&n, &v, sizeof n);                                    \
        o = __atomic_exchange_n((U *)(void *)p, n, __ATOMIC_SEQ_CST);          \
        __builtin_memcpy(&f, &o, sizeof f);                                    \
        shmemu_devrt_done(p, n != o);                                          \
        return f;                                                              \
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
/* The _system and _block forms are the same operations on the CPU; the
 * checker tells them apart (a flag read with an atomic of device or block
 * scope synchronizes with nothing on another GPU: docs/CHECK.md). */
#define SHMEMU__ATOMIC2(gen, op, scope, p, v)                                   \
    (shmemu_devrt_at_scope(__FILE__, __LINE__, SHMEMU_DEV_SCOPE_##scope),        \
     gen(op, p)((p), (v)))
#define SHMEMU__ATOMIC3(gen, op, scope, p, c, v)                                \
    (shmemu_devrt_at_scope(__FILE__, __LINE__, SHMEMU_DEV_SCOPE_##scope),        \
     gen(op, p)((p), (c), (v)))
#define atomicAdd(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_ALL, add, DEVICE, p, v)
#define atomicSub(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, sub, DEVICE, p, v)
#define atomicExch(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_ALL, exch, DEVICE, p, v)
#define atomicCAS(p, c, v) SHMEMU__ATOMIC3(SHMEMU__AT_INT, cas, DEVICE, p, c, v)
#define atomicAnd(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, and, DEVICE, p, v)
#define atomicOr(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, or, DEVICE, p, v)
#define atomicXor(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, xor, DEVICE, p, v)
#define atomicMax(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, max, DEVICE, p, v)
#define atomicMin(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, min, DEVICE, p, v)
#define atomicAdd_system(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_ALL, add, SYSTEM, p, v)
#define atomicSub_system(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, sub, SYSTEM, p, v)
#define atomicExch_system(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_ALL, exch, SYSTEM, p, v)
#define atomicCAS_system(p, c, v) SHMEMU__ATOMIC3(SHMEMU__AT_INT, cas, SYSTEM, p, c, v)
#define atomicAnd_system(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, and, SYSTEM, p, v)
#define atomicOr_system(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, or, SYSTEM, p, v)
#define atomicXor_system(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, xor, SYSTEM, p, v)
#define atomicMax_system(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, max, SYSTEM, p, v)
#define atomicMin_system(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, min, SYSTEM, p, v)
#define atomicAdd_block(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_ALL, add, BLOCK, p, v)
#define atomicSub_block(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, sub, BLOCK, p, v)
#define atomicExch_block(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_ALL, exch, BLOCK, p, v)
#define atomicCAS_block(p, c, v) SHMEMU__ATOMIC3(SHMEMU__AT_INT, cas, BLOCK, p, c, v)
#define atomicAnd_block(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, and, BLOCK, p, v)
#define atomicOr_block(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, or, BLOCK, p, v)
#define atomicXor_block(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, xor, BLOCK, p, v)
#define atomicMax_block(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, max, BLOCK, p, v)
#define atomicMin_block(p, v) SHMEMU__ATOMIC2(SHMEMU__AT_INT, min, BLOCK, p, v)

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
SHMEMU_DEV_PG_TYPES(SHMEMU__DEV_PG)
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

/* ---- 16-bit floats, the same code on the device and the CPU ----------- */
/* (memcpy for the bit casts: defined in C, C++ and CUDA device code.) */

/** IEEE binary16 bits as a float (exact). */
SHMEMU_DEVICE float shmemu_dev_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    uint32_t bits = sign;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13); /* inf, nan */
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man) { /* subnormal: normalise */
        int e = -1;
        do {
            man <<= 1;
            e++;
        } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/** A float to binary16, rounding to nearest even (a NaN stays a quiet NaN). */
SHMEMU_DEVICE uint16_t shmemu_dev_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, abs = x & 0x7fffffff;
    if (abs >= 0x7f800000u)
        return (uint16_t)(sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 | ((abs >> 13) & 0x3ff) : 0));
    if (abs >= 0x477ff000u) /* rounds to more than 65504 */
        return (uint16_t)(sign | 0x7c00);
    if (abs < 0x38800000u) { /* below the smallest normal: subnormal or 0 */
        if (abs < 0x33000000u)
            return (uint16_t)sign;
        uint32_t man = (abs & 0x7fffff) | 0x800000;
        int shift = 126 - (int)(abs >> 23);
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        half += rem > mid || (rem == mid && (half & 1));
        return (uint16_t)(sign | half);
    }
    uint32_t half = (abs - 0x38000000u) >> 13, rem = abs & 0x1fff;
    half += rem > 0x1000 || (rem == 0x1000 && (half & 1));
    return (uint16_t)(sign | half);
}

/** bfloat16 bits as a float (exact). */
SHMEMU_DEVICE float shmemu_dev_bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/** A float to bfloat16, rounding to nearest even (a NaN stays a quiet NaN). */
SHMEMU_DEVICE uint16_t shmemu_dev_float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

#endif /* SHMEMU_DEVICE_H */
