/* notes.c - checker mode's part of the control area and the notes that
 * explain a failed job (shmemu_check_notes). */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "check.h"
#include "hooks.h"
#include "internal.h"
#include "race.h"


static size_t notes_size(int npes)
{
    return (sizeof(struct chk_shared) + (size_t)npes * sizeof(struct chk_tgt) + 63) & ~(size_t)63;
}

size_t shmemu__check_ctl_size(const struct shmemu__job *job)
{
    if (!job->check.fuzz && !job->check.race)
        return 0;
    return notes_size(job->tl.npes) +
           (job->check.race ? shmemu__race_ctl_size(job->tl.npes, job->tl.heap_size) : 0);
}

struct chk_shared *shmemu__chk_shared(struct shmemu__job *job)
{
    return (struct chk_shared *)(void *)((char *)job->tl.ctl + job->check_ctl_off);
}

/* The race detector's part of the control area. */
void *shmemu__chk_race_area(struct shmemu__job *job)
{
    return (char *)job->tl.ctl + job->check_ctl_off + notes_size(job->tl.npes);
}

void shmemu__check_ctl_init(struct shmemu__job *job)
{
    if (job->check_ctl_off && job->check.race)
        shmemu__race_ctl_init(shmemu__chk_race_area(job), job->tl.npes, job->tl.heap_size);
}

void shmemu__chk_lock(_Atomic uint32_t *l)
{
    while (atomic_exchange_explicit(l, 1, memory_order_acquire))
        shmemu__relax();
}

void shmemu__chk_unlock(_Atomic uint32_t *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

/* A note that comes with a count of the race detector's (a race, a scope
 * error, a broken contract): the job's verdict, SHMEMU_ERACE. */
static int verdict_note(const char *text)
{
    return !strncmp(text, "race:", 5) || !strncmp(text, "scope:", 6) ||
           !strncmp(text, "contract:", 9);
}

void shmemu__check_note(struct shmemu__job *job, const char *fmt, ...)
{
    char text[CHK_NOTE_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    /* A race is the job's verdict (SHMEMU_ERACE): it is kept even where
     * explanations of other PEs' moves filled the table first (one "sync
     * with puts in flight" per PE filled it at 10 PEs, and the job ended
     * with a race no line named).  It takes the place of the newest
     * explanation, so the notes stay in the order they came. */
    int verdict = verdict_note(text);
    struct chk_shared *sh = shmemu__chk_shared(job);
    shmemu__chk_lock(&sh->lock);
    uint32_t n = sh->nnotes, dup = 0;
    for (uint32_t i = 0; i < n && !dup; i++)
        dup = strcmp(sh->notes[i], text) == 0;
    if (!dup && n == CHK_NOTES && verdict) {
        uint32_t i = n;
        while (i > 0 && verdict_note(sh->notes[i - 1]))
            i--;
        if (i > 0) { /* the newest explanation goes */
            memmove(sh->notes[i - 1], sh->notes[i], (size_t)(n - i) * sizeof(sh->notes[0]));
            n = sh->nnotes = n - 1;
            sh->dropped++;
        }
    }
    if (!dup && n < CHK_NOTES) {
        memcpy(sh->notes[n], text, sizeof(text));
        sh->nnotes = n + 1;
    } else if (!dup) {
        sh->dropped++;
    }
    shmemu__chk_unlock(&sh->lock);
}

int shmemu_check_enabled(void)
{
    shmemu__pe *me = shmemu__self;
    return me && me->chk != NULL;
}

static int notes_text(struct shmemu__job *job, char *buf, size_t len, const char *prefix)
{
    if (buf && len) /* a job without notes leaves none from the last one */
        buf[0] = '\0';
    if (!job->check_ctl_off)
        return 0;
    struct chk_shared *sh = shmemu__chk_shared(job);
    shmemu__chk_lock(&sh->lock);
    int n = (int)sh->nnotes;
    size_t used = 0;
    for (int i = 0; i < n && buf && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s\n", prefix, sh->notes[i]);
        if (w > 0)
            used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
    if (sh->dropped && buf && used + 1 < len)
        snprintf(buf + used, len - used,
                 "%s%u more note%s not kept (%d are; a race is kept first)\n", prefix,
                 sh->dropped, sh->dropped == 1 ? " was" : "s were", CHK_NOTES);
    shmemu__chk_unlock(&sh->lock);
    return n;
}

/* The notes of the last checked job launched from this process. */
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_notes[CHK_NOTES * (CHK_NOTE_LEN + 2) + 128];
static int last_count;

int shmemu_check_notes(char *buf, size_t len)
{
    if (buf && len)
        buf[0] = '\0';
    if (!shmemu__self) {
        pthread_mutex_lock(&last_lock);
        if (buf && len)
            shmemu__strlcpy(buf, last_notes, len);
        int n = last_count;
        pthread_mutex_unlock(&last_lock);
        return n;
    }
    SHMEMU__ENTER(me, "shmemu_check_notes", 0);
    shmemu__ok();
    return notes_text(me->job, buf, len, "");
}

int shmemu__check_pe_end(struct shmemu__job *job)
{
    if (!job->check_ctl_off || !job->check_told_by_pe)
        return SHMEMU_OK;
    /* Every PE drained before it got here: the last one sees every access
     * the detector will ever record. */
    struct chk_shared *sh = shmemu__chk_shared(job);
    if (atomic_fetch_add(&sh->finalized, 1) + 1 != job->tl.npes)
        return SHMEMU_OK;
    return shmemu__check_job_end(job, SHMEMU_OK);
}

int shmemu__check_job_end(struct shmemu__job *job, int rc)
{
    if (!job->check_ctl_off) { /* an unchecked job leaves no notes */
        pthread_mutex_lock(&last_lock);
        last_notes[0] = '\0';
        last_count = 0;
        pthread_mutex_unlock(&last_lock);
        return rc;
    }
    if (rc == SHMEMU_OK && job->check.race && shmemu__race_count(shmemu__chk_race_area(job)))
        rc = SHMEMU_ERACE;
    pthread_mutex_lock(&last_lock);
    last_count = notes_text(job, last_notes, sizeof(last_notes), "");
    pthread_mutex_unlock(&last_lock);
    char buf[CHK_NOTES * (CHK_NOTE_LEN + 24) + 128 + 256];
    int n = rc != SHMEMU_OK ? notes_text(job, buf, sizeof(buf) - 256, "shmemu-check: note: ") : 0;
    if (n > 0) {
        /* The seed decides the checker's choices (and sim's schedule,
         * unless SHMEMU_SIM gives one): the run that explains it, again. */
        const struct shmemu__check_cfg *c = &job->check;
        const char *sim = getenv("SHMEMU_SIM");
        char modes[64] = "";
        if (c->fuzz)
            snprintf(modes, sizeof(modes), "fuzz:%llu",
                     (unsigned long long)(c->seed ? c->seed : 1));
        size_t m = strlen(modes);
        if (c->race)
            m += (size_t)snprintf(modes + m, sizeof(modes) - m, "%s%s", m ? "," : "",
                                  c->race_calls ? "calls" : "race");
        if (c->device && m < sizeof(modes))
            snprintf(modes + m, sizeof(modes) - m, "%sdevice", m ? "," : "");
        size_t used = strlen(buf);
        snprintf(buf + used, sizeof(buf) - used,
                 "shmemu-check: replay: SHMEMU_CHECK=%s%s%s (the same choices; on sim the "
                 "same run)\n",
                 modes, sim ? " SHMEMU_SIM=" : "", sim ? sim : "");
        shmemu__emit(buf);
    }
    return rc;
}
