/* forms.c - the OpenSHMEM 1.5 team collectives, on top of the generic ones. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

int shmemu_broadcastmem(shmemu_team_t team, void *dest, const void *source, size_t nelems,
                        int PE_root)
{
    return shmemu_broadcast(team, dest, source, nelems, SHMEMU_UINT8, PE_root);
}

int shmemu_fcollectmem(shmemu_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmemu_allgather(team, dest, source, nelems, SHMEMU_UINT8);
}

int shmemu_alltoallmem(shmemu_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmemu_alltoall(team, dest, source, nelems, SHMEMU_UINT8);
}

/* collect: contributions of different sizes.  The sizes are gathered
 * through the team workspace, then every PE fetches each contribution. */
int shmemu_collectmem(shmemu_team_t team, void *dest, const void *source, size_t nelems)
{
    struct coll c;
    int st = shmemu__coll_begin(&c, "shmemu_collectmem", team, SHMEMU_UINT8, SHMEMU_SUM, 0, dest,
                        source, nelems, COLL_DEST_LATER, -1);
    if (st)
        return st;
    if ((size_t)c.n > COLL_SCRATCH_BYTES / sizeof(uint64_t)) {
        shmemu__coll_end(&c);
        return shmemu_error(SHMEMU_ENOTSUP, c.call, "more PEs than the workspace holds sizes of");
    }
    uint64_t *slots = &c.ws[W_SCRATCH];
    uint64_t *sizes = shmemu_scratch_malloc((size_t)c.n * sizeof(uint64_t));
    if (!sizes) {
        shmemu__coll_end(&c);
        return shmemu_error(SHMEMU_ENOMEM, c.call, "out of memory");
    }
    st = shmemu__coll_sync(&c); /* nobody still uses the scratch for an earlier call */
    for (int p = 0; p < c.n && !st; p++) /* my size to everyone, me included */
        st = shmemu_uint64_p(&slots[c.me], nelems, coll_pe(&c, p));
    if (!st)
        st = shmemu__coll_sync(&c);
    if (!st) /* the slots are heap words: read them as the transport allows */
        st = shmemu_copy_local(sizes, slots, (size_t)c.n * sizeof(uint64_t));
    size_t total = 0, at = 0;
    for (int p = 0; p < c.n && !st; p++)
        total += sizes[p];
    if (!st && total && shmemu_sym_extent(dest) < total)
        st = shmemu__coll_not_sym(c.call, "dest", dest, total);
    for (int p = 0; p < c.n && !st; p++) {
        st = shmemu__coll_pull(&c, (char *)dest + at, source, sizes[p], p);
        at += sizes[p];
    }
    if (!st)
        st = shmemu__coll_sync(&c);
    shmemu_scratch_free(sizes);
    shmemu__coll_end(&c);
    return st;
}

/* shmemu_NAME_OP_reduce: an allreduce of the matching dtype.  Integer types
 * are matched by size and signedness, so long and size_t follow the ABI. */
#define DT_OF(TYPE, DTYPE)                                                     \
    ((DTYPE) == SHMEMU_FLOAT || (DTYPE) == SHMEMU_DOUBLE                       \
         ? (DTYPE)                                                             \
         : int_dtype(sizeof(TYPE), (TYPE)-1 < (TYPE)1))

static shmemu_dtype_t int_dtype(size_t size, int is_signed)
{
    switch (size) {
    case 1: return is_signed ? SHMEMU_INT8 : SHMEMU_UINT8;
    case 2: return is_signed ? SHMEMU_INT16 : SHMEMU_UINT16;
    case 4: return is_signed ? SHMEMU_INT32 : SHMEMU_UINT32;
    default: return is_signed ? SHMEMU_INT64 : SHMEMU_UINT64;
    }
}

#define RED(NAME, TYPE, DTYPE, opname, OP)                                     \
    int shmemu_##NAME##_##opname##_reduce(shmemu_team_t team, TYPE *dest,      \
                                          const TYPE *source, size_t nreduce)  \
    {                                                                          \
        return shmemu_allreduce(team, dest, source, nreduce, DT_OF(TYPE, DTYPE), OP); \
    }
#define RED_ARITH(NAME, TYPE, DTYPE)                                           \
    RED(NAME, TYPE, DTYPE, sum, SHMEMU_SUM)                                    \
    RED(NAME, TYPE, DTYPE, prod, SHMEMU_PROD)                                  \
    RED(NAME, TYPE, DTYPE, min, SHMEMU_MIN)                                    \
    RED(NAME, TYPE, DTYPE, max, SHMEMU_MAX)
#define RED_BIT_0(NAME, TYPE, DTYPE)
#define RED_BIT_1(NAME, TYPE, DTYPE)                                           \
    RED(NAME, TYPE, DTYPE, and, SHMEMU_BAND)                                   \
    RED(NAME, TYPE, DTYPE, or, SHMEMU_BOR)                                     \
    RED(NAME, TYPE, DTYPE, xor, SHMEMU_BXOR)
#define X(NAME, TYPE, DTYPE, ARITH, BIT)                                       \
    RED_ARITH(NAME, TYPE, DTYPE) RED_BIT_##BIT(NAME, TYPE, DTYPE)
SHMEMU_REDUCE_TYPES(X)
#undef X
