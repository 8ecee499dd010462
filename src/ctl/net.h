/*
 * net.h - the control plane where the job's processes share no memory
 * (PEs on several nodes: tl.ctl_remote), for src/ctl/ alone.
 *
 * Every process keeps a copy of the control area with the shared plane's
 * layout (ctl.h), inside its heap's registration, and peers reach it with
 * the transport's RMA and atomics.  Each word has one home:
 *
 *  - a PE's block (life, records, wait state): its own copy; a departure
 *    is also written into every copy, so that syncs see it locally;
 *  - the abort word: every copy (each PE tests its own on every call); PE
 *    0's decides which abort wins, and the winner writes every copy;
 *  - team slots' membership, references and the report claim: PE 0's;
 *  - a team sync's arrivals: each member's copy, told by the members that
 *    precede it by 1, 2, 4 ... in the team (a dissemination barrier).
 *
 * Nobody can wake a process across a network: a PE that waits here spins,
 * yields, then naps on its own word for at most NET_NAP_MAX_NS at a time,
 * driving the transport's progress in between.  Deadlock detection counts
 * napping PEs at PE 0 and proves a deadlock from their blocks (net.c).
 */
#ifndef SHMEMU_NET_H
#define SHMEMU_NET_H

/* Its entry points are declared with the calls they serve (plane.h,
 * wait.h), so that plane.c and wait.c need not include this header. */
#include "plane.h"
#include "wait.h"

#endif /* SHMEMU_NET_H */
