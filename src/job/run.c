/*
 * run.c - supervising PEs that are processes: how each one ended, when to
 * signal the rest, and the exec path behind the shmemu-run launcher.
 *
 * A process transport's job_run forks the PEs and reaps them; it reports
 * each end through shmemu__pe_exited and asks shmemu__tick, every ~20 ms,
 * which signal (if any) to send to the PEs still running.  The policy lives
 * here, once, for every process transport.
 */
#include "run.h"
#include "job.h"
#include "runtime/dispatch.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/describe.h"
#include "ctl/plane.h"
#include "ctl/wait.h"
#include "check/check.h"

/* After an abort, PEs that have not left get SIGTERM, then SIGKILL. */
#define TERM_AFTER_NS 500000000LL
#define KILL_AFTER_NS 1000000000LL

static volatile sig_atomic_t forwarded;

void shmemu__run_forward(int sig) { forwarded = sig; }

static void signal_name(int sig, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "signal %d", sig);
}

void shmemu__pe_exited(struct shmemu_tl_job *tl, int pe, int how, int code)
{
    struct shmemu__job *job = tl->core;
    int status = how == SHMEMU_TL_EXIT_SIGNAL ? 128 + code
                 : how == SHMEMU_TL_EXIT_CODE ? code
                                              : 127;
    if (shmemu__plane_pe_left(job, pe)) {
        /* It left through the library: a failure it had, it reported. */
        if (status && !job->first_failure)
            job->first_failure = status;
        return;
    }
    if (!job->first_failure)
        job->first_failure = status ? status : 1;
    if (shmemu__plane_abort_status(job) && job->signals_sent) {
        shmemu__plane_pe_failed(job, pe); /* one of the PEs we signalled after the abort */
        return;
    }

    char msg[200], report[240], sig[24];
    int pid = shmemu__plane_pid(job, pe);
    if (how == SHMEMU_TL_EXIT_SIGNAL) {
        signal_name(code, sig, sizeof(sig));
        snprintf(msg, sizeof(msg), "PE %d (pid %d) killed by %s", pe, pid, sig);
    } else if (how == SHMEMU_TL_EXIT_NOSTART) {
        snprintf(msg, sizeof(msg), "PE %d could not be started: %s", pe, strerror(code));
    } else {
        /* "finalizing": the program may speak OpenSHMEM (shmem_finalize) */
        snprintf(msg, sizeof(msg), "PE %d (pid %d) exited with status %d before finalizing",
                 pe, pid, code);
    }
    snprintf(report, sizeof(report), "%s: %s; aborting job\n", job->who, msg);
    /* The abort (and its report) before the PE is seen gone: a survivor that
     * saw it first would report its own view ("PE 2 left the job") and the
     * line naming how the PE ended would never be printed. */
    shmemu__abort_job(job, SHMEMU_EABORTED, pe,
                      how == SHMEMU_TL_EXIT_CODE && code ? code : SHMEMU_EABORTED, msg,
                      report);
    shmemu__plane_pe_failed(job, pe);
}

void shmemu__timeout_report(struct shmemu__job *job)
{
    int n = job->tl.npes;
    size_t len = 256 + (size_t)n * 256, used = 0;
    char *buf = malloc(len);
    if (!buf)
        return;
    used += (size_t)snprintf(buf, len,
                             "%s: the job ran past its %.1f s timeout; where each PE "
                             "is:\n",
                             job->who, (double)job->timeout_ns / 1e9);
    for (int p = 0; p < n && used < len; p++) {
        char line[224];
        shmemu__describe_pe(job, p, line, sizeof(line));
        used += (size_t)snprintf(buf + used, len - used, "%s:   PE %d/%d %s\n", job->who, p,
                                 n, line);
    }
    shmemu__abort_job(job, SHMEMU_ETIMEDOUT, -1, SHMEMU_ETIMEDOUT, "timed out", buf);
    free(buf);
}

int shmemu__tick(struct shmemu_tl_job *tl)
{
    struct shmemu__job *job = tl->core;
    int sig = forwarded;
    if (sig) {
        forwarded = 0;
        return sig; /* the user's ^C or kill: to every PE */
    }
    int64_t now = shmemu__now_ns();
    if (job->deadline_ns && now > job->deadline_ns && !shmemu__plane_abort_status(job)) {
        shmemu__timeout_report(job);
        if (!job->first_failure)
            job->first_failure = 124; /* as timeout(1) */
    }
    if (!shmemu__plane_abort_status(job))
        return 0;
    if (!job->abort_seen_ns)
        job->abort_seen_ns = now;
    if (job->signals_sent == 0 && now - job->abort_seen_ns > TERM_AFTER_NS) {
        job->signals_sent = 1;
        return SIGTERM;
    }
    if (job->signals_sent == 1 && now - job->abort_seen_ns > KILL_AFTER_NS) {
        job->signals_sent = 2;
        return SIGKILL;
    }
    return 0;
}

/* ------------------------------------------------------------ shmemu-run */

/* Copy what arrives on in to out, each line prefixed, until EOF. */
static void tag_lines(int in, int out, const char *tag)
{
    char buf[4096], line[4096 + 32];
    size_t have = 0;
    int at_start = 1;
    ssize_t n;
    while ((n = read(in, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
        for (ssize_t i = 0; i < n; i++) {
            if (at_start) {
                size_t t = strlen(tag);
                memcpy(line + have, tag, t);
                have += t;
                at_start = 0;
            }
            line[have++] = buf[i];
            if (buf[i] == '\n' || have >= 4096) {
                if (write(out, line, have) < 0)
                    return;
                have = 0;
                at_start = buf[i] == '\n';
            }
        }
    }
    if (have && write(out, line, have) < 0)
        return;
}

/* Before exec: route the PE's stdout and stderr through a small process that
 * prefixes every line with the PE number (it ends when the PE does). */
static void tag_output(int pe)
{
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0)
        return;
    pid_t t = fork();
    if (t < 0)
        return;
    if (t == 0) {
        close(out[1]);
        close(err[1]);
        char tag_out[32], tag_err[32];
        snprintf(tag_out, sizeof(tag_out), "[PE %d] ", pe);
        snprintf(tag_err, sizeof(tag_err), "[PE %d] ", pe);
        if (fork() == 0) { /* stderr in its own process: no interleaving logic */
            close(out[0]);
            tag_lines(err[0], STDERR_FILENO, tag_err);
            _exit(0);
        }
        close(err[0]);
        tag_lines(out[0], STDOUT_FILENO, tag_out);
        _exit(0);
    }
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    close(err[0]);
    close(err[1]);
}

/* In each forked PE process: hand the job over to the program and exec it. */
static int exec_entry(struct shmemu_tl_job *tl, int pe)
{
    struct shmemu__job *job = tl->core;
    char v[32];
    shmemu__plane_set_pid(job, pe, (int)getpid());
    int ok = setenv("SHMEMU_RUN_TRANSPORT", shmemu__tl_name(job), 1) == 0;
    snprintf(v, sizeof(v), "%d", tl->npes);
    ok = ok && setenv("SHMEMU_RUN_NPES", v, 1) == 0;
    snprintf(v, sizeof(v), "%d", pe);
    ok = ok && setenv("SHMEMU_RUN_PE", v, 1) == 0;
    snprintf(v, sizeof(v), "%zu", tl->heap_size);
    ok = ok && setenv("SHMEMU_RUN_HEAP_SIZE", v, 1) == 0;
    if (!ok || shmemu__tl_pe_export(job, pe) != SHMEMU_OK) {
        fprintf(stderr, "%s: PE %d: could not prepare its environment: %s\n", job->who, pe,
                tl->why);
        return 127;
    }
    if (job->tag_output)
        tag_output(pe);
    execvp(job->argv[0], job->argv);
    fprintf(stderr, "%s: PE %d: cannot run '%s': %s\n", job->who, pe, job->argv[0],
            strerror(errno));
    return 127;
}

int shmemu__run(const struct shmemu__run_opts *o)
{
    shmemu_opts opts = {.npes = o->npes,
                        .transport = o->transport ? o->transport : "shm",
                        .heap_size = o->heap_size};
    struct shmemu__job *job;
    if (shmemu__job_create(&opts, "shmemu-run", &job) != SHMEMU_OK)
        return 1;
    if (!(shmemu__tl_caps(job) & SHMEMU_TL_CAP_SPMD)) {
        fprintf(stderr,
                "shmemu-run: transport '%s' runs PEs as threads of one process; start "
                "such jobs with shmemu_launch(), or use -t shm\n",
                shmemu__tl_name(job));
        shmemu__job_free(job);
        return 2;
    }
    job->who = "shmemu-run";
    job->argv = o->argv;
    job->tag_output = o->tag_output;
    /* --timeout, else what a launched job gets: a checked program that
     * hangs is ended with a report, never left hanging a CI run. */
    double timeout = o->timeout_s > 0 ? o->timeout_s : shmemu__job_timeout(job);
    job->timeout_ns = (int64_t)(timeout * 1e9);
    job->deadline_ns = timeout > 0 ? shmemu__now_ns() + job->timeout_ns : 0;
    int st = shmemu__tl_job_run(job, exec_entry);
    int status = job->first_failure;
    /* A PE that ended the job with a status of its own (shmem_global_exit,
     * a nonzero return): that status, whichever PE the launcher reaped
     * first (the others exit 1 once aborted). */
    int rc = shmemu__plane_abort_status(job) ? shmemu__plane_result(job) : 0;
    int code;
    if (shmemu__plane_global_exit(job, &code))
        status = code & 0xff; /* as exit(code) in every PE would give */
    else {
        if (rc > 0 && rc < 256)
            status = rc;
        if (!status && (st || shmemu__plane_abort_status(job)))
            status = 1;
    }
    /* Checker mode: what it found is the launcher's to tell, as
     * shmemu_launch tells it: the notes when the job failed, and a race
     * (a note of its own) fails a job that otherwise succeeded. */
    if (shmemu__check_job_end(job, status ? SHMEMU_EABORTED : SHMEMU_OK) != SHMEMU_OK &&
        !status)
        status = 1;
    shmemu__job_free(job);
    return status;
}
