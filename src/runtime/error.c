/* error.c - status texts and one-line error reports (what a failure does
 * to its job is the control plane's: its fail policy, src/ctl/plane.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

_Thread_local shmemu__pe *shmemu__self;
_Thread_local int shmemu__last_status;
_Thread_local int shmemu__ctx_id;
_Thread_local const char *shmemu_compat_call;
const struct shmemu__pe_state_hooks *_Atomic shmemu__pe_state;
int shmemu__process_error_mode = -1;
const _Atomic int32_t shmemu__retired_word = SHMEMU__RETIRED;

static const struct shmemu__fail_policy *policy;

void shmemu__set_fail_policy(const struct shmemu__fail_policy *p)
{
    __atomic_store_n(&policy, p, __ATOMIC_RELEASE);
}

const char *shmemu_strerror(int status)
{
    switch (status) {
#define X(name, value, text)                                                   \
    case name:                                                                 \
        return text;
        SHMEMU_STATUS_LIST(X)
#undef X
    }
    return "unknown status";
}

int shmemu_last_status(void) { return shmemu__last_status; }

/* Statuses that describe the job, not the call: every PE sees the same one,
 * so only the first report is printed. */
static int job_wide(int status)
{
    return status == SHMEMU_EABORTED || status == SHMEMU_EDEADLOCK;
}

/* One write(2) per line, so lines from concurrent PEs never interleave. */
void shmemu__emit(const char *line)
{
    size_t len = strlen(line);
    while (len) {
        ssize_t n = write(STDERR_FILENO, line, len);
        if (n <= 0)
            return;
        line += n;
        len -= (size_t)n;
    }
}

/* The PE ends: back to its entry where the launcher started it as a
 * function, else the process exits with code. */
static _Noreturn void end_pe(shmemu__pe *me, int code)
{
    if (me->abort_jmp)
        longjmp(*me->abort_jmp, 1);
    exit(code);
}

int shmemu__fail(shmemu__pe *me, int status, const char *call, const char *fmt, ...)
{
    char msg[400], line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    shmemu__last_status = status;
    call = shmemu__user_call(call);
    int code;
    const struct shmemu__fail_policy *pol = __atomic_load_n(&policy, __ATOMIC_ACQUIRE);
    if (me && !pol)
        me = NULL; /* no job layer (cannot happen with a PE): report only */
    if (me && job_wide(status) && pol->global_exit(me->job, &code)) {
        /* Another PE ended the job on purpose: this one ends too, quietly,
         * with that PE's status (OpenSHMEM's shmem_global_exit). */
        end_pe(me, code);
    }
    if (!me) {
        snprintf(line, sizeof(line), "shmemu: %s: %s\n", call, msg);
        shmemu__emit(line);
        return status;
    }
    snprintf(line, sizeof(line), "shmemu: PE %d/%d %s: %s\n", me->pe, me->npes,
             call, msg);
    if (!job_wide(status) || pol->claim_report(me->job))
        shmemu__emit(line);

    int abort_mode = pol->error_mode(me->job) == SHMEMU_ERRORS_ABORT;
    if (abort_mode || job_wide(status)) {
        line[strlen(line) - 1] = '\0';
        /* Our line is the report: claim it before the abort wakes the
         * others, or one released at once prints a line of its own. */
        (void)pol->claim_report(me->job);
        pol->abort_job(me->job, job_wide(status) ? status : SHMEMU_EABORTED,
                       me->pe, status, line + strlen("shmemu: "), NULL);
    }
    if (abort_mode)
        end_pe(me, EXIT_FAILURE); /* an SPMD process ends the job */
    return status;
}

/* An OpenSHMEM routine called where there is no PE: it returns nothing to
 * say so, and a program that went on would compute with what it did not
 * get; so, as other OpenSHMEM libraries do, the process ends (status 1)
 * unless the program asked for RETURN.  shmem_finalize once too often is
 * harmless and only said. */
static void end_outside_pe(const char *user_call)
{
    if (strcmp(shmemu__api_of(user_call), "shmem") != 0 || !strcmp(user_call, "shmem_finalize"))
        return;
    struct shmemu__params p; /* no job to hold them: SHMEMU_ERRORS as a job reads it */
    char why[256];
    int mode = shmemu__process_error_mode >= 0 ? shmemu__process_error_mode
               : shmemu__params_load(&p, why, sizeof(why)) == SHMEMU_OK ? p.ERRORS
                                                                         : SHMEMU_ERRORS_ABORT;
    if (mode == SHMEMU_ERRORS_ABORT) {
        /* _exit: the call may come from a thread while main is in exit */
        fflush(NULL);
        _exit(EXIT_FAILURE);
    }
}

int shmemu__enter_fail(shmemu__pe *me, const char *call)
{
    /* Name the program's own init and finalize, shmemu's or OpenSHMEM's. */
    const char *user = shmemu__user_call(call), *api = shmemu__api_of(user);
    int st;
    if (me && shmemu__retired(me)) {
        shmemu__self = NULL; /* the thread is a PE's no longer */
        st = shmemu__fail(NULL, SHMEMU_EINVAL, call,
                          "called after %s_finalize: this thread called as PE %d, "
                          "which has finalized",
                          api, me->pe);
    } else if (!me) {
        st = shmemu__fail(NULL, SHMEMU_EINVAL, call,
                          "called outside a PE (no %s_init, or after %s_finalize, or "
                          "from a thread that is not a PE)",
                          api, api);
    } else {
        return shmemu__fail(me, shmemu__aborted(me), call, "the job was aborted");
    }
    end_outside_pe(user);
    return st;
}

int shmemu__collective_fail(shmemu__pe *me, int reporter, int status, const char *call,
                            const char *fmt, ...)
{
    if (!reporter)
        return shmemu__last_status = status;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return shmemu__fail(me, status, call, "%s", msg);
}

int shmemu__collective_refuse(shmemu__pe *me, int reporter, int status, const char *call,
                              const char *fmt, ...)
{
    shmemu__last_status = status;
    if (!reporter)
        return status;
    char msg[400], line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(line, sizeof(line), "shmemu: PE %d/%d %s: %s\n", me->pe, me->npes,
             shmemu__user_call(call), msg);
    shmemu__emit(line);
    return status;
}

int shmemu_error(int status, const char *call, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return shmemu__fail(shmemu__self, status, call ? call : "?", "%s", msg);
}
