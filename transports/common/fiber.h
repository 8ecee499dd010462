/*
 * fiber.h - user-level contexts (the sim transport's PEs, a kernel's device
 * threads on every CPU transport: src/device): a stack of its own
 * (with an inaccessible guard page below it) and a switch that saves and
 * restores only the callee-saved registers.
 *
 * The switch is Boost.Context's fcontext (the assembly of Debian's
 * libboost-context-dev, symbols renamed into our prefix at build time):
 * about 10 ns a switch where glibc's swapcontext pays a sigprocmask system
 * call each time (docs/DESIGN.md has the figures).  AddressSanitizer,
 * ThreadSanitizer and valgrind are told about every stack and switch.
 */
#ifndef SHMEMU_COMMON_FIBER_H
#define SHMEMU_COMMON_FIBER_H

#include <stddef.h>

struct shmemu_fiber {
    void *ctx;         /* the suspended context (fcontext) */
    char *stack;       /* usable stack: [stack, stack + stack_size) */
    size_t stack_size;
    char *map;         /* guard (inaccessible), then the stack */
    void (*fn)(void *arg);
    void *arg;
    struct shmemu_fiber *next; /* set by a switch: where it goes */
    void *asan_fake;   /* AddressSanitizer's fake stack while suspended */
    void *tsan;        /* ThreadSanitizer's fiber */
    unsigned vg_id;    /* valgrind's stack id */
};

/* The running thread's own context, to switch back to (no stack of ours). */
void shmemu_fiber_root(struct shmemu_fiber *root);
void shmemu_fiber_root_fini(struct shmemu_fiber *root);

/* A fiber that will run fn(arg) on the stack_size bytes at mem + guard; the
 * caller owns mem and has made [mem, mem + guard) inaccessible.  fn must
 * end with shmemu_fiber_exit. */
void shmemu_fiber_make(struct shmemu_fiber *f, char *mem, size_t stack_size, size_t guard,
                       void (*fn)(void *), void *arg);
/* Forget f (the caller unmaps its memory). */
void shmemu_fiber_free(struct shmemu_fiber *f);

/* Suspend cur and run next; returns when something switches back to cur. */
void shmemu_fiber_switch(struct shmemu_fiber *cur, struct shmemu_fiber *next);
/* Leave cur for good (its fn is done) and run next. */
_Noreturn void shmemu_fiber_exit(struct shmemu_fiber *cur, struct shmemu_fiber *next);

/* Is addr inside f's guard area? */
static inline int shmemu_fiber_in_guard(const struct shmemu_fiber *f, const void *addr)
{
    return f->map && (const char *)addr >= f->map && (const char *)addr < f->stack;
}

#endif /* SHMEMU_COMMON_FIBER_H */
