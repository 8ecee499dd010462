/*
 * cli.c - command-line values for the tools (cli.h).  On the public API
 * alone: shmemu-verify links the shared library, which exports no more.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmemu.h"

void cli_die(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

int cli_size(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        end++;
        /* 4K, 4KB, 4Ki, 4KiB */
        if (!strcmp(end, "i") || !strcmp(end, "iB") || !strcmp(end, "B"))
            end += strlen(end);
        if (v > (UINT64_MAX >> shift))
            return -1;
        v <<= shift;
    } else if (!strcmp(end, "B")) {
        end++;
    }
    if (*end)
        return -1;
    *out = v;
    return 0;
}

int cli_long(const char *s, long long lo, long long hi, long long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_seconds(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    double v = strtod(s, &end);
    if (*end || end == s || !(v > 0) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int cli_transport(const char *name, char *why, size_t len)
{
    const char *t;
    int usable;
    char reason[256];
    size_t at = 0;
    if (len)
        why[0] = '\0';
    for (int k = 0; shmemu_transport_info(k, &t, &usable, reason, sizeof(reason)) == SHMEMU_OK;
         k++) {
        if (!strcmp(t, name)) {
            if (usable)
                return 0;
            snprintf(why, len, "%s", reason);
            return -2;
        }
        if (at < len)
            at += (size_t)snprintf(why + at, len - at, "%s%s", k ? ", " : "", t);
    }
    return -1;
}
