/*
 * bench.h - the parts of shmemu-bench that live in their own files.
 */
#ifndef SHMEMU_BENCH_H
#define SHMEMU_BENCH_H

/* `shmemu-bench coll ...` (argv[0] is "coll"); returns the exit status. */
int coll_main(int argc, char **argv);

/* How many calls to make, the same on every PE: as many as fill budget_ns
 * at each_ns apiece (PE 0's measure counts), at most `most`, at least
 * `least` (or `most`, if less).  PE 0 sends it through sym (a symmetric
 * long) and every PE reads it back after a barrier; every PE calls this. */
long bench_agreed_count(long *sym, double each_ns, double budget_ns, long most, long least);

#endif
