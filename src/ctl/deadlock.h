/*
 * deadlock.h - deadlock detection where the PEs share one control area
 * (wait.h tells how).
 */
#ifndef SHMEMU_DEADLOCK_H
#define SHMEMU_DEADLOCK_H

#include "runtime/core.h"

/* Called when the blocked count reached the live count: if the job really
 * is stuck, report it, abort the job and return the abort status; else
 * SHMEMU_OK. */
int shmemu__check_stuck(shmemu__pe *me) SHMEMU__HIDDEN;

#endif
