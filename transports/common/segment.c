/*
 * segment.c - the shared host segment of a job whose PEs are processes:
 * the control area, then (unless no_heaps) every PE's heap, in one POSIX
 * shared-memory segment.  shm keeps everything there; cuda and ucx keep
 * their control area there (segment.h).
 *
 * The segment is created with shm_open(O_CREAT|O_EXCL, 0600) under an
 * unguessable name and unlinked at once: PEs forked by job_run inherit the
 * mapping, and programs exec'd by shmemu-run inherit the descriptor
 * (shmemu_shm_seg_export), so nothing is left in /dev/shm even if every
 * process is SIGKILLed.  Its pages are reserved up front
 * (posix_fallocate): a job that does not fit fails at start with the
 * sizes, never with SIGBUS in a put.
 */
#include "segment.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "mapped.h"
#include "say.h"
#include "shmemu.h"

#define FD_ENV "SHMEMU_SHM_FD"
#define SHM_DIR "/dev/shm"

static size_t page_round(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

static void human(size_t bytes, char *buf, size_t len)
{
    if (bytes >= ((size_t)1 << 30))
        snprintf(buf, len, "%.1f GiB", (double)bytes / (1 << 30));
    else
        snprintf(buf, len, "%.1f MiB", (double)bytes / (1 << 20));
}

int shmemu_shm_segment_create(size_t size, int keep_name, char *name, size_t name_len,
                              int *fd_p, char *why, size_t why_len)
{
    uint64_t rnd[2];
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        snprintf(why, why_len, "getrandom failed: %s", strerror(errno));
        return SHMEMU_ENODEV;
    }
    snprintf(name, name_len, "/shmemu.%u.%d.%016llx%016llx", (unsigned)getuid(),
             (int)getpid(), (unsigned long long)rnd[0], (unsigned long long)rnd[1]);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        snprintf(why, why_len, "shm_open(%s) failed: %s", name, strerror(errno));
        return errno == EACCES || errno == ENOENT ? SHMEMU_ENODEV : SHMEMU_ENOMEM;
    }
    int err = fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)size) != 0 ? errno : 0;
    if (!err)
        err = posix_fallocate(fd, 0, (off_t)size);
    if (err) {
        struct statvfs vfs;
        char need[32], avail[32] = "an unknown amount";
        human(size, need, sizeof(need));
        if (statvfs(SHM_DIR, &vfs) == 0)
            human((size_t)vfs.f_bavail * vfs.f_frsize, avail, sizeof(avail));
        snprintf(why, why_len,
                 "%s has %s free but the job needs %s (%s); lower SHMEMU_HEAP_SIZE "
                 "(or opts.heap_size) or the PE count, or enlarge %s",
                 SHM_DIR, avail, need, strerror(err), SHM_DIR);
        shm_unlink(name);
        close(fd);
        return SHMEMU_ENOMEM;
    }
    if (!keep_name)
        shm_unlink(name);
    *fd_p = fd;
    return SHMEMU_OK;
}

void shmemu_shm_seg_destroy(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj)
{
    if (sj->heaps)
        munmap(sj->heaps, sj->stride * (size_t)job->npes);
    if (sj->view)
        munmap(sj->view, sj->stride * (size_t)job->npes);
    sj->view = NULL;
    if (sj->alias)
        munmap(sj->alias, job->heap_size * (size_t)job->npes);
    sj->alias = NULL;
    if (sj->ctl)
        munmap(sj->ctl, sj->ctl_len);
    if (sj->fd >= 0)
        close(sj->fd);
    sj->heaps = NULL;
    sj->ctl = NULL;
    sj->fd = -1;
}

static void layout(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj)
{
    sj->ctl_len = page_round(job->ctl_size);
    sj->stride = shmemu_tl_heap_stride(job->heap_size);
    sj->seg_size = sj->ctl_len + (sj->no_heaps ? 0 : job->heap_size * (size_t)job->npes);
}

/* Map the control area and every heap of the segment behind sj->fd. */
static int map_segment(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj)
{
    sj->ctl = mmap(NULL, sj->ctl_len, PROT_READ | PROT_WRITE, MAP_SHARED, sj->fd, 0);
    if (sj->ctl == MAP_FAILED) {
        sj->ctl = NULL;
        shmemu_tl_say(job, "mmap of the %zu-byte control area failed: %s", sj->ctl_len,
            strerror(errno));
        return SHMEMU_ENOMEM;
    }
    job->ctl = sj->ctl;
    if (sj->no_heaps)
        return SHMEMU_OK;
    sj->heaps = shmemu_mapped_reserve(sj->stride * (size_t)job->npes,
                                      SHMEMU_TL_BASE_ALIGN, PROT_NONE);
    if (!sj->heaps) {
        shmemu_tl_say(job, "reserving %zu bytes of address space failed",
            sj->stride * (size_t)job->npes);
        return SHMEMU_ENOMEM;
    }
    for (int pe = 0; pe < job->npes; pe++) {
        char *at = sj->heaps + (size_t)pe * sj->stride;
        if (mmap(at, job->heap_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                 sj->fd, (off_t)(sj->ctl_len + (size_t)pe * job->heap_size)) == MAP_FAILED) {
            shmemu_tl_say(job, "mmap of PE %d's heap failed: %s", pe, strerror(errno));
            return SHMEMU_ENOMEM;
        }
        job->heap_base[pe] = at;
    }
    if (job->aliases && !sj->device_view) {
        char *a = mmap(NULL, job->heap_size * (size_t)job->npes, PROT_READ | PROT_WRITE,
                       MAP_SHARED, sj->fd, (off_t)sj->ctl_len);
        if (a == MAP_FAILED) {
            shmemu_tl_say(job, "mapping the heaps a second time failed: %s", strerror(errno));
            return SHMEMU_ENOMEM;
        }
        sj->alias = a;
        for (int pe = 0; pe < job->npes; pe++)
            job->lib_base[pe] = a + (size_t)pe * job->heap_size;
    }
    if (sj->device_view) {
        sj->view = shmemu_mapped_reserve(sj->stride * (size_t)job->npes,
                                         SHMEMU_TL_BASE_ALIGN, PROT_NONE);
        if (!sj->view) {
            shmemu_tl_say(job, "reserving %zu bytes of address space for the device view failed",
                sj->stride * (size_t)job->npes);
            return SHMEMU_ENOMEM;
        }
        for (int pe = 0; pe < job->npes; pe++)
            job->heap_base[pe] = sj->view + (size_t)pe * sj->stride;
    }
    return SHMEMU_OK;
}

int shmemu_shm_seg_create(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj)
{
    char name[96];
    layout(job, sj);
    sj->fd = -1;
    int st = shmemu_shm_segment_create(sj->seg_size, 0, name, sizeof(name), &sj->fd,
                                       job->why, sizeof(job->why));
    if (st == SHMEMU_OK && (st = map_segment(job, sj)) != SHMEMU_OK)
        shmemu_shm_seg_destroy(job, sj);
    return st;
}

int shmemu_shm_seg_export(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj)
{
    char v[16];
    snprintf(v, sizeof(v), "%d", sj->fd);
    if (fcntl(sj->fd, F_SETFD, 0) != 0 || setenv(FD_ENV, v, 1) != 0) {
        shmemu_tl_say(job, "handing the segment to the program failed: %s", strerror(errno));
        return SHMEMU_EINVAL;
    }
    return SHMEMU_OK;
}

/* Check that fd is this job's segment (what names it: for messages), then
 * map it. */
static int attach_fd(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj, int pe, int fd,
                     const char *what)
{
    layout(job, sj);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        shmemu_tl_say(job, "%s is not an open descriptor: %s", what, strerror(errno));
        return SHMEMU_EINVAL;
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 0777) != 0600 ||
        (size_t)st.st_size != sj->seg_size) {
        shmemu_tl_say(job, "%s is not this job's segment (mode %o, owner %u, %lld bytes; "
                 "expected mode 600, owner %u, %zu bytes for PE %d of %d)",
            what, (unsigned)(st.st_mode & 0777), (unsigned)st.st_uid,
            (long long)st.st_size, (unsigned)getuid(), sj->seg_size, pe, job->npes);
        return SHMEMU_EINVAL;
    }
    sj->fd = fd;
    fcntl(sj->fd, F_SETFD, FD_CLOEXEC); /* the program's own children do not get it */
    int rc = map_segment(job, sj);
    if (rc != SHMEMU_OK)
        shmemu_shm_seg_destroy(job, sj);
    return rc;
}

int shmemu_shm_seg_attach(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj, int pe)
{
    const char *v = getenv(FD_ENV);
    char *end, what[64];
    long fd = v ? strtol(v, &end, 10) : -1;
    sj->fd = -1;
    if (!v) { /* a PE takes it from its environment as it joins */
        shmemu_tl_say(job, "%s is not set: this program is not one shmemu-run started but one "
                      "a PE started (system, popen, exec), which inherits the PE's environment "
                      "and is no PE (unset SHMEMU_RUN_NPES in it for a job of its own)",
                      FD_ENV);
        return SHMEMU_EINVAL;
    }
    if (!*v || *end || fd < 0 || fd > 1 << 20) {
        shmemu_tl_say(job, "%s='%s' is not a descriptor number (this program was started by "
                 "shmemu-run with a damaged environment)",
            FD_ENV, v);
        return SHMEMU_EINVAL;
    }
    snprintf(what, sizeof(what), "%s=%ld", FD_ENV, fd);
    unsetenv(FD_ENV);
    return attach_fd(job, sj, pe, (int)fd, what);
}

/* A named segment lives only while its job joins (its maker unlinks the
 * name once every PE has it open), but a maker killed inside that window
 * leaves it behind, and nothing else would ever remove it.  Before making
 * one, remove this user's named segments whose maker (the pid in the name)
 * is gone and that are older than any join: an hour, so that a live job
 * whose maker this process cannot see (another pid namespace sharing
 * /dev/shm) is never touched. */
#define STALE_NAMED_S 3600
static void remove_stale_named(void)
{
    DIR *d = opendir(SHM_DIR);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned uid;
        int pid, at = 0;
        if (sscanf(e->d_name, "shmemu.%u.%d.%n", &uid, &pid, &at) != 2 || !at ||
            uid != (unsigned)getuid() || pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[sizeof(SHM_DIR) + 256];
        struct stat st;
        snprintf(path, sizeof(path), SHM_DIR "/%s", e->d_name);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime > STALE_NAMED_S)
            (void)unlink(path);
    }
    closedir(d);
}

int shmemu_shm_seg_create_named(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj,
                                char *name, size_t name_len)
{
    remove_stale_named();
    layout(job, sj);
    sj->fd = -1;
    int st = shmemu_shm_segment_create(sj->seg_size, 1, name, name_len, &sj->fd, job->why,
                                       sizeof(job->why));
    if (st == SHMEMU_OK && (st = map_segment(job, sj)) != SHMEMU_OK) {
        shm_unlink(name);
        shmemu_shm_seg_destroy(job, sj);
    }
    return st;
}

int shmemu_shm_seg_open_named(struct shmemu_tl_job *job, struct shmemu_shm_seg *sj, int pe,
                              const char *name)
{
    sj->fd = -1;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        shmemu_tl_say(job, "shm_open(%s) failed: %s (the PE that made it runs on another node, or "
                 "has already ended)",
            name, strerror(errno));
        return SHMEMU_ENODEV;
    }
    int rc = attach_fd(job, sj, pe, fd, name);
    if (rc != SHMEMU_OK && sj->fd < 0)
        close(fd);
    return rc;
}

int shmemu_shm_probe(char *why, size_t why_len)
{
    if (access(SHM_DIR, W_OK | X_OK) != 0) {
        snprintf(why, why_len, "POSIX shared memory (%s) is not writable: %s", SHM_DIR,
                 strerror(errno));
        return SHMEMU_ENODEV;
    }
    return SHMEMU_OK;
}
