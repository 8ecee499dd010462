/*
 * plugin.h - opening a transport's plugin (a shared library that holds every
 * call into a vendor library libshmemu must not link: CUDA, UCX).
 */
#ifndef SHMEMU_TL_PLUGIN_H
#define SHMEMU_TL_PLUGIN_H

#include <stddef.h>

/* How every plugin table begins (transports/cuda/plugin.h,
 * transports/ucx/plugin.h). */
struct shmemu_tl_plugin_head {
    size_t size;
    unsigned abi;
};

/*
 * Open the plugin `file` and call its `symbol` (a function without
 * arguments returning the plugin's table), a table of at least min_size
 * bytes built for ABI abi.  Looked for at $env_var when that is set, else
 * beside libshmemu (the directory it was loaded from, its parent, ../lib),
 * else through ld.so's search.  Returns the table, or NULL with one line in
 * why naming what (e.g. "UCX plugin") and how to get it built (build_hint).
 */
const void *shmemu_tl_plugin_open(const char *file, const char *symbol, unsigned abi,
                                  size_t min_size, const char *env_var, const char *what,
                                  const char *build_hint, char *why, size_t len);

#endif /* SHMEMU_TL_PLUGIN_H */
