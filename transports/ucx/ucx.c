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

/* ------------------------------------------- a job of a launcher's (mpirun) */

/* Where the control plane runs: in a segment every process of the job maps
 * (one node), or over UCX on each process's own copy (several nodes; also
 * on one when SHMEMU_UCX_CONTROL=network, which is how the network plane is
 * tested without a second host). */
static int network_control(const struct shmemu_tl_job *job, char *why, size_t len)
{
    const char *v = getenv("SHMEMU_UCX_CONTROL");
    if (!v || !*v || !strcmp(v, "auto"))
        return job->nnodes > 1;
    if (!strcmp(v, "network"))
        return 1;
    if (!strcmp(v, "shared")) {
        if (job->nnodes > 1) {
            snprintf(why, len,
                     "SHMEMU_UCX_CONTROL=shared, but the job spans %d nodes, which share "
                     "no memory",
                     job->nnodes);
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

/* A job over several nodes: each process opens its PE here (UCX context,
 * worker, heap) with room after the heap for its copy of the control area,
 * lays the copy out, and connects to every peer from the blobs all
 * exchanged through the bootstrap; the core then runs its control plane
 * over UCX (src/ctl/net.c).  Every exchange and barrier is passed by every
 * process, failed or not (a failed one publishes zeros), so that a failure
 * ends the job through the launcher instead of hanging it. */
static int net_join(struct shmemu_tl_job *job, int pe, const struct shmemu_ucx_plugin *pl)
{
    struct ucx_job *uj = job->priv;
    size_t ctl_bytes = (job->ctl_size + 4095) & ~(size_t)4095;
    unsigned char *blob = calloc(1, BLOB_BYTES), *all = calloc((size_t)job->npes, BLOB_BYTES);
    char why[200] = "";
    void *heap = NULL;
    int st = blob && all ? SHMEMU_OK : SHMEMU_ENOMEM, fst;
    static const unsigned char none[BLOB_BYTES];
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
    if (blob && st != SHMEMU_OK)
        memset(blob, 0, BLOB_BYTES);
    fst = all ? job->calls->boot_allgather(job, blob ? blob : none, all, BLOB_BYTES, why,
                                           sizeof(why))
              : job->calls->boot_barrier(job, why, sizeof(why));
    for (int p = 0; p < job->npes && st == SHMEMU_OK && fst == SHMEMU_OK; p++) {
        const unsigned char *b = all + (size_t)p * BLOB_BYTES;
        if (!memcmp(b, none, BLOB_BYTES)) {
            snprintf(why, sizeof(why), "PE %d published no ucx address", p);
            st = SHMEMU_EABORTED;
        } else {
            st = pl->connect(uj->self, p, b, BLOB_BYTES, why, sizeof(why));
        }
    }
    if (st == SHMEMU_OK && fst == SHMEMU_OK)
        st = pl->start(uj->self, why, sizeof(why));
    /* Every PE serves its heap before anyone reaches it. */
    if (fst == SHMEMU_OK)
        fst = job->calls->boot_barrier(job, why, sizeof(why));
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
    free(all);
    return st;
}

/* PE 0 makes the control segment and hands its name to the others through
 * the bootstrap; they open it; once all have, PE 0 unlinks the name.  The
 * exchange and the barrier are passed by every process, failed or not, so
 * that no one waits for a PE that gave up: the failure then ends the job
 * through the launcher. */
#define NAME_BYTES 128
static int ucx_job_join(struct shmemu_tl_job *job, int pe)
{
    struct ucx_job *uj = job->priv;
    const struct shmemu_ucx_plugin *pl = load_plugin(job->why, sizeof(job->why));
    char name[NAME_BYTES] = "", why[200] = "";
    char *names = calloc((size_t)job->npes, NAME_BYTES);
    int st = names ? SHMEMU_OK : SHMEMU_ENOMEM, fst;
    int net = network_control(job, why, sizeof(why));
    if (net < 0) {
        shmemu_tl_say(job, "%s", why);
        free(names);
        return SHMEMU_EINVAL;
    }
    if (net) {
        free(names);
        return net_join(job, pe, pl);
    }
    uj->seg.no_heaps = 1;
    if (pe == 0 && st == SHMEMU_OK) {
        st = shmemu_shm_seg_create_named(job, &uj->seg, name, sizeof(name));
        if (st == SHMEMU_OK)
            job->calls->ctl_init(job);
        else
            name[0] = '\0';
    }
    fst = names ? job->calls->boot_allgather(job, name, names, NAME_BYTES, why, sizeof(why))
                : job->calls->boot_barrier(job, why, sizeof(why));
    if (pe != 0 && fst == SHMEMU_OK && st == SHMEMU_OK) {
        if (!names[0] || memchr(names, '\0', NAME_BYTES) == NULL) {
            shmemu_tl_say(job, "PE 0 could not make the job's control area");
            st = SHMEMU_EABORTED;
        } else {
            st = shmemu_shm_seg_open_named(job, &uj->seg, pe, names);
        }
    }
    if (fst == SHMEMU_OK)
        fst = job->calls->boot_barrier(job, why, sizeof(why));
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
    free(names);
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
    .job_join = ucx_job_join,
    .ctl_flush = ucx_ctl_flush,
};
