/*
 * sim.h - what the sim transport tells the layers above it besides its
 * table (shmemu_sim_ops): the statistics of the last job it ran, which
 * the public shmemu_sim_last returns.
 */
#ifndef SHMEMU_SIM_H
#define SHMEMU_SIM_H

#include "shmemu.h"

/* The schedule hash, steps and switches of the last sim job this process
 * ran (zeros before any). */
void shmemu_sim_last_stats(shmemu_sim_stats *out);

#endif
