# shmemu - build, test, install.
#
#   make            libraries and tools in build/
#   make run        shmemu-verify: every built-in collective, default matrix
#   make demo       examples/ring.c on 4 local PEs
#   make test       the cmocka suite, quick form, on local, shm and sim (minutes)
#   make test-full  the suite at full size on every transport, then ucx
#   make check      everything (installs UCX, PMIx, Open MPI): what CI runs
#   make asan       the suite under AddressSanitizer + UBSan (build-asan/)
#   make tsan       the quick suite under ThreadSanitizer, local transport (build-tsan/)
#   make valgrind   the suite under valgrind memcheck, local transport
#   make stress     200 random PE crashes under shmemu-run (STRESS_RUNS=n)
#   make bench      build/shmemu-bench, then run it
#   make install PREFIX=/some/dir
#
# Missing Debian packages (libhwloc-dev, libboost-context-dev, libcmocka-dev)
# are installed with apt-get by scripts/ensure-deps.sh.

# Every core builds unless the caller chose (make -jN); sub-makes share
# the top one's jobs.  The tests themselves run one program at a time.
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

CC      ?= cc
OBJCOPY ?= objcopy
PREFIX  ?= /usr/local
BUILD   ?= build
SAN     ?=
OPT     ?= -O2

WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wpointer-arith -Wformat=2
CPPFLAGS_ALL := -D_GNU_SOURCE -Iinclude -Isrc -Itransports
CFLAGS_ALL   := $(WARN) $(OPT) -g -pthread -fPIC $(CFLAGS)
LDLIBS_ALL    = -pthread $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc) -lm -ldl

ifeq ($(SAN),asan)
  CFLAGS_ALL += -fsanitize=address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=all
  LDFLAGS    += -fsanitize=address,undefined
else ifeq ($(SAN),tsan)
  CFLAGS_ALL += -fsanitize=thread -fno-omit-frame-pointer
  LDFLAGS    += -fsanitize=thread
endif

# `make V=1` shows whole command lines.
ifeq ($(V),1)
  Q :=
  say := @true
else
  Q := @
  say := @printf '  %-6s %s\n'
endif

VERSION := $(shell sed -n 's/^\#define SHMEMU_VERSION_STRING "\(.*\)"/\1/p' include/shmemu.h)

LIB_SRC   := $(wildcard src/*/*.c) $(wildcard transports/*/*.c)
# Kernel files of the library (the device-initiated built-ins), built as
# C.  Without shmemu-devcc's loop hook: their threads wait only in device
# calls, which yield, never on a plain load, and the hook on every basic
# block of their element loops cost half their time.
LIB_CU    := $(wildcard src/*/*.cu)
LIB_OBJ   := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRC)) $(patsubst %.cu,$(BUILD)/obj/%.o,$(LIB_CU))
TEST_SRC  := $(wildcard tests/test_*.c)
TEST_BIN  := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
TEST_LIB  := $(BUILD)/obj/tests/harness.o
# Kernel files built with shmemu-devcc (test_devcc runs them).
DEV_PROGS = $(BUILD)/tests/dev_spin $(BUILD)/examples/device_allreduce \
            $(BUILD)/examples/libmy_device_allreduce.so $(BUILD)/tests/libflag_barriers.so \
            $(BUILD)/tests/libll_allgather.so $(BUILD)/tests/libhandle_allreduce.so \
            $(BUILD)/tests/libvectors.so $(BUILD)/tests/libpull_twoshot.so $(DEV_CUDA_PROGS)
TEST_PROG := $(patsubst tests/progs/%.c,$(BUILD)/tests/progs/%,$(wildcard tests/progs/*.c))
# The generic names once more as C++ (shmem.h's overloads), where there is a
# C++ compiler; test_compat says so when there is none.
HAVE_CXX  := $(shell command -v $(CXX) >/dev/null 2>&1 && echo yes)
ifeq ($(HAVE_CXX),yes)
  TEST_PROG += $(BUILD)/tests/progs/osh_generic_cxx
endif
DEPS_LIB  := $(BUILD)/.deps-lib
DEPS_TEST := $(BUILD)/.deps-test

.PHONY: test-multinode all lib ucx-plugin test-ucx check-tree test-deps test test-full check test-docs asan tsan valgrind run demo bench install clean stress
.DEFAULT_GOAL := all
.SECONDARY:

TOOLS     := $(BUILD)/shmemu-run $(BUILD)/shmemu-info $(BUILD)/shmemu-verify \
             $(BUILD)/oshcc $(BUILD)/oshc++ $(BUILD)/oshcxx $(BUILD)/oshrun $(BUILD)/shmemu-devcc
EXAMPLE_LIBS := $(BUILD)/examples/libmy_allreduce.so $(BUILD)/examples/libmy_allreduce_buggy.so \
                $(BUILD)/examples/libtiny_allreduce.so

# The cuda transport's plugin (transports/cuda/plugin.h): built where a CUDA
# toolkit is found (nvcc on the PATH, under CUDA_HOME or /usr/local/cuda);
# libshmemu itself never links CUDA.  CUDA 13 runs on sm_75 and newer: PTX
# for sm_75 (JIT-compiled for any later GPU) and code for Hopper.
CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda))
NVCC      ?= $(firstword $(shell command -v nvcc 2>/dev/null) \
                          $(wildcard $(CUDA_HOME)/bin/nvcc))
NVCC_ARCH ?= -gencode arch=compute_75,code=compute_75 -gencode arch=compute_90,code=sm_90
CUDA_LIBDIR = $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))/lib64
CUDA_PLUGIN := $(if $(NVCC),$(BUILD)/libshmemu-cuda.so)
# A CUDA program of a user's kind (kernels on peers' heaps through
# shmemu_ptr): test_cuda runs it where a GPU answers.  Not in sanitizer
# builds: nvcc links without their runtimes (and CUDA's runtime wants
# ASan's shadow gap unprotected).
CUDA_TESTS  := $(if $(SAN),,$(if $(NVCC),$(BUILD)/tests/cuda_kernels))

# The ucx transport's plugin (transports/ucx/plugin.h): built where
# pkg-config finds UCX (Debian's libucx-dev, which `make test` installs);
# libshmemu itself never links UCX.
HAVE_UCX   := $(shell pkg-config --exists ucx 2>/dev/null && echo yes)
UCX_PLUGIN := $(if $(HAVE_UCX),$(BUILD)/libshmemu-ucx.so)
# The PMIx bootstrap's plugin (src/job/boot_pmix.h): built where pkg-config
# finds PMIx (Debian's libpmix-dev); with it, processes that mpirun started
# join its job.
HAVE_PMIX   := $(shell pkg-config --exists pmix 2>/dev/null && echo yes)
PMIX_PLUGIN := $(if $(HAVE_PMIX),$(BUILD)/libshmemu-pmix.so)

# shmemu-bench coll runs Open MPI's collectives beside ours where mpicc is.
# (mpicc alone is not enough: Debian's openmpi-bin has it without mpi.h.)
MPICC     := $(shell command -v mpicc >/dev/null 2>&1 && \
               printf '\043include <mpi.h>\n' | mpicc -E -x c - >/dev/null 2>&1 && command -v mpicc)
MPI_BENCH := $(if $(MPICC),$(BUILD)/mpi-coll-bench)

all: lib $(TOOLS) $(BUILD)/shmemu-bench $(BUILD)/fiber-switch $(BUILD)/device-bench $(MPI_BENCH) $(BUILD)/examples/ring \
     $(BUILD)/examples/hello_spmd $(EXAMPLE_LIBS) $(BUILD)/examples/device_allreduce \
     $(BUILD)/examples/libmy_device_allreduce.so
lib: $(BUILD)/libshmemu.a $(BUILD)/libshmemu.so $(BUILD)/libshmemu.so.0 $(CUDA_PLUGIN) $(UCX_PLUGIN) \
     $(PMIX_PLUGIN)

# Beside libshmemu, where the transport looks for it; libcudart is found
# through a run path to the toolkit that built it.
# The library's kernel files go in too: on cuda, a launch of one of them
# runs the twin nvcc built here (transports/cuda/plugin.h, kernel).
$(BUILD)/libshmemu-cuda.so: transports/cuda/plugin/plugin.cu transports/cuda/plugin.h \
                            transports/transport.h include/shmemu.h include/shmemu_device.h \
                            $(LIB_CU) src/coll/device.h
	@mkdir -p $(@D)
	$(say) NVCC $@
	$(Q)$(NVCC) -std=c++17 -O2 -shared -Werror all-warnings \
	  -Xcompiler -fPIC,-Wall,-Wextra,-Werror,-fvisibility=hidden \
	  -Iinclude -Itransports $(NVCC_ARCH) -cudart shared \
	  -Xlinker -rpath=$(CUDA_LIBDIR) -o $@ $< $(LIB_CU)

# The kernel files again, built by nvcc for the cuda transport (-Werror):
# one source, two builds.  test_cuda runs them where a GPU answers.
DEV_CUDA_PROGS := $(if $(SAN),,$(if $(NVCC),$(BUILD)/tests/dev_spin_cuda \
                    $(BUILD)/examples/device_allreduce_cuda \
                    $(BUILD)/examples/libmy_device_allreduce_cuda.so \
                    $(BUILD)/tests/libflag_barriers_cuda.so $(BUILD)/tests/libll_allgather_cuda.so \
                    $(BUILD)/tests/libhandle_allreduce_cuda.so $(BUILD)/tests/libvectors_cuda.so \
                    $(BUILD)/tests/libpull_twoshot_cuda.so))
$(BUILD)/tests/dev_spin_cuda: tests/device/spin.cu
$(BUILD)/examples/device_allreduce_cuda: examples/device_allreduce.cu
$(BUILD)/tests/dev_spin_cuda $(BUILD)/examples/device_allreduce_cuda: include/shmemu.h \
                                    include/shmemu_device.h $(BUILD)/libshmemu.a
	@mkdir -p $(@D)
	$(say) NVCC $@
	$(Q)$(NVCC) -std=c++17 -O2 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror,-pthread \
	  -Iinclude $(NVCC_ARCH) -cudart shared -Xlinker -rpath=$(CUDA_LIBDIR) -o $@ \
	  $(filter %.cu,$^) $(BUILD)/libshmemu.a $(filter-out -pthread,$(LDLIBS_ALL)) -lpthread

$(BUILD)/examples/libmy_device_allreduce_cuda.so: examples/my_device_allreduce.cu include/shmemu.h \
                                                  include/shmemu_device.h
	@mkdir -p $(@D)
	$(say) NVCC $@
	$(Q)$(NVCC) -std=c++17 -O2 -shared -Werror all-warnings -Xcompiler -fPIC,-Wall,-Wextra,-Werror \
	  -Iinclude $(NVCC_ARCH) -cudart shared -Xlinker -rpath=$(CUDA_LIBDIR) -o $@ $<
$(BUILD)/tests/lib%_cuda.so: tests/device/%.cu include/shmemu.h include/shmemu_device.h
	@mkdir -p $(@D)
	$(say) NVCC $@
	$(Q)$(NVCC) -std=c++17 -O2 -shared -Werror all-warnings -Xcompiler -fPIC,-Wall,-Wextra,-Werror \
	  -Iinclude $(NVCC_ARCH) -cudart shared -Xlinker -rpath=$(CUDA_LIBDIR) -o $@ $<
# -cudart shared: the program and the plugin share one CUDA runtime.
$(BUILD)/tests/cuda_kernels: tests/cuda/kernels.cu include/shmemu.h include/shmemu_cuda.h \
                             $(BUILD)/libshmemu.a
	@mkdir -p $(@D)
	$(say) NVCC $@
	$(Q)$(NVCC) -std=c++17 -O2 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror,-pthread \
	  -Iinclude $(NVCC_ARCH) -cudart shared -Xlinker -rpath=$(CUDA_LIBDIR) -o $@ $< \
	  $(BUILD)/libshmemu.a $(filter-out -pthread,$(LDLIBS_ALL)) -lpthread

UCX_PLUGIN_SRC := $(wildcard transports/ucx/plugin/*.c)
$(BUILD)/libshmemu-ucx.so: $(UCX_PLUGIN_SRC) transports/ucx/plugin/internal.h transports/ucx/plugin.h \
                           transports/transport.h include/shmemu.h | $(DEPS_LIB)
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) -fvisibility=hidden \
	  $(shell pkg-config --cflags ucx) -shared $(LDFLAGS) -o $@ $(UCX_PLUGIN_SRC) \
	  $(shell pkg-config --libs ucx)

$(BUILD)/libshmemu-pmix.so: src/job/pmix/pmix.c src/job/boot_pmix.h transports/common/plugin.h \
                            include/shmemu.h | $(DEPS_LIB)
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) -fvisibility=hidden \
	  $(shell pkg-config --cflags pmix) -shared $(LDFLAGS) -o $@ src/job/pmix/pmix.c \
	  $(shell pkg-config --libs pmix)

# After `make test` installed UCX, a fresh make sees it.
ucx-plugin: $(UCX_PLUGIN) $(PMIX_PLUGIN)

$(DEPS_LIB):
	@mkdir -p $(@D)
	@CC="$(CC)" scripts/ensure-deps.sh hwloc boost-context libdw
	@touch $@

$(DEPS_TEST): $(DEPS_LIB)
	@scripts/ensure-deps.sh hwloc cmocka
	@touch $@

# The library's own writable data in sections of their own names: linked
# into a program, they stay apart from the program's static data, which
# checker mode watches (src/check/own.c finds them by __start_shmemu_data).
# Its code too: a load of the heap from there is the library's, not the
# program's (own.c, by __start_shmemu_text).
LIB_SECTIONS = --rename-section .data=shmemu_data --rename-section .data.rel.local=shmemu_data \
               --rename-section .data.rel=shmemu_data --rename-section .bss=shmemu_bss \
               --rename-section .text=shmemu_text --rename-section .text.unlikely=shmemu_text \
               --rename-section .text.hot=shmemu_text --rename-section .text.startup=shmemu_text
lib_sections = $(if $(filter src/% transports/%,$<),&& $(OBJCOPY) $(LIB_SECTIONS) $@)

$(BUILD)/obj/%.o: %.c | $(DEPS_LIB)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) -MMD -MP -c $< -o $@ $(lib_sections)

$(BUILD)/obj/%.o: %.cu | $(DEPS_LIB)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) -MMD -MP -x c -c $< -o $@ $(lib_sections)

# The profiling interface (include/pshmem.h): every OpenSHMEM routine the
# compat objects define gets its name-shifted twin (pshmem_long_put for
# shmem_long_put, pstart_pes for start_pes) as a second name of the same
# code, not a wrapper: ld -r --defsym adds the names to the object itself.
OSH_NAMES := ^(shmem_|start_pes$$|shmalloc$$|shfree$$|shrealloc$$|shmemalign$$|_my_pe$$|_num_pes$$)
$(BUILD)/obj/src/compat/%.o: src/compat/%.c | $(DEPS_LIB)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) -MMD -MP -MF $(@:.o=.d) -MT $@ \
	  -c $< -o $@.1.o
	$(Q)ld -r -o $@ $@.1.o $$(nm -g --defined-only $@.1.o | \
	  awk '$$2 == "T" && $$3 ~ /$(OSH_NAMES)/ { printf " --defsym=p%s=%s", $$3, $$3 }')
	$(Q)rm -f $@.1.o

# The collectives see the public header alone: they are built on the public
# API, as users' own algorithms are.  Their kernels want vectorizing.
$(BUILD)/obj/src/coll/%.o: CPPFLAGS_ALL := -D_GNU_SOURCE -Iinclude
$(BUILD)/obj/src/api/ops.o: CFLAGS_ALL += -O3

# Only what include/shmemu.h declares is exported (it says so with a
# visibility pragma); internals stay inside the shared library.
$(LIB_OBJ): CFLAGS_ALL += -fvisibility=hidden

# Fibers (sim's PEs, every transport's device threads on the CPU) switch
# with Boost.Context's fcontext: its two assembly objects, taken from
# Debian's static library, renamed into our prefix and made local to
# fiber.o, so that neither library exports them.
FCONTEXT_A = $(shell $(CC) -print-file-name=libboost_context.a)
FIBER_O    := $(BUILD)/obj/transports/common/fiber.o
$(BUILD)/obj/transports/common/fiber-c.o: transports/common/fiber.c | $(DEPS_LIB)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) -fvisibility=hidden -MMD -MP -c $< -o $@
$(FIBER_O): $(BUILD)/obj/transports/common/fiber-c.o
	$(say) FCTX $@
	$(Q)rm -rf $@.d && mkdir -p $@.d && cd $@.d && \
	  ar x $(FCONTEXT_A) $$(ar t $(FCONTEXT_A) | grep -E '^(jump|make)_.*\.o$$') && \
	  objcopy --redefine-sym jump_fcontext=shmemu_fc_jump \
	          --redefine-sym make_fcontext=shmemu_fc_make jump_*.o && \
	  objcopy --redefine-sym make_fcontext=shmemu_fc_make make_*.o
	$(Q)ld -r -o $@ $< $@.d/jump_*.o $@.d/make_*.o
	$(Q)objcopy --localize-symbol=shmemu_fc_jump --localize-symbol=shmemu_fc_make $@
	$(Q)rm -rf $@.d

$(BUILD)/libshmemu.a: $(LIB_OBJ)
	@rm -f $@
	$(say) AR $@
	$(Q)ar rcs $@ $^

$(BUILD)/libshmemu.so: $(LIB_OBJ)
	$(say) LD $@
	$(Q)$(CC) -shared -Wl,-soname,libshmemu.so.0 $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# ------------------------------------------------------------------ tests
$(TEST_LIB): | $(DEPS_TEST)
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TEST_LIB) $(BUILD)/libshmemu.a | $(DEPS_TEST)
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS_ALL)

$(BUILD)/obj/tests/%.o: tests/%.c | $(DEPS_TEST)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/tests/progs/%: $(BUILD)/obj/tests/progs/%.o $(BUILD)/libshmemu.a
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# Built with the oshc++ wrapper, as a user would.
$(BUILD)/tests/progs/osh_generic_cxx: tests/progs/osh_generic.c tests/progs/osh_check.h \
    include/shmem.h include/shmemu.h $(BUILD)/oshc++ $(BUILD)/libshmemu.so
	$(say) CXX $@
	@mkdir -p $(@D)
	$(Q)CXX="$(CXX)" $(BUILD)/oshc++ -x c++ -std=c++11 -Wall -Wextra -Werror $(OPT) -g \
	  $(LDFLAGS) -Itests/progs -o $@ $<

# make test: the whole API on local, shm and sim, each program in its quick
# form (fewer PE counts and rounds), and the architecture's checks: a few
# minutes (test_ucx, whose subject is ucx and mpirun, is make test-ucx's).
# make check: everything (see below).
TEST_DEPS := $(TEST_BIN) $(TOOLS) $(TEST_PROG) $(DEV_PROGS) $(CUDA_TESTS) $(BUILD)/examples/hello_spmd \
             $(EXAMPLE_LIBS)
# Everything the suite runs, built and not run (then run one test binary).
test-deps: $(TEST_DEPS) $(BUILD)/shmemu-bench
test: $(TEST_DEPS) $(BUILD)/shmemu-bench check-tree
	@SHMEMU_TEST_QUICK=1 SHMEMU_TEST_TRANSPORTS=local,shm,sim scripts/run-tests.sh \
	  $(filter-out %/test_ucx,$(TEST_BIN))

# The suite at full size on every transport that runs here, then on ucx
# (test_ucx, whose subject is ucx and mpirun, runs once: with test-ucx,
# or here where the sanitizers leave test-ucx out).
test-full: $(TEST_DEPS) $(BUILD)/shmemu-bench check-tree
	@$(MAKE) --no-print-directory ucx-plugin
	@scripts/run-tests.sh $(if $(SAN),$(TEST_BIN),$(filter-out %/test_ucx,$(TEST_BIN)))
	@$(if $(SAN),echo "test-ucx: skipped under $(SAN) (UCX's own memory hooks and leaks are not ours to judge; run make test-ucx)",$(MAKE) --no-print-directory test-ucx)

# Everything: installs UCX, PMIx and Open MPI's launcher where missing, then
# the full suite and ucx (also under mpirun), ucx across two network
# namespaces (root), AddressSanitizer and ThreadSanitizer, random crashes,
# every command the docs show, and the main job.  What .ci/run runs.
CHECK_STAGES := test-full test-multinode asan tsan stress test-docs run
check:
	@scripts/ensure-deps.sh hwloc boost-context cmocka ucx pmix mpirun
	@for stage in $(CHECK_STAGES); do \
	    t0=$$(date +%s); \
	    $(MAKE) --no-print-directory $$stage $$([ $$stage = stress ] && echo STRESS_RUNS=50) || \
	        { echo "== make check: $$stage failed after $$(($$(date +%s) - t0)) s"; exit 1; }; \
	    echo "== make check: $$stage passed in $$(($$(date +%s) - t0)) s"; \
	done

# Every command README.md and docs/ show in a code block, run and checked
# (scripts/check-docs.sh).
test-docs: all
	@BUILD=$(BUILD) scripts/check-docs.sh

# The suite's quick variant on the ucx transport, over UCX's own choice of
# fabric (shared memory here) and again forced onto TCP; then mpirun.
test-ucx: $(TEST_BIN) $(TOOLS) $(TEST_PROG) $(BUILD)/examples/hello_spmd $(EXAMPLE_LIBS) ucx-plugin
	@BUILD=$(BUILD) scripts/test-ucx.sh $(TEST_BIN)

# The ucx transport across two hosts: two network namespaces joined by a
# veth pair, PEs split across them by mpirun, UCX over TCP.  Root only
# (skipped with the reason otherwise); CI runs it.
test-multinode: $(TOOLS) $(TEST_PROG) $(BUILD)/examples/hello_spmd ucx-plugin
	@BUILD=$(BUILD) scripts/test-multinode.sh

# The architecture's rules, checked on every test run: no include cycle
# among the library's modules; no call circle between its folders; the control area's layout used by the
# control plane alone; only the public API exported, nothing unprefixed in
# the static library.
check-tree: lib $(BUILD)/shmemu-info
	@scripts/check-includes.sh
	@scripts/check-calls.sh $(BUILD)
	@scripts/check-settings.sh $(BUILD)
	@scripts/check-plane.sh
	@CC="$(CC)" scripts/check-symbols.sh $(BUILD)

# What libraries that are not ours leave behind is not ours to report:
# PMIx's leftovers (tests/lsan.supp), and hwloc's PCI plugin (Debian's
# libhwloc-plugins, which Open MPI pulls in), which allocates through
# libpciaccess and is unloaded with its allocations -- LSan cannot even
# name it, so it is left out of the discovery.
asan:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp HWLOC_COMPONENTS=-pci \
	  SHMEMU_TEST_QUICK=1 $(MAKE) BUILD=build-asan SAN=asan OPT=-O1 test-full

# UCX's memory hooks (libucm, loaded with the ucx plugin when the harness
# looks for usable transports) patch madvise, and ThreadSanitizer crashes
# in them on every new thread: UCX_MEM_EVENTS=no leaves them out.  UCX's
# own copies of our words are not ours to report (tests/tsan.supp).
tsan:
	SHMEMU_TEST_TRANSPORTS=local SHMEMU_TEST_QUICK=1 UCX_MEM_EVENTS=no \
	  TSAN_OPTIONS=suppressions=$(CURDIR)/tests/tsan.supp \
	  $(MAKE) BUILD=build-tsan SAN=tsan OPT=-O1 test-full

valgrind: $(TEST_BIN) $(TOOLS) $(TEST_PROG) $(DEV_PROGS) $(BUILD)/examples/hello_spmd $(EXAMPLE_LIBS)
	SHMEMU_TEST_TRANSPORTS=local SHMEMU_TEST_QUICK=1 HWLOC_COMPONENTS=-pci \
	  scripts/run-tests.sh --valgrind $(TEST_BIN)

# Random PE crashes under shmemu-run: no hang, no leaked segment or process.
STRESS_RUNS ?= 200
stress: $(TOOLS) $(TEST_PROG)
	BUILD=$(BUILD) scripts/stress.sh $(STRESS_RUNS)

# --------------------------------------------------------- tools and demo
# shmemu-run and shmemu-info use internals: they carry the static library.
$(BUILD)/shmemu-%: $(BUILD)/obj/tools/shmemu-%.o $(BUILD)/obj/tools/cli.o $(BUILD)/libshmemu.a
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $(filter %.o,$^) $(BUILD)/libshmemu.a $(LDLIBS_ALL)

# shmemu-verify uses the shared library, found through a run path relative
# to itself (the build tree, or PREFIX/bin beside PREFIX/lib): a user's
# algorithm that it loads (--lib), linked with -lshmemu or not, then
# resolves every shmemu_* symbol to the one copy already loaded.
$(BUILD)/libshmemu.so.0: $(BUILD)/libshmemu.so
	$(Q)ln -sf libshmemu.so $@

$(BUILD)/shmemu-verify: $(BUILD)/obj/tools/shmemu-verify.o $(BUILD)/obj/tools/verify-matrix.o \
                        $(BUILD)/obj/tools/verify-isolate.o $(BUILD)/obj/tools/cli.o \
                        $(BUILD)/libshmemu.so $(BUILD)/libshmemu.so.0
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $(filter %.o,$^) -L$(BUILD) -lshmemu \
	  '-Wl,-rpath,$$ORIGIN:$$ORIGIN/../lib' $(LDLIBS_ALL) -ldl

# A user's algorithm, as a shared object for shmemu-verify --lib.
$(BUILD)/examples/lib%.so: examples/%.c include/shmemu.h | $(DEPS_LIB)
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -shared -o $@ $<

$(BUILD)/shmemu-bench: $(BUILD)/obj/bench/shmemu-bench.o $(BUILD)/obj/bench/coll.o \
                       $(BUILD)/obj/tools/cli.o $(BUILD)/libshmemu.a
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL) -lm

# One fiber switch: fcontext against swapcontext (the sim transport's choice).
$(BUILD)/fiber-switch: $(BUILD)/obj/bench/fiber-switch.o $(BUILD)/libshmemu.a
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# Kernels on the CPU: a handoff between device threads, a launch, 64Ki threads.
$(BUILD)/device-bench: $(BUILD)/obj/bench/device.o $(BUILD)/libshmemu.a
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/mpi-coll-bench: bench/mpi-coll.c bench/common.h
	@mkdir -p $(@D)
	$(say) MPICC $@
	$(Q)$(MPICC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o $@ $<

$(BUILD)/examples/%: $(BUILD)/obj/examples/%.o $(BUILD)/libshmemu.a
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# The main job: every built-in collective through the verifier's default
# matrix on the local transport.
run: $(BUILD)/shmemu-verify
	$(BUILD)/shmemu-verify --transport local

demo: $(BUILD)/examples/ring
	$(BUILD)/examples/ring 4

bench: $(BUILD)/shmemu-bench $(BUILD)/fiber-switch $(BUILD)/device-bench $(MPI_BENCH)
	$(BUILD)/shmemu-bench
	$(BUILD)/fiber-switch
	$(BUILD)/device-bench

# OpenSHMEM's compiler wrapper and launcher: scripts that find the library
# beside themselves (build/ here, PREFIX/bin once installed).
# The wrapper in a build tree is told where the sources' headers are.
$(BUILD)/oshrun: tools/oshrun
	@mkdir -p $(@D)
	$(Q)install -m 755 $< $@
$(BUILD)/shmemu-devcc: tools/shmemu-devcc
	@mkdir -p $(@D)
	$(Q)install -m 755 $< $@

# Kernel files built for the CPU with shmemu-devcc, as a user builds them.
$(BUILD)/tests/dev_spin: tests/device/spin.cu include/shmemu_device.h $(BUILD)/shmemu-devcc \
                         $(BUILD)/oshcc $(BUILD)/libshmemu.so
	@mkdir -p $(@D)
	$(say) DEVCC $@
	$(Q)CC="$(CC)" $(BUILD)/shmemu-devcc $(filter-out -std=c11,$(WARN)) -O1 -g $(filter -fsanitize%,$(CFLAGS_ALL)) \
	  $< -o $@
$(BUILD)/examples/device_allreduce: examples/device_allreduce.cu include/shmemu_device.h \
                                    $(BUILD)/shmemu-devcc $(BUILD)/oshcc $(BUILD)/libshmemu.so
	@mkdir -p $(@D)
	$(say) DEVCC $@
	$(Q)CC="$(CC)" $(BUILD)/shmemu-devcc $(filter-out -std=c11,$(WARN)) -O2 -g $(filter -fsanitize%,$(CFLAGS_ALL)) \
	  $< -o $@
# A kernel behind a collective's signature, for shmemu-verify --lib
# (docs/TUTORIAL.md, chapter 5).
$(BUILD)/examples/libmy_device_allreduce.so: examples/my_device_allreduce.cu include/shmemu_device.h \
                                    $(BUILD)/shmemu-devcc $(BUILD)/oshcc $(BUILD)/libshmemu.so
	@mkdir -p $(@D)
	$(say) DEVCC $@
	$(Q)CC="$(CC)" $(BUILD)/shmemu-devcc $(filter-out -std=c11,$(WARN)) -O2 -g $(filter -fsanitize%,$(CFLAGS_ALL)) \
	  -shared -fPIC $< -o $@
# Kernel files of the tests, each a collective behind the verifier's
# signature (tests/device/NAME.cu -> build/tests/libNAME.so).
$(BUILD)/tests/lib%.so: tests/device/%.cu include/shmemu_device.h \
                        $(BUILD)/shmemu-devcc $(BUILD)/oshcc $(BUILD)/libshmemu.so
	@mkdir -p $(@D)
	$(say) DEVCC $@
	$(Q)CC="$(CC)" $(BUILD)/shmemu-devcc $(filter-out -std=c11,$(WARN)) -O2 -g $(filter -fsanitize%,$(CFLAGS_ALL)) \
	  -shared -fPIC $< -o $@
# The C++ names of the wrapper: the same script, which picks CXX by name.
$(BUILD)/oshcc $(BUILD)/oshc++ $(BUILD)/oshcxx: tools/oshcc
	@mkdir -p $(@D)
	$(Q)sed 's|^build_inc=$$|build_inc="$(CURDIR)/include"|' $< >$@.tmp && chmod 755 $@.tmp && \
	  mv $@.tmp $@

# ----------------------------------------------------------------- install
install: lib $(TOOLS)
	install -d $(DESTDIR)$(PREFIX)/include/mpp $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(filter-out $(BUILD)/osh%,$(TOOLS)) $(BUILD)/oshrun $(DESTDIR)$(PREFIX)/bin/
	for w in oshcc oshc++ oshcxx; do install -m 755 tools/oshcc $(DESTDIR)$(PREFIX)/bin/$$w; done
	install -m 644 include/shmemu.h include/shmemu_cuda.h include/shmemu_device.h \
	  include/shmem.h include/shmemx.h \
	  include/pshmem.h \
	  $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/mpp/shmem.h include/mpp/shmemx.h $(DESTDIR)$(PREFIX)/include/mpp/
	$(if $(CUDA_PLUGIN),install -m 755 $(CUDA_PLUGIN) $(DESTDIR)$(PREFIX)/lib/)
	$(if $(UCX_PLUGIN),install -m 755 $(UCX_PLUGIN) $(DESTDIR)$(PREFIX)/lib/)
	$(if $(PMIX_PLUGIN),install -m 755 $(PMIX_PLUGIN) $(DESTDIR)$(PREFIX)/lib/)
	install -m 644 $(BUILD)/libshmemu.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libshmemu.so $(DESTDIR)$(PREFIX)/lib/libshmemu.so.$(VERSION)
	ln -sf libshmemu.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libshmemu.so.0
	ln -sf libshmemu.so.0 $(DESTDIR)$(PREFIX)/lib/libshmemu.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' shmemu.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/shmemu.pc

clean:
	rm -rf build build-asan build-tsan build-clang

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
