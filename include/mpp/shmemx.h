/*
 * mpp/shmemx.h - shmemx.h under its older name (see mpp/shmem.h).
 */
#include "../shmemx.h"
