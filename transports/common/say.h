/* say.h - a transport's one-line reason for a failed lifecycle call. */
#ifndef SHMEMU_TL_SAY_H
#define SHMEMU_TL_SAY_H

#include "../transport.h"

/* printf into job->why (what the core prints in its report). */
void shmemu_tl_say(struct shmemu_tl_job *job, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* SHMEMU_TL_SAY_H */
