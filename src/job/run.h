/*
 * run.h - the launcher's view of the core (tools/shmemu-run.c): run a
 * program on N PE processes and supervise them.
 */
#ifndef SHMEMU_RUN_H
#define SHMEMU_RUN_H

#include "runtime/core.h"

struct shmemu__run_opts {
    int npes;
    const char *transport; /* NULL: shm */
    size_t heap_size;      /* 0: $SHMEMU_HEAP_SIZE or the default */
    double timeout_s;      /* > 0: end the job after this long, with a report */
    int tag_output;        /* prefix every output line with its PE */
    char *const *argv;     /* the program and its arguments */
};

/* Run the job; returns the launcher's exit status: 0, the first failing PE's
 * exit status (128 + signal for a signal), 124 on timeout, 1 or 2 when the
 * job could not start.  Messages go to stderr. */
int shmemu__run(const struct shmemu__run_opts *o) SHMEMU__HIDDEN;

/* From the launcher's SIGINT/SIGTERM handler (async-signal-safe): pass sig on
 * to every PE at the next supervision tick. */
void shmemu__run_forward(int sig) SHMEMU__HIDDEN;

#endif
