/*
 * device.h - what the device-initiated collectives' host entries
 * (device.c) hand to their kernels (device_kernels.cu).  Plain C, read by
 * both: the kernels' argument struct and the launcher between them.
 */
#ifndef SHMEMU_COLL_DEVICE_H
#define SHMEMU_COLL_DEVICE_H

#include <stddef.h>
#include <stdint.h>

/* Which kernel a launch runs. */
enum {
    DC_ONESHOT,   /* allreduce: every PE reads every peer's src */
    DC_TWOSHOT,   /* allreduce: reduce my chunk, then gather the others' */
    DC_AG_RING,   /* allgather: chunks pushed round the ring */
    DC_RS_RING,   /* reduce-scatter: partials pulled round the ring */
    DC_BCAST_PULL /* broadcast: every PE reads the root's src */
};

/* Words of the team's workspace the kernels use beside coll.h's W_PUSH,
 * W_PROD, W_CONS and W_ROUND (whose tags they share, as they take their
 * sequence number from W_SEQ like every collective): blocks of this PE
 * arriving at a grid-wide step, and its release. */
enum { DC_W_ARRIVE = 233, DC_W_RELEASE = 234 };
/* coll.h's words again (device.c checks that they agree): its enum comes
 * with C inline functions the kernels' nvcc build does not take. */
enum { DC_W_PROD = 1, DC_W_CONS = 2, DC_W_PUSH = 3, DC_W_ROUND = 40, DC_MAX_ROUNDS = 64 };

/* A kernel's one argument (by value). */
struct shmemu__devcoll {
    int kind;
    int dtype, op;        /* shmemu_dtype_t, shmemu_op_t */
    void *dest;
    const void *src;
    size_t count;         /* the collective's count (per chunk for the rings) */
    size_t esize;
    int n, me;            /* team size, my team PE */
    int pe0, stride;      /* world PE of member i: pe0 + i * stride */
    int root;             /* broadcast */
    uint64_t *ws;         /* the team's workspace */
    uint64_t seq;         /* this call's sequence number */
};

#ifdef __cplusplus
extern "C" {
#endif
/* Launch a's kernel on the calling PE and wait for it: SHMEMU_OK or a
 * status (the launch's own, reported). */
int shmemu__devcoll_launch(const struct shmemu__devcoll *a)
    __attribute__((visibility("hidden")));
#ifdef __cplusplus
}
#endif

#endif
