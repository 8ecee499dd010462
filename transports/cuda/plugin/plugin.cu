/*
 * plugin.cu - libshmemu-cuda.so: every CUDA call of the cuda transport
 * (plugin.h says what each member promises).
 *
 * One PE per process, one non-blocking stream per PE: everything a PE
 * issues is ordered on it, which gives fence's per-PE order for free and
 * makes a signal follow its data.  Atomics and signals are one-thread
 * kernels with system-scope atomics (other processes' PEs map the same
 * words through CUDA IPC).  The reduction kernels give the same bits as
 * shmemu's CPU kernels (src/api/ops.c): integer arithmetic wraps, 16-bit
 * floats are widened, combined in float and rounded to nearest even, min
 * and max follow IEEE 754-2019 minimum/maximum with the default NaN, and a
 * NaN produced by + or * is the one an x86 CPU produces.
 */
#include <cuda_runtime.h>
#include <unistd.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plugin.h"
#include "shmemu.h"
#include "shmemu_device.h" /* the 16-bit float conversions */

#define HEAP_ALIGN ((size_t)2 << 20) /* heap bases: what cudaMalloc may not give */
#define STAGE_BYTES ((size_t)8 << 20) /* per operand, for host operands of reduce */

struct shmemu_cuda_pe {
    int device;
    cudaStream_t stream;
    cudaEvent_t done;
    char *raw;           /* the allocation; the heap starts HEAP_ALIGN-aligned in it */
    char *heap;
    size_t heap_size;
    unsigned long long *result_host; /* pinned, mapped: an atomic's old value */
    unsigned long long *result_dev;
    char *stage;         /* 3 * STAGE_BYTES of device memory, made on first use */
    void **imported;     /* raw bases of peers' heaps opened with IPC */
    int nimported, capimported;
};

/* What an exported heap carries beside CUDA's handle. */
struct handle {
    cudaIpcMemHandle_t ipc;
};
static_assert(sizeof(struct handle) <= SHMEMU_CUDA_HANDLE_BYTES, "handle size");

/* Translate a CUDA error once, here: "<call>: <CUDA's string>". */
static int fail(cudaError_t err, const char *call, char *why, size_t len)
{
    (void)cudaGetLastError(); /* clear a sticky launch error for the next call */
    snprintf(why, len, "%s: %s", call, cudaGetErrorString(err));
    switch (err) {
    case cudaErrorMemoryAllocation:
        return SHMEMU_ENOMEM;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidDevice:
        return SHMEMU_EINVAL;
    default:
        return SHMEMU_ENODEV;
    }
}

#define CK(call, name)                                                         \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess)                                                 \
            return fail(e_, name, why, len);                                   \
    } while (0)

/* ------------------------------------------------------------- lifecycle */

static int p_probe(int *ndev_p, char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        /* Without a loaded driver CUDA answers "driver version is
         * insufficient", which sends people upgrading a driver they do
         * not have: say what is missing first. */
        int no_driver = (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) &&
                        access("/proc/driver/nvidia/version", F_OK) != 0;
        snprintf(why, len, "no device (%s%s)", no_driver ? "no NVIDIA driver is loaded; CUDA: " : "",
                 cudaGetErrorString(e));
        return SHMEMU_ENODEV;
    }
    if (n < 1) {
        snprintf(why, len, "no device (cudaGetDeviceCount found none)");
        return SHMEMU_ENODEV;
    }
    *ndev_p = n;
    return SHMEMU_OK;
}

static void p_pe_close(struct shmemu_cuda_pe *pe)
{
    if (!pe)
        return;
    cudaSetDevice(pe->device);
    if (pe->stream)
        cudaStreamSynchronize(pe->stream);
    for (int i = 0; i < pe->nimported; i++)
        cudaIpcCloseMemHandle(pe->imported[i]);
    free(pe->imported);
    if (pe->stage)
        cudaFree(pe->stage);
    if (pe->result_host)
        cudaFreeHost(pe->result_host);
    if (pe->raw)
        cudaFree(pe->raw);
    if (pe->done)
        cudaEventDestroy(pe->done);
    if (pe->stream)
        cudaStreamDestroy(pe->stream);
    free(pe);
}

static int open_pe(struct shmemu_cuda_pe *pe, int device, size_t heap_size, char *why,
                   size_t len)
{
    pe->device = device;
    pe->heap_size = heap_size;
    CK(cudaSetDevice(device), "cudaSetDevice");
    CK(cudaStreamCreateWithFlags(&pe->stream, cudaStreamNonBlocking),
       "cudaStreamCreateWithFlags");
    CK(cudaEventCreateWithFlags(&pe->done, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    CK(cudaMalloc((void **)&pe->raw, heap_size + HEAP_ALIGN), "cudaMalloc(heap)");
    pe->heap = (char *)(((uintptr_t)pe->raw + HEAP_ALIGN - 1) & ~(uintptr_t)(HEAP_ALIGN - 1));
    CK(cudaMemsetAsync(pe->heap, 0, heap_size, pe->stream), "cudaMemsetAsync(heap)");
    CK(cudaHostAlloc((void **)&pe->result_host, 64, cudaHostAllocMapped), "cudaHostAlloc");
    CK(cudaHostGetDevicePointer((void **)&pe->result_dev, pe->result_host, 0),
       "cudaHostGetDevicePointer");
    CK(cudaStreamSynchronize(pe->stream), "cudaStreamSynchronize");
    return SHMEMU_OK;
}

static int p_pe_open(int device, size_t heap_size, struct shmemu_cuda_pe **pe_p, void **heap_p,
                     char *why, size_t len)
{
    struct shmemu_cuda_pe *pe = (struct shmemu_cuda_pe *)calloc(1, sizeof(*pe));
    if (!pe) {
        snprintf(why, len, "out of host memory");
        return SHMEMU_ENOMEM;
    }
    int st = open_pe(pe, device, heap_size, why, len);
    if (st != SHMEMU_OK) {
        p_pe_close(pe);
        return st;
    }
    *pe_p = pe;
    *heap_p = pe->heap;
    return SHMEMU_OK;
}

static int p_heap_export(struct shmemu_cuda_pe *pe, void *out, char *why, size_t len)
{
    struct handle h;
    memset(&h, 0, sizeof(h));
    CK(cudaIpcGetMemHandle(&h.ipc, pe->raw), "cudaIpcGetMemHandle");
    memcpy(out, &h, sizeof(h));
    return SHMEMU_OK;
}

static int p_heap_import(struct shmemu_cuda_pe *pe, const void *in, void **base_p, char *why,
                         size_t len)
{
    struct handle h;
    memcpy(&h, in, sizeof(h));
    if (pe->nimported == pe->capimported) {
        int cap = pe->capimported ? 2 * pe->capimported : 8;
        void **v = (void **)realloc(pe->imported, (size_t)cap * sizeof(void *));
        if (!v) {
            snprintf(why, len, "out of host memory");
            return SHMEMU_ENOMEM;
        }
        pe->imported = v;
        pe->capimported = cap;
    }
    void *raw;
    CK(cudaIpcOpenMemHandle(&raw, h.ipc, cudaIpcMemLazyEnablePeerAccess),
       "cudaIpcOpenMemHandle");
    pe->imported[pe->nimported++] = raw;
    /* Every heap sits at the same distance into its allocation. */
    *base_p = (char *)raw + (pe->heap - pe->raw);
    return SHMEMU_OK;
}

static int p_device(const struct shmemu_cuda_pe *pe)
{
    return pe->device;
}

/* ------------------------------------------------------------- data path */

__global__ void signal_kernel(unsigned long long *word, int op, unsigned long long value)
{
    __threadfence_system(); /* the data before it, to every observer */
    if (op == SHMEMU_TL_SIG_ADD)
        atomicAdd_system(word, value);
    else
        atomicExch_system(word, value);
}

template <typename T>
__device__ T amo_apply(T *p, int op, T v, T cond)
{
    switch (op) {
    case SHMEMU_TL_AMO_FETCH:
        return atomicOr_system(p, (T)0);
    case SHMEMU_TL_AMO_SET:
    case SHMEMU_TL_AMO_SWAP:
        return atomicExch_system(p, v);
    case SHMEMU_TL_AMO_CSWAP:
        return atomicCAS_system(p, cond, v);
    case SHMEMU_TL_AMO_ADD:
        return atomicAdd_system(p, v);
    case SHMEMU_TL_AMO_AND:
        return atomicAnd_system(p, v);
    case SHMEMU_TL_AMO_OR:
        return atomicOr_system(p, v);
    default:
        return atomicXor_system(p, v);
    }
}

__global__ void amo_kernel(void *word, unsigned width, int op, unsigned long long value,
                           unsigned long long cond, unsigned long long *result)
{
    __threadfence_system();
    unsigned long long old;
    if (width == 8)
        old = amo_apply((unsigned long long *)word, op, value, cond);
    else
        old = amo_apply((unsigned int *)word, op, (unsigned int)value, (unsigned int)cond);
    __threadfence_system();
    *result = old;
}

static int finish(struct shmemu_cuda_pe *pe, int async, char *why, size_t len)
{
    if (!async)
        CK(cudaStreamSynchronize(pe->stream), "cudaStreamSynchronize");
    return SHMEMU_OK;
}

static int enqueue_copy(cudaStream_t s, void *dst, const void *src, size_t n, char *why,
                        size_t len)
{
    CK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s), "cudaMemcpyAsync");
    return SHMEMU_OK;
}

static int enqueue_signal(cudaStream_t s, uint64_t *word, int op, uint64_t value, char *why,
                          size_t len)
{
    signal_kernel<<<1, 1, 0, s>>>((unsigned long long *)word, op, value);
    CK(cudaGetLastError(), "launching the signal kernel");
    return SHMEMU_OK;
}

static int stage_alloc(struct shmemu_cuda_pe *pe, char *why, size_t len)
{
    if (!pe->stage)
        CK(cudaMalloc((void **)&pe->stage, 3 * STAGE_BYTES), "cudaMalloc(staging)");
    return SHMEMU_OK;
}

/* cudaMemcpy is memcpy, not memmove (overlapping device ranges come out
 * wrong): through the staging buffer, a chunk at a time, starting at the
 * end that the copy does not overwrite before it has read it. */
static int enqueue_move(struct shmemu_cuda_pe *pe, char *dst, const char *src, size_t n,
                        char *why, size_t len)
{
    int st = stage_alloc(pe, why, len);
    for (size_t done = 0, m; st == SHMEMU_OK && done < n; done += m) {
        m = n - done < STAGE_BYTES ? n - done : STAGE_BYTES;
        size_t off = dst < src ? done : n - done - m;
        st = enqueue_copy(pe->stream, pe->stage, src + off, m, why, len);
        if (st == SHMEMU_OK)
            st = enqueue_copy(pe->stream, dst + off, pe->stage, m, why, len);
    }
    return st;
}

static int p_copy(struct shmemu_cuda_pe *pe, void *dst, const void *src, size_t n, int async,
                  char *why, size_t len)
{
    const char *d = (const char *)dst, *s = (const char *)src;
    if (d == s || !n)
        return finish(pe, async, why, len);
    int st = d < s + n && s < d + n ? enqueue_move(pe, (char *)dst, s, n, why, len)
                                    : enqueue_copy(pe->stream, dst, src, n, why, len);
    return st != SHMEMU_OK ? st : finish(pe, async, why, len);
}

static int p_signal(struct shmemu_cuda_pe *pe, uint64_t *word, int op, uint64_t value,
                    int async, char *why, size_t len)
{
    int st = enqueue_signal(pe->stream, word, op, value, why, len);
    return st != SHMEMU_OK ? st : finish(pe, async, why, len);
}

static int p_amo(struct shmemu_cuda_pe *pe, void *word, unsigned width, int op,
                 uint64_t value, uint64_t cond, uint64_t *result, char *why, size_t len)
{
    amo_kernel<<<1, 1, 0, pe->stream>>>(word, width, op, value, cond, pe->result_dev);
    CK(cudaGetLastError(), "launching the atomic kernel");
    CK(cudaStreamSynchronize(pe->stream), "cudaStreamSynchronize(atomic)");
    if (result)
        *result = *(volatile unsigned long long *)pe->result_host;
    return SHMEMU_OK;
}

static int p_sync(struct shmemu_cuda_pe *pe, char *why, size_t len)
{
    return finish(pe, 0, why, len);
}

static int p_stream_rma(struct shmemu_cuda_pe *pe, void *stream, void *remote,
                        const struct shmemu_tl_rma *d, void *sig, char *why, size_t len)
{
    (void)pe;
    cudaStream_t s = (cudaStream_t)stream;
    int st = SHMEMU_OK;
    if (d->nbytes)
        st = d->op == SHMEMU_TL_PUT ? enqueue_copy(s, remote, d->local, d->nbytes, why, len)
                                    : enqueue_copy(s, d->local, remote, d->nbytes, why, len);
    if (st == SHMEMU_OK && d->op == SHMEMU_TL_PUT && d->sig_op != SHMEMU_TL_SIG_NONE)
        st = enqueue_signal(s, (uint64_t *)sig, d->sig_op, d->sig_value, why, len);
    return st;
}

static int p_stream_join(struct shmemu_cuda_pe *pe, void *stream, char *why, size_t len)
{
    CK(cudaEventRecord(pe->done, pe->stream), "cudaEventRecord");
    CK(cudaStreamWaitEvent((cudaStream_t)stream, pe->done, 0), "cudaStreamWaitEvent");
    return SHMEMU_OK;
}

static int p_stream_sync(struct shmemu_cuda_pe *pe, void *stream, char *why, size_t len)
{
    (void)pe;
    CK(cudaStreamSynchronize((cudaStream_t)stream), "cudaStreamSynchronize");
    return SHMEMU_OK;
}

/* -------------------------------------------------------------- reduce */

__device__ float f_nan(void) { return __int_as_float(0x7fc00000); }
__device__ double d_nan(void) { return __longlong_as_double(0x7ff8000000000000ll); }

/* x86's NaN results: an operand's NaN, made quiet (the first operand's
 * first), else the "indefinite" NaN, which has its sign bit set. */
__device__ float f_fix(float r, float a, float b)
{
    if (!isnan(r))
        return r;
    if (isnan(a))
        return __int_as_float(__float_as_int(a) | 0x00400000);
    if (isnan(b))
        return __int_as_float(__float_as_int(b) | 0x00400000);
    return __int_as_float((int)0xffc00000u);
}
__device__ double d_fix(double r, double a, double b)
{
    if (!isnan(r))
        return r;
    if (isnan(a))
        return __longlong_as_double(__double_as_longlong(a) | 0x0008000000000000ll);
    if (isnan(b))
        return __longlong_as_double(__double_as_longlong(b) | 0x0008000000000000ll);
    return __longlong_as_double((long long)0xfff8000000000000ull);
}

template <typename F> __device__ F fminimum(F a, F b, F nan)
{
    return isnan(a) || isnan(b) ? nan : a < b ? a : b < a ? b : signbit(a) ? a : b;
}
template <typename F> __device__ F fmaximum(F a, F b, F nan)
{
    return isnan(a) || isnan(b) ? nan : a > b ? a : b > a ? b : signbit(a) ? b : a;
}


/* One element of every integer op; U is the unsigned type sums wrap in. */
template <typename T, typename U> __device__ T int_op(int op, T a, T b)
{
    switch (op) {
    case SHMEMU_SUM:
        return (T)((U)a + (U)b);
    case SHMEMU_PROD:
        return (T)((U)a * (U)b);
    case SHMEMU_MIN:
        return b < a ? b : a;
    case SHMEMU_MAX:
        return b > a ? b : a;
    case SHMEMU_BAND:
        return a & b;
    case SHMEMU_BOR:
        return a | b;
    default:
        return a ^ b;
    }
}

__device__ float flt_op(int op, float a, float b)
{
    switch (op) {
    case SHMEMU_SUM:
        return f_fix(__fadd_rn(a, b), a, b);
    case SHMEMU_PROD:
        return f_fix(__fmul_rn(a, b), a, b);
    case SHMEMU_MIN:
        return fminimum(a, b, f_nan());
    default:
        return fmaximum(a, b, f_nan());
    }
}

__device__ double dbl_op(int op, double a, double b)
{
    switch (op) {
    case SHMEMU_SUM:
        return d_fix(__dadd_rn(a, b), a, b);
    case SHMEMU_PROD:
        return d_fix(__dmul_rn(a, b), a, b);
    case SHMEMU_MIN:
        return fminimum(a, b, d_nan());
    default:
        return fmaximum(a, b, d_nan());
    }
}

template <typename T, typename U>
__global__ void int_kernel(int op, T *d, const T *x, const T *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = int_op<T, U>(op, x[i], y[i]);
}

__global__ void f32_kernel(int op, float *d, const float *x, const float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = flt_op(op, x[i], y[i]);
}

__global__ void f64_kernel(int op, double *d, const double *x, const double *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = dbl_op(op, x[i], y[i]);
}

__global__ void h16_kernel(int op, int bf, uint16_t *d, const uint16_t *x, const uint16_t *y,
                           size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (bf)
            d[i] = shmemu_dev_float_to_bf16(
                flt_op(op, shmemu_dev_bf16_to_float(x[i]), shmemu_dev_bf16_to_float(y[i])));
        else
            d[i] = shmemu_dev_float_to_half(
                flt_op(op, shmemu_dev_half_to_float(x[i]), shmemu_dev_half_to_float(y[i])));
    }
}

static void launch(cudaStream_t s, int dtype, int op, void *d, const void *a, const void *b,
                   size_t n)
{
    unsigned threads = 256;
    size_t want = (n + threads - 1) / threads;
    unsigned blocks = (unsigned)(want < 4096 ? want : 4096);
#define INT_CASE(DT, T, U)                                                     \
    case DT:                                                                   \
        int_kernel<T, U><<<blocks, threads, 0, s>>>(op, (T *)d, (const T *)a,  \
                                                     (const T *)b, n);         \
        break;
    switch (dtype) {
        INT_CASE(SHMEMU_INT8, int8_t, uint32_t)
        INT_CASE(SHMEMU_INT16, int16_t, uint32_t)
        INT_CASE(SHMEMU_INT32, int32_t, uint32_t)
        INT_CASE(SHMEMU_INT64, int64_t, uint64_t)
        INT_CASE(SHMEMU_UINT8, uint8_t, uint32_t)
        INT_CASE(SHMEMU_UINT16, uint16_t, uint32_t)
        INT_CASE(SHMEMU_UINT32, uint32_t, uint32_t)
        INT_CASE(SHMEMU_UINT64, uint64_t, uint64_t)
    case SHMEMU_FLOAT:
        f32_kernel<<<blocks, threads, 0, s>>>(op, (float *)d, (const float *)a,
                                              (const float *)b, n);
        break;
    case SHMEMU_DOUBLE:
        f64_kernel<<<blocks, threads, 0, s>>>(op, (double *)d, (const double *)a,
                                              (const double *)b, n);
        break;
    default: /* FLOAT16, BFLOAT16 */
        h16_kernel<<<blocks, threads, 0, s>>>(op, dtype == SHMEMU_BFLOAT16, (uint16_t *)d,
                                              (const uint16_t *)a, (const uint16_t *)b, n);
        break;
    }
#undef INT_CASE
}

/* Host memory a kernel cannot read (pageable): it is staged. */
static int on_device(const void *p)
{
    cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged;
}

static size_t dtype_bytes(int dtype)
{
    static const size_t sz[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 2, 2};
    return (unsigned)dtype < sizeof(sz) / sizeof(sz[0]) ? sz[dtype] : 0;
}

static int p_reduce(struct shmemu_cuda_pe *pe, int dtype, int op, void *dst, const void *a,
                    const void *b, size_t n, char *why, size_t len)
{
    size_t es = dtype_bytes(dtype);
    if (!es) {
        snprintf(why, len, "dtype %d has no device kernel", dtype);
        return SHMEMU_EINVAL;
    }
    if (!n) /* a launch of no blocks is an error */
        return SHMEMU_OK;
    int dev_d = on_device(dst), dev_a = on_device(a), dev_b = on_device(b);
    if (dev_d && dev_a && dev_b) {
        launch(pe->stream, dtype, op, dst, a, b, n);
        CK(cudaGetLastError(), "launching the reduction kernel");
        return finish(pe, 0, why, len);
    }
    int st = stage_alloc(pe, why, len);
    if (st != SHMEMU_OK)
        return st;
    size_t chunk = STAGE_BYTES / es;
    for (size_t i = 0; i < n; i += chunk) {
        size_t m = n - i < chunk ? n - i : chunk, off = i * es, bytes = m * es;
        char *sa = dev_a ? (char *)a + off : pe->stage;
        char *sb = dev_b ? (char *)b + off : pe->stage + STAGE_BYTES;
        char *sd = dev_d ? (char *)dst + off : pe->stage + 2 * STAGE_BYTES;
        if (!dev_a)
            CK(cudaMemcpyAsync(sa, (const char *)a + off, bytes, cudaMemcpyDefault, pe->stream),
               "cudaMemcpyAsync(stage in)");
        if (!dev_b)
            CK(cudaMemcpyAsync(sb, (const char *)b + off, bytes, cudaMemcpyDefault, pe->stream),
               "cudaMemcpyAsync(stage in)");
        launch(pe->stream, dtype, op, sd, sa, sb, m);
        CK(cudaGetLastError(), "launching the reduction kernel");
        if (!dev_d)
            CK(cudaMemcpyAsync((char *)dst + off, sd, bytes, cudaMemcpyDefault, pe->stream),
               "cudaMemcpyAsync(stage out)");
        CK(cudaStreamSynchronize(pe->stream), "cudaStreamSynchronize(reduce)");
    }
    return SHMEMU_OK;
}

/* ---------------------------------------------------------------- kernels */

/* The library's kernel files as nvcc built them into this plugin:
 * SHMEMU_ENOTSUP for a name they do not have, else the CUDA error of the
 * launch or of the kernel (cudaSuccess: it ran). */
extern "C" int shmemu_cuda_library_kernel(const char *name, const void *arg, size_t arg_size,
                                          const void *table, cudaStream_t stream,
                                          cudaError_t *err);

static int p_kernel(struct shmemu_cuda_pe *pe, const char *name, const void *arg, size_t arg_size,
                    const void *table, char *why, size_t len)
{
    CK(cudaSetDevice(pe->device), "cudaSetDevice");
    cudaError_t e = cudaSuccess;
    if (shmemu_cuda_library_kernel(name, arg, arg_size, table, pe->stream, &e) != SHMEMU_OK)
        return SHMEMU_ENOTSUP;
    CK(e, name);
    return SHMEMU_OK;
}

/* ------------------------------------------------------------------ table */

static const struct shmemu_cuda_plugin plugin = {
    sizeof(struct shmemu_cuda_plugin),
    SHMEMU_CUDA_PLUGIN_ABI,
    p_probe,
    p_pe_open,
    p_pe_close,
    p_heap_export,
    p_heap_import,
    p_copy,
    p_signal,
    p_amo,
    p_sync,
    p_reduce,
    p_device,
    p_stream_rma,
    p_stream_join,
    p_stream_sync,
    p_kernel,
};

extern "C" __attribute__((visibility("default"))) const struct shmemu_cuda_plugin *
shmemu_cuda_plugin(void)
{
    return &plugin;
}
