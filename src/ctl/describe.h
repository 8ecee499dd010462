/*
 * describe.h - what a PE is doing, in words: the lines the deadlock,
 * livelock and timeout reports print for each PE, read from the control
 * area (and, for the values a PE waits on, its heap).
 */
#ifndef SHMEMU_DESCRIBE_H
#define SHMEMU_DESCRIBE_H

#include <stddef.h>

#include "runtime/core.h"

/* One line saying what PE pe is doing (for timeout and deadlock reports). */
void shmemu__describe_pe(struct shmemu__job *job, int pe, char *buf, size_t len)
    SHMEMU__HIDDEN;

/* "polls CALL on heap+OFF of PE P ... for T s": what PE pe polls. */
void shmemu__poll_describe(struct shmemu__job *job, int pe, char *buf, size_t len)
    SHMEMU__HIDDEN;

/* Format what PE pe waits for (d) into buf: used in deadlock reports.
 * The values awaited are shown where they are mapped here, else, with
 * may_get (the caller is a PE), read from pe through the transport. */
void shmemu__format_value_wait(struct shmemu__job *job, int pe,
                               const struct shmemu__wait_desc *d, int may_get, char *buf,
                               size_t len) SHMEMU__HIDDEN;

#endif
