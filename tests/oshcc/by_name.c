/*
 * by_name.c - an OpenSHMEM program that finds routines by name, as test
 * suites (dlsym before each test) and bindings of other languages do.
 * test_compat builds it with oshcc (shared library)
 * at test time and runs it under oshrun.  Prints "missing NAME" for a
 * routine the library does not export, then, on PE 0, "sum S want W
 * missing M" after each PE added me + 1 to PE 0's counter through the
 * looked-up shmem_long_atomic_fetch_add and shmem_barrier_all.  Includes
 * the header under its older name, <mpp/shmem.h>, as Cray-era suites do.
 */
#include <dlfcn.h>
#include <mpp/shmem.h>
#include <stdio.h>
#include <string.h>

static long counter;

/* One routine or more of every family shmem.h defines. */
static const char *const names[] = {
    "shmem_init", "shmem_init_thread", "shmem_finalize", "shmem_global_exit",
    "shmem_my_pe", "shmem_n_pes", "_my_pe", "_num_pes", "start_pes",
    "shmem_info_get_version", "shmem_pe_accessible", "shmem_addr_accessible", "shmem_ptr",
    "shmem_malloc", "shmem_calloc", "shmem_align", "shmem_realloc", "shmem_free",
    "shmem_malloc_with_hints", "shmalloc", "shfree", "shrealloc", "shmemalign",
    "shmem_int_put", "shmem_double_get", "shmem_putmem", "shmem_getmem_nbi", "shmem_put64",
    "shmem_long_p", "shmem_float_g", "shmem_short_iput", "shmem_iget32", "shmem_ibput64",
    "shmem_ctx_int_put_nbi", "shmem_ctx_putmem",
    "shmem_int_atomic_add", "shmem_long_atomic_fetch_add", "shmem_ulong_atomic_fetch_xor",
    "shmem_long_atomic_compare_swap", "shmem_ctx_int_atomic_fetch_inc_nbi",
    "shmem_int_atomic_swap_nbi", "shmem_long_finc",
    "shmem_long_put_signal", "shmem_putmem_signal_nbi", "shmem_signal_fetch",
    "shmem_signal_wait_until", "shmem_int_wait_until", "shmem_long_test_some_vector",
    "shmem_int_wait_until_all", "shmem_wait_until",
    "shmem_quiet", "shmem_fence", "shmem_ctx_quiet", "shmem_pe_quiet",
    "shmem_barrier_all", "shmem_barrier", "shmem_sync_all", "shmem_team_sync",
    "shmem_long_sum_to_all", "shmem_longdouble_prod_to_all", "shmem_int_sum_reduce",
    "shmem_double_max_reduce", "shmem_complexd_sum_reduce", "shmem_int_sum_inscan",
    "shmem_broadcast64", "shmem_fcollect32", "shmem_int_alltoalls", "shmem_long_broadcast",
    "shmem_team_split_strided", "shmem_team_my_pe", "shmem_team_destroy",
    "shmem_ctx_create", "shmem_ctx_destroy", "shmem_set_lock", "shmem_test_lock",
    "shmem_clear_lock",
};

int main(void)
{
    shmem_init();
    void *self = dlopen(NULL, RTLD_LAZY);
    int missing = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!self || !dlsym(self, names[i])) {
            printf("missing %s\n", names[i]);
            missing++;
        }
    long (*fetch_add)(long *, long, int) = NULL;
    void (*barrier_all)(void) = NULL;
    void *sym = self ? dlsym(self, "shmem_long_atomic_fetch_add") : NULL;
    memcpy(&fetch_add, &sym, sizeof(fetch_add));
    sym = self ? dlsym(self, "shmem_barrier_all") : NULL;
    memcpy(&barrier_all, &sym, sizeof(barrier_all));
    if (fetch_add && barrier_all) {
        barrier_all();
        (void)fetch_add(&counter, shmem_my_pe() + 1, 0);
        barrier_all();
    }
    int n = shmem_n_pes();
    if (shmem_my_pe() == 0)
        printf("sum %ld want %d missing %d\n", counter, n * (n + 1) / 2, missing);
    if (self)
        dlclose(self);
    shmem_finalize();
    return missing != 0;
}
