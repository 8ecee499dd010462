/*
 * plane_ops.h - the control plane's table: what differs between the plane
 * over the shared control area (plane.c, wait.c) and the one over the
 * transport (net.c), one table each, chosen once per job (job->plane,
 * plane.h).  Apart from plane.h, so that the waits can call through it.
 */
#ifndef SHMEMU_PLANE_OPS_H
#define SHMEMU_PLANE_OPS_H

#include <stdint.h>

#include "runtime/core.h"

struct shmemu__team_geom;
struct shmemu__ctl_pe;
struct shmemu__wait_desc;

struct shmemu__plane_ops {
    const char *name;
    int (*claim_report)(struct shmemu__job *job);
    int (*abort_job)(struct shmemu__job *job, int status, int pe, int rc, const char *msg,
                     const char *report);
    void (*wake_all)(struct shmemu__job *job);
    /* After me's life is set: tell the others it left. */
    void (*depart)(shmemu__pe *me);
    int (*team)(shmemu__pe *me, int slot, struct shmemu__team_geom *g);
    int (*team_claim)(shmemu__pe *me, struct shmemu__team_geom *g);
    void (*team_leave)(shmemu__pe *me, int slot);
    const struct shmemu__rec *(*record)(shmemu__pe *me, int pe);
    int32_t (*out)(shmemu__pe *me, int pe, int k);
    /* PE p's block as it is now (NULL: p did not answer). */
    struct shmemu__ctl_pe *(*block)(shmemu__pe *me, int p);
    /* A value wait once spinning is over; one sync of team slot. */
    int (*wait)(shmemu__pe *me, const struct shmemu__wait_desc *d,
                int (*ready)(shmemu__pe *me, void *arg), void *arg);
    int (*team_sync)(shmemu__pe *me, int slot, const char *call, int ctl);
};

/* The plane over the shared control area (plane.c): the waits call it
 * directly when it is the job's, and through the table otherwise. */
extern const struct shmemu__plane_ops shmemu__shared_plane SHMEMU__HIDDEN;

#endif
