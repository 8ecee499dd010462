/* test_check.c - checker mode against planted bugs: allreduces that pass a
 * plain run (a put there lands before the call returns) but rely on an
 * ordering OpenSHMEM does not promise.  Each must pass plainly, fail under
 * SHMEMU_CHECK on at least 99 of 100 seeds with a note that names the kind
 * of bug, and its corrected twin must pass on every seed. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#ifdef TH_TSAN
/* The planted bugs are unsynchronised accesses on purpose: ThreadSanitizer
 * is right about them, and the checker's own race detector is what this
 * test is about.  Their corrected twins run under it unsuppressed. */
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
    return "race:nbi_flag_bug\nrace:amo_counter_bug\nrace:ptr_flag_bug\nrace:counter_flag\nrace:sync_only_bug\nrace:early_ack_bug\n"
           "race:late_dest_bug\nrace:stage_reuse_bug\nrace:get_early_bug\nrace:snapshot_at_return\n";
}
#endif

/* The user half of the team workspace: u[0] a private call counter, u[1..]
 * flags, and from byte 1024 one slot of count elements per PE. */
static uint64_t *user_words(shmemu_team_t team)
{
    return (uint64_t *)(void *)((char *)shmemu_team_workspace(team) +
                                SHMEMU_TEAM_WORKSPACE_BYTES / 2);
}

static int64_t *slot_of(shmemu_team_t team, int pe, size_t count)
{
    return (int64_t *)(void *)((char *)user_words(team) + 1024) + (size_t)pe * count;
}

static int world(shmemu_team_t team, int p)
{
    return shmemu_team_translate_pe(team, p, SHMEMU_TEAM_WORLD);
}

/* dest = src + every peer's slot (int64 sum, wrapping like the reference:
 * the verifier feeds full-range values). */
static void add_slots(shmemu_team_t team, int64_t *dest, const int64_t *src, size_t count)
{
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    for (size_t i = 0; i < count; i++) {
        uint64_t s = (uint64_t)src[i];
        for (int q = 0; q < n; q++)
            if (q != me)
                s += (uint64_t)slot_of(team, q, count)[i];
        dest[i] = (int64_t)s;
    }
}

/* add_slots, then wait until nobody reads the slots any more. */
static int sum_slots(shmemu_team_t team, int64_t *dest, const int64_t *src, size_t count)
{
    add_slots(team, dest, src, count);
    int st = shmemu_quiet();
    return st ? st : shmemu_team_sync(team);
}

/* Bug 1: the data goes with put_nbi, the flag with p, nothing between. */
static int nbi_flag(shmemu_team_t team, void *dest, const void *src, size_t count,
                    shmemu_dtype_t dtype, shmemu_op_t op, int fence)
{
    (void)dtype, (void)op;
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    uint64_t *u = user_words(team), gen = ++u[0];
    for (int i = 1; i < n; i++) {
        int p = world(team, (me + i) % n);
        shmemu_putmem_nbi(slot_of(team, me, count), src, count * 8, p);
        if (fence)
            shmemu_fence();
        shmemu_uint64_p(&u[1 + me], gen, p);
    }
    for (int q = 0; q < n; q++)
        if (q != me)
            shmemu_uint64_wait_until(&u[1 + q], SHMEMU_CMP_GE, gen);
    return sum_slots(team, dest, src, count);
}

/* Bug 2: the data goes with putmem, then a counter is bumped with an
 * atomic add, nothing between.  Bug 2b (via_ptr): the same with the data
 * stored through shmemu_ptr, one element at a time, as a GPU kernel would
 * (the put where there is no pointer).  Under the checker a store through
 * a pointer is held like a put (a GPU's stores to a peer are weakly
 * ordered too), so the missing fence shows the same way, with the store's
 * location. */
static int counter_flag(shmemu_team_t team, const void *src, size_t count, int fence,
                        int via_ptr)
{
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    uint64_t *u = user_words(team), gen = ++u[0];
    const int64_t *in = src;
    for (int i = 1; i < n; i++) {
        int p = world(team, (me + i) % n);
        volatile int64_t *peer = via_ptr ? shmemu_ptr(slot_of(team, me, count), p) : NULL;
        if (peer)
            for (size_t k = 0; k < count; k++)
                peer[k] = in[k];
        else
            shmemu_putmem(slot_of(team, me, count), src, count * 8, p);
        if (fence)
            shmemu_fence();
        shmemu_uint64_atomic_add(&u[1], 1, p);
    }
    return shmemu_uint64_wait_until(&u[1], SHMEMU_CMP_GE, gen * (uint64_t)(n - 1));
}

static int amo_counter(shmemu_team_t team, void *dest, const void *src, size_t count,
                       shmemu_dtype_t dtype, shmemu_op_t op, int fence)
{
    (void)dtype, (void)op;
    int st = counter_flag(team, src, count, fence, 0);
    return st ? st : sum_slots(team, dest, src, count);
}

static int ptr_flag(shmemu_team_t team, void *dest, const void *src, size_t count,
                    shmemu_dtype_t dtype, shmemu_op_t op, int fence)
{
    (void)dtype, (void)op;
    int st = counter_flag(team, src, count, fence, 1);
    return st ? st : sum_slots(team, dest, src, count);
}

/* Bug 3: a team sync where a quiet and a sync are needed. */
static int sync_only(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, shmemu_op_t op, int quiet)
{
    (void)dtype, (void)op;
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team);
    for (int i = 1; i < n; i++)
        shmemu_putmem(slot_of(team, me, count), src, count * 8, world(team, (me + i) % n));
    if (quiet)
        shmemu_quiet();
    shmemu_team_sync(team);
    return sum_slots(team, dest, src, count);
}

/* Bug 5: PE 0 gathers, reduces and puts the result into every dest, then
 * a team sync where a quiet and a sync are needed: the others return with
 * their result still in flight. */
static int late_dest(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, shmemu_op_t op, int quiet)
{
    (void)dtype, (void)op;
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team), st = SHMEMU_OK;
    if (me)
        shmemu_putmem(slot_of(team, me, count), src, count * 8, world(team, 0));
    shmemu_quiet();
    shmemu_team_sync(team);
    if (!me) {
        int64_t *acc = malloc(count * 8 + 1);
        if (acc) {
            add_slots(team, acc, src, count);
            for (int q = 0; q < n; q++)
                shmemu_putmem(dest, acc, count * 8, world(team, q));
            free(acc);
        } else {
            st = SHMEMU_ENOMEM; /* still sync: the others wait for us */
        }
    }
    if (quiet)
        shmemu_quiet();
    int sst = shmemu_team_sync(team);
    return st ? st : sst;
}

/* Bug 4 (2 PEs): the data crosses one slot a chunk at a time.  The reader
 * copies a chunk out with a nonblocking get and acknowledges it before the
 * quiet that completes the get, so the writer may reuse the slot before
 * the copy is made.  A plain run completes the get at once and hides it. */
static int early_ack(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, shmemu_op_t op, int quiet_first)
{
    (void)dtype, (void)op;
    enum { CHUNK = 4 };
    int me = shmemu_team_my_pe(team), other = world(team, 1 - me), self = world(team, me);
    uint64_t *u = user_words(team), *data = &u[1], *ack = &u[2];
    int64_t *slot = slot_of(team, 0, CHUNK), got[CHUNK];
    const int64_t *s = src;
    int64_t *d = dest;
    /* Signals count on across calls: this call's start where the last ended. */
    uint64_t base = (++u[0] - 1) * ((count + CHUNK - 1) / CHUNK);
    for (size_t c = 0; c * CHUNK < count; c++) {
        size_t k = count - c * CHUNK < CHUNK ? count - c * CHUNK : CHUNK;
        if (c) /* my previous chunk is out */
            shmemu_uint64_wait_until(ack, SHMEMU_CMP_GE, base + c);
        shmemu_fence();
        shmemu_putmem_signal(slot, s + c * CHUNK, k * 8, data, base + c + 1, SHMEMU_SIGNAL_SET,
                             other);
        shmemu_uint64_wait_until(data, SHMEMU_CMP_GE, base + c + 1);
        shmemu_getmem_nbi(got, slot, k * 8, self);
        if (quiet_first)
            shmemu_quiet();
        shmemu_uint64_p(ack, base + c + 1, other); /* the bug: the copy may not be made yet */
        shmemu_quiet();
        for (size_t i = 0; i < k; i++)
            d[c * CHUNK + i] = (int64_t)((uint64_t)s[c * CHUNK + i] + (uint64_t)got[i]);
    }
    int st = shmemu_quiet();
    return st ? st : shmemu_team_sync(team);
}

/* Bug 6: the data goes with put_nbi from a staging buffer, which is
 * cleared for its next use before the quiet that completes the puts.  A
 * plain run has read the buffer by the time the call returns; a NIC reads
 * it when it sends. */
static int stage_reuse(shmemu_team_t team, void *dest, const void *src, size_t count,
                       shmemu_dtype_t dtype, shmemu_op_t op, int quiet_first)
{
    (void)dtype, (void)op;
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team), st = SHMEMU_OK;
    int64_t *stage = malloc(count * 8 + 1);
    if (stage) {
        memcpy(stage, src, count * 8);
        for (int i = 1; i < n; i++)
            shmemu_putmem_nbi(slot_of(team, me, count), stage, count * 8,
                              world(team, (me + i) % n));
        if (quiet_first)
            shmemu_quiet();
        memset(stage, 0, count * 8); /* the bug: the puts may not have read it yet */
    } else {
        st = SHMEMU_ENOMEM; /* still sync: the others wait for us */
    }
    shmemu_quiet();
    free(stage);
    int sst = shmemu_team_sync(team);
    if (st || sst)
        return st ? st : sst;
    return sum_slots(team, dest, src, count);
}

/* Bug 7: each PE fetches every peer's slot with get_nbi and adds its
 * running sum into the fetched buffer before the quiet that completes the
 * get: the get then overwrites the sum.  A plain run has fetched by the
 * time the call returns. */
static int get_early(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, shmemu_op_t op, int quiet_first)
{
    (void)dtype, (void)op;
    int n = shmemu_team_n_pes(team), me = shmemu_team_my_pe(team), st = SHMEMU_OK;
    memcpy(slot_of(team, me, count), src, count * 8);
    shmemu_quiet();
    shmemu_team_sync(team);
    int64_t *d = dest, *got = malloc(count * 8 + 1);
    if (got) {
        memcpy(d, src, count * 8);
        for (int i = 1; i < n; i++) {
            int q = (me + i) % n;
            shmemu_getmem_nbi(got, slot_of(team, q, count), count * 8, world(team, q));
            if (quiet_first)
                shmemu_quiet();
            for (size_t k = 0; k < count; k++) /* the bug: the get may not have landed */
                got[k] = (int64_t)((uint64_t)got[k] + (uint64_t)d[k]);
            shmemu_quiet();
            memcpy(d, got, count * 8);
        }
    } else {
        st = SHMEMU_ENOMEM; /* still sync: the others wait for us */
    }
    free(got);
    int sst = shmemu_team_sync(team); /* nobody reads my slot any more */
    return st ? st : sst;
}

#define TWINS(name)                                                            \
    static int name##_bug(shmemu_team_t t, void *d, const void *s, size_t c,   \
                          shmemu_dtype_t dt, shmemu_op_t op)                   \
    {                                                                          \
        return name(t, d, s, c, dt, op, 0);                                    \
    }                                                                          \
    static int name##_ok(shmemu_team_t t, void *d, const void *s, size_t c,    \
                         shmemu_dtype_t dt, shmemu_op_t op)                    \
    {                                                                          \
        return name(t, d, s, c, dt, op, 1);                                    \
    }
TWINS(nbi_flag)
TWINS(amo_counter)
TWINS(ptr_flag)
TWINS(sync_only)
TWINS(early_ack)
TWINS(late_dest)
TWINS(stage_reuse)
TWINS(get_early)

static shmemu_verify_result run(shmemu_allreduce_fn fn, const char *transport, int npes,
                                size_t count, const char *check)
{
    shmemu_verify_case vc = {.coll = SHMEMU_COLL_ALLREDUCE, .algo = "planted",
                             .fn = (void (*)(void))fn, .transport = transport,
                             .npes = npes, .count = count, .dtype = SHMEMU_INT64,
                             .op = SHMEMU_SUM, .seed = 5, .check = check};
    shmemu_verify_result r;
    assert_int_equal(shmemu_verify_run(&vc, &r), SHMEMU_OK);
    return r;
}

/* Plain runs pass; under the checker, seeds 1..nseeds fail, all but at
 * most 1 in 100, each with a note containing `names` (and, if given, a
 * reason containing `why`); the corrected twin passes them all. */
static void planted_why(shmemu_allreduce_fn bug, shmemu_allreduce_fn ok, int npes, size_t count,
                        int race, const char *names, const char *why)
{
    int nseeds = (int)th_iters(100, 10);
    for (int t = 0; t < th_transport_count(); t++) {
        const char *tp = th_transport(t);
        int seeds = strcmp(tp, "local") ? nseeds / 10 + 1 : nseeds; /* processes: slower */
        for (int i = 0; i < 3; i++) {
            shmemu_verify_result r = run(bug, tp, npes, count, "off");
            if (!r.passed)
                fail_msg("%s: the planted bug shows without the checker: %s", tp, r.reason);
        }
        int caught = 0, named = 0;
        char check[64], first_miss[2048] = "";
        for (int s = 1; s <= seeds; s++) {
            snprintf(check, sizeof(check), "fuzz:%d%s", s, race ? ",race" : "");
            shmemu_verify_result r = run(bug, tp, npes, count, check);
            if (!r.passed) {
                caught++;
                if (strstr(r.notes, names) && (!why || strstr(r.reason, why)))
                    named++;
                else if (!first_miss[0] &&
                         snprintf(first_miss, sizeof(first_miss), "%s: %.300s; notes: %.1000s",
                                  check, r.reason, r.notes) < 0)
                    first_miss[0] = '\0';
            }
            r = run(ok, tp, npes, count, check);
            if (!r.passed)
                fail_msg("%s %s: the corrected twin fails: %s (notes: %s)", tp, check, r.reason,
                         r.notes);
        }
        print_message("    %s: caught on %d of %d seeds, named '%s' on %d\n", tp, caught, seeds,
                      names, named);
        if (caught * 100 < seeds * 99 || named < caught)
            fail_msg("%s: caught on %d of %d seeds, named '%s' on %d%s%s", tp, caught, seeds,
                     names, named, first_miss[0] ? "; e.g. " : "", first_miss);
    }
}

static void planted(shmemu_allreduce_fn bug, shmemu_allreduce_fn ok, int npes, size_t count,
                    int race, const char *names)
{
    planted_why(bug, ok, npes, count, race, names, NULL);
}

static void test_nbi_flag(void **state)
{
    (void)state;
    planted(nbi_flag_bug, nbi_flag_ok, 4, 100, 0, "flag before data");
}

static void test_amo_counter(void **state)
{
    (void)state;
    planted(amo_counter_bug, amo_counter_ok, 4, 100, 0, "flag before data");
}

static void test_ptr_flag(void **state)
{
    (void)state;
    planted(ptr_flag_bug, ptr_flag_ok, 4, 100, 1, "flag before data");
    /* Where pointers are checked views (shm), the note names the store
     * and where the program made it. */
    int shm = 0;
    for (int t = 0; t < th_transport_count(); t++)
        shm |= strcmp(th_transport(t), "shm") == 0;
    for (int npes = 2; shm && npes <= 3; npes++) {
        shmemu_verify_result r = {.passed = 1};
        for (int seed = 1; seed <= 10 && r.passed; seed++) {
            char check[32];
            snprintf(check, sizeof(check), "fuzz:%d", seed);
            r = run(ptr_flag_bug, "shm", npes, 13, check);
        }
        if (r.passed)
            fail_msg("shm, %d PEs: the planted bug passed on 10 seeds", npes);
        if (!strstr(r.notes, "earlier shmemu_ptr store (at counter_flag") ||
            !strstr(r.notes, "written by PE ") || !strstr(r.notes, "shmemu_uint64_atomic_add"))
            fail_msg("shm, %d PEs: the note does not name the store and the flag: %s", npes,
                     r.notes);
    }
}

static void test_sync_only(void **state)
{
    (void)state;
    planted(sync_only_bug, sync_only_ok, 4, 100, 0, "sync with puts in flight");
}

static void test_early_ack(void **state)
{
    (void)state;
    planted(early_ack_bug, early_ack_ok, 2, 1024, 0, "get not complete");
}

/* The verifier itself sees this one: dest changed after the return.  On
 * threads and processes the late result lands when the machine lets it,
 * so it shows as a change after the return or, after the verifier's last
 * look, as a wrong element; the notes name the bug either way.  The exact
 * verdict is required where the seed fixes the landing (sim, below). */
static void test_late_dest(void **state)
{
    (void)state;
    planted_why(late_dest_bug, late_dest_ok, 3, 100, 0, "sync with puts in flight", "dest[");
}

/* Under sim's scheduler the late result's landing is fixed by the seed:
 * every seed must give the exact verdict the verifier documents. */
static void test_late_dest_exact(void **state)
{
    (void)state;
    char why[256];
    if (!th_transport_usable("sim", why, sizeof(why)))
        th_skip("the sim transport cannot run here: %s", why);
    int seeds = (int)th_iters(40, 4);
    for (int npes = 2; npes <= 4; npes++)
        for (int s = 1; s <= seeds; s++) {
            char check[32];
            snprintf(check, sizeof(check), "fuzz:%d", s);
            shmemu_verify_result r = run(late_dest_bug, "sim", npes, 100, check);
            if (r.passed || !strstr(r.reason, "] changed after the collective returned there") ||
                !strstr(r.notes, "sync with puts in flight"))
                fail_msg("sim, %d PEs, %s: %s; notes: %s", npes, check,
                         r.passed ? "passed" : r.reason, r.notes);
            /* and the same seed says the same again */
            shmemu_verify_result again = run(late_dest_bug, "sim", npes, 100, check);
            if (strcmp(again.reason, r.reason))
                fail_msg("sim, %d PEs, %s: '%s', then '%s'", npes, check, r.reason,
                         again.reason);
            r = run(late_dest_ok, "sim", npes, 100, check);
            if (!r.passed)
                fail_msg("sim, %d PEs, %s: the corrected twin fails: %s", npes, check, r.reason);
        }
}

/* A race fails a job that otherwise succeeded (SHMEMU_ERACE), and such a
 * job prints its notes: kept out of the test's output, and checked. */
static void planted_race(shmemu_allreduce_fn bug, shmemu_allreduce_fn ok, const char *names)
{
    th_capture_start();
    planted(bug, ok, 3, 100, 1, names);
    char *err = th_capture_stop();
    if (!err || !strstr(err, "shmemu-check: note: race: the "))
        fail_msg("the failed jobs did not print their notes: %.300s", err ? err : "(nothing)");
    free(err);
}

/* The race detector names it: the program's store against the put's read
 * of its source. */
static void test_stage_reuse(void **state)
{
    (void)state;
    planted_race(stage_reuse_bug, stage_reuse_ok, "changed before the put completed");
}

/* Named by the write into the get's destination; the read before it is
 * what the poison (a nonblocking get's destination until it completes)
 * turns into a wrong sum. */
static void test_get_early(void **state)
{
    (void)state;
    planted_race(get_early_bug, get_early_ok, "was written before the get completed");
}

/* What a program sees in a nonblocking get's destination before quiet:
 * SHMEMU_CHECK_GET_POISON while the get is held (from a peer), its old
 * bytes for a get from itself (the source may be the destination); the
 * data after quiet. */
static int body_get_poison(void *arg)
{
    (void)arg;
    enum { K = 16 };
    int me = shmemu_my_pe(), peer = (me + 1) % shmemu_n_pes();
    uint64_t *src = shmemu_malloc(8), got[K], own = 7;
    PE_CHECK(src != NULL);
    *src = 1000 + (uint64_t)me;
    PE_CHECK_OK(shmemu_barrier_all());
    uint64_t poison;
    memset(&poison, SHMEMU_CHECK_GET_POISON, sizeof(poison));
    int held = 0;
    for (int i = 0; i < K; i++)
        PE_CHECK_OK(shmemu_getmem_nbi(&got[i], src, 8, peer));
    for (int i = 0; i < K; i++) {
        PE_CHECK(got[i] == poison || got[i] == 1000 + (uint64_t)peer);
        held += got[i] == poison;
    }
    PE_CHECK_OK(shmemu_getmem_nbi(&own, src, 8, me));
    PE_CHECK(own == 7 || own == 1000 + (uint64_t)me);
    PE_CHECK_OK(shmemu_quiet());
    PE_CHECK(held > 0); /* one in 8 is carried out at once: 16 never all are */
    for (int i = 0; i < K; i++)
        PE_CHECK_EQ(got[i], 1000 + (uint64_t)peer);
    PE_CHECK_EQ(own, 1000 + (uint64_t)me);
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(src);
    return 0;
}

static void test_get_poison(void **state)
{
    (void)state;
    setenv("SHMEMU_CHECK", "fuzz:3", 1);
    th_run(body_get_poison, NULL, TH_NPES(2, 3), 0);
    unsetenv("SHMEMU_CHECK");
}

/* The watchdog: PE 0 spins on a plain load, never entering the library
 * again, while PE 1 waits for it in a barrier. */
static atomic_int never;

static int body_spin(void *arg)
{
    (void)arg;
    if (shmemu_my_pe() == 0) {
        shmemu_quiet();
        while (!atomic_load_explicit(&never, memory_order_relaxed))
            ;
    }
    return shmemu_barrier_all();
}

static void test_watchdog_processes(void **state)
{
    (void)state;
    setenv("SHMEMU_TIMEOUT", "1", 1);
    th_capture_start();
    int rc = th_launch("shm", 2, 0, body_spin, NULL);
    char *err = th_capture_stop();
    unsetenv("SHMEMU_TIMEOUT");
    if (rc == SHMEMU_ENODEV) { /* no shm here: test_crash says so */
        free(err);
        return;
    }
    assert_int_equal(rc, SHMEMU_ETIMEDOUT);
    assert_non_null(strstr(err, "ran past its 1.0 s timeout"));
    assert_non_null(strstr(err, "PE 0/2 is running"));
    assert_non_null(strstr(err, "PE 1/2 in shmemu_barrier_all"));
    free(err);
}

static void test_watchdog_threads(void **state)
{
    (void)state;
    if (th_under_valgrind())
        th_skip("the watchdog ends the process with its PE threads still running, whose "
                "stacks valgrind then counts as lost, exiting 99 for the 124 asked for");
    char path[] = "/tmp/shmemu-watchdog-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) { /* a thread cannot be stopped: the process must end */
        dup2(fd, 2);
        setenv("SHMEMU_TIMEOUT", "1", 1);
        setenv("SHMEMU_CHECK", "fuzz:3", 1); /* in checker mode: the last call is named */
        shmemu_opts o = {.npes = 2, .transport = "local"};
        shmemu_launch(&o, body_spin, NULL);
        _exit(0); /* not reached */
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char buf[4096] = "";
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    close(fd);
    unlink(path);
    buf[n > 0 ? n : 0] = '\0';
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 124);
    assert_non_null(strstr(buf, "ran past its 1.0 s timeout"));
    assert_non_null(strstr(buf, "PE 0/2 is running (not asleep in a shmemu call); its last "
                                "shmemu call: shmemu_quiet"));
    assert_non_null(strstr(buf, "exiting the process with status 124"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nbi_flag),
        cmocka_unit_test(test_amo_counter),
        cmocka_unit_test(test_ptr_flag),
        cmocka_unit_test(test_sync_only),
        cmocka_unit_test(test_early_ack),
        cmocka_unit_test(test_late_dest),
        cmocka_unit_test(test_late_dest_exact),
        cmocka_unit_test(test_stage_reuse),
        cmocka_unit_test(test_get_early),
        cmocka_unit_test(test_get_poison),
        cmocka_unit_test(test_watchdog_processes),
        cmocka_unit_test(test_watchdog_threads),
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
