/* test_race.c - the race detector (SHMEMU_CHECK=race): planted races are
 * reported on every seed with both PEs, both calls, the byte ranges and
 * the call sites; their correct twins, and every polling pattern that the
 * specification makes synchronising, are never accused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifdef TH_TSAN
/* The planted races are unsynchronised on purpose; the twins are not. */
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
    return "race:race_put_put\nrace:race_put_get\nrace:race_put_ptr\nrace:race_own_g\nrace:race_own_lib\nrace:race_own_load\n";
}
#endif

enum { N = 64 };

/* Every body: x is N bytes on every PE, flag a signal word; PEs 0 and 1
 * write or read PE target's x. */
struct shared {
    char *x;
    uint64_t *flag;
    long *word;
    int target;
};

static int setup(struct shared *s)
{
    s->x = shmemu_calloc(1, N);
    s->flag = shmemu_calloc(1, sizeof(uint64_t));
    s->word = shmemu_calloc(1, sizeof(long));
    s->target = shmemu_n_pes() - 1;
    return s->x && s->flag && s->word ? 0 : -1;
}

static void teardown(struct shared *s)
{
    shmemu_barrier_all();
    shmemu_free(s->word);
    shmemu_free(s->flag);
    shmemu_free(s->x);
}

/* ----------------------------------------------------------- planted */

/* PEs 0 and 1 put overlapping bytes of the target's x; nothing orders them. */
int race_put_put(void *arg);
int race_put_put(void *arg)
{
    (void)arg;
    struct shared s;
    PE_CHECK(setup(&s) == 0);
    char buf[32];
    memset(buf, shmemu_my_pe() + 1, sizeof(buf));
    if (shmemu_my_pe() == 0)
        shmemu_putmem(s.x, buf, 16, s.target);
    else if (shmemu_my_pe() == 1)
        shmemu_putmem(s.x + 8, buf, 16, s.target);
    teardown(&s);
    return 0;
}

/* PE 0 puts into the target's x while PE 1 gets it. */
int race_put_get(void *arg);
int race_put_get(void *arg)
{
    (void)arg;
    struct shared s;
    PE_CHECK(setup(&s) == 0);
    char buf[N] = {1};
    if (shmemu_my_pe() == 0)
        shmemu_putmem(s.x, buf, N, s.target);
    else if (shmemu_my_pe() == 1)
        shmemu_getmem(buf, s.x + 4, 8, s.target);
    teardown(&s);
    return 0;
}

/* PE 0 writes the target's x through shmemu_ptr where it has a pointer,
 * 8 bytes at a time, while PE 1 gets it.  Under the checker a peer's
 * pointer is a checked view where the transport maps one (local, shm,
 * sim): each store is seen as a put, named "shmemu_ptr store".  Elsewhere
 * shmemu_ptr gives NULL and PE 0 puts the same 8 bytes instead. */
int race_put_ptr(void *arg);
int race_put_ptr(void *arg)
{
    (void)arg;
    struct shared s;
    PE_CHECK(setup(&s) == 0);
    PE_CHECK_EQ(shmemu_heap_host_accessible(), 1);
    char buf[N];
    memset(buf, 0x5a, sizeof(buf));
    if (shmemu_my_pe() == 0) {
        long *p = shmemu_ptr(s.x, s.target);
        for (int i = 0; i < N / 8; i++) {
            long v = 0x5a5a5a5a5a5a5a5a;
            if (p)
                ((volatile long *)p)[i] = v;
            else
                shmemu_putmem(s.x + 8 * i, &v, 8, s.target);
        }
    } else if (shmemu_my_pe() == 1) {
        shmemu_getmem(buf, s.x, N, s.target);
    }
    teardown(&s);
    return 0;
}

/* PE 0 puts into the target's x on a context of its own and, unless arg
 * says quiet, completes that context only after the barrier (which
 * completes the default context alone); then PE 1 gets those bytes. */
static int ctx_barrier(void *arg)
{
    int quiet = *(const int *)arg;
    struct shared s;
    PE_CHECK(setup(&s) == 0);
    shmemu_ctx_t c;
    PE_CHECK_OK(shmemu_ctx_create(&c));
    char buf[N];
    memset(buf, 7, sizeof(buf));
    if (shmemu_my_pe() == 0) {
        shmemu_ctx_t prev = shmemu_ctx_select(c);
        PE_CHECK_OK(shmemu_putmem(s.x, buf, N, s.target));
        if (quiet)
            PE_CHECK_OK(shmemu_quiet()); /* the current context's */
        PE_CHECK_EQ(shmemu_ctx_select(prev), c);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    if (shmemu_my_pe() == 1)
        PE_CHECK_OK(shmemu_getmem(buf, s.x + 8, 16, s.target));
    PE_CHECK_OK(shmemu_barrier_all());
    PE_CHECK_OK(shmemu_ctx_destroy(c));
    teardown(&s);
    return 0;
}

/* shmemvv's result check: each PE stores its verdict into a symmetric
 * variable with a plain store while PE 0 reads every PE's with _g, nothing
 * ordering the two.  order: the store only before (1) or after (2) the
 * reads (a barrier between), or neither (0: the planted race). */
int race_own_g(void *arg);
int race_own_g(void *arg)
{
    int order = arg ? *(const int *)arg : 0;
    struct shared s;
    PE_CHECK(setup(&s) == 0);
    int me = shmemu_my_pe(), *verdict = (int *)(void *)s.word;
    for (int step = 0; step < 2; step++) {
        if (me != 0 && step == (order == 2))
            *(volatile int *)verdict = 100 + me;
        if (me == 0 && step == (order != 2))
            for (int p = 1; p < shmemu_n_pes(); p++) {
                int v = shmemu_int_g(verdict, p);
                if (order)
                    PE_CHECK_EQ(v, order == 1 ? 100 + p : 0);
            }
        if (order)
            shmemu_barrier_all();
    }
    teardown(&s);
    return 0;
}

/* The receiver reads its buffer with a plain load while PE 0 puts into
 * it, nothing ordering the two (it read before the sync that says the data
 * is there).  order: the load only after (1) or before (2) the put, a
 * barrier between, or neither (0: the planted race). */
int race_own_load(void *arg);
int race_own_load(void *arg)
{
    int order = arg ? *(const int *)arg : 0;
    struct shared s;
    PE_CHECK(setup(&s) == 0);
    int me = shmemu_my_pe();
    char buf[N];
    memset(buf, 0x3c, sizeof(buf));
    for (int step = 0; step < 2; step++) {
        if (me == 0 && step == (order == 2))
            PE_CHECK_OK(shmemu_putmem(s.x, buf, N, s.target));
        if (me == s.target && step == (order == 1)) {
            long v = ((volatile long *)(void *)s.x)[1];
            if (order)
                PE_CHECK_EQ(v, order == 1 ? 0x3c3c3c3c3c3c3c3c : 0);
        }
        if (order)
            PE_CHECK_OK(shmemu_barrier_all());
    }
    teardown(&s);
    return 0;
}

/* The same with the verdict written by the library for the program (how
 * 0: shmemu_copy_local from a private int, 1: shmemu_reduce_local of two
 * private ints): the library's write to the PE's own heap is the PE's, and
 * races as its plain store does.  Once ordered, every PE also moves
 * overlapping bytes of its heap both ways and reduces in place, checking
 * each byte: under race detection these go through the library's alias of
 * the heap, where a memmove cannot see the overlap by the addresses. */
struct own_lib {
    int order, how;
};
int race_own_lib(void *arg);
int race_own_lib(void *arg)
{
    const struct own_lib *a = arg;
    struct shared s;
    PE_CHECK(setup(&s) == 0);
    int me = shmemu_my_pe(), *verdict = (int *)(void *)s.word;
    for (int step = 0; step < 2; step++) {
        if (me != 0 && step == (a->order == 2)) {
            int v = 100 + me, part[2] = {100, me};
            if (a->how == 0)
                PE_CHECK_OK(shmemu_copy_local(verdict, &v, sizeof(v)));
            else
                PE_CHECK_OK(shmemu_reduce_local(SHMEMU_INT32, SHMEMU_SUM, verdict, &part[0],
                                                &part[1], 1));
        }
        if (me == 0 && step == (a->order != 2))
            for (int p = 1; p < shmemu_n_pes(); p++) {
                int v = shmemu_int_g(verdict, p);
                if (a->order)
                    PE_CHECK_EQ(v, a->order == 1 ? 100 + p : 0);
            }
        if (a->order)
            shmemu_barrier_all();
    }
    if (a->order) { /* large enough that memmove copies in a loop, odd */
        enum { M = 100003 };
        unsigned char *x = shmemu_malloc(M);
        PE_CHECK(x != NULL);
        for (int i = 0; i < M; i++)
            x[i] = (unsigned char)(i * 7);
        PE_CHECK_OK(shmemu_copy_local(x + 1, x, M - 1)); /* upwards */
        for (int i = 1; i < M; i++)
            PE_CHECK_EQ(x[i], (unsigned char)((i - 1) * 7));
        PE_CHECK_OK(shmemu_copy_local(x, x + 2, M - 2)); /* downwards */
        for (int i = 0; i < M - 2; i++)
            PE_CHECK_EQ(x[i], (unsigned char)((i + 1) * 7));
        PE_CHECK_OK(shmemu_reduce_local(SHMEMU_UINT8, SHMEMU_SUM, x, x, x, M - 2));
        for (int i = 0; i < M - 2; i++)
            PE_CHECK_EQ(x[i], (unsigned char)((i + 1) * 14));
        shmemu_barrier_all();
        shmemu_free(x);
    }
    teardown(&s);
    return 0;
}

/* Plain loads and stores that synchronise, as programs on shared memory
 * write them (a release store of a flag is a plain mov on x86): the race
 * detector, which sees a PE's own stores but not its loads, must not
 * accuse them.  The target is PE 1 (the last PE is left alone). */
enum plain_how {
    /* PE 1 stores its x, then its flag (a release); PE 0 polls the flag
     * with atomic_fetch and gets x: flag on x's page, then on another */
    OWN_FLAG_SAME_PAGE, OWN_FLAG_OTHER_PAGE,
    /* PE 0 gets PE 1's x, then sets PE 1's flag with atomic_set; PE 1
     * polls it with plain loads, then overwrites x */
    OWN_POLL,
    /* PE 1 gets PE 0's x, then stores its own flag; PE 0 polls it with
     * loads through shmemu_ptr, then overwrites its x */
    PTR_POLL_STORE,
    /* PE 0 puts PE 1's x, a fence, then sets PE 1's flag with a put of 8
     * bytes; PE 1 polls it with plain loads, reads x, then overwrites it */
    PUT_POLL_STORE,
    /* PE 0 reads its x with plain loads, then adds to the last PE's count;
     * that PE polls it with plain loads and sets PE 1's flag; PE 1 polls
     * that, then puts PE 0's x (at 2 PEs PE 0 sets PE 1's flag itself) */
    PLAIN_CHAIN,
    /* PE 1 stores its x and its flag; PE 0 polls the flag through
     * shmemu_ptr, then gets x */
    PTR_POLL_GET,
    PLAIN_COUNT
};
static const char *const plain_name[] = {
    "own data and flag stores, atomic_fetch poll (one page)",
    "own data and flag stores, atomic_fetch poll (two pages)",
    "a get, atomic_set flag, plain-load poll, own store",
    "a get, own flag store, shmemu_ptr poll, own store",
    "a put, fence, flag put, plain-load poll, plain loads, own store",
    "plain loads, then a chain of flags polled with plain loads, then a put",
    "own data and flag stores, shmemu_ptr poll, a get"};

static int twin_plain(void *arg)
{
    enum plain_how how = *(const enum plain_how *)arg;
    int me = shmemu_my_pe();
    /* x and the flag on one page, or the flag a page further */
    char *x = shmemu_align(4096, 8192);
    long *flag = (long *)(void *)(x + (how == OWN_FLAG_OTHER_PAGE ? 4096 : N));
    PE_CHECK(x != NULL);
    memset(x, 0, 8192); /* ordered before everything below by the barrier */
    PE_CHECK_OK(shmemu_barrier_all());
    char buf[N], want[N];
    memset(want, 0x3c, sizeof(want));
    if ((how == OWN_FLAG_SAME_PAGE || how == OWN_FLAG_OTHER_PAGE || how == PTR_POLL_GET) &&
        me == 1) {
        for (int i = 0; i < N; i++)
            ((volatile char *)x)[i] = 0x3c;
        __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    } else if ((how == OWN_FLAG_SAME_PAGE || how == OWN_FLAG_OTHER_PAGE) && me == 0) {
        while (shmemu_long_atomic_fetch(flag, 1) == 0)
            ;
        PE_CHECK_OK(shmemu_getmem(buf, x, N, 1));
        PE_CHECK(memcmp(buf, want, N) == 0);
    } else if (how == PTR_POLL_GET && me == 0) {
#ifdef TH_TSAN
        /* The pointer is the checker's view, another mapping of PE 1's
         * page: ThreadSanitizer, which keys synchronization by address,
         * would not see this poll acquire PE 1's release of the flag, and
         * reports the get (PE 1's own stores are not watched there anyway). */
        const long *f = NULL;
#else
        const long *f = shmemu_ptr(flag, 1);
#endif
        while (f ? __atomic_load_n(f, __ATOMIC_ACQUIRE) == 0 : shmemu_long_atomic_fetch(flag, 1) == 0)
            shmemu_quiet(); /* a turn for the others on sim */
        PE_CHECK_OK(shmemu_getmem(buf, x, N, 1));
        PE_CHECK(memcmp(buf, want, N) == 0);
    } else if (how == OWN_POLL && me == 0) {
        PE_CHECK_OK(shmemu_getmem(buf, x, N, 1));
        shmemu_long_atomic_set(flag, 1, 1);
    } else if (how == OWN_POLL && me == 1) {
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0)
            shmemu_quiet();
        memset(x, 0x3c, N);
    } else if (how == PUT_POLL_STORE && me == 0) {
        memset(buf, 0x3c, N);
        PE_CHECK_OK(shmemu_putmem(x, buf, N, 1));
        PE_CHECK_OK(shmemu_fence());
        shmemu_long_p(flag, 1, 1);
    } else if (how == PUT_POLL_STORE && me == 1) {
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0)
            shmemu_quiet();
        for (int i = 0; i < N; i++) /* plain loads of the data, seen */
            PE_CHECK_EQ(((volatile char *)x)[i], 0x3c);
        memset(x, 0x5a, N);
    } else if (how == PLAIN_CHAIN) {
        int last = shmemu_n_pes() - 1;
        long *count = flag + 1;
        if (me == 0) {
            for (int i = 0; i < N; i++)
                PE_CHECK_EQ(((volatile char *)x)[i], 0);
            if (last > 1)
                shmemu_long_atomic_add(count, 1, last);
            else
                shmemu_long_atomic_set(flag, 1, 1);
        }
        if (me == last && last > 1) {
            while (__atomic_load_n(count, __ATOMIC_ACQUIRE) == 0)
                shmemu_quiet();
            shmemu_long_atomic_set(flag, 1, 1);
        }
        if (me == 1) {
            while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0)
                shmemu_quiet();
            memset(buf, 0x3c, N);
            PE_CHECK_OK(shmemu_putmem(x, buf, N, 0));
        }
    } else if (how == PTR_POLL_STORE && me == 1) {
        PE_CHECK_OK(shmemu_getmem(buf, x, N, 0));
        __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    } else if (how == PTR_POLL_STORE && me == 0) {
        const long *f = shmemu_ptr(flag, 1);
        while (f ? __atomic_load_n(f, __ATOMIC_ACQUIRE) == 0 : shmemu_long_atomic_fetch(flag, 1) == 0)
            shmemu_quiet();
        memset(x, 0x3c, N);
    }
    PE_CHECK_OK(shmemu_barrier_all());
    shmemu_free(x);
    return 0;
}

/* How race_put_ptr's writer is named on transport tp. */
static const char *ptr_writer(const char *tp)
{
    return th_checked_ptrs(tp) ? "shmemu_ptr store" : "shmemu_putmem";
}

/* ------------------------------------------------------ correct twins */

/* The puts are ordered by a barrier between them. */
static int twin_put_put(void *arg)
{
    (void)arg;
    struct shared s;
    PE_CHECK(setup(&s) == 0);
    char buf[32];
    memset(buf, shmemu_my_pe() + 1, sizeof(buf));
    if (shmemu_my_pe() == 0)
        shmemu_putmem(s.x, buf, 16, s.target);
    shmemu_barrier_all();
    if (shmemu_my_pe() == 1)
        shmemu_putmem(s.x + 8, buf, 16, s.target);
    teardown(&s);
    return 0;
}

/* How the reader learns that the data landed: each is synchronising. */
enum how { BY_SIGNAL_FETCH, BY_SIGNAL_WAIT, BY_TEST, BY_TEST_ANY, BY_WAIT, BY_G, BY_FETCH,
           BY_COUNT };
static const char *const how_name[] = {"signal_fetch loop", "signal_wait_until",
                                       "test loop", "test_any loop", "wait_until",
                                       "_g loop", "atomic_fetch loop"};

/* The writer (PE 0) puts the data into the reader's (PE 1's) x, then
 * raises a flag; the reader polls the flag and reads x with a get, then
 * with plain loads. */
static int twin_poll(void *arg)
{
    enum how how = *(const enum how *)arg;
    struct shared s;
    PE_CHECK(setup(&s) == 0);
    int me = shmemu_my_pe();
    char buf[N];
    memset(buf, 7, sizeof(buf));
    if (me == 0) {
        if (how == BY_SIGNAL_FETCH || how == BY_SIGNAL_WAIT) {
            PE_CHECK_OK(shmemu_putmem_signal(s.x, buf, N, s.flag, 1, SHMEMU_SIGNAL_SET, 1));
        } else {
            PE_CHECK_OK(shmemu_putmem(s.x, buf, N, 1));
            PE_CHECK_OK(shmemu_fence());
            shmemu_long_atomic_set(s.word, 1, 1);
        }
    } else if (me == 1) {
        switch (how) {
        case BY_SIGNAL_FETCH:
            while (shmemu_signal_fetch(s.flag) == 0)
                ;
            break;
        case BY_SIGNAL_WAIT:
            shmemu_signal_wait_until(s.flag, SHMEMU_CMP_EQ, 1);
            break;
        case BY_TEST:
            while (!shmemu_long_test(s.word, SHMEMU_CMP_EQ, 1))
                ;
            break;
        case BY_TEST_ANY:
            while (shmemu_long_test_any(s.word, 1, NULL, SHMEMU_CMP_EQ, 1) == SIZE_MAX)
                ;
            break;
        case BY_WAIT:
            shmemu_long_wait_until(s.word, SHMEMU_CMP_EQ, 1);
            break;
        case BY_G:
            while (shmemu_long_g(s.word, 1) == 0)
                ;
            break;
        default:
            while (shmemu_long_atomic_fetch(s.word, 1) == 0)
                ;
        }
        char got[N];
        PE_CHECK_OK(shmemu_getmem(got, s.x, N, 1));
        PE_CHECK(memcmp(got, buf, N) == 0);
        for (int i = 0; i < N; i++) /* and with plain loads of its own x */
            PE_CHECK_EQ(((volatile char *)s.x)[i], 7);
    }
    teardown(&s);
    return 0;
}

/* ---------------------------------------------------------- harness */

static int launch(const char *tp, int npes, const char *check, int (*body)(void *), void *arg,
                  char *notes, size_t len)
{
    shmemu_opts o = {.npes = npes, .transport = tp, .heap_size = (size_t)4 << 20,
                     .check = check};
    int rc = shmemu_launch(&o, body, arg);
    notes[0] = '\0';
    shmemu_check_notes(notes, len);
    return rc;
}

/* The note's byte range [lo, hi) for the access named first. */
static size_t first_range(const char *note)
{
    const char *b = strstr(note, "bytes [");
    unsigned long lo, hi;
    if (!b || sscanf(b, "bytes [%lx, %lx)", &lo, &hi) != 2)
        return 0;
    return hi - lo;
}

/* Run body under race detection (seed 0) or fuzz:seed,race: it must end
 * with SHMEMU_ERACE and a race note, which is returned (in notes); the
 * mode run goes to check[32]. */
static const char *planted_note(const char *tp, int npes, int seed, int (*body)(void *),
                                char *notes, size_t len, char *check)
{
    if (seed)
        snprintf(check, 32, "fuzz:%d,race", seed);
    else
        snprintf(check, 32, "race");
    th_capture_start();
    int rc = launch(tp, npes, check, body, NULL, notes, len);
    free(th_capture_stop());
    if (rc != SHMEMU_ERACE)
        fail_msg("%s, %d PEs, %s: returned %d, not SHMEMU_ERACE; notes: %s", tp, npes, check,
                 rc, notes);
    const char *r = strstr(notes, "race: PE ");
    if (!r)
        fail_msg("%s %s: no race note: %s", tp, check, notes);
    return r;
}

/* first_call NULL: race_put_ptr's writer (ptr_writer). */
static void planted(int (*body)(void *), const char *first_call, const char *second_call,
                    size_t first_len)
{
    static char notes[8192];
    int seeds = (int)th_iters(20, 4);
    for (int t = 0; t < th_transport_count(); t++) {
        const char *tp = th_transport(t);
        const char *first = first_call ? first_call : ptr_writer(tp);
        for (int npes = 2; npes <= 3; npes++)
            for (int seed = 0; seed <= seeds; seed++) {
                char check[32];
                const char *r = planted_note(tp, npes, seed, body, notes, sizeof(notes), check);
                /* Both PEs and both calls, whichever came first. */
                int a = r[9] - '0';
                char want[160];
                snprintf(want, sizeof(want), "race: PE %d's %s (at ", a,
                         a == 0 ? first : second_call);
                if (!strstr(r, want) || (a != 0 && a != 1))
                    fail_msg("%s %s: the note does not start with '%s': %s", tp, check, want, r);
                snprintf(want, sizeof(want), "which PE %d's %s (at ", 1 - a,
                         a == 0 ? second_call : first);
                if (!strstr(r, want))
                    fail_msg("%s %s: the note lacks '%s': %s", tp, check, want, r);
                char heap[64];
                snprintf(heap, sizeof(heap), "of PE %d's heap", npes - 1);
                if (!strstr(r, heap) || !strstr(r, "no wait, signal or sync orders the two"))
                    fail_msg("%s %s: the note lacks the target or the verdict: %s", tp, check,
                             r);
                if (a == 0 && first_range(r) != first_len)
                    fail_msg("%s %s: PE 0's range is not %zu bytes: %s", tp, check, first_len,
                             r);
                if (strstr(r, "(at ?)"))
                    fail_msg("%s %s: a call site is unknown: %s", tp, check, r);
            }
    }
}

/* One explanation per PE (each enters a sync with a put in flight), then
 * PEs 0 and 1 store to one word of the last PE with nothing between. */
static int race_after_notes(void *arg)
{
    (void)arg;
    struct shared s;
    if (setup(&s))
        return 1;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    long v = me;
    PE_CHECK_OK(shmemu_long_put_nbi(s.word, &v, 1, (me + 1) % n));
    PE_CHECK_OK(shmemu_sync_all());
    PE_CHECK_OK(shmemu_quiet());
    PE_CHECK_OK(shmemu_barrier_all());
    if (me < 2)
        PE_CHECK_OK(shmemu_long_p(s.word, v, s.target));
    PE_CHECK_OK(shmemu_barrier_all());
    teardown(&s);
    return 0;
}

/* The race is the job's verdict: its note is kept when the other PEs'
 * notes filled the table first (12 PEs: up to 12 "sync with puts in
 * flight"), and what was not kept is counted. */
static void test_race_kept_when_notes_fill(void **state)
{
    (void)state;
    static char notes[16384];
    for (int t = 0; t < th_transport_count(); t++) {
        const char *tp = th_transport(t);
        for (int seed = 1; seed <= 3; seed++) {
            char check[32];
            const char *r = planted_note(tp, 12, seed, race_after_notes, notes, sizeof(notes),
                                         check);
            if (!strstr(r, "shmemu_long_p (at ") || !strstr(r, "of PE 11's heap"))
                fail_msg("%s %s: not the planted race: %s", tp, check, r);
            int syncs = 0;
            for (const char *p = notes; (p = strstr(p, "sync with puts in flight")); p++)
                syncs++;
            /* 8 notes are kept: with 8 or more explanations, one gave way */
            if (syncs >= 8 && !strstr(notes, "more note"))
                fail_msg("%s %s: %d explanations and a race, nothing said dropped: %s", tp,
                         check, syncs, notes);
            if (syncs > 7)
                fail_msg("%s %s: %d explanations kept beside the race: %s", tp, check, syncs,
                         notes);
        }
    }
}

static void test_put_put(void **state)
{
    (void)state;
    planted(race_put_put, "shmemu_putmem", "shmemu_putmem", 16);
}

static void test_put_get(void **state)
{
    (void)state;
    planted(race_put_get, "shmemu_putmem", "shmemu_getmem", N);
}

static void test_put_ptr(void **state)
{
    (void)state;
    planted(race_put_ptr, NULL, "shmemu_getmem", 8);
}

static void clean(int (*body)(void *), void *arg, const char *what)
{
    static char notes[8192];
    int seeds = (int)th_iters(20, 4);
    for (int t = 0; t < th_transport_count(); t++)
        for (int npes = 2; npes <= 3; npes++)
            for (int seed = 0; seed <= seeds; seed++) {
                char check[32];
                if (seed)
                    snprintf(check, sizeof(check), "fuzz:%d,race", seed);
                else
                    snprintf(check, sizeof(check), "race");
                int rc = launch(th_transport(t), npes, check, body, arg, notes,
                                sizeof(notes));
                if (rc != 0 || strstr(notes, "race:"))
                    fail_msg("%s, %s, %d PEs, %s: a correct program was accused (rc %d): %s",
                             what, th_transport(t), npes, check, rc, notes);
            }
}

/* Without fuzzing the put's data moves at once, and the report rests on
 * the context alone: the put may land until its context's quiet. */
static void test_ctx_barrier(void **state)
{
    (void)state;
    static char notes[8192];
    int unquieted = 0;
    for (int t = 0; t < th_transport_count(); t++)
        for (int npes = 2; npes <= 3; npes++) {
            const char *tp = th_transport(t);
            th_capture_start();
            int rc = launch(tp, npes, "race", ctx_barrier, &unquieted, notes, sizeof(notes));
            free(th_capture_stop());
            if (rc != SHMEMU_ERACE)
                fail_msg("%s, %d PEs: returned %d, not SHMEMU_ERACE; notes: %s", tp, npes, rc,
                         notes);
            const char *r = strstr(notes, "race: PE 0's shmemu_putmem (at ");
            if (!r || !strstr(r, "which PE 1's shmemu_getmem (at ") ||
                !strstr(r, "the put may land until its context's quiet or fence, which came "
                           "after (a barrier completes the default context only)"))
                fail_msg("%s, %d PEs: not the note expected: %s", tp, npes, notes);
            if (first_range(r) != N)
                fail_msg("%s, %d PEs: PE 0's range is not %d bytes: %s", tp, npes, N, r);
        }
    int quieted = 1;
    clean(ctx_barrier, &quieted, "a context quieted before the barrier");
}

static void test_twin_put_put(void **state)
{
    (void)state;
    clean(twin_put_put, NULL, "puts ordered by a barrier");
}

/* Defect: polling shmemu_signal_fetch, then reading the data, was a race. */
static void test_polling(void **state)
{
    (void)state;
    for (int h = 0; h < BY_COUNT; h++) {
        enum how how = (enum how)h;
        clean(twin_poll, &how, how_name[h]);
    }
}

/* Run body, a planted race involving a PE's own plain accesses, on every
 * transport where they are watched (th_own_stores, docs/CHECK.md), at 2
 * to max_npes PEs, every seed; judge checks each note.  A transport
 * left out is said, by name. */
static void own_planted(const char *name, int (*body)(void *), int max_npes,
                        void (*judge)(const char *tp, const char *check, int npes,
                                      const char *note))
{
    static char notes[8192];
    int seeds = (int)th_iters(20, 4), skipped = 0;
    for (int t = 0; t < th_transport_count(); t++) {
        const char *tp = th_transport(t);
        if (!th_own_stores(tp)) {
            skipped++;
            continue;
        }
        for (int npes = 2; npes <= max_npes; npes++)
            for (int seed = 0; seed <= seeds; seed++) {
                char check[32];
                const char *r = planted_note(tp, npes, seed, body, notes, sizeof(notes), check);
                judge(tp, check, npes, r);
            }
    }
    if (skipped)
        printf("# %s: %d transport(s) skipped: a PE's own loads and stores are watched only "
               "where its checked pointers work (local, shm, sim on x86-64, not under "
               "valgrind), not in a ThreadSanitizer build\n",
               name, skipped);
}

static void judge_own_g(const char *tp, const char *check, int npes, const char *r)
{
    (void)npes;
    int a = r[9] - '0';
    const char *store = "plain store (at race_own_g+", *g = "shmemu_int_g (at race_own_g+";
    char want[160];
    snprintf(want, sizeof(want), "race: PE %d's %s", a, a == 0 ? g : store);
    if (strncmp(r, want, strlen(want)) != 0)
        fail_msg("%s %s: the note does not start with '%s': %s", tp, check, want, r);
    if (!strstr(r, a == 0 ? "which PE " : "which PE 0's ") || !strstr(r, a == 0 ? store : g) ||
        !strstr(r, "no wait, signal or sync orders the two"))
        fail_msg("%s %s: the note lacks the other access or the verdict: %s", tp, check, r);
    if (first_range(r) != sizeof(int))
        fail_msg("%s %s: the range is not %zu bytes: %s", tp, check, sizeof(int), r);
}

/* A PE's own plain store races with a peer's _g of it, either way round,
 * naming the store's line and the _g's. */
static void test_own_store_g(void **state)
{
    (void)state;
    own_planted("test_own_store_g", race_own_g, 4, judge_own_g);
}

static void judge_own_load(const char *tp, const char *check, int npes, const char *r)
{
    char load[64], want[160];
    int a = r[9] - '0', target = npes - 1;
    const char *put = "shmemu_putmem (at race_own_load+";
    snprintf(load, sizeof(load), "PE %d's plain load (at race_own_load+", target);
    snprintf(want, sizeof(want), "race: PE %d's %s", a, a == 0 ? put : load + strlen("PE 1's "));
    if (strncmp(r, want, strlen(want)) != 0 || (a != 0 && a != target))
        fail_msg("%s %s: the note does not start with '%s': %s", tp, check, want, r);
    if (!strstr(r, a == 0 ? load : "which PE 0's shmemu_putmem (at race_own_load+") ||
        !strstr(r, "tests/test_race.c:") || !strstr(r, "no wait, signal or sync orders the two"))
        fail_msg("%s %s: the note lacks the other access or the verdict: %s", tp, check, r);
    if (first_range(r) != (a == 0 ? (size_t)N : sizeof(long)))
        fail_msg("%s %s: the first access's range is wrong: %s", tp, check, r);
}

/* A PE's own plain load races with a peer's put into it, either way
 * round, naming the load's 8 bytes and line, and the put; its twins with
 * a barrier between pass. */
static void test_own_load_put(void **state)
{
    (void)state;
    own_planted("test_own_load_put", race_own_load, 3, judge_own_load);
    for (int order = 1; order <= 2; order++)
        clean(race_own_load, &order,
              order == 1 ? "a put, a barrier, then a load" : "a load, a barrier, a put");
}

/* The library's writes to the PE's own heap for the program, racing a
 * peer's _g as a plain store does: reported naming the call and its
 * caller. */
static void test_own_lib_write_g(void **state)
{
    (void)state;
    static char notes[8192];
    static const char *const calls[] = {"shmemu_copy_local", "shmemu_reduce_local"};
    int seeds = (int)th_iters(10, 5);
    int skipped = 0;
    for (int t = 0; t < th_transport_count(); t++) {
        const char *tp = th_transport(t);
        if (!th_own_stores(tp)) {
            skipped++;
            continue;
        }
        for (int how = 0; how < 2; how++)
            for (int npes = 2; npes <= 3; npes++)
                for (int seed = 0; seed <= seeds; seed++) {
                    char check[32];
                    struct own_lib a = {0, how};
                    snprintf(check, sizeof(check), seed ? "fuzz:%d,race" : "race", seed);
                    th_capture_start();
                    int rc = launch(tp, npes, check, race_own_lib, &a, notes, sizeof(notes));
                    free(th_capture_stop());
                    const char *r = strstr(notes, "race: PE ");
                    char want[96];
                    /* the call and the program's line, not the library's
                     * memmove or reduction kernel */
                    snprintf(want, sizeof(want), "'s %s (at race_own_lib+", calls[how]);
                    /* A fault records the bytes its instruction stores:
                     * all 4 where memmove moves words, 1 where it moves
                     * bytes (AddressSanitizer's) */
                    size_t got = first_range(r);
                    if (rc != SHMEMU_ERACE || !r || !strstr(r, want) ||
                        !strstr(r, "shmemu_int_g (at race_own_lib+") ||
                        !strstr(r, "no wait, signal or sync orders the two") || got < 1 ||
                        got > sizeof(int))
                        fail_msg("%s, %s, %d PEs, %s: rc %d, want SHMEMU_ERACE and a note "
                                 "with '%s' and shmemu_int_g over at most 4 bytes: %s",
                                 tp, calls[how], npes, check, rc, want, notes);
                }
    }
    if (skipped)
        printf("# test_own_lib_write_g: %d transport(s) skipped: a PE's own stores are "
               "watched only where its checked pointers work (local, shm, sim on x86-64, "
               "not under valgrind), not in a ThreadSanitizer build\n",
               skipped);
}

static void test_own_store_twins(void **state)
{
    (void)state;
    for (int order = 1; order <= 2; order++)
        clean(race_own_g, &order, order == 1 ? "verdicts stored, a barrier, then read"
                                             : "verdicts read, a barrier, then stored");
    for (int h = 0; h < PLAIN_COUNT; h++) {
        enum plain_how how = (enum plain_how)h;
        clean(twin_plain, &how, plain_name[h]);
    }
    for (int order = 1; order <= 2; order++)
        for (int how = 0; how < 2; how++) {
            struct own_lib a = {order, how};
            clean(race_own_lib, &a,
                  how ? "verdicts reduced into place, ordered by a barrier"
                      : "verdicts copied into place, ordered by a barrier");
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_put),      cmocka_unit_test(test_put_get),
        cmocka_unit_test(test_race_kept_when_notes_fill),
        cmocka_unit_test(test_put_ptr),      cmocka_unit_test(test_twin_put_put),
        cmocka_unit_test(test_polling),      cmocka_unit_test(test_ctx_barrier),
        cmocka_unit_test(test_own_store_g),  cmocka_unit_test(test_own_store_twins),
        cmocka_unit_test(test_own_lib_write_g), cmocka_unit_test(test_own_load_put),
    };
    return cmocka_run_group_tests_name("race", tests, NULL, NULL);
}
