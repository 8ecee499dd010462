/*
 * verify.c - run one collective on one point of the test matrix and judge
 * the result (shmemu_verify_run).  Built on the public API like the
 * collectives it checks; the values, the reference and the explanation of
 * a wrong element are in verify_values.c.
 *
 * Each job calls the collective VERIFY_CALLS times: twice back to back on
 * the same buffers (new inputs written as soon as the first call returns,
 * which OpenSHMEM allows), then on a second pair.  After each call the PE
 * keeps a copy of dest as it was at return.  Then it checks, for every
 * call: each element against the reference; that src did not change; the
 * guard bytes around every buffer; that dest did not change after the
 * collective returned; and, for the collectives that promise it
 * (allreduce, allgather, broadcast), that every member got the same bits.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "coll.h"
#include "verify_check.h"

/* ------------------------------------------------------------ the case */

struct job {
    const shmemu_verify_case *vc;
    struct shmemu__vshared *sh;
    int whole_ref; /* sh is this process's alone: compute every reference slice */
};

static int call_fn(const shmemu_verify_case *vc, shmemu_team_t team, void *dest,
                   const void *src)
{
    switch (vc->coll) {
    case SHMEMU_COLL_ALLREDUCE:
    case SHMEMU_COLL_REDUCE_SCATTER:
        return ((shmemu_allreduce_fn)vc->fn)(team, dest, src, vc->count, vc->dtype, vc->op);
    case SHMEMU_COLL_REDUCE:
        return ((shmemu_reduce_fn)vc->fn)(team, dest, src, vc->count, vc->dtype, vc->op,
                                          vc->root);
    case SHMEMU_COLL_BROADCAST:
        return ((shmemu_broadcast_fn)vc->fn)(team, dest, src, vc->count, vc->dtype, vc->root);
    default:
        return ((shmemu_allgather_fn)vc->fn)(team, dest, src, vc->count, vc->dtype);
    }
}

/* Out of line, so that ThreadSanitizer reports on a buggy collective
 * (puts still landing here after it returned) can name this read. */
__attribute__((noinline)) static void snapshot_at_return(void *copy, const void *dest,
                                                         size_t n)
{
    memcpy(copy, dest, n);
}

/* Carve a buffer pair, guards around each, out of the job's one block. */
static void carve_bufs(const shmemu_verify_case *vc, struct bufs *b, unsigned char **at,
                       size_t in, size_t out)
{
    size_t es = shmemu_dtype_size(vc->dtype);
    b->sbuf = *at;
    *at += 2 * GUARD + (in * es + 7) / 8 * 8;
    b->dbuf = vc->in_place ? b->sbuf : *at;
    if (!vc->in_place)
        *at += 2 * GUARD + (out * es + 7) / 8 * 8;
    b->src = b->sbuf + GUARD;
    b->dest = b->dbuf + GUARD;
    shmemu__vc_fill_guard(b->sbuf, 1);
    shmemu__vc_fill_guard(b->src + in * es, 2);
    if (!vc->in_place) {
        shmemu__vc_fill_guard(b->dbuf, 3);
        shmemu__vc_fill_guard(b->dest + out * es, 4);
        memset(b->dest, 0xa5, out * es); /* anything the collective forgets shows */
    }
}

/* Bytes of the job's block: two buffer pairs, a copy of src, and a copy of
 * dest per call. */
static size_t block_bytes(size_t in, size_t out, size_t es)
{
    size_t pair = 2 * GUARD + (in * es + 7) / 8 * 8 + 2 * GUARD + (out * es + 7) / 8 * 8;
    return 2 * pair + (in * es + 7) / 8 * 8 + VERIFY_CALLS * ((out * es + 7) / 8 * 8) + 8;
}

/* Where the verifier reads and writes a PE's block.  On heaps the host can
 * touch, the block itself; on others (device memory) a host copy, moved to
 * and from the heap with shmemu_copy_local at the points below, as a test
 * on a GPU stages its buffers. */
struct view {
    unsigned char *heap, *host;
};

static void *on_heap(const struct view *v, const void *p)
{
    return v->heap + ((const unsigned char *)p - v->host);
}

static int to_heap(const struct view *v, const void *p, size_t n)
{
    return v->host == v->heap ? SHMEMU_OK : shmemu_copy_local(on_heap(v, p), p, n);
}

static int from_heap(const struct view *v, void *p, size_t n)
{
    return v->host == v->heap ? SHMEMU_OK : shmemu_copy_local(p, on_heap(v, p), n);
}

/* The copy of dest as the collective returned it, into at_return (the
 * view's, and on the heap too, where check_agree fetches PE 0's). */
static int keep_at_return(const struct view *v, unsigned char *at_return,
                          const unsigned char *dest, size_t n)
{
    if (v->host == v->heap) {
        snapshot_at_return(at_return, dest, n);
        return SHMEMU_OK;
    }
    int st = shmemu_copy_local(on_heap(v, at_return), on_heap(v, dest), n);
    return st ? st : from_heap(v, at_return, n);
}

/* One PE's side of a case: its team, sizes, buffers, and the copies it
 * keeps of src before each call and of dest as each call returned. */
struct pe_run {
    const struct job *job;
    const shmemu_verify_case *vc;
    struct shmemu__vshared *sh;
    shmemu_team_t team;
    int n, me; /* team size; this PE's rank in it, -1: not a member */
    size_t es, in, out;
    unsigned char *block; /* on the heap */
    struct view v;
    struct bufs set[2];
    unsigned char *snap, *at_return[VERIFY_CALLS];
    int declined; /* the first call returned SHMEMU_ENOTSUP */
};

/* Call k's inputs for this PE, into dst: as kept from an earlier run of
 * the case, or made (into the keep first, where there is one, so that
 * what is kept never passed through the heap a collective writes). */
static void inputs_into(const struct pe_run *r, int k, unsigned char *dst)
{
    struct shmemu__vshared *sh = r->sh;
    const unsigned char *kept = shmemu__vc_kept_inputs(sh, k, r->me, r->n);
    if (!kept && sh->inputs) {
        size_t at = (size_t)k * (size_t)r->n + (size_t)r->me;
        unsigned char *slot = sh->inputs + at * sh->in_bytes;
        shmemu__verify_fill(r->vc, k, r->me, slot, r->in);
        __atomic_store_n(&sh->in_ready[at], 1, __ATOMIC_RELEASE);
        kept = slot;
    }
    if (kept)
        memcpy(dst, kept, r->in * r->es);
    else
        shmemu__verify_fill(r->vc, k, r->me, dst, r->in);
}

/* Team, buffers (everything on the heap, in one block, not malloc: a PE
 * the job aborts, a deadlock, never returns to free it, and the heap goes
 * with the job; the host copy of a staged heap is a scratch block, which
 * goes with the PE), this
 * PE's slice of the reduction's reference, the first call's inputs.
 * 0, or 1 with the fault recorded. */
static int pe_setup(struct pe_run *r)
{
    const shmemu_verify_case *vc = r->vc;
    struct shmemu__vshared *sh = r->sh;
    int np = shmemu_n_pes();
    r->team = SHMEMU_TEAM_WORLD;
    if (vc->team == SHMEMU_VERIFY_STRIDED &&
        shmemu_team_split_strided(SHMEMU_TEAM_WORLD, 0, 2, (np + 1) / 2, NULL, 0, &r->team))
        return 1;
    r->n = team_size(vc);
    r->me = r->team == SHMEMU_TEAM_INVALID ? -1 : shmemu_team_my_pe(r->team);
    r->es = shmemu_dtype_size(vc->dtype);
    sizes(vc, r->n, &r->in, &r->out);
    size_t bytes = block_bytes(r->in, r->out, r->es);
    if (!(r->block = shmemu_malloc(bytes))) { /* a setup fault, not the algorithm's */
        __atomic_store_n(&sh->no_room, 1, __ATOMIC_RELAXED);
        shmemu__vc_fault_ranked(sh, F_OTHER, 0, shmemu_my_pe(), 0,
                                "no room on the symmetric heap for the case's buffers; "
                                "raise its heap_size",
                                NULL, NULL);
        return 1;
    }
    r->v = (struct view){r->block, r->block};
    if (!shmemu_heap_host_accessible() && !(r->v.host = shmemu_scratch_malloc(bytes))) {
        shmemu__vc_fault_ranked(sh, F_OTHER, 0, shmemu_my_pe(), 0,
                                "out of memory for the host copy", NULL, NULL);
        return 1;
    }
    unsigned char *at = r->v.host;
    carve_bufs(vc, &r->set[0], &at, r->in, r->out);
    carve_bufs(vc, &r->set[1], &at, r->in, r->out);
    r->snap = at;
    at += (r->in * r->es + 7) / 8 * 8;
    for (int k = 0; k < VERIFY_CALLS; k++, at += (r->out * r->es + 7) / 8 * 8)
        r->at_return[k] = at;
    if (r->me >= 0) {
        int whole = r->job->whole_ref, first = whole ? 0 : r->me, last = whole ? r->n : r->me + 1;
        int made = 1;
        for (int p = first; p < last; p++)
            made &= __atomic_load_n(&sh->want_ready[p], __ATOMIC_ACQUIRE);
        size_t nref = sh->nref, lo = nref * (size_t)first / (size_t)r->n,
               hi = nref * (size_t)last / (size_t)r->n;
        for (int k = 0; !made && k < VERIFY_CALLS; k++)
            shmemu__verify_want_range(vc, k, r->n, lo, hi, &sh->want[(size_t)k * nref + lo]);
        for (int p = first; !made && p < last; p++)
            __atomic_store_n(&sh->want_ready[p], 1, __ATOMIC_RELEASE);
        inputs_into(r, 0, r->set[0].src);
    }
    return 0;
}

/* The calls: twice on the first pair (the second's inputs written as soon
 * as the first returns), then on the second.  A status, *k the call it
 * came from. */
static int pe_calls(struct pe_run *r, int *k_p)
{
    const shmemu_verify_case *vc = r->vc;
    size_t in = r->in, es = r->es;
    /* both buffer pairs, guards and poison included */
    int st = to_heap(&r->v, r->v.host, (size_t)(r->snap - r->v.host)), k = 0;
    shmemu_barrier_all();
    for (; r->me >= 0 && k < VERIFY_CALLS && !st; k++) {
        struct bufs *b = &r->set[k == VERIFY_CALLS - 1];
        if (k > 0) { /* the next call's inputs, at once: src is ours again */
            inputs_into(r, k, b->src);
            if ((st = to_heap(&r->v, b->src, in * es)))
                break;
        }
        memcpy(r->snap, b->src, in * es);
        st = call_fn(vc, r->team, on_heap(&r->v, b->dest), on_heap(&r->v, b->src));
        r->declined = k == 0 && st == SHMEMU_ENOTSUP;
        /* A collective's result is this PE's as soon as it returns; the
         * barrier after the calls would complete puts still in flight and
         * hide that. */
        if (!st && !(st = keep_at_return(&r->v, r->at_return[k], b->dest, r->out * es)) &&
            !(st = from_heap(&r->v, b->src, in * es)))
            shmemu__vc_check_src(vc, r->sh, k, r->me, b->src, r->snap, in);
    }
    *k_p = k;
    return st;
}

/* After every PE's calls: guards, dest unchanged since each return, dest
 * against the reference, and every member holding the same bits. */
static void pe_judge(struct pe_run *r)
{
    const shmemu_verify_case *vc = r->vc;
    struct shmemu__vshared *sh = r->sh;
    int me = r->me;
    size_t es = r->es, out = r->out;
    int agree = vc->coll == SHMEMU_COLL_ALLREDUCE || vc->coll == SHMEMU_COLL_ALLGATHER ||
                vc->coll == SHMEMU_COLL_BROADCAST;
    int has_result = vc->coll != SHMEMU_COLL_REDUCE || me == vc->root;
    for (int c = 0; c < 2; c++) { /* after the last call on each pair */
        int last = c ? VERIFY_CALLS - 1 : VERIFY_CALLS - 2;
        shmemu__vc_check_guards(vc, sh, last, me, &r->set[c], r->in, out);
        size_t i;
        if (has_result &&
            (i = shmemu__vc_first_diff(r->at_return[last], r->set[c].dest, out * es)) <
                out * es) {
            char late[256];
            snprintf(late, sizeof(late),
                     "PE %d: dest[%zu] changed after the collective returned there%s "
                     "(operations still in flight: shmemu_quiet() before the last sync?)",
                     me, i / es, shmemu__vc_which_call(last));
            shmemu__vc_fault_ranked(sh, F_LATE, last, me, i / es, late, NULL, NULL);
        }
    }
    for (int c = 0; has_result && c < VERIFY_CALLS; c++) {
        shmemu__vc_check_dest(vc, sh, c, r->n, me, (const char *)r->at_return[c], out);
        if (agree && r->n > 1)
            shmemu__vc_check_agree(vc, sh, c, me, r->team, r->at_return[c],
                                   on_heap(&r->v, r->at_return[c]), out);
    }
}

static int pe_main(void *arg)
{
    const struct job *job = arg;
    struct pe_run r = {.job = job, .vc = job->vc, .sh = job->sh};
    if (pe_setup(&r))
        return 1;
    int k, st = pe_calls(&r, &k);
    if (st == SHMEMU_ENOMEM)
        __atomic_store_n(&r.sh->no_room, 1, __ATOMIC_RELAXED);
    if (r.declined)
        __atomic_add_fetch(&r.sh->declined, 1, __ATOMIC_RELAXED);
    if (st) {
        char why[160];
        snprintf(why, sizeof(why), "PE %d: the algorithm returned %d (%s)%s", r.me, st,
                 shmemu_strerror(st), shmemu__vc_which_call(k - 1));
        shmemu__vc_fault_ranked(r.sh, F_RETURNED, k - 1, r.me, 0, why, NULL, NULL);
    }
    shmemu_barrier_all();
    if (r.me >= 0 && !st && !from_heap(&r.v, r.v.host, (size_t)(r.snap - r.v.host)))
        pe_judge(&r);
    shmemu_free(r.block); /* a barrier: nobody reads it any more */
    if (r.v.host != r.block)
        shmemu_scratch_free(r.v.host);
    if (r.team != SHMEMU_TEAM_WORLD)
        shmemu_team_destroy(r.team);
    return 0;
}

static const char *const coll_names[SHMEMU_COLL_COUNT] = {
    "allreduce", "reduce", "reduce_scatter", "allgather", "broadcast", "alltoall"};

const char *shmemu_coll_name(shmemu_coll_t coll)
{
    return (unsigned)coll < SHMEMU_COLL_COUNT ? coll_names[coll] : NULL;
}

/* Time a case may take: a base for launching, plus its traffic at a rate
 * any machine beats, more under the checker. */
static double case_timeout(const shmemu_verify_case *vc, size_t in, size_t out)
{
    double bytes = (double)vc->npes * (double)(in + out) * (double)shmemu_dtype_size(vc->dtype) *
                   VERIFY_CALLS * vc->npes;
    double t = 30 + bytes / 20e6;
    const char *chk = vc->check ? vc->check : getenv("SHMEMU_CHECK");
    if (chk && *chk && strcmp(chk, "off"))
        t *= 4;
    return t;
}

/* ------------------------------------------- the values kept between runs */

/* What a case's values depend on: its inputs are a function of (seed,
 * call, team PE, index) for a dtype (and op: exact inputs are chosen per
 * op), its reference of those and the collective. */
struct values_key {
    int coll, dtype, op, inputs, n;
    size_t count;
    uint64_t seed;
};

/* Inputs are kept up to this size (all calls, all PEs); beyond, each run
 * makes its own again. */
#define KEEP_INPUTS_MAX ((size_t)256 << 20)

/* The last case's mapping: one, taken by a run and put back after. */
static struct {
    pthread_mutex_t mu;
    struct values_key key;
    struct shmemu__vshared *sh;
    unsigned char *inputs; /* where sh's inputs go, once the case runs again */
    size_t bytes;
} kept = {.mu = PTHREAD_MUTEX_INITIALIZER};

static size_t round8(size_t n)
{
    return (n + 7) / 8 * 8;
}

/* The shared record of a run of vc: the kept one where it is the same
 * case's (its verdict cleared), or a new one. */
static struct shmemu__vshared *values_take(const shmemu_verify_case *vc, size_t *bytes_p,
                                           struct values_key *key, unsigned char **inputs_p)
{
    int n = team_size(vc);
    size_t in, out, es = shmemu_dtype_size(vc->dtype);
    sizes(vc, n, &in, &out);
    /* Field by field on zeroed bytes: keys are compared with memcmp, and a
     * compound literal leaves the padding after n undefined (valgrind). */
    memset(key, 0, sizeof(*key));
    key->coll = vc->coll;
    key->dtype = vc->dtype;
    key->inputs = vc->inputs;
    key->op = is_reduction(vc->coll) || shmemu__verify_is_float(vc->dtype) ? vc->op : 0;
    key->n = n;
    key->count = vc->count;
    key->seed = vc->seed;
    pthread_mutex_lock(&kept.mu);
    struct shmemu__vshared *sh = NULL;
    unsigned char *inputs = NULL;
    if (kept.sh && !memcmp(&kept.key, key, sizeof(*key))) {
        sh = kept.sh, *bytes_p = kept.bytes, inputs = kept.inputs;
        kept.sh = NULL;
    }
    pthread_mutex_unlock(&kept.mu);
    if (sh) {
        memset(sh, 0, offsetof(struct shmemu__vshared, nref));
        sh->inputs = *inputs_p = inputs; /* a case run again (--fuzz, --explore) */
        return sh;
    }
    int reduction = is_reduction(vc->coll);
    size_t nref = !reduction ? 0 : vc->coll == SHMEMU_COLL_REDUCE_SCATTER ? vc->count * (size_t)n
                                                                          : vc->count;
    size_t in_bytes = round8(in * es), calls_pes = VERIFY_CALLS * (size_t)n;
    size_t want_at = round8(sizeof(*sh)), ready_at = want_at + VERIFY_CALLS * nref * 8,
           in_ready_at = ready_at + (size_t)n, inputs_at = round8(in_ready_at + calls_pes);
    int keep_inputs = in_bytes && in_bytes <= KEEP_INPUTS_MAX / calls_pes;
    size_t bytes = inputs_at + (keep_inputs ? calls_pes * in_bytes : 0);
    sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return NULL;
    char *base = (char *)sh;
    sh->nref = nref;
    sh->want = (uint64_t *)(void *)(base + want_at);
    sh->want_ready = (unsigned char *)base + ready_at;
    sh->in_ready = (unsigned char *)base + in_ready_at;
    sh->in_bytes = in_bytes;
    /* kept from the second run on: a case run once writes no copy */
    sh->inputs = NULL;
    *inputs_p = keep_inputs ? (unsigned char *)base + inputs_at : NULL;
    *bytes_p = bytes;
    return sh;
}

/* Keep sh for the next run (the last case's go). */
static void values_put_back(struct shmemu__vshared *sh, size_t bytes,
                            const struct values_key *key, unsigned char *inputs)
{
    pthread_mutex_lock(&kept.mu);
    struct shmemu__vshared *old = kept.sh;
    size_t old_bytes = kept.bytes;
    kept.sh = sh, kept.bytes = bytes, kept.key = *key, kept.inputs = inputs;
    pthread_mutex_unlock(&kept.mu);
    if (old)
        munmap(old, old_bytes);
}

/* The first fault, as the result reports it. */
static void take_fault(const struct shmemu__vshared *sh, shmemu_verify_result *res)
{
    res->pe = sh->pe;
    res->index = sh->index;
    snprintf(res->reason, sizeof(res->reason), "%s", sh->reason);
    snprintf(res->expected, sizeof(res->expected), "%s", sh->expected);
    snprintf(res->got, sizeof(res->got), "%s", sh->got);
}

/* The verdict a PE of the job found, where all can read it. */
struct verdict {
    int failed, no_room, declined, rank, call, pe;
    size_t index;
    char reason[448], expected[48], got[48];
};

/* An algorithm declines a case it was not written for (a type, an
 * operation, a team) by returning SHMEMU_ENOTSUP from its first call, on
 * every member of the team: the case is then declined, neither passed nor
 * failed.  On some members only, it is a fault of its own: the others ran
 * the case, and waited for PEs that never joined it. */
static void judge_declined(const struct shmemu__vshared *sh, int n, shmemu_verify_result *res)
{
    if (!sh->declined)
        return;
    if (sh->declined == n && !res->status && !sh->no_room) {
        res->declined = 1;
        res->passed = 0;
        res->pe = -1;
        res->expected[0] = res->got[0] = '\0';
        snprintf(res->reason, sizeof(res->reason),
                 "declined: the algorithm returned SHMEMU_ENOTSUP from its first call on "
                 "every PE of the team (it does not take this case)");
    } else if (sh->declined < n) {
        res->passed = 0;
        snprintf(res->reason, sizeof(res->reason),
                 "%d of the team's %d PEs declined the case (SHMEMU_ENOTSUP from their first "
                 "call) and the others ran it: an algorithm declines a case on every PE of the "
                 "team or on none",
                 sh->declined, n);
    }
}

/* Inside a job (shmemu-verify started by mpirun or shmemu-run): the case
 * runs on this job's PEs, every one calling here in the same order.  Each
 * keeps its own record of faults; then all read everyone's and keep the
 * first by the same ranking, so every PE returns the same verdict. */
static int run_in_job(const shmemu_verify_case *vc, struct shmemu__vshared *sh,
                      shmemu_verify_result *res)
{
    struct job job = {vc, sh, 1};
    int np = shmemu_n_pes();
    struct verdict *all = shmemu_calloc((size_t)np, sizeof(*all));
    if (!all)
        return shmemu_last_status();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = pe_main(&job);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    res->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (rc && !sh->failed)
        shmemu__vc_fault_ranked(sh, F_OTHER, 0, shmemu_my_pe(), 0, "a PE could not run the case",
                                NULL, NULL);
    struct verdict mine = {.failed = sh->failed, .no_room = sh->no_room,
                           .declined = sh->declined, .rank = sh->rank, .call = sh->call,
                           .pe = sh->pe, .index = sh->index};
    memcpy(mine.reason, sh->reason, sizeof(mine.reason));
    memcpy(mine.expected, sh->expected, sizeof(mine.expected));
    memcpy(mine.got, sh->got, sizeof(mine.got));
    /* Read into host memory: on cuda the heap is GPU memory. */
    struct verdict *rec = shmemu_scratch_malloc((size_t)np * sizeof(*rec));
    int st = rec ? shmemu_putmem(&all[shmemu_my_pe()], &mine, sizeof(mine), 0) : SHMEMU_ENOMEM;
    if (!st)
        st = shmemu_barrier_all();
    if (!st)
        st = shmemu_getmem(rec, all, (size_t)np * sizeof(*all), 0);
    if (!st) {
        memset(sh, 0, offsetof(struct shmemu__vshared, nref));
        for (int p = 0; p < np; p++) {
            sh->no_room |= rec[p].no_room;
            sh->declined += rec[p].declined;
        }
        for (int p = 0; p < np; p++)
            if (rec[p].failed)
                shmemu__vc_fault_ranked(sh, rec[p].rank, rec[p].call, rec[p].pe, rec[p].index,
                             rec[p].reason, rec[p].expected, rec[p].got);
    }
    int fst = shmemu_barrier_all(); /* every PE read PE 0's copy before it goes */
    shmemu_scratch_free(rec);
    shmemu_free(all);
    return st ? st : fst;
}

int shmemu_verify_run(const shmemu_verify_case *vc, shmemu_verify_result *res)
{
    memset(res, 0, sizeof(*res));
    res->pe = -1;
    size_t es = shmemu_dtype_size(vc->dtype);
    int reduction = is_reduction(vc->coll);
    if (!vc->fn || !es || vc->npes < 1 || (unsigned)vc->coll >= SHMEMU_COLL_COUNT ||
        (reduction && !shmemu_op_valid(vc->op, vc->dtype)) ||
        (vc->in_place && !(vc->coll == SHMEMU_COLL_ALLREDUCE || vc->coll == SHMEMU_COLL_REDUCE ||
                           vc->coll == SHMEMU_COLL_BROADCAST)) ||
        ((vc->coll == SHMEMU_COLL_REDUCE || vc->coll == SHMEMU_COLL_BROADCAST) &&
         (vc->root < 0 || vc->root >= team_size(vc))) ||
        !(vc->timeout >= 0))
        return SHMEMU_EINVAL;
    int n = team_size(vc);
    size_t in, out, shbytes;
    sizes(vc, n, &in, &out);
    struct values_key key;
    unsigned char *inputs;
    struct shmemu__vshared *sh = values_take(vc, &shbytes, &key, &inputs);
    if (!sh)
        return SHMEMU_ENOMEM;
    if (shmemu_my_pe() >= 0) { /* inside a job: on its PEs, as they are */
        int st = vc->npes == shmemu_n_pes() ? run_in_job(vc, sh, res) : SHMEMU_EINVAL;
        res->status = st;
        if (sh->no_room) {
            snprintf(res->reason, sizeof(res->reason),
                     "heap too small for this case: the job's heap ran out (the algorithm's "
                     "scratch?); raise SHMEMU_HEAP_SIZE for the launch");
        } else if (sh->failed) {
            take_fault(sh, res);
        } else if (st) {
            snprintf(res->reason, sizeof(res->reason), "the case ended with %d (%s)", st,
                     shmemu_strerror(st));
        }
        res->passed = !sh->failed && !st;
        judge_declined(sh, n, res);
        if (!res->passed && shmemu_check_notes(res->notes, sizeof(res->notes)) == 0)
            res->notes[0] = '\0';
        values_put_back(sh, shbytes, &key, inputs);
        return st == SHMEMU_EINVAL ? st : SHMEMU_OK;
    }
    struct job job = {vc, sh, 0};
    /* Two buffer pairs, a copy of src and of dest per call, guards; then
     * room for an algorithm's scratch, which commonly grows with PEs x
     * count (a slot per peer). */
    size_t big = (in > out ? in : out) * es, data = block_bytes(in, out, es);
    size_t heap = vc->heap_size ? vc->heap_size
                                : data + (size_t)(n + 2) * big + ((size_t)8 << 20);
    shmemu_opts o = {.npes = vc->npes, .transport = vc->transport, .heap_size = heap,
                     .check = vc->check,
                     .timeout = vc->timeout > 0 ? vc->timeout : case_timeout(vc, in, out)};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    res->status = shmemu_launch(&o, pe_main, &job);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    res->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (res->status == SHMEMU_ENOMEM || sh->no_room ||
        (sh->failed && strstr(sh->reason, "(out of memory)"))) {
        snprintf(res->reason, sizeof(res->reason),
                 "heap too small for this case: %zu bytes per PE ran out (the algorithm's "
                 "scratch?); rerun with --heap-size",
                 heap);
    } else if (res->status == SHMEMU_ETIMEDOUT) {
        snprintf(res->reason, sizeof(res->reason),
                 "timed out after %.0f s (the case's limit; --timeout to change it); where "
                 "each PE was is printed above",
                 o.timeout);
    } else if (res->status == SHMEMU_EDEVICE) {
        snprintf(res->reason, sizeof(res->reason),
                 "a PE loaded or stored symmetric memory on the host, which faults on a GPU "
                 "(SHMEMU_CHECK=device); the PE, block and code location are printed above");
    } else if (sh->failed) {
        take_fault(sh, res);
    } else if (res->status) {
        snprintf(res->reason, sizeof(res->reason), "the job ended with %d (%s)", res->status,
                 res->status < 0 ? shmemu_strerror(res->status) : "a PE failed");
    }
    res->passed = !sh->failed && !res->status;
    judge_declined(sh, n, res);
    /* What the checker saw explains a failure: keep it with the verdict. */
    if (!res->passed && shmemu_check_notes(res->notes, sizeof(res->notes)) == 0)
        res->notes[0] = '\0';
    values_put_back(sh, shbytes, &key, inputs);
    return SHMEMU_OK;
}

/* ---------------------------------------------------- the built-in algorithms */

#define FN(f) ((void (*)(void))(f))
static const struct {
    shmemu_coll_t coll;
    const char *name;
    void (*fn)(void);
} builtins[] = {
    {SHMEMU_COLL_ALLREDUCE, "oneshot", FN(shmemu_allreduce_oneshot)},
    {SHMEMU_COLL_ALLREDUCE, "ring", FN(shmemu_allreduce_ring)},
    {SHMEMU_COLL_ALLREDUCE, "rd", FN(shmemu_allreduce_rd)},
    {SHMEMU_COLL_ALLREDUCE, "rabenseifner", FN(shmemu_allreduce_rabenseifner)},
    {SHMEMU_COLL_ALLREDUCE, "tree", FN(shmemu_allreduce_tree)},
    {SHMEMU_COLL_ALLREDUCE, "auto", FN(shmemu_allreduce)},
    {SHMEMU_COLL_REDUCE, "tree", FN(shmemu_reduce_tree)},
    {SHMEMU_COLL_REDUCE_SCATTER, "ring", FN(shmemu_reduce_scatter_ring)},
    {SHMEMU_COLL_REDUCE_SCATTER, "rhalving", FN(shmemu_reduce_scatter_rhalving)},
    {SHMEMU_COLL_ALLGATHER, "ring", FN(shmemu_allgather_ring)},
    {SHMEMU_COLL_ALLGATHER, "bruck", FN(shmemu_allgather_bruck)},
    {SHMEMU_COLL_ALLGATHER, "rd", FN(shmemu_allgather_rd)},
    {SHMEMU_COLL_BROADCAST, "tree", FN(shmemu_broadcast_tree)},
    {SHMEMU_COLL_BROADCAST, "chain", FN(shmemu_broadcast_chain)},
    {SHMEMU_COLL_ALLTOALL, "pairwise", FN(shmemu_alltoall_pairwise)},
    /* device-initiated (kernels): local, shm and sim */
    {SHMEMU_COLL_ALLREDUCE, "dev_oneshot", FN(shmemu_allreduce_dev_oneshot)},
    {SHMEMU_COLL_ALLREDUCE, "dev_twoshot", FN(shmemu_allreduce_dev_twoshot)},
    {SHMEMU_COLL_REDUCE_SCATTER, "dev_ring", FN(shmemu_reduce_scatter_dev_ring)},
    {SHMEMU_COLL_ALLGATHER, "dev_ring", FN(shmemu_allgather_dev_ring)},
    {SHMEMU_COLL_BROADCAST, "dev_pull", FN(shmemu_broadcast_dev_pull)},
};

int shmemu_verify_builtin(shmemu_coll_t coll, int i, const char **name_p, void (**fn_p)(void))
{
    for (size_t k = 0; k < sizeof(builtins) / sizeof(builtins[0]); k++) {
        if (builtins[k].coll != coll || i-- > 0)
            continue;
        *name_p = builtins[k].name;
        *fn_p = builtins[k].fn;
        return SHMEMU_OK;
    }
    return SHMEMU_EINVAL;
}
