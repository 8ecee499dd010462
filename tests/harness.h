/*
 * harness.h - run test bodies on every transport and many PE counts.
 *
 * A body runs on every PE (a thread or a process), so it must not use
 * cmocka's assert_* (they unwind the main thread's stack).  It uses PE_CHECK*
 * instead: a failure prints "FAIL PE p/n file:line: ..." and makes the body
 * return 1, which fails the job; the main thread then asserts on the result.
 *
 * Environment: SHMEMU_TEST_TRANSPORTS=local,shm narrows the transports;
 * SHMEMU_TEST_QUICK=1 trims PE counts and iteration counts (sanitizers,
 * valgrind).
 */
#ifndef SHMEMU_TEST_HARNESS_H
#define SHMEMU_TEST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka.h needs the four above first. */
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>

#include "shmemu.h"

/* TH_TSAN: built with ThreadSanitizer (gcc says so one way, clang another):
 * tests that plant races on purpose tell it which ones. */
#if defined(__SANITIZE_THREAD__)
#define TH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TH_TSAN 1
#endif
#endif
/* TH_ASAN: built with AddressSanitizer, whose memcpy the kernels' copies
 * then call (a string move: recorded whole, not one store at a time). */
#if defined(__SANITIZE_ADDRESS__)
#define TH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TH_ASAN 1
#endif
#endif

#define TH_HEAP ((size_t)8 << 20) /* default test heap per PE */

/* Transports under test (compiled in, usable here, allowed by the filter). */
int th_transport_count(void);
const char *th_transport(int i);
/* 1 where checker mode's shmemu_ptr gives peers' pointers as checked views
 * (docs/CHECK.md: transports that can map a heap again, x86-64, not under
 * valgrind): local, shm and sim. */
int th_checked_ptrs(const char *transport);
/* 1 where race detection watches a PE's own stores (docs/CHECK.md): where
 * checked pointers work, not in a ThreadSanitizer build. */
int th_own_stores(const char *transport);

/* 1 under SHMEMU_TEST_QUICK: fewer PEs and iterations. */
int th_quick(void);
/* Running under valgrind (make valgrind): its address space and its one
 * thread at a time bound what a test can ask for. */
int th_under_valgrind(void);
/* n, or n / div (at least 1) in quick mode. */
long th_iters(long n, long div);

/* shmemu_launch with these settings; body runs under the PE_CHECK trap. */
int th_launch(const char *transport, int npes, size_t heap, int (*body)(void *),
              void *arg);

/* The same with every setting of o as given (heap_size 0: the
 * environment's or the default). */
int th_launch_opts(const shmemu_opts *o, int (*body)(void *), void *arg);

/* For every transport and every npes in the list (ending with 0), launch body
 * and assert that it succeeded.  Under mpirun (th_mpirun_npes), the cases of
 * the mpirun job's size run as jobs of it, the others are left out. */
void th_run(int (*body)(void *), void *arg, const int *npes_list, size_t heap);
#define TH_NPES(...) ((const int[]){__VA_ARGS__, 0})
/* The PE counts the foundation asks for: {1, 2, 3, 4, 7, 8, 16}. */
#define TH_NPES_ALL TH_NPES(1, 2, 3, 4, 7, 8, 16)

/* N when this test program is one of the N processes of an mpirun job
 * (SHMEMU_TEST_MPIRUN=N, set by scripts/test-ucx.sh), else 0.  There,
 * th_launch skips the test (its jobs' endings would end the mpirun job). */
int th_mpirun_npes(void);
/* In a process this test forks to stand alone as an SPMD program: call
 * before shmemu_init.  Without, under mpirun it would take itself for a
 * rank of the mpirun job (shmemu_init refuses a fork of a rank). */
void th_leave_launcher(void);
/* Skip the calling test, saying why: prints "# skipped: WHY" (the line
 * scripts/run-tests.sh lists once in its summary) and ends the test.  A
 * test skipped without such a line is counted as failed there. */
void th_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Under mpirun, skip the calling test, saying why (the forked runs cover
 * it); nothing otherwise. */
void th_skip_under_mpirun(const char *why);

/* The transport name's entry in the registry: 1 if it can run here, else
 * 0 with the reason in why (a test failure if it is not listed at all). */
int th_transport_usable(const char *name, char *why, size_t len);
/* As th_transport_usable, and SHMEMU_TEST_TRANSPORTS (when set) selects it:
 * for tests that name their transports, so that a pass over one
 * transport (make test-ucx, the TSan stage) does not run them on others. */
int th_transport_wanted(const char *name, char *why, size_t len);
/* The comma-separated list of the NAMES (a comma-separated list) that
 * th_transport_wanted accepts, for a tool's --transport, in out; "" when
 * none, with the last one's reason in why. */
const char *th_transports_wanted(const char *names, char *out, size_t len, char *why,
                                 size_t wlen);

/* The build directory the running test binary sits in (.../build), found
 * from /proc/self/exe: where the tools and test programs are. */
const char *th_build_dir(void);

/* Run a program (argv[0] a path) with extra NAME=VALUE environment entries
 * (env NULL-terminated, or NULL); its stdout and stderr together land in
 * out, then status (its wait status) and secs (wall time) are set. */
struct th_outcome {
    int status;
    double secs;
    char out[16384];
};
void th_run_cmd(char *const argv[], const char *const env[], struct th_outcome *o);
/* The same for child() in a forked process (it should _exit). */
void th_fork_cmd(void (*child)(void), struct th_outcome *o);
/* build_dir/rel, in one of 8 rotating buffers. */
char *th_tool(const char *rel);

/* Capture what the process writes to stderr between start and stop (also
 * from PE threads and forked PE processes); stop returns a malloc'd,
 * NUL-terminated copy.  Under mpirun, stop skips the rest of the test. */
void th_capture_start(void);
char *th_capture_stop(void);

/* Inside a body. */
void th_pe_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
#define PE_CHECK(cond)                                                         \
    do {                                                                       \
        if (!(cond))                                                           \
            th_pe_fail(__FILE__, __LINE__, "%s", #cond);                       \
    } while (0)
#define PE_CHECK_EQ(a, b)                                                      \
    do {                                                                       \
        long long th_a_ = (long long)(a), th_b_ = (long long)(b);              \
        if (th_a_ != th_b_)                                                    \
            th_pe_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b,   \
                       th_a_, th_b_);                                          \
    } while (0)
#define PE_CHECK_OK(expr) PE_CHECK_EQ((expr), SHMEMU_OK)

/* Deterministic test data: byte i of a buffer filled for (pe, salt). */
static inline unsigned char th_byte(int pe, size_t i, unsigned salt)
{
    uint64_t x = ((uint64_t)(unsigned)pe << 40) ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ salt;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (unsigned char)x;
}
void th_fill(void *buf, size_t n, int pe, unsigned salt);
/* Index of the first byte that differs from th_fill's pattern, or -1. */
long th_verify(const void *buf, size_t n, int pe, unsigned salt);

#endif
