/* runners.c - PEs as threads, or as forked processes (see runners.h). */
#include "runners.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shmemu.h"

/* -------------------------------------------------------------- threads */

struct local_thread {
    struct shmemu_tl_job *job;
    int (*entry)(struct shmemu_tl_job *job, int pe);
    int pe;
    pthread_t tid;
};

static void *thread_main(void *arg)
{
    struct local_thread *t = arg;
    t->entry(t->job, t->pe);
    return NULL;
}

int shmemu_tl_run_threads(struct shmemu_tl_job *job,
                          int (*entry)(struct shmemu_tl_job *job, int pe))
{
    struct local_thread *t = calloc((size_t)job->npes, sizeof(*t));
    if (!t)
        return SHMEMU_ENOMEM;
    int started = 0;
    for (int pe = 0; pe < job->npes; pe++) {
        t[pe] = (struct local_thread){.job = job, .entry = entry, .pe = pe};
        int err = pthread_create(&t[pe].tid, NULL, thread_main, &t[pe]);
        if (err) {
            /* The PEs already running learn of it through the abort. */
            for (int q = pe; q < job->npes; q++)
                job->calls->pe_exited(job, q, SHMEMU_TL_EXIT_NOSTART, err);
            break;
        }
        started++;
    }
    for (int pe = 0; pe < started; pe++)
        pthread_join(t[pe].tid, NULL);
    free(t);
    return SHMEMU_OK;
}

/* ------------------------------------------------------------ processes */

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

int shmemu_tl_run_procs(struct shmemu_tl_job *job,
                        int (*entry)(struct shmemu_tl_job *job, int pe))
{
    int n = job->npes;
    pid_t *pid = calloc((size_t)n, sizeof(pid_t));
    struct pollfd *pfd = calloc((size_t)n, sizeof(struct pollfd));
    if (!pid || !pfd) {
        free(pid);
        free(pfd);
        return SHMEMU_ENOMEM;
    }
    pid_t parent = getpid();
    fflush(NULL); /* children must not inherit unwritten output */
    int live = 0;
    for (int pe = 0; pe < n; pe++) {
        pid[pe] = fork();
        if (pid[pe] == 0) {
            /* A PE never outlives whoever launched it. */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(127);
            /* The parent's bookkeeping is not ours: a PE that ends deep in
             * a call (the watchdog) would otherwise leave it lost. */
            free(pid);
            free(pfd);
            int rc = entry(job, pe);
            fflush(NULL);
            _exit(rc == 0 ? 0 : 1);
        }
        if (pid[pe] < 0) {
            int err = errno;
            for (int q = pe; q < n; q++) {
                pid[q] = 0;
                pfd[q].fd = -1;
                if (job->calls->pe_exited)
                    job->calls->pe_exited(job, q, SHMEMU_TL_EXIT_NOSTART, err);
            }
            break;
        }
        pfd[pe].fd = pidfd_open_(pid[pe]);
        pfd[pe].events = POLLIN;
        live++;
    }
    while (live > 0) {
        if (poll(pfd, (nfds_t)n, 20) < 0 && errno != EINTR) {
            struct timespec ts = {0, 5000000};
            nanosleep(&ts, NULL); /* no pidfds: fall back to polling */
        }
        for (int pe = 0; pe < n; pe++) {
            int status;
            if (pid[pe] <= 0 || waitpid(pid[pe], &status, WNOHANG) != pid[pe])
                continue;
            pid[pe] = 0;
            if (pfd[pe].fd >= 0)
                close(pfd[pe].fd);
            pfd[pe].fd = -1;
            live--;
            if (job->calls->pe_exited) {
                if (WIFSIGNALED(status))
                    job->calls->pe_exited(job, pe, SHMEMU_TL_EXIT_SIGNAL, WTERMSIG(status));
                else
                    job->calls->pe_exited(job, pe, SHMEMU_TL_EXIT_CODE, WEXITSTATUS(status));
            }
        }
        int sig = job->calls->tick ? job->calls->tick(job) : 0;
        for (int pe = 0; sig && pe < n; pe++)
            if (pid[pe] > 0)
                kill(pid[pe], sig);
    }
    free(pid);
    free(pfd);
    return SHMEMU_OK;
}
