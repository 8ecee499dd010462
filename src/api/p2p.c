/* p2p.c - point-to-point synchronisation: waiting on symmetric values. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "ctl/livelock.h"
#include "runtime/value.h"
#include "ctl/wait.h"

enum { WS_ONE, WS_ALL, WS_ANY, WS_SOME };

/* The waited-on argument as the call's prototype names it. */
static const char *ivar_name(const char *call, int mode)
{
    return strstr(call, "_signal_") ? "sig_addr" : mode == WS_ONE ? "ivar" : "ivars";
}

/* ------------------------------------------------------------------ waits */


/* One wait or test over one ivar or an array of them. */
struct waitspec {
    int vt;
    int mode;
    size_t off;            /* heap offset of ivars[0] */
    size_t nelems;
    const int *status;     /* NULL: all included */
    int cmp;
    uint64_t value;        /* when values is NULL */
    const void *values;    /* _vector forms: one value per element */
    size_t *indices;       /* SOME */
    size_t start;          /* ANY: first index looked at */
    size_t found;          /* ANY: index; SOME: count */
    uint64_t seen;         /* ONE: the value that satisfied */
};

static uint64_t load_elem(shmemu__pe *me, const struct waitspec *w, size_t i)
{
    size_t width = (size_t)shmemu__vt_width(w->vt), off = w->off + i * width;
    if (SHMEMU__LIKELY(me->direct))
        return shmemu__vt_load(w->vt, me->heap + off);
    uint64_t v = 0; /* not host-addressable: read our own heap through the transport */
    (void)shmemu__tl_own_rma(me, SHMEMU_TL_GET, off, &v, width);
    return v;
}

static int elem_holds(shmemu__pe *me, struct waitspec *w, size_t i)
{
    uint64_t v = load_elem(me, w, i), want = w->value;
    if (w->values) {
        want = 0;
        memcpy(&want, (const char *)w->values + i * (size_t)shmemu__vt_width(w->vt),
               (size_t)shmemu__vt_width(w->vt));
    }
    if (shmemu__vt_compare(w->vt, v, w->cmp, want) == 1) {
        w->seen = v;
        return 1;
    }
    return 0;
}

/* Evaluate the wait condition once; records what it found. */
static int holds(shmemu__pe *me, void *arg)
{
    struct waitspec *w = arg;
    size_t n = w->nelems;
    switch (w->mode) {
    case WS_ONE:
        return elem_holds(me, w, 0);
    case WS_ALL:
        for (size_t i = 0; i < n; i++)
            if ((!w->status || !w->status[i]) && !elem_holds(me, w, i))
                return 0;
        return 1;
    case WS_ANY:
        for (size_t k = 0; k < n; k++) {
            size_t i = (w->start + k) % n;
            if ((!w->status || !w->status[i]) && elem_holds(me, w, i)) {
                w->found = i;
                return 1;
            }
        }
        return 0;
    default: /* WS_SOME */
        w->found = 0;
        for (size_t i = 0; i < n; i++)
            if ((!w->status || !w->status[i]) && elem_holds(me, w, i))
                w->indices[w->found++] = i;
        return w->found > 0;
    }
}

static int wait_set_empty(const struct waitspec *w)
{
    if (w->mode == WS_ONE)
        return 0;
    for (size_t i = 0; i < w->nelems; i++)
        if (!w->status || !w->status[i])
            return 0;
    return 1;
}

/* Check the arguments of a wait or test; fills w->off. */
static int check_wait(shmemu__pe *me, const char *call, struct waitspec *w,
                      const void *ivars)
{
    size_t width = (size_t)shmemu__vt_width(w->vt);
    if (w->cmp < SHMEMU_CMP_EQ || w->cmp > SHMEMU_CMP_LE) {
        const char *api = shmemu__api_const_of(shmemu__user_call(call));
        return shmemu__fail(me, SHMEMU_EINVAL, call, "cmp %d is not one of %s_CMP_EQ..%s_CMP_LE",
                            w->cmp, api, api);
    }
    if (w->nelems == 0)
        return SHMEMU_OK;
    if (w->nelems > SIZE_MAX / width)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "nelems %zu overflows size_t",
                            w->nelems);
    const char *arg = ivar_name(call, w->mode);
    if (!ivars)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "%s is NULL with nelems %zu", arg,
                            w->nelems);
    if ((uintptr_t)ivars & (width - 1))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "%s %p is not aligned to its %zu-byte type", arg, ivars, width);
    if (w->mode == WS_SOME && !w->indices)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "indices is NULL");
    if (w->values == (const void *)ivars)
        return shmemu__fail(me, SHMEMU_EINVAL, call, "values is the ivars array");
    return shmemu__check_sym(me, call, arg, ivars, w->nelems * width, &w->off);
}

/* Block until w holds (wait) or look once (test).  Returns SHMEMU_OK with
 * *holds_p set, or a failure status. */
/* What a test that failed saw, folded into one word (livelock.h). */
static uint64_t seen_hash(shmemu__pe *me, const struct waitspec *w)
{
    if (w->mode == WS_ONE)
        return load_elem(me, w, 0);
    uint64_t h = 0;
    for (size_t i = 0; i < w->nelems; i++)
        if (!w->status || !w->status[i])
            h = (h ^ load_elem(me, w, i)) * 0x100000001b3ull;
    return h;
}

static int run_wait_at(void *site, const char *call, struct waitspec *w, const void *ivars,
                       int wait, int *holds_p)
{
    SHMEMU__ENTER_AT(me, call, shmemu__last_status, site);
    *holds_p = 0;
    int st = check_wait(me, call, w, ivars);
    if (st)
        return st;
    if (wait_set_empty(w))
        return shmemu__ok();
    if (w->mode == WS_ANY)
        w->start = me->any_turn++ % w->nelems;
    size_t bytes = w->nelems * (size_t)shmemu__vt_width(w->vt);
    if (!wait) {
        shmemu__drive(me); /* a poll lets outstanding operations move */
        *holds_p = holds(me, w);
        if (*holds_p && SHMEMU__CHECKED(me))
            shmemu__check_woke(me, call, w->off, bytes);
        if (*holds_p)
            shmemu__poll_progress(me);
        else if (shmemu__poll_due(me))
            shmemu__poll_slow(me, call, site, me->pe, w->off, bytes, seen_hash(me, w));
        return shmemu__ok();
    }
    struct shmemu__wait_desc d = {.kind = w->mode == WS_ONE ? SHMEMU__WAIT_VALUE
                                                            : SHMEMU__WAIT_ARRAY,
                                  .vtype = w->vt, .cmp = w->cmp, .off = w->off,
                                  .nelems = w->nelems, .value = w->value};
    if (w->values) {
        size_t width = (size_t)shmemu__vt_width(w->vt);
        for (; d.nvalues < SHMEMU__WAIT_VALUES && (size_t)d.nvalues < w->nelems; d.nvalues++)
            memcpy(&d.values[d.nvalues], (const char *)w->values + (size_t)d.nvalues * width,
                   width);
    }
    shmemu__strlcpy(d.call, shmemu__user_call(call), sizeof(d.call));
    if ((st = shmemu__wait_ready(me, &d, holds, w)))
        return shmemu__fail(me, st, call, "%s while waiting",
                            st == SHMEMU_EDEADLOCK ? "deadlock" : "job aborted");
    *holds_p = 1;
    shmemu__poll_progress(me);
    if (SHMEMU__CHECKED(me))
        shmemu__check_woke(me, call, w->off, bytes);
    return shmemu__ok();
}

/* The user's call site is the return address of the public function that
 * calls run_wait. */
#define run_wait(...) run_wait_at(__builtin_return_address(0), __VA_ARGS__)

#define SPEC(NAME, TYPE, mode_, n, st_, cmp_, val_, vals_, idx_)               \
    struct waitspec w = {.vt = SHMEMU__VTYPE(TYPE), .mode = mode_, .nelems = n, \
                         .status = st_, .cmp = cmp_, .values = vals_,          \
                         .indices = idx_};                                     \
    {                                                                          \
        TYPE v_ = (val_);                                                      \
        memcpy(&w.value, &v_, sizeof(TYPE));                                   \
    }                                                                          \
    int ok_;

#define X(NAME, TYPE)                                                          \
    int shmemu_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE value)            \
    {                                                                          \
        SPEC(NAME, TYPE, WS_ONE, 1, NULL, cmp, value, NULL, NULL)              \
        return run_wait("shmemu_" #NAME "_wait_until", &w, ivar, 1, &ok_);     \
    }                                                                          \
    int shmemu_##NAME##_test(TYPE *ivar, int cmp, TYPE value)                  \
    {                                                                          \
        SPEC(NAME, TYPE, WS_ONE, 1, NULL, cmp, value, NULL, NULL)              \
        int st = run_wait("shmemu_" #NAME "_test", &w, ivar, 0, &ok_);         \
        return st ? st : ok_;                                                  \
    }                                                                          \
    int shmemu_##NAME##_wait_until_all(TYPE *ivars, size_t nelems,            \
                                       const int *status, int cmp, TYPE value) \
    {                                                                          \
        SPEC(NAME, TYPE, WS_ALL, nelems, status, cmp, value, NULL, NULL)       \
        return run_wait("shmemu_" #NAME "_wait_until_all", &w, ivars, 1, &ok_); \
    }                                                                          \
    int shmemu_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,     \
                                              const int *status, int cmp,     \
                                              const TYPE *values)              \
    {                                                                          \
        SPEC(NAME, TYPE, WS_ALL, nelems, status, cmp, 0, values, NULL)         \
        if (!values && nelems)                                                 \
            return shmemu__fail(shmemu__self,                                  \
                                SHMEMU_EINVAL, "shmemu_" #NAME "_wait_until_all_vector", \
                                "values is NULL");                             \
        return run_wait("shmemu_" #NAME "_wait_until_all_vector", &w, ivars,   \
                        1, &ok_);                                              \
    }                                                                          \
    int shmemu_##NAME##_test_all(TYPE *ivars, size_t nelems,                  \
                                 const int *status, int cmp, TYPE value)       \
    {                                                                          \
        SPEC(NAME, TYPE, WS_ALL, nelems, status, cmp, value, NULL, NULL)       \
        int st = run_wait("shmemu_" #NAME "_test_all", &w, ivars, 0, &ok_);    \
        return st ? st : (ok_ || wait_set_empty(&w));                          \
    }                                                                          \
    size_t shmemu_##NAME##_wait_until_any(TYPE *ivars, size_t nelems,         \
                                          const int *status, int cmp,         \
                                          TYPE value)                          \
    {                                                                          \
        SPEC(NAME, TYPE, WS_ANY, nelems, status, cmp, value, NULL, NULL)       \
        run_wait("shmemu_" #NAME "_wait_until_any", &w, ivars, 1, &ok_);       \
        return ok_ ? w.found : SIZE_MAX;                                       \
    }                                                                          \
    size_t shmemu_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,  \
                                                 const int *status, int cmp,  \
                                                 const TYPE *values)           \
    {                                                                          \
        SPEC(NAME, TYPE, WS_ANY, nelems, status, cmp, 0, values, NULL)         \
        if (!values && nelems) {                                               \
            shmemu__fail(shmemu__self, SHMEMU_EINVAL,                          \
                         "shmemu_" #NAME "_wait_until_any_vector", "values is NULL"); \
            return SIZE_MAX;                                                   \
        }                                                                      \
        run_wait("shmemu_" #NAME "_wait_until_any_vector", &w, ivars, 1, &ok_); \
        return ok_ ? w.found : SIZE_MAX;                                       \
    }                                                                          \
    size_t shmemu_##NAME##_test_any(TYPE *ivars, size_t nelems,               \
                                    const int *status, int cmp, TYPE value)    \
    {                                                                          \
        SPEC(NAME, TYPE, WS_ANY, nelems, status, cmp, value, NULL, NULL)       \
        run_wait("shmemu_" #NAME "_test_any", &w, ivars, 0, &ok_);             \
        return ok_ ? w.found : SIZE_MAX;                                       \
    }                                                                          \
    size_t shmemu_##NAME##_wait_until_some(TYPE *ivars, size_t nelems,        \
                                           size_t *indices, const int *status, \
                                           int cmp, TYPE value)                \
    {                                                                          \
        SPEC(NAME, TYPE, WS_SOME, nelems, status, cmp, value, NULL, indices)   \
        run_wait("shmemu_" #NAME "_wait_until_some", &w, ivars, 1, &ok_);      \
        return ok_ ? w.found : 0;                                              \
    }                                                                          \
    size_t shmemu_##NAME##_wait_until_some_vector(                            \
        TYPE *ivars, size_t nelems, size_t *indices, const int *status,       \
        int cmp, const TYPE *values)                                           \
    {                                                                          \
        SPEC(NAME, TYPE, WS_SOME, nelems, status, cmp, 0, values, indices)     \
        if (!values && nelems) {                                               \
            shmemu__fail(shmemu__self, SHMEMU_EINVAL,                          \
                         "shmemu_" #NAME "_wait_until_some_vector", "values is NULL"); \
            return 0;                                                          \
        }                                                                      \
        run_wait("shmemu_" #NAME "_wait_until_some_vector", &w, ivars, 1, &ok_); \
        return ok_ ? w.found : 0;                                              \
    }                                                                          \
    size_t shmemu_##NAME##_test_some(TYPE *ivars, size_t nelems,              \
                                     size_t *indices, const int *status,      \
                                     int cmp, TYPE value)                      \
    {                                                                          \
        SPEC(NAME, TYPE, WS_SOME, nelems, status, cmp, value, NULL, indices)   \
        run_wait("shmemu_" #NAME "_test_some", &w, ivars, 0, &ok_);            \
        return ok_ ? w.found : 0;                                              \
    }
SHMEMU_P2P_TYPES(X)
#undef X

/* ---------------------------------------------------------------- signals */

uint64_t shmemu_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t value)
{
    struct waitspec w = {.vt = SHMEMU__VTYPE(uint64_t), .mode = WS_ONE, .nelems = 1,
                         .cmp = cmp, .value = value};
    int ok;
    if (run_wait("shmemu_signal_wait_until", &w, sig_addr, 1, &ok) != SHMEMU_OK)
        return 0;
    return w.seen;
}

uint64_t shmemu_signal_fetch(const uint64_t *sig_addr)
{
    static const char call[] = "shmemu_signal_fetch";
    struct waitspec w = {.vt = SHMEMU__VTYPE(uint64_t), .mode = WS_ONE, .nelems = 1,
                         .cmp = SHMEMU_CMP_EQ};
    SHMEMU__ENTER(me, call, 0);
    if (check_wait(me, call, &w, sig_addr) != SHMEMU_OK)
        return 0;
    shmemu__ok();
    uint64_t v = load_elem(me, &w, 0);
    shmemu__polled(me, call, __builtin_return_address(0), me->pe, w.off, sizeof(v), v);
    /* A synchronising read: a PE that polls a signal and then reads the
     * data it announces is ordered after the data's writer. */
    if (SHMEMU__CHECKED(me))
        shmemu__check_woke(me, call, w.off, sizeof(uint64_t));
    return v;
}
