/*
 * plugin.h - what libshmemu-cuda.so offers the cuda transport.
 *
 * libshmemu never links CUDA: the transport (cuda.c) keeps everything that
 * is plain host code (processes, the control segment, wire-up, the
 * contract) and loads this plugin with dlopen only in processes that run a
 * PE.  The plugin holds every CUDA call, translates each CUDA error once
 * ("cudaMemcpyAsync: invalid argument") and knows nothing of shmemu's core.
 *
 * Compatibility as the transport table's: `size` first, members only added
 * at the end, `abi` bumped when a member changes meaning.
 */
#ifndef SHMEMU_CUDA_PLUGIN_H
#define SHMEMU_CUDA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "../transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEMU_CUDA_PLUGIN_ABI 1
#define SHMEMU_CUDA_PLUGIN_SYMBOL "shmemu_cuda_plugin"
#define SHMEMU_CUDA_PLUGIN_FILE "libshmemu-cuda.so"
/* Bytes of an exported heap handle (a cudaIpcMemHandle_t). */
#define SHMEMU_CUDA_HANDLE_BYTES 64

/* One PE's CUDA state in its own process (opaque to the transport). */
struct shmemu_cuda_pe;

/* Every member returning int gives 0 on success, else a shmemu status
 * (SHMEMU_ENODEV, SHMEMU_ENOMEM, SHMEMU_EINVAL) with one line in why:
 * "<CUDA call>: <CUDA's error string>". */
struct shmemu_cuda_plugin {
    size_t size;
    unsigned abi;

    /* Devices visible to this process (initialises CUDA here: never call it
     * in a process that forks PEs afterwards). */
    int (*probe)(int *ndev_p, char *why, size_t len);
    /* Select device, create the PE's stream, allocate and zero a heap of
     * heap_size bytes. */
    int (*pe_open)(int device, size_t heap_size, struct shmemu_cuda_pe **pe_p,
                   void **heap_p, char *why, size_t len);
    /* Free the heap and every mapping of peers' heaps.  Never fails. */
    void (*pe_close)(struct shmemu_cuda_pe *pe);
    /* Export this PE's heap for other processes (SHMEMU_CUDA_HANDLE_BYTES). */
    int (*heap_export)(struct shmemu_cuda_pe *pe, void *handle, char *why, size_t len);
    /* Map a peer's exported heap; *base_p is a device address. */
    int (*heap_import)(struct shmemu_cuda_pe *pe, const void *handle, void **base_p,
                       char *why, size_t len);

    /* Copy n bytes, each side device or host memory, in stream order after
     * every earlier operation of this PE; complete on return unless async
     * (then: at the next sync).  A host source is reusable on return. */
    int (*copy)(struct shmemu_cuda_pe *pe, void *dst, const void *src, size_t n, int async,
                char *why, size_t len);
    /* After the copies before it: *word = value (op SHMEMU_TL_SIG_SET) or
     * += value (SHMEMU_TL_SIG_ADD), with a system-scope atomic; async as
     * for copy. */
    int (*signal)(struct shmemu_cuda_pe *pe, uint64_t *word, int op, uint64_t value,
                  int async, char *why, size_t len);
    /* One atomic (SHMEMU_TL_AMO_*) on a 4- or 8-byte device word, in stream
     * order, complete on return; *result (if result) is the old value. */
    int (*amo)(struct shmemu_cuda_pe *pe, void *word, unsigned width, int op,
               uint64_t value, uint64_t cond, uint64_t *result, char *why, size_t len);
    /* Complete every operation this PE issued. */
    int (*sync)(struct shmemu_cuda_pe *pe, char *why, size_t len);
    /* dst[i] = a[i] op b[i] (shmemu_dtype_t, shmemu_op_t), operands device or
     * host memory; bit-identical to shmemu's CPU kernels. */
    int (*reduce)(struct shmemu_cuda_pe *pe, int dtype, int op, void *dst, const void *a,
                  const void *b, size_t n, char *why, size_t len);
    /* The device this PE runs on. */
    int (*device)(const struct shmemu_cuda_pe *pe);
    /* Enqueue d (its data at remote, its signal word at sig) on stream, a
     * cudaStream_t of the caller's (NULL: the legacy default stream). */
    int (*stream_rma)(struct shmemu_cuda_pe *pe, void *stream, void *remote,
                      const struct shmemu_tl_rma *d, void *sig, char *why, size_t len);
    /* Later work on stream waits for everything this PE issued before. */
    int (*stream_join)(struct shmemu_cuda_pe *pe, void *stream, char *why, size_t len);
    /* Block until stream's work is done. */
    int (*stream_sync)(struct shmemu_cuda_pe *pe, void *stream, char *why, size_t len);
    /* Run the library's kernel `name` (src/coll/device_kernels.cu, built
     * into this plugin by nvcc) on a copy of arg, with table (every PE's
     * heap, shmemu_device.h) in its constant memory, after this PE's
     * earlier work, and wait for it; SHMEMU_ENOTSUP (why untouched) when
     * no kernel has that name. */
    int (*kernel)(struct shmemu_cuda_pe *pe, const char *name, const void *arg,
                  size_t arg_size, const void *table, char *why, size_t len);
};

/* The plugin's one exported symbol. */
const struct shmemu_cuda_plugin *shmemu_cuda_plugin(void);

#ifdef __cplusplus
}
#endif

#endif /* SHMEMU_CUDA_PLUGIN_H */
