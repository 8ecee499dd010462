/*
 * net_deadlock.h - deadlock detection over the network control plane,
 * where each PE's block of the control area lives in its own process.
 */
#ifndef SHMEMU_NET_DEADLOCK_H
#define SHMEMU_NET_DEADLOCK_H

#include "runtime/core.h"

/* Called by a PE that naps while its own condition ready(me, arg) is
 * false: if every live PE naps on a condition nothing can change, report
 * the deadlock and abort the job. */
void shmemu__net_check_stuck(shmemu__pe *me, int (*ready)(shmemu__pe *me, void *arg),
                             void *arg) SHMEMU__HIDDEN;

#endif
