/* say.c - see say.h. */
#include <stdarg.h>
#include <stdio.h>

#include "say.h"

void shmemu_tl_say(struct shmemu_tl_job *job, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->why, sizeof(job->why), fmt, ap);
    va_end(ap);
}
