/*
 * verify-isolate.h - a user's algorithm run as it runs on GPUs: one
 * process per rank, so one copy of its library per PE.
 *
 * On the transports whose PEs are threads or fibers of one process
 * (local, staged, sim), a library's static variables would be shared by
 * every PE and outlive the job: a handle made once, a call counter, a
 * cached workspace pointer - what every GPU collective keeps - would be
 * wrong there and right on shm.  So each PE calls a copy of the library
 * of its own, and each run of a case is a child process: a crash, or a
 * spin that only ending the process stops, fails that case alone, with
 * the case named, and the next case starts from fresh statics.
 */
#ifndef SHMEMU_VERIFY_ISOLATE_H
#define SHMEMU_VERIFY_ISOLATE_H

#include "shmemu.h"

/* Use the library at path (already checked to load, with symbol sym) for
 * isolated runs.  0, or -1 (said on stderr) if its copies cannot be made. */
int isolate_init(const char *path, const char *sym);

/* 1 if a case on this transport runs isolated: PEs that share this
 * process. */
int isolate_wanted(const char *transport);

/* Runs the case in a child process whose PEs each call their own copy of
 * the library; fills res as shmemu_verify_run does (a child that died is
 * a failed case saying how).  *sched: the sim schedule's hash of that
 * run, 0 if none.  Returns what shmemu_verify_run returned. */
int isolate_run(const shmemu_verify_case *vc, shmemu_verify_result *res, uint64_t *sched);

#endif
