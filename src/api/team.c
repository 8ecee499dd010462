/*
 * team.c - teams: strided subsets of the world, each with a slot of the
 * control plane (src/ctl/plane.h) that holds its membership and its barrier.
 *
 * Every team, however it was split, is a strided set of world PEs (a strided
 * subset of a strided set is strided), so a slot stores (start, stride, size)
 * in world numbering.  A handle is slot + SHMEMU__TEAMS_MAX * epoch; the
 * epoch changes when a slot is reused, so a stale handle is recognised.
 */
#include <stdio.h>
#include <string.h>

#include "runtime/core.h"
#include "ctl/agree.h"
#include "ctl/plane.h"
#include "ctl/wait.h"

struct team_view {
    int slot;
    int start, stride, size; /* world numbering */
    int num_contexts;        /* from the team's config */
    int me;                  /* this PE's index in the team, or -1 */
};

static int member_index(int start, int stride, int size, int pe)
{
    if (stride == 0)
        return pe == start ? 0 : -1;
    int d = pe - start;
    if (d % stride)
        return -1;
    int i = d / stride;
    return i >= 0 && i < size ? i : -1;
}

/* 0 and *v filled, -1 for a handle that names no live team, -2 for a
 * team this PE destroyed. */
static int decode(shmemu__pe *me, shmemu_team_t h, struct team_view *v)
{
    if (h < 0)
        return -1;
    int slot = h % SHMEMU__TEAMS_MAX;
    uint32_t epoch = (uint32_t)(h / SHMEMU__TEAMS_MAX);
    struct shmemu__team_geom t;
    if (me->team_gone[slot] == h && slot != 0)
        return -2;
    if (shmemu__plane_team(me, slot, &t) || t.epoch != epoch)
        return -1;
    v->slot = slot;
    v->start = t.start;
    v->stride = t.stride;
    v->size = t.size;
    v->num_contexts = t.num_contexts;
    v->me = member_index(v->start, v->stride, v->size, me->pe);
    return 0;
}

/* The handle of the team in slot as of epoch.  The epoch wraps where the
 * handle would overflow; decode compares it the same way. */
static shmemu_team_t encode(uint32_t epoch, int slot)
{
    epoch %= (uint32_t)(INT32_MAX / SHMEMU__TEAMS_MAX);
    return (shmemu_team_t)(slot + SHMEMU__TEAMS_MAX * (int)epoch);
}

/* A valid team of which this PE is a member, or a reported SHMEMU_EINVAL. */
static int member_view(shmemu__pe *me, const char *call, shmemu_team_t team,
                       struct team_view *v)
{
    int d = decode(me, team, v);
    if (d == -2)
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "team %d was destroyed on this PE (%s_team_destroy)", team,
                            shmemu__api_of(shmemu__user_call(call)));
    if (d != 0)
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "team %d is not a valid team handle (destroyed, or never "
                            "created)",
                            team);
    if (v->me < 0)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "this PE is not a member of team %d",
                            team);
    return SHMEMU_OK;
}

static size_t workspace_off(const shmemu__pe *me, int slot)
{
    return me->heap_size - SHMEMU__WORKSPACE_TOTAL + (size_t)slot * SHMEMU_TEAM_WORKSPACE_BYTES;
}

void *shmemu_team_workspace(shmemu_team_t team)
{
    static const char call[] = "shmemu_team_workspace";
    SHMEMU__ENTER_NOPOINT(me, call, NULL);
    struct team_view v;
    if (member_view(me, call, team, &v))
        return NULL;
    shmemu__ok();
    return me->heap + workspace_off(me, v.slot);
}

/* Claim a free slot for a new team and fill it; -1 when all are in use. */
static int claim_slot(shmemu__pe *me, int start, int stride, int size,
                      const shmemu_team_config_t *config, long mask)
{
    struct shmemu__team_geom g = {
        .start = start, .stride = stride, .size = size,
        .num_contexts = config && (mask & SHMEMU_TEAM_NUM_CONTEXTS) ? config->num_contexts : 0};
    return shmemu__plane_team_claim(me, &g);
}

/* One new team of a split, seen from one parent PE: its members, in parent
 * numbering, and whether this PE leads it (claims its slot). */
struct new_team {
    int pstart, pstride, size; /* parent numbering */
    const shmemu_team_config_t *config;
    long mask;
};

/*
 * The part every split shares, after the arguments were agreed: leaders
 * claim slots and publish them in rec.out[k]; after a sync every member
 * reads its leader's; after another sync records may be reused.
 * nt[k].size == 0: this PE is in no team k.
 */
static int create_teams(shmemu__pe *me, const char *call, const struct team_view *pv,
                        const struct new_team *nt, int nteams, shmemu_team_t *out[])
{
    for (int k = 0; k < nteams; k++) {
        const struct new_team *n = &nt[k];
        int slot = -2; /* not a leader */
        if (n->size && pv->me == n->pstart) {
            slot = claim_slot(me, pv->start + n->pstart * pv->stride,
                              pv->stride * n->pstride, n->size, n->config, n->mask);
            if (slot < 0 && !shmemu__lenient)
                shmemu__fail(me, SHMEMU_ENOMEM, call,
                             "no free team slot: all %d are in use (destroy teams "
                             "that are no longer needed)",
                             SHMEMU__TEAMS_MAX);
        }
        shmemu__plane_publish_out(me, k, slot);
    }
    int st = shmemu__team_sync(me, pv->slot, call);
    if (st)
        return st;
    int failed = 0;
    for (int k = 0; k < nteams; k++) {
        const struct new_team *n = &nt[k];
        if (!n->size)
            continue;
        int leader = pv->start + n->pstart * pv->stride;
        int slot = shmemu__plane_out(me, leader, k);
        struct shmemu__team_geom g;
        if (slot < 0 || shmemu__plane_team(me, slot, &g)) {
            failed = 1;
            continue;
        }
        *out[k] = encode(g.epoch, slot);
        me->rec_seq[slot] = 0; /* this team's control calls start here */
        /* A reused slot's workspace still holds the last team's words. */
        shmemu__own_heap_fill(me, workspace_off(me, slot), NULL, SHMEMU_TEAM_WORKSPACE_BYTES);
    }
    if ((st = shmemu__team_sync(me, pv->slot, call)))
        return st;
    if (failed)
        return shmemu__last_status = SHMEMU_ENOMEM;
    return shmemu__ok();
}

/* Start a split over parent: *outs set to INVALID, the parent checked and the
 * arguments agreed.  Returns SHMEMU_OK to go on. */
static int split_begin(shmemu__pe *me, const char *call, shmemu_team_t parent,
                       struct shmemu__rec *rec, int nargs, struct team_view *pv)
{
    if (parent == SHMEMU_TEAM_INVALID) /* defined: no team, nonzero result */
        return shmemu__last_status = SHMEMU_EINVAL;
    int st = member_view(me, call, parent, pv);
    if (st)
        return st;
    return shmemu__agree_ctl(me, call, pv->slot, rec, nargs);
}

static int triplet_valid(int start, int stride, int size, int parent_size)
{
    long long last = (long long)start + (long long)(size - 1) * stride;
    return size >= 1 && start >= 0 && start < parent_size && last >= 0 &&
           last < parent_size && (stride != 0 || size == 1);
}

_Thread_local int shmemu__lenient;

/* The report of an invalid triplet, by reporter alone; none where the
 * caller's API defines it as a returned status (shmemu__lenient). */
static int bad_triplet(shmemu__pe *me, int reporter, const char *call, int start, int stride,
                       int size, int parent_size)
{
    if (shmemu__lenient)
        return shmemu__last_status = SHMEMU_EINVAL;
    return shmemu__collective_fail(me, reporter, SHMEMU_EINVAL, call,
                                   "start %d, stride %d, size %d do not name PEs of a parent "
                                   "team of %d PEs",
                                   start, stride, size, parent_size);
}

/*
 * A split in which PEs passed different triplets, as OpenSHMEM programs do
 * to make a team of each PE or of each group (SOS, Cray SHMEM accept it):
 * fine as long as the members of each new team all passed its triplet.
 * Each PE checks its own triplet and, if it is in it, the triplets of its
 * team's members; a PE whose team holds a PE that passed another triplet
 * finds the fault.  The verdicts are then read by all, and the first PE
 * (in parent order) that found one reports it; all return the status.
 */
static int split_mixed(shmemu__pe *me, const char *call, const struct team_view *pv,
                       const struct shmemu__rec *rec)
{
    int start = (int)rec->a[0], stride = (int)rec->a[1], size = (int)rec->a[2];
    int verdict = SHMEMU_OK, other = -1;
    if (!triplet_valid(start, stride, size, pv->size))
        verdict = SHMEMU_EINVAL;
    else if (member_index(start, stride, size, pv->me) >= 0)
        for (int i = 0; i < size && other < 0; i++) {
            const struct shmemu__rec *r =
                shmemu__plane_record(me, pv->start + (start + i * stride) * pv->stride);
            if (memcmp(r->a, rec->a, 3 * sizeof(rec->a[0])))
                other = start + i * stride;
        }
    if (other >= 0)
        verdict = SHMEMU_EMISMATCH;
    shmemu__plane_publish_out(me, 1, verdict);
    int st = shmemu__team_sync(me, pv->slot, call);
    if (st)
        return st;
    int first = -1;
    for (int i = 0; i < pv->size && first < 0; i++)
        if (shmemu__plane_out(me, pv->start + i * pv->stride, 1))
            first = i;
    if (first < 0)
        return SHMEMU_OK;
    int fst = shmemu__plane_out(me, pv->start + first * pv->stride, 1);
    if (first == pv->me && verdict == SHMEMU_EINVAL)
        bad_triplet(me, 1, call, start, stride, size, pv->size);
    else if (first == pv->me) {
        const struct shmemu__rec *r =
            shmemu__plane_record(me, pv->start + other * pv->stride);
        shmemu__fail(me, fst, call,
                     "PEs disagree: PE %d passed start %d, stride %d, size %d, a team that "
                     "holds PE %d, but PE %d passed start %lld, stride %lld, size %lld (the "
                     "members of a new team must pass its triplet)",
                     pv->me, start, stride, size, other, other, (long long)r->a[0],
                     (long long)r->a[1], (long long)r->a[2]);
    }
    (void)shmemu__team_sync(me, pv->slot, call); /* records stay readable */
    return shmemu__last_status = fst;
}

int shmemu_team_split_strided(shmemu_team_t parent, int start, int stride, int size,
                              const shmemu_team_config_t *config, long config_mask,
                              shmemu_team_t *new_team)
{
    static const char call[] = "shmemu_team_split_strided";
    SHMEMU__ENTER(me, call, shmemu__last_status);
    if (!new_team)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "new_team is NULL");
    *new_team = SHMEMU_TEAM_INVALID;
    struct team_view pv;
    struct shmemu__rec rec = {.kind = REC_SPLIT_STRIDED, .a = {start, stride, size}};
    /* The triplets are compared below: PEs may pass different ones. */
    int st = split_begin(me, call, parent, &rec, 0, &pv);
    if (st)
        return st;
    int same = 1;
    for (int i = 0; i < pv.size && same; i++)
        same = memcmp(shmemu__plane_record(me, pv.start + i * pv.stride)->a, rec.a,
                      3 * sizeof(rec.a[0])) == 0;
    if (!same && (st = split_mixed(me, call, &pv, &rec)))
        return st;
    if (same && !triplet_valid(start, stride, size, pv.size)) {
        bad_triplet(me, pv.me == 0, call, start, stride, size, pv.size);
        (void)shmemu__team_sync(me, pv.slot, call); /* records stay readable */
        return shmemu__last_status = SHMEMU_EINVAL;
    }
    int in = member_index(start, stride, size, pv.me) >= 0;
    struct new_team nt = {start, stride, in ? size : 0, config, config_mask};
    /* The leader (parent PE `start`) is always in the team it leads. */
    shmemu_team_t *outs[] = {new_team};
    return create_teams(me, call, &pv, &nt, 1, outs);
}

int shmemu_team_split_2d(shmemu_team_t parent, int xrange,
                         const shmemu_team_config_t *xaxis_config, long xaxis_mask,
                         shmemu_team_t *xaxis_team,
                         const shmemu_team_config_t *yaxis_config, long yaxis_mask,
                         shmemu_team_t *yaxis_team)
{
    static const char call[] = "shmemu_team_split_2d";
    SHMEMU__ENTER(me, call, shmemu__last_status);
    if (!xaxis_team || !yaxis_team)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "%s is NULL",
                            xaxis_team ? "yaxis_team" : "xaxis_team");
    *xaxis_team = *yaxis_team = SHMEMU_TEAM_INVALID;
    struct team_view pv;
    struct shmemu__rec rec = {.kind = REC_SPLIT_2D, .a = {xrange}};
    int st = split_begin(me, call, parent, &rec, 1, &pv);
    if (st)
        return st;
    if (xrange < 1) {
        if (!shmemu__lenient)
            shmemu__collective_fail(me, pv.me == 0, SHMEMU_EINVAL, call,
                                    "xrange %d is not positive", xrange);
        (void)shmemu__team_sync(me, pv.slot, call);
        return shmemu__last_status = SHMEMU_EINVAL;
    }
    int n = pv.size, x = pv.me % xrange, y = pv.me / xrange;
    int row = y * xrange;
    struct new_team nt[2] = {
        /* x-axis team: this PE's row, ranked by x */
        {row, 1, (n - row < xrange ? n - row : xrange), xaxis_config, xaxis_mask},
        /* y-axis team: this PE's column, ranked by y */
        {x, xrange, (n - x + xrange - 1) / xrange, yaxis_config, yaxis_mask},
    };
    shmemu_team_t *outs[] = {xaxis_team, yaxis_team};
    return create_teams(me, call, &pv, nt, 2, outs);
}

int shmemu_team_my_pe(shmemu_team_t team)
{
    SHMEMU__ENTER_NOPOINT(me, "shmemu_team_my_pe", -1);
    struct team_view v;
    shmemu__ok();
    return decode(me, team, &v) == 0 ? v.me : -1;
}

int shmemu_team_n_pes(shmemu_team_t team)
{
    SHMEMU__ENTER_NOPOINT(me, "shmemu_team_n_pes", -1);
    struct team_view v;
    shmemu__ok();
    return decode(me, team, &v) == 0 ? v.size : -1;
}

int shmemu_team_translate_pe(shmemu_team_t src, int src_pe, shmemu_team_t dest)
{
    SHMEMU__ENTER_NOPOINT(me, "shmemu_team_translate_pe", -1);
    struct team_view s, d;
    shmemu__ok();
    if (decode(me, src, &s) || decode(me, dest, &d) || src_pe < 0 || src_pe >= s.size)
        return -1;
    return member_index(d.start, d.stride, d.size, s.start + src_pe * s.stride);
}

int shmemu_team_get_config(shmemu_team_t team, long config_mask,
                           shmemu_team_config_t *config)
{
    static const char call[] = "shmemu_team_get_config";
    SHMEMU__ENTER_NOPOINT(me, call, shmemu__last_status);
    struct team_view v;
    if (!config)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "config is NULL");
    int st = member_view(me, call, team, &v);
    if (st)
        return st;
    if (config_mask & SHMEMU_TEAM_NUM_CONTEXTS)
        config->num_contexts = v.num_contexts;
    return shmemu__ok();
}

int shmemu_team_sync(shmemu_team_t team)
{
    static const char call[] = "shmemu_team_sync";
    SHMEMU__ENTER(me, call, shmemu__last_status);
    struct team_view v;
    int st = member_view(me, call, team, &v);
    if (!st && SHMEMU__CHECKED(me))
        shmemu__check_sync_arrive(me, v.slot, call);
    if (!st)
        st = shmemu__team_sync(me, v.slot, call);
    if (!st && SHMEMU__CHECKED(me))
        shmemu__check_synced(me);
    return st ? st : shmemu__ok();
}

int shmemu_team_agree(shmemu_team_t team, const char *call, const char *names,
                      const long long *vals, int nvals)
{
    static const char me_call[] = "shmemu_team_agree";
    SHMEMU__ENTER(me, me_call, shmemu__last_status);
    struct team_view v;
    if (!call || !names || (nvals && !vals) || nvals < 0 || nvals > 5)
        return shmemu__fail(me, SHMEMU_EINVAL, me_call,
                            "%s", !call ? "call is NULL" : !names ? "names is NULL"
                                  : nvals < 0 || nvals > 5 ? "nvals is not in 0..5"
                                                           : "vals is NULL");
    int st = member_view(me, call, team, &v);
    if (st)
        return st;
    struct shmemu__rec rec = {.kind = REC_COLL};
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a of the call's name */
    for (const char *c = call; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    for (int i = 0; i < nvals; i++)
        rec.a[i] = vals[i];
    rec.a[5] = (int64_t)h;
    shmemu__agree_names = names;
    st = shmemu__agree(me, call, v.slot, &rec, 6);
    shmemu__agree_names = NULL;
    if (st)
        return st;
    /* no member may publish its next record while another reads this one */
    st = shmemu__team_sync_as(me, v.slot, call, 1);
    return st ? st : shmemu__ok();
}

void shmemu_team_destroy(shmemu_team_t team)
{
    static const char call[] = "shmemu_team_destroy";
    SHMEMU__ENTER(me, call, );
    if (team == SHMEMU_TEAM_INVALID) {
        shmemu__ok();
        return;
    }
    if (team == SHMEMU_TEAM_WORLD || team == SHMEMU_TEAM_SHARED) {
        shmemu__fail(me, SHMEMU_EINVAL, call, "the predefined team %s_TEAM_%s cannot be destroyed",
                     shmemu__api_const_of(shmemu__user_call(call)),
                     team == SHMEMU_TEAM_WORLD ? "WORLD" : "SHARED");
        return;
    }
    struct team_view v;
    if (member_view(me, call, team, &v))
        return;
    me->team_gone[v.slot] = team;
    shmemu__plane_team_leave(me, v.slot);
    shmemu__ok();
}
