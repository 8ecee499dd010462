/* shm.h - what the shm transport offers beyond its ops table. */
#ifndef SHMEMU_SHM_H
#define SHMEMU_SHM_H

#include <stddef.h>

#include "../transport.h"

extern const struct shmemu_transport_ops shmemu_shm_ops;

/*
 * Create a segment of size bytes with shm_open(O_CREAT|O_EXCL, 0600) under a
 * fresh unguessable name (written to name), reserve its pages, and unlink it
 * unless keep_name (the tests keep it to check who may open it).  Sets *fd_p.
 * On failure returns SHMEMU_ENOMEM or SHMEMU_ENODEV with why filled.
 */
int shmemu_shm_segment_create(size_t size, int keep_name, char *name, size_t name_len,
                              int *fd_p, char *why, size_t why_len);

#endif
