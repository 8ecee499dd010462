/*
 * bench.h - the parts of shmemu-bench that live in their own files.
 */
#ifndef SHMEMU_BENCH_H
#define SHMEMU_BENCH_H

/* `shmemu-bench coll ...` (argv[0] is "coll"); returns the exit status. */
int coll_main(int argc, char **argv);

#endif
