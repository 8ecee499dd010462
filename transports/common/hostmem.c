/* hostmem.c - heaps in private host memory (see hostmem.h). */
#include "hostmem.h"

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

void shmemu_tl_hostmem_destroy(struct shmemu_tl_hostmem *hm, int npes)
{
    if (hm->heaps)
        munmap(hm->heaps, hm->stride * (size_t)npes);
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
    hm->heaps = shmemu_mapped_reserve(hm->stride * (size_t)npes, SHMEMU_TL_BASE_ALIGN,
                                      PROT_NONE);
    if (!hm->heaps) {
        shmemu_tl_hostmem_destroy(hm, npes);
        return SHMEMU_ENOMEM;
    }
    for (int pe = 0; pe < npes; pe++) {
        char *base = hm->heaps + (size_t)pe * hm->stride;
        if (mprotect(base, heap_size, PROT_READ | PROT_WRITE) != 0) {
            shmemu_tl_hostmem_destroy(hm, npes);
            return SHMEMU_ENOMEM;
        }
        /* Huge pages where the kernel offers them: a large put touches a
         * fresh heap 512 times less often (a hint; failure is harmless). */
        (void)madvise(base, heap_size, MADV_HUGEPAGE);
        bases[pe] = base;
    }
    return SHMEMU_OK;
}
