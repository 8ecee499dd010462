/*
 * boot_pmix.h - the PMIx bootstrap's plugin (libshmemu-pmix.so, built from
 * src/job/pmix/ where Debian's libpmix-dev is): every call into PMIx, a
 * library libshmemu never links, behind one table that src/job/boot.c
 * opens.
 */
#ifndef SHMEMU_BOOT_PMIX_H
#define SHMEMU_BOOT_PMIX_H

#include <stddef.h>

#include "common/plugin.h"

#define SHMEMU_PMIX_PLUGIN_FILE "libshmemu-pmix.so"
#define SHMEMU_PMIX_PLUGIN_SYMBOL "shmemu_pmix_plugin"
#define SHMEMU_PMIX_PLUGIN_ABI 1

struct shmemu_pmix_plugin {
    struct shmemu_tl_plugin_head head;
    /* Connect to the launcher's PMIx server: this process's rank, the
     * job's size and the nodes it spans. */
    int (*init)(int *rank, int *size, int *nnodes, char *why, size_t len);
    /* Publish value under key (NULL: nothing), then wait until every
     * process of the job has (a fence that collects what all published). */
    int (*fence)(const char *key, const char *value, char *why, size_t len);
    /* What process rank published under key, in at most cap bytes. */
    int (*get)(int rank, const char *key, char *out, size_t cap, char *why, size_t len);
    /* Ask the launcher to end every process of the job with status. */
    int (*abort)(int status, const char *msg);
    void (*fini)(void);
};

#endif /* SHMEMU_BOOT_PMIX_H */
