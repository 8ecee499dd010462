/*
 * select.c - the generic collectives: run the algorithm $SHMEMU_<NAME>_ALGO
 * names (as the job read it when it started: shmemu_coll_algo), or pick
 * one by size and PE count ("auto", the default).
 */
#include <string.h>

#include "coll.h"

/* Outside a PE: "auto", and the algorithm reports the call. */
static const char *algo(shmemu_coll_t coll)
{
    const char *v = shmemu_coll_algo(coll);
    return v ? v : "auto";
}

static int unknown(const char *call, const char *var, const char *v, const char *known)
{
    return shmemu_error(SHMEMU_EINVAL, call, "%s='%s' is not one of %s", var, v, known);
}

int shmemu_allreduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, shmemu_op_t op)
{
    const char *a = algo(SHMEMU_COLL_ALLREDUCE);
    if (!strcmp(a, "auto")) {
        /* Measured on 2 cores (docs/PERFORMANCE.md): while each PE's
         * vector fits a scratch slot, one round of puts wins; past that,
         * with 2 PEs the ring (half the data each way, read straight from
         * the peer) wins from 1 KiB; with more, recursive doubling while
         * the vector is short (Rabenseifner from 8 PEs, whose rounds move
         * less), then the ring, whose 2(n-1)/n of the data per PE is the
         * least any allreduce moves.  One round costs n(n - 1) puts in
         * all: with PEs in parallel it wins up to 128 PEs (even at 256);
         * on sim, where every PE shares one thread and each put is a
         * scheduling point, total work is the time and it wins up to 16
         * only (8 bytes: 154 vs 135 us at 32, 1.0 vs 0.38 ms at 64). */
        int n = shmemu_team_n_pes(team);
        size_t bytes = count * shmemu_dtype_size(dtype);
        const char *tl = shmemu_transport_name();
        int oneshot_max = tl && !strcmp(tl, "sim") ? 16 : 128;
        a = n > 0 && n <= oneshot_max && bytes <= coll_oneshot_slot(n) ? "oneshot"
            : n == 2                               ? "ring"
            : n >= 8 && bytes <= 16384             ? "rabenseifner"
            : bytes <= 2048                        ? "rd"
                                                   : "ring";
    }
    if (!strcmp(a, "oneshot"))
        return shmemu_allreduce_oneshot(team, dest, src, count, dtype, op);
    if (!strcmp(a, "ring"))
        return shmemu_allreduce_ring(team, dest, src, count, dtype, op);
    if (!strcmp(a, "rd"))
        return shmemu_allreduce_rd(team, dest, src, count, dtype, op);
    if (!strcmp(a, "rabenseifner"))
        return shmemu_allreduce_rabenseifner(team, dest, src, count, dtype, op);
    if (!strcmp(a, "tree"))
        return shmemu_allreduce_tree(team, dest, src, count, dtype, op);
    if (!strcmp(a, "dev_oneshot"))
        return shmemu_allreduce_dev_oneshot(team, dest, src, count, dtype, op);
    if (!strcmp(a, "dev_twoshot"))
        return shmemu_allreduce_dev_twoshot(team, dest, src, count, dtype, op);
    return unknown("shmemu_allreduce", "SHMEMU_ALLREDUCE_ALGO", a,
                   "oneshot, ring, rd, rabenseifner, tree, dev_oneshot, dev_twoshot, auto");
}

int shmemu_reduce(shmemu_team_t team, void *dest, const void *src, size_t count,
                  shmemu_dtype_t dtype, shmemu_op_t op, int root)
{
    const char *a = algo(SHMEMU_COLL_REDUCE);
    if (!strcmp(a, "auto") || !strcmp(a, "tree"))
        return shmemu_reduce_tree(team, dest, src, count, dtype, op, root);
    return unknown("shmemu_reduce", "SHMEMU_REDUCE_ALGO", a, "tree, auto");
}

int shmemu_reduce_scatter(shmemu_team_t team, void *dest, const void *src,
                          size_t recvcount, shmemu_dtype_t dtype, shmemu_op_t op)
{
    const char *a = algo(SHMEMU_COLL_REDUCE_SCATTER);
    if (!strcmp(a, "auto") || !strcmp(a, "ring"))
        return shmemu_reduce_scatter_ring(team, dest, src, recvcount, dtype, op);
    if (!strcmp(a, "rhalving"))
        return shmemu_reduce_scatter_rhalving(team, dest, src, recvcount, dtype, op);
    if (!strcmp(a, "dev_ring"))
        return shmemu_reduce_scatter_dev_ring(team, dest, src, recvcount, dtype, op);
    return unknown("shmemu_reduce_scatter", "SHMEMU_REDUCE_SCATTER_ALGO", a,
                   "ring, rhalving, dev_ring, auto");
}

int shmemu_allgather(shmemu_team_t team, void *dest, const void *src, size_t sendcount,
                     shmemu_dtype_t dtype)
{
    const char *a = algo(SHMEMU_COLL_ALLGATHER);
    if (!strcmp(a, "auto"))
        a = sendcount * shmemu_dtype_size(dtype) <= 4096 ? "bruck" : "ring";
    if (!strcmp(a, "ring"))
        return shmemu_allgather_ring(team, dest, src, sendcount, dtype);
    if (!strcmp(a, "bruck"))
        return shmemu_allgather_bruck(team, dest, src, sendcount, dtype);
    if (!strcmp(a, "rd"))
        return shmemu_allgather_rd(team, dest, src, sendcount, dtype);
    if (!strcmp(a, "dev_ring"))
        return shmemu_allgather_dev_ring(team, dest, src, sendcount, dtype);
    return unknown("shmemu_allgather", "SHMEMU_ALLGATHER_ALGO", a,
                   "ring, bruck, rd, dev_ring, auto");
}

int shmemu_broadcast(shmemu_team_t team, void *dest, const void *src, size_t count,
                     shmemu_dtype_t dtype, int root)
{
    const char *a = algo(SHMEMU_COLL_BROADCAST);
    if (!strcmp(a, "auto"))
        a = count * shmemu_dtype_size(dtype) <= 65536 ? "tree" : "chain";
    if (!strcmp(a, "tree"))
        return shmemu_broadcast_tree(team, dest, src, count, dtype, root);
    if (!strcmp(a, "chain"))
        return shmemu_broadcast_chain(team, dest, src, count, dtype, root);
    if (!strcmp(a, "dev_pull"))
        return shmemu_broadcast_dev_pull(team, dest, src, count, dtype, root);
    return unknown("shmemu_broadcast", "SHMEMU_BROADCAST_ALGO", a, "tree, chain, dev_pull, auto");
}

int shmemu_alltoall(shmemu_team_t team, void *dest, const void *src, size_t count,
                    shmemu_dtype_t dtype)
{
    const char *a = algo(SHMEMU_COLL_ALLTOALL);
    if (!strcmp(a, "auto") || !strcmp(a, "pairwise"))
        return shmemu_alltoall_pairwise(team, dest, src, count, dtype);
    return unknown("shmemu_alltoall", "SHMEMU_ALLTOALL_ALGO", a, "pairwise, auto");
}
