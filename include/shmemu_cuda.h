/*
 * shmemu_cuda.h - stream-ordered operations for GPU transports (`cuda`), in
 * the manner of NVSHMEM's nvshmemx_*_on_stream.
 *
 * Each call enqueues its work on a CUDA stream of the caller's and returns
 * at once (barrier excepted): it happens after the work enqueued on that
 * stream before it, and work enqueued after it waits for it.  A NULL stream
 * is the legacy default stream.  Symmetric addresses are the calling PE's,
 * as for every shmemu call; host buffers may be pageable or pinned.
 *
 * The header needs no CUDA headers (a cudaStream_t is a struct CUstream_st
 * pointer); on a transport without streams every call answers
 * SHMEMU_ENOTSUP with one line saying so.
 */
#ifndef SHMEMU_CUDA_H
#define SHMEMU_CUDA_H

#include "shmemu.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

struct CUstream_st;
/** A CUDA stream (cudaStream_t). */
typedef struct CUstream_st *shmemu_stream_t;

/** Put nbytes from src (host or device memory) to dest on PE pe, ordered
 *  on stream. */
int shmemu_putmem_on_stream(void *dest, const void *src, size_t nbytes, int pe,
                            shmemu_stream_t stream);
/** Get nbytes from src on PE pe into dest (host or device memory), ordered
 *  on stream. */
int shmemu_getmem_on_stream(void *dest, const void *src, size_t nbytes, int pe,
                            shmemu_stream_t stream);
/** shmemu_putmem_signal ordered on stream: the signal is never visible
 *  before the data. */
int shmemu_putmem_signal_on_stream(void *dest, const void *src, size_t nbytes,
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                   shmemu_stream_t stream);
/** Work enqueued on stream after this waits for every operation the
 *  calling PE issued before it without a stream (and, by stream order, for
 *  what it enqueued on this stream); not for its work on other streams. */
int shmemu_quiet_on_stream(shmemu_stream_t stream);
/** A barrier of every PE once stream's earlier work is done.  It blocks the
 *  calling host thread until then (the barrier itself runs on the host). */
int shmemu_barrier_all_on_stream(shmemu_stream_t stream);
/** The device the calling PE runs on, or -1 (SHMEMU_ENOTSUP) on a
 *  transport without devices. */
int shmemu_my_device(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMU_CUDA_H */
