/*
 * osh_check.h - the check of the OpenSHMEM test programs: one "FAIL" line
 * per wrong value (PE and line), counted in failures (any thread may fail).
 */
#ifndef OSH_CHECK_H
#define OSH_CHECK_H

#include <shmem.h>
#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("FAIL PE %d line %d: ", shmem_my_pe(), __LINE__);           \
            printf(__VA_ARGS__);                                               \
            printf("\n");                                                      \
            __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);                \
        }                                                                      \
    } while (0)

#endif /* OSH_CHECK_H */
