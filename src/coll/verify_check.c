/*
 * verify_check.c - the checks a PE makes after each call of the collective
 * under test (verify.c runs it): dest against the reference, src
 * unchanged, the guards around every buffer intact, every member holding
 * the same bits; and the one fault kept for the report.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify_check.h"

/* Keep the first fault (lowest rank, call, PE, index): the report must not
 * depend on which PE happened to check first, or a reproducer would print
 * a different line than the run that found the bug. */
void shmemu__vc_fault_ranked(struct shmemu__vshared *sh, int rank, int call, int pe, size_t index,
                         const char *reason, const char *expected, const char *got)
{
    while (__atomic_exchange_n(&sh->lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
    long long a[4] = {rank, call, pe, (long long)index},
              b[4] = {sh->rank, sh->call, sh->pe, (long long)sh->index};
    int keep = 0;
    if (sh->failed)
        for (int k = 0; k < 4 && !keep; k++) {
            if (a[k] != b[k]) {
                keep = b[k] < a[k] ? 1 : -1;
                break;
            }
        }
    if (!sh->failed || keep < 0) {
        sh->failed = 1;
        sh->rank = rank;
        sh->call = call;
        sh->pe = pe;
        sh->index = index;
        snprintf(sh->reason, sizeof(sh->reason), "%s", reason);
        snprintf(sh->expected, sizeof(sh->expected), "%s", expected ? expected : "");
        snprintf(sh->got, sizeof(sh->got), "%s", got ? got : "");
    }
    __atomic_store_n(&sh->lock, 0, __ATOMIC_RELEASE);
}

void shmemu__vc_fault(struct shmemu__vshared *sh, int call, int pe, size_t index,
                      const char *reason, const char *expected, const char *got)
{
    shmemu__vc_fault_ranked(sh, F_OTHER, call, pe, index, reason, expected, got);
}

void shmemu__vc_fill_guard(unsigned char *p, unsigned salt)
{
    for (int i = 0; i < GUARD; i++)
        p[i] = (unsigned char)(0xa5 ^ (i * 7) ^ salt);
}

static long check_guard(const unsigned char *p, unsigned salt)
{
    for (int i = 0; i < GUARD; i++)
        if (p[i] != (unsigned char)(0xa5 ^ (i * 7) ^ salt))
            return i;
    return -1;
}

/* " in call 2 of 3" when it matters which. */
const char *shmemu__vc_which_call(int call)
{
    static const char *const names[VERIFY_CALLS] = {
        "", " (call 2 of 3: back to back, same buffers)", " (call 3 of 3: other buffers)"};
    return names[call];
}

/* Whether n elements of es bytes at dest hold the low bits of want[]: a
 * loop per width, whose loads the compiler can widen (the check of every
 * element of every call was a tenth of the default matrix's time). */
#define SAME_BITS(T)                                                           \
    do {                                                                       \
        T g_;                                                                  \
        int diff_ = 0;                                                         \
        for (size_t i_ = 0; i_ < n; i_++) {                                    \
            memcpy(&g_, dest + i_ * sizeof(T), sizeof(T));                     \
            diff_ |= g_ != (T)want[i_];                                        \
        }                                                                      \
        return !diff_;                                                         \
    } while (0)
static int same_bits_as(const char *dest, const uint64_t *want, size_t n, size_t es)
{
    switch (es) {
    case 1: SAME_BITS(uint8_t);
    case 2: SAME_BITS(uint16_t);
    case 4: SAME_BITS(uint32_t);
    default: SAME_BITS(uint64_t);
    }
}

#undef SAME_BITS

/* The first byte where a and b differ; n if none. */
size_t shmemu__vc_first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (!memcmp(a, b, n)) /* the common case, at memcmp's speed */
        return n;
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* Check this PE's dest (as it was when call k returned). */
void shmemu__vc_check_dest(const shmemu_verify_case *vc, struct shmemu__vshared *sh, int call,
                           int n, int me, const char *dest, size_t out)
{
    size_t es = shmemu_dtype_size(vc->dtype), c = vc->count;
    const uint64_t *want_of = sh->want + (size_t)call * sh->nref;
    char exp[48], gs[48], why[448], how[160];
    if (!is_reduction(vc->coll) && out) { /* the common case: every block as expected */
        size_t blocks = vc->coll == SHMEMU_COLL_BROADCAST ? 1 : out / c, b = 0;
        unsigned char *made = malloc(c * es);
        for (; made && b < blocks; b++) {
            int from = vc->coll == SHMEMU_COLL_BROADCAST ? vc->root : (int)b;
            size_t first = vc->coll == SHMEMU_COLL_ALLTOALL ? (size_t)me * c : 0;
            const unsigned char *want = shmemu__vc_kept_inputs(sh, call, from, n);
            if (want) {
                want += first * es;
            } else {
                shmemu__verify_fill_range(vc, call, from, first, made, c);
                want = made;
            }
            if (memcmp(want, dest + b * c * es, c * es))
                break;
        }
        free(made);
        if (made && b == blocks)
            return;
    }
    if (is_reduction(vc->coll)) { /* the common case: bits as expected */
        const uint64_t *w = want_of + (vc->coll == SHMEMU_COLL_REDUCE_SCATTER ? (size_t)me * c : 0);
        if (same_bits_as(dest, w, out, es))
            return;
    }
    for (size_t i = 0; i < out; i++) {
        const char *got = dest + i * es;
        int ok;
        int from = 0;
        size_t j = 0;
        switch (vc->coll) {
        case SHMEMU_COLL_ALLREDUCE:
        case SHMEMU_COLL_REDUCE:
            ok = shmemu__verify_ref_ok(vc, call, n, i, want_of[i], got, exp, gs);
            break;
        case SHMEMU_COLL_REDUCE_SCATTER:
            ok = shmemu__verify_ref_ok(vc, call, n, (size_t)me * c + i, want_of[(size_t)me * c + i],
                                       got, exp, gs);
            break;
        default: {
            unsigned char want[8];
            from = vc->coll == SHMEMU_COLL_BROADCAST ? vc->root : (int)(i / c);
            j = vc->coll == SHMEMU_COLL_BROADCAST   ? i
                : vc->coll == SHMEMU_COLL_ALLGATHER ? i % c
                                                    : (size_t)me * c + i % c;
            shmemu__verify_input(vc, call, from, j, want);
            ok = !memcmp(want, got, es);
            if (!ok) {
                shmemu__verify_format(vc->dtype, want, exp, sizeof(exp));
                shmemu__verify_format(vc->dtype, got, gs, sizeof(gs));
            }
        }
        }
        if (ok)
            continue;
        int poison = 1, get_poison = 1; /* still the pattern dest was filled with? */
        for (size_t b = 0; b < es; b++) {
            poison &= (unsigned char)got[b] == 0xa5;
            get_poison &= (unsigned char)got[b] == SHMEMU_CHECK_GET_POISON;
        }
        if (poison && call == 0)
            snprintf(gs, sizeof(gs), "(never written)");
        else if (get_poison && shmemu_check_enabled())
            snprintf(gs, sizeof(gs), "(get_nbi poison: read before quiet)");
        shmemu__verify_explain(vc, call, n, me, i, got, how, sizeof(how));
        if (!is_reduction(vc->coll) && how[0])
            snprintf(how + strlen(how), sizeof(how) - strlen(how),
                     " (expected PE %d's element %zu)", from, j);
        snprintf(why, sizeof(why), "wrong result%s: dest[%zu] on PE %d%s%s",
                 shmemu__vc_which_call(call), i, me, how[0] ? " " : "", how);
        shmemu__vc_fault(sh, call, me, i, why, exp, gs);
        return;
    }
}

/* Every member of the team must hold the same bits as team PE 0 (the
 * collectives that promise it): mine is my copy, sym where it is on the
 * heap. */
void shmemu__vc_check_agree(const shmemu_verify_case *vc, struct shmemu__vshared *sh, int call,
                            int me, shmemu_team_t team, const unsigned char *mine, const void *sym,
                            size_t out)
{
    size_t es = shmemu_dtype_size(vc->dtype), bytes = out * es;
    unsigned char *theirs = shmemu_scratch_malloc(bytes);
    if (!theirs)
        return;
    int pe0 = shmemu_team_translate_pe(team, 0, SHMEMU_TEAM_WORLD);
    if (shmemu_getmem(theirs, sym, bytes, pe0) == SHMEMU_OK && memcmp(theirs, mine, bytes)) {
        for (size_t i = 0; i < out; i++) {
            if (shmemu__verify_same_bits(vc->dtype, mine + i * es, theirs + i * es))
                continue;
            char a[48], b[48], why[448];
            shmemu__verify_format(vc->dtype, theirs + i * es, a, sizeof(a));
            shmemu__verify_format(vc->dtype, mine + i * es, b, sizeof(b));
            uint64_t ba = 0, bb = 0;
            memcpy(&ba, theirs + i * es, es);
            memcpy(&bb, mine + i * es, es);
            snprintf(why, sizeof(why),
                     "members disagree%s: dest[%zu] is %s (bits 0x%llx) on PE 0 but %s (bits "
                     "0x%llx) on PE %d; every member must get the same bits",
                     shmemu__vc_which_call(call), i, a, (unsigned long long)ba, b,
                     (unsigned long long)bb, me);
            shmemu__vc_fault(sh, call, me, i, why, a, b);
            break;
        }
    }
    shmemu_scratch_free(theirs);
}

void shmemu__vc_check_guards(const shmemu_verify_case *vc, struct shmemu__vshared *sh, int call,
                             int me, const struct bufs *b, size_t in, size_t out)
{
    size_t es = shmemu_dtype_size(vc->dtype);
    const unsigned char *guards[4] = {b->sbuf, b->src + in * es, b->dbuf, b->dest + out * es};
    for (int k = 0; k < (vc->in_place ? 2 : 4); k++) {
        long g = check_guard(guards[k], (unsigned)k + 1);
        if (g < 0)
            continue;
        char why[160];
        snprintf(why, sizeof(why), "PE %d wrote %s %s its buffer (byte %ld of the guard)%s", me,
                 k < 2 ? "src" : "dest", k % 2 ? "past the end of" : "before", g,
                 shmemu__vc_which_call(call));
        shmemu__vc_fault(sh, call, me, (size_t)g, why, NULL, NULL);
    }
}

void shmemu__vc_check_src(const shmemu_verify_case *vc, struct shmemu__vshared *sh, int call,
                          int me, const unsigned char *src, const unsigned char *snap, size_t in)
{
    size_t es = shmemu_dtype_size(vc->dtype), i;
    if (vc->in_place || (i = shmemu__vc_first_diff(snap, src, in * es)) >= in * es)
        return;
    char why[160];
    snprintf(why, sizeof(why), "PE %d: src[%zu] changed%s", me, i / es,
             shmemu__vc_which_call(call));
    shmemu__vc_fault(sh, call, me, i / es, why, NULL, NULL);
}
