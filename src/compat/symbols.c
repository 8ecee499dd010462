/*
 * symbols.c - every routine shmem.h defines inline in the program, defined
 * once more here with external linkage, so that libshmemu exports the
 * whole OpenSHMEM API by name: OpenSHMEM libraries do, and programs and
 * tools rely on it (test suites that look routines up with dlsym before
 * calling them, bindings of other languages).
 */
#define SHMEMU_OSH_EXPORT 1
/* The definitions are the header's own: they are their prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "shmem.h"
