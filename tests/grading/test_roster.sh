#!/bin/sh
# test_roster.sh - ./grader --batch --roster, on lab0: the gradebook has a
# row per student of the roster (a CSV of id and name, with a header, a
# quoted name holding a comma, CRLF line ends): a student without a
# submission is "missing" (score 0, in the LMS file too), a submission is
# matched whatever the case of its id, one the roster lacks is graded and
# listed; Canvas's Student column gets the name; a shard leaves the missing
# rows to the merge. A roster with a bad id or one student twice is a
# usage error naming the line.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/grading/test_roster.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"


S=$TMP/class
for id in alice Bob extra; do
    mkdir -p "$S/$id" && cp solutions/lab0/lab0.c "$S/$id/"
done
printf 'id,name\r\nalice,"Liddell, Alice"\r\nbob,Bob Builder\r\ncarol,Carol Danvers\r\n\r\n' >"$TMP/roster.csv"

"$GRADER" --batch "$S" lab0 -j 2 --roster "$TMP/roster.csv" --lms canvas \
    --lms-assignment "Lab 0 (7)" >"$TMP/out" 2>"$TMP/err"
expect_eq "exit status: a roster student missing needs a look" "$?" 1
BOOK=$S.grades/grades.csv
expect_eq "gradebook: a row per student, and the extra one" \
    "$(csv "$BOOK" | sed 1d | cut -d, -f1,2,4 | tr '\n' ' ')" \
    "Bob,100,graded alice,100,graded carol,0,missing extra,100,graded "
expect_match "summary: missing" "$(cat "$TMP/out")" "^  missing +1  on the roster, with no submission"
expect_match "summary: the missing student, by id and name" \
    "$(sed -n '/^Missing (on the roster/,/^$/p' "$TMP/out")" "^  carol +Carol"
expect_eq "summary: not on the roster" \
    "$(sed -n '/^Not on the roster (graded all the same):$/{n;p;}' "$TMP/out")" "  extra"
expect_match "summary: the mean leaves missing out" "$(cat "$TMP/out")" "^  mean +100\\.0 "
expect_match "progress: missing" "$(cat "$TMP/err")" "carol missing: on the roster, no submission"
LMS=$S.grades/lms-canvas.csv
expect_eq "canvas: the name, and 0 for the missing" \
    "$(csv "$LMS" | grep -e Liddell -e Danvers | tr '\n' ' ')" \
    "\"Liddell, Alice\",,,alice,,100 Carol Danvers,,,carol,,0 "

"$GRADER" --batch "$S" lab0 --roster "$TMP/roster.csv" --shard 1/2 >"$TMP/shard.out" 2>&1
expect_eq "shard: no missing rows" "$(csv "$S.grades/grades.shard-1-of-2.csv" | grep -c missing)" 0
"$GRADER" --batch "$S" lab0 --merge --roster "$TMP/roster.csv" --lms moodle >"$TMP/merge.out" 2>&1
expect_eq "merge: the missing row" "$(field "$BOOK" carol 4)" missing
expect_eq "moodle: no submission" "$(csv "$S.grades/lms-moodle.csv" | grep '^carol,')" "carol,0,no submission"

printf 'alice,A\nbad\tid,B\n' >"$TMP/bad.csv"
printf 'alice,A\nALICE,B\n' >"$TMP/twice.csv"
"$GRADER" --batch "$S" lab0 --roster "$TMP/bad.csv" >/dev/null 2>"$TMP/bad.err"
expect_eq "bad id: exit status" "$?" 2
expect_match "bad id: names the line" "$(cat "$TMP/bad.err")" "bad\\.csv:2: the id .*control character U\\+0009"
"$GRADER" --batch "$S" lab0 --roster "$TMP/twice.csv" >/dev/null 2>"$TMP/twice.err"
expect_eq "twice: exit status" "$?" 2
expect_match "twice: names the lines" "$(cat "$TMP/twice.err")" "twice\\.csv:2: the same student as line 1"
"$GRADER" --batch "$S" lab0 --roster "$TMP/nowhere.csv" >/dev/null 2>&1
expect_eq "no roster file: exit status" "$?" 2

echo "test_roster: $passed passed, $failed failed"
[ "$failed" = 0 ]
