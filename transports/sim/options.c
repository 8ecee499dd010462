/*
 * options.c - SHMEMU_SIM: the strategy, seed, PCT depth and length, stack
 * size, guard and watchdog of a sim job, parsed and checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int parse_size(const char *v, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || end == v)
        return -1;
    if (*end == 'K' || *end == 'k')
        n <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        n <<= 20, end++;
    if (*end || n < 16384 || n > ((size_t)1 << 30))
        return -1;
    *out = (size_t)n;
    return 0;
}

static int parse_u64(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || end == v || *end || *v == '-')
        return -1;
    *out = n;
    return 0;
}

/* SHMEMU_SIM: comma-separated items (docs/SIM.md). */
int shmemu__sim_parse_opts(const char *spec, struct sim_opts *o, char *why, size_t len)
{
    *o = (struct sim_opts){.strategy = STRAT_RANDOM, .depth = 3, .seed = 1, .steps = 0,
                           .stack = (size_t)256 << 10, .watchdog = 10, .guard = 1};
    if (!spec)
        return 0;
    char buf[256];
    if (strlen(spec) >= sizeof(buf)) {
        snprintf(why, len, "SHMEMU_SIM is longer than %zu characters", sizeof(buf) - 1);
        return -1;
    }
    strcpy(buf, spec);
    for (char *save = NULL, *it = strtok_r(buf, ",", &save); it;
         it = strtok_r(NULL, ",", &save)) {
        char *v = strchr(it, ':');
        if (v)
            *v++ = '\0';
        uint64_t n = 0;
        int bad = 0;
        if (!strcmp(it, "random") && !v) {
            o->strategy = STRAT_RANDOM;
        } else if (!strcmp(it, "rr") && !v) {
            o->strategy = STRAT_RR;
        } else if (!strcmp(it, "pct")) {
            o->strategy = STRAT_PCT;
            if (v && (parse_u64(v, &n) || n < 1 || n > 16))
                bad = 1;
            else if (v)
                o->depth = (int)n;
        } else if (!strcmp(it, "seed") && v) {
            bad = parse_u64(v, &o->seed);
            o->seed_given = 1;
        } else if (!strcmp(it, "steps") && v) {
            bad = parse_u64(v, &o->steps) || o->steps == 0;
        } else if (!strcmp(it, "stack") && v) {
            bad = parse_size(v, &o->stack);
        } else if (!strcmp(it, "guard") && v) {
            bad = parse_u64(v, &n) || n > 1;
            o->guard = (int)n;
        } else if (!strcmp(it, "watchdog") && v) {
            char *end;
            o->watchdog = strtod(v, &end);
            bad = end == v || *end || !(o->watchdog >= 0);
        } else {
            snprintf(why, len,
                     "SHMEMU_SIM '%s': unknown item '%s' (known: random, rr, pct[:DEPTH], "
                     "seed:N, steps:N, stack:SIZE, guard:0|1, watchdog:SECONDS)",
                     spec, it);
            return -1;
        }
        if (bad) {
            snprintf(why, len,
                     "SHMEMU_SIM '%s': bad value '%s' for %s (pct:1..16, seed:N, steps:N>0, "
                     "stack:16K..1G, guard:0|1, watchdog:SECONDS>=0)",
                     spec, v ? v : "", it);
            return -1;
        }
    }
    return 0;
}
