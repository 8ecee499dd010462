/*
 * agree.c - argument agreement: a control collective (allocation, free,
 * resize, a collective's shmemu_team_agree) publishes this PE's record,
 * syncs, and compares every member's; a mismatch is reported once, naming
 * both PEs and what each passed, and the team stays usable.
 */
#include <stdio.h>
#include <string.h>

#include "agree.h"
#include "plane.h"
#include "runtime/core.h"
#include "wait.h"

_Thread_local const char *shmemu__agree_names;

static const char *rec_name(int kind)
{
    switch (kind) {
    case REC_ALLOC: return "an allocation";
    case REC_FREE: return "a free";
    case REC_REALLOC: return "a realloc";
    case REC_SPLIT_STRIDED: return "a strided team split";
    case REC_SPLIT_2D: return "a 2-D team split";
    case REC_COLL: return "a collective call";
    default: return "a control call";
    }
}

static void describe(const struct shmemu__rec *r, char *buf, size_t len)
{
    switch (r->kind) {
    case REC_ALLOC:
        snprintf(buf, len, "size %lld, alignment %lld", (long long)r->a[1],
                 (long long)r->a[0]);
        break;
    case REC_FREE:
    case REC_REALLOC: {
        /* block_start's codes for what is no block, as the user would say it */
        char blk[48];
        switch ((size_t)r->a[0]) {
        case (size_t)-1: snprintf(blk, sizeof(blk), "a pointer that is no heap block"); break;
        case (size_t)-2: snprintf(blk, sizeof(blk), "NULL"); break;
        case SHMEMU__REC_WORKSPACE: snprintf(blk, sizeof(blk), "a team workspace address"); break;
        default: snprintf(blk, sizeof(blk), "block at heap offset 0x%llx", (long long)r->a[0]);
        }
        if (r->kind == REC_FREE)
            snprintf(buf, len, "%s", blk);
        else
            snprintf(buf, len, "%s, size %lld", blk, (long long)r->a[1]);
        break;
    }
    case REC_SPLIT_STRIDED:
        snprintf(buf, len, "start %lld, stride %lld, size %lld", (long long)r->a[0],
                 (long long)r->a[1], (long long)r->a[2]);
        break;
    case REC_SPLIT_2D:
        snprintf(buf, len, "xrange %lld", (long long)r->a[0]);
        break;
    case REC_COLL: { /* "count 17, root 0" from the labels */
        const char *n = shmemu__agree_names ? shmemu__agree_names : "";
        size_t used = 0;
        buf[0] = '\0';
        for (int i = 0; i < 5 && *n && used < len; i++) {
            size_t l = strcspn(n, ",");
            long long v = (long long)r->a[i];
            /* The built-in collectives' labels read as the user wrote
             * them: an op and a type by name, no root, type or op where
             * the call has none (-1). */
            int is_op = l == 2 && !strncmp(n, "op", 2), is_root = l == 4 && !strncmp(n, "root", 4);
            int is_dtype = l == 5 && !strncmp(n, "dtype", 5);
            int w = 0;
            if ((is_op || is_root || is_dtype) && v == -1)
                w = 0;
            else if (is_op)
                w = snprintf(buf + used, len - used, "%sop %s", used ? ", " : "",
                             shmemu_op_name((shmemu_op_t)v));
            else if (is_dtype)
                w = snprintf(buf + used, len - used, "%sdtype %s", used ? ", " : "",
                             shmemu_dtype_name((shmemu_dtype_t)v));
            else
                w = snprintf(buf + used, len - used, "%s%.*s %lld", used ? ", " : "", (int)l,
                             n, v);
            used += w > 0 ? (size_t)w : 0;
            n += l + (n[l] == ',');
        }
        break;
    }
    default:
        snprintf(buf, len, "%s #%u", rec_name(r->kind), r->seq);
    }
}

int shmemu__agree(shmemu__pe *me, const char *call, int slot, struct shmemu__rec *rec,
                  int nargs)
{
    /* Completing what this PE issued is the caller's (a control
     * collective completes first; shmemu_team_agree completes nothing:
     * the checker must still see what the collective leaves in flight). */
    int st;
    struct shmemu__team_geom t;
    if (shmemu__plane_team(me, slot, &t))
        return shmemu__fail(me, SHMEMU_EINVAL, call, "team slot %d holds no team", slot);
    rec->seq = ++me->rec_seq[slot];
    rec->team = slot;
    shmemu__plane_publish(me, rec);
    /* Every control collective finds a mismatch here, at its first sync,
     * and then syncs exactly once more: however PEs' calls differ, they
     * leave in step and the team stays usable (RETURN mode). */
    st = shmemu__team_sync_as(me, slot, call, 1);
    if (st && st != SHMEMU_EMISMATCH)
        return st;
    int mixed = st == SHMEMU_EMISMATCH;
    for (int i = 0; i < t.size; i++) {
        int p = t.start + i * t.stride;
        const struct shmemu__rec *r = shmemu__plane_record(me, p);
        int same = r->seq == rec->seq && r->kind == rec->kind && r->team == rec->team &&
                   memcmp(r->a, rec->a, (size_t)nargs * sizeof(rec->a[0])) == 0;
        if (same)
            continue;
        char mine[96], theirs[112];
        describe(rec, mine, sizeof(mine));
        if (r->seq != rec->seq || r->team != rec->team)
            snprintf(theirs, sizeof(theirs),
                     "is not in this call (it is in a barrier, a team sync or another "
                     "team's call)");
        else if (r->kind == REC_COLL && rec->kind == REC_COLL && r->a[5] != rec->a[5])
            snprintf(theirs, sizeof(theirs), "is in another collective call");
        else if (r->kind != rec->kind)
            snprintf(theirs, sizeof(theirs), "is in %s, not %s", rec_name(r->kind),
                     rec_name(rec->kind));
        else {
            char d[80];
            describe(r, d, sizeof(d));
            snprintf(theirs, sizeof(theirs), "passed %s", d);
        }
        shmemu__collective_fail(me, me->pe == t.start, SHMEMU_EMISMATCH, call,
                                "PEs disagree: PE %d passed %s but PE %d %s", me->pe, mine,
                                p, theirs);
        mixed = 2;
        break;
    }
    if (mixed == 1) /* the records agree, yet some member was in a plain sync */
        shmemu__collective_fail(me, me->pe == t.start, SHMEMU_EMISMATCH, call,
                                "PEs disagree: PE %d is in %s but other members of the "
                                "team are in a barrier or team sync",
                                me->pe, rec_name(rec->kind));
    if (!mixed)
        return SHMEMU_OK;
    /* Sync again so that no PE reuses its record while others read it. */
    (void)shmemu__team_sync_as(me, slot, call, 1);
    return shmemu__last_status = SHMEMU_EMISMATCH;
}
