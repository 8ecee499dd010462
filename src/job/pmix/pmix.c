/*
 * pmix.c - the PMIx bootstrap (libshmemu-pmix.so): rank, size, exchange,
 * barrier and abort of a job that mpirun (or any PMIx launcher) started.
 */
#include <pmix.h>
#include <stdio.h>
#include <string.h>

#include "../boot_pmix.h"
#include "shmemu.h"

static pmix_proc_t self_proc;

static int pmix_fail(char *why, size_t len, const char *call, pmix_status_t rc)
{
    snprintf(why, len, "%s: %s", call, PMIx_Error_string(rc));
    return SHMEMU_ENODEV;
}

/* An integer job attribute of proc, whatever width the server gives it. */
static int get_int(const pmix_proc_t *proc, const char *key, int *out)
{
    pmix_value_t *v;
    if (PMIx_Get(proc, key, NULL, 0, &v) != PMIX_SUCCESS)
        return -1;
    int ok = 0;
    switch (v->type) {
    case PMIX_UINT32: *out = (int)v->data.uint32; break;
    case PMIX_UINT16: *out = (int)v->data.uint16; break;
    case PMIX_INT: *out = v->data.integer; break;
    case PMIX_UINT: *out = (int)v->data.uint; break;
    case PMIX_INT32: *out = (int)v->data.int32; break;
    default: ok = -1;
    }
    PMIX_VALUE_RELEASE(v);
    return ok;
}

static int pmix_init(int *rank, int *size, int *nnodes, char *why, size_t len)
{
    pmix_status_t rc = PMIx_Init(&self_proc, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(why, len, "PMIx_Init", rc);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, self_proc.nspace, PMIX_RANK_WILDCARD);
    int local;
    *rank = (int)self_proc.rank;
    if (get_int(&wild, PMIX_JOB_SIZE, size) != 0) {
        snprintf(why, len, "PMIx_Get(%s): the launcher does not say", PMIX_JOB_SIZE);
        return SHMEMU_ENODEV;
    }
    if (get_int(&wild, PMIX_LOCAL_SIZE, &local) != 0)
        local = *size;
    if (get_int(&wild, PMIX_NUM_NODES, nnodes) != 0)
        *nnodes = local == *size ? 1 : 2;
    return SHMEMU_OK;
}

static int pmix_fence(const char *key, const char *value, char *why, size_t len)
{
    pmix_status_t rc;
    if (key) {
        pmix_value_t v;
        PMIX_VALUE_LOAD(&v, value, PMIX_STRING);
        rc = PMIx_Put(PMIX_GLOBAL, key, &v); /* every node: peers may be anywhere */
        PMIX_VALUE_DESTRUCT(&v);
        if (rc != PMIX_SUCCESS)
            return pmix_fail(why, len, "PMIx_Put", rc);
        if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
            return pmix_fail(why, len, "PMIx_Commit", rc);
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, self_proc.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc == PMIX_SUCCESS ? SHMEMU_OK : pmix_fail(why, len, "PMIx_Fence", rc);
}

static int pmix_get(int rank, const char *key, char *out, size_t cap, char *why, size_t len)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, self_proc.nspace, (pmix_rank_t)rank);
    pmix_value_t *v;
    pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(why, len, "PMIx_Get", rc);
    int st = SHMEMU_OK;
    if (v->type != PMIX_STRING || !v->data.string || strlen(v->data.string) >= cap) {
        snprintf(why, len, "PMIx_Get(%s) of process %d: not a string of under %zu bytes", key,
                 rank, cap);
        st = SHMEMU_EINVAL;
    } else {
        strcpy(out, v->data.string);
    }
    PMIX_VALUE_RELEASE(v);
    return st;
}

static void pmix_fini(void) { (void)PMIx_Finalize(NULL, 0); }

static int pmix_abort(int status, const char *msg)
{
    return PMIx_Abort(status, msg, NULL, 0) == PMIX_SUCCESS ? SHMEMU_OK : SHMEMU_EINVAL;
}
static const struct shmemu_pmix_plugin plugin = {
    .head = {sizeof(struct shmemu_pmix_plugin), SHMEMU_PMIX_PLUGIN_ABI},
    .init = pmix_init,
    .fence = pmix_fence,
    .get = pmix_get,
    .abort = pmix_abort,
    .fini = pmix_fini,
};

const struct shmemu_pmix_plugin *shmemu_pmix_plugin(void) __attribute__((visibility("default")));
const struct shmemu_pmix_plugin *shmemu_pmix_plugin(void) { return &plugin; }
