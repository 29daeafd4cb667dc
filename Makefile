# Makefile - builds the FP8 numerics course out of tree, into build/.
#
#   make            the library and the fp8 explorer
#   make test       the project's own tests (see tests/run.sh)
#   make help       every target and option
#
# Nothing is written outside build/. Safe with -j.

BUILD    ?= build
CUDA_HOME ?= /usr/local/cuda

OPT      ?= -O2 -g
WARN     := -Wall -Wextra -Werror
CFLAGS   ?=
CXXFLAGS ?=
LDFLAGS  ?=
ALL_CPPFLAGS := -Icommon -D_DEFAULT_SOURCE $(CPPFLAGS)
ALL_CFLAGS   := -std=c11 $(OPT) $(WARN) $(CFLAGS)
ALL_CXXFLAGS := -std=c++17 $(OPT) $(WARN) $(CXXFLAGS)

# make SANITIZE=1 test: everything under AddressSanitizer and UBSan, in its own tree.
ifeq ($(SANITIZE),1)
BUILD    := $(BUILD)/sanitize
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_CFLAGS   += $(SANFLAGS)
ALL_CXXFLAGS += $(SANFLAGS)
LDFLAGS      += $(SANFLAGS)
endif

# ---- what this machine has -------------------------------------------------------

# nvcc builds the CUDA parts; NVIDIA's headers alone are enough for the oracle tests.
NVCC     ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard $(CUDA_HOME)/bin/nvcc))
CUDA_INC := $(patsubst %/cuda_fp8.h,%,$(firstword $(wildcard $(CUDA_HOME)/include/cuda_fp8.h) \
              $(if $(NVCC),$(wildcard $(dir $(NVCC))../include/cuda_fp8.h))))
NVCC_ARCH ?= --generate-code arch=compute_89,code=[compute_89,sm_89] \
             --generate-code arch=compute_90,code=sm_90
NVCCFLAGS ?= -std=c++17 -O2 -g $(NVCC_ARCH) -Werror all-warnings \
             -Xcompiler -Wall,-Wextra,-Werror

CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

DEPS := sh common/deps.sh

# ---- sources ------------------------------------------------------------------------

LIB_SRCS  := $(filter-out common/fp8cli.c,$(wildcard common/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB       := $(BUILD)/libfp8lab.a
FP8_CLI   := $(BUILD)/bin/fp8
GPUPROBE  := $(if $(NVCC),$(BUILD)/bin/gpuprobe)

# Unit tests: each tests/common/test_*.c is a Check program; the other .c files
# there are helpers linked into all of them.
UNIT_SRCS   := $(wildcard tests/common/test_*.c)
UNIT_BINS   := $(UNIT_SRCS:tests/common/%.c=$(BUILD)/tests/%)
HELPER_SRCS := $(filter-out $(UNIT_SRCS),$(wildcard tests/common/*.c))
HELPER_OBJS := $(HELPER_SRCS:%.c=$(BUILD)/obj/%.o)
SH_TESTS    := $(wildcard tests/common/test_*.sh)

# Oracle tests: C++ programs that include NVIDIA's conversion headers.
ORACLE_SRCS := $(wildcard tests/oracle/*.cpp)
ORACLE_BINS := $(if $(CUDA_INC),$(ORACLE_SRCS:tests/oracle/%.cpp=$(BUILD)/tests/oracle_%))

# GPU tests: built with nvcc, run only where gpuprobe finds a GPU. The
# sanitizers do not reach device code, so a SANITIZE=1 build leaves them out.
GPU_SRCS := $(wildcard tests/gpu/*.cu)
GPU_SKIP := $(if $(SANFLAGS),not built with SANITIZE=1,$(if $(NVCC),,nvcc not found (set CUDA_HOME or NVCC)))
GPU_BINS := $(if $(GPU_SKIP),,$(GPU_SRCS:tests/gpu/%.cu=$(BUILD)/tests/gpu_%))

BENCH_SRCS := $(wildcard tests/bench/*.cpp)
BENCH_BINS := $(if $(CUDA_INC),$(BENCH_SRCS:tests/bench/%.cpp=$(BUILD)/bench/%))

MANIFEST := $(BUILD)/tests/manifest

# ---- targets --------------------------------------------------------------------------

.SECONDARY:

.PHONY: all lib tools test bench deps deps-build deps-test help clean cuda-status

all: lib tools cuda-status

lib: $(LIB)
tools: $(FP8_CLI) $(GPUPROBE)

help:
	@echo "FP8 training numerics: a lab course in C and CUDA"
	@echo ""
	@echo "  make deps        install the Debian packages the course needs (apt-get)"
	@echo "  make             build the library ($(LIB)) and the explorer ($(FP8_CLI))"
	@echo "  make lib         build only $(LIB)"
	@echo "  make test        build and run the project's tests; GPU tests are skipped without a GPU"
	@echo "  make bench       codec throughput against NVIDIA's host conversion"
	@echo "  make clean       remove $(BUILD)/"
	@echo ""
	@echo "Options: SANITIZE=1 (address and undefined-behaviour sanitizers, in $(BUILD)/sanitize),"
	@echo "         BUILD=dir, CUDA_HOME=dir (now $(CUDA_HOME)), NVCC=path, OPT=flags."
	@echo "Environment for tests: FP8LAB_THREADS (oracle sweep threads), FP8LAB_SWEEP_STRIDE"
	@echo "         (1 = every float; larger = a strided sweep), CK_TIMEOUT_MULTIPLIER."

cuda-status:
	@$(if $(NVCC),echo "CUDA: nvcc found ($(NVCC)); CUDA parts built",\
	  echo "CUDA: nvcc not found; skipped the CUDA parts (GPU tests). Set CUDA_HOME or NVCC to enable them")
	@$(if $(CUDA_INC),,echo "CUDA: cuda_fp8.h not found; the oracle tests and the benchmark need it")

deps:
	@$(DEPS) install

# The dependency check every build starts with (see common/deps.sh).
deps-build:
	@$(DEPS) ensure build
deps-test: deps-build
	@$(DEPS) ensure test

clean:
	rm -rf $(BUILD)

# ---- the library and tools ----------------------------------------------------------

$(BUILD)/obj/%.o: %.c | deps-build
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(FP8_CLI): $(BUILD)/obj/common/fp8cli.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -lm -o $@

$(BUILD)/bin/gpuprobe: common/gpuprobe.cu | deps-build
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Icommon $< -o $@

# ---- tests --------------------------------------------------------------------------

$(BUILD)/obj/tests/%.o: tests/%.c | deps-test
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -Itests/common $(CHECK_CFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/common/test_%.o $(HELPER_OBJS) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ $(CHECK_LIBS) -lm -lpthread -o $@

$(BUILD)/tests/oracle_%: tests/oracle/%.cpp $(HELPER_OBJS) $(LIB) | deps-test
	@mkdir -p $(@D)
	$(CXX) $(ALL_CPPFLAGS) -Itests/common -isystem $(CUDA_INC) $(CHECK_CFLAGS) $(ALL_CXXFLAGS) \
	  $< $(HELPER_OBJS) $(LIB) $(LDFLAGS) $(CHECK_LIBS) -lm -lpthread -o $@

$(BUILD)/tests/gpu_%: tests/gpu/%.cu $(LIB) | deps-test
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Icommon $< $(LIB) -lpthread -o $@

$(BUILD)/bench/%: tests/bench/%.cpp $(LIB) | deps-test
	@mkdir -p $(@D)
	$(CXX) $(ALL_CPPFLAGS) -isystem $(CUDA_INC) $(ALL_CXXFLAGS) $< $(LIB) $(LDFLAGS) -lm -lpthread -o $@

# The list tests/run.sh works through: one line per test, 'name|kind|command'.
$(MANIFEST): $(UNIT_BINS) $(ORACLE_BINS) $(GPU_BINS) $(FP8_CLI) $(GPUPROBE) $(SH_TESTS) Makefile
	@mkdir -p $(@D)
	@{ $(foreach t,$(UNIT_BINS),echo '$(notdir $(t))|run|$(t)';) \
	   $(foreach t,$(SH_TESTS),echo '$(basename $(notdir $(t)))|run|sh $(t) $(FP8_CLI)';) \
	   $(if $(CUDA_INC),$(foreach t,$(ORACLE_BINS),echo '$(notdir $(t))|run|$(t)';),\
	     $(foreach t,$(ORACLE_SRCS),echo 'oracle_$(basename $(notdir $(t)))|skip|cuda_fp8.h not found (set CUDA_HOME)';)) \
	   $(if $(GPU_SKIP),$(foreach t,$(GPU_SRCS),echo 'gpu_$(basename $(notdir $(t)))|skip|$(GPU_SKIP)';),\
	     $(foreach t,$(GPU_BINS),echo '$(notdir $(t))|gpu|$(t)';)) \
	   true; } > $@.tmp && mv $@.tmp $@

test: $(MANIFEST) | deps-test
	@FP8LAB_GPUPROBE=$(GPUPROBE) sh tests/run.sh $(MANIFEST) $(BUILD)/tests/logs

bench: $(BENCH_BINS)
	@$(if $(BENCH_BINS),$(foreach b,$(BENCH_BINS),$(b) &&) true,\
	  echo "bench: cuda_fp8.h not found (set CUDA_HOME); the benchmark compares against it" && false)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
