/*
 * device_allreduce.cu - a one-shot allreduce written as a kernel, the shape
 * of vLLM's and SGLang's custom allreduce: every PE's threads read every
 * peer's input through peer pointers and sum it.  The same file builds for
 * the CPU transports and for the GPU:
 *
 *   build/shmemu-devcc examples/device_allreduce.cu -o device_allreduce
 *   SHMEMU_TRANSPORT=sim ./device_allreduce 4        (or local, shm)
 *   SHMEMU_CHECK=fuzz:3 ./device_allreduce 4
 *
 * The two grid-wide barriers are the point: the first makes every peer's
 * input ready before anyone reads it, the second keeps every input
 * unchanged until everyone has read it (without it, the next call's
 * writes race with a slow peer's reads).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmemu_device.h"

struct ar_args {
    const float *in; /* symmetric: n floats on every PE */
    float *out;      /* n floats */
    size_t n;
    unsigned *arrived; /* symmetric: blocks of this PE at the grid barrier */
    unsigned *release; /* symmetric: its generation */
};

/* Every block of this PE arrives; the last one meets the other PEs
 * (barrier_all: puts completed, then everyone synchronised) and releases
 * the blocks. */
SHMEMU_DEVICE void grid_barrier(struct ar_args a, unsigned gen)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        if (atomicAdd(a.arrived, 1u) == gridDim.x * gen - 1) {
            shmemu_dev_barrier_all();
            __threadfence();
            atomicExch(a.release, gen);
        } else {
            while (atomicAdd(a.release, 0u) < gen) {
            }
        }
    }
    __syncthreads();
}

SHMEMU_KERNEL(allreduce_oneshot, struct ar_args, a)
{
    int npes = shmemu_dev_n_pes();
    unsigned gen = *(volatile unsigned *)a.release + 1;
    __syncthreads();
    grid_barrier(a, gen);
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.n;
         i += (size_t)gridDim.x * blockDim.x) {
        float sum = 0;
        for (int p = 0; p < npes; p++)
            sum += ((const float *)shmemu_dev_ptr(a.in, p))[i];
        a.out[i] = sum;
    }
    grid_barrier(a, gen + 1);
}

static int pe_main(void *arg)
{
    size_t n = *(size_t *)arg;
    int me = shmemu_my_pe(), npes = shmemu_n_pes(), bad = 0;
    float *in = (float *)shmemu_malloc(n * sizeof(float));
    float *out = (float *)shmemu_malloc(n * sizeof(float));
    float *host = (float *)malloc(n * sizeof(float));
    unsigned *sync = (unsigned *)shmemu_calloc(2, sizeof(unsigned));
    if (!in || !out || !host || !sync)
        return 1;
    for (int round = 0; round < 3; round++) {
        /* Through puts and gets, so that heaps the host cannot load (cuda)
         * work too. */
        for (size_t i = 0; i < n; i++)
            host[i] = (float)((me + 1) * (i % 97 + (size_t)round));
        shmemu_putmem(in, host, n * sizeof(float), me);
        shmemu_quiet();
        struct ar_args a = {in, out, n, &sync[0], &sync[1]};
        if (shmemu_launch_kernel(allreduce_oneshot, 2, 64, &a) != SHMEMU_OK)
            return 1;
        shmemu_getmem(host, out, n * sizeof(float), me);
        for (size_t i = 0; i < n; i++)
            if (host[i] != (float)(npes * (npes + 1) / 2 * (i % 97 + (size_t)round)))
                bad++;
    }
    if (me == 0)
        printf("device one-shot allreduce of %zu floats on %d PEs (%s): %s\n", n, npes,
               shmemu_transport_name(), bad ? "WRONG" : "ok");
    shmemu_barrier_all();
    shmemu_free(sync);
    shmemu_free(out);
    shmemu_free(in);
    free(host);
    return bad != 0;
}

int main(int argc, char **argv)
{
    size_t n = 1000;
    shmemu_opts o;
    memset(&o, 0, sizeof(o));
    o.npes = argc > 1 ? atoi(argv[1]) : 4;
    if (o.npes < 1) {
        fprintf(stderr, "usage: %s [npes]\n", argv[0]);
        return 2;
    }
    return shmemu_launch(&o, pe_main, &n) != SHMEMU_OK;
}
