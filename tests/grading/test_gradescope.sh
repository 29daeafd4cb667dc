#!/bin/sh
# test_gradescope.sh - the Gradescope autograder, end to end:
# grading/gradescope/make_zip.sh (what `make gradescope-lab0` runs) builds
# the zip (setup.sh, run_autograder, the course with its solutions, and the
# seed in a file: one with quotes, & and $, which no make or shell quoting
# touches); unpacked into a folder laid out like Gradescope's /autograder,
# setup.sh builds the grader (without installing packages:
# FP8LAB_NO_INSTALL=1), and run_autograder grades what a student uploaded
# into results.json: the solution nested in a folder (full marks, hidden
# inputs drawn), the skeleton (low); and refuses, score 0 and saying why in
# the student's report, as --batch does: nothing uploaded, two lab0.c, a
# lab0.c that is a link. (A batch's scores for Gradescope, --lms
# gradescope: test_gradescope_batch.sh.)
#
#   FP8LAB_BUILD=build sh tests/grading/test_gradescope.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
B=${FP8LAB_BUILD:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"
quiet_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"; }

printf '%s\n' "spring term/7 & bob's \$HOME" >"$TMP/seed"
quiet_make -s BUILD="$B" grader >"$TMP/make.out" 2>&1 &&
    SEED_FILE=$TMP/seed sh grading/gradescope/make_zip.sh "$B/gradescope" lab0 lab0.c \
        >>"$TMP/make.out" 2>&1
expect_eq "make_zip.sh: exit status" "$?" 0
ZIP=$B/gradescope/lab0-autograder.zip
AG=$TMP/autograder
mkdir -p "$AG/source"
bsdtar -xf "$ZIP" -C "$AG/source" && ok || bad "$ZIP: not a zip bsdtar reads"
for f in setup.sh run_autograder; do
    [ -x "$AG/source/$f" ] && ok || bad "the zip's $f: missing or not executable"
done
[ -f "$AG/source/course/data/golden/lab0/decode.npy" ] && ok || bad "the zip has no goldens"
[ -f "$AG/source/course/solutions/lab0/lab0.c" ] && ok ||
    bad "the zip lacks the reference solution the judges link"
grep -q 'lab=lab0$' "$AG/source/run_autograder" && ok || bad "run_autograder: not for lab0"
expect_eq "the zip's seed, exactly" "$(cat "$AG/source/seed" 2>&1)" "spring term/7 & bob's \$HOME"
grep -q "spring" "$AG/source/run_autograder" && bad "run_autograder holds the seed" || ok

FP8LAB_NO_INSTALL=1 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL bash "$AG/source/setup.sh" \
    >"$TMP/setup.out" 2>&1
expect_eq "setup.sh: exit status" "$?" 0 || tail -n 20 "$TMP/setup.out"
expect_eq "setup.sh: the seed is root's alone" "$(stat -c %a "$AG/source/seed")" 600
expect_eq "setup.sh: run_autograder is root's alone" "$(stat -c %a "$AG/source/run_autograder")" 700

# grade NAME: runs run_autograder on what $AG/submission holds now.
grade() {
    rm -rf "$AG/results"
    AUTOGRADER_ROOT=$AG bash "$AG/source/run_autograder" >"$TMP/$1.out" 2>&1
    expect_eq "$1: run_autograder's exit status" "$?" 0
    cp "$AG/results/results.json" "$TMP/$1.json" 2>/dev/null
}
mkdir -p "$AG/submission/my work"
cp solutions/lab0/lab0.c "$AG/submission/my work/"
grade solution
expect_eq "solution: score, tests" "$(jq -r '[.score, (.tests | length)] | join(",")' "$TMP/solution.json")" \
    "100,11"
expect_match "solution: hidden inputs drawn" "$(jq -r '.tests[].name' "$TMP/solution.json")" \
    "encode_random.*hidden inputs"
grep -q "spring term" "$TMP/solution.json" && bad "results.json shows the seed" || ok
rm -rf "$AG/submission" && mkdir -p "$AG/submission" && cp labs/lab0/lab0.c "$AG/submission/"
grade skeleton
score=$(jq -r .score "$TMP/skeleton.json")
[ "${score%.*}" -le 10 ] 2>/dev/null && ok || bad "skeleton: score '$score', want at most 10"
rm -rf "$AG/submission" && mkdir -p "$AG/submission"
grade nothing
expect_eq "nothing: score" "$(jq -r .score "$TMP/nothing.json")" 0
expect_match "nothing: says what is missing" "$(jq -r '.output' "$TMP/nothing.json")" \
    "^No lab0\\.c in your submission"
mkdir -p "$AG/submission/a" "$AG/submission/b"
cp solutions/lab0/lab0.c "$AG/submission/a/"
cp labs/lab0/lab0.c "$AG/submission/b/"
grade two
expect_eq "two lab0.c: score" "$(jq -r .score "$TMP/two.json")" 0
expect_match "two lab0.c: refused, in the student's report" "$(jq -r '.output' "$TMP/two.json")" \
    "has 2 files named lab0\\.c; upload one"
rm -rf "$AG/submission" && mkdir -p "$AG/submission"
ln -s "$ROOT/solutions/lab0/lab0.c" "$AG/submission/lab0.c"
grade link
expect_eq "a link: score" "$(jq -r .score "$TMP/link.json")" 0
expect_match "a link: refused" "$(jq -r '.output' "$TMP/link.json")" "lab0\\.c in your submission is a link"

echo "test_gradescope: $passed passed, $failed failed"
[ "$failed" = 0 ]
