/*
 * shmemx.h - the OpenSHMEM extensions that programs written for other
 * implementations include most often, over shmem.h.  Wall-clock time and
 * the hooks other libraries take for their own threading or profiling
 * (accepted; shmemu needs neither: it finds the calling thread's PE
 * itself, see "Threads inside a PE" in docs/API.md).
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <stdint.h>
#include <time.h>

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Seconds since an arbitrary point, monotonic: for timing loops. */
static inline double shmemx_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/** Register a thread-id function (other implementations key per-thread
 * state on it); shmemu keys on the thread itself: ignored. */
static inline void shmemx_register_gettid(uint64_t (*gettid_fn)(void)) { (void)gettid_fn; }

/** Profiling control, as shmem_pcontrol: accepted and ignored. */
#define shmemx_pcontrol shmem_pcontrol

#ifdef __cplusplus
}
#endif

#endif /* SHMEMX_H */
