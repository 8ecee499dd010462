/*
 * plugin.c - libshmemu-ucx.so: every UCP call of the ucx transport.
 *
 * One UCP context and worker per PE process.  The heap is the pages of a
 * memfd of the PE's, aligned as the contract asks, registered with
 * ucp_mem_map; its packed rkey and the worker's address are what a PE
 * publishes.  Endpoints go to every peer.  The PE's own heap, and the heap
 * of a peer on the same machine (mapped here through its memfd), are
 * reached with memcpy and the CPU's atomics: the fast path, as OSHMEM's
 * mapped segments are.  Those atomics agree with UCX's only when UCX's are the CPU's
 * too (shared memory does them so, TCP emulates them so at the target), so
 * the context asks for CPU atomics on every fabric (ATOMIC_MODE=cpu): a
 * NIC's atomics are not atomic against the CPU's on the same word.  (UCX's
 * own loopback, the `self` transport, is also avoided so: in UCX 1.13 its
 * fetching AND, OR and XOR ignore their operand.)
 *
 * A peer whose process died never answers.  UCX's peer error mode would
 * say so, but its shared-memory transports refuse that mode (1.13), so
 * every wait for a request also asks the core whether the job still runs
 * (the launcher or a peer ends it when a PE dies) and gives up once it
 * does not (SHMEMU_EABORTED).
 *
 * Networks such as TCP move a peer's put into this heap only when this
 * worker is progressed.  A PE computing, or asleep in a barrier, would stall
 * its peers' puts, so a thread per PE serves the worker while the PE is
 * away: it polls a little after traffic, then sleeps on the worker's event
 * descriptor (ucp_worker_arm), and keeps off while the PE drives the worker
 * itself.  The worker is created thread-safe for that reason.
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

#include "../plugin.h"
#include "../../common/small_copy.h"
#include "shmemu.h"
#include "internal.h"

#define BLOB_MAGIC 0x75637831u /* "ucx1" */

struct blob_hdr {
    uint32_t magic;
    int32_t pe;
    uint64_t heap;      /* the heap's address in its process */
    uint64_t heap_size;
    uint32_t addr_len;  /* worker address bytes, then rkey bytes */
    uint32_t rkey_len;
    /* For a peer on the same machine: where its heap's pages are. */
    uint64_t machine;   /* a hash of the boot id and host name */
    int32_t pid, memfd;
};

static char *map_heap(struct shmemu_ucx_pe *p, size_t size, size_t align)
{
    p->map_len = size + align;
    char *m = mmap(NULL, p->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    p->map_base = m;
    char *at = (char *)(((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1));
    if ((p->memfd = memfd_create("shmemu-heap", MFD_CLOEXEC)) < 0 ||
        ftruncate(p->memfd, (off_t)size) != 0 ||
        mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, p->memfd,
             0) == MAP_FAILED)
        return NULL;
    return at;
}

static int alias(struct shmemu_ucx_pe *p, size_t off, void *addr, size_t len, char *why,
                 size_t wlen)
{
    if (mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->memfd, (off_t)off) ==
        MAP_FAILED) {
        snprintf(why, wlen, "mmap of heap bytes %zu..%zu at %p: %s", off, off + len, addr,
                 strerror(errno));
        return SHMEMU_ENOMEM;
    }
    return SHMEMU_OK;
}

static void pe_close(struct shmemu_ucx_pe *p)
{
    if (!p)
        return;
    if (p->server_up) {
        uint64_t one = 1;
        atomic_store(&p->stopping, 1);
        idle_pe(p); /* a parked server looks at once */
        if (write(p->stop, &one, sizeof(one)) < 0) {
            /* an eventfd write fails only on overflow: the server is woken */
        }
        pthread_join(p->server, NULL);
    }
    if (p->stop >= 0)
        close(p->stop);
    if (p->peers) {
        if (p->worker) {
            if (p->flush_req)
                (void)wait_req(p, p->flush_req);
            ucs_status_ptr_t r = ucp_worker_flush_nbx(p->worker, &(ucp_request_param_t){0});
            (void)wait_req(p, r);
        }
        for (int i = 0; i < p->npes; i++) {
            cmb_close(p, &p->peers[i]);
            if (p->peers[i].rkey)
                ucp_rkey_destroy(p->peers[i].rkey);
            if (p->peers[i].own_map)
                munmap(p->peers[i].own_map, p->peers[i].own_len);
            if (p->peers[i].ep) {
                ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                           .flags = UCP_EP_CLOSE_FLAG_FORCE};
                (void)wait_req(p, ucp_ep_close_nbx(p->peers[i].ep, &prm));
            }
        }
        free(p->peers);
    }
    if (p->memh)
        ucp_mem_unmap(p->ctx, p->memh);
    if (p->worker)
        ucp_worker_destroy(p->worker);
    if (p->ctx)
        ucp_cleanup(p->ctx);
    if (p->map_base)
        munmap(p->map_base, p->map_len);
    if (p->memfd >= 0)
        close(p->memfd);
    pthread_mutex_destroy(&p->ack_lock);
    free(p);
}

/* UCX's shared-memory transport attaches a peer's FIFO through
 * /proc/PID/fd the first time it talks to it, and logs an error when that
 * process has ended: "open(/proc/PID/fd/N) failed", then "mm ep failed to
 * connect".  A peer that died, or left a job that is ending, is shmemu's
 * to report (it names the PE); those two lines are dropped when PID has
 * ended, and everything else UCX logs passes. */
static _Thread_local int dropped_open;

/* Ended: no such process, or a zombie its parent has not reaped yet. */
static int process_ended(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close = strrchr(buf, ')');
    return close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
}

__attribute__((format(printf, 6, 0))) /* message and ap: UCX's printf pair */
static ucs_log_func_rc_t drop_gone_peers(const char *file, unsigned line, const char *function,
                                         ucs_log_level_t level,
                                         const ucs_log_component_config_t *comp,
                                         const char *message, va_list ap)
{
    (void)line, (void)function, (void)level, (void)comp;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    int was = dropped_open, pid, shmid;
    dropped_open = 0;
    int posix = !strcmp(base, "mm_posix.c"), sysv = !strcmp(base, "mm_sysv.c");
    if (posix || sysv) {
        char text[320];
        va_list c;
        va_copy(c, ap);
        vsnprintf(text, sizeof(text), message, c);
        va_end(c);
        /* posix: the peer's /proc file; sysv: its segment, which shmctl no
         * longer knows once it went with the peer */
        const char *at = strstr(text, posix ? "/proc/" : "shmid=");
        struct shmid_ds ds;
        int gone = 0;
        if (at && posix)
            gone = sscanf(at, "/proc/%d/", &pid) == 1 && pid > 0 && process_ended(pid);
        else if (at)
            gone = sscanf(at, "shmid=%d", &shmid) == 1 && shmid >= 0 &&
                   shmctl(shmid, IPC_STAT, &ds) != 0 && (errno == EINVAL || errno == EIDRM);
        if (gone) {
            dropped_open = 1;
            return UCS_LOG_FUNC_RC_STOP;
        }
    } else if (was && !strcmp(base, "mm_ep.c") && strstr(message, "failed to connect")) {
        return UCS_LOG_FUNC_RC_STOP;
    }
    return UCS_LOG_FUNC_RC_CONTINUE;
}

static void push_log_filter(void) { ucs_log_push_handler(drop_gone_peers); }

/* The PE's UCP context (CPU atomics, ...: see below), its thread-safe
 * worker with our active-message handlers, the heap registered, the
 * worker's event descriptor, and the eventfd that stops the server. */
static int open_ucp(struct shmemu_ucx_pe *p, int npes, size_t heap_size, char *why, size_t len)
{
    int st = SHMEMU_ENOMEM;
    ucs_status_t s;
    static pthread_once_t filter_once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&filter_once, push_log_filter);
    ucp_config_t *cfg;
    if ((s = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_config_read", s);
        return st;
    }
    /* Unless the user chose otherwise: CPU atomics (see the header
     * comment); a mutex, not a spinlock, around the worker, which the
     * serving thread shares with the PE (two threads on few cores: a
     * preempted holder left the other spinning, and puts over TCP ran at
     * 0.47 GB/s against 0.8 with the mutex); TCP segments of 64 KiB, not
     * 8 (a large put then costs an eighth of the sends and wake-ups:
     * 1.2-3 GB/s against 0.8); one rendezvous lane (below). */
    static const char *const defaults[][3] = {
        /* the name ucp_config_modify takes, its value, the user's variable */
        {"ATOMIC_MODE", "cpu", "UCX_ATOMIC_MODE"},
        {"USE_MT_MUTEX", "y", "UCX_USE_MT_MUTEX"},
        {"TX_SEG_SIZE", "64k", "UCX_TCP_TX_SEG_SIZE"}, /* only TCP reads it */
        {"RX_SEG_SIZE", "64k", "UCX_TCP_RX_SEG_SIZE"},
        /* One lane for an active message's rendezvous, which we never use
         * (combined puts go eager): with the active-message feature UCX
         * 1.13 otherwise adds a second TCP lane (another device, eth0
         * beside lo) whose wire-up, still pending when a peer leaves at a
         * job's end, fails an assertion in UCX's error path and aborts the
         * process. */
        {"MAX_RNDV_RAILS", "1", "UCX_MAX_RNDV_RAILS"},
    };
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        if (!getenv(defaults[i][2]))
            (void)ucp_config_modify(cfg, defaults[i][0], defaults[i][1]);
    ucp_params_t cp = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                      UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                    UCP_FEATURE_WAKEUP | UCP_FEATURE_AM,
        .estimated_num_eps = (size_t)npes,
        .mt_workers_shared = 0,
    };
    s = ucp_init(&cp, cfg, &p->ctx);
    ucp_config_release(cfg);
    if (s != UCS_OK) {
        st = ucs_fail(why, len, "ucp_init", s);
        return st;
    }
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_MULTI};
    if ((s = ucp_worker_create(p->ctx, &wp, &p->worker)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_worker_create", s);
        return st;
    }
    if ((s = cmb_handlers(p)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_worker_set_am_recv_handler", s);
        return st;
    }
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = p->heap,
                               .length = heap_size};
    if ((s = ucp_mem_map(p->ctx, &mp, &p->memh)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_mem_map", s);
        return st;
    }
    if ((s = ucp_worker_get_efd(p->worker, &p->efd)) != UCS_OK) {
        st = ucs_fail(why, len, "ucp_worker_get_efd", s);
        return st;
    }
    if ((p->stop = eventfd(0, EFD_CLOEXEC)) < 0) {
        snprintf(why, len, "eventfd: %s", strerror(errno));
        st = SHMEMU_ENODEV;
        return st;
    }
    return SHMEMU_OK;
}

static int pe_open(int pe, int npes, size_t heap_size, int (*gone)(void *arg), void *arg,
                   struct shmemu_ucx_pe **pe_p, void **heap_p, char *why, size_t len)
{
    struct shmemu_ucx_pe *p = calloc(1, sizeof(*p));
    int st = SHMEMU_ENOMEM;
    if (!p) {
        snprintf(why, len, "out of memory");
        return st;
    }
    p->pe = pe;
    p->npes = npes;
    p->heap_size = heap_size;
    p->gone = gone;
    p->gone_arg = arg;
    p->stop = -1;
    pthread_mutex_init(&p->ack_lock, NULL);
    p->peers = calloc((size_t)npes, sizeof(*p->peers));
    p->memfd = -1;
    p->heap = map_heap(p, heap_size, SHMEMU_TL_BASE_ALIGN);
    if (!p->peers || !p->heap) {
        snprintf(why, len, "no memory for a %zu-byte heap: %s", heap_size, strerror(errno));
        goto fail;
    }

    if ((st = open_ucp(p, npes, heap_size, why, len)) != SHMEMU_OK)
        goto fail;
    *pe_p = p;
    *heap_p = p->heap;
    return SHMEMU_OK;
fail:
    pe_close(p);
    return st;
}

/* Which machine this is: peers with the same value share its memory. */
static uint64_t machine_id(void)
{
    char buf[128] = "";
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(buf, sizeof(buf), f))
            buf[0] = '\0';
        fclose(f);
    }
    size_t n = strlen(buf);
    gethostname(buf + n, sizeof(buf) - n - 1);
    for (const char *c = buf; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

/* Same-machine peers are mapped only where the user lets UCX use shared
 * memory: UCX_TLS unset, or naming a shared-memory transport.  UCX_TLS=tcp
 * keeps every byte on TCP, as asked. */
static int shared_memory_allowed(void)
{
    const char *t = getenv("UCX_TLS");
    if (!t || !*t)
        return 1;
    if (*t == '^') /* an exclusion list: allowed unless it names them */
        return !strstr(t, "sm") && !strstr(t, "posix") && !strstr(t, "shm");
    return strstr(t, "all") || strstr(t, "sm") || strstr(t, "posix") || strstr(t, "sysv");
}

/* A peer on this machine: map its heap's pages here (through its memfd,
 * as UCX's own shared-memory transport reaches a peer's segment), at an
 * address aligned as heaps are, so that puts, gets and atomics on it are
 * loads, stores and the CPU's atomics.  Where /proc refuses (another user,
 * a hardened kernel), the peer is reached through UCX. */
static void map_peer(struct shmemu_ucx_pe *p, struct peer *q, const struct blob_hdr *h)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)h->pid, (int)h->memfd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t len = p->heap_size + SHMEMU_TL_BASE_ALIGN;
    char *m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m != MAP_FAILED) {
        char *at = (char *)(((uintptr_t)m + SHMEMU_TL_BASE_ALIGN - 1) &
                            ~(uintptr_t)(SHMEMU_TL_BASE_ALIGN - 1));
        if (mmap(at, p->heap_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
            MAP_FAILED) {
            munmap(m, len);
        } else {
            q->mapped = at;
            q->own_map = m;
            q->own_len = len;
        }
    }
    close(fd);
}

static int publish(struct shmemu_ucx_pe *p, void *out, size_t cap, char *why, size_t len)
{
    ucp_address_t *addr;
    size_t alen, rlen;
    void *rkey;
    ucs_status_t s;
    if ((s = ucp_worker_get_address(p->worker, &addr, &alen)) != UCS_OK)
        return ucs_fail(why, len, "ucp_worker_get_address", s);
    if ((s = ucp_rkey_pack(p->ctx, p->memh, &rkey, &rlen)) != UCS_OK) {
        ucp_worker_release_address(p->worker, addr);
        return ucs_fail(why, len, "ucp_rkey_pack", s);
    }
    struct blob_hdr h = {.machine = machine_id(), .pid = (int32_t)getpid(), .memfd = p->memfd,
                         .magic = BLOB_MAGIC, .pe = p->pe, .heap = (uintptr_t)p->heap,
                         .heap_size = p->heap_size, .addr_len = (uint32_t)alen,
                         .rkey_len = (uint32_t)rlen};
    int st = SHMEMU_OK;
    if (sizeof(h) + alen + rlen > cap) {
        snprintf(why, len,
                 "the worker address (%zu bytes) and heap key (%zu bytes) exceed the %zu "
                 "bytes a PE may publish",
                 alen, rlen, cap - sizeof(h));
        st = SHMEMU_ENOMEM;
    } else {
        memcpy(out, &h, sizeof(h));
        memcpy((char *)out + sizeof(h), addr, alen);
        memcpy((char *)out + sizeof(h) + alen, rkey, rlen);
    }
    ucp_rkey_buffer_release(rkey);
    ucp_worker_release_address(p->worker, addr);
    return st;
}

static int connect_peer(struct shmemu_ucx_pe *p, int peer, const void *blob, size_t cap,
                        char *why, size_t len)
{
    struct blob_hdr h;
    memcpy(&h, blob, sizeof(h));
    if (h.magic != BLOB_MAGIC || h.pe != peer || h.heap_size != p->heap_size ||
        sizeof(h) + (size_t)h.addr_len + h.rkey_len > cap) {
        snprintf(why, len, "PE %d published no ucx heap of %zu bytes", peer, p->heap_size);
        return SHMEMU_EINVAL;
    }
    struct peer *q = &p->peers[peer];
    if (peer == p->pe) {
        q->heap = (uintptr_t)p->heap;
        q->mapped = p->heap;
        return SHMEMU_OK;
    }
    ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                          .address = (const ucp_address_t *)((const char *)blob + sizeof(h))};
    ucs_status_t s;
    if ((s = ucp_ep_create(p->worker, &ep, &q->ep)) != UCS_OK) {
        q->ep = NULL;
        return ucs_fail(why, len, "ucp_ep_create", s);
    }
    if ((s = ucp_ep_rkey_unpack(q->ep, (const char *)blob + sizeof(h) + h.addr_len,
                                &q->rkey)) != UCS_OK) {
        q->rkey = NULL;
        return ucs_fail(why, len, "ucp_ep_rkey_unpack", s);
    }
    q->heap = h.heap;
    p->local += h.machine == machine_id();
    if (shared_memory_allowed() && h.machine == machine_id())
        map_peer(p, q, &h);
    void *m;
    if (!q->mapped && ucp_rkey_ptr(q->rkey, h.heap, &m) == UCS_OK)
        q->mapped = m;
    if (cmb_wanted(q)) {
        if (!(q->cmb = calloc(1, sizeof(*q->cmb)))) {
            snprintf(why, len, "out of memory");
            return SHMEMU_ENOMEM;
        }
        pthread_mutex_init(&q->cmb->lock, NULL);
        p->ncmb++;
    }
    return SHMEMU_OK;
}

static int start(struct shmemu_ucx_pe *p, char *why, size_t len)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    p->serve_spin = p->local + 1 <= ncpu ? SERVE_SPIN_NS : 0;
    if (p->ncmb) {
        size_t b = CMB_BUDGET / 2 / (size_t)p->ncmb;
        p->cmb_bytes = b > CMB_BYTES_MAX ? CMB_BYTES_MAX : b < CMB_BYTES_MIN ? CMB_BYTES_MIN : b;
        p->cmb_put_max = p->cmb_bytes / 8; /* 8 KiB with the largest buffers */
    }
    int e = p->server_up ? 0 : pthread_create(&p->server, NULL, serve, p);
    if (e) {
        snprintf(why, len, "pthread_create: %s", strerror(e));
        return SHMEMU_ENOMEM;
    }
    p->server_up = 1;
    return SHMEMU_OK;
}

/* Operations on a heap mapped here: the PE's own, a same-machine peer's
 * (see the header comment). */

static const char *version(void) { return ucp_get_version_string(); }

static void set_arrival(struct shmemu_ucx_pe *p, uint32_t *word)
{
    atomic_store(&p->arrival_word, (_Atomic uint32_t *)word);
}

static const struct shmemu_ucx_plugin plugin = {
    .size = sizeof(struct shmemu_ucx_plugin),
    .abi = SHMEMU_UCX_PLUGIN_ABI,
    .version = version,
    .pe_open = pe_open,
    .pe_close = pe_close,
    .publish = publish,
    .connect = connect_peer,
    .start = start,
    .rma = rma,
    .amo = amo,
    .quiet = quiet,
    .fence = fence,
    .progress = progress,
    .peer_ptr = peer_ptr,
    .alias = alias,
    .set_arrival = set_arrival,
    .idle = idle_pe,
    .flush = flush,
};

const struct shmemu_ucx_plugin *shmemu_ucx_plugin(void) __attribute__((visibility("default")));
const struct shmemu_ucx_plugin *shmemu_ucx_plugin(void) { return &plugin; }
