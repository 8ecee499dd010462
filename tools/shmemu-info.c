/*
 * shmemu-info - what this build of shmemu offers and what this machine is:
 * version, transports and whether each can run here, settings and their
 * environment variables, and the machine's topology (hwloc).
 *
 *   shmemu-info                          all of it
 *   shmemu-info --oshmem [--parsable]    the OpenSHMEM view, as Open MPI's
 *                                        oshmem_info gives it: versions,
 *                                        wrappers, thread support, limits
 */
#include <ctype.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/config.h"
#include "shmem.h"
#include "transport.h"
#include "shmemu.h"

static int count(hwloc_topology_t t, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(t, type);
    return n > 0 ? n : 0;
}

static void topology(void)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return;
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) != 0) {
        printf("machine: hwloc could not read the topology\n");
        hwloc_topology_destroy(t);
        return;
    }
    printf("machine (hwloc %s):\n", HWLOC_VERSION);
    printf("  packages %d, NUMA nodes %d, cores %d, PUs %d\n", count(t, HWLOC_OBJ_PACKAGE),
           count(t, HWLOC_OBJ_NUMANODE), count(t, HWLOC_OBJ_CORE), count(t, HWLOC_OBJ_PU));
    hwloc_obj_t pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
    const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
    if (model)
        printf("  CPU: %s\n", model);
    for (int i = 0; i < count(t, HWLOC_OBJ_NUMANODE); i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i);
        char cpus[128];
        hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), node->cpuset);
        printf("  NUMA node %u: %llu MiB, PUs %s\n", node->os_index,
               (unsigned long long)(node->attr->numanode.local_memory >> 20), cpus);
    }
    int gpus = 0;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(t, o));) {
        if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU &&
            o->attr->osdev.type != HWLOC_OBJ_OSDEV_COPROC)
            continue;
        hwloc_obj_t pci = hwloc_get_non_io_ancestor_obj(t, o);
        char cpus[128] = "?";
        if (pci && pci->cpuset)
            hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), pci->cpuset);
        printf("  GPU %s%s%s, near PUs %s\n", o->name,
               hwloc_obj_get_info_by_name(o, "GPUModel") ? ": " : "",
               hwloc_obj_get_info_by_name(o, "GPUModel") ? hwloc_obj_get_info_by_name(o, "GPUModel") : "",
               cpus);
        gpus++;
    }
    if (!gpus)
        printf("  GPUs: none found\n");
    hwloc_topology_destroy(t);
}

/* One "key: value" line, keys right-aligned as oshmem_info has them; or
 * "key:value" for scripts. */
static int parsable;

static void kv(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void kv(const char *key, const char *fmt, ...)
{
    char val[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof(val), fmt, ap);
    va_end(ap);
    if (parsable) {
        char k[128];
        size_t j = 0;
        for (const char *c = key; *c && j + 1 < sizeof(k); c++)
            k[j++] = *c == ' ' ? '_' : (char)tolower((unsigned char)*c);
        k[j] = 0;
        printf("%s:%s\n", k, val);
    } else {
        printf("%32s: %s\n", key, val);
    }
}

static void oshmem_view(void)
{
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    kv("Package", "shmemu %s", SHMEMU_VERSION_STRING);
    kv("OpenSHMEM API version", "%d.%d", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    kv("Vendor string", "%s", name);
    kv("C compiler wrapper", "oshcc (CC, default cc)");
    kv("C++ compiler wrapper", "oshc++, oshcxx (CXX, default c++; overloads, C++11)");
    kv("C11 generic interfaces", "yes");
    kv("Fortran bindings", "no");
    kv("Launcher", "oshrun -np N (shmemu-run -t shm)");
    kv("Thread support", "SHMEM_THREAD_MULTIPLE (sim transport: FUNNELED)");
    kv("Contexts", "yes (SHMEM_CTX_PRIVATE, SERIALIZED, NOSTORE accepted)");
    kv("Global and static data", "symmetric on shm (SHMEMU_STATIC)");
    struct shmemu__param_info heap = {0};
    for (int i = 0; i < shmemu__param_count; i++)
        if (strcmp(shmemu__param_table[i].name, "SHMEMU_HEAP_SIZE") == 0)
            heap = shmemu__param_table[i];
    const char *src = shmemu__param_source(&heap);
    const char *v = getenv(src);
    kv("Symmetric heap per PE", "%s (from %s; default %s)", v && *v ? v : heap.dflt,
       v && *v ? src : "default", heap.dflt);
    kv("Largest alignment", "%zu bytes", (size_t)SHMEMU_TL_BASE_ALIGN);
    kv("SHMEM_MAX_NAME_LEN", "%d", SHMEM_MAX_NAME_LEN);
    kv("SHMEM_SYNC_SIZE", "%d", SHMEM_SYNC_SIZE);
    kv("SHMEM_BCAST_SYNC_SIZE", "%d", SHMEM_BCAST_SYNC_SIZE);
    kv("SHMEM_REDUCE_SYNC_SIZE", "%d", SHMEM_REDUCE_SYNC_SIZE);
    kv("SHMEM_REDUCE_MIN_WRKDATA_SIZE", "%d", SHMEM_REDUCE_MIN_WRKDATA_SIZE);
    const char *tname;
    int usable;
    char why[256];
    for (int i = 0; shmemu_transport_info(i, &tname, &usable, why, sizeof(why)) == 0; i++) {
        char key[64];
        snprintf(key, sizeof(key), "Transport %s", tname);
        kv(key, "%s", usable ? "usable" : why);
    }
    const char *vars[] = {"SHMEM_SYMMETRIC_SIZE", "SHMEM_VERSION", "SHMEM_INFO", "SHMEM_DEBUG"};
    for (int i = 0; i < 4; i++) {
        v = getenv(vars[i]);
        kv(vars[i], "%s", v ? v : "(unset)");
    }
}

int main(int argc, char **argv)
{
    int oshmem = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--oshmem") == 0)
            oshmem = 1;
        else if (strcmp(argv[i], "--parsable") == 0)
            parsable = 1;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: shmemu-info [--oshmem [--parsable]]\n");
            return 0;
        } else {
            fprintf(stderr, "shmemu-info: unknown option '%s' (usage: shmemu-info [--oshmem "
                            "[--parsable]])\n", argv[i]);
            return 2;
        }
    }
    if (parsable && !oshmem) {
        fprintf(stderr, "shmemu-info: --parsable goes with --oshmem\n");
        return 2;
    }
    if (oshmem) {
        oshmem_view();
        return 0;
    }
    printf("shmemu %s\n\ntransports (in priority order):\n", SHMEMU_VERSION_STRING);
    const char *name;
    int usable;
    char why[256];
    for (int i = 0; shmemu_transport_info(i, &name, &usable, why, sizeof(why)) == 0; i++)
        printf("  %-6s %s\n", name, usable ? "usable" : why);

    printf("\nsettings (environment variable = value [default]):\n");
    shmemu__params_print(stdout);
    printf("\n");
    topology();
    return 0;
}
