/* plugin.c - opening a transport's plugin (see plugin.h). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"
#include "shmemu.h"

/* Where libshmemu itself was loaded from (the shared library, or the
 * program it is linked into): plugins are installed beside it. */
static int own_dir(char *dir, size_t len)
{
    Dl_info info;
    if (!dladdr((void *)own_dir, &info) || !info.dli_fname || !*info.dli_fname)
        return -1;
    char path[PATH_MAX], exe[PATH_MAX] = "";
    if (!realpath(info.dli_fname, path) &&
        (readlink("/proc/self/exe", exe, sizeof(exe) - 1) < 0 || !realpath(exe, path)))
        return -1;
    char *slash = strrchr(path, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    snprintf(dir, len, "%s", path);
    return 0;
}

const void *shmemu_tl_plugin_open(const char *file, const char *symbol, unsigned abi,
                                  size_t min_size, const char *env_var, const char *what,
                                  const char *build_hint, char *why, size_t len)
{
    char dir[PATH_MAX - 64] = "", cand[4][PATH_MAX];
    int n = 0;
    const char *env = getenv(env_var);
    if (env && *env)
        snprintf(cand[n++], PATH_MAX, "%s", env);
    else {
        if (own_dir(dir, sizeof(dir)) == 0) {
            snprintf(cand[n++], PATH_MAX, "%s/%s", dir, file);
            snprintf(cand[n++], PATH_MAX, "%s/../%s", dir, file);
            snprintf(cand[n++], PATH_MAX, "%s/../lib/%s", dir, file);
        }
        snprintf(cand[n++], PATH_MAX, "%s", file); /* ld.so's search */
    }
    char first_err[200] = "";
    for (int i = 0; i < n; i++) {
        if (strchr(cand[i], '/') && access(cand[i], F_OK) != 0)
            continue;
        void *h = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            if (!first_err[0] && strchr(cand[i], '/')) /* a file that is there */
                snprintf(first_err, sizeof(first_err), "%s", dlerror());
            continue;
        }
        const void *(*get)(void) = (const void *(*)(void))dlsym(h, symbol);
        const struct shmemu_tl_plugin_head *table = get ? get() : NULL;
        if (!table || table->abi != abi || table->size < min_size) {
            snprintf(why, len,
                     "%.120s is not a shmemu " SHMEMU_VERSION_STRING " %s (ABI %u wanted)",
                     cand[i], what, abi);
            dlclose(h);
            return NULL;
        }
        return table;
    }
    if (first_err[0])
        snprintf(why, len, "the %s does not load: %s", what, first_err);
    else if (env && *env)
        snprintf(why, len, "%s=%.150s: no such file", env_var, env);
    else
        snprintf(why, len, "not built (no %s in %.80s; %s, or set %s)", file,
                 dir[0] ? dir : "an unknown directory", build_hint, env_var);
    return NULL;
}
