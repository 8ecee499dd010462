/* tiny_allreduce.c - the smallest correct allreduce (README.md): every PE
 * fetches every PE's src in PE order, folds it in, and copies the result to
 * dest once nobody reads src any more.  Device heaps work too: only
 * shmemu calls touch src and dest. */
#include "shmemu.h"

int tiny_allreduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                   shmemu_dtype_t dtype, shmemu_op_t op);

int tiny_allreduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                   shmemu_dtype_t dtype, shmemu_op_t op)
{
    int n = shmemu_team_n_pes(team);
    size_t bytes = count * shmemu_dtype_size(dtype);
    char *acc = shmemu_scratch_malloc(bytes), *peer = shmemu_scratch_malloc(bytes);
    int st = acc && peer ? shmemu_team_sync(team) : SHMEMU_ENOMEM; /* every src is ready */
    for (int k = 0; k < n && !st; k++) { /* the same order on every PE: the same bits */
        int pe = shmemu_team_translate_pe(team, k, SHMEMU_TEAM_WORLD);
        st = shmemu_getmem(k ? peer : acc, src, bytes, pe);
        if (!st && k)
            st = shmemu_reduce_local(dtype, op, acc, acc, peer, count);
    }
    if (!st)
        st = shmemu_team_sync(team); /* nobody reads src (maybe dest) any more */
    if (!st)
        st = shmemu_copy_local(dest, acc, bytes);
    shmemu_scratch_free(acc);
    shmemu_scratch_free(peer);
    return st;
}
