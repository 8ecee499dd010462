/* shm.h - the shm transport's tables (its segment: common/segment.h). */
#ifndef SHMEMU_SHM_H
#define SHMEMU_SHM_H

#include <stddef.h>

#include "../common/segment.h"
#include "../transport.h"

extern const struct shmemu_transport_ops shmemu_shm_ops;

/* shm with symmetric memory that behaves like device memory: host loads and
 * stores on it fault (SHMEMU_CHECK=device); the library's own calls work. */
extern const struct shmemu_transport_ops shmemu_shm_device_ops;

#endif
