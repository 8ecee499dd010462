/* registry.c - the transports compiled in, in priority order.  The first is
 * the default; optional ones sit behind their build switch. */
#include "transport.h"

extern const struct shmemu_transport_ops shmemu_local_ops;
extern const struct shmemu_transport_ops shmemu_shm_ops;

const struct shmemu_transport_ops *const shmemu__transports[] = {
    &shmemu_local_ops,
    &shmemu_shm_ops,
    NULL,
};
