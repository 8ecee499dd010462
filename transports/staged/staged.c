/*
 * staged.c - the `staged` transport: threads + heaps the host cannot touch.
 *
 * The smallest transport that exercises the whole second-edition contract,
 * written from docs/DESIGN.md's "Writing a transport" alone.  It stands in
 * for device memory and networks in the tests:
 *
 *  - heaps are not host-addressable: the addresses PEs see (heap_base) lie
 *    in an inaccessible reservation, so any load or store the core or a
 *    collective makes on heap bytes faults at once; the bytes live in a
 *    private store reached only through this table (rma, amo, local_copy,
 *    local_reduce);
 *  - wire-up: each PE publishes a blob with its store's address and size,
 *    and connects to its peers' blobs before it may move a byte (as CUDA
 *    IPC handles or UCX rkeys are exchanged);
 *  - nonblocking puts stay outstanding in a per-PE queue until quiet, or
 *    until the PE drives progress (SHMEMU_TL_CAP_PROGRESS).
 *
 * PEs are threads (common/runners.c); the control area is private host
 * memory, sleeping a private futex (common/mapped.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/hostmem.h"
#include "../common/mapped.h"
#include "../common/runners.h"
#include "shmemu.h"

#define BLOB_MAGIC 0x73746167656431ull /* "staged1" */
#define NBI_MAX 64                     /* outstanding puts per PE */

struct blob {
    uint64_t magic;
    uint64_t store; /* the PE's store, as an address of this process */
    uint64_t size;
};

struct nbi {
    char *dst;
    const char *src; /* read when delivered, as a NIC reads it */
    size_t n;
    uint64_t *sig; /* NULL: none */
    int sig_op;
    uint64_t sig_value;
};

struct staged_pe {
    char **peer;   /* [npes] after connect: each PE's store; NULL before */
    struct nbi q[NBI_MAX];
    int nq;
};

struct staged_job {
    struct shmemu_tl_hostmem store; /* the bytes, and the control area */
    char **store_base;              /* [npes] */
    char *addr;                     /* the inaccessible addresses PEs see */
    size_t addr_len;
    struct staged_pe *pes;          /* [npes] */
};

/* The calling PE's state: PEs are threads, each set by pe_enter on its
 * own thread (the contract's rma and amo do not name the caller). */
static _Thread_local struct staged_pe *self;

static int staged_pe_enter(struct shmemu_tl_job *job, int pe)
{
    self = &((struct staged_job *)job->priv)->pes[pe];
    return SHMEMU_OK;
}

static void staged_job_destroy(struct shmemu_tl_job *job)
{
    struct staged_job *sj = job->priv;
    if (sj->pes)
        for (int pe = 0; pe < job->npes; pe++)
            free(sj->pes[pe].peer);
    free(sj->pes);
    free(sj->store_base);
    if (sj->addr)
        munmap(sj->addr, sj->addr_len);
    shmemu_tl_hostmem_destroy(&sj->store, job);
    memset(sj, 0, sizeof(*sj));
}

static int staged_job_create(struct shmemu_tl_job *job)
{
    struct staged_job *sj = job->priv;
    size_t stride = shmemu_tl_heap_stride(job->heap_size);
    sj->store_base = calloc((size_t)job->npes, sizeof(char *));
    sj->pes = calloc((size_t)job->npes, sizeof(*sj->pes));
    sj->addr_len = stride * (size_t)job->npes;
    sj->addr = shmemu_mapped_reserve(sj->addr_len, SHMEMU_TL_BASE_ALIGN, PROT_NONE);
    if (!sj->store_base || !sj->pes || !sj->addr ||
        shmemu_tl_hostmem_create(&sj->store, job->npes, job->heap_size, job->ctl_size,
                                 job->ctl_hot_size, 0, sj->store_base) != SHMEMU_OK) {
        snprintf(job->why, sizeof(job->why), "cannot map %d heaps of %zu bytes", job->npes,
                 job->heap_size);
        staged_job_destroy(job);
        return SHMEMU_ENOMEM;
    }
    for (int pe = 0; pe < job->npes; pe++)
        job->heap_base[pe] = sj->addr + (size_t)pe * stride;
    job->ctl = sj->store.ctl;
    return SHMEMU_OK;
}

/* ------------------------------------------------------------- wire-up */

static int staged_publish(struct shmemu_tl_job *job, int pe, void *out)
{
    struct staged_job *sj = job->priv;
    struct blob b = {BLOB_MAGIC, (uint64_t)(uintptr_t)sj->store_base[pe], job->heap_size};
    memcpy(out, &b, sizeof(b));
    return SHMEMU_OK;
}

static int staged_connect(struct shmemu_tl_job *job, int pe, const void *const *blobs)
{
    struct staged_pe *me = &((struct staged_job *)job->priv)->pes[pe];
    char **peer = calloc((size_t)job->npes, sizeof(char *));
    if (!peer)
        return SHMEMU_ENOMEM;
    for (int p = 0; p < job->npes; p++) {
        struct blob b;
        memcpy(&b, blobs[p], sizeof(b));
        if (b.magic != BLOB_MAGIC || b.size != job->heap_size) {
            snprintf(job->why, sizeof(job->why), "PE %d's wire-up blob is damaged", p);
            free(peer);
            return SHMEMU_EINVAL;
        }
        peer[p] = (char *)(uintptr_t)b.store;
    }
    me->peer = peer;
    return SHMEMU_OK;
}

/* ----------------------------------------------------------- data path */

/* Where the bytes at p (n of them) really are: a heap address (inside the
 * reservation PEs see) maps to its PE's store; anything else is host memory
 * of this process and stays.  NULL for a range that is not wholly inside
 * one heap (a guard gap). */
static void *real(const struct shmemu_tl_job *job, const void *p, size_t n)
{
    const struct staged_job *sj = job->priv;
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)sj->addr;
    if (a < lo || a - lo >= sj->addr_len)
        return (void *)(uintptr_t)p;
    size_t stride = shmemu_tl_heap_stride(job->heap_size), at = (size_t)(a - lo);
    size_t pe = at / stride, off = at % stride;
    if (off > job->heap_size || n > job->heap_size - off)
        return NULL;
    return sj->store_base[pe] + off;
}

static void apply_signal(uint64_t *sig, int op, uint64_t v)
{
    if (op == SHMEMU_TL_SIG_SET)
        __atomic_store_n(sig, v, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_add(sig, v, __ATOMIC_SEQ_CST);
}

/* A full barrier as a locked read-modify-write, the same on the hardware
 * as a fence, which ThreadSanitizer does not model. */
static void full_barrier(void)
{
    int word = 0;
    __atomic_fetch_add(&word, 0, __ATOMIC_SEQ_CST);
}

/* Copy n bytes into (to_heap) or out of a heap.  An aligned 1-, 2-, 4- or
 * 8-byte word moves in one atomic access, release into a heap and acquire
 * out of it, as a NIC or a GPU moves a word: a flag one PE polls while
 * another puts it is not a data race, and what was put before the flag is
 * seen with it. */
#define WORD_CASE(T)                                                           \
    do {                                                                       \
        if (to_heap)                                                           \
            __atomic_store_n((T *)dst, *(const T *)src, __ATOMIC_RELEASE);     \
        else                                                                   \
            *(T *)dst = __atomic_load_n((const T *)src, __ATOMIC_ACQUIRE);     \
        return;                                                                \
    } while (0)

static void copy_words(void *dst, const void *src, size_t n, int to_heap)
{
    if (!n) /* a signal with no data: src may be NULL */
        return;
    if (n <= 8 && ((uintptr_t)dst % n | (uintptr_t)src % n) == 0) {
        switch (n) {
        case 1: WORD_CASE(uint8_t);
        case 2: WORD_CASE(uint16_t);
        case 4: WORD_CASE(uint32_t);
        case 8: WORD_CASE(uint64_t);
        default: break;
        }
    }
    memcpy(dst, src, n);
}

/* Data, then the signal with release order: a peer that sees the signal
 * sees the data. */
static void deliver(const struct nbi *q)
{
    copy_words(q->dst, q->src, q->n, 1);
    if (q->sig)
        apply_signal(q->sig, q->sig_op, q->sig_value);
}

/* Deliver every outstanding put, in issue order. */
static int staged_quiet(struct shmemu_tl_job *job, int pe)
{
    struct staged_pe *me = &((struct staged_job *)job->priv)->pes[pe];
    for (int i = 0; i < me->nq; i++)
        deliver(&me->q[i]);
    me->nq = 0;
    full_barrier();
    return SHMEMU_OK;
}

static int staged_rma(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d)
{
    struct staged_pe *me = self;
    if (!me || !me->peer)
        return SHMEMU_EINVAL; /* not wired up: the core never lets this happen */
    char *at = me->peer[d->pe] + d->off;
    /* The local side may be symmetric too (a get into the heap, a put from
     * it), as device memory may be on both ends of a copy. */
    char *local = d->nbytes ? real(job, d->local, d->nbytes) : NULL;
    if (d->nbytes && !local)
        return SHMEMU_ERANGE;
    if (d->op == SHMEMU_TL_GET) {
        copy_words(local, at, d->nbytes, 0);
        return SHMEMU_OK;
    }
    struct nbi q = {at, local, d->nbytes, NULL, d->sig_op, d->sig_value};
    if (d->sig_op != SHMEMU_TL_SIG_NONE)
        q.sig = (uint64_t *)(void *)(me->peer[d->pe] + d->sig_off);
    if (!d->nbi) {
        deliver(&q);
        return SHMEMU_OK;
    }
    if (me->nq == NBI_MAX) /* full: the oldest go first, in order */
        staged_quiet(job, (int)(me - ((struct staged_job *)job->priv)->pes));
    me->q[me->nq++] = q;
    return SHMEMU_OK;
}

static int staged_amo(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d)
{
    (void)job;
    struct staged_pe *me = self;
    if (!me || !me->peer)
        return SHMEMU_EINVAL;
    return shmemu_tl_cpu_amo(me->peer[d->pe] + d->off, d) ? SHMEMU_EINVAL : SHMEMU_OK;
}

static int staged_local_copy(struct shmemu_tl_job *job, int pe, void *dst, const void *src,
                             size_t n)
{
    (void)pe;
    return shmemu_tl_real_copy(job, real, dst, src, n);
}

static int staged_local_reduce(struct shmemu_tl_job *job, int pe,
                               const struct shmemu_tl_reduce *r)
{
    (void)pe;
    return shmemu_tl_real_reduce(job, real, r);
}

const struct shmemu_transport_ops shmemu_staged_ops = {
    .size = sizeof(struct shmemu_transport_ops),
    .name = "staged",
    .caps = SHMEMU_TL_CAP_SHARED_CTL | SHMEMU_TL_CAP_NBI | SHMEMU_TL_CAP_PROGRESS,
    .job_priv_size = sizeof(struct staged_job),
    .job_create = staged_job_create,
    .job_run = shmemu_tl_run_threads,
    .job_destroy = staged_job_destroy,
    .pe_enter = staged_pe_enter,
    .rma = staged_rma,
    .amo = staged_amo,
    .quiet = staged_quiet,
    .ctl_wait = shmemu_mapped_wait_private,
    .ctl_wake = shmemu_mapped_wake_private,
    .blob_size = sizeof(struct blob),
    .wireup_publish = staged_publish,
    .wireup_connect = staged_connect,
    .progress = staged_quiet, /* everything outstanding goes at once */
    .local_copy = staged_local_copy,
    .local_reduce = staged_local_reduce,
};
