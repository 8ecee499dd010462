/*
 * forked - under a PMIx launcher (mpirun), forks twice per rank, and each
 * child calls shmemu_init:
 *   - while the rank is a PE of a job: the child is a copy of that PE's
 *     memory, no PE; shmemu_init refuses it (it used to count one more
 *     init of the parent's PE and go on as a duplicate of it);
 *   - after the rank finalized: the child shares its parent's connection to
 *     the PMIx server and is no rank of the job; shmemu_init refuses it at
 *     once (it used to wait in the job's fence forever).
 * Each rank prints "child R.K: status S" (K: 1, 2), joins a second job and
 * syncs in it, and rank 0 prints "ok N".
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shmemu.h"

static int child_init(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int st = shmemu_init();
        fflush(NULL);
        _exit(st == SHMEMU_OK ? 0 : -st);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 1000;
    return -WEXITSTATUS(status);
}

int main(void)
{
    if (shmemu_init() != SHMEMU_OK)
        return 10;
    int me = shmemu_my_pe(), n = shmemu_n_pes();
    printf("child %d.1: status %d\n", me, child_init());
    if (shmemu_barrier_all() != SHMEMU_OK || shmemu_finalize() != SHMEMU_OK)
        return 11;
    printf("child %d.2: status %d\n", me, child_init());
    fflush(stdout);
    if (shmemu_init() != SHMEMU_OK || shmemu_my_pe() != me || shmemu_barrier_all() != SHMEMU_OK)
        return 12;
    if (me == 0)
        printf("ok %d\n", n);
    return shmemu_finalize() == SHMEMU_OK ? 0 : 13;
}
