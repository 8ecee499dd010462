/*
 * local.c - local compute on a PE's own memory: copies and elementwise
 * reductions whose operands may lie in the symmetric heap.
 *
 * Where heaps are host-addressable these are a memmove and the CPU kernel.
 * Where they are not (device memory, a staging transport) host code must
 * not touch heap bytes, so the work goes to the transport, which knows its
 * heap addresses from host memory: the reference collectives call these
 * and run unchanged on any transport.
 */
#include <stdint.h>
#include <string.h>

#include "ops.h"
#include "runtime/core.h"
#include "runtime/dispatch.h"

/* A PE whose heap the host cannot touch, or NULL (host-addressable heaps,
 * or no PE on this thread: plain memory then). */
static shmemu__pe *staged_pe(void)
{
    shmemu__pe *me = shmemu__self;
    return me && !me->direct ? me : NULL;
}

static int report(shmemu__pe *me, int st, const char *call, const void *dst, const void *src,
                  size_t nbytes)
{
    if (st == SHMEMU_ENOTSUP)
        return shmemu__fail(me, st, call,
                            "the %s transport's heaps are not host-addressable and it "
                            "computes nothing on them (no local_copy/local_reduce)",
                            shmemu__tl_name(me->job));
    if (st == SHMEMU_ERANGE)
        return shmemu__fail(me, st, call,
                            "dst %p or a source at %p (+%zu bytes) runs off the end of a "
                            "symmetric heap", dst, src, nbytes);
    return shmemu__tl_failed(me, st, call, "a local operation on %zu bytes", nbytes);
}

int shmemu_copy_local(void *dst, const void *src, size_t nbytes)
{
    static const char call[] = "shmemu_copy_local";
    if (!nbytes || dst == src)
        return SHMEMU_OK;
    if (!dst || !src)
        return shmemu_error(SHMEMU_EINVAL, call, "%s is NULL with %zu bytes",
                            dst ? "src" : "dst", nbytes);
    shmemu__pe *me = staged_pe();
    if (SHMEMU__LIKELY(!me)) {
        shmemu__pe *pe = shmemu__self;
        if (SHMEMU__LIKELY(!pe || !SHMEMU__CHECKED(pe))) {
            memmove(dst, src, nbytes);
            return SHMEMU_OK;
        }
        /* a race report names this call and its caller, not memmove */
        shmemu__lib_store = (struct shmemu__lib_store){call, __builtin_return_address(0)};
        memmove(dst, src, nbytes);
        shmemu__lib_store.call = NULL;
        return SHMEMU_OK;
    }
    int st = shmemu__tl_local_copy(me, dst, src, nbytes);
    return st ? report(me, st, call, dst, src, nbytes) : SHMEMU_OK;
}

int shmemu_reduce_local(shmemu_dtype_t dtype, shmemu_op_t op, void *dst, const void *a,
                        const void *b, size_t n)
{
    static const char call[] = "shmemu_reduce_local";
    shmemu__reduce_fn f = shmemu__reduce_kernel(dtype, op);
    if (!f)
        return shmemu_error(SHMEMU_EINVAL, call, "op %s (%d) does not apply to dtype %s (%d)",
                            shmemu_op_name(op), op, shmemu_dtype_name(dtype), dtype);
    if (!n)
        return SHMEMU_OK;
    if (!dst || !a || !b)
        return shmemu_error(SHMEMU_EINVAL, call, "%s is NULL with %zu elements",
                            !dst ? "dst" : !a ? "a" : "b", n);
    size_t es = shmemu_dtype_size(dtype);
    if (n > SIZE_MAX / es)
        return shmemu_error(SHMEMU_EINVAL, call, "n %zu of %zu-byte elements overflows size_t",
                            n, es);
    shmemu__pe *me = staged_pe();
    if (SHMEMU__LIKELY(!me)) {
        shmemu__pe *pe = shmemu__self;
        if (SHMEMU__LIKELY(!pe || !SHMEMU__CHECKED(pe))) {
            f(dst, a, b, n);
            return SHMEMU_OK;
        }
        /* its stores are the program's (a report names this call); its
         * operands are read past the watch: a fault per page of each at
         * every epoch cost collectives under race detection a quarter of
         * their time, and the reads are missed, never invented */
        shmemu__lib_store = (struct shmemu__lib_store){call, __builtin_return_address(0)};
        f(dst, shmemu__check_read_past(pe, a, n * es), shmemu__check_read_past(pe, b, n * es), n);
        shmemu__lib_store.call = NULL;
        return SHMEMU_OK;
    }
    struct shmemu_tl_reduce d = {.dtype = dtype, .op = op, .esize = es, .dst = dst,
                                 .a = a, .b = b, .n = n, .cpu = f};
    int st = shmemu__tl_local_reduce(me, &d);
    return st ? report(me, st, call, dst, a, n * es) : SHMEMU_OK;
}
