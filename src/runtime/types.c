/* types.c - the element types and reduction operations as data: their
 * sizes, names, and which operation applies to which type (public calls;
 * the kernels that compute them are src/api/ops.c). */
#include "shmemu.h"

static const struct {
    const char *name;
    size_t size;
    int is_int;
} dtypes[SHMEMU_DTYPE_COUNT] = {
    [SHMEMU_INT8] = {"int8", 1, 1},       [SHMEMU_INT16] = {"int16", 2, 1},
    [SHMEMU_INT32] = {"int32", 4, 1},     [SHMEMU_INT64] = {"int64", 8, 1},
    [SHMEMU_UINT8] = {"uint8", 1, 1},     [SHMEMU_UINT16] = {"uint16", 2, 1},
    [SHMEMU_UINT32] = {"uint32", 4, 1},   [SHMEMU_UINT64] = {"uint64", 8, 1},
    [SHMEMU_FLOAT] = {"float", 4, 0},     [SHMEMU_DOUBLE] = {"double", 8, 0},
    [SHMEMU_FLOAT16] = {"float16", 2, 0}, [SHMEMU_BFLOAT16] = {"bfloat16", 2, 0},
};

static const char *const op_names[SHMEMU_OP_COUNT] = {"sum", "prod", "min", "max",
                                                      "band", "bor", "bxor"};

size_t shmemu_dtype_size(shmemu_dtype_t dtype)
{
    return (unsigned)dtype < SHMEMU_DTYPE_COUNT ? dtypes[dtype].size : 0;
}

const char *shmemu_dtype_name(shmemu_dtype_t dtype)
{
    return (unsigned)dtype < SHMEMU_DTYPE_COUNT ? dtypes[dtype].name : "invalid";
}

const char *shmemu_op_name(shmemu_op_t op)
{
    return (unsigned)op < SHMEMU_OP_COUNT ? op_names[op] : "invalid";
}

int shmemu_op_valid(shmemu_op_t op, shmemu_dtype_t dtype)
{
    if ((unsigned)op >= SHMEMU_OP_COUNT || (unsigned)dtype >= SHMEMU_DTYPE_COUNT)
        return 0;
    return op < SHMEMU_BAND || dtypes[dtype].is_int;
}
