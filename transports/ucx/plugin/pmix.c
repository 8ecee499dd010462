/*
 * pmix.c - joining a job that mpirun started: rank, size, exchange and
 * barrier through PMIx (stubs that say so without libpmix-dev).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include <ucp/api/ucp.h>
#include <ucs/debug/log_def.h>
#ifdef SHMEMU_HAVE_PMIX
#include <pmix.h>
#endif

#include "../plugin.h"
#include "../../common/small_copy.h"
#include "shmemu.h"
#include "internal.h"

/* ------------------------------------------------------------ PMIx */

#ifdef SHMEMU_HAVE_PMIX
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

int pmix_init(struct shmemu_ucx_launch *l, char *why, size_t len)
{
    pmix_status_t rc = PMIx_Init(&self_proc, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(why, len, "PMIx_Init", rc);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, self_proc.nspace, PMIX_RANK_WILDCARD);
    l->rank = (int)self_proc.rank;
    if (get_int(&wild, PMIX_JOB_SIZE, &l->size) != 0) {
        snprintf(why, len, "PMIx_Get(%s): the launcher does not say", PMIX_JOB_SIZE);
        return SHMEMU_ENODEV;
    }
    if (get_int(&wild, PMIX_LOCAL_SIZE, &l->local_size) != 0)
        l->local_size = l->size;
    if (get_int(&wild, PMIX_NUM_NODES, &l->nnodes) != 0)
        l->nnodes = l->local_size == l->size ? 1 : 2;
    return SHMEMU_OK;
}

int pmix_fence(const char *key, const char *value, char *why, size_t len)
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

int pmix_get(int rank, const char *key, char *out, size_t cap, char *why, size_t len)
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

void pmix_fini(void) { (void)PMIx_Finalize(NULL, 0); }

int pmix_abort(int status, const char *msg)
{
    return PMIx_Abort(status, msg, NULL, 0) == PMIX_SUCCESS ? SHMEMU_OK : SHMEMU_EINVAL;
}
#else
static int no_pmix(char *why, size_t len)
{
    snprintf(why, len, "the UCX plugin was built without PMIx (install Debian's libpmix-dev "
                       "and rebuild)");
    return SHMEMU_ENODEV;
}
int pmix_init(struct shmemu_ucx_launch *l, char *why, size_t len)
{
    (void)l;
    return no_pmix(why, len);
}
int pmix_fence(const char *key, const char *value, char *why, size_t len)
{
    (void)key, (void)value;
    return no_pmix(why, len);
}
int pmix_get(int rank, const char *key, char *out, size_t cap, char *why, size_t len)
{
    (void)rank, (void)key, (void)out, (void)cap;
    return no_pmix(why, len);
}
void pmix_fini(void) {}
int pmix_abort(int status, const char *msg)
{
    (void)status, (void)msg;
    return SHMEMU_ENODEV;
}
#endif
