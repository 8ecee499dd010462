/*
 * shmemu-info - what this build of shmemu offers and what this machine is:
 * version, transports and whether each can run here, settings and their
 * environment variables, and the machine's topology (hwloc).
 */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/config.h"
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

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: shmemu-info\n");
        return 2;
    }
    printf("shmemu %s\n\ntransports (in priority order):\n", SHMEMU_VERSION_STRING);
    const char *name;
    int usable;
    char why[256];
    for (int i = 0; shmemu_transport_info(i, &name, &usable, why, sizeof(why)) == 0; i++)
        printf("  %-6s %s\n", name, usable ? "usable" : why);

    printf("\nsettings (environment variable = value [default]):\n");
    for (int i = 0; i < shmemu__param_count; i++) {
        const struct shmemu__param_info *p = &shmemu__param_table[i];
        const char *v = getenv(p->name);
        printf("  %-18s = %-8s [%s]\n      %s\n", p->name, v && *v ? v : p->dflt, p->dflt,
               p->help);
    }
    printf("\n");
    topology();
    return 0;
}
