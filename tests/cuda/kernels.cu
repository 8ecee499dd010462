/*
 * kernels.cu - the cuda transport as an NVSHMEM user's program meets it: an
 * SPMD program (shmemu-run -t cuda) whose kernels store into and atomically
 * add to peers' heaps through shmemu_ptr, with stream-ordered puts from
 * device memory on a stream of its own, and a built-in collective over
 * what a kernel wrote.  Every value is checked exactly on the host.
 * test_cuda runs it on 1 to 8 PEs where a GPU answers.
 *
 * Built by nvcc with -cudart shared: the program and libshmemu-cuda.so must
 * share one CUDA runtime (one context per device in this process).
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "shmemu.h"
#include "shmemu_cuda.h"

static int me, npes, bad;

#define CK(call)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            fprintf(stderr, "PE %d: %s:%d: %s: %s\n", me, __FILE__, __LINE__, #call, \
                    cudaGetErrorString(e_));                                       \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

#define EXPECT(cond, ...)                                                          \
    do {                                                                           \
        if (!(cond) && bad++ < 5) {                                                \
            fprintf(stderr, "PE %d: %s:%d: ", me, __FILE__, __LINE__);             \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
        }                                                                          \
    } while (0)

static __device__ int value(int pe, size_t i) { return pe * 1000003 + (int)i; }

/* Each PE's kernel writes its values straight into its right neighbour's
 * heap: plain stores through the peer's device address. */
static __global__ void store_to_peer(int *peer, int pe, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        peer[i] = value(pe, i);
}

/* Every thread of every PE adds 1 to PE 0's counter. */
static __global__ void add_to_counter(unsigned long long *ctr)
{
    atomicAdd_system(ctr, 1ull);
}

static __global__ void fill(int *d, int pe, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = value(pe, i) % 1000;
}

int main(void)
{
    if (shmemu_init() != SHMEMU_OK)
        return 1;
    me = shmemu_my_pe();
    npes = shmemu_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int dev = shmemu_my_device();
    EXPECT(dev >= 0, "shmemu_my_device() = %d", dev);
    CK(cudaSetDevice(dev));
    EXPECT(shmemu_heap_host_accessible() == 0, "the heap is said to be host-accessible");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    const size_t n = ((size_t)1 << 20) + 3; /* odd: a grid-stride tail */
    int *buf = (int *)shmemu_malloc(n * sizeof(int));
    int *red = (int *)shmemu_malloc(n * sizeof(int));
    unsigned long long *ctr = (unsigned long long *)shmemu_calloc(1, sizeof(*ctr));
    int *host = (int *)malloc(n * sizeof(int));
    if (!buf || !red || !ctr || !host)
        return 1;

    /* 1. Stores through shmemu_ptr, completed by the barrier on the stream. */
    int *peer = (int *)shmemu_ptr(buf, right);
    EXPECT(peer != NULL, "shmemu_ptr(buf, %d) is NULL", right);
    store_to_peer<<<264, 256, 0, s>>>(peer, me, n);
    CK(cudaGetLastError());
    if (shmemu_barrier_all_on_stream(s) != SHMEMU_OK)
        return 1;
    CK(cudaMemcpy(host, buf, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        EXPECT(host[i] == left * 1000003 + (int)i, "buf[%zu] = %d, want PE %d's %d", i,
               host[i], left, left * 1000003 + (int)i);

    /* 2. System-scope atomics from every PE's threads on PE 0's word. */
    unsigned long long *ctr0 = (unsigned long long *)shmemu_ptr(ctr, 0);
    add_to_counter<<<8, 128, 0, s>>>(ctr0);
    CK(cudaGetLastError());
    if (shmemu_barrier_all_on_stream(s) != SHMEMU_OK)
        return 1;
    unsigned long long got = shmemu_uint64_atomic_fetch((uint64_t *)ctr, 0);
    EXPECT(got == 1024ull * (unsigned)npes, "counter %llu, want %llu", got,
           1024ull * (unsigned)npes);

    /* 3. A put from device memory that is not symmetric, ordered on s after
     * the kernel that wrote it; quiet_on_stream, then the barrier. */
    int *scratch;
    CK(cudaMalloc((void **)&scratch, n * sizeof(int)));
    fill<<<264, 256, 0, s>>>(scratch, me, n);
    CK(cudaGetLastError());
    if (shmemu_putmem_on_stream(red, scratch, n * sizeof(int), right, s) != SHMEMU_OK ||
        shmemu_quiet_on_stream(s) != SHMEMU_OK || shmemu_barrier_all_on_stream(s) != SHMEMU_OK)
        return 1;
    CK(cudaMemcpy(host, red, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        EXPECT(host[i] == (left * 1000003 + (int)i) % 1000, "red[%zu] = %d after the stream put",
               i, host[i]);

    /* 4. A built-in allreduce over values a kernel wrote into the heap. */
    fill<<<264, 256, 0, s>>>(buf, me, n);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    if (shmemu_allreduce(SHMEMU_TEAM_WORLD, red, buf, n, SHMEMU_INT32, SHMEMU_SUM) != SHMEMU_OK)
        return 1;
    CK(cudaMemcpy(host, red, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        long want = 0;
        for (int p = 0; p < npes; p++)
            want += ((long)p * 1000003 + (long)i) % 1000;
        EXPECT(host[i] == (int)want, "allreduce[%zu] = %d, want %ld", i, host[i], want);
    }

    CK(cudaFree(scratch));
    CK(cudaStreamDestroy(s));
    free(host);
    shmemu_free(ctr);
    shmemu_free(red);
    shmemu_free(buf);
    printf("PE %d/%d on device %d: %s\n", me, npes, dev, bad ? "FAILED" : "ok");
    shmemu_finalize();
    return bad ? 1 : 0;
}
