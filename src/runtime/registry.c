/* registry.c - the transports compiled in, in priority order.  The first is
 * the default; optional ones sit behind their build switch. */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "dispatch.h"

extern const struct shmemu_transport_ops shmemu_local_ops;
extern const struct shmemu_transport_ops shmemu_shm_ops;
extern const struct shmemu_transport_ops shmemu_staged_ops;
extern const struct shmemu_transport_ops shmemu_cuda_ops;
extern const struct shmemu_transport_ops shmemu_shm_device_ops;
extern const struct shmemu_transport_ops shmemu_sim_ops;
extern const struct shmemu_transport_ops shmemu_ucx_ops;

const struct shmemu_transport_ops *const shmemu__transports[] = {
    &shmemu_local_ops,
    &shmemu_shm_ops,
    &shmemu_sim_ops, /* fibers under a seeded scheduler */
    &shmemu_cuda_ops, /* its CUDA code is a plugin, loaded when a PE runs */
    &shmemu_ucx_ops,  /* so is its UCX code */
    &shmemu_staged_ops,
    NULL,
};

int shmemu_transport_info(int index, const char **name_p, int *usable_p,
                          char *why, size_t why_len)
{
    int n = 0;
    while (shmemu__transports[n])
        n++;
    if (index < 0 || index >= n)
        return shmemu__last_status = SHMEMU_EINVAL;
    const struct shmemu_transport_ops *ops = shmemu__transports[index];
    char buf[256] = "";
    int usable = shmemu__tl_probe(ops, buf, sizeof(buf)) == SHMEMU_OK;
    if (name_p)
        *name_p = shmemu__tl_table_name(ops);
    if (usable_p)
        *usable_p = usable;
    if (why && why_len)
        snprintf(why, why_len, "%s", usable ? "" : buf);
    return shmemu__ok();
}

const struct shmemu_transport_ops *shmemu__find_transport(const char *name,
                                                         char *why, size_t len)
{
    for (int i = 0; shmemu__transports[i]; i++)
        if (strcmp(shmemu__transports[i]->name, name) == 0)
            return shmemu__transports[i];
    size_t used = (size_t)snprintf(why, len, "unknown transport '%s' (known:", name);
    for (int i = 0; shmemu__transports[i] && used < len; i++)
        used += (size_t)snprintf(why + used, len - used, "%s %s", i ? "," : "",
                                 shmemu__transports[i]->name);
    if (used < len)
        snprintf(why + used, len - used, ")");
    return NULL;
}

const struct shmemu_transport_ops *shmemu__device_view_of(const struct shmemu_transport_ops *ops)
{
    return ops == &shmemu_shm_ops ? &shmemu_shm_device_ops : NULL;
}
