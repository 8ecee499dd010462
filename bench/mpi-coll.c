/*
 * mpi-coll.c - build/mpi-coll-bench: the MPI side of `shmemu-bench coll`.
 * Times Open MPI's collective over the same sizes, repetitions and
 * iterations as the shmemu side (the same methodology: barrier, the calls,
 * barrier, rank 0's clock) and prints "size repetition microseconds" lines
 * for shmemu-bench to read.  Built only where mpicc is found; started by
 * shmemu-bench under mpirun.
 *
 *   mpirun -np N mpi-coll-bench --coll allreduce -d float -o sum --root 0
 *                               -b 8 -e 64M -f 2 --reps 5 [--inplace]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct type {
    const char *name;
    MPI_Datatype mpi; /* MPI_DATATYPE_NULL: MPI has no such type */
    size_t size;
};

static int find(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s))
            return i;
    return -1;
}

static size_t iters_for(size_t size)
{
    /* as bench/coll.c */
    size_t it = size ? ((size_t)64 << 20) / size : 1000;
    return it < 5 ? 5 : it > 1000 ? 1000 : it;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    static const char *const colls[] = {"allreduce", "reduce", "reduce_scatter",
                                        "allgather", "broadcast", "alltoall"};
    static const char *const tnames[] = {"int8", "int16", "int32", "int64", "uint8",
                                         "uint16", "uint32", "uint64", "float", "double"};
    MPI_Datatype tmpi[] = {MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T,
                           MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_FLOAT, MPI_DOUBLE};
    size_t tsize[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
    static const char *const onames[] = {"sum", "prod", "min", "max", "band", "bor", "bxor"};
    MPI_Op ompi[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR};
    int coll = 0, t = 8, op = 0, root = 0, inplace = 0;
    size_t minb = 8, maxb = (size_t)64 << 20, factor = 2;
    for (int i = 1; i + 1 < argc || (i < argc && !strcmp(argv[i], "--inplace")); i++) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--inplace")) {
            inplace = 1;
            continue;
        }
        i++;
        if (!strcmp(a, "--coll"))
            coll = find(colls, 6, v);
        else if (!strcmp(a, "-d"))
            t = find(tnames, 10, v);
        else if (!strcmp(a, "-o"))
            op = find(onames, 7, v);
        else if (!strcmp(a, "--root"))
            root = atoi(v);
        else if (!strcmp(a, "-b"))
            minb = strtoull(v, NULL, 10);
        else if (!strcmp(a, "-e"))
            maxb = strtoull(v, NULL, 10);
        else if (!strcmp(a, "-f"))
            factor = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--reps"))
            reps = atoi(v);
    }
    if (coll < 0 || t < 0 || op < 0 || reps < 1 || root < 0 || root >= n) {
        if (!me)
            fprintf(stderr, "mpi-coll-bench: unsupported arguments (no 16-bit floats in MPI)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t es = tsize[t], quantum = es * (coll == 2 || coll == 3 || coll == 5 ? (size_t)n : 1);
    char *src = malloc(maxb + 64), *dest = malloc(maxb + 64);
    if (!src || !dest)
        MPI_Abort(MPI_COMM_WORLD, 1);
    /* small integers: no denormals or infinities to slow the floats */
    for (size_t i = 0; i < maxb / es; i++) {
        if (t == 8)
            ((float *)src)[i] = (float)(i % 8 + 1);
        else if (t == 9)
            ((double *)src)[i] = (double)(i % 8 + 1);
        else
            memset(src + i * es, (int)(i % 8 + 1), 1);
    }
    memcpy(dest, src, maxb);
    size_t last = 0;
    for (size_t s = minb; s <= maxb; s *= factor) {
        size_t size = s / quantum * quantum, tot = size / es, count = tot / (size_t)n;
        if (size && size != last) {
            last = size;
            void *in = inplace ? MPI_IN_PLACE : src;
            for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
                size_t iters = r < 0 ? 2 : iters_for(size);
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (size_t i = 0; i < iters; i++) {
                    switch (coll) {
                    case 0: MPI_Allreduce(in, dest, (int)tot, tmpi[t], ompi[op], MPI_COMM_WORLD); break;
                    case 1:
                        MPI_Reduce(inplace && me != root ? (void *)dest : in, dest, (int)tot,
                                   tmpi[t], ompi[op], root, MPI_COMM_WORLD);
                        break;
                    case 2: MPI_Reduce_scatter_block(src, dest, (int)count, tmpi[t], ompi[op], MPI_COMM_WORLD); break;
                    case 3: MPI_Allgather(src, (int)count, tmpi[t], dest, (int)count, tmpi[t], MPI_COMM_WORLD); break;
                    case 4: MPI_Bcast(me == root ? src : dest, (int)tot, tmpi[t], root, MPI_COMM_WORLD); break;
                    default: MPI_Alltoall(src, (int)count, tmpi[t], dest, (int)count, tmpi[t], MPI_COMM_WORLD); break;
                    }
                }
                MPI_Barrier(MPI_COMM_WORLD);
                double us = (MPI_Wtime() - t0) * 1e6 / (double)iters;
                if (!me && r >= 0)
                    printf("%zu %d %.4f\n", size, r, us);
            }
            fflush(stdout);
        }
        if (factor < 2 || s > SIZE_MAX / factor)
            break;
    }
    free(src);
    free(dest);
    MPI_Finalize();
    return 0;
}
