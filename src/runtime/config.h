/*
 * config.h - every SHMEMU_* environment variable, in one list.
 *
 * X(FIELD, KIND, DEFAULT, HELP): read by shmemu__params_load() into a struct
 * shmemu__params when a job starts; shmemu-info prints the list.
 */
#ifndef SHMEMU_CONFIG_H
#define SHMEMU_CONFIG_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "platform.h"

#define SHMEMU_PARAMS(X)                                                       \
    X(TRANSPORT, STRING, "local",                                              \
      "transport used when shmemu_opts.transport is NULL")                     \
    X(HEAP_SIZE, SIZE, "64M",                                                  \
      "per-PE symmetric heap size such as 64M or 1.5G; suffixes K, M, G, T "    \
      "(powers of 1024); OpenSHMEM's SHMEM_SYMMETRIC_SIZE when this is unset")  \
    X(ERRORS, ERRMODE, "abort",                                                \
      "what a failing call does: abort (end the job) or return (a status)")    \
    X(SPIN_NS, INT, "-1",                                                      \
      "ns a waiting PE spins before it sleeps; -1: 20000 when the PEs fit "    \
      "the cores (100000 on ucx, whose PEs drive their network), 0 when "     \
      "they do not")                                                           \
    X(YIELD_NS, INT, "-1",                                                     \
      "ns a waiting PE yields its core (to PEs that have work) before it "     \
      "sleeps; -1: 16000 per PE up to 2000000 when the PEs outnumber the "    \
      "cores, 0 otherwise")                                                    \
    X(BIND, BIND, "auto",                                                      \
      "bind each PE to a core (and its heap to the core's NUMA node): core, "  \
      "none, or auto (core when the PEs fit the cores)")                       \
    X(CHECK, CHECK, "off",                                                     \
      "checker mode: off, fuzz[:SEED] (delivery fuzzing and schedule "         \
      "perturbation), race (conflicting-access detection), device (host "     \
      "loads and stores on symmetric memory fault, shm), comma-separated, "    \
      "e.g. fuzz:SEED,race,device; see docs/CHECK.md")                         \
    X(TIMEOUT, SECONDS, "-1",                                                  \
      "end a launched job that runs longer than this many seconds, saying "    \
      "where each PE is; 0: never; -1: 300 in checker mode, never otherwise")  \
    X(LIVELOCK, SECONDS, "2",                                                  \
      "end a job as deadlocked when every PE has, for this many seconds, "    \
      "either slept in the library or polled (test, signal_fetch, _g, "       \
      "atomic_fetch) words that did not change; 0: never")                    \
    X(STATIC, AUTO, "auto",                                                    \
      "make the program's global and static variables symmetric (on PE "      \
      "processes: shm, ucx): on, off, or auto (on for programs that start "   \
      "with shmem_init, off otherwise)")                                       \
    X(DEVICE_STACK, SIZE, "32K",                                               \
      "bytes of stack for each device thread of a kernel run on the CPU "     \
      "(shmemu_device.h, docs/DEVICE.md), mapped as touched")                  \
    X(DEVICE_RESIDENT, COUNT, "1",                                             \
      "blocks of a kernel launched with shmemu_launch_kernel_plain that run "  \
      "at once on the CPU (CUDA's <<<>>> promises no more than one); "         \
      "shmemu_launch_kernel keeps every block resident")                       \
    X(SIM, STRING, "random,seed:1",                                            \
      "sim transport: strategy (random, rr, pct[:D]), seed:N, steps:K, "      \
      "stack:SIZE, guard:0|1, watchdog:S, comma-separated; see docs/SIM.md")   \
    X(CUDA_DEVICE, STRING, "",                                                 \
      "cuda transport: the GPU of every PE (2), or one per PE (0,0,1,1); "    \
      "unset: the node-local rank modulo the devices")                         \
    X(CUDA_PLUGIN, STRING, "",                                                 \
      "cuda transport: the plugin's file; unset: libshmemu-cuda.so beside "    \
      "libshmemu")                                                             \
    X(UCX_PLUGIN, STRING, "",                                                  \
      "ucx transport: the plugin's file; unset: libshmemu-ucx.so beside "      \
      "libshmemu")                                                             \
    X(PMIX_PLUGIN, STRING, "",                                                 \
      "mpirun's jobs: the PMIx bootstrap's plugin; unset: libshmemu-pmix.so "  \
      "beside libshmemu")                                                      \
    X(UCX_CONTROL, STRING, "auto",                                             \
      "ucx under mpirun: where the control plane runs: shared (one node), "   \
      "network (over UCX, as across nodes), auto (network when the job "      \
      "spans nodes)")                                                          \
    X(UCX_COMBINE, STRING, "1",                                                \
      "ucx: combine small puts to a peer reached without RMA (TCP) into one "  \
      "message per 64 KiB; 0: one UCX put each")                              \
    X(ALLREDUCE_ALGO, STRING, "auto",                                          \
      "the algorithm shmemu_allreduce runs: auto, oneshot, ring, rd, "        \
      "rabenseifner, tree")                                                    \
    X(REDUCE_ALGO, STRING, "auto", "the algorithm shmemu_reduce runs: auto, tree") \
    X(REDUCE_SCATTER_ALGO, STRING, "auto",                                     \
      "the algorithm shmemu_reduce_scatter runs: auto, ring, rhalving")       \
    X(ALLGATHER_ALGO, STRING, "auto",                                          \
      "the algorithm shmemu_allgather runs: auto, ring, bruck, rd")           \
    X(BROADCAST_ALGO, STRING, "auto",                                          \
      "the algorithm shmemu_broadcast runs: auto, tree, chain")               \
    X(ALLTOALL_ALGO, STRING, "auto",                                           \
      "the algorithm shmemu_alltoall runs: auto, pairwise")

enum shmemu__param_kind {
    SHMEMU__PARAM_STRING,
    SHMEMU__PARAM_SIZE,
    SHMEMU__PARAM_ERRMODE,
    SHMEMU__PARAM_INT,
    SHMEMU__PARAM_BIND,
    SHMEMU__PARAM_CHECK,
    SHMEMU__PARAM_SECONDS,
    SHMEMU__PARAM_AUTO,
    SHMEMU__PARAM_COUNT /* a whole number from 1 to 2^32 - 1 */
};

/* What SHMEMU_CHECK (or shmemu_opts.check) asks for. */
struct shmemu__check_cfg {
    int fuzz;      /* delivery fuzzing and schedule perturbation */
    int race;      /* conflicting-access detection */
    int race_calls; /* ... of the library's calls only (not own stores) */
    int device;    /* symmetric memory behaves as device memory (shm) */
    uint64_t seed; /* fuzz:SEED; 0 when none was given: then 1 */
};

struct shmemu__params {
    const char *TRANSPORT; /* points into the environment or a literal */
    size_t HEAP_SIZE;
    int ERRORS;
    int64_t SPIN_NS;
    int64_t YIELD_NS;
    int BIND; /* SHMEMU__BIND_* */
    struct shmemu__check_cfg CHECK;
    double TIMEOUT; /* seconds; < 0: the default */
    double LIVELOCK; /* seconds; 0: off */
    int STATIC; /* -1 auto, 0 off, 1 on */
    size_t DEVICE_STACK;
    int64_t DEVICE_RESIDENT;
    /* Read by their parts (the sim, cuda and ucx transports, the
     * collectives' selection); listed here so that one table holds every
     * setting and shmemu-info shows them all. */
    const char *SIM, *CUDA_DEVICE, *CUDA_PLUGIN, *UCX_PLUGIN, *PMIX_PLUGIN, *UCX_CONTROL,
        *UCX_COMBINE;
    const char *ALLREDUCE_ALGO, *REDUCE_ALGO, *REDUCE_SCATTER_ALGO, *ALLGATHER_ALGO,
        *BROADCAST_ALGO, *ALLTOALL_ALGO;
};

/* Parse a SHMEMU_CHECK value ("fuzz:7,race"); 0, or -1 if malformed. */
int shmemu__parse_check(const char *s, struct shmemu__check_cfg *out) SHMEMU__HIDDEN;

struct shmemu__param_info {
    const char *name; /* "SHMEMU_HEAP_SIZE" */
    int kind;
    const char *dflt;
    const char *help;
};

extern const struct shmemu__param_info shmemu__param_table[] SHMEMU__HIDDEN;
extern const int shmemu__param_count SHMEMU__HIDDEN;

/* The variable a setting is read from: its own, or OpenSHMEM's name for
 * it (SHMEM_SYMMETRIC_SIZE for SHMEMU_HEAP_SIZE) when only that is set. */
const char *shmemu__param_source(const struct shmemu__param_info *info) SHMEMU__HIDDEN;

/* Every setting, one per two lines: variable = value in effect [default],
 * then what it does (shmemu-info, OpenSHMEM's SHMEM_INFO). */
void shmemu__params_print(FILE *f) SHMEMU__HIDDEN;

/* Read every variable; on a malformed one write a one-line reason naming it
 * into why and return SHMEMU_EINVAL. */
int shmemu__params_load(struct shmemu__params *p, char *why, size_t why_len)
    SHMEMU__HIDDEN;

/* Parse "123", "64K", "1M", "2G", "1GiB"...; 0 on success, -1 if malformed,
 * negative or too large. */
int shmemu__parse_size(const char *s, size_t *out) SHMEMU__HIDDEN;

#endif /* SHMEMU_CONFIG_H */
