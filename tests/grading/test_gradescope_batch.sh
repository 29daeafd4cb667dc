#!/bin/sh
# test_gradescope_batch.sh - a batch's scores as a Gradescope upload (--lms
# gradescope): an autograder that runs nothing, run as Gradescope runs it
# (grading/gradescope/replay/) on submissions its metadata describes. Each
# found by its number (a Gradescope export) or by a submitter's email
# (folders named by it, in any case) gets its row of the gradebook, the
# points test by test as grading its files alone gives them; a submission
# made after the export, a submitter added since, a group whose members'
# points differ, one the batch lacks and metadata that is not JSON get no
# score, saying why; a batch with neither key writes nothing. (The
# autograder that grades on Gradescope: test_gradescope.sh.)
#
#   GRADER=build/bin/grader sh tests/grading/test_gradescope_batch.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
B=${FP8LAB_BUILD:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

# ---- A batch's scores as a Gradescope upload (--lms gradescope) ----
# A Gradescope export graded here: John's solution, Ann and Bob's group
# submission of the skeleton, Carol's file that does not build (her SID
# empty). The zip is an autograder that runs nothing: each submission,
# found by its number (Gradescope's /autograder/submission_metadata.json,
# gradescope-autograders.readthedocs.io "Submission Metadata"), gets its row
# of the gradebook, test by test as grading its file alone gives.
X=$TMP/export/assignment_77_export
mkdir -p "$X/submission_9001/src" "$X/submission_9002" "$X/submission_9003"
cp solutions/lab0/lab0.c "$X/submission_9001/src/"
cp labs/lab0/lab0.c "$X/submission_9002/"
{ cat solutions/lab0/lab0.c; echo 'int broken('; } >"$X/submission_9003/lab0.c"
cat >"$X/submission_metadata.yml" <<'YML'
submission_9001:
  :submitters:
  - :name: John Doe
    :sid: '1001'
    :email: JDoe@Example.edu
submission_9002:
  :submitters:
  - :name: Ann Roe
    :sid: '1002'
    :email: aroe@example.edu
  - :name: Bob Smith
    :sid: '1003'
    :email: bsmith@example.edu
submission_9003:
  :submitters:
  - :name: Carol Lee
    :sid: ''
    :email: clee@example.edu
YML
G=${GRADER:-$B/bin/grader}
"$G" --batch "$TMP/export" lab0 --seed gs7 --lms gradescope >"$TMP/gs.out" 2>"$TMP/gs.err"
expect_eq "--lms gradescope: exit status" "$?" 0
UP=$TMP/export.grades/lms-gradescope.zip
expect_match "--lms gradescope: the summary says what to do with it" "$(cat "$TMP/gs.out")" \
    "For LMS: *$UP \\(Gradescope: upload it as the assignment's autograder, then \"Regrade All"
R=$TMP/replay
mkdir -p "$R/source"
bsdtar -xf "$UP" -C "$R/source" && ok || bad "$UP: not a zip bsdtar reads"
for f in setup.sh run_autograder; do
    [ -x "$R/source/$f" ] && ok || bad "the upload's $f: missing or not executable"
done
[ -d "$R/source/course" ] && bad "the upload holds the course: it should run nothing" || ok
# Gradescope copies run_autograder to /autograder and runs it there.
cp "$R/source/run_autograder" "$R/"
FP8LAB_NO_INSTALL=1 bash "$R/source/setup.sh" && ok || bad "the upload's setup.sh failed"
# replay NAME JSON: runs it for a submission whose metadata is JSON; its
# status to $TMP/NAME.rc, what it says to $TMP/NAME.say, results.json
# (where written) to $TMP/NAME.json.
replay() {
    rm -rf "$R/results"
    printf '%s\n' "$2" >"$R/submission_metadata.json"
    AUTOGRADER_ROOT=$R bash "$R/run_autograder" >"$TMP/$1.say" 2>&1
    echo $? >"$TMP/$1.rc"
    rm -f "$TMP/$1.json"
    [ -f "$R/results/results.json" ] && cp "$R/results/results.json" "$TMP/$1.json"
}
# no_results NAME: its status and whether it wrote results.json
no_results() { echo "$(cat "$TMP/$1.rc"),$(test -f "$TMP/$1.json" && echo results)"; }
book() { tr -d '\r' <"$TMP/export.grades/grades.csv" | awk -F, -v id="$1" '$1 == id { print $2 }'; }
points() { jq -c '[.tests[] | [.name, .score, .max_score]]' "$1" | sed 's/ \[hidden inputs\]//g'; }
replay john '{"id": 9001, "created_at": "2026-10-01T10:00:00-07:00",
  "assignment": {"id": 9002, "title": "Lab 0"}, "submission_method": "upload",
  "users": [{"email": "jdoe@example.EDU", "id": 1001, "name": "John Doe"}],
  "previous_submissions": []}'
expect_eq "John's submission: replayed" "$(cat "$TMP/john.rc")" 0
expect_eq "John's score: the gradebook's, full marks" "$(jq .score "$TMP/john.json"),$(book 1001)" \
    "100,100"
# The same files graded alone, with the same seed: the same points, test by test.
"$G" lab0 --dir "$X/submission_9001/src" --seed gs7 --format gradescope -o "$TMP/alone1.json" \
    >/dev/null 2>&1
"$G" lab0 --dir "$X/submission_9002" --seed gs7 --format gradescope -o "$TMP/alone2.json" \
    >/dev/null 2>&1
expect_eq "John: each test's points as grading his file alone" "$(points "$TMP/john.json")" \
    "$(points "$TMP/alone1.json")"
expect_match "John's output: his scorecard" "$(jq -r .output "$TMP/john.json")" \
    "^lab0: FP8 number formats"
replay group '{"id": 9002, "users": [{"email": "bsmith@example.edu", "id": 1003, "name": "Bob"},
  {"email": "aroe@example.edu", "id": 1002, "name": "Ann"}]}'
expect_eq "the group's score: Ann's and Bob's" \
    "$(jq .score "$TMP/group.json"),$(book 1003)" "$(book 1002),$(book 1002)"
expect_eq "the group: each test's points as grading its file alone" \
    "$(points "$TMP/group.json")" "$(points "$TMP/alone2.json")"
[ "$(jq '[.tests[].score] | add' "$TMP/john.json")" -gt \
    "$(jq '[.tests[].score] | add' "$TMP/group.json")" ] 2>/dev/null &&
    ok || bad "the replay gives the solution and the skeleton the same points"
replay carol '{"id": 9003, "users": [{"email": "clee@example.edu", "id": 1004, "name": "Carol"}]}'
expect_eq "Carol's (no build): 0, as in the gradebook" \
    "$(jq .score "$TMP/carol.json"),$(book clee@example.edu)" "0,0"
expect_match "Carol's output: says it did not build" "$(jq -r .output "$TMP/carol.json")" \
    "did not build|compiler"
# John resubmitted after the export: not what the batch graded.
replay newer '{"id": 9100, "users": [{"email": "jdoe@example.edu", "id": 1001, "name": "John"}]}'
expect_eq "a later submission: no score (the autograder fails)" "$(no_results newer)" "1,"
expect_match "a later submission: says which one was graded" "$(cat "$TMP/newer.say")" \
    "Submission 9100 is not the one the batch graded: jdoe@example.edu was graded on submission 9001"
replay stranger '{"id": 9200, "users": [{"email": "dee@example.edu", "id": 7, "name": "Dee"}]}'
expect_eq "a submission the batch lacks: no score" "$(no_results stranger)" "1,"
expect_match "a submission the batch lacks: says so" "$(cat "$TMP/stranger.say")" \
    "Submission 9200 and its submitters \\(dee@example.edu\\) are not in the batch"
replay garbled 'not json'
expect_eq "metadata that is not JSON: no score" "$(no_results garbled)" "1,"
expect_match "John's scorecard names the submission, not his SID" \
    "$(jq -r .output "$TMP/john.json" | head -n 1)" "\(graded: submission 9001\)$"
# A submission's submitters are Gradescope's to change after the export
# (whoever submits adds the group): a member it did not have then, however
# graded, takes no score from it, nor loses their own.
replay added '{"id": 9001, "users": [{"email": "jdoe@example.edu", "id": 1001, "name": "John"},
  {"email": "dee@example.edu", "id": 7, "name": "Dee"}]}'
expect_eq "a submitter added after the export: no score" "$(no_results added)" "1,"
expect_match "a submitter added after the export: says who" "$(cat "$TMP/added.say")" \
    "Submission 9001 has submitters it did not have when the batch graded it \(dee@example.edu\)"
replay pulled '{"id": 9003, "users": [{"email": "clee@example.edu", "id": 1004, "name": "Carol"},
  {"email": "aroe@example.edu", "id": 1002, "name": "Ann"}]}'
expect_eq "a classmate graded on another submission added: no score" "$(no_results pulled)" "1,"
# Two students of one submission whose rows differ (none here: as if)
# leave the key marked apart: no score, and why.
mv "$R/source/keys/submission-9002" "$R/source/keys/apart-submission-9002"
replay torn '{"id": 9002, "users": [{"email": "aroe@example.edu", "id": 1002, "name": "Ann"},
  {"email": "bsmith@example.edu", "id": 1003, "name": "Bob"}]}'
expect_eq "a group given different points: no score" "$(no_results torn)" "1,"
expect_match "a group given different points: says so" "$(cat "$TMP/torn.say")" \
    "Submission 9002's submitters were given different points in the batch"
mv "$R/source/keys/apart-submission-9002" "$R/source/keys/submission-9002"
replay nobody '{"id": 9001, "users": []}'
expect_eq "a submission with no submitters: no score" "$(no_results nobody)" "1,"
expect_match "a submission with no submitters: says so" "$(cat "$TMP/nobody.say")" \
    "Submission 9001 has no submitters"

# A class of folders: those named by an email address are found by it (in
# any case); the others are left out, and named; with none, nothing is
# written (an earlier run's upload removed).
C=$TMP/byemail
mkdir -p "$C/Eve.Ng@Example.org" "$C/gus@example.org" "$C/hal@example.org" "$C/frank"
cp solutions/lab0/lab0.c "$C/Eve.Ng@Example.org/"
cp solutions/lab0/lab0.c "$C/gus@example.org/"
cp labs/lab0/lab0.c "$C/hal@example.org/"
cp labs/lab0/lab0.c "$C/frank/"
"$G" --batch "$C" lab0 --lms gradescope >"$TMP/em.out" 2>&1
expect_eq "by email: exit status (one left out)" "$?" 1
expect_match "by email: names who is left out" "$(cat "$TMP/em.out")" \
    "but: 1 student \\(frank\\) has no email address or Gradescope submission number"
rm -rf "$R" && mkdir -p "$R/source"
bsdtar -xf "$C.grades/lms-gradescope.zip" -C "$R/source" && cp "$R/source/run_autograder" "$R/"
replay eve '{"id": 31, "users": [{"email": "eve.ng@example.org", "id": 5, "name": "Eve"}]}'
expect_eq "by email: Eve's score, her address in another case" \
    "$(cat "$TMP/eve.rc"),$(jq .score "$TMP/eve.json")" "0,100"
replay evegus '{"id": 32, "users": [{"email": "gus@example.org", "id": 6, "name": "Gus"},
  {"email": "eve.ng@example.org", "id": 5, "name": "Eve"}]}'
expect_eq "by email: a group whose members have the same points: theirs" \
    "$(cat "$TMP/evegus.rc"),$(jq .score "$TMP/evegus.json")" "0,100"
replay evehal '{"id": 33, "users": [{"email": "eve.ng@example.org", "id": 5, "name": "Eve"},
  {"email": "hal@example.org", "id": 8, "name": "Hal"}]}'
expect_eq "by email: a group whose members have different points: no score" \
    "$(no_results evehal)" "1,"
expect_match "by email: ... and why" "$(cat "$TMP/evehal.say")" "graded apart, with different points"
replay evedee '{"id": 34, "users": [{"email": "dee@example.edu", "id": 7, "name": "Dee"},
  {"email": "eve.ng@example.org", "id": 5, "name": "Eve"}]}'
expect_eq "by email: Eve added to a submission by someone not in the batch: no score" \
    "$(no_results evedee)" "1,"
expect_match "by email: ... and who" "$(cat "$TMP/evedee.say")" \
    "Submission 34 has submitters the batch did not grade \(dee@example.edu\)"
mkdir -p "$TMP/noemail/alice" "$TMP/noemail.grades" && cp labs/lab0/lab0.c "$TMP/noemail/alice/"
cp "$UP" "$TMP/noemail.grades/lms-gradescope.zip"
"$G" --batch "$TMP/noemail" lab0 --lms gradescope >"$TMP/ne.out" 2>&1
expect_eq "no email, no export: exit status" "$?" 1
expect_match "no email, no export: refused, saying why" "$(cat "$TMP/ne.out")" \
    "For LMS: *not written: Gradescope's autograder knows a submission by its number and its submitters' email addresses"
[ -e "$TMP/noemail.grades/lms-gradescope.zip" ] && bad "an earlier upload is left to look current" || ok
"$G" --batch "$TMP/noemail" lab0 --lms blackboard >"$TMP/bb.out" 2>&1
expect_eq "--lms blackboard: exit status" "$?" 2
expect_match "--lms blackboard: says which there are" "$(cat "$TMP/bb.out")" \
    "canvas, moodle or gradescope"

echo "test_gradescope_batch: $passed passed, $failed failed"
[ "$failed" = 0 ]
