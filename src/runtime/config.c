/* config.c - parsing the SHMEMU_* environment (see config.h for the list). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shmemu.h"

const struct shmemu__param_info shmemu__param_table[] = {
#define X(field, kind, dflt, help) {"SHMEMU_" #field, SHMEMU__PARAM_##kind, dflt, help},
    SHMEMU_PARAMS(X)
#undef X
};
const int shmemu__param_count =
    (int)(sizeof(shmemu__param_table) / sizeof(shmemu__param_table[0]));

int shmemu__parse_size(const char *s, size_t *out)
{
    if (!s)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s)) /* rejects "-1", "", "abc" */
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    /* A fraction, as OpenSHMEM's SHMEM_SYMMETRIC_SIZE allows ("3.1m"):
     * the size is the ceiling of the product. */
    long double frac = 0;
    if (*end == '.') {
        const char *f = end;
        end++;
        while (isdigit((unsigned char)*end))
            end++;
        if (end == f + 1)
            return -1;
        frac = strtold(f, NULL);
    }
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift && (*end == 'i' || *end == 'I'))
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -1;
    if (shift && v > (ULLONG_MAX >> shift))
        return -1;
    v <<= shift;
    if (frac > 0) {
        long double add = ceill(frac * (long double)(1ULL << shift));
        if ((long double)(SIZE_MAX / 2 - (v < SIZE_MAX / 2 ? v : SIZE_MAX / 2)) < add)
            return -1;
        v += (unsigned long long)add;
    }
    if (v > SIZE_MAX / 2) /* leaves room for rounding up without overflow */
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_int(const char *s, int64_t *out)
{
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

int shmemu__parse_check(const char *s, struct shmemu__check_cfg *out)
{
    struct shmemu__check_cfg c = {0};
    c.seed = 1;
    if (!s)
        return -1;
    if (!*s || strcasecmp(s, "off") == 0 || strcmp(s, "0") == 0) {
        *out = c;
        return 0;
    }
    char buf[128];
    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        if (colon) {
            char *end;
            errno = 0;
            unsigned long long seed = strtoull(colon + 1, &end, 10);
            if (errno || end == colon + 1 || *end || colon[1] == '-')
                return -1;
            c.seed = seed;
            *colon = '\0';
        }
        if (strcasecmp(tok, "fuzz") == 0)
            c.fuzz = 1;
        else if (strcasecmp(tok, "race") == 0)
            c.race = 1;
        else if (strcasecmp(tok, "calls") == 0 && !colon)
            c.race = c.race_calls = 1;
        else if (strcasecmp(tok, "device") == 0 && !colon)
            c.device = 1;
        else if (strcasecmp(tok, "all") == 0)
            c.fuzz = c.race = 1;
        else
            return -1;
    }
    *out = c;
    return 0;
}

static int parse_seconds(const char *s, double *out)
{
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v != v || (v < 0 && v != -1))
        return -1;
    *out = v;
    return 0;
}

static int parse_one(struct shmemu__params *p, const struct shmemu__param_info *info,
                     void *field, const char *text)
{
    switch (info->kind) {
    case SHMEMU__PARAM_STRING:
        *(const char **)field = text;
        return 0;
    case SHMEMU__PARAM_SIZE:
        return shmemu__parse_size(text, (size_t *)field);
    case SHMEMU__PARAM_INT:
        return parse_int(text, (int64_t *)field);
    case SHMEMU__PARAM_COUNT:
        return parse_int(text, (int64_t *)field) || *(int64_t *)field < 1 ||
                       *(int64_t *)field > UINT32_MAX
                   ? -1
                   : 0;
    case SHMEMU__PARAM_CHECK:
        return shmemu__parse_check(text, (struct shmemu__check_cfg *)field);
    case SHMEMU__PARAM_SECONDS:
        return parse_seconds(text, (double *)field);
    case SHMEMU__PARAM_BIND:
        if (strcasecmp(text, "auto") == 0)
            p->BIND = SHMEMU__BIND_AUTO;
        else if (strcasecmp(text, "core") == 0)
            p->BIND = SHMEMU__BIND_CORE;
        else if (strcasecmp(text, "none") == 0)
            p->BIND = SHMEMU__BIND_NONE;
        else
            return -1;
        return 0;
    case SHMEMU__PARAM_AUTO:
        if (strcasecmp(text, "auto") == 0)
            *(int *)field = -1;
        else if (strcasecmp(text, "on") == 0 || strcmp(text, "1") == 0)
            *(int *)field = 1;
        else if (strcasecmp(text, "off") == 0 || strcmp(text, "0") == 0)
            *(int *)field = 0;
        else
            return -1;
        return 0;
    case SHMEMU__PARAM_ERRMODE:
        if (strcasecmp(text, "abort") == 0)
            p->ERRORS = SHMEMU_ERRORS_ABORT;
        else if (strcasecmp(text, "return") == 0)
            p->ERRORS = SHMEMU_ERRORS_RETURN;
        else
            return -1;
        return 0;
    }
    return -1;
}

/* OpenSHMEM's own names for a setting, read when shmemu's is unset, so
 * that a job script written for another OpenSHMEM keeps its meaning; the
 * deprecated SMA_ name after the SHMEM_ one, as the specification orders. */
static const char *const spec_alias[][2] = {
    {"SHMEMU_HEAP_SIZE", "SHMEM_SYMMETRIC_SIZE"},
    {"SHMEMU_HEAP_SIZE", "SMA_SYMMETRIC_SIZE"},
};

const char *shmemu__param_source(const struct shmemu__param_info *info)
{
    const char *v = getenv(info->name);
    if (v && *v)
        return info->name;
    for (size_t i = 0; i < sizeof(spec_alias) / sizeof(spec_alias[0]); i++)
        if (strcmp(spec_alias[i][0], info->name) == 0) {
            v = getenv(spec_alias[i][1]);
            if (v && *v)
                return spec_alias[i][1];
        }
    return info->name;
}

int shmemu__params_load(struct shmemu__params *p, char *why, size_t why_len)
{
    void *fields[] = {
#define X(field, kind, dflt, help) &p->field,
        SHMEMU_PARAMS(X)
#undef X
    };
    for (int i = 0; i < shmemu__param_count; i++) {
        const struct shmemu__param_info *info = &shmemu__param_table[i];
        if (parse_one(p, info, fields[i], info->dflt) != 0)
            abort(); /* a default that does not parse is a build bug */
        const char *name = shmemu__param_source(info);
        const char *env = getenv(name);
        if (env && *env && parse_one(p, info, fields[i], env) != 0) {
            snprintf(why, why_len, "%s='%s' is malformed (%s; default %s)", name, env,
                     info->help, info->dflt);
            return SHMEMU_EINVAL;
        }
    }
    return SHMEMU_OK;
}

void shmemu__params_print(FILE *f)
{
    for (int i = 0; i < shmemu__param_count; i++) {
        const struct shmemu__param_info *p = &shmemu__param_table[i];
        const char *name = shmemu__param_source(p);
        const char *v = getenv(name);
        const char *dflt = *p->dflt ? p->dflt : "(unset)";
        fprintf(f, "  %-18s = %-8s [%s]%s%s\n      %s\n", p->name, v && *v ? v : dflt, dflt,
                strcmp(name, p->name) ? " from " : "",
                strcmp(name, p->name) ? name : "", p->help);
    }
}
