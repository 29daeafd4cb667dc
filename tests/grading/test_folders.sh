#!/bin/sh
# test_folders.sh - ./grader --batch takes a folder submission as it takes
# an archive, on lab0:
#   - the student file at any depth (jdoe/src/lab0.c, a/b/c/d/lab0.c),
#     macOS's __MACOSX/ and ._ files aside, graded, its sha256 recorded;
#   - two files of the name, and a lab0.c that is a link, refuse the folder
#     with a reason naming them (status error); a link to a folder is not
#     followed;
#   - a folder without lab0.c scores 0 as build_failed, its report saying
#     "no lab0.c in the submission" and never the instructor's paths.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/grading/test_folders.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

put() { # PATH: the solution there
    mkdir -p "$(dirname "$1")" && cp solutions/lab0/lab0.c "$1"
}

S=$TMP/class
put "$S/jdoe/src/lab0.c"
put "$S/deep/a/b/c/d/lab0.c"
put "$S/mac/work/lab0.c"
printf 'not C' >"$S/mac/._lab0.c"
mkdir -p "$S/mac/__MACOSX/work" && printf 'not C' >"$S/mac/__MACOSX/work/lab0.c"
put "$S/two/a/lab0.c"
put "$S/two/b/lab0.c"
mkdir -p "$S/linked/src"
ln -s "$ROOT/solutions/lab0/lab0.c" "$S/linked/src/lab0.c"
put "$TMP/elsewhere/lab0.c"
mkdir -p "$S/viadir"
ln -s "$TMP/elsewhere" "$S/viadir/src"
mkdir -p "$S/none/src"
echo "forgot it" >"$S/none/src/notes.txt"

"$GRADER" --batch "$S" lab0 -j 2 >"$TMP/out" 2>"$TMP/err"
expect_eq "exit status: two refusals" "$?" 1
BOOK=$S.grades/grades.csv
for id in jdoe deep mac; do
    expect_eq "$id: graded from its subfolder" "$(field "$BOOK" $id 2),$(field "$BOOK" $id 4)" "100,graded"
done
expect_eq "jdoe: the sha256 of what was graded" "$(jq -r '.sha256."lab0.c"' "$S.grades/jdoe.json")" \
    "$(sha256sum solutions/lab0/lab0.c | cut -d' ' -f1)"
expect_eq "two: refused" "$(field "$BOOK" two 2),$(field "$BOOK" two 4)" "0,error"
expect_match "two: says which" "$(jq -r .error "$S.grades/two.json")" \
    "its folder was refused: two files named lab0\\.c, [ab]/lab0\\.c and [ab]/lab0\\.c: keep one"
expect_eq "linked: refused" "$(field "$BOOK" linked 4)" error
expect_match "linked: says why" "$(jq -r .error "$S.grades/linked.json")" \
    "its folder was refused: src/lab0\\.c is a symbolic link"
expect_eq "viadir: the link to a folder not followed" "$(field "$BOOK" viadir 2),$(field "$BOOK" viadir 4)" \
    "0,build_failed"
expect_eq "none: build_failed" "$(field "$BOOK" none 2),$(field "$BOOK" none 4)" "0,build_failed"
expect_eq "none: says what is missing" "$(jq -r .build_log "$S.grades/none.json")" \
    "no lab0.c in the submission"
grep -q "$TMP" "$S.grades/none.txt" && bad "none: the scorecard shows the instructor's path" || ok
expect_match "none: the scorecard says so" "$(cat "$S.grades/none.txt")" "no lab0\\.c in the submission"

echo "test_folders: $passed passed, $failed failed"
[ "$failed" = 0 ]
