#!/bin/sh
# test_groups.sh - ./grader --batch --groups FILE: a group submits once, and
# every member gets the group's row. On lab0: a plain id,group list (a
# group with one submission, one with none, one with two, a student in no
# group) and Canvas's export of a group set (its columns as
# GroupCategoriesController#export_headers writes them); the scorecard of
# a member scored on a groupmate's; a resumed run; a file that names no
# group column, and a student in two groups, refused with the line.
#
#   GRADER=build/bin/grader sh tests/grading/test_groups.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

SOL=$ROOT/solutions/lab0/lab0.c
SKEL=$ROOT/labs/lab0/lab0.c
S=$TMP/class
for id in alice ivan kim; do mkdir -p "$S/$id" && cp "$SOL" "$S/$id/"; done
for id in bob judy; do mkdir -p "$S/$id" && cp "$SKEL" "$S/$id/"; done
printf 'id,group\nalice,G1\ndave,G1\nbob,G2\nerin,G2\ngina,G4\nhank,G4\nivan,G5\njudy,G5\nkim,\n' \
    >"$TMP/groups.csv"
"$GRADER" --batch "$S" lab0 -j 2 --groups "$TMP/groups.csv" >"$TMP/out" 2>"$TMP/err"
expect_eq "exit status (a group that sent nothing needs a look)" "$?" 1
BOOK=$S.grades/grades.csv
bob=$(field "$BOOK" bob 2) judy=$(field "$BOOK" judy 2)
[ "$bob" -lt 100 ] && ok || bad "the skeleton scored $bob"
expect_eq "every member has a row: score, status, group" \
    "$(columns "$BOOK" score status group | tr '\n' ' ')" \
    "alice:100:graded:G1 bob:$bob:graded:G2 dave:100:graded:G1 erin:$bob:graded:G2 gina:0:missing:G4 hank:0:missing:G4 ivan:100:graded:G5 judy:$judy:graded:G5 kim:100:graded: "
expect_eq "the group's points, test by test" "$(csv "$BOOK" | grep '^erin,' | cut -d, -f2-16)" \
    "$(csv "$BOOK" | grep '^bob,' | cut -d, -f2-16)"
expect_eq "the gradebook's last column" "$(csv "$BOOK" | head -n 1 | awk -F, '{ print $NF }')" group
expect_eq "dave's scorecard: the group's, under a line that says so" \
    "$(sed -n 1p "$S.grades/dave.txt")" "Group G1: scored on alice's submission, the group's."
expect_eq "dave's scorecard: then alice's, whole" "$(sed 1,2d "$S.grades/dave.txt")" \
    "$(cat "$S.grades/alice.txt")"
[ ! -e "$S.grades/dave.json" ] && ok || bad "a report for dave, who submitted nothing"
expect_match "summary: who is scored on whose" "$(cat "$TMP/out")" \
    "Scored on a groupmate's submission.*
  dave +alice
  erin +bob"
# Each submission counted once in the statistics of the tests: of the 5
# submissions, not of the 7 rows graded.
expect_match "summary: the tests' statistics count submissions" "$(cat "$TMP/out")" \
    "Most failed tests \(submissions that did not pass each, of the 5 that built\)"
expect_match "summary: a group with two submissions" "$(cat "$TMP/out")" \
    "In a group with more than one submission .*each graded on their own:
  ivan +G5
  judy +G5"
expect_match "summary: the group that sent nothing" "$(cat "$TMP/out")" \
    "Missing \\(on the roster or in a group, no submission; score 0\\):
  gina
  hank"

# Again: the members' rows come from the groupmates' reports, resumed.
"$GRADER" --batch "$S" lab0 --groups "$TMP/groups.csv" >"$TMP/again" 2>&1
expect_match "again: resumed" "$(cat "$TMP/again")" "resumed +5 "
expect_eq "again: dave still has the group's row" "$(field "$BOOK" dave 2),$(field "$BOOK" dave 4)" \
    "100,graded"

# Canvas's export of a group set: name, canvas_user_id, user_id (SIS),
# login_id, sections, group_name, canvas_group_id, group_id; the
# submissions are named by Canvas user id, as its download's are. Two
# groups of one name (Canvas allows it): told apart by canvas_group_id,
# Carol's Team A is not John's.
C=$TMP/canvas
mkdir -p "$C/48213" && cp "$SOL" "$C/48213/"
mkdir -p "$C/48215" && cp "$SKEL" "$C/48215/"
cat >"$TMP/canvas-groups.csv" <<'CSV'
name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id
"Doe, John",48213,S1,jdoe,Section 1,Team A,501,
"Roe, Ann",48214,S2,aroe,Section 1,Team A,501,
"Smith, Bob",48215,S3,bsmith,Section 2,,,
"Lee, Carol",48216,S4,clee,Section 2,Team A,502,
CSV
"$GRADER" --batch "$C" lab0 --groups "$TMP/canvas-groups.csv" >"$TMP/c.out" 2>&1
expect_eq "canvas export: Ann scored on John's, Bob in no group, Carol's other Team A missing" \
    "$(columns "$C.grades/grades.csv" score group | tr '\n' ' ')" \
    "48213:100:Team A (group 501) 48214:100:Team A (group 501) 48215:$(field "$C.grades/grades.csv" 48215 2): 48216:0:Team A (group 502) "

# Refused, with the file and the line.
printf 'id,team\nalice,G1\n' >"$TMP/nogroup.csv"
"$GRADER" --batch "$S" lab0 --groups "$TMP/nogroup.csv" >"$TMP/ng.out" 2>&1
expect_eq "no group column: exit status" "$?" 2
expect_match "no group column: says so" "$(cat "$TMP/ng.out")" \
    "--groups .*nogroup\\.csv: its first row names no group column"
printf 'id,group\nalice,G1\nAlice,G2\n' >"$TMP/twice.csv"
"$GRADER" --batch "$S" lab0 --groups "$TMP/twice.csv" >"$TMP/tw.out" 2>&1
expect_eq "a student in two groups: exit status" "$?" 2
expect_match "a student in two groups: the line" "$(cat "$TMP/tw.out")" \
    "--groups .*twice\\.csv:3: the same student as line 2"
"$GRADER" --batch "$S" lab0 --groups "$TMP/none.csv" >"$TMP/nf.out" 2>&1
expect_eq "no such file: exit status" "$?,$(grep -c 'cannot open' "$TMP/nf.out")" "2,1"

echo "test_groups: $passed passed, $failed failed"
[ "$failed" = 0 ]
