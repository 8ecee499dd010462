/* amo.c - atomics: every typed call funnels into one checked dispatch. */
#include <string.h>

#include "runtime/core.h"
#include "runtime/dispatch.h"
#include "ctl/livelock.h"
#include "ctl/wait.h"

/* Values travel as bit patterns in the low `width` bytes of a uint64_t. */
static inline uint64_t to_bits(const void *v, size_t width)
{
    if (width == 4) {
        uint32_t b;
        memcpy(&b, v, 4);
        return b;
    }
    uint64_t b;
    memcpy(&b, v, 8);
    return b;
}

static inline void from_bits(void *out, uint64_t bits, size_t width)
{
    if (width == 4) {
        uint32_t b = (uint32_t)bits;
        memcpy(out, &b, 4);
    } else {
        memcpy(out, &bits, 8);
    }
}

static SHMEMU__ALWAYS_INLINE int amo_call(const char *call, int op, const void *dest, size_t width,
                           uint64_t value, uint64_t cond, uint64_t *result, int pe)
{
    SHMEMU__ENTER(me, call, shmemu__last_status);
    int st;
    if ((st = shmemu__check_pe(me, call, pe)))
        return st;
    if (SHMEMU__UNLIKELY((uintptr_t)dest & (width - 1)))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "dest %p is not aligned to its %zu-byte type", dest, width);
    size_t off;
    if ((st = shmemu__check_sym(me, call, "dest", dest, width, &off)))
        return st;
    struct shmemu_tl_amo d = {.op = op, .pe = pe, .width = (unsigned)width, .off = off,
                              .value = value, .cond = cond, .result = result,
                              .lazy = !result && me->nbi_dirty != NULL};
    int64_t t0 = op == SHMEMU_TL_AMO_FETCH ? shmemu__poll_tl_enter(me) : 0;
    st = shmemu__tl_amo(me, &d);
    if (op == SHMEMU_TL_AMO_FETCH)
        shmemu__poll_tl_leave(me, t0);
    if (SHMEMU__UNLIKELY(st < 0))
        return shmemu__tl_failed(me, st, call, "an atomic");
    if (st == SHMEMU_TL_DEFERRED)
        shmemu__nbi_issued(me, pe); /* woken once it is delivered */
    else if (op != SHMEMU_TL_AMO_FETCH)
        shmemu__notify(me, pe);
    else
        shmemu__polled(me, call, __builtin_return_address(0), pe, off, width, *result);
    return shmemu__ok();
}

/* A fetching AMO: the old value, or 0 when the call failed. */
#define FETCHING(NAME, TYPE, verb, op, dest, value, cond)                      \
    uint64_t r_ = 0;                                                           \
    TYPE out_;                                                                 \
    amo_call("shmemu_" #NAME "_atomic_" verb, op, dest, sizeof(TYPE), value,   \
             cond, &r_, pe);                                                   \
    from_bits(&out_, r_, sizeof(TYPE));                                        \
    return out_;

#define X_EXT(NAME, TYPE)                                                      \
    TYPE shmemu_##NAME##_atomic_fetch(const TYPE *src, int pe)                 \
    {                                                                          \
        FETCHING(NAME, TYPE, "fetch", SHMEMU_TL_AMO_FETCH, src, 0, 0)          \
    }                                                                          \
    int shmemu_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)             \
    {                                                                          \
        return amo_call("shmemu_" #NAME "_atomic_set", SHMEMU_TL_AMO_SET, dest, \
                        sizeof(TYPE), to_bits(&value, sizeof(TYPE)), 0, NULL,  \
                        pe);                                                   \
    }                                                                          \
    TYPE shmemu_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)           \
    {                                                                          \
        FETCHING(NAME, TYPE, "swap", SHMEMU_TL_AMO_SWAP, dest,                 \
                 to_bits(&value, sizeof(TYPE)), 0)                             \
    }
SHMEMU_AMO_EXT_TYPES(X_EXT)
#undef X_EXT

#define X_STD(NAME, TYPE)                                                      \
    TYPE shmemu_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, \
                                             int pe)                           \
    {                                                                          \
        FETCHING(NAME, TYPE, "compare_swap", SHMEMU_TL_AMO_CSWAP, dest,        \
                 to_bits(&value, sizeof(TYPE)), to_bits(&cond, sizeof(TYPE)))  \
    }                                                                          \
    TYPE shmemu_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                  \
    {                                                                          \
        FETCHING(NAME, TYPE, "fetch_inc", SHMEMU_TL_AMO_ADD, dest, 1, 0)       \
    }                                                                          \
    int shmemu_##NAME##_atomic_inc(TYPE *dest, int pe)                         \
    {                                                                          \
        return amo_call("shmemu_" #NAME "_atomic_inc", SHMEMU_TL_AMO_ADD, dest, \
                        sizeof(TYPE), 1, 0, NULL, pe);                         \
    }                                                                          \
    TYPE shmemu_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe)      \
    {                                                                          \
        FETCHING(NAME, TYPE, "fetch_add", SHMEMU_TL_AMO_ADD, dest,             \
                 to_bits(&value, sizeof(TYPE)), 0)                             \
    }                                                                          \
    int shmemu_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe)             \
    {                                                                          \
        return amo_call("shmemu_" #NAME "_atomic_add", SHMEMU_TL_AMO_ADD, dest, \
                        sizeof(TYPE), to_bits(&value, sizeof(TYPE)), 0, NULL,  \
                        pe);                                                   \
    }
SHMEMU_AMO_TYPES(X_STD)
#undef X_STD

#define X_BIT_OP(NAME, TYPE, verb, op)                                         \
    TYPE shmemu_##NAME##_atomic_fetch_##verb(TYPE *dest, TYPE value, int pe)   \
    {                                                                          \
        FETCHING(NAME, TYPE, "fetch_" #verb, op, dest,                         \
                 to_bits(&value, sizeof(TYPE)), 0)                             \
    }                                                                          \
    int shmemu_##NAME##_atomic_##verb(TYPE *dest, TYPE value, int pe)          \
    {                                                                          \
        return amo_call("shmemu_" #NAME "_atomic_" #verb, op, dest,            \
                        sizeof(TYPE), to_bits(&value, sizeof(TYPE)), 0, NULL,  \
                        pe);                                                   \
    }
#define X_BIT(NAME, TYPE)                                                      \
    X_BIT_OP(NAME, TYPE, and, SHMEMU_TL_AMO_AND)                               \
    X_BIT_OP(NAME, TYPE, or, SHMEMU_TL_AMO_OR)                                 \
    X_BIT_OP(NAME, TYPE, xor, SHMEMU_TL_AMO_XOR)
SHMEMU_AMO_BIT_TYPES(X_BIT)
#undef X_BIT
#undef X_BIT_OP
