/*
 * static.c - a program's global and static variables as symmetric data.
 *
 * OpenSHMEM makes every global and static variable of the program
 * symmetric: `static long flag; shmem_long_p(&flag, 1, pe)` is the most
 * common idiom of its programs.  Where PEs are processes of one program
 * (shm, ucx), each process maps its writable data segment (.data and .bss, past
 * the part the loader makes read-only after relocation) onto a range of its
 * own heap that every PE reserves first, at the same offset: an address in
 * the segment is then that heap offset, and puts, gets, atomics, waits and
 * the checker treat it as any heap word.  Where PEs share one program image
 * (local, sim: threads or fibers) there is a single copy of each variable,
 * so a remote access to one is refused with the variable's name.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "dispatch.h"
#include "heap.h"

static int requested; /* shmem_init: auto means on */

void shmemu__static_request(void) { requested = 1; }

struct seg {
    uintptr_t lo, hi;
};

/* The main program's writable PT_LOAD, less its RELRO head, page-rounded. */
static int find_seg(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct seg *s = arg;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO)
            relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || !ph->p_memsz)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (relro_end >= hi)
            break; /* all of it read-only after relocation: nothing to share */
        /* The RELRO head ends on a page boundary; without one, whole pages. */
        s->lo = relro_end > lo ? (relro_end + pg - 1) / pg * pg : lo / pg * pg;
        s->hi = (hi + pg - 1) / pg * pg;
        break;
    }
    return 1; /* the first object is the program itself */
}

/* The whole segment, word by word: it holds AddressSanitizer's redzones
 * between globals, which an (intercepted) memcpy would report as an
 * overflow.  volatile: the compiler must not turn the loop into memcpy. */
__attribute__((no_sanitize_address)) static void copy_segment(void *dst, const void *src,
                                                               size_t len)
{
    const volatile unsigned long *s = src;
    unsigned long *d = dst;
    for (size_t i = 0; i < len / sizeof(*s); i++)
        d[i] = s[i];
}

int shmemu__static_attach(shmemu__pe *me)
{
    struct seg s = {0, 0};
    dl_iterate_phdr(find_seg, &s);
    if (s.hi <= s.lo)
        return SHMEMU_OK;
    me->static_lo = (char *)s.lo;
    me->static_len = s.hi - s.lo;
    struct shmemu__job *job = me->job;
    int want = job->params.STATIC < 0 ? requested : job->params.STATIC;
    if (!want || !SHMEMU_TL_HAS(job->ops, alias) || job->check.device)
        return SHMEMU_OK; /* refused per access, with the reason (static_why) */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), off;
    /* The first block of every PE's heap: the same offset everywhere. */
    if (shmemu__heap_alloc(&me->alloc, me->static_len, pg, &off) != 0) {
        snprintf(job->tl.why, sizeof(job->tl.why),
                 "the program's static data (%zu bytes of .data and .bss) do not fit "
                 "PE %d's symmetric heap of %zu bytes: raise SHMEMU_HEAP_SIZE, or set "
                 "SHMEMU_STATIC=off",
                 me->static_len, me->pe, me->heap_size);
        return SHMEMU_ENOMEM;
    }
    /* Nothing else runs in this process yet: the copy and the remap see
     * the same bytes. */
    copy_segment(me->heap + off, me->static_lo, me->static_len);
    int st = shmemu__tl_alias(job, me->pe, off, me->static_lo, me->static_len);
    if (st != SHMEMU_OK)
        return st;
    me->static_off = off;
    me->static_mapped = 1;
    return SHMEMU_OK;
}

static int main_base(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(uintptr_t *)arg = info->dlpi_addr;
    return 1;
}

/* Mark the pages of [lo, hi) that [a, b) overlaps. */
static void mark_pages(unsigned char *m, uintptr_t lo, uintptr_t hi, size_t pg, uintptr_t a,
                       uintptr_t b, unsigned char bit)
{
    if (b <= lo || a >= hi || b <= a)
        return;
    a = a < lo ? lo : a;
    b = b > hi ? hi : b;
    for (uintptr_t p = (a - lo) / pg; p < (b - lo + pg - 1) / pg; p++)
        m[p] |= bit;
}

int shmemu__static_program_pages(const shmemu__pe *me, unsigned char *mark)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), npages = me->static_len / pg;
    memset(mark, 0, npages);
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    const char *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -1;
    const Elf64_Ehdr *eh = (const void *)map;
    const Elf64_Shdr *sh = (const void *)(map + eh->e_shoff);
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        !eh->e_shoff || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len ||
        eh->e_shstrndx >= eh->e_shnum || sh[eh->e_shstrndx].sh_offset > len) {
        munmap((void *)map, len);
        return -1;
    }
    uintptr_t base = 0, lo = (uintptr_t)me->static_lo, hi = lo + me->static_len;
    dl_iterate_phdr(main_base, &base);
    if (eh->e_type != ET_DYN)
        base = 0;
    const char *names = map + sh[eh->e_shstrndx].sh_offset;
    size_t names_len = len - sh[eh->e_shstrndx].sh_offset;
    /* 1: the program's variables; 2: anything else (the GOT the loader
     * binds lazily into, what the loader copies in) */
    for (int i = 0; i < eh->e_shnum; i++) {
        if (!(sh[i].sh_flags & SHF_ALLOC) || sh[i].sh_name >= names_len)
            continue;
        const char *n = names + sh[i].sh_name;
        uintptr_t a = base + sh[i].sh_addr, b = a + sh[i].sh_size;
        if (!strcmp(n, ".data") || !strcmp(n, ".bss"))
            mark_pages(mark, lo, hi, pg, a, b, 1);
        else if (strcmp(n, "shmemu_data") && strcmp(n, "shmemu_bss"))
            mark_pages(mark, lo, hi, pg, a, b, 2);
    }
    munmap((void *)map, len);
    for (size_t p = 0; p < npages; p++)
        mark[p] = mark[p] == 1;
    return 0;
}

int shmemu__static_off(const shmemu__pe *me, const void *addr, size_t *off_p)
{
    size_t d = (size_t)((uintptr_t)addr - (uintptr_t)me->static_lo);
    if (!me->static_lo || d >= me->static_len)
        return 0;
    if (!me->static_mapped)
        return -1;
    *off_p = me->static_off + d;
    return 1;
}

int shmemu__static_name(const shmemu__pe *me, uint64_t off, char *buf, size_t len)
{
    if (!me || !me->static_mapped || off < me->static_off ||
        off - me->static_off >= me->static_len)
        return 0;
    return shmemu__format_object(me->static_lo + (off - me->static_off), buf, len);
}

void shmemu__word_name(const shmemu__pe *me, uint64_t off, char *buf, size_t len)
{
    if (!shmemu__static_name(me, off, buf, len))
        snprintf(buf, len, "heap+0x%llx", (unsigned long long)off);
}

void shmemu__variable_note(const void *addr, char *buf, size_t len)
{
    char var[128];
    if (shmemu__format_object(addr, var, sizeof(var)))
        snprintf(buf, len, " (variable %s)", var);
    else if (len)
        buf[0] = '\0';
}

void shmemu__static_why(const shmemu__pe *me, const void *addr, char *buf, size_t len)
{
    char name[160];
    shmemu__variable_note(addr, name, sizeof(name));
    struct shmemu__job *job = me->job;
    const char *why;
    if (!SHMEMU_TL_HAS(job->ops, alias))
        why = job->ops->caps & SHMEMU_TL_CAP_PROCESSES
                  ? "this transport cannot make static data symmetric"
                  : "PEs of this transport share one copy of the program's variables";
    else if (job->check.device)
        why = "SHMEMU_CHECK=device keeps static data out of the symmetric memory";
    else
        why = "static data are symmetric only with SHMEMU_STATIC=on (or shmem_init)";
    snprintf(buf, len,
             "%p%s is a global or static variable of the program, not symmetric here: "
             "%s; allocate it with shmemu_malloc, or run on shm with SHMEMU_STATIC=on",
             addr, name, why);
}
