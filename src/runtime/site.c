/* site.c - naming a code address ("my_allreduce+0x5c") for reports.
 *
 * dladdr() knows only dynamic symbols: a user's static function, or any
 * function of an executable not linked with -rdynamic, comes back as
 * "module+offset".  For those we read the module's own symbol table
 * (.symtab, present unless the file was stripped) once per process. */
#include "core.h"
#include "platform.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
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

static void make_site(void *addr, char *buf, size_t len)
{
    Dl_info di;
    /* The return address points after the call: -1 lands inside it. */
    if (!addr) {
        snprintf(buf, len, "?");
    } else if (!dladdr((char *)addr - 1, &di)) {
        snprintf(buf, len, "%p", addr);
    } else if (di.dli_sname) {
        snprintf(buf, len, "%s+%#lx", di.dli_sname,
                 (unsigned long)((char *)addr - (char *)di.dli_saddr));
    } else if (di.dli_fname) {
        if (lookup(di.dli_fname, di.dli_fbase, addr, 1, STT_FUNC, buf, len))
            return;
        const char *base = strrchr(di.dli_fname, '/');
        snprintf(buf, len, "%s+%#lx", base ? base + 1 : di.dli_fname,
                 (unsigned long)((char *)addr - (char *)di.dli_fbase));
    } else {
        snprintf(buf, len, "%p", addr);
    }
}

/* Names made, for the whole process: a checked run names the same few
 * sites in every job (--fuzz N runs a case N times), and dladdr scans a
 * module's symbols each time (a tenth of a checked device allreduce's
 * run).  Forgotten when a module is unloaded (another may take its
 * addresses). */
#define NAMED 64
static struct {
    void *addr;
    char name[128];
} named[NAMED];
static unsigned named_next;
static unsigned long long named_subs;
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;

static int count_subs(struct dl_phdr_info *info, size_t size, void *arg)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
        *(unsigned long long *)arg = info->dlpi_subs;
    return 1; /* the counters are the same in every entry */
}

void shmemu__format_site(void *addr, char *buf, size_t len)
{
    unsigned long long subs = 0;
    dl_iterate_phdr(count_subs, &subs);
    pthread_mutex_lock(&named_lock);
    if (subs != named_subs) {
        memset(named, 0, sizeof(named));
        named_subs = subs;
    }
    for (unsigned i = 0; addr && i < NAMED; i++)
        if (named[i].addr == addr) {
            snprintf(buf, len, "%s", named[i].name);
            pthread_mutex_unlock(&named_lock);
            return;
        }
    pthread_mutex_unlock(&named_lock);
    make_site(addr, buf, len);
    if (!addr || strlen(buf) + 1 >= sizeof(named[0].name) || strlen(buf) + 1 >= len)
        return; /* perhaps cut short: a longer buffer would get more */
    pthread_mutex_lock(&named_lock);
    if (subs == named_subs) {
        unsigned i = named_next++ % NAMED;
        named[i].addr = addr;
        snprintf(named[i].name, sizeof(named[i].name), "%s", buf);
    }
    pthread_mutex_unlock(&named_lock);
}

const char *shmemu__site_name(void *addr)
{
    static _Thread_local char buf[96];
    shmemu__format_site(addr, buf, sizeof(buf));
    return buf;
}

/* ------------------------------------------------------ source lines */

/* elfutils' libdw, loaded when first asked (dlopen: nothing to link, and a
 * process without it names functions only).  Its types are opaque here;
 * the callbacks table is four pointers (libdwfl.h's Dwfl_Callbacks). */
struct dwfl_callbacks {
    void *find_elf, *find_debuginfo, *section_address;
    char **debuginfo_path;
};

static struct {
    int tried, ok;
    pid_t pid;   /* the process the modules were reported for (shm forks) */
    void *dwfl;
    void *(*begin)(const struct dwfl_callbacks *);
    void (*end)(void *);
    void (*report_begin)(void *);
    int (*proc_report)(void *, pid_t);
    int (*report_end)(void *, void *, void *);
    void *(*getsrc)(void *, uint64_t);
    const char *(*lineinfo)(void *, uint64_t *, int *, int *, uint64_t *, uint64_t *);
    struct dwfl_callbacks cb;
    char *debuginfo_path;
} dw;
static pthread_mutex_t dw_lock = PTHREAD_MUTEX_INITIALIZER;

static int dw_load(void)
{
    if (dw.tried)
        return dw.ok;
    dw.tried = 1;
    void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 0;
    /* dlsym's object pointers into function pointers: POSIX's rule */
    *(void **)&dw.begin = dlsym(h, "dwfl_begin");
    *(void **)&dw.end = dlsym(h, "dwfl_end");
    *(void **)&dw.report_begin = dlsym(h, "dwfl_report_begin");
    *(void **)&dw.proc_report = dlsym(h, "dwfl_linux_proc_report");
    *(void **)&dw.report_end = dlsym(h, "dwfl_report_end");
    *(void **)&dw.getsrc = dlsym(h, "dwfl_getsrc");
    *(void **)&dw.lineinfo = dlsym(h, "dwfl_lineinfo");
    dw.cb.find_elf = dlsym(h, "dwfl_linux_proc_find_elf");
    dw.cb.find_debuginfo = dlsym(h, "dwfl_standard_find_debuginfo");
    dw.cb.debuginfo_path = &dw.debuginfo_path;
    dw.ok = dw.begin && dw.end && dw.report_begin && dw.proc_report && dw.report_end &&
            dw.getsrc && dw.lineinfo && dw.cb.find_elf && dw.cb.find_debuginfo;
    return dw.ok;
}

/* The modules mapped now (again: a library loaded since, or a forked
 * process). */
static int dw_report(void)
{
    if (dw.dwfl && dw.pid != getpid()) {
        dw.end(dw.dwfl);
        dw.dwfl = NULL;
    }
    if (!dw.dwfl && !(dw.dwfl = dw.begin(&dw.cb)))
        return 0;
    dw.pid = getpid();
    dw.report_begin(dw.dwfl);
    int st = dw.proc_report(dw.dwfl, dw.pid);
    return dw.report_end(dw.dwfl, NULL, NULL) == 0 && st == 0;
}

/* Lines already asked for, by pc (found or not): a site is looked up
 * once per process. */
#define LINES 1024
static struct {
    uintptr_t pc;
    char text[88]; /* "" where none was found */
} lines[LINES];

struct line_req {
    uintptr_t pc;
    char *buf;
    size_t len;
    int found;
};

static void *line_thread(void *arg)
{
    struct line_req *q = arg;
    pthread_mutex_lock(&dw_lock);
    if (dw_load() && (dw.dwfl && dw.pid == getpid() ? 1 : dw_report())) {
        void *l = dw.getsrc(dw.dwfl, q->pc);
        if (!l && dw_report()) /* a module loaded since */
            l = dw.getsrc(dw.dwfl, q->pc);
        uint64_t at;
        int line = 0;
        const char *file = l ? dw.lineinfo(l, &at, &line, NULL, NULL, NULL) : NULL;
        /* Inlined from our own headers (shmem.h's generic _g, the device
         * calls): the program's line is the caller's, which a line table
         * does not give. */
        static const char *const ours[] = {"shmem.h", "shmemx.h", "pshmem.h", "shmemu.h",
                                           "shmemu_device.h", "shmemu_cuda.h"};
        const char *base = file ? strrchr(file, '/') : NULL;
        base = base ? base + 1 : file;
        for (size_t i = 0; base && i < sizeof(ours) / sizeof(ours[0]); i++)
            if (!strcmp(base, ours[i]))
                file = NULL;
        if (file && line > 0) {
            char cwd[PATH_MAX];
            size_t n = getcwd(cwd, sizeof(cwd)) ? strlen(cwd) : 0;
            if (n && !strncmp(file, cwd, n) && file[n] == '/')
                file += n + 1;
            snprintf(q->buf, q->len, "%s:%d", file, line);
            q->found = 1;
        }
    }
    pthread_mutex_unlock(&dw_lock);
    return NULL;
}

int shmemu__format_line(const void *pc, char *buf, size_t len)
{
#if defined(SHMEMU__TSAN)
    /* from a fault handler: a thread of its own is a signal-unsafe call to
     * ThreadSanitizer */
    (void)pc, (void)buf, (void)len, (void)line_thread, (void)lines;
    return 0;
#else
    if (!pc || !len)
        return 0;
    uintptr_t key = (uintptr_t)pc;
    size_t slot = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 54) % LINES;
    pthread_mutex_lock(&dw_lock);
    int known = lines[slot].pc == key;
    if (known)
        snprintf(buf, len, "%s", lines[slot].text);
    pthread_mutex_unlock(&dw_lock);
    if (known)
        return buf[0] != '\0';
    /* On a thread of its own: the caller may be a fault handler on a
     * device thread's stack of a few pages, and reading a line table takes
     * more.  Once per site and process, so a thread each time. */
    char text[sizeof(lines[0].text)] = "";
    struct line_req q = {key, text, sizeof(text), 0};
    pthread_t t;
    if (pthread_create(&t, NULL, line_thread, &q) != 0)
        return 0;
    pthread_join(t, NULL);
    pthread_mutex_lock(&dw_lock);
    lines[slot].pc = key;
    memcpy(lines[slot].text, q.found ? text : "", q.found ? sizeof(text) : 1);
    pthread_mutex_unlock(&dw_lock);
    snprintf(buf, len, "%s", q.found ? text : "");
    return q.found;
#endif
}
