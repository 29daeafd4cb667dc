#!/bin/sh
# test_toolchain.sh - the grader runs the toolchain the build recorded,
# wherever it is installed: a GPU node's module system puts compilers under
# /opt, /apps or /sw, outside the system folders the sandbox shows.
#
# A copy of this machine's gcc and g++ goes into a folder of its own (the
# drivers find cc1 and the rest through their configured prefix), OpenBLAS
# is found by pkg-config in another, the course is built with CC and CXX
# pointing there (its own build folder), and then:
#   - lab0's reference is graded with bubblewrap and with Landlock alone
#     (FP8LAB_SANDBOX=none): full marks, the compiler run from its folder
#     and its subject linked with OpenBLAS from its own; lab3's, which
#     includes cblas.h, passes a test both ways;
#   - where nvcc is, lab5's reference (nvcc, its host compiler the copied
#     g++) builds both ways: `builds` passes;
#   - as root, with the folder closed to the sandbox's user: the grader says
#     it cannot run the compiler, a grader error (exit 2) naming it, and no
#     score, never a student's 0.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/grading/test_toolchain.sh
set -u
# Its builds are plain whatever the build under test: in a sanitized make test
# (FP8LAB_BUILD=.../sanitize) it would do again what the plain run did.
case ${FP8LAB_BUILD:-build} in */sanitize)
    echo "test_toolchain: skipped: its builds are plain ones, which make test without SANITIZE=1 checks"
    exit 77 ;;
esac
ROOT=$(pwd)
TMP=$(mktemp -d) || exit 1
trap 'chmod -R u+rwx "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

gcc_real=$(readlink -f "$(command -v gcc 2>/dev/null)" 2>/dev/null)
gxx_real=$(readlink -f "$(command -v g++ 2>/dev/null)" 2>/dev/null)
if [ ! -x "$gcc_real" ] || [ ! -x "$gxx_real" ]; then
    echo "test_toolchain: skipped: gcc and g++ are needed to copy a toolchain"
    exit 77
fi
chmod 755 "$TMP"
# The drivers copied, and beside them, as in an installed toolchain, its
# libexec (cc1, cc1plus) and lib (crt files, libgcc, libstdc++) folders,
# linked to this machine's: the drivers find them only through their own
# folder, as a relocated gcc does.
TC=$TMP/toolchain
machine=$(gcc -dumpmachine) version=$(gcc -dumpversion)
mkdir -p "$TC/bin" && cp "$gcc_real" "$TC/bin/gcc" && cp "$gxx_real" "$TC/bin/g++" || exit 1
for d in libexec lib; do
    if [ -d "/usr/$d/gcc/$machine/$version" ]; then
        mkdir -p "$TC/$d/gcc/$machine" &&
            ln -s "/usr/$d/gcc/$machine/$version" "$TC/$d/gcc/$machine/$version" || exit 1
    fi
done
echo 'int main(void) { return 0; }' >"$TMP/t.c"
if ! "$TC/bin/gcc" "$TMP/t.c" -o "$TMP/t" 2>"$TMP/t.err"; then
    echo "test_toolchain: skipped: a copy of this machine's gcc does not run from another folder:"
    tail -n 1 "$TMP/t.err"
    exit 77
fi
# OpenBLAS as a module system or an unpacked package gives it: pkg-config
# finds it first in a folder of its own, under a name of its own
# (libfp8testblas, a copy of this machine's libopenblas.a, so that nothing
# in the system's folders can stand in for it, and a link to its .so), and
# every lab's subject links it statically from there.
blas_pc=$(pkg-config --variable=pcfiledir openblas 2>/dev/null)/openblas.pc
blas_lib=$(pkg-config --variable=libdir openblas 2>/dev/null)
blas_inc=$(pkg-config --variable=includedir openblas 2>/dev/null)
if [ -f "$blas_pc" ] && [ -d "$blas_lib" ] && [ -d "$blas_inc" ]; then
    BL=$TMP/openblas
    mkdir -p "$BL/lib" "$BL/include" "$BL/pkgconfig" &&
        cp "$blas_lib/libopenblas.a" "$BL/lib/libfp8testblas.a" &&
        ln -s "$blas_lib/libopenblas.so" "$BL/lib/libfp8testblas.so" &&
        for f in "$blas_inc"/*; do ln -s "$f" "$BL/include/"; done &&
        sed -e "s|^libdir=.*|libdir=$BL/lib/|" -e "s|^includedir=.*|includedir=$BL/include/|" \
            -e "s|-lopenblas|-lfp8testblas|" "$blas_pc" >"$BL/pkgconfig/openblas.pc" || exit 1
    export PKG_CONFIG_PATH="$BL/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
fi
# A plain build in a folder of the test's own (SANITIZE from a sanitized make
# test is not this test's subject), with nothing of an enclosing make.
unset MAKEFLAGS MFLAGS MAKELEVEL SANITIZE
B=$TMP/build
export CC="$TC/bin/gcc" CXX="$TC/bin/g++" BUILD="$B"

# The build, as a student on such a node types it (the grader script makes
# what it needs); lab5 where the CUDA Toolkit is.
lab5=0
grep -Eq '^(override )?NVCC := .' "${FP8LAB_BUILD:-build}/config.mk" 2>/dev/null && lab5=1
goals="grader-lab0 grader-lab3"
[ $lab5 = 1 ] && goals="$goals grader-lab5"
# shellcheck disable=SC2086
if ! make -s -j"$(nproc 2>/dev/null || echo 1)" --no-print-directory $goals >"$TMP/make.log" 2>&1; then
    tail -n 20 "$TMP/make.log"
    echo "test_toolchain: FAIL: the course did not build with CC=$CC"
    exit 1
fi
expect_match "config: the compiler recorded" "$(cat "$B/config.mk")" "CC_ABS := $TC/bin/gcc"
expect_match "config: its folder shown to the sandbox" "$(cat "$B/config.mk")" \
    "TOOLCHAIN_DIRS := .*$TC"
if [ -n "${BL:-}" ]; then
    expect_match "config: OpenBLAS's folders shown too" "$(cat "$B/config.mk")" \
        "TOOLCHAIN_DIRS := .*$BL/include.*$BL/lib"
fi

for mode in bwrap landlock; do
    if [ $mode = landlock ]; then export FP8LAB_SANDBOX=none; else unset FP8LAB_SANDBOX; fi
    ./grader lab0 --solution --format json -o "$TMP/lab0.$mode.json" 2>"$TMP/lab0.$mode.err"
    expect_eq "lab0 with $mode: exit status" "$?" 0
    expect_eq "lab0 with $mode: score" \
        "$(jq -r '"\(.score)/\(.max_score)"' "$TMP/lab0.$mode.json" 2>/dev/null)" "100/100"
    # lab3 includes cblas.h and calls OpenBLAS: one test, built and passed.
    ./grader lab3 --solution --test cast_e4m3 --format json -o "$TMP/lab3.$mode.json" \
        2>"$TMP/lab3.$mode.err"
    expect_eq "lab3 with $mode: cast_e4m3" \
        "$(jq -r '.tests[0].status' "$TMP/lab3.$mode.json" 2>/dev/null)" pass
    if [ $lab5 = 1 ]; then
        ./grader lab5 --solution --test builds --format json -o "$TMP/lab5.$mode.json" \
            2>"$TMP/lab5.$mode.err"
        expect_eq "lab5 with $mode: builds" \
            "$(jq -r '.tests[0].status' "$TMP/lab5.$mode.json" 2>/dev/null)" pass
    fi
done
unset FP8LAB_SANDBOX

# The folder closed to the sandbox's user (nobody, when the grader is root):
# the probe finds out before any submission is built.
if [ "$(id -u)" = 0 ]; then
    chmod 700 "$TC"
    ./grader lab0 --solution --format json -o "$TMP/closed.json" >"$TMP/closed.out" 2>&1
    expect_eq "a toolchain the sandbox cannot run: exit status" "$?" 2
    expect_match "a toolchain the sandbox cannot run: says so" "$(cat "$TMP/closed.out")" \
        "cannot run the compiler $TC/bin/gcc in its sandbox .*not the submission"
    expect_eq "a toolchain the sandbox cannot run: no report" "$(test -s "$TMP/closed.json" &&
        echo written)" ""
    chmod 755 "$TC"
fi

echo "test_toolchain: $passed passed, $failed failed"
[ "$failed" = 0 ]
