/*
 * plugin.h - what libshmemu-ucx.so offers the ucx transport.
 *
 * libshmemu never links UCX: the transport (ucx.c) keeps the host side
 * (processes, the control segment, the contract) and opens this plugin with
 * dlopen in the processes that run PEs.  The plugin holds every UCP call,
 * turns each UCX error into one line ("ucp_put_nbx: Destination is
 * unreachable") and knows nothing of shmemu's core.
 *
 * Compatibility as the transport table's: `size` first, members only added
 * at the end, `abi` bumped when a member changes meaning.
 */
#ifndef SHMEMU_UCX_PLUGIN_H
#define SHMEMU_UCX_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "../transport.h"

#define SHMEMU_UCX_PLUGIN_ABI 3
#define SHMEMU_UCX_PLUGIN_SYMBOL "shmemu_ucx_plugin"
#define SHMEMU_UCX_PLUGIN_FILE "libshmemu-ucx.so"


/* One PE's UCX state in its own process (opaque to the transport). */
struct shmemu_ucx_pe;

/* Every member returning int gives 0 on success, else a shmemu status
 * (SHMEMU_ENODEV, SHMEMU_ENOMEM, SHMEMU_EINVAL; SHMEMU_EABORTED where a
 * peer's process is gone) with one line in
 * why: "<UCX call>: <UCX's status string>". */
struct shmemu_ucx_plugin {
    size_t size;
    unsigned abi;

    /* UCX's version as the library that was loaded reports it. */
    const char *(*version)(void);
    /* Create the PE's UCP context and worker, allocate a zeroed heap of
     * heap_size bytes and register it for remote access; start the
     * thread that serves peers' operations while the PE computes.  Every
     * wait for the network gives up once gone(arg) is nonzero. */
    int (*pe_open)(int pe, int npes, size_t heap_size, int (*gone)(void *arg), void *arg,
                   struct shmemu_ucx_pe **pe_p, void **heap_p, char *why, size_t len);
    /* Complete what is outstanding, close endpoints, free the heap.  Never
     * fails. */
    void (*pe_close)(struct shmemu_ucx_pe *pe);
    /* This PE's worker address and heap key, in at most cap bytes. */
    int (*publish)(struct shmemu_ucx_pe *pe, void *blob, size_t cap, char *why, size_t len);
    /* Connect to PE peer from its published blob. */
    int (*connect)(struct shmemu_ucx_pe *pe, int peer, const void *blob, size_t cap,
                   char *why, size_t len);
    /* Every peer is connected: start serving them. */
    int (*start)(struct shmemu_ucx_pe *pe, char *why, size_t len);

    /* One RMA as the contract states it; offsets are heap offsets.  A
     * blocking put is complete at its target on return, unless it is lazy
     * and was left to the next quiet (SHMEMU_TL_DEFERRED). */
    int (*rma)(struct shmemu_ucx_pe *pe, const struct shmemu_tl_rma *d, char *why,
               size_t len);
    /* One atomic, complete at its target on return unless it is lazy and
     * was left to the next quiet (SHMEMU_TL_DEFERRED). */
    int (*amo)(struct shmemu_ucx_pe *pe, const struct shmemu_tl_amo *d, char *why,
               size_t len);
    /* Complete every operation this PE issued (a worker flush). */
    int (*quiet)(struct shmemu_ucx_pe *pe, char *why, size_t len);
    /* Order earlier puts and atomics before later ones (a worker fence). */
    int (*fence)(struct shmemu_ucx_pe *pe, char *why, size_t len);
    /* Drive UCX's progress once: SHMEMU_TL_DEFERRED while operations that
     * only a flush completes are outstanding, else SHMEMU_OK. */
    int (*progress)(struct shmemu_ucx_pe *pe);
    /* A load/store address of [off] in peer's heap where UCX maps it here
     * (the PE's own, a same-node peer over shared memory), else NULL. */
    void *(*peer_ptr)(struct shmemu_ucx_pe *pe, int peer, size_t off);

    /* Map [off, off + len) of the heap at addr as well (the transport
     * table's alias: the program's global variables become heap bytes). */
    int (*alias)(struct shmemu_ucx_pe *pe, size_t off, void *addr, size_t len, char *why,
                 size_t wlen);
    /* From now on, add 1 to *word and wake it (a shared futex) whenever the
     * serving thread's progress moved something (the transport table's
     * tl.arrival_word). */
    void (*set_arrival)(struct shmemu_ucx_pe *pe, uint32_t *word);
    /* The PE's thread stops driving the worker (it is about to sleep): the
     * serving thread, which keeps off while the PE drives, takes over. */
    void (*idle)(struct shmemu_ucx_pe *pe);
    /* Complete every operation this PE issued, unacked atomics included
     * (quiet leaves those out). */
    int (*flush)(struct shmemu_ucx_pe *pe, char *why, size_t len);
};

#endif /* SHMEMU_UCX_PLUGIN_H */
