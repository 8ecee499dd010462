/*
 * ucx.c - the `ucx` transport: every PE is a process whose heap is reached
 * by its peers through UCX (one-sided put/get, atomics, flush and fence over
 * shared memory, TCP or RDMA, as UCX picks or UCX_TLS says).
 *
 * This file is plain host code and links nothing of UCX.  Every UCP call
 * sits in the plugin libshmemu-ucx.so (plugin.h), opened with dlopen in the
 * processes that run PEs, so the core keeps no dependency on UCX.
 *
 *  - control (syncs, notify words, aborts, deadlock detection) lives in a
 *    shared host segment, as on `shm` and `cuda` (shm.h, no_heaps): every PE
 *    of a job runs on this node for now (see README.md);
 *  - a PE allocates and registers its heap in pe_enter, publishes its
 *    worker address and heap key in wireup_publish and connects to every
 *    peer in wireup_connect;
 *  - the heap is this process's memory, so the core loads its own words
 *    (waits) directly; a peer's heap is load/store only where UCX maps it
 *    here (shmemu_ptr), and every access to it goes through UCX.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/plugin.h"
#include "../common/runners.h"
#include "../common/say.h"
#include "../common/mapped.h"
#include "../common/segment.h"
#include "plugin.h"
#include "shmemu.h"

#define PLUGIN_ENV "SHMEMU_UCX_PLUGIN"
/* What a PE publishes: a header, its worker's address (a few hundred bytes
 * per network device UCX found) and its heap's packed key. */
#define BLOB_BYTES 4096

struct ucx_job {
    struct shmemu_shm_seg seg;
    int net; /* the control area is per process (several nodes): see net_join */
    const struct shmemu_ucx_plugin *pl; /* in a PE's process, after pe_enter */
    struct shmemu_ucx_pe *self;         /* this process's PE */
    int pe;
    int pmix; /* joined through PMIx (a job of the launcher's): ucx_job_join */
};

static const struct shmemu_ucx_plugin *load_plugin(char *why, size_t len)
{
    static const struct shmemu_ucx_plugin *loaded;
    if (loaded)
        return loaded;
    return loaded = shmemu_tl_plugin_open(
               SHMEMU_UCX_PLUGIN_FILE, SHMEMU_UCX_PLUGIN_SYMBOL, SHMEMU_UCX_PLUGIN_ABI,
               sizeof(struct shmemu_ucx_plugin), PLUGIN_ENV, "UCX plugin",
               "build where UCX's headers are found: Debian's libucx-dev", why, len);
}

/* Usable where the plugin loads (UCX's libraries are there).  UCX itself
 * starts only in PE processes: a context made here would not survive the
 * fork that starts them. */
static int ucx_probe(char *why, size_t len)
{
    return load_plugin(why, len) ? SHMEMU_OK : SHMEMU_ENODEV;
}

/* ------------------------------------------------------------- lifecycle */

static int ucx_job_create(struct shmemu_tl_job *job)
{
    struct ucx_job *uj = job->priv;
    uj->seg.no_heaps = 1;
    return shmemu_shm_seg_create(job, &uj->seg);
}

static int ucx_job_attach(struct shmemu_tl_job *job, int pe)
{
    struct ucx_job *uj = job->priv;
    uj->seg.no_heaps = 1;
    return shmemu_shm_seg_attach(job, &uj->seg, pe);
}

/* ----------------------------------------------------- mpirun (PMIx) */

/* This process as its PMIx launcher described it (job_launched).  It stays
 * a PMIx client until it exits, whatever number of jobs it joins in turn
 * (init, finalize, init again, as a test harness does): a finalize and
 * re-init of PMIx between two jobs raced with the peers' fence of the next
 * job, which the server then failed with PARTIAL SUCCESS.  Each job's
 * keys carry its number in this process's sequence of joins, the same in
 * every process, so that no job reads the values of the one before. */
static struct shmemu_ucx_launch launch;
static int launched;
static unsigned joins;
static pid_t pmix_pid; /* the process that is the client: a forked child is not */

static void pmix_at_exit(void)
{
    char why[64];
    if (getpid() == pmix_pid)
        load_plugin(why, sizeof(why))->pmix_fini();
}

static int ucx_job_launched(int *npes_p, int *pe_p, char *why, size_t len)
{
    if (!getenv("PMIX_RANK") || !getenv("PMIX_NAMESPACE"))
        return 0;
    if (launched && getpid() != pmix_pid) {
        /* A fork shares its parent's connection to the PMIx server: the
         * server would take it for the parent, and the job's fences would
         * wait for a process that never comes (a hang, not an error). */
        snprintf(why, len,
                 "this process (pid %d) is a fork of pid %d, rank %d of the launcher's job, "
                 "and not itself a rank of it: only the processes the launcher started join "
                 "(exec a program to start anew, or unset PMIX_RANK for a job of its own)",
                 (int)getpid(), (int)pmix_pid, launch.rank);
        return SHMEMU_ENOTSUP;
    }
    const struct shmemu_ucx_plugin *pl = load_plugin(why, len);
    if (!pl)
        return SHMEMU_ENODEV;
    int st = launched ? SHMEMU_OK : pl->pmix_init(&launch, why, len);
    if (st != SHMEMU_OK)
        return st;
    if (!launched) {
        pmix_pid = getpid();
        atexit(pmix_at_exit);
    }
    launched = 1;
    *npes_p = launch.size;
    *pe_p = launch.rank;
    return 1;
}

/* Where the control plane runs: in a segment every process of the job maps
 * (one node), or over UCX on each process's own copy (several nodes; also
 * on one when SHMEMU_UCX_CONTROL=network, which is how the network plane is
 * tested without a second host). */
static int network_control(char *why, size_t len)
{
    const char *v = getenv("SHMEMU_UCX_CONTROL");
    if (!v || !*v || !strcmp(v, "auto"))
        return launch.nnodes > 1;
    if (!strcmp(v, "network"))
        return 1;
    if (!strcmp(v, "shared")) {
        if (launch.nnodes > 1) {
            snprintf(why, len,
                     "SHMEMU_UCX_CONTROL=shared, but the job spans %d nodes, which share "
                     "no memory",
                     launch.nnodes);
            return -1;
        }
        return 0;
    }
    snprintf(why, len, "SHMEMU_UCX_CONTROL=%s: expected auto, shared or network", v);
    return -1;
}

static int job_gone(void *arg)
{
    struct shmemu_tl_job *job = arg;
    return job->calls->aborted && job->calls->aborted(job);
}

/* Blobs travel through PMIx as hex strings, trailing zero bytes left out. */
#define WIRE_KEY "shmemu.wire.%u"
static void hex_encode(const unsigned char *b, size_t n, char *out)
{
    while (n > 0 && b[n - 1] == 0)
        n--;
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = '\0';
}

static int hex_decode(const char *s, unsigned char *b, size_t cap)
{
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap)
        return -1;
    memset(b, 0, cap);
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        b[i] = (unsigned char)v;
    }
    return 0;
}

/* A job over several nodes: each process opens its PE here (UCX context,
 * worker, heap) with room after the heap for its copy of the control area,
 * lays the copy out, and connects to every peer from the blobs all
 * published through PMIx; the core then runs its control plane over UCX
 * (src/ctl/net.c).  Every fence is passed by every process, failed or not,
 * so that a failure ends the job through mpirun instead of hanging it. */
static int net_join(struct shmemu_tl_job *job, int pe, const struct shmemu_ucx_plugin *pl,
                    unsigned seq)
{
    struct ucx_job *uj = job->priv;
    size_t ctl_bytes = (job->ctl_size + 4095) & ~(size_t)4095;
    unsigned char *blob = calloc(2, BLOB_BYTES);
    char *hex = malloc(2 * BLOB_BYTES + 1), why[200] = "", key[48];
    snprintf(key, sizeof(key), WIRE_KEY, seq);
    void *heap = NULL;
    int st = blob && hex ? SHMEMU_OK : SHMEMU_ENOMEM, fst;
    uj->net = 1;
    uj->pe = pe;
    uj->pl = pl;
    if (st == SHMEMU_OK)
        st = pl->pe_open(pe, job->npes, job->heap_size + ctl_bytes, job_gone, job, &uj->self,
                         &heap, why, sizeof(why));
    if (st == SHMEMU_OK) {
        job->ctl = (char *)heap + job->heap_size;
        job->ctl_off = job->heap_size;
        job->ctl_remote = 1;
        job->heap_base[pe] = heap;
        job->calls->ctl_init(job);
        st = pl->publish(uj->self, blob, BLOB_BYTES, why, sizeof(why));
    }
    if (hex)
        hex_encode(blob ? blob : (const unsigned char *)"", st == SHMEMU_OK ? BLOB_BYTES : 0,
                   hex);
    fst = pl->pmix_fence(key, hex ? hex : "", why, sizeof(why));
    for (int p = 0; p < job->npes && st == SHMEMU_OK && fst == SHMEMU_OK; p++) {
        if ((fst = pl->pmix_get(p, key, hex, 2 * BLOB_BYTES + 1, why, sizeof(why))))
            break;
        if (!hex[0] || hex_decode(hex, blob + BLOB_BYTES, BLOB_BYTES)) {
            snprintf(why, sizeof(why), "PE %d published no ucx address", p);
            st = SHMEMU_EABORTED;
        } else {
            st = pl->connect(uj->self, p, blob + BLOB_BYTES, BLOB_BYTES, why, sizeof(why));
        }
    }
    if (st == SHMEMU_OK && fst == SHMEMU_OK)
        st = pl->start(uj->self, why, sizeof(why));
    /* Every PE serves its heap before anyone reaches it. */
    if (fst == SHMEMU_OK)
        fst = pl->pmix_fence(NULL, NULL, why, sizeof(why));
    if (st == SHMEMU_OK)
        st = fst;
    if (st != SHMEMU_OK) {
        shmemu_tl_say(job, "PE %d: %s", pe, why);
        if (uj->self)
            pl->pe_close(uj->self);
        uj->self = NULL;
        job->ctl = NULL;
    }
    free(blob);
    free(hex);
    return st;
}

/* PE 0 makes the control segment and hands its name over PMIx; the others
 * open it; once all have, PE 0 unlinks the name.  Both fences are passed by
 * every process, failed or not, so that no one waits for a PE that gave
 * up: the failure then ends the job through mpirun. */
#define CTL_KEY "shmemu.ctl.%u"
static int ucx_job_join(struct shmemu_tl_job *job, int pe)
{
    struct ucx_job *uj = job->priv;
    const struct shmemu_ucx_plugin *pl = load_plugin(job->why, sizeof(job->why));
    char name[128] = "", why[200] = "", key[48];
    int st = SHMEMU_OK, fst;
    unsigned seq = joins++;
    uj->pmix = 1;
    snprintf(key, sizeof(key), CTL_KEY, seq);
    int net = network_control(why, sizeof(why));
    if (net < 0) {
        shmemu_tl_say(job, "%s", why);
        return SHMEMU_EINVAL;
    }
    if (net)
        return net_join(job, pe, pl, seq);
    uj->seg.no_heaps = 1;
    if (pe == 0) {
        st = shmemu_shm_seg_create_named(job, &uj->seg, name, sizeof(name));
        if (st == SHMEMU_OK)
            job->calls->ctl_init(job);
        fst = pl->pmix_fence(key, st == SHMEMU_OK ? name : "", why, sizeof(why));
    } else {
        fst = pl->pmix_fence(NULL, NULL, why, sizeof(why));
        if (fst == SHMEMU_OK)
            fst = pl->pmix_get(0, key, name, sizeof(name), why, sizeof(why));
        if (fst == SHMEMU_OK && !name[0]) {
            shmemu_tl_say(job, "PE 0 could not make the job's control area");
            st = SHMEMU_EABORTED;
        } else if (fst == SHMEMU_OK) {
            st = shmemu_shm_seg_open_named(job, &uj->seg, pe, name);
        }
    }
    if (fst == SHMEMU_OK)
        fst = pl->pmix_fence(NULL, NULL, why, sizeof(why));
    if (pe == 0 && name[0])
        shm_unlink(name);
    if (fst != SHMEMU_OK && st == SHMEMU_OK) {
        shmemu_tl_say(job, "%s", why);
        st = fst;
    }
    if (st != SHMEMU_OK && job->ctl) {
        shmemu_shm_seg_destroy(job, &uj->seg);
        job->ctl = NULL;
    }
    return st;
}

static int ucx_pe_export(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    return shmemu_shm_seg_export(job, &((struct ucx_job *)job->priv)->seg);
}

static void ucx_job_destroy(struct shmemu_tl_job *job)
{
    struct ucx_job *uj = job->priv;
    if (uj->self)
        uj->pl->pe_close(uj->self);
    uj->self = NULL;
    if (!uj->net)
        shmemu_shm_seg_destroy(job, &uj->seg);
}

/* mpirun ends the other processes itself, with the status as its own:
 * PEs that ended without a word to it would make it report them. */
static int ucx_job_exit(struct shmemu_tl_job *job, int status, const char *msg)
{
    if (!((struct ucx_job *)job->priv)->pmix)
        return SHMEMU_ENOTSUP;
    return load_plugin(job->why, sizeof(job->why))->pmix_abort(status, msg);
}

static int ucx_pe_enter(struct shmemu_tl_job *job, int pe)
{
    struct ucx_job *uj = job->priv;
    char why[200] = "";
    uj->pe = pe;
    if (uj->net) { /* opened and connected in net_join */
        if (job->arrival_word && uj->self)
            uj->pl->set_arrival(uj->self, job->arrival_word);
        return SHMEMU_OK;
    }
    if (!(uj->pl = load_plugin(why, sizeof(why)))) {
        shmemu_tl_say(job, "PE %d: %s", pe, why);
        return SHMEMU_ENODEV;
    }
    void *heap;
    int st = uj->pl->pe_open(pe, job->npes, job->heap_size, job_gone, job, &uj->self, &heap,
                             why, sizeof(why));
    if (st != SHMEMU_OK) {
        shmemu_tl_say(job, "PE %d: %s", pe, why);
        return st;
    }
    job->heap_base[pe] = heap;
    return SHMEMU_OK;
}

static int ucx_publish(struct shmemu_tl_job *job, int pe, void *out)
{
    struct ucx_job *uj = job->priv;
    char why[200];
    if (uj->net) /* wired up through PMIx in net_join */
        return SHMEMU_OK;
    int st = uj->pl->publish(uj->self, out, BLOB_BYTES, why, sizeof(why));
    if (st != SHMEMU_OK)
        shmemu_tl_say(job, "PE %d: %s", pe, why);
    return st;
}

static int ucx_connect(struct shmemu_tl_job *job, int pe, const void *const *blobs)
{
    struct ucx_job *uj = job->priv;
    char why[200];
    if (uj->net)
        return SHMEMU_OK;
    for (int p = 0; p < job->npes; p++) {
        int st = uj->pl->connect(uj->self, p, blobs[p], BLOB_BYTES, why, sizeof(why));
        if (st != SHMEMU_OK) {
            shmemu_tl_say(job, "PE %d connecting to PE %d: %s", pe, p, why);
            return st;
        }
    }
    int st = uj->pl->start(uj->self, why, sizeof(why));
    if (st != SHMEMU_OK)
        shmemu_tl_say(job, "PE %d: %s", pe, why);
    return st;
}

/* ------------------------------------------------------------- data path */

/* A plugin call's status, its reason said when it failed. */
static int failed(struct shmemu_tl_job *job, int st, const char *why)
{
    if (st < 0)
        shmemu_tl_say(job, "on PE %d: %s", ((struct ucx_job *)job->priv)->pe, why);
    return st;
}

static int ucx_rma(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d)
{
    struct ucx_job *uj = job->priv;
    char why[200];
    return failed(job, uj->pl->rma(uj->self, d, why, sizeof(why)), why);
}

static int ucx_amo(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d)
{
    struct ucx_job *uj = job->priv;
    char why[200];
    return failed(job, uj->pl->amo(uj->self, d, why, sizeof(why)), why);
}

static void *ucx_ptr(struct shmemu_tl_job *job, int pe, size_t off)
{
    struct ucx_job *uj = job->priv;
    if (pe == uj->pe)
        return job->heap_base[pe] + off;
    return uj->self ? uj->pl->peer_ptr(uj->self, pe, off) : NULL;
}

static int ucx_quiet(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    struct ucx_job *uj = job->priv;
    char why[200];
    return failed(job, uj->pl->quiet(uj->self, why, sizeof(why)), why);
}

static int ucx_ctl_flush(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    struct ucx_job *uj = job->priv;
    char why[200];
    return failed(job, uj->pl->flush(uj->self, why, sizeof(why)), why);
}

static int ucx_fence(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    struct ucx_job *uj = job->priv;
    char why[200];
    return failed(job, uj->pl->fence(uj->self, why, sizeof(why)), why);
}

/* The core's sleep: the serving thread takes over the worker first (it
 * keeps off while this PE drives it). */
static void ucx_ctl_wait(struct shmemu_tl_job *job, uint32_t *word, uint32_t expected,
                         int64_t timeout_ns)
{
    struct ucx_job *uj = job->priv;
    if (uj->self)
        uj->pl->idle(uj->self);
    shmemu_mapped_wait_shared(job, word, expected, timeout_ns);
}

static int ucx_progress(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    struct ucx_job *uj = job->priv;
    return uj->pl->progress(uj->self);
}

static int ucx_alias(struct shmemu_tl_job *job, int pe, size_t off, void *addr, size_t len)
{
    (void)pe;
    struct ucx_job *uj = job->priv;
    char why[200];
    return failed(job, uj->pl->alias(uj->self, off, addr, len, why, sizeof(why)), why);
}

const struct shmemu_transport_ops shmemu_ucx_ops = {
    .size = sizeof(struct shmemu_transport_ops),
    .name = "ucx",
    /* LOAD_STORE: a PE's own heap is its memory (the core's waits load it);
     * ptr() gives a peer's only where UCX maps it, NULL otherwise. */
    .caps = SHMEMU_TL_CAP_LOAD_STORE | SHMEMU_TL_CAP_SHARED_CTL | SHMEMU_TL_CAP_PROCESSES |
            SHMEMU_TL_CAP_SPMD | SHMEMU_TL_CAP_NBI | SHMEMU_TL_CAP_PROGRESS |
            SHMEMU_TL_CAP_OWN_HEAPS,
    .job_priv_size = sizeof(struct ucx_job),
    .probe = ucx_probe,
    .job_create = ucx_job_create,
    .job_run = shmemu_tl_run_procs,
    .job_destroy = ucx_job_destroy,
    .job_attach = ucx_job_attach,
    .pe_enter = ucx_pe_enter,
    .rma = ucx_rma,
    .amo = ucx_amo,
    .ptr = ucx_ptr,
    .quiet = ucx_quiet,
    .fence = ucx_fence,
    .ctl_wait = ucx_ctl_wait,
    .ctl_wake = shmemu_mapped_wake_shared,
    .pe_export = ucx_pe_export,
    .blob_size = BLOB_BYTES,
    .wireup_publish = ucx_publish,
    .wireup_connect = ucx_connect,
    .progress = ucx_progress,
    .alias = ucx_alias,
    .job_launched = ucx_job_launched,
    .job_join = ucx_job_join,
    .job_exit = ucx_job_exit,
    .ctl_flush = ucx_ctl_flush,
};
