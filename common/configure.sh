#!/bin/sh
# configure.sh - what this machine offers the build, written to one file that
# everything compiled depends on. The Makefile runs it on every build, after
# the dependency check (deps.sh) and before any flag is used; it rewrites the
# file only when something in it changed, so an install, a removal or a new
# flag rebuilds what it affects and nothing ever needs `make clean`.
#
#   configure.sh CONFIG
#
# Reads from the environment: CC, CXX, CUDA_HOME, NVCC (a path, empty to
# look for one, or none), FP8LAB_FLAGS (the make flags to record: OPT, CFLAGS, ...).
# Writes CONFIG as make assignments:
#   BLAS_CFLAGS BLAS_LIBS          OpenBLAS (lab3), from pkg-config
#   CHECK_CFLAGS CHECK_LIBS        Check, from pkg-config
#   GRADER_CFLAGS_PKG GRADER_LIBS_PKG  jansson, libxml-2.0, nettle, libarchive
#   NVCC CUDA_INC CUDA_LIBDIR      nvcc, the directory of cuda_fp8.h, that of
#                                  libcudart.so (each empty when not found;
#                                  NVCC overrides make's own, as found here)
#   CC_ABS CXX_ABS                 the compilers' absolute paths
#   TOOLCHAIN_DIRS TOOL_PATH       the folders outside the system's that the
#                                  compilers, nvcc and the libraries a
#                                  submission is built with need (the
#                                  grader's sandbox shows them), and the PATH
#                                  the grader gives the tools
#   STDCXX_DIR                     the C++ compiler's libstdc++ folder when it
#                                  is not the system's (else empty)
#   GPU_CC                         the compute capability of this machine's
#                                  GPU as one number (90 for 9.0), from
#                                  nvidia-smi, or FP8LAB_GPU_CC (a build for
#                                  another machine's); empty without one
# and, as comments, the compilers' versions and the flags: lines that change
# nothing in make but the file, and so rebuild everything when they change.
# Prints one line when the file changed and an earlier one existed.
set -u
config="$1"
CC=${CC:-cc}
CXX=${CXX:-g++}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-}

pc() { pkg-config "$@" 2>/dev/null | tr -s ' \n' '  ' | sed 's/ *$//'; }
first_line() { "$@" 2>/dev/null | head -n 1; }

# nvcc: the one asked for, else on PATH, else under CUDA_HOME; none with
# NVCC=none (the CUDA parts are then not built, as without the toolkit).
if [ "$NVCC" = none ]; then
    NVCC=""
elif [ -z "$NVCC" ]; then
    NVCC=$(command -v nvcc 2>/dev/null || true)
    [ -z "$NVCC" ] && [ -x "$CUDA_HOME/bin/nvcc" ] && NVCC="$CUDA_HOME/bin/nvcc"
fi
# One that does not run (a wrapper left behind by a removed toolkit) is none.
[ -n "$NVCC" ] && ! "$NVCC" --version >/dev/null 2>&1 && NVCC=""
nvcc_dir=""
[ -n "$NVCC" ] && nvcc_dir=$(dirname "$(command -v "$NVCC" 2>/dev/null || echo "$NVCC")")

# NVIDIA's conversion headers (the oracle tests need them, not nvcc).
CUDA_INC=""
for d in "$CUDA_HOME/include" ${nvcc_dir:+"$nvcc_dir/../include"}; do
    if [ -r "$d/cuda_fp8.h" ]; then CUDA_INC=$(cd "$d" && pwd); break; fi
done
CUDA_LIBDIR=""
for f in "$CUDA_HOME"/lib64/libcudart.so "$CUDA_HOME"/targets/*/lib/libcudart.so \
         ${nvcc_dir:+"$nvcc_dir/../lib64/libcudart.so"}; do
    if [ -e "$f" ]; then CUDA_LIBDIR=$(cd "$(dirname "$f")" && pwd); break; fi
done

# The toolchain the grader runs in its sandbox, wherever it is installed (an
# HPC module system puts compilers under /opt, /apps or /sw): the absolute
# path of each tool, and the folders it needs beyond the system's, which the
# sandbox shows read-only. For a tool at PREFIX/bin/NAME, PREFIX (its cc1,
# libexec, include and lib folders, its own libstdc++), for the path as
# given and as its links resolve; nothing under the system's own folders,
# which every step sees already.
abs_tool() { p=$(command -v "$1" 2>/dev/null) && [ -n "$p" ] && (cd "$(dirname "$p")" && echo "$(pwd)/$(basename "$p")"); }
prefix_of() {
    d=$(dirname "$1")
    case "$d" in */bin) dirname "$d" ;; *) echo "$d" ;; esac
}
outside_system() {
    case "$1" in
    / | /usr | /usr/* | /bin | /bin/* | /sbin | /sbin/* | /lib | /lib/* | /lib32* | /lib64* | /libx32* | /etc/*) return 1 ;;
    *) return 0 ;;
    esac
}
CC_ABS=$(abs_tool "$CC")
CXX_ABS=$(abs_tool "$CXX")
NVCC_ABS=${NVCC:+$(abs_tool "$NVCC")}
TOOLCHAIN_DIRS=""
TOOL_BINS=""
for t in "$CC_ABS" "$CXX_ABS" "$NVCC_ABS"; do
    [ -n "$t" ] || continue
    for p in "$t" "$(readlink -f "$t" 2>/dev/null)"; do
        [ -n "$p" ] || continue
        pre=$(prefix_of "$p")
        if outside_system "$pre"; then
            case " $TOOLCHAIN_DIRS " in *" $pre "*) ;; *) TOOLCHAIN_DIRS="$TOOLCHAIN_DIRS $pre" ;; esac
        fi
    done
    bin=$(dirname "$t")
    if outside_system "$bin"; then
        case ":$TOOL_BINS:" in *":$bin:"*) ;; *) TOOL_BINS="$TOOL_BINS:$bin" ;; esac
    fi
done
# The libraries' folders too, where pkg-config finds them outside the
# system's (an OpenBLAS or a Check of a module system, or unpacked by hand):
# the sandboxed compile and link read them (-I, -L).
for f in $(pc --cflags openblas) $(pc --libs openblas) $(pc --cflags check) $(pc --libs check); do
    case "$f" in
    -I/* | -L/*) d=${f#-?} ;;
    *) continue ;;
    esac
    d=${d%/}
    for p in "$d" "$(cd "$d" 2>/dev/null && pwd -P)"; do
        if [ -n "$p" ] && outside_system "$p"; then
            case " $TOOLCHAIN_DIRS " in *" $p "*) ;; *) TOOLCHAIN_DIRS="$TOOLCHAIN_DIRS $p" ;; esac
        fi
    done
done
# The C++ compiler's own libstdc++, where it is not the system's: programs
# that link it (lab5's) find it there at run time (-rpath).
STDCXX_DIR=""
if [ -n "$CXX_ABS" ]; then
    f=$("$CXX_ABS" -print-file-name=libstdc++.so 2>/dev/null)
    case "$f" in /*) d=$(cd "$(dirname "$f")" 2>/dev/null && pwd -P) && outside_system "$d" && STDCXX_DIR=$d ;; esac
fi

# The GPU lab5 is built for (its first one, as gpuprobe chooses among
# several of the same kind), asked only where nvcc is.
GPU_CC=${FP8LAB_GPU_CC:-}
if [ -z "$GPU_CC" ] && [ -n "$NVCC" ] && command -v nvidia-smi >/dev/null 2>&1; then
    GPU_CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
        head -n 1 | tr -d ' .\r')
fi
case "$GPU_CC" in [1-9][0-9] | [1-9][0-9][0-9]) ;; *) GPU_CC="" ;; esac

tmp="$config.tmp.$$"
trap 'rm -f "$tmp"' EXIT
{
    echo "# config.mk - written by common/configure.sh on every build; do not edit."
    echo "# Everything compiled depends on this file: it changes when what the build uses does."
    echo "# cc: $(first_line "$CC" --version)"
    echo "# c++: $(first_line "$CXX" --version)"
    echo "# nvcc: ${NVCC:+$("$NVCC" --version 2>/dev/null | tail -n 1)}"
    echo "# flags: ${FP8LAB_FLAGS:-}"
    echo "BLAS_CFLAGS := $(pc --cflags openblas)"
    echo "BLAS_LIBS := $(pc --libs openblas)"
    echo "CHECK_CFLAGS := $(pc --cflags check)"
    echo "CHECK_LIBS := $(pc --libs check)"
    if pkg-config --exists jansson libxml-2.0 nettle libarchive 2>/dev/null; then
        echo "GRADER_CFLAGS_PKG := $(pc --cflags jansson libxml-2.0 nettle libarchive)"
        echo "GRADER_LIBS_PKG := $(pc --libs jansson libxml-2.0 nettle libarchive)"
    else
        echo "GRADER_CFLAGS_PKG :="
        echo "GRADER_LIBS_PKG :="
    fi
    echo "CC_ABS := $CC_ABS"
    echo "CXX_ABS := $CXX_ABS"
    echo "TOOLCHAIN_DIRS := ${TOOLCHAIN_DIRS# }"
    echo "TOOL_PATH := ${TOOL_BINS#:}${TOOL_BINS:+:}/usr/local/bin:/usr/bin:/bin"
    echo "STDCXX_DIR := $STDCXX_DIR"
    echo "override NVCC := $NVCC"
    echo "CUDA_INC := $CUDA_INC"
    echo "CUDA_LIBDIR := $CUDA_LIBDIR"
    echo "GPU_CC := $GPU_CC"
} > "$tmp" || exit 1

if cmp -s "$tmp" "$config"; then
    exit 0
fi
if [ -f "$config" ]; then
    # What the changed lines are about, in words, each once: "the C++
    # compiler and OpenBLAS".
    changed=$(diff "$config" "$tmp" |
        sed -n 's/^> \(# \)\{0,1\}\(override \)\{0,1\}\([A-Za-z_+]*\).*/\3/p' |
        sed -e 's/^\(cc\|CC_ABS\)$/the C compiler/' \
            -e 's/^\(c++\|CXX_ABS\|STDCXX_DIR\)$/the C++ compiler/' \
            -e 's/^\(nvcc\|NVCC\|CUDA_INC\|CUDA_LIBDIR\)$/the CUDA Toolkit/' \
            -e 's/^BLAS_.*/OpenBLAS/' -e 's/^CHECK_.*/Check/' \
            -e "s/^GRADER_.*_PKG$/the grader's libraries/" \
            -e "s/^\(TOOLCHAIN_DIRS\|TOOL_PATH\)$/the toolchain's folders/" \
            -e 's/^flags$/the make flags/' -e 's/^GPU_CC$/the GPU/' |
        sort -u | awk '{ w[NR] = $0 } END {
            for (i = 1; i <= NR; i++) printf "%s%s", w[i], i == NR ? "" : i == NR - 1 ? " and " : ", " }')
    echo "config: ${changed:-the configuration} changed since the last build; rebuilding what depends on it"
fi
mv "$tmp" "$config"
