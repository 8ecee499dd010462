/* fiber.c - user-level contexts on fcontext (see fiber.h). */
#include "fiber.h"

#include <stdlib.h>

/* Boost.Context's interface (boost/context/detail/fcontext.hpp), which is
 * C: the Makefile renames its symbols into our prefix. */
typedef struct {
    void *fctx;
    void *data;
} shmemu_fc_transfer;
shmemu_fc_transfer shmemu_fc_jump(void *const to, void *vp);
void *shmemu_fc_make(void *sp, size_t size, void (*fn)(shmemu_fc_transfer));

#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FIBER_TSAN 1
#endif
#endif

#ifdef FIBER_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
#endif
#ifdef FIBER_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define FIBER_VALGRIND 1
#endif
#endif

static void before_jump(struct shmemu_fiber *cur, struct shmemu_fiber *next, int leaving)
{
    cur->next = next;
#ifdef FIBER_ASAN
    __sanitizer_start_switch_fiber(leaving ? NULL : &cur->asan_fake, next->stack,
                                   next->stack_size);
#else
    (void)leaving;
#endif
#ifdef FIBER_TSAN
    __tsan_switch_to_fiber(next->tsan, 0);
#endif
}

/* On the resumed side of every jump: remember where the one we came from
 * stopped. */
static void after_jump(struct shmemu_fiber *self, shmemu_fc_transfer t)
{
    struct shmemu_fiber *from = t.data;
    from->ctx = t.fctx;
#ifdef FIBER_ASAN
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(self->asan_fake, &bottom, &size);
    if (!from->map) { /* the thread's own stack: learnt on the first switch */
        from->stack = (char *)bottom;
        from->stack_size = size;
    }
#else
    (void)self;
#endif
}

static void trampoline(shmemu_fc_transfer t)
{
    struct shmemu_fiber *self = ((struct shmemu_fiber *)t.data)->next;
    after_jump(self, t);
    self->fn(self->arg);
    abort(); /* fn must leave through shmemu_fiber_exit */
}

void shmemu_fiber_root(struct shmemu_fiber *root)
{
    *root = (struct shmemu_fiber){0};
#ifdef FIBER_TSAN
    root->tsan = __tsan_get_current_fiber();
#endif
}

void shmemu_fiber_root_fini(struct shmemu_fiber *root) { (void)root; }

void shmemu_fiber_make(struct shmemu_fiber *f, char *mem, size_t stack_size, size_t guard,
                       void (*fn)(void *), void *arg)
{
    *f = (struct shmemu_fiber){.fn = fn, .arg = arg, .stack_size = stack_size, .map = mem,
                               .stack = mem + guard};
    f->ctx = shmemu_fc_make(f->stack + stack_size, stack_size, trampoline);
#ifdef FIBER_TSAN
    f->tsan = __tsan_create_fiber(0);
#endif
#ifdef FIBER_VALGRIND
    f->vg_id = VALGRIND_STACK_REGISTER(f->stack, f->stack + stack_size);
#endif
}

void shmemu_fiber_free(struct shmemu_fiber *f)
{
    if (!f->map)
        return;
#ifdef FIBER_TSAN
    __tsan_destroy_fiber(f->tsan);
#endif
#ifdef FIBER_VALGRIND
    VALGRIND_STACK_DEREGISTER(f->vg_id);
#endif
    f->map = NULL;
}

void shmemu_fiber_switch(struct shmemu_fiber *cur, struct shmemu_fiber *next)
{
    before_jump(cur, next, 0);
    shmemu_fc_transfer t = shmemu_fc_jump(next->ctx, cur);
    after_jump(cur, t);
}

_Noreturn void shmemu_fiber_exit(struct shmemu_fiber *cur, struct shmemu_fiber *next)
{
    before_jump(cur, next, 1);
    shmemu_fc_jump(next->ctx, cur);
    abort(); /* nothing switches back to a fiber that left */
}
