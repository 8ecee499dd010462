/*
 * mpp/shmem.h - the header's name on Cray SHMEM and SGI's SHMEM, which
 * older programs and test suites still include; Sandia OpenSHMEM and
 * Open MPI's OSHMEM install it too.  The same API as shmem.h.
 */
#include "../shmem.h"
