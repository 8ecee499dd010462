/* site.c - naming a code address ("my_allreduce+0x5c") for reports.
 *
 * dladdr() knows only dynamic symbols: a user's static function, or any
 * function of an executable not linked with -rdynamic, comes back as
 * "module+offset".  For those we read the module's own symbol table
 * (.symtab, present unless the file was stripped) once per process. */
#include "core.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct module {
    char path[256];
    const Elf64_Sym *syms; /* inside map */
    size_t nsyms;
    const char *strs;
    int relative; /* symbol values are offsets from the load base (PIE, .so) */
    void *map;
    size_t map_len;
};

#define MODULES 8
static struct module modules[MODULES];
static int nmodules;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

static void load(struct module *m)
{
    int fd = open(m->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return;
    m->map = map;
    m->map_len = (size_t)st.st_size;
    const Elf64_Ehdr *eh = map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > m->map_len)
        return;
    m->relative = eh->e_type == ET_DYN;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(const void *)((const char *)map + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > m->map_len ||
            str->sh_offset + str->sh_size > m->map_len)
            return;
        m->syms = (const Elf64_Sym *)(const void *)((const char *)map + sh[i].sh_offset);
        m->nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
        m->strs = (const char *)map + str->sh_offset;
        return;
    }
}

/* The symbol of module `path` (loaded at base) of type `type` (STT_FUNC,
 * STT_OBJECT) that contains the byte at addr - back, as "name+offset" of
 * addr itself (a return address points just past its call). */
static int lookup(const char *path, void *base, const void *addr, size_t back, int type,
                  char *buf, size_t len)
{
    pthread_mutex_lock(&modules_lock);
    struct module *m = NULL;
    for (int i = 0; i < nmodules && !m; i++)
        if (strcmp(modules[i].path, path) == 0)
            m = &modules[i];
    if (!m && nmodules < MODULES && strlen(path) < sizeof(modules[0].path)) {
        m = &modules[nmodules++];
        strcpy(m->path, path);
        load(m);
    }
    int found = 0;
    if (m && m->syms) {
        uintptr_t at = (uintptr_t)addr - back - (m->relative ? (uintptr_t)base : 0);
        for (size_t i = 0; i < m->nsyms && !found; i++) {
            const Elf64_Sym *s = &m->syms[i];
            if (ELF64_ST_TYPE(s->st_info) != type || at < s->st_value ||
                at >= s->st_value + (s->st_size ? s->st_size : 1))
                continue;
            /* A function's static variable is "name.N" to gcc: name it. */
            const char *nm = m->strs + s->st_name, *dot = strrchr(nm, '.');
            int n = (int)strlen(nm);
            if (type == STT_OBJECT && dot && dot[1] &&
                strspn(dot + 1, "0123456789") == strlen(dot + 1))
                n = (int)(dot - nm);
            snprintf(buf, len, "%.*s+%#lx", n, nm, (unsigned long)(at + back - s->st_value));
            found = 1;
        }
    }
    pthread_mutex_unlock(&modules_lock);
    return found;
}

int shmemu__format_object(const void *addr, char *buf, size_t len)
{
    Dl_info di;
    if (!addr || !dladdr(addr, &di))
        return 0;
    if (di.dli_sname && di.dli_saddr) {
        snprintf(buf, len, "%s+%#lx", di.dli_sname,
                 (unsigned long)((const char *)addr - (const char *)di.dli_saddr));
        return 1;
    }
    return di.dli_fname && lookup(di.dli_fname, di.dli_fbase, addr, 0, STT_OBJECT, buf, len);
}

void shmemu__format_site(void *addr, char *buf, size_t len)
{
    Dl_info di;
    /* The return address points after the call: -1 lands inside it. */
    if (!addr) {
        snprintf(buf, len, "?");
    } else if (dladdr((char *)addr - 1, &di) && di.dli_sname) {
        snprintf(buf, len, "%s+%#lx", di.dli_sname,
                 (unsigned long)((char *)addr - (char *)di.dli_saddr));
    } else if (dladdr((char *)addr - 1, &di) && di.dli_fname) {
        if (lookup(di.dli_fname, di.dli_fbase, addr, 1, STT_FUNC, buf, len))
            return;
        const char *base = strrchr(di.dli_fname, '/');
        snprintf(buf, len, "%s+%#lx", base ? base + 1 : di.dli_fname,
                 (unsigned long)((char *)addr - (char *)di.dli_fbase));
    } else {
        snprintf(buf, len, "%p", addr);
    }
}

const char *shmemu__site_name(void *addr)
{
    static _Thread_local char buf[96];
    shmemu__format_site(addr, buf, sizeof(buf));
    return buf;
}
