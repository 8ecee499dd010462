/*
 * cuda.c - the `cuda` transport: every PE is a process with its heap in GPU
 * memory; peers' heaps are mapped with CUDA IPC.
 *
 * This file is plain host code and links nothing of CUDA.  Everything that
 * calls CUDA sits in the plugin libshmemu-cuda.so (plugin.h), opened with
 * dlopen only in the processes that run PEs.  The launching process never
 * initialises CUDA (a CUDA context does not survive fork): its probe runs
 * the plugin in a short-lived child.
 *
 *  - control (syncs, notify words, aborts, deadlock detection) lives in a
 *    shared host segment, as on `shm` (shm.h, no_heaps);
 *  - a PE allocates its heap in pe_enter, exports it in wireup_publish and
 *    maps its peers' in wireup_connect: heap_base[] holds device addresses;
 *  - rma, signals, atomics and local compute are stream-ordered work on the
 *    PE's stream; quiet completes the stream; one stream per PE keeps the
 *    per-PE order fence asks for.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/mapped.h"
#include "../common/plugin.h"
#include "../common/runners.h"
#include "../common/say.h"
#include "../common/segment.h"
#include "plugin.h"
#include "shmemu.h"

#define BLOB_MAGIC 0x6375646131ull /* "cuda1" */
#define DEVICE_ENV "SHMEMU_CUDA_DEVICE"
#define PLUGIN_ENV "SHMEMU_CUDA_PLUGIN"

struct blob {
    uint64_t magic;
    uint64_t heap_size;
    int32_t device;
    int32_t pad;
    unsigned char handle[SHMEMU_CUDA_HANDLE_BYTES];
};

struct cuda_job {
    struct shmemu_shm_seg seg;
    const struct shmemu_cuda_plugin *pl; /* in a PE's process, after pe_enter */
    struct shmemu_cuda_pe *dev;          /* this process's PE */
    int pe;
};

/* ------------------------------------------------------------ the plugin */

static const struct shmemu_cuda_plugin *load_plugin(char *why, size_t len)
{
    static const struct shmemu_cuda_plugin *loaded;
    if (loaded)
        return loaded;
    return loaded = shmemu_tl_plugin_open(
               SHMEMU_CUDA_PLUGIN_FILE, SHMEMU_CUDA_PLUGIN_SYMBOL, SHMEMU_CUDA_PLUGIN_ABI,
               sizeof(struct shmemu_cuda_plugin), PLUGIN_ENV, "CUDA plugin",
               "build where nvcc is found", why, len);
}

/* ----------------------------------------------------------------- probe */

struct probe_result {
    int status;
    int ndev;
    char why[200];
};

/* Run the plugin's probe in a child: CUDA initialised here would be lost to
 * (and break) the PE processes forked later. */
static void probe_in_child(struct probe_result *r)
{
    int fd[2];
    if (pipe(fd) != 0) {
        *r = (struct probe_result){SHMEMU_ENODEV, 0, ""};
        snprintf(r->why, sizeof(r->why), "pipe failed: %s", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        struct probe_result c = {SHMEMU_ENODEV, 0, ""};
        close(fd[0]);
        const struct shmemu_cuda_plugin *pl = load_plugin(c.why, sizeof(c.why));
        if (pl)
            c.status = pl->probe(&c.ndev, c.why, sizeof(c.why));
        if (write(fd[1], &c, sizeof(c)) != (ssize_t)sizeof(c))
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    *r = (struct probe_result){SHMEMU_ENODEV, 0, ""};
    if (pid < 0) {
        snprintf(r->why, sizeof(r->why), "fork failed: %s", strerror(errno));
        close(fd[0]);
        return;
    }
    /* Initialising a driver can take seconds; a wedged one must not hang
     * every job that merely asks which transports exist. */
    struct pollfd p = {fd[0], POLLIN, 0};
    int got = 0;
    if (poll(&p, 1, 60000) == 1)
        got = read(fd[0], r, sizeof(*r)) == (ssize_t)sizeof(*r);
    if (!got) {
        kill(pid, SIGKILL);
        *r = (struct probe_result){SHMEMU_ENODEV, 0, ""};
        snprintf(r->why, sizeof(r->why), "the CUDA probe did not answer within 60 s");
    }
    close(fd[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

static struct probe_result probed;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void probe_once_fn(void)
{
    probe_in_child(&probed);
    probed.why[sizeof(probed.why) - 1] = '\0';
}

static int cuda_probe(char *why, size_t len)
{
    pthread_once(&probe_once, probe_once_fn);
    if (probed.status == SHMEMU_OK && probed.ndev < 1) {
        probed.status = SHMEMU_ENODEV;
        snprintf(probed.why, sizeof(probed.why), "no device (none visible)");
    }
    if (probed.status != SHMEMU_OK)
        snprintf(why, len, "%s", probed.why);
    return probed.status == SHMEMU_OK ? SHMEMU_OK : SHMEMU_ENODEV;
}

/* ------------------------------------------------------------- lifecycle */

static int cuda_job_create(struct shmemu_tl_job *job)
{
    struct cuda_job *cj = job->priv;
    cj->seg.no_heaps = 1;
    return shmemu_shm_seg_create(job, &cj->seg);
}

static int cuda_job_attach(struct shmemu_tl_job *job, int pe)
{
    struct cuda_job *cj = job->priv;
    cj->seg.no_heaps = 1;
    return shmemu_shm_seg_attach(job, &cj->seg, pe);
}

static int cuda_pe_export(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    return shmemu_shm_seg_export(job, &((struct cuda_job *)job->priv)->seg);
}

static void cuda_job_destroy(struct shmemu_tl_job *job)
{
    struct cuda_job *cj = job->priv;
    if (cj->dev)
        cj->pl->pe_close(cj->dev);
    cj->dev = NULL;
    shmemu_shm_seg_destroy(job, &cj->seg);
}

/* The device of PE pe: SHMEMU_CUDA_DEVICE (one number for every PE, or a
 * comma-separated list indexed by PE), else its node-local rank (every PE
 * of a job is on this node) modulo the devices visible. */
static int pick_device(struct shmemu_tl_job *job, int pe, int ndev, int *dev_p)
{
    const char *env = getenv(DEVICE_ENV);
    if (!env || !*env) {
        *dev_p = pe % ndev;
        return SHMEMU_OK;
    }
    int count = 1;
    for (const char *c = env; *c; c++)
        count += *c == ',';
    const char *s = env;
    for (int i = 0; i < pe % count; i++)
        s = strchr(s, ',') + 1;
    char *end;
    long d = strtol(s, &end, 10);
    if (end == s || (*end && *end != ',') || d < 0 || d >= ndev) {
        shmemu_tl_say(job, "PE %d: %s='%s' does not name a device for it (%d visible: 0..%d)", pe,
            DEVICE_ENV, env, ndev, ndev - 1);
        return SHMEMU_EINVAL;
    }
    *dev_p = (int)d;
    return SHMEMU_OK;
}

static int cuda_pe_enter(struct shmemu_tl_job *job, int pe)
{
    struct cuda_job *cj = job->priv;
    char why[200] = "";
    int ndev = 0, dev, st;
    cj->pe = pe;
    if (!(cj->pl = load_plugin(why, sizeof(why)))) {
        shmemu_tl_say(job, "PE %d: %s", pe, why);
        return SHMEMU_ENODEV;
    }
    if ((st = cj->pl->probe(&ndev, why, sizeof(why))) != SHMEMU_OK) {
        shmemu_tl_say(job, "PE %d: %s", pe, why);
        return st;
    }
    if ((st = pick_device(job, pe, ndev, &dev)) != SHMEMU_OK)
        return st;
    void *heap;
    if ((st = cj->pl->pe_open(dev, job->heap_size, &cj->dev, &heap, why, sizeof(why))) !=
        SHMEMU_OK) {
        shmemu_tl_say(job, "PE %d on device %d: %s", pe, dev, why);
        return st;
    }
    job->heap_base[pe] = heap;
    return SHMEMU_OK;
}

static int cuda_publish(struct shmemu_tl_job *job, int pe, void *out)
{
    struct cuda_job *cj = job->priv;
    struct blob b = {.magic = BLOB_MAGIC, .heap_size = job->heap_size,
                     .device = cj->pl->device(cj->dev)};
    char why[200];
    int st = cj->pl->heap_export(cj->dev, b.handle, why, sizeof(why));
    if (st != SHMEMU_OK) {
        shmemu_tl_say(job, "PE %d: %s", pe, why);
        return st;
    }
    memcpy(out, &b, sizeof(b));
    return SHMEMU_OK;
}

static int cuda_connect(struct shmemu_tl_job *job, int pe, const void *const *blobs)
{
    struct cuda_job *cj = job->priv;
    char why[200];
    for (int p = 0; p < job->npes; p++) {
        if (p == pe)
            continue;
        struct blob b;
        memcpy(&b, blobs[p], sizeof(b));
        if (b.magic != BLOB_MAGIC || b.heap_size != job->heap_size) {
            shmemu_tl_say(job, "PE %d: PE %d published no cuda heap of %zu bytes", pe, p,
                job->heap_size);
            return SHMEMU_EINVAL;
        }
        void *base;
        int st = cj->pl->heap_import(cj->dev, b.handle, &base, why, sizeof(why));
        if (st != SHMEMU_OK) {
            shmemu_tl_say(job, "PE %d mapping PE %d's heap (device %d): %s", pe, p,
                          (int)b.device, why);
            return st;
        }
        job->heap_base[p] = base;
    }
    return SHMEMU_OK;
}

/* ------------------------------------------------------------- data path */

static int failed(struct shmemu_tl_job *job, int st, const char *why)
{
    shmemu_tl_say(job, "on PE %d: %s", ((struct cuda_job *)job->priv)->pe, why);
    return st;
}

static int cuda_rma(struct shmemu_tl_job *job, const struct shmemu_tl_rma *d)
{
    struct cuda_job *cj = job->priv;
    char *remote = job->heap_base[d->pe] + d->off, why[200];
    int async = d->nbi, sig = d->op == SHMEMU_TL_PUT && d->sig_op != SHMEMU_TL_SIG_NONE;
    int st = SHMEMU_OK;
    if (d->nbytes) {
        if (d->op == SHMEMU_TL_PUT)
            st = cj->pl->copy(cj->dev, remote, d->local, d->nbytes, async || sig, why,
                              sizeof(why));
        else
            st = cj->pl->copy(cj->dev, d->local, remote, d->nbytes, async, why, sizeof(why));
    }
    if (st == SHMEMU_OK && sig)
        st = cj->pl->signal(cj->dev, (uint64_t *)(void *)(job->heap_base[d->pe] + d->sig_off),
                            d->sig_op, d->sig_value, async, why, sizeof(why));
    return st == SHMEMU_OK ? st : failed(job, st, why);
}

static int cuda_amo(struct shmemu_tl_job *job, const struct shmemu_tl_amo *d)
{
    struct cuda_job *cj = job->priv;
    char why[200];
    int st = cj->pl->amo(cj->dev, job->heap_base[d->pe] + d->off, d->width, d->op, d->value,
                         d->cond, d->result, why, sizeof(why));
    return st == SHMEMU_OK ? st : failed(job, st, why);
}

static void *cuda_ptr(struct shmemu_tl_job *job, int pe, size_t off)
{
    return job->heap_base[pe] + off;
}

static int cuda_quiet(struct shmemu_tl_job *job, int pe)
{
    (void)pe;
    struct cuda_job *cj = job->priv;
    char why[200];
    int st = cj->pl->sync(cj->dev, why, sizeof(why));
    return st == SHMEMU_OK ? st : failed(job, st, why);
}

/* One byte at p readable by this process, found without touching it (a
 * fault would be the program's end): 1, or 0 for EFAULT.  Where the kernel
 * refuses the question (ENOSYS, EPERM), 1: the copy itself will tell. */
static int host_readable(const void *p)
{
    char c;
    struct iovec here = {&c, 1}, there = {(void *)(uintptr_t)p, 1};
    return process_vm_readv(getpid(), &here, 1, &there, 1, 0) == 1 || errno != EFAULT;
}

/* local_copy's and local_reduce's operands, as the contract has them: a
 * range inside one heap, or host memory.  CUDA takes any address outside
 * its allocations for host memory and copies it on the host: a range that
 * runs off a heap's end, or a pointer into nothing, would fault in the
 * driver.  SHMEMU_ERANGE for those, as staged answers. */
static int operand_ok(const struct shmemu_tl_job *job, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    for (int q = 0; q < job->npes; q++) {
        uintptr_t base = (uintptr_t)job->heap_base[q];
        if (base && a >= base && a - base < job->heap_size)
            return n <= job->heap_size - (a - base);
    }
    return !n || (host_readable(p) && host_readable((const char *)p + n - 1));
}

static int cuda_local_copy(struct shmemu_tl_job *job, int pe, void *dst, const void *src,
                           size_t n)
{
    (void)pe;
    struct cuda_job *cj = job->priv;
    char why[200];
    if (!operand_ok(job, dst, n) || !operand_ok(job, src, n))
        return SHMEMU_ERANGE;
    int st = cj->pl->copy(cj->dev, dst, src, n, 0, why, sizeof(why));
    return st == SHMEMU_OK ? st : failed(job, st, why);
}

static int cuda_local_reduce(struct shmemu_tl_job *job, int pe,
                             const struct shmemu_tl_reduce *d)
{
    (void)pe;
    struct cuda_job *cj = job->priv;
    char why[200];
    size_t bytes = d->n * d->esize;
    if (!operand_ok(job, d->dst, bytes) || !operand_ok(job, d->a, bytes) ||
        !operand_ok(job, d->b, bytes))
        return SHMEMU_ERANGE;
    int st = cj->pl->reduce(cj->dev, d->dtype, d->op, d->dst, d->a, d->b, d->n, why,
                            sizeof(why));
    return st == SHMEMU_OK ? st : failed(job, st, why);
}

static int cuda_stream_op(struct shmemu_tl_job *job, int pe, struct shmemu_tl_stream *d)
{
    (void)pe;
    struct cuda_job *cj = job->priv;
    char why[200];
    int st;
    switch (d->kind) {
    case SHMEMU_TL_STREAM_RMA:
        st = cj->pl->stream_rma(cj->dev, d->stream, job->heap_base[d->rma.pe] + d->rma.off,
                                &d->rma, job->heap_base[d->rma.pe] + d->rma.sig_off, why,
                                sizeof(why));
        break;
    case SHMEMU_TL_STREAM_QUIET:
        st = cj->pl->stream_join(cj->dev, d->stream, why, sizeof(why));
        break;
    case SHMEMU_TL_STREAM_SYNC:
        st = cj->pl->stream_sync(cj->dev, d->stream, why, sizeof(why));
        break;
    case SHMEMU_TL_STREAM_DEVICE:
        d->device = cj->pl->device(cj->dev);
        return SHMEMU_OK;
    case SHMEMU_TL_STREAM_KERNEL:
        if (cj->pl->size < offsetof(struct shmemu_cuda_plugin, kernel) + sizeof(cj->pl->kernel) ||
            !cj->pl->kernel)
            return SHMEMU_ENOTSUP; /* an older plugin */
        st = cj->pl->kernel(cj->dev, d->kernel, d->arg, d->arg_size, d->table, why, sizeof(why));
        if (st == SHMEMU_ENOTSUP)
            return st;
        break;
    default:
        return SHMEMU_EINVAL;
    }
    return st == SHMEMU_OK ? st : failed(job, st, why);
}

const struct shmemu_transport_ops shmemu_cuda_ops = {
    .size = sizeof(struct shmemu_transport_ops),
    .name = "cuda",
    .caps = SHMEMU_TL_CAP_SHARED_CTL | SHMEMU_TL_CAP_PROCESSES | SHMEMU_TL_CAP_SPMD |
            SHMEMU_TL_CAP_NBI | SHMEMU_TL_CAP_DEVICE_WRITES,
    .job_priv_size = sizeof(struct cuda_job),
    .probe = cuda_probe,
    .job_create = cuda_job_create,
    .job_run = shmemu_tl_run_procs,
    .job_destroy = cuda_job_destroy,
    .job_attach = cuda_job_attach,
    .pe_enter = cuda_pe_enter,
    .rma = cuda_rma,
    .amo = cuda_amo,
    .ptr = cuda_ptr,
    .quiet = cuda_quiet,
    .fence = NULL, /* one stream per PE: already in order */
    .ctl_wait = shmemu_mapped_wait_shared,
    .ctl_wake = shmemu_mapped_wake_shared,
    .pe_export = cuda_pe_export,
    .blob_size = sizeof(struct blob),
    .wireup_publish = cuda_publish,
    .wireup_connect = cuda_connect,
    .progress = NULL,
    .local_copy = cuda_local_copy,
    .local_reduce = cuda_local_reduce,
    .stream_op = cuda_stream_op,
};
