#!/bin/sh
# test_config.sh - no sequence of package installs and builds needs `make
# clean`: the build records what the machine offers (build/config.mk) and
# rebuilds what depends on it when that changes.
#
#   1. OpenBLAS hidden (a pkg-config directory without openblas.pc) and
#      installing refused (FP8LAB_NO_INSTALL=1): `make lab3` stops with one
#      line naming the command to run, before it has built anything; then,
#      restored, `make lab3` gives the same files as a clean build.
#   2. The CUDA Toolkit hidden (an empty directory mounted over it, in a
#      mount namespace of the test's own; root only): `make lab3` builds
#      without it; restored, `make lab3` gives the same files, byte for byte,
#      as a clean build (the grader's compiled-in nvcc included).
#   3. A flag changed (CFLAGS) rebuilds, and changed back gives the clean build.
#   4. In a copy of the course with nothing built, ./grader --help and
#      --list answer; a header changed is seen whichever way the build
#      folder was named: ./grader names it absolute, make relative.
#   5. A warning (in that copy): make lab0 shows it and still builds; make
#      test's warning check (WERROR=1, at -O1) stops at it.
# Each build is in a folder of the test's own.
#
#   FP8LAB_BUILD=build sh tests/build/test_config.sh     (from the top of the course)
set -u
# Its builds are plain whatever the build under test: in a sanitized make test
# (FP8LAB_BUILD=.../sanitize) it would do again what the plain run did.
case ${FP8LAB_BUILD:-build} in */sanitize)
    echo "test_config: skipped: its builds are plain ones, which make test without SANITIZE=1 checks"
    exit 77 ;;
esac
ROOT=$(pwd)
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"
B=$TMP/build

# A plain build (SANITIZE from the environment of a sanitized make test is not
# this test's subject), with nothing of an enclosing make.
# On every core: what is checked is what gets built, not in what order.
J=-j$(nproc 2>/dev/null || echo 1)
qmake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE make $J --no-print-directory BUILD="$B" "$@"; }
# The sha256 of every file the build wrote, by name.
hashes() { (cd "$B" && find . -type f | LC_ALL=C sort | xargs sha256sum); }
same_as_clean() {
    hashes >"$TMP/$1.sha"
    if cmp -s "$TMP/clean.sha" "$TMP/$1.sha"; then ok; else
        bad "$1: the build differs from a clean one in:"
        diff "$TMP/clean.sha" "$TMP/$1.sha" | sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u | head -n 10
    fi
}

# The clean build everything is compared with.
qmake lab3 >"$TMP/clean.out" 2>&1
expect_eq "clean make lab3: exit status" "$?" 0 || tail -n 20 "$TMP/clean.out"
hashes >"$TMP/clean.sha"
grep -q '^BLAS_LIBS := .*-lopenblas' "$B/config.mk" && ok || bad "config.mk: no OpenBLAS in BLAS_LIBS"

# 1. OpenBLAS hidden: every pkg-config file this machine has, but OpenBLAS's.
mkdir -p "$TMP/pc"
for d in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
    for f in "$d"/*.pc; do
        [ -e "$f" ] || continue
        case ${f##*/} in openblas*.pc|blas*.pc|cblas*.pc) ;; *) ln -sf "$f" "$TMP/pc/" ;; esac
    done
done
rm -rf "$B"
FP8LAB_NO_INSTALL=1 PKG_CONFIG_LIBDIR=$TMP/pc qmake lab3 >"$TMP/hidden.out" 2>&1
status=$?
[ $status != 0 ] && ok || bad "OpenBLAS hidden: make lab3 succeeded"
expect_eq "OpenBLAS hidden: lines make printed" "$(wc -l <"$TMP/hidden.out")" 1 || cat "$TMP/hidden.out"
expect_match "OpenBLAS hidden: the command to run" "$(cat "$TMP/hidden.out")" \
    "Run: sudo apt-get install -y libopenblas-dev"
[ -e "$B" ] && bad "OpenBLAS hidden: make lab3 left $(find "$B" | wc -l) files in the build folder" || ok
qmake lab3 >"$TMP/restored.out" 2>&1
expect_eq "OpenBLAS restored: make lab3" "$?" 0 || tail -n 20 "$TMP/restored.out"
same_as_clean "OpenBLAS restored"

# 2. The CUDA Toolkit hidden under an empty directory.
CUDA=${CUDA_HOME:-/usr/local/cuda}
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1 ||
    ! command -v mount >/dev/null 2>&1; then
    echo "SKIP: CUDA hidden: needs root, unshare and mount (util-linux, mount), to mount over $CUDA"
elif ! grep -q '^override NVCC := .' "$B/config.mk"; then
    echo "SKIP: CUDA hidden: the build found no nvcc here, so there is nothing to hide"
else
    mkdir -p "$TMP/empty"
    # nvcc may be on PATH too: a PATH without the toolkit's bin.
    path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v "^$CUDA" | paste -sd: -)
    unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$TMP/empty" "$CUDA" \
        env PATH="$path" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE \
        make $J --no-print-directory BUILD="$B" lab3 >"$TMP/nocuda.out" 2>&1
    expect_eq "CUDA hidden: make lab3" "$?" 0 || tail -n 20 "$TMP/nocuda.out"
    grep -q '^override NVCC := *$' "$B/config.mk" && ok || bad "CUDA hidden: config.mk still names nvcc"
    strings "$B/obj/grading/grade.o" | grep -q "$CUDA/bin/nvcc" &&
        bad "CUDA hidden: the grader still has nvcc compiled in" || ok
    qmake lab3 >"$TMP/cuda.out" 2>&1
    expect_eq "CUDA restored: make lab3" "$?" 0 || tail -n 20 "$TMP/cuda.out"
    expect_match "CUDA restored: make says what changed" "$(cat "$TMP/cuda.out")" "^config: .*the CUDA Toolkit.* changed"
    same_as_clean "CUDA restored"
fi

# 3. A flag changed, then changed back.
qmake lab3 CFLAGS=-DFP8LAB_A_NEW_FLAG >"$TMP/flag.out" 2>&1
expect_eq "a new CFLAGS: make lab3" "$?" 0
expect_match "a new CFLAGS: the library is rebuilt" "$(cat "$TMP/flag.out")" "CC +common/fp8.c"
qmake lab3 >"$TMP/noflag.out" 2>&1
expect_eq "CFLAGS back: make lab3" "$?" 0
same_as_clean "CFLAGS back"
# Nothing changed: nothing rebuilt.
qmake lab3 >"$TMP/again.out" 2>&1
expect_eq "again: make lab3 says only what to run next" "$(grep -vc '^lab3: built' "$TMP/again.out")" 0

# 4. A header changed after ./grader built (BUILD absolute), then make (BUILD
#    relative), and the other way round: each rebuilds what includes it.
C=$TMP/course
mkdir -p "$C"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$ROOT" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$C"
else
    (cd "$ROOT" && tar cf - --exclude=./build .) | tar xf - -C "$C"
fi
gmake() { (cd "$C" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u BUILD "$@"); }
# Before anything is built there: ./grader --help and --list build the
# grader alone and answer.
gmake ./grader --help >"$TMP/help.out" 2>&1
expect_eq "a fresh copy: ./grader --help" "$?" 0 || tail -n 5 "$TMP/help.out"
expect_match "a fresh copy: ./grader --help prints the usage" "$(cat "$TMP/help.out")" "^usage: \\./grader"
gmake ./grader --list >"$TMP/list.out" 2>&1
expect_match "a fresh copy: ./grader --list lists lab0's tests" "$(cat "$TMP/list.out")" "^ +decode_e4m3 "
gmake ./grader lab0 --solution >"$TMP/g1.out" 2>&1
expect_eq "copy: ./grader lab0 --solution" "$?" 0 || tail -n 5 "$TMP/g1.out"
touch "$C/grading/rubric.h"
gmake make $J --no-print-directory lab0 >"$TMP/g2.out" 2>&1
expect_match "rubric.h changed after ./grader: make lab0 rebuilds the suite" \
    "$(cat "$TMP/g2.out")" "CC +grading/lab0/suite.c"
before=$(stat -c %Y.%y "$C/build/obj/grading/lab0/suite.o" 2>/dev/null)
sleep 1
touch "$C/grading/rubric.h"
gmake ./grader lab0 --solution >"$TMP/g3.out" 2>&1
expect_eq "copy: ./grader lab0 --solution again" "$?" 0 || tail -n 5 "$TMP/g3.out"
after=$(stat -c %Y.%y "$C/build/obj/grading/lab0/suite.o" 2>/dev/null)
[ -n "$before" ] && [ "$before" != "$after" ] && ok ||
    bad "rubric.h changed after make: ./grader did not rebuild the suite"

# 5. A warning, in a source every lab links.
printf '%s\n' 'int delayed_test_warning(void);' \
    'int delayed_test_warning(void) { int unused; return 0; }' >>"$C/common/delayed.c"
gmake make $J --no-print-directory lab0 >"$TMP/w1.out" 2>&1
expect_eq "a warning: make lab0 still builds" "$?" 0 || tail -n 5 "$TMP/w1.out"
expect_match "a warning: make lab0 shows it" "$(cat "$TMP/w1.out")" "delayed\\.c:.*warning: unused variable"
gmake make $J --no-print-directory werror-O1 >"$TMP/w2.out" 2>&1
[ $? != 0 ] && ok || bad "a warning: make's check at -O1 (make test's) passed"
expect_match "a warning: the check stops at it" "$(cat "$TMP/w2.out")" "delayed\\.c:.*error: unused variable"
expect_match "a warning: the check says why" "$(cat "$TMP/w2.out")" \
    "^make test: warnings are errors \\(WERROR=1, OPT=-O1\\)"

echo "test_config: $passed passed, $failed failed"
[ "$failed" = 0 ]
