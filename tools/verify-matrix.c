/* verify-matrix.c - shmemu-verify's covering array (see verify-matrix.h). */
#include <stdlib.h>
#include <string.h>

#include "verify-matrix.h"

int vm_valid(const struct algo *al, const point p)
{
    shmemu_coll_t c = al->coll;
    int reduction = c == SHMEMU_COLL_ALLREDUCE || c == SHMEMU_COLL_REDUCE ||
                    c == SHMEMU_COLL_REDUCE_SCATTER;
    shmemu_dtype_t dt = (shmemu_dtype_t)ax[A_DTYPE].v[p[A_DTYPE]];
    shmemu_op_t op = (shmemu_op_t)ax[A_OP].v[p[A_OP]];
    if (!(al->transports >> ax[A_TRANSPORT].v[p[A_TRANSPORT]] & 1u))
        return 0;
    if (reduction ? !shmemu_op_valid(op, dt) : op != (shmemu_op_t)ax[A_OP].v[0])
        return 0; /* op is meaningless for data movement: keep one value */
    int inplace = (int)ax[A_INPLACE].v[p[A_INPLACE]];
    if (inplace && !(c == SHMEMU_COLL_ALLREDUCE || c == SHMEMU_COLL_REDUCE ||
                     c == SHMEMU_COLL_BROADCAST))
        return 0;
    long long npes = ax[A_NPES].v[p[A_NPES]], count = ax[A_COUNT].v[p[A_COUNT]];
    int n = ax[A_TEAM].v[p[A_TEAM]] ? (int)(npes + 1) / 2 : (int)npes;
    long long per = count * (c == SHMEMU_COLL_ALLREDUCE || c == SHMEMU_COLL_REDUCE ||
                                     c == SHMEMU_COLL_BROADCAST
                                 ? 1
                                 : n);
    return (size_t)per <= max_elems && (size_t)per * shmemu_dtype_size(dt) <= max_bytes;
}

/* Greedy pairwise covering: while some pair of axis values that a valid
 * case can hold is uncovered, take one, fill the other axes one at a time
 * with the value covering most uncovered pairs, and keep the case. */
struct cover {
    unsigned char *seen; /* [a][va][b][vb] covered */
    unsigned char *possible;
};

static size_t pidx(int a, int va, int b, int vb)
{
    return (((size_t)a * MAXV + (size_t)va) * NAXES + (size_t)b) * MAXV + (size_t)vb;
}

/* A degenerate case -- count 0 or 1, a one-member team -- runs none of an
 * algorithm's real paths: it covers only the pairs that involve what makes
 * it degenerate (count 0 with every dtype, say), nothing else. */
static int degenerate_axis(const point p, int a)
{
    long long npes = ax[A_NPES].v[p[A_NPES]];
    int members = ax[A_TEAM].v[p[A_TEAM]] ? (int)(npes + 1) / 2 : (int)npes;
    if (a == A_COUNT)
        return ax[A_COUNT].v[p[A_COUNT]] <= 1;
    if (a == A_NPES || a == A_TEAM)
        return members == 1;
    return 0;
}

static int covers(const point p, int a, int b)
{
    int any = 0, hit = 0;
    for (int k = 0; k < NAXES; k++)
        if (degenerate_axis(p, k)) {
            any = 1;
            hit |= k == a || k == b;
        }
    return !any || hit;
}

/* How many coverable pairs of p are not covered yet. */
static int gain(const struct cover *cv, const point p)
{
    int g = 0;
    for (int a = 0; a < NAXES; a++)
        for (int b = a + 1; b < NAXES; b++)
            g += cv->possible[pidx(a, p[a], b, p[b])] && !cv->seen[pidx(a, p[a], b, p[b])] &&
                 covers(p, a, b);
    return g;
}

static void mark(struct cover *cv, const point p)
{
    for (int a = 0; a < NAXES; a++)
        for (int b = a + 1; b < NAXES; b++)
            if (covers(p, a, b))
                cv->seen[pidx(a, p[a], b, p[b])] = 1;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random valid point with axes a and b fixed. */
static int random_point(const struct algo *al, point p, int a, int va, int b, int vb,
                        uint64_t *s)
{
    for (int tries = 0; tries < 200; tries++) {
        for (int k = 0; k < NAXES; k++)
            p[k] = (int)(rnd(s) % (uint64_t)ax[k].n);
        if (a >= 0) {
            p[a] = va;
            p[b] = vb;
        }
        if (vm_valid(al, p) && (a < 0 || covers(p, a, b)))
            return 1;
    }
    return 0;
}

/* Append the covering design's points for al to *out (realloc'd). */
int vm_covering(const struct algo *al, point **out, int *nout)
{
    struct cover cv;
    size_t sz = (size_t)NAXES * MAXV * NAXES * MAXV;
    cv.seen = calloc(sz, 1);
    cv.possible = calloc(sz, 1);
    uint64_t s = 0x2545f4914f6cdd1dull;
    /* which pairs can be covered at all (by sampling valid points) */
    point p;
    for (int a = 0; a < NAXES; a++)
        for (int b = a + 1; b < NAXES; b++)
            for (int va = 0; va < ax[a].n; va++)
                for (int vb = 0; vb < ax[b].n; vb++)
                    if (random_point(al, p, a, va, b, vb, &s))
                        cv.possible[pidx(a, va, b, vb)] = 1;
    int cap = 64, n = 0;
    point *pts = malloc((size_t)cap * sizeof(point));
    for (;;) {
        int fa = -1, fb = -1, fva = 0, fvb = 0;
        for (int a = 0; a < NAXES && fa < 0; a++)
            for (int b = a + 1; b < NAXES && fa < 0; b++)
                for (int va = 0; va < ax[a].n && fa < 0; va++)
                    for (int vb = 0; vb < ax[b].n && fa < 0; vb++)
                        if (cv.possible[pidx(a, va, b, vb)] && !cv.seen[pidx(a, va, b, vb)])
                            fa = a, fb = b, fva = va, fvb = vb;
        if (fa < 0)
            break;
        point best;
        int bestg = -1;
        for (int tries = 0; tries < 24; tries++) {
            if (!random_point(al, p, fa, fva, fb, fvb, &s))
                continue;
            /* improve greedily, one axis at a time */
            for (int k = 0; k < NAXES; k++) {
                if (k == fa || k == fb)
                    continue;
                int keep = p[k], g0 = -1;
                for (int v = 0; v < ax[k].n; v++) {
                    p[k] = v;
                    int g = vm_valid(al, p) && covers(p, fa, fb) ? gain(&cv, p) : -1;
                    if (g > g0) {
                        g0 = g;
                        keep = v;
                    }
                }
                p[k] = keep;
            }
            int g = gain(&cv, p);
            if (g > bestg) {
                bestg = g;
                memcpy(best, p, sizeof(point));
            }
        }
        if (bestg < 0 || !covers(best, fa, fb)) { /* cannot be done after all */
            cv.possible[pidx(fa, fva, fb, fvb)] = 0;
            continue;
        }
        if (n == cap)
            pts = realloc(pts, (size_t)(cap *= 2) * sizeof(point));
        memcpy(pts[n++], best, sizeof(point));
        mark(&cv, best);
    }
    free(cv.seen);
    free(cv.possible);
    *out = pts;
    *nout = n;
    return n;
}

/* Size classes of a count: what the built-ins switch on. */
static int size_class(long long count)
{
    return count <= 1 ? -1 : count <= 64 ? 0 : count <= 16385 ? 1 : 2;
}

/* Pairs cannot see that a strided team and in-place buffers meet a large
 * count only together: make sure every team x in-place x size class that
 * a valid, non-degenerate case can hold has one. */
void vm_add_triples(const struct algo *al, point **pts, int *npts)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int team = 0; team < ax[A_TEAM].n; team++)
        for (int inp = 0; inp < ax[A_INPLACE].n; inp++)
            for (int cls = 0; cls < 3; cls++) {
                int have = 0;
                for (int i = 0; i < *npts && !have; i++) {
                    const int *q = (*pts)[i];
                    have = q[A_TEAM] == team && q[A_INPLACE] == inp &&
                           size_class(ax[A_COUNT].v[q[A_COUNT]]) == cls &&
                           !degenerate_axis(q, A_NPES);
                }
                for (int tries = 0; tries < 400 && !have; tries++) {
                    point p;
                    for (int k = 0; k < NAXES; k++)
                        p[k] = (int)(rnd(&s) % (uint64_t)ax[k].n);
                    p[A_TEAM] = team;
                    p[A_INPLACE] = inp;
                    if (size_class(ax[A_COUNT].v[p[A_COUNT]]) != cls || degenerate_axis(p, A_NPES) ||
                        !vm_valid(al, p))
                        continue;
                    *pts = realloc(*pts, (size_t)(*npts + 1) * sizeof(point));
                    memcpy((*pts)[(*npts)++], p, sizeof(point));
                    have = 1;
                }
            }
}
