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
    echo "override NVCC := $NVCC"
    echo "CUDA_INC := $CUDA_INC"
    echo "CUDA_LIBDIR := $CUDA_LIBDIR"
} > "$tmp" || exit 1

if cmp -s "$tmp" "$config"; then
    exit 0
fi
if [ -f "$config" ]; then
    changed=$(diff "$config" "$tmp" |
        sed -n 's/^> \(# \)\{0,1\}\(override \)\{0,1\}\([A-Za-z_+]*\).*/\3/p' | sort -u | tr '\n' ' ')
    echo "config: ${changed}changed since the last build; rebuilding what depends on it"
fi
mv "$tmp" "$config"
