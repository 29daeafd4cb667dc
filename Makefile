# Makefile - builds the FP8 numerics course out of tree, into build/.
#
#   make            the library, the fp8 explorer and the grader
#   make lab0       lab0's demo from your labs/lab0 (build/lab0/lab0), the grader's part
#                   for lab0 and the fp8 explorer: what ./grader lab0 needs, nothing more
#   make test       the project's own tests (see tests/run.sh)
#   make help       every target and option
#
# Every build begins with two steps, in this order, before any flag is used:
#   1. the Debian packages that the goals need are checked, and installed when
#      missing (common/deps.sh; the build stops with the one command to run
#      where that cannot be done);
#   2. what the machine offers (pkg-config's flags, nvcc, NVIDIA's headers, the
#      compilers' versions, the flags below) is written to $(BUILD)/config.mk
#      (common/configure.sh), which everything compiled depends on: when it
#      changes, what it affects is rebuilt, so nothing ever needs `make clean`.
# Output is one line per step (`CC common/fp8.c`); V=1 shows the commands.
# Nothing is written outside build/, except by `make goldens`. It runs one job per
# core unless given -j.

BUILD    ?= build
# The same folder, however it is named (./grader passes it absolute): the .d
# files name their targets as BUILD was spelled, and a target spelled another
# way would not be rebuilt when its headers change.
override BUILD := $(patsubst $(CURDIR)/%,%,$(patsubst %/,%,$(BUILD)))
CUDA_HOME ?= /usr/local/cuda

OPT      ?= -O2 -g
# Warnings are shown, and are errors only with WERROR=1: make test compiles
# everything again that way (below), but a student's make labN never stops
# for a warning that a newer compiler added.
WERROR   ?=
WARN     := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror)
CFLAGS   ?=
CXXFLAGS ?=
LDFLAGS  ?=
ALL_CPPFLAGS := -Icommon -D_DEFAULT_SOURCE $(CPPFLAGS)
# -ffp-contract=off: a * b + c is two roundings, as the handouts' orders of
# operations say, whatever the compiler (GCC has it so in ISO C modes
# already; clang would fuse it where the CPU has FMA).
ALL_CFLAGS   := -std=c11 -ffp-contract=off $(OPT) $(WARN) $(CFLAGS)
ALL_CXXFLAGS := -std=c++17 $(OPT) $(WARN) $(CXXFLAGS)

# make SANITIZE=1 test: everything under AddressSanitizer and UBSan, in its own tree.
# (BUILD=dir SANITIZE=1 builds in dir/sanitize too; a make nested in that
# build, given BUILD=dir/sanitize, stays there.)
ifeq ($(SANITIZE),1)
ifneq ($(notdir $(BUILD)),sanitize)
override BUILD := $(BUILD)/sanitize
endif
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_CFLAGS   += $(SANFLAGS)
ALL_CXXFLAGS += $(SANFLAGS)
LDFLAGS      += $(SANFLAGS)
endif

# The flags nvcc builds the course's own CUDA with (gpuprobe, the GPU tests); nvcc,
# found in step 2, builds the CUDA parts; NVIDIA's headers alone are enough for
# the oracle tests.
NVCC_ARCH ?= --generate-code arch=compute_75,code=[compute_75,sm_75] \
             --generate-code arch=compute_89,code=[compute_89,sm_89] \
             --generate-code arch=compute_90,code=sm_90
NVCC_WERROR := $(if $(filter 1,$(WERROR)),-Werror all-warnings -Xcompiler -Werror)
NVCCFLAGS ?= -std=c++17 -O2 -g $(NVCC_ARCH) $(NVCC_HOST) -Xcompiler -Wall,-Wextra $(NVCC_WERROR)

# As many jobs as the machine has cores, unless make was given -j itself; a
# make run by this one (the warning checks) shares its jobs.
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

# ---- quiet output ---------------------------------------------------------------------

# $(call say,WHAT,FILE) before a command: one short line, or the command itself
# with V=1; nothing with make -s.
ifeq ($(V),1)
Q   :=
say  =
else
Q   := @
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
say  = @
else
say  = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif
endif

# ---- step 1: the packages the goals need -----------------------------------------------

DEPS := sh common/deps.sh
# The needs (common/deps.sh) of one goal: build (compilers, Check, the grader's
# libraries), labs (OpenBLAS), plot (gnuplot), test (make test's tools), cuda
# (g++, for nvcc: the goals that build CUDA where the toolkit is), data (the
# full datasets). Goals that compile nothing need nothing.
need_of = $(if $(filter clean help deps gradescope-% fashion-subset,$(1)),,\
            $(if $(filter test-fresh,$(1)),fresh,build labs\
            $(if $(filter test werror-% bench,$(1)),plot test)\
            $(if $(filter lab% solutions plots,$(1)),plot)\
            $(if $(filter all tools grader lab5 grader-lab5 solutions plots test werror-% bench \
                 gpu-report,$(1)),cuda)\
            $(if $(filter captures,$(1)),data)))
NEEDS := $(sort $(foreach g,$(or $(MAKECMDGOALS),all),$(call need_of,$(g))))

ifneq ($(NEEDS),)
DEPS_STOP := $(shell $(DEPS) make-ensure $(NEEDS))
ifneq ($(DEPS_STOP),)
$(error $(DEPS_STOP))
endif

# ---- step 2: what this machine offers, recorded --------------------------------------

# LAB5_SPLIT=1 (below, lab5) stays with the build folder: a later make in it,
# ./grader's included, grades lab5 the same way until LAB5_SPLIT=0 is given.
LAB5_SPLIT ?= $(if $(wildcard $(BUILD)/lab5-split),1,0)
LAB5_SPLIT_MARK := $(shell mkdir -p $(BUILD) && if [ "$(LAB5_SPLIT)" = 1 ]; then \
    touch $(BUILD)/lab5-split; else rm -f $(BUILD)/lab5-split; fi)

CONFIG := $(BUILD)/config.mk
# The make flags that change what is built, recorded in $(CONFIG).
quote = '$(subst ','\'',$(1))'
CONFIG_FLAGS := CC=$(CC) CXX=$(CXX) NVCC=$(NVCC) CUDA_HOME=$(CUDA_HOME) OPT=$(OPT) \
    CPPFLAGS=$(CPPFLAGS) CFLAGS=$(CFLAGS) CXXFLAGS=$(CXXFLAGS) LDFLAGS=$(LDFLAGS) \
    NVCC_ARCH=$(NVCC_ARCH) NVCCFLAGS=$(NVCCFLAGS) SANITIZE=$(SANITIZE) WERROR=$(WERROR) \
    LAB5_SPLIT=$(LAB5_SPLIT) CUDA_STANDIN=$(CUDA_STANDIN)
CONFIG_SAID := $(shell mkdir -p $(BUILD) && CC=$(call quote,$(CC)) CXX=$(call quote,$(CXX)) \
    NVCC=$(call quote,$(NVCC)) CUDA_HOME=$(call quote,$(CUDA_HOME)) \
    FP8LAB_FLAGS=$(call quote,$(CONFIG_FLAGS)) sh common/configure.sh $(CONFIG) || echo failed)
ifeq ($(CONFIG_SAID),failed)
$(error common/configure.sh could not write $(CONFIG))
endif
ifneq ($(CONFIG_SAID),)
$(info $(CONFIG_SAID))
endif
include $(CONFIG)
endif

# ---- sources ------------------------------------------------------------------------

LIB_SRCS  := $(filter-out common/fp8cli.c common/demo_stale.c,$(wildcard common/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB       := $(BUILD)/libfp8lab.a
# What linking libfp8lab.a (and a lab) needs: zlib (common/idx.c reads .gz
# datasets), OpenBLAS (lab3's matrix products), libm.
LIB_LIBS   = -lz $(BLAS_LIBS) -lm
FP8_CLI   := $(BUILD)/bin/fp8
GPUPROBE  := $(if $(NVCC),$(BUILD)/bin/gpuprobe)
ifeq ($(CUDA_STANDIN),1)
GPUPROBE  := $(BUILD)/bin/gpuprobe
endif

# Unit tests: each tests/*/test_*.c is a Check program; the other .c files in
# tests/common are helpers linked into all of them. Each tests/*/test_*.sh is
# run with the explorer's path as its argument, and GRADER and FP8LAB_BUILD
# in its environment.
UNIT_SRCS   := $(wildcard tests/*/test_*.c)
UNIT_BINS   := $(UNIT_SRCS:tests/%.c=$(BUILD)/tests/%)
HELPER_SRCS := $(filter-out $(UNIT_SRCS),$(wildcard tests/common/*.c))
HELPER_OBJS := $(HELPER_SRCS:%.c=$(BUILD)/obj/%.o)
SH_TESTS    := $(wildcard tests/*/test_*.sh)

# Oracle tests: C++ programs that include NVIDIA's conversion headers.
ORACLE_SRCS := $(wildcard tests/oracle/*.cpp)
ORACLE_BINS := $(if $(CUDA_INC),$(ORACLE_SRCS:tests/oracle/%.cpp=$(BUILD)/tests/oracle_%))

# GPU tests: built with nvcc, run only where gpuprobe finds a GPU. The
# sanitizers do not reach device code, so a SANITIZE=1 build leaves them out.
GPU_SRCS := $(wildcard tests/gpu/*.cu)
GPU_SKIP := $(if $(SANFLAGS),not built with SANITIZE=1,$(if $(NVCC),,nvcc not found (set CUDA_HOME or NVCC)))
GPU_BINS := $(if $(GPU_SKIP),,$(GPU_SRCS:tests/gpu/%.cu=$(BUILD)/tests/gpu_%) \
            $(BUILD)/tests/gpu_test_fp8_device_sm75)

BENCH_SRCS := $(wildcard tests/bench/*.cpp)
BENCH_BINS := $(BENCH_SRCS:tests/bench/%.cpp=$(BUILD)/bench/%)

MANIFEST := $(BUILD)/tests/manifest

# ---- labs and the grader ------------------------------------------------------------

# The labs the grader grades: each has labs/<lab>/{<lab>.h,<lab>.c,main.c},
# solutions/<lab>/<lab>.c and grading/<lab>/{rubric,suite,calls}.c.
LABS := lab0 lab1 lab2 lab3 lab4 lab6
# The labs whose goldens make goldens writes from the reference solution
# (grading/<lab>/goldens.c). lab6's come from PyTorch and NumPy instead
# (make torch-goldens).
GOLDEN_LABS := $(patsubst grading/%/goldens.c,%,$(wildcard grading/lab*/goldens.c))

# The grader compiles each submission itself, with these (an include nested
# deeper than 32 is an error early enough for the report to show it).
GRADE_CFLAGS = -std=c11 -ffp-contract=off $(OPT) -D_DEFAULT_SOURCE $(BLAS_CFLAGS) -Wall -Wextra -fmax-include-depth=32 \
               $(SANFLAGS)
GRADE_LDLIBS = $(CHECK_LIBS) $(LIB_LIBS)

# lab5 is CUDA: its .cu files are compiled with nvcc, and its tests need a
# GPU. The grader always knows it; without nvcc it is built no further, and
# ./grader lab5 reports every test SKIPPED.
CUDA_LABS   := lab5
GRADED_LABS := $(LABS) $(CUDA_LABS)
# LAB5_SPLIT=1 grades lab5 as labs 0-4 are graded, the tests in a judge and
# the submission in a subject of its own with its own CUDA context
# (grading/lab5/calls.c). It has not yet run on a GPU: until it has, lab5
# is graded the old way, the tests and the submission in one runner, and
# a class is never graded by code that never ran (INSTRUCTORS.md). The
# choice stays with the build folder (LAB5_SPLIT, above).
# CUDA_STANDIN=1, for the grader's own tests on a machine without a GPU:
# the CUDA runtime and cuBLASLt are tests/lab5/cuda_standin.c, device
# memory is host memory, and a submission's "kernels" are host code.
CUDA_STANDIN ?= 0
STANDIN_LIB := $(BUILD)/grading/libcudastandin.a
CUDA_LDLIBS  = $(if $(filter 1,$(CUDA_STANDIN)),$(abspath $(STANDIN_LIB)) -lstdc++,\
               $(if $(CUDA_LIBDIR),-L$(CUDA_LIBDIR) -Wl$(comma)-rpath$(comma)$(CUDA_LIBDIR)) \
               $(if $(STDCXX_DIR),-Wl$(comma)-rpath$(comma)$(STDCXX_DIR)) -lcublasLt -lcudart -lstdc++)
comma := ,
# lab5 runs on compute capability 7.5 and later: what needs no FP8 tensor
# core everywhere, mma.sync from 8.9 (Ada), wgmma and TMA on 9.0 (sm_90a).
# On a machine with a GPU (GPU_CC, common/configure.sh) it is built for that
# GPU alone, as the grading node compiles each submission for the GPU that
# runs it: 9.0 as sm_90a, X.Y as sm_XY. Without one, for the families it
# runs on, so that what one of them lacks is a build error here too: 7.5,
# the oldest, as PTX (nvcc's front end, which sees what 7.5 lacks, without
# the assembler's time), 8.9 and 9.0a as machine code.
LAB5_FAMILIES := -gencode arch=compute_75,code=compute_75 -gencode arch=compute_89,code=sm_89 \
                 -gencode arch=compute_90a,code=sm_90a
LAB5_GPU_CC := $(if $(GPU_CC),$(shell [ $(GPU_CC) -ge 75 ] && echo $(GPU_CC)))
LAB5_ARCH   := $(if $(LAB5_GPU_CC),$(if $(filter 90,$(LAB5_GPU_CC)),\
               -gencode arch=compute_90a$(comma)code=sm_90a,\
               -gencode arch=compute_$(LAB5_GPU_CC)$(comma)code=sm_$(LAB5_GPU_CC)),$(LAB5_FAMILIES))
# nvcc's host compiler is the C++ compiler the build recorded (CXX), wherever
# it is installed, not whichever g++ comes first on PATH.
NVCC_HOST   = $(if $(CXX_ABS),-ccbin $(CXX_ABS))
LAB5_NVCCFLAGS = -std=c++17 -O3 $(LAB5_ARCH) $(NVCC_HOST) -Icommon -Ilabs/lab5 \
                 -Xcompiler -Wall,-Wextra $(NVCC_WERROR)
# What the grader gives nvcc for a submission (warnings shown, not fatal).
GRADE_NVCCFLAGS = -std=c++17 -O3 $(LAB5_ARCH) $(NVCC_HOST) -Xcompiler -Wall,-Wextra
LAB5_BUILT  := $(if $(NVCC),$(if $(CUDA_INC),1))

RUBRIC_OBJS := $(BUILD)/obj/grading/labs.o $(GRADED_LABS:%=$(BUILD)/obj/grading/%/rubric.o)
# The runner side: linked with each submission (runner.o has its main).
LIBGRADING  := $(BUILD)/grading/libgrading.a
# The subject's side, linked with each submission of a split lab (below).
LIBSUBJECT  := $(BUILD)/grading/libsubject.a
# The driver side: what ./grader and the grader's unit tests link.
LIBGRADER   := $(BUILD)/grading/libgrader.a
GRADER_BIN  := $(BUILD)/bin/grader
# Preloaded into the compiler of a submission (grading/enoent.c): an open the
# sandbox refuses reads as a missing file's.
ENOENT_LIB  := $(BUILD)/grading/libenoent.so
SUITE_OBJS  := $(LABS:%=$(BUILD)/grading/%_suite.o)
# The labs whose tests call the submission in a subject (channel.h): those
# with a call table.
SPLIT_LABS  := $(filter-out $(if $(and $(filter 1,$(LAB5_SPLIT)),$(LAB5_BUILT)),,lab5),\
               $(patsubst grading/%/calls.c,%,$(wildcard grading/lab*/calls.c)))
LAB5_SPLIT_ON := $(filter lab5,$(SPLIT_LABS))
SUBJECT_LIB  = $(LIB_SRCS:%.c=$(BUILD)/subject/obj/%.o)
SPLIT_PARTS  = $(foreach lab,$(SPLIT_LABS),$(BUILD)/grading/$(lab)_judge \
               $(BUILD)/grading/$(lab)_subject.o) $(if $(SPLIT_LABS),$(LIBSUBJECT) $(SUBJECT_LIB))
GRADER_ALL  := $(GRADER_BIN) $(ENOENT_LIB) $(LIBGRADING) $(SUITE_OBJS) $(LABS:%=$(BUILD)/grading/%_reference.o) \
               $(SPLIT_PARTS) $(LIB) $(if $(LAB5_BUILT),$(BUILD)/grading/lab5_suite.o \
               $(if $(LAB5_SPLIT_ON),,$(BUILD)/grading/lab5_reference.o) \
               $(BUILD)/grading/lab5_exports $(GPUPROBE))
LAB_DEMOS   := $(foreach lab,$(LABS),$(BUILD)/$(lab)/$(lab)) $(if $(LAB5_BUILT),$(BUILD)/lab5/lab5)
SOLUTION_DEMOS := $(foreach lab,$(LABS),$(BUILD)/solutions/$(lab)/$(lab)) \
                  $(if $(LAB5_BUILT),$(BUILD)/solutions/lab5/lab5)

# ---- targets --------------------------------------------------------------------------

.SECONDARY:

.PHONY: all lib tools grader grader-core solutions goldens plots fashion-subset captures torch-goldens test test-fresh bench gpu-report deps \
        help clean cuda-status $(GRADED_LABS) $(GRADED_LABS:%=grader-%)

all: lib tools grader cuda-status

lib: $(LIB)
tools: $(FP8_CLI) $(GPUPROBE)

help:
	@echo "FP8 training numerics: a lab course in C and CUDA"
	@echo ""
	@echo "  make deps        install the Debian packages the course needs (apt-get)"
	@echo "  make             build the library ($(LIB)), the explorer ($(FP8_CLI)) and the grader"
	@echo "  make labN        build labN's demo from your labs/labN ($(BUILD)/labN/labN), the grader's"
	@echo "                   part for labN and the explorer; then ./grader labN grades it (./grader --help)"
	@echo "  make solutions   build every lab's demo from solutions/ ($(BUILD)/solutions/labN/labN)"
	@echo "  make plots       run every lab's demo (from solutions/), plots in $(BUILD)/plots/labN"
	@echo "  make goldens     remake data/golden/ from the solutions, and data/MANIFEST (instructors)"
	@echo "  make fashion-subset  cut data/fashion-mnist from the full set (instructors)"
	@echo "  make captures    remake data/captures, lab2's real tensors, from lab3 (instructors)"
	@echo "  make torch-goldens  remake data/golden/lab6, lab6's transformer in PyTorch and quantizer in NumPy (instructors)"
	@echo "  make gradescope-LAB  Gradescope's autograder zip for LAB, in $(BUILD)/gradescope (instructors)"
	@echo "  make lib         build only $(LIB)"
	@echo "  make test        build and run the project's tests; GPU tests are skipped without a GPU"
	@echo "  make test-fresh  the README's quick start on fresh Debian 12 and 13 roots (root and mmdebstrap)"
	@echo "  make gpu-report  on a machine with a GPU: every lab5 check and figure, in $(BUILD)/gpu-report.txt"
	@echo "  make bench       the quick start's time, the grader's per lab, lab3 and lab6 against PyTorch, the codec,"
	@echo "                   and how far each test's time limit is from its time (bench_margins.sh)"
	@echo "                   against the memory limit, and on a GPU lab5's kernels against the copy and cuBLASLt"
	@echo "  make clean       remove $(BUILD)/"
	@echo ""
	@echo "Labs: $(GRADED_LABS) (lab5 is CUDA: it needs nvcc to build and a GPU to run)"
	@echo "Options: V=1 (show the commands), SANITIZE=1 (address and undefined-behaviour sanitizers,"
	@echo "         in $(BUILD)/sanitize), BUILD=dir, CUDA_HOME=dir (now $(CUDA_HOME)), NVCC=path (none:"
	@echo "         no CUDA), OPT=flags, WERROR=1 (warnings are errors, as make test checks them)."
	@echo "Environment for tests: FP8LAB_THREADS (oracle sweep threads), FP8LAB_SWEEP_STRIDE"
	@echo "         (1 = every format on every float; unset = E4M3 and E5M2 on every float, the"
	@echo "         others on the rounding cover; larger = a strided sweep), CK_TIMEOUT_MULTIPLIER,"
	@echo "         FP8LAB_TESTS='common/* lab2/*' (only the tests whose names match),"
	@echo "         FP8LAB_TEST_JOBS=N (tests run at once; default 2, SOLO_TESTS alone),"
	@echo "         FP8LAB_MUTANT_STRIDE (1 = every mutant; K = one in K), FP8LAB_MUTANT_OFFSET=seed"
	@echo "         (which one in K by the seed: a different share each run), FP8LAB_HOSTILE_STRIDE"
	@echo "         (the same for test_hostile's hostile submissions), FP8LAB_HOSTILE_OFFSET=seed"
	@echo "         or 0 to K-1 (which one in K; the run says which)."

cuda-status:
	@$(if $(NVCC),echo "CUDA: nvcc found ($(NVCC)); CUDA parts built",\
	  echo "CUDA: nvcc not found; skipped the CUDA parts (GPU tests). Set CUDA_HOME or NVCC to enable them")
	@$(if $(CUDA_INC),,echo "CUDA: cuda_fp8.h not found; the oracle tests need it")

deps:
	@$(DEPS) install

clean:
	rm -rf $(BUILD)

# ---- the library and tools ----------------------------------------------------------

# Everything compiled depends on $(CONFIG): what pkg-config found, nvcc, the flags.
$(BUILD)/obj/%.o: %.c $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(FP8_CLI): $(BUILD)/obj/common/fp8cli.o $(LIB)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $^ $(LIB_LIBS) -o $@

ifeq ($(CUDA_STANDIN),1)
$(BUILD)/bin/gpuprobe: tests/lab5/standin_probe.c $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $< -o $@
else
$(BUILD)/bin/gpuprobe: common/gpuprobe.cu $(CONFIG)
	@mkdir -p $(@D)
	$(call say,NVCC,$<)$(NVCC) $(NVCCFLAGS) -Icommon $< -o $@
endif

# ---- labs and the grader ------------------------------------------------------------

# The grader itself, and what grading one lab needs: its suite and its reference.
GRADER_CORE := $(GRADER_BIN) $(ENOENT_LIB) $(LIBGRADING) $(LIB)
grader_of = $(GRADER_CORE) $(if $(filter $(CUDA_LABS),$(1)),\
    $(if $(LAB5_BUILT),$(if $(LAB5_SPLIT_ON),$(BUILD)/grading/$(1)_judge \
      $(BUILD)/grading/$(1)_subject.o $(LIBSUBJECT),\
      $(BUILD)/grading/$(1)_suite.o $(BUILD)/grading/$(1)_reference.o) \
      $(BUILD)/grading/$(1)_exports $(GPUPROBE)),\
    $(if $(filter $(SPLIT_LABS),$(1)),\
    $(BUILD)/grading/$(1)_judge $(BUILD)/grading/$(1)_subject.o $(LIBSUBJECT) $(SUBJECT_LIB),\
    $(BUILD)/grading/$(1)_suite.o $(BUILD)/grading/$(1)_reference.o))
grader: $(GRADER_ALL)
grader-core: $(GRADER_CORE)
$(foreach lab,$(GRADED_LABS),$(eval grader-$(lab): $(call grader_of,$(lab))))
solutions: $(SOLUTION_DEMOS)

# make labN: the demo, the grader's part for labN and the explorer, then what to run next.
lab_next = @echo "$(1): built. Next: ./grader $(1) grades labs/$(1); ./$(BUILD)/$(1)/$(1) runs the demo; the handout is labs/$(1)/README.md"
$(foreach lab,$(LABS),$(eval $(lab): $(BUILD)/$(lab)/$(lab) grader-$(lab) $(FP8_CLI) ; $(call lab_next,$(lab))))
ifeq ($(LAB5_BUILT),1)
lab5: $(BUILD)/lab5/lab5 grader-lab5 $(FP8_CLI)
	$(call lab_next,lab5)
else
lab5: grader-lab5 $(FP8_CLI)
	@echo "lab5: nvcc (the CUDA Toolkit) was not found: the demo is not built, and ./grader lab5"
	@echo "      reports every test SKIPPED. Install it, or set CUDA_HOME or NVCC."
endif

# A lab's demo: its main.c with the student's (or the solution's) labN.c.
$(BUILD)/labs/%.o: labs/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CPPFLAGS) $(BLAS_CFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/solutions/%.o: solutions/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CPPFLAGS) -Ilabs/$(*D) $(BLAS_CFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# A demo built from labs/<lab> says, when it starts, that a source there is
# newer than it, and names make <lab> (common/demo_stale.c): ./grader <lab>
# builds its own copy of the student's code, not the demo.
$(BUILD)/labs/%/stale.o: common/demo_stale.c $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -DDEMO_LAB='"$*"' \
	  -DDEMO_DIR='"$(CURDIR)/labs/$*"' -MMD -MP -c $< -o $@

# A lab's given sources (labs/<lab>/*.c but main.c and <lab>.c, e.g. lab3's
# model.c) go into its demos and its goldens maker, never into the graded part.
lab_given = $(patsubst %.c,$(BUILD)/%.o,$(filter-out labs/$(1)/main.c labs/$(1)/$(1).c,\
    $(wildcard labs/$(1)/*.c)))
define lab_rules
$(BUILD)/$(1)/$(1): $(BUILD)/labs/$(1)/main.o $(BUILD)/labs/$(1)/$(1).o $(call lab_given,$(1)) \
    $(BUILD)/labs/$(1)/stale.o $(LIB)
	@mkdir -p $$(@D)
	$$(call say,LD,$$@)$$(CC) $$(LDFLAGS) $$^ $$(LIB_LIBS) -o $$@
$(BUILD)/solutions/$(1)/$(1): $(BUILD)/labs/$(1)/main.o $(BUILD)/solutions/$(1)/$(1).o \
    $(call lab_given,$(1)) $(LIB)
	@mkdir -p $$(@D)
	$$(call say,LD,$$@)$$(CC) $$(LDFLAGS) $$^ $$(LIB_LIBS) -o $$@
$(BUILD)/obj/grading/$(1)/suite.o $(BUILD)/obj/grading/$(1)/goldens.o: ALL_CPPFLAGS += -Ilabs/$(1)
$(BUILD)/obj/grading/$(1)/calls.o $(BUILD)/subject/obj/grading/$(1)/calls.o: ALL_CPPFLAGS += -Ilabs/$(1)
$(BUILD)/grading/$(1)_suite.o: $(BUILD)/obj/grading/$(1)/suite.o
	@mkdir -p $$(@D)
	$$(Q)cp $$< $$@
# The judge: the lab's tests, its reference and the proxies of its calls,
# the same program for every submission (channel.h).
$(BUILD)/grading/$(1)_judge: $(BUILD)/obj/grading/$(1)/suite.o $(BUILD)/grading/$(1)_reference.o \
    $(BUILD)/obj/grading/$(1)/calls.o $(LIBGRADING) $(LIB)
	@mkdir -p $$(@D)
	$$(call say,LD,$$@)$$(CC) $$(LDFLAGS) $$^ $$(GRADE_LDLIBS) -o $$@
$(BUILD)/grading/$(1)_subject.o: $(BUILD)/subject/obj/grading/$(1)/calls.o
	@mkdir -p $$(@D)
	$$(Q)cp $$< $$@
# The reference inside every judge (lab5: runner), for --seed's hidden inputs: the
# solution with each global symbol renamed ref_<name>, which no submission
# may name (grade.c).
$(BUILD)/grading/$(1)_reference.o: $(BUILD)/solutions/$(1)/$(1).o
	@mkdir -p $$(@D)
	$$(call say,REF,$$@)nm -g --defined-only $$< | awk '{ print $$$$3, "ref_" $$$$3 }' > $$@.syms && \
	  objcopy --redefine-syms=$$@.syms $$< $$@
endef
$(foreach lab,$(LABS),$(eval $(call lab_rules,$(lab))))
define golden_rules
$(BUILD)/grading/$(1)_goldens: $(BUILD)/obj/grading/$(1)/goldens.o \
    $(BUILD)/obj/grading/golden_io.o $(BUILD)/solutions/$(1)/$(1).o $(call lab_given,$(1)) $(LIB)
	@mkdir -p $$(@D)
	$$(call say,LD,$$@)$$(CC) $$(LDFLAGS) $$^ $$(LIB_LIBS) -o $$@
endef
$(foreach lab,$(GOLDEN_LABS),$(eval $(call golden_rules,$(lab))))

# ---- lab5, in CUDA ----------------------------------------------------------------------

LAB5_SRCS := kernels gemm

$(BUILD)/labs/lab5/%.o: labs/lab5/%.cu $(wildcard labs/lab5/*.h) $(CONFIG)
	@mkdir -p $(@D)
	$(call say,NVCC,$<)$(NVCC) $(LAB5_NVCCFLAGS) -c $< -o $@
$(BUILD)/solutions/lab5/%.o: solutions/lab5/%.cu $(wildcard labs/lab5/*.h) $(CONFIG)
	@mkdir -p $(@D)
	$(call say,NVCC,$<)$(NVCC) $(LAB5_NVCCFLAGS) -c $< -o $@
# The demo links with g++: libfp8lab.a may be sanitized (SANITIZE=1).
$(BUILD)/lab5/lab5: $(BUILD)/labs/lab5/main.o $(LAB5_SRCS:%=$(BUILD)/labs/lab5/%.o) \
    $(BUILD)/labs/lab5/stale.o $(LIB)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CXX) $(LDFLAGS) $^ $(CUDA_LDLIBS) $(LIB_LIBS) -o $@
$(BUILD)/solutions/lab5/lab5: $(BUILD)/labs/lab5/main.o $(LAB5_SRCS:%=$(BUILD)/solutions/lab5/%.o) \
    $(LIB)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CXX) $(LDFLAGS) $^ $(CUDA_LDLIBS) $(LIB_LIBS) -o $@
# lab5's suite, one object from its files (grading/lab5/: the helpers and the
# table, the memory-bound kernels, the GEMMs, the performance tests).
LAB5_SUITE_OBJS := $(patsubst %,$(BUILD)/obj/grading/lab5/%.o,suite memory gemm perf)
$(LAB5_SUITE_OBJS): ALL_CPPFLAGS += -Ilabs/lab5 -isystem $(CUDA_INC) $(if $(LAB5_SPLIT_ON),-DLAB5_SPLIT)
$(BUILD)/grading/lab5_suite.o: $(LAB5_SUITE_OBJS)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(LD) -r $^ -o $@
# Apart (LAB5_SPLIT=1): the judge, lab5's tests with the proxies of its
# calls and CUDA of its own for the baselines, the same program for every
# submission; and the subject's call table (grading/lab5/calls.c), which
# names the folders of the libraries the subject loads, for its Landlock
# rules (channel.c).
$(BUILD)/obj/grading/lab5/calls.o $(BUILD)/subject/obj/grading/lab5/calls.o: ALL_CPPFLAGS += \
    -Ilabs/lab5 -isystem $(CUDA_INC) -DLAB5_SPLIT \
    -DLAB5_LIBDIRS='"$(CUDA_LIBDIR) $(STDCXX_DIR) $(TOOLCHAIN_DIRS)"'
$(BUILD)/grading/lab5_judge: $(BUILD)/grading/lab5_suite.o $(BUILD)/obj/grading/lab5/calls.o \
    $(LIBGRADING) $(LIB) $(if $(filter 1,$(CUDA_STANDIN)),$(STANDIN_LIB))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CXX) $(LDFLAGS) $(filter-out $(STANDIN_LIB),$^) $(CUDA_LDLIBS) $(GRADE_LDLIBS) \
	  -lpthread -o $@
$(BUILD)/grading/lab5_subject.o: $(BUILD)/subject/obj/grading/lab5/calls.o \
    $(if $(filter 1,$(CUDA_STANDIN)),$(STANDIN_LIB))
	@mkdir -p $(@D)
	$(Q)cp $< $@
$(STANDIN_LIB): $(BUILD)/subject/obj/tests/lab5/cuda_standin.o
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/subject/obj/tests/lab5/cuda_standin.o: ALL_CPPFLAGS += -Ilabs/lab5 -isystem $(CUDA_INC) \
    -DSTANDIN_SLOW_COPY
# The reference: the solution's two objects in one, its lab5_* functions
# renamed ref_lab5_* (the weak definitions from NVIDIA's headers keep their
# names: they are the same code in every object).
$(BUILD)/grading/lab5_reference.o: $(LAB5_SRCS:%=$(BUILD)/solutions/lab5/%.o)
	@mkdir -p $(@D)
	$(call say,REF,$@)$(LD) -r $^ -o $@.tmp && \
	  nm -g --defined-only $@.tmp | awk '$$3 ~ /^lab5_/ { print $$3, "ref_" $$3 }' > $@.syms && \
	  objcopy --redefine-syms=$@.syms $@.tmp $@ && rm -f $@.tmp

# The names the shared libraries lab5 is linked with export (libc, libstdc++,
# libcudart, libcublasLt), one a line: a submission that defined one would
# replace the library's for the whole program, its start-up code included,
# so the grader refuses it at build time (grading/builder.c).
LAB5_EXPORTING = $(shell $(CXX_ABS) -print-file-name=libc.so.6) \
                 $(shell $(CXX_ABS) -print-file-name=libstdc++.so.6) \
                 $(foreach l,libcudart.so libcublasLt.so,$(if $(CUDA_LIBDIR),$(CUDA_LIBDIR)/$(l),\
                   $(shell $(CXX_ABS) -print-file-name=$(l))))
$(BUILD)/grading/lab5_exports: $(CONFIG)
	@mkdir -p $(@D)
	$(call say,NM,$@)nm -D --defined-only -P $(LAB5_EXPORTING) | \
	  awk '$$2 != "A" { sub(/@.*/, "", $$1); print $$1 }' | LC_ALL=C sort -u >$@.tmp && \
	  test -s $@.tmp && mv $@.tmp $@

$(BUILD)/obj/grading/%.o: grading/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CPPFLAGS) -Igrading $(CHECK_CFLAGS) $(GRADER_CFLAGS_PKG) $(ALL_CFLAGS) \
	  -MMD -MP -c $< -o $@

# The names of this machine's system calls, for "forbidden system call: NAME".
$(BUILD)/grading/syscall_names.h: $(CONFIG)
	@mkdir -p $(@D)
	$(call say,GEN,$@)echo '#include <sys/syscall.h>' | $(CC) -dM -E - | \
	  awk 'BEGIN { print "static const struct { long nr; const char *name; } syscall_names[] = {" } \
	       $$1 == "#define" && $$2 ~ /^__NR_/ && $$3 ~ /^[0-9]+$$/ \
	       { printf "    {%s, \"%s\"},\n", $$3, substr($$2, 6) } END { print "};" }' > $@.tmp && \
	  mv $@.tmp $@
$(BUILD)/obj/grading/policy.o $(BUILD)/subject/obj/grading/policy.o: $(BUILD)/grading/syscall_names.h
$(BUILD)/obj/grading/policy.o $(BUILD)/subject/obj/grading/policy.o: ALL_CPPFLAGS += -I$(BUILD)/grading

# The subject's side (channel.h): what the grader links with a submission
# into one static program, built without the sanitizers (which cannot run
# under the subject's seccomp filter, nor link statically): the subject's
# main, its policy, each lab's call table, and the modules of the course's
# library that the lab's rubric names (.library), one object each.
# Each function of the course's library in a section of its own, so that
# the subject's link (--gc-sections, SUBJECT_LDLIBS) drops those nothing
# calls: a function a lab forbids (lab6's fp8_encode_stochastic) is then not
# in the subject at all, for a submission to reach by its address.
SUBJECT_CFLAGS = $(ALL_CPPFLAGS) -Igrading -DGR_SUBJECT $(BLAS_CFLAGS) \
                 $(filter-out $(SANFLAGS),$(ALL_CFLAGS)) -ffunction-sections -fdata-sections
$(BUILD)/subject/obj/%.o: %.c $(CONFIG) Makefile
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(SUBJECT_CFLAGS) -MMD -MP -c $< -o $@
$(LIBSUBJECT): $(addprefix $(BUILD)/subject/obj/grading/,subject.o policy.o landlock.o)
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^
# A static program needs the libraries' archives: what a lab's code may call.
# lld or gold, the first the compiler has, links lab3's (OpenBLAS, 26 MB) in
# a tenth or a third of the time of the default linker.
SUBJECT_LD := $(shell for ld in lld gold; do \
    $(CC) -fuse-ld=$$ld -Wl,--version >/dev/null 2>&1 && echo -fuse-ld=$$ld && break; done)
SUBJECT_LDLIBS = $(SUBJECT_LD) -Wl,--gc-sections -static $(BLAS_LIBS) -lm -lpthread

# How the grader builds a submission, and where the course is, are compiled in
# (from $(CONFIG) and the variables above: the rules depend on both files).
$(BUILD)/obj/grading/builder.o $(BUILD)/obj/grading/grade.o: ALL_CPPFLAGS += \
    -DGRADER_CC='"$(or $(CC_ABS),$(CC))"' \
    -DGRADER_TOOLCHAIN='"$(TOOLCHAIN_DIRS)"' -DGRADER_TOOL_PATH='"$(TOOL_PATH)"' \
    -DGRADER_NVCC_HOST='"$(if $(LAB5_BUILT),$(CXX_ABS))"' \
    -DGRADER_NVCC='"$(if $(LAB5_BUILT),$(NVCC))"' -DGRADER_NVCCFLAGS='"$(GRADE_NVCCFLAGS)"' \
    -DGRADER_CUDA_LDLIBS='"$(CUDA_LDLIBS)"' \
    -DGRADER_CUDA_SUBJECT_LDLIBS='"$(CUDA_LDLIBS) -lm -lpthread -ldl"' \
    -DGRADER_CUDA_VIEW='"$(if $(filter 1,$(CUDA_STANDIN)),$(abspath $(STANDIN_LIB)))"' \
    -DGRADER_CFLAGS='"$(GRADE_CFLAGS)"' -DGRADER_LDLIBS='"$(GRADE_LDLIBS)"' \
    -DGRADER_SUBJECT_LDLIBS='"$(SUBJECT_LDLIBS)"' -DGRADER_SPLIT_LABS='" $(SPLIT_LABS) "' \
    -DGRADER_CHECK_CFLAGS='"$(filter-out $(SANFLAGS),$(GRADE_CFLAGS))"' \
    -DGRADER_SANITIZE=$(if $(SANFLAGS),1,0)
$(BUILD)/obj/grading/grader.o: ALL_CPPFLAGS += -DGRADER_ROOT='"$(CURDIR)"' \
    -DGRADER_BUILD='"$(abspath $(BUILD))"'
$(BUILD)/obj/grading/builder.o $(BUILD)/obj/grading/grade.o $(BUILD)/obj/grading/grader.o: Makefile
$(BUILD)/obj/grading/builder.o: $(wildcard grading/lab*/calls.c)

$(LIBGRADING): $(addprefix $(BUILD)/obj/grading/,runner.o channel.o policy.o landlock.o) \
    $(RUBRIC_OBJS)
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(LIBGRADER): $(addprefix $(BUILD)/obj/grading/,grade.o builder.o spawn.o manifest.o report.o \
    batch.o batch_files.o batch_find.o batch_groups.o batch_jobs.o batch_out.o batch_gradescope.o lms_import.o similarity.o sim_text.o sim_common.o jobres.o unpack.o \
    sandbox.o landlock.o) \
    $(RUBRIC_OBJS)
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(GRADER_BIN): $(BUILD)/obj/grading/grader.o $(LIBGRADER) $(LIB)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $^ $(GRADER_LIBS_PKG) $(LIB_LIBS) -o $@

# Never sanitized: it is loaded into the compiler, which is not.
$(ENOENT_LIB): grading/enoent.c $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(filter-out $(SANFLAGS),$(ALL_CFLAGS)) -fPIC -shared -o $@ $< -ldl

# Instructors: remake every lab's goldens from its solution, then the manifest.
goldens: $(GOLDEN_LABS:%=$(BUILD)/grading/%_goldens)
	@$(foreach lab,$(GOLDEN_LABS),mkdir -p data/golden/$(lab) && \
	  rm -f data/golden/$(lab)/*.npy && $(BUILD)/grading/$(lab)_goldens data/golden/$(lab) &&) true
	cd data && find . -type f ! -name 'MANIFEST*' | sed 's|^\./||' | LC_ALL=C sort | \
	  xargs sha256sum > MANIFEST.tmp && mv MANIFEST.tmp MANIFEST
	@echo "goldens: data/MANIFEST lists $$(wc -l < data/MANIFEST) files"

# Instructors: cut data/fashion-mnist from the full set (make deps installs it).
FASHION_MNIST ?= /usr/share/datasets/fashion-mnist
fashion-subset:
	sh data/fashion-mnist/make_subset.sh $(FASHION_MNIST) data/fashion-mnist
	@echo "fashion-subset: now run make goldens to update data/MANIFEST"

# lab6's goldens from PyTorch and NumPy (Debian: python3-torch, python3-numpy):
# the C model and the fine-grained quantizer are checked against them
# (tests/lab6/test_model.c, test_exercises.c).
torch-goldens:
	/usr/bin/python3 tests/lab6/torch_model.py data/golden/lab6/model
	/usr/bin/python3 tests/lab6/numpy_finegrained.py data/golden/lab6/finegrained
	@echo "torch-goldens: now run make goldens to update data/MANIFEST"

# Instructors: remake data/captures, lab2's real tensors: what the reference
# lab3's FP32 model saw at its first, middle and last step of the full set, 15
# epochs, seed 1, one BLAS thread (data/captures/README.md).
captures: $(BUILD)/solutions/lab3/lab3
	rm -rf $(BUILD)/captures
	OPENBLAS_NUM_THREADS=1 $(BUILD)/solutions/lab3/lab3 --data $(FASHION_MNIST) --epochs 15 \
	  --capture fp32 --no-preview -o $(BUILD)/captures > $(BUILD)/captures.log
	rm -f data/captures/capture_*.npy && cp $(BUILD)/captures/capture_*.npy data/captures/
	@echo "captures: now run make goldens to update data/golden/lab2 and data/MANIFEST"

# Instructors: Gradescope's autograder zip for one lab, $(BUILD)/gradescope/
# LAB-autograder.zip (grading/gradescope/make_zip.sh): setup.sh, run_autograder
# and the course with its solutions (every runner links the reference, for
# --seed), to upload as is; Gradescope does not show it to students. For hidden
# inputs, SEED_FILE=FILE (the seed is its first line: no quoting to get right)
# or SEED=S, both passed to the script through the environment.
gradescope-%:
	@case " $(GRADED_LABS) " in *" $* "*) ;; *) echo "gradescope-$*: no lab named $* ($(GRADED_LABS))"; exit 2 ;; esac
	@sh grading/gradescope/make_zip.sh $(BUILD)/gradescope $* $(if $(filter $(CUDA_LABS),$*),kernels.cu,$*.c)

plots: $(SOLUTION_DEMOS)
	@$(foreach lab,$(LABS),$(BUILD)/solutions/$(lab)/$(lab) --no-preview -o $(BUILD)/plots/$(lab) &&) true
	@$(if $(LAB5_BUILT),$(GPUPROBE) >/dev/null && \
	  $(BUILD)/solutions/lab5/lab5 --no-preview -o $(BUILD)/plots/lab5 || \
	  echo "plots: lab5 skipped: $$($(GPUPROBE))",echo "plots: lab5 skipped: nvcc not found")

# ---- tests --------------------------------------------------------------------------

$(BUILD)/obj/tests/%.o: tests/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CPPFLAGS) -Itests/common -Igrading $(CHECK_CFLAGS) $(GRADER_CFLAGS_PKG) \
	  $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_BINS): $(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(HELPER_OBJS) $(LIBGRADER) $(LIB)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $^ $(CHECK_LIBS) $(GRADER_LIBS_PKG) $(LIB_LIBS) -lpthread -o $@

# lab6's given transformer (labs/lab6/model.c), checked against PyTorch, and
# its reference solution against the library's codec and NumPy.
$(BUILD)/obj/tests/lab6/%.o: ALL_CPPFLAGS += -Ilabs/lab6
$(BUILD)/tests/lab6/test_model: $(BUILD)/labs/lab6/model.o
$(BUILD)/tests/lab6/test_exercises: $(BUILD)/solutions/lab6/lab6.o
$(BUILD)/tests/lab6/test_recipes: $(BUILD)/solutions/lab6/lab6.o $(BUILD)/labs/lab6/recipes.o \
    $(BUILD)/labs/lab6/model.o

# Warnings are errors in make test: what it builds, and the goldens makers and
# the benchmarks, are built again with WERROR=1, each in a tree of its own
# under $(BUILD)/werror, at the build's OPT and at -O1. Warnings such as
# stringop-overflow, format-truncation and maybe-uninitialized come from the
# optimiser and change with its level: GCC 12 gives at -O1 some that GCC 13
# and 14 give at -O2. The trees have no -g (it changes no warning); the -O1
# one has no nvcc (NVCC=none), whose flags do not follow OPT. Each is
# rebuilt where its sources changed, like the build itself. A SANITIZE=1
# make test builds no such trees: the warnings are those of the plain build,
# which make test without it checks (the trees would be every source twice
# more, under the sanitizers).
WERROR_OPT := $(filter-out -g%,$(OPT))
WERROR_O1  := $(filter-out -O% -g%,$(OPT)) -O1
WERROR_TREES := $(if $(SANFLAGS),,werror-opt $(if $(filter-out $(WERROR_OPT),$(WERROR_O1))$(filter-out \
                $(WERROR_O1),$(WERROR_OPT)),werror-O1))
# $(call werror_tree,FOLDER,OPT[,MAKE ARGUMENTS])
werror_tree = $(call say,WERROR,every source$(comma) OPT=$(strip $(2)))$(MAKE) -s --no-print-directory \
    BUILD=$(BUILD)/werror/$(1) OPT='$(strip $(2))' WERROR=1 $(3) werror-tree || \
    { echo "make test: warnings are errors (WERROR=1, OPT=$(strip $(2))): see above"; exit 1; }
.PHONY: werror-opt werror-O1 werror-tree
werror-opt:
	+$(call werror_tree,opt,$(WERROR_OPT))
werror-O1:
	+$(call werror_tree,O1,$(WERROR_O1),NVCC=none)
werror-tree: $(MANIFEST) $(BENCH_BINS) $(LAB6_BENCH) $(GOLDEN_LABS:%=$(BUILD)/grading/%_goldens)

# lab5's real suite with a stand-in for CUDA (tests/lab5/cuda_standin.c), for
# tests/lab5/test_host_time.c: the tests' host work, measured without a GPU.
STANDIN_RUNNER := $(if $(CUDA_INC),$(BUILD)/tests/lab5/standin_runner)
$(BUILD)/obj/tests/lab5/cuda_standin.o $(BUILD)/obj/tests/lab5/standin_kernels.o: \
    ALL_CPPFLAGS += -Ilabs/lab5 -isystem $(CUDA_INC)
$(BUILD)/tests/lab5/standin_runner: $(BUILD)/grading/lab5_suite.o \
    $(BUILD)/obj/tests/lab5/cuda_standin.o $(BUILD)/obj/tests/lab5/standin_kernels.o \
    $(LIBGRADING) $(LIB)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $^ $(CHECK_LIBS) $(LIB_LIBS) -lpthread -o $@

$(BUILD)/tests/oracle_%: tests/oracle/%.cpp $(HELPER_OBJS) $(LIB) $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CXX,$<)$(CXX) $(ALL_CPPFLAGS) -Itests/common -isystem $(CUDA_INC) $(CHECK_CFLAGS) $(ALL_CXXFLAGS) \
	  $< $(HELPER_OBJS) $(LIB) $(LDFLAGS) $(CHECK_LIBS) $(LIB_LIBS) -lpthread -o $@

$(BUILD)/tests/gpu_%: tests/gpu/%.cu $(LIB) $(CONFIG)
	@mkdir -p $(@D)
	$(call say,NVCC,$<)$(NVCC) $(NVCCFLAGS) -Icommon $< $(LIB) -lpthread -o $@
# The device conversions again, compiled for 7.5 alone, as PTX that the
# driver compiles at load for the GPU that runs it: below 8.9 cuda_fp8.h
# converts in software, and so it does here on any GPU, checked bit for bit
# on every float as the hardware conversions are.
$(BUILD)/tests/gpu_test_fp8_device_sm75: tests/gpu/test_fp8_device.cu $(LIB) $(CONFIG)
	@mkdir -p $(@D)
	$(call say,NVCC,$< (compute_75))$(NVCC) $(filter-out $(NVCC_ARCH),$(NVCCFLAGS)) \
	  -gencode arch=compute_75,code=compute_75 -Icommon $< $(LIB) -lpthread -o $@
# The reference's cuBLASLt call and the library's own, with misaligned scales.
$(BUILD)/tests/gpu_test_cublaslt_align: tests/gpu/test_cublaslt_align.cu \
    $(LAB5_SRCS:%=$(BUILD)/solutions/lab5/%.o) $(LIB) $(CONFIG)
	@mkdir -p $(@D)
	$(call say,NVCC,$<)$(NVCC) $(NVCCFLAGS) -Icommon -Ilabs/lab5 $< \
	  $(LAB5_SRCS:%=$(BUILD)/solutions/lab5/%.o) $(LIB) -lcublasLt -lpthread -o $@

# The benchmarks compare with NVIDIA's host conversions where cuda_fp8.h is found.
$(BUILD)/bench/%: tests/bench/%.cpp $(LIB) $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CXX,$<)$(CXX) $(ALL_CPPFLAGS) $(if $(CUDA_INC),-DFP8LAB_HAVE_CUDA_FP8 -isystem $(CUDA_INC)) \
	  $(ALL_CXXFLAGS) $< $(LIB) $(LDFLAGS) $(LIB_LIBS) -lpthread -o $@

# lab6's step, timed against PyTorch's (tests/bench/bench_lab6.sh).
LAB6_BENCH := $(BUILD)/bench/lab6_step
LAB6_BENCH_OBJS := $(call lab_given,lab6) $(BUILD)/solutions/lab6/lab6.o
$(LAB6_BENCH): tests/bench/lab6_step.c $(LAB6_BENCH_OBJS) $(LIB) $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CPPFLAGS) -Ilabs/lab6 $(ALL_CFLAGS) $< $(LAB6_BENCH_OBJS) $(LIB) \
	  $(LDFLAGS) $(LIB_LIBS) -o $@

# The list tests/run.sh works through: one line per test, 'name|kind|command'.
$(MANIFEST): $(UNIT_BINS) $(ORACLE_BINS) $(GPU_BINS) $(FP8_CLI) $(GPUPROBE) $(SH_TESTS) \
             $(STANDIN_RUNNER) $(GRADER_ALL) $(SOLUTION_DEMOS) $(LAB_DEMOS) \
             $(BUILD)/solutions/lab6/lab6 $(BUILD)/lab6/lab6 Makefile
	@mkdir -p $(@D)
	@{ $(foreach t,$(UNIT_BINS),echo '$(t:$(BUILD)/tests/%=%)|$(call test_kind,$(t:$(BUILD)/tests/%=%))|$(t)';) \
	   $(foreach t,$(SH_TESTS),echo '$(basename $(t:tests/%=%))|$(call test_kind,$(basename $(t:tests/%=%)))|GRADER=$(GRADER_BIN) \
	     FP8LAB_BUILD=$(BUILD) sh $(t) $(FP8_CLI)';) \
	   $(if $(CUDA_INC),$(foreach t,$(ORACLE_BINS),echo '$(notdir $(t))|$(call test_kind,$(notdir $(t)))|$(t)';),\
	     $(foreach t,$(ORACLE_SRCS),echo 'oracle_$(basename $(notdir $(t)))|skip|cuda_fp8.h not found (set CUDA_HOME)';)) \
	   $(if $(GPU_SKIP),$(foreach t,$(GPU_SRCS),echo 'gpu_$(basename $(notdir $(t)))|skip|$(GPU_SKIP)';),\
	     $(foreach t,$(GPU_BINS),echo '$(notdir $(t))|gpu|$(t)';)) \
	   true; } > $@.tmp && mv $@.tmp $@

# make test runs two tests at once (FP8LAB_TEST_JOBS), except these, which
# keep every core busy themselves (a threaded sweep, parallel builds, graders
# run two at a time), time what they grade (lab5's performance tiers, the
# CPUs a batch job is given), or look at every batch's work folder and
# processes (a batch killed, interrupted or ended leaves none behind): each
# runs with nothing beside it.
SOLO_TESTS := oracle_sweep_nvidia grading/test_mutants build/test_config grading/test_toolchain \
              lab5/test_grading lab5/test_split lab5/test_host_time grading/test_cpus \
              hostile/test_hostile grading/test_slurm grading/test_batch grading/test_resume
test_kind = $(if $(filter $(SOLO_TESTS),$(1)),solo,run)
FP8LAB_TEST_JOBS ?= 2

test: $(MANIFEST) $(WERROR_TREES)
	@FP8LAB_GPUPROBE=$(GPUPROBE) FP8LAB_TEST_JOBS=$(FP8LAB_TEST_JOBS) sh tests/run.sh $(MANIFEST) $(BUILD)/tests/logs

# On a machine with a GPU: every lab5 check and figure in one text report,
# $(BUILD)/gpu-report.txt (tests/gpu/report.sh; exit status 77 without a GPU).
# It needs what grading needs (and patch, for the mutants), not make test's
# tools or gnuplot.
ifeq ($(LAB5_BUILT),1)
gpu-report: grader-lab5 $(GPUPROBE) $(BUILD)/tests/gpu_test_fp8_device \
    $(BUILD)/tests/gpu_test_cublaslt_align $(BUILD)/solutions/lab5/lab5
	@sh tests/gpu/report.sh $(BUILD) ./grader $(BUILD)/gpu-report.txt; rc=$$?; [ $$rc = 77 ] || exit $$rc
else
gpu-report:
	@echo "gpu-report: skipped: nvcc or cuda_fp8.h not found (the CUDA Toolkit); lab5 is not built"; exit 77
endif

# The README's quick start on fresh Debian 12 and 13 roots (tests/fresh/run.sh): root and
# mmdebstrap, or it says why it skipped (a SKIP, exit status 0 here; .ci/run
# runs the script itself, where a skip fails).
test-fresh:
	@sh tests/fresh/run.sh; rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]

bench: $(BENCH_BINS) $(LAB6_BENCH) $(GRADER_ALL) $(BUILD)/solutions/lab3/lab3 $(if $(LAB5_BUILT),$(BUILD)/solutions/lab5/lab5) \
    $(MANIFEST)
	@sh tests/bench/bench_lab5.sh $(if $(LAB5_BUILT),$(BUILD)/solutions/lab5/lab5 $(GPUPROBE))
	@sh tests/bench/bench_quickstart.sh
	@sh tests/bench/bench_grader.sh $(GRADER_BIN)
	@sh tests/bench/bench_batch.sh $(GRADER_BIN)
	@sh tests/bench/bench_lab3.sh $(BUILD)/solutions/lab3/lab3
	@sh tests/bench/bench_lab6.sh $(LAB6_BENCH)
	@FP8LAB_BUILD=$(BUILD) sh tests/bench/bench_margins.sh $(GRADER_BIN)
	@$(foreach b,$(BENCH_BINS),$(b) &&) true

-include $(shell find $(BUILD)/obj $(BUILD)/subject $(BUILD)/labs $(BUILD)/solutions -name '*.d' 2>/dev/null)
