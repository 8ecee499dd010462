/* sim.c - the public call about the sim transport's last run. */
#include "runtime/core.h"
#include "sim/sim.h"

int shmemu_sim_last(shmemu_sim_stats *out)
{
    if (!out)
        return shmemu_error(SHMEMU_EINVAL, "shmemu_sim_last", "out is NULL");
    shmemu_sim_last_stats(out);
    return SHMEMU_OK;
}
