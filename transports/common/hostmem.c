/* hostmem.c - heaps in private host memory (see hostmem.h). */
#include "hostmem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mapped.h"
#include "shmemu.h"

#define HUGE_PAGE ((size_t)2 << 20)

static size_t page_round(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

/*
 * The last job's heaps, kept for the next job of this process.  A fresh
 * anonymous page costs the kernel a fault and a zeroing (with huge pages,
 * 2 MiB at a time), about 8 GB/s here; zeroing a page already ours runs at
 * memory speed, 70 GB/s.  A program that launches job after job (the
 * verifier: thousands) spent more than half its time in fresh pages.  The
 * next job gets the heaps back reading as fresh memory would: zero.
 *
 * What to zero is known per 2 MiB chunk of each heap: a chunk is dirty
 * once a job could write it (its PEs' heap_low and heap_top, which the core
 * sets), clean again once zeroed.  Zeroing every resident page instead
 * zeroed the same clean pages case after case (280 GB in make run).  Pages
 * out of a smaller job's reach stay ours, dirty or not, rather than go
 * back to the kernel: the next larger job would fault them in again.  The
 * reservation is kept only while what it holds fits in CACHE_MAX bytes.
 */
#define CACHE_MAX ((size_t)4 << 30)
#define CHUNK HUGE_PAGE
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmemu_tl_hostmem cache; /* .heaps NULL: none kept */

static void unmap_heaps(char *heaps, size_t stride, int npes)
{
    if (heaps)
        munmap(heaps, stride * (size_t)npes);
}

/* Zero the resident pages of [p, p + len) (page-aligned): what was never
 * touched is zero already, and stays unbacked. */
static void zero_resident(char *p, size_t len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), npages = len / pg, chunk = 4096;
    unsigned char vec[4096];
    for (size_t first = 0; first < npages; first += chunk) {
        size_t n = npages - first < chunk ? npages - first : chunk;
        if (mincore(p + first * pg, n * pg, vec) != 0) {
            memset(p + first * pg, 0, n * pg); /* cannot tell: zero it all */
            continue;
        }
        for (size_t i = 0; i < n;) {
            if (!(vec[i] & 1)) {
                i++;
                continue;
            }
            size_t j = i;
            while (j < n && (vec[j] & 1))
                j++;
            memset(p + (first + i) * pg, 0, (j - i) * pg);
            i = j;
        }
    }
}

/* PE pe's dirty bits (one per chunk of its stride), or NULL: unknown, so
 * every chunk counts as dirty. */
static uint64_t *dirty_of(const struct shmemu_tl_hostmem *hm, int pe)
{
    return hm->dirty ? hm->dirty + (size_t)pe * hm->dirty_words : NULL;
}

static void mark_dirty(struct shmemu_tl_hostmem *hm, int pe, size_t lo, size_t hi)
{
    uint64_t *d = dirty_of(hm, pe);
    for (size_t c = lo / CHUNK; d && lo < hi && c < (hi + CHUNK - 1) / CHUNK; c++)
        d[c / 64] |= 1ull << (c % 64);
}

/* Make PE pe's first len bytes read as zero. */
static void zero_dirty(struct shmemu_tl_hostmem *hm, int pe, size_t len)
{
    char *base = hm->heaps + (size_t)pe * hm->stride;
    uint64_t *d = dirty_of(hm, pe);
    if (!d) {
        zero_resident(base, len < hm->touched ? len : hm->touched);
        return;
    }
    for (size_t c = 0; c * CHUNK < len; c++) {
        if (!(d[c / 64] >> (c % 64) & 1))
            continue;
        size_t n = len - c * CHUNK < CHUNK ? len - c * CHUNK : CHUNK;
        zero_resident(base + c * CHUNK, n);
        if (n == CHUNK) /* a part past len may still hold a bigger job's data */
            d[c / 64] &= ~(1ull << (c % 64));
    }
}

static void drop_heaps(struct shmemu_tl_hostmem *d)
{
    unmap_heaps(d->heaps, d->stride, d->reserved);
    if (d->views && d->fd >= 0)
        close(d->fd);
    free(d->dirty);
    d->views = 0;
}

/* The cached heaps into *hm, if they can serve npes heaps of heap_len
 * bytes at its stride: resized, the first npes zeroed.  0 otherwise. */
static int cache_take(struct shmemu_tl_hostmem *hm, size_t heap_len, int npes, int views)
{
    pthread_mutex_lock(&cache_lock);
    /* A memory file's heaps lie at multiples of their length in it: they
     * serve heaps of that length only. */
    if (!cache.heaps || cache.stride != hm->stride || cache.reserved < npes ||
        cache.views != views || (views && cache.heap_len != heap_len)) {
        pthread_mutex_unlock(&cache_lock);
        return 0;
    }
    /* All of it comes along (heaps past npes unused, as they are): the next
     * job may have more PEs again. */
    void *ctl = hm->ctl;
    size_t ctl_len = hm->ctl_len, old = cache.heap_len;
    *hm = cache;
    hm->ctl = ctl, hm->ctl_len = ctl_len;
    cache = (struct shmemu_tl_hostmem){0};
    pthread_mutex_unlock(&cache_lock);
    hm->heap_len = heap_len;
    if (heap_len > hm->touched)
        hm->touched = heap_len;
    for (int pe = 0; pe < hm->reserved; pe++) {
        char *base = hm->heaps + (size_t)pe * hm->stride;
        if (heap_len > old &&
            mprotect(base + old, heap_len - old, PROT_READ | PROT_WRITE) != 0) {
            unmap_heaps(hm->heaps, hm->stride, hm->reserved);
            free(hm->dirty);
            hm->heaps = NULL, hm->dirty = NULL;
            return 0;
        }
        if (heap_len < old) /* out of reach; its pages stay ours */
            (void)mprotect(base + heap_len, old - heap_len, PROT_NONE);
        /* as create advises a fresh heap (sim's advice may linger) */
        (void)madvise(base, heap_len, MADV_HUGEPAGE);
        if (pe < npes)
            zero_dirty(hm, pe, heap_len);
    }
    return 1;
}

static void release(struct shmemu_tl_hostmem *hm, int npes, size_t low, size_t top)
{
    if (hm->alias) /* this job's alone */
        munmap(hm->alias, hm->alias_len);
    hm->alias = NULL;
    if (hm->heaps) {
        for (int pe = 0; pe < npes && pe < hm->reserved; pe++) {
            size_t len = hm->heap_len, t = top < len ? top : len;
            mark_dirty(hm, pe, 0, low < len ? low : len);
            mark_dirty(hm, pe, len - t, len);
        }
        struct shmemu_tl_hostmem drop = *hm;
        if (hm->touched * (size_t)hm->reserved <= CACHE_MAX) {
            pthread_mutex_lock(&cache_lock);
            drop = cache;
            cache = *hm;
            cache.ctl = NULL;
            pthread_mutex_unlock(&cache_lock);
        }
        drop_heaps(&drop);
    } else {
        drop_heaps(hm);
    }
    if (hm->ctl)
        munmap(hm->ctl, hm->ctl_len);
    hm->heaps = NULL;
    hm->dirty = NULL;
    hm->ctl = NULL;
}

void shmemu_tl_hostmem_destroy(struct shmemu_tl_hostmem *hm, const struct shmemu_tl_job *job)
{
    release(hm, job->npes, job->heap_low, job->heap_top);
}

/* Heaps that checker mode can map again, at other addresses (its views
 * of peers' heaps): each a shared mapping of its range of one memory
 * file.  Kept for the next job as private heaps are, for a job that asks
 * for views and heaps of the same length (the verifier's seeds of a
 * case). */
static int create_shared(struct shmemu_tl_hostmem *hm, int npes, char **bases)
{
    hm->views = 1;
    hm->fd = (int)syscall(SYS_memfd_create, "shmemu-heaps", 1u /* MFD_CLOEXEC */);
    if (hm->fd < 0 || ftruncate(hm->fd, (off_t)(hm->heap_len * (size_t)npes)) != 0)
        return SHMEMU_ENOMEM;
    hm->heaps = shmemu_mapped_reserve(hm->stride * (size_t)npes, SHMEMU_TL_BASE_ALIGN,
                                      PROT_NONE);
    if (!hm->heaps)
        return SHMEMU_ENOMEM;
    for (int pe = 0; pe < npes; pe++) {
        bases[pe] = hm->heaps + (size_t)pe * hm->stride;
        if (mmap(bases[pe], hm->heap_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                 hm->fd, (off_t)((size_t)pe * hm->heap_len)) == MAP_FAILED)
            return SHMEMU_ENOMEM;
    }
    return SHMEMU_OK;
}

int shmemu_tl_hostmem_map_view(const struct shmemu_tl_hostmem *hm, int pe, size_t off,
                               void *addr, size_t len, int writable)
{
    if (!hm->views || off > hm->heap_len || len > hm->heap_len - off)
        return SHMEMU_ENOTSUP;
    int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
    return mmap(addr, len, prot, MAP_SHARED | MAP_FIXED, hm->fd,
                (off_t)((size_t)pe * hm->heap_len + off)) == MAP_FAILED
               ? SHMEMU_ENOMEM
               : SHMEMU_OK;
}

int shmemu_tl_hostmem_alias(struct shmemu_tl_hostmem *hm, int npes, char **lib_base)
{
    if (!hm->views)
        return SHMEMU_OK;
    size_t len = hm->heap_len * (size_t)npes;
    char *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, hm->fd, 0);
    if (a == MAP_FAILED)
        return SHMEMU_ENOMEM;
    hm->alias = a;
    hm->alias_len = len;
    for (int pe = 0; pe < npes; pe++)
        lib_base[pe] = a + (size_t)pe * hm->heap_len;
    return SHMEMU_OK;
}

int shmemu_tl_hostmem_create(struct shmemu_tl_hostmem *hm, int npes, size_t heap_size,
                             size_t ctl_size, size_t ctl_hot, int views, char **bases)
{
    hm->stride = shmemu_tl_heap_stride(heap_size);
    hm->ctl_len = page_round(ctl_size);
    /* Thousands of PEs (sim) touch a word or two of the hot part each in
     * every barrier: on huge pages that is a few TLB entries, not one per
     * 8 PEs (a 4,096-PE sim barrier: 2.07 -> 1.44 ms median, with the
     * PEs' own state so placed too).  Not the rest: a checker's shadow,
     * touched here and there, would cost 2 MiB of memory per touch. */
    size_t huge = ctl_hot >= HUGE_PAGE / 2 ? (ctl_hot + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE : 0;
    if (!huge) {
        hm->ctl = mmap(NULL, hm->ctl_len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (hm->ctl == MAP_FAILED)
            hm->ctl = NULL;
    } else {
        hm->ctl = shmemu_mapped_reserve(hm->ctl_len, HUGE_PAGE, PROT_READ | PROT_WRITE);
        if (hm->ctl)
            (void)madvise(hm->ctl, huge < hm->ctl_len ? huge : hm->ctl_len, MADV_HUGEPAGE);
    }
    if (!hm->ctl)
        return SHMEMU_ENOMEM;
    if (cache_take(hm, page_round(heap_size), npes, views)) {
        for (int pe = 0; pe < npes; pe++)
            bases[pe] = hm->heaps + (size_t)pe * hm->stride;
        return SHMEMU_OK;
    }
    hm->heap_len = hm->touched = page_round(heap_size);
    hm->reserved = npes;
    hm->dirty_words = (hm->stride / CHUNK + 63) / 64;
    hm->dirty = calloc((size_t)npes * hm->dirty_words, sizeof(uint64_t)); /* NULL: all dirty */
    if (views) {
        int st = create_shared(hm, npes, bases);
        if (st != SHMEMU_OK) { /* nothing of it kept */
            drop_heaps(hm);
            hm->heaps = NULL;
            hm->dirty = NULL;
            release(hm, 0, 0, 0);
        }
        return st;
    }
    hm->heaps = shmemu_mapped_reserve(hm->stride * (size_t)npes, SHMEMU_TL_BASE_ALIGN,
                                      PROT_NONE);
    if (!hm->heaps) {
        release(hm, 0, 0, 0);
        return SHMEMU_ENOMEM;
    }
    for (int pe = 0; pe < npes; pe++) {
        char *base = hm->heaps + (size_t)pe * hm->stride;
        if (mprotect(base, hm->heap_len, PROT_READ | PROT_WRITE) != 0) {
            unmap_heaps(hm->heaps, hm->stride, npes);
            hm->heaps = NULL;
            release(hm, 0, 0, 0);
            return SHMEMU_ENOMEM;
        }
        /* Huge pages where the kernel offers them: a large put touches a
         * fresh heap 512 times less often (a hint; failure is harmless). */
        (void)madvise(base, hm->heap_len, MADV_HUGEPAGE);
        bases[pe] = base;
    }
    return SHMEMU_OK;
}
