/*
 * internal.h - the sim transport's state, shared by its files: sim.c (the
 * scheduler, wait queues and the contract), run.c (a job's run: fibers,
 * stacks, the watchdog) and options.c (SHMEMU_SIM).
 */
#ifndef SHMEMU_SIM_INTERNAL_H
#define SHMEMU_SIM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/hostmem.h"
#include "../common/fiber.h"
#include "shmemu.h"

/* Virtual time a scheduling point takes: 1 us, so that the core's time
 * limits (SHMEMU_LIVELOCK's 2 s) are a fixed number of steps. */
#define SIM_STEP_NS 1000

enum { STRAT_RANDOM, STRAT_RR, STRAT_PCT };
enum { PE_RUNNABLE, PE_RUNNING, PE_BLOCKED, PE_DONE };

struct sim_pe {
    struct shmemu_fiber fib;
    struct sim *sim;
    int pe;
    int state;
    int err;                /* errno while switched out */
    uint64_t prio;          /* PCT */
    const uint32_t *word;   /* what it sleeps on */
    struct sim_pe *wnext;   /* wait queue */
    void *ctx;              /* the core's per-PE state (job->calls->pe_ctx) */
};

struct sim_opts {
    int strategy;
    int depth;        /* PCT: bug depth d */
    uint64_t seed;
    uint64_t steps;   /* PCT: the schedule length its change points cover */
    size_t stack;     /* bytes per fiber */
    double watchdog;  /* seconds a PE may run without a scheduling point */
    int guard;        /* a page that faults below each stack */
    int seed_given;
};

struct sim {
    struct shmemu_tl_hostmem hm; /* first: the heaps, as on local */
    struct sim_opts o;
    struct shmemu_tl_job *job;
    int (*entry)(struct shmemu_tl_job *job, int pe);
    int npes;
    struct sim_pe *pes;
    struct sim_pe *cur; /* NULL: the root (job_run's own context); stored atomically */
    struct shmemu_fiber root;
    char *ctx_mem;    /* every PE's pe_ctx, ctx_stride bytes apart */
    size_t ctx_stride;
    void *root_ctx;
    char *stacks; /* every PE's guard and stack */
    size_t stacks_len, stack_stride, guard;
    int in_gaps; /* stacks in the gaps after the heaps */
    /* Runnable PEs (the running one excluded): a ring. */
    struct sim_pe **q;
    size_t qhead, qlen, qmask;
    /* Wait queues: buckets by word address, FIFO within. */
    struct sim_pe **bhead, **btail;
    size_t bmask;
    int nblocked, ndone;
    uint64_t rng;
    uint64_t change[16]; /* PCT: steps at which the running PE's priority drops */
    int nchange, changed;
    /* What the run did (shmemu_sim_last). */
    uint64_t steps, hash;
    _Atomic uint64_t switches;
    _Atomic int foreign_wake; /* ctl_wake from another thread: wake all */
    pthread_t thread;
};


/* The value rnd() will give k draws from now, without drawing it
 * (splitmix64). */
static inline uint64_t rnd_peek(const struct sim *s, uint64_t k)
{
    uint64_t z = s->rng + k * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rnd(struct sim *s)
{
    uint64_t z = rnd_peek(s, 1);
    s->rng += 0x9e3779b97f4a7c15ULL;
    return z;
}

static inline struct sim *sim_of(struct shmemu_tl_job *job) { return job->priv; }

/* sim.c: the scheduler */
void shmemu__sim_load(struct sim *s, struct sim_pe *p);
struct sim_pe *shmemu__sim_choose(struct sim *s, int cur_runs);
void shmemu__sim_hand_over(struct sim *s, struct sim_pe *next);
struct shmemu_fiber *shmemu__sim_fib(struct sim *s, struct sim_pe *p);
void shmemu__sim_go(struct sim *s, struct sim_pe *next);
void shmemu__sim_q_push(struct sim *s, struct sim_pe *p);
void shmemu__sim_wake_all_blocked(struct sim *s);

/* run.c */
int shmemu__sim_job_run(struct shmemu_tl_job *job, int (*entry)(struct shmemu_tl_job *job, int pe));

/* options.c: SHMEMU_SIM's string into o; nonzero and why if it is bad. */
int shmemu__sim_parse_opts(const char *spec, struct sim_opts *o, char *why, size_t len);

#endif
