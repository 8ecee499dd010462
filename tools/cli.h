/*
 * cli.h - what every shmemu tool does with its command line: values parsed
 * whole (a size, a number in a range, a transport that exists and can run
 * here) and a bad one refused with one line on stderr and exit status 2,
 * before any work.
 */
#ifndef SHMEMU_TOOLS_CLI_H
#define SHMEMU_TOOLS_CLI_H

#include <stddef.h>
#include <stdint.h>

/* "PROG: message" on stderr, then exit(2). */
void cli_die(const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* A byte count: digits with an optional K, M, G or T (powers of 1024,
 * also written Ki/KiB/KB...).  0 and the value in *out, or -1. */
int cli_size(const char *s, uint64_t *out);
/* A whole decimal number in [lo, hi]: 0 and *out, or -1. */
int cli_long(const char *s, long long lo, long long hi, long long *out);
/* A finite number of seconds > 0: 0 and *out, or -1. */
int cli_seconds(const char *s, double *out);

/* Whether transport `name` is one shmemu has and can run here: 0; -1
 * when unknown (why: the known names), -2 when it cannot run here (why:
 * the reason). */
int cli_transport(const char *name, char *why, size_t len);

#endif
