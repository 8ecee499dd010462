/* hostmem.c - heaps in private host memory (see hostmem.h). */
#include "hostmem.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
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
 * next job gets the heaps back with every resident page zeroed, so it sees
 * what fresh memory would show; the reservation is kept only while its
 * heaps fit in CACHE_MAX bytes.
 */
#define CACHE_MAX ((size_t)4 << 30)
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char *heaps;
    size_t stride, heap_len; /* heap_len: the accessible bytes of each */
    int npes;
} cache;

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

/* The cached heaps, if they can serve npes heaps of heap_len bytes at this
 * stride: taken (*reserved heaps in all), resized, the first npes zeroed.
 * NULL otherwise. */
static char *cache_take(size_t stride, size_t heap_len, int npes, int *reserved)
{
    pthread_mutex_lock(&cache_lock);
    char *heaps = NULL;
    if (cache.heaps && cache.stride == stride && cache.npes >= npes) {
        /* All of it comes along (heaps past npes unused, as they are): the
         * next job may have more PEs again. */
        heaps = cache.heaps;
        size_t old = cache.heap_len;
        *reserved = cache.npes;
        cache.heaps = NULL;
        pthread_mutex_unlock(&cache_lock);
        for (int pe = 0; pe < *reserved; pe++) {
            char *base = heaps + (size_t)pe * stride;
            if (heap_len > old &&
                mprotect(base + old, heap_len - old, PROT_READ | PROT_WRITE) != 0) {
                unmap_heaps(heaps, stride, *reserved);
                return NULL;
            }
            if (heap_len < old) { /* the rest back to the kernel, and out of reach */
                (void)madvise(base + heap_len, old - heap_len, MADV_DONTNEED);
                (void)mprotect(base + heap_len, old - heap_len, PROT_NONE);
            }
            /* as create advises a fresh heap (sim's advice may linger) */
            (void)madvise(base, heap_len, MADV_HUGEPAGE);
            if (pe < npes)
                zero_resident(base, heap_len < old ? heap_len : old);
        }
        return heaps;
    }
    pthread_mutex_unlock(&cache_lock);
    return NULL;
}

static void cache_put(char *heaps, size_t stride, size_t heap_len, int npes)
{
    char *drop = heaps;
    size_t drop_stride = stride;
    int drop_npes = npes;
    if (heap_len * (size_t)npes <= CACHE_MAX) {
        pthread_mutex_lock(&cache_lock);
        drop = cache.heaps, drop_stride = cache.stride, drop_npes = cache.npes;
        cache.heaps = heaps, cache.stride = stride, cache.heap_len = heap_len;
        cache.npes = npes;
        pthread_mutex_unlock(&cache_lock);
    }
    unmap_heaps(drop, drop_stride, drop_npes);
}

void shmemu_tl_hostmem_destroy(struct shmemu_tl_hostmem *hm, int npes)
{
    (void)npes; /* the reservation says how many heaps it holds */
    if (hm->heaps)
        cache_put(hm->heaps, hm->stride, hm->heap_len, hm->reserved);
    if (hm->ctl)
        munmap(hm->ctl, hm->ctl_len);
    hm->heaps = NULL;
    hm->ctl = NULL;
}

int shmemu_tl_hostmem_create(struct shmemu_tl_hostmem *hm, int npes, size_t heap_size,
                             size_t ctl_size, size_t ctl_hot, char **bases)
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
    hm->heap_len = page_round(heap_size);
    hm->reserved = npes;
    if ((hm->heaps = cache_take(hm->stride, hm->heap_len, npes, &hm->reserved))) {
        for (int pe = 0; pe < npes; pe++)
            bases[pe] = hm->heaps + (size_t)pe * hm->stride;
        return SHMEMU_OK;
    }
    hm->heaps = shmemu_mapped_reserve(hm->stride * (size_t)npes, SHMEMU_TL_BASE_ALIGN,
                                      PROT_NONE);
    if (!hm->heaps) {
        shmemu_tl_hostmem_destroy(hm, npes);
        return SHMEMU_ENOMEM;
    }
    for (int pe = 0; pe < npes; pe++) {
        char *base = hm->heaps + (size_t)pe * hm->stride;
        if (mprotect(base, hm->heap_len, PROT_READ | PROT_WRITE) != 0) {
            unmap_heaps(hm->heaps, hm->stride, npes);
            hm->heaps = NULL;
            shmemu_tl_hostmem_destroy(hm, npes);
            return SHMEMU_ENOMEM;
        }
        /* Huge pages where the kernel offers them: a large put touches a
         * fresh heap 512 times less often (a hint; failure is harmless). */
        (void)madvise(base, hm->heap_len, MADV_HUGEPAGE);
        bases[pe] = base;
    }
    return SHMEMU_OK;
}
