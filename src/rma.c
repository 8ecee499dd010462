/* rma.c - put and get: the checks every call makes, then one dispatch. */
#include <stdint.h>

#include "core.h"
#include "wait.h"

/* Every RMA entry point funnels here.  sym: the symmetric address, local:
 * the private buffer; nelems * elsize bytes. */
static inline int rma_op(const char *call, int op, int nbi, const void *sym,
                         const void *local, size_t nelems, size_t elsize, int pe)
{
    SHMEMU__ENTER(me, call, shmemu__last_status);
    int st;
    if ((st = shmemu__check_pe(me, call, pe)))
        return st;
    if (SHMEMU__UNLIKELY(nelems > SIZE_MAX / elsize))
        return shmemu__fail(me, SHMEMU_EINVAL, call,
                            "nelems %zu of %zu bytes overflows size_t", nelems, elsize);
    size_t nbytes = nelems * elsize;
    if (SHMEMU__UNLIKELY(nbytes == 0))
        return shmemu__ok();
    if (SHMEMU__UNLIKELY(!local))
        return shmemu__fail(me, SHMEMU_EINVAL, call, "%s is NULL with %zu bytes",
                            op == SHMEMU_TL_PUT ? "src" : "dest", nbytes);
    size_t off;
    if ((st = shmemu__check_sym(me, call, op == SHMEMU_TL_PUT ? "dest" : "src", sym,
                                nbytes, &off)))
        return st;
    struct shmemu_tl_rma d = {.op = op, .pe = pe, .nbi = nbi, .off = off,
                              .local = (void *)(uintptr_t)local, .nbytes = nbytes};
    if (SHMEMU__UNLIKELY((st = me->rma(me->tlj, &d))))
        return shmemu__fail(me, st, call, "the %s transport failed a %zu-byte %s",
                            me->job->ops->name, nbytes,
                            op == SHMEMU_TL_PUT ? "put" : "get");
    if (op == SHMEMU_TL_PUT)
        shmemu__notify(me, pe);
    return shmemu__ok();
}

int shmemu_putmem(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma_op("shmemu_putmem", SHMEMU_TL_PUT, 0, dest, src, nbytes, 1, pe);
}

int shmemu_getmem(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma_op("shmemu_getmem", SHMEMU_TL_GET, 0, src, dest, nbytes, 1, pe);
}

int shmemu_putmem_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma_op("shmemu_putmem_nbi", SHMEMU_TL_PUT, 1, dest, src, nbytes, 1, pe);
}

int shmemu_getmem_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma_op("shmemu_getmem_nbi", SHMEMU_TL_GET, 1, src, dest, nbytes, 1, pe);
}

#define X(NAME, TYPE)                                                          \
    int shmemu_##NAME##_put(TYPE *dest, const TYPE *src, size_t nelems, int pe) \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_put", SHMEMU_TL_PUT, 0, dest, src,     \
                      nelems, sizeof(TYPE), pe);                               \
    }                                                                          \
    int shmemu_##NAME##_get(TYPE *dest, const TYPE *src, size_t nelems, int pe) \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_get", SHMEMU_TL_GET, 0, src, dest,     \
                      nelems, sizeof(TYPE), pe);                               \
    }                                                                          \
    int shmemu_##NAME##_put_nbi(TYPE *dest, const TYPE *src, size_t nelems,    \
                                int pe)                                        \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_put_nbi", SHMEMU_TL_PUT, 1, dest, src, \
                      nelems, sizeof(TYPE), pe);                               \
    }                                                                          \
    int shmemu_##NAME##_get_nbi(TYPE *dest, const TYPE *src, size_t nelems,    \
                                int pe)                                        \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_get_nbi", SHMEMU_TL_GET, 1, src, dest, \
                      nelems, sizeof(TYPE), pe);                               \
    }                                                                          \
    int shmemu_##NAME##_p(TYPE *dest, TYPE value, int pe)                      \
    {                                                                          \
        return rma_op("shmemu_" #NAME "_p", SHMEMU_TL_PUT, 0, dest, &value, 1, \
                      sizeof(TYPE), pe);                                       \
    }                                                                          \
    TYPE shmemu_##NAME##_g(const TYPE *src, int pe)                            \
    {                                                                          \
        TYPE value = 0;                                                        \
        (void)rma_op("shmemu_" #NAME "_g", SHMEMU_TL_GET, 0, src, &value, 1,   \
                     sizeof(TYPE), pe);                                        \
        return value;                                                          \
    }
SHMEMU_RMA_TYPES(X)
#undef X
