#!/bin/sh
# test_from.sh - ./grader --batch reads a learning platform's bulk download
# as it arrives, unzipped: the sample trees below are laid out as each
# platform names its files.
#
#   Canvas "Download Submissions" (flat files):
#       doejohn_48213_1093321_lab0.c            user id 48213
#       roeann_late_48214_1093400_lab0-1.c      late, and uploaded again
#       smithbob_48215_1093500_lab0.zip         an archive
#       leecarol_48216_1093600_notes.txt        no lab0.c
#   Moodle "Download all submissions" (a folder per participant):
#       John Doe_123456_assignsubmission_file_/src/lab0.c
#       Ann Roe_123457_assignsubmission_file_/lab0.c
#       Ann Roe_123457_assignsubmission_onlinetext_/onlinetext.html
#       Bob Smith_123458_assignsubmission_file_lab0.c     (flat, no folders)
#   Gradescope "Export Submissions":
#       assignment_77_export/submission_metadata.yml
#       assignment_77_export/submission_9001/lab0.c       John Doe, SID 1001
#       assignment_77_export/submission_9002/lab0.c       a pair: SIDs 1002 and 1003
#       assignment_77_export/submission_9003/lab0.c       no SID: the email
#
# Each is recognised without --from and graded under the platform's ids,
# the download itself unchanged; --from plain reads it as folders; the LMS
# files match rows by the platform's own id.
#
#   GRADER=build/bin/grader sh tests/grading/test_from.sh
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
tree_sum() { (cd "$1" && find . -print0 | LC_ALL=C sort -z | xargs -0 ls -ld --time-style=+%s | sha256sum); }

# ---- Canvas ----
C=$TMP/canvas
mkdir -p "$C" "$TMP/zip"
cp "$SOL" "$C/doejohn_48213_1093321_lab0.c"
cp "$SKEL" "$C/roeann_late_48214_1093400_lab0-1.c"
cp "$SOL" "$TMP/zip/lab0.c" && (cd "$TMP/zip" && bsdtar -a -cf ../s.zip lab0.c) &&
    cp "$TMP/s.zip" "$C/smithbob_48215_1093500_lab0.zip"
echo "my notes" >"$C/leecarol_48216_1093600_notes.txt"
before=$(tree_sum "$C")
"$GRADER" --batch "$C" lab0 -j 2 --lms canvas >"$TMP/c.out" 2>"$TMP/c.err"
expect_eq "canvas: exit status" "$?" 0
expect_match "canvas: recognised" "$(cat "$TMP/c.err")" "Canvas's download \\(recognised; --from plain"
BOOK=$C.grades/grades.csv
expect_eq "canvas: rows by user id" \
    "$(csv "$BOOK" | sed 1d | cut -d, -f1,2,4 | tr '\n' ' ')" \
    "48213,100,graded 48214,$(field "$BOOK" 48214 2),graded 48215,100,graded 48216,0,build_failed "
[ "$(field "$BOOK" 48214 2)" -lt 50 ] && ok || bad "canvas: the skeleton (lab0-1.c) scored $(field "$BOOK" 48214 2)"
expect_match "canvas: the missing file named" "$(cat "$C.grades/48216.txt" 2>/dev/null; cat "$TMP/c.out")" \
    "no lab0.c in the submission"
expect_eq "canvas: the LMS file matches rows by ID, the Canvas user id" \
    "$(csv "$C.grades/lms-canvas.csv" | grep '^doejohn,')" "doejohn,48213,,,,100"
expect_eq "canvas: the download is unchanged" "$(tree_sum "$C")" "$before"
"$GRADER" --batch "$C" lab0 --from plain --json-dir "$TMP/c-plain" >"$TMP/cp.out" 2>&1
expect_match "canvas --from plain: flat files are not submissions" "$(cat "$TMP/cp.out")" \
    "not a folder or an archive"

# ---- Moodle ----
M=$TMP/moodle
mkdir -p "$M/John Doe_123456_assignsubmission_file_/src" "$M/Ann Roe_123457_assignsubmission_file_" \
    "$M/Ann Roe_123457_assignsubmission_onlinetext_"
cp "$SOL" "$M/John Doe_123456_assignsubmission_file_/src/lab0.c"
cp "$SOL" "$M/Ann Roe_123457_assignsubmission_file_/lab0.c"
echo "<p>see file</p>" >"$M/Ann Roe_123457_assignsubmission_onlinetext_/onlinetext.html"
cp "$SKEL" "$M/Bob Smith_123458_assignsubmission_file_lab0.c"
"$GRADER" --batch "$M" lab0 --lms moodle >"$TMP/m.out" 2>"$TMP/m.err"
expect_eq "moodle: exit status" "$?" 0
expect_match "moodle: recognised" "$(cat "$TMP/m.err")" "Moodle's download \\(recognised"
BOOK=$M.grades/grades.csv
expect_eq "moodle: rows by participant id, a subfolder found" \
    "$(csv "$BOOK" | sed 1d | cut -d, -f1,2 | tr '\n' ' ')" \
    "123456,100 123457,100 123458,$(field "$BOOK" 123458 2) "
expect_match "moodle: online text skipped, with why" "$(cat "$TMP/m.out")" \
    "Ann Roe_123457_assignsubmission_onlinetext_ +online text, not files"
expect_eq "moodle: the grading worksheet" \
    "$(csv "$M.grades/lms-moodle.csv" | sed -n '1p;2p' | tr '\n' '|')" \
    "Identifier,Full name,Grade,Feedback comments|Participant 123456,John Doe,100,|"

# ---- Gradescope ----
G=$TMP/gradescope
E=$G/assignment_77_export
mkdir -p "$E/submission_9001" "$E/submission_9002/src" "$E/submission_9003" "$E/submission_9999"
cp "$SOL" "$E/submission_9001/lab0.c"
cp "$SOL" "$E/submission_9002/src/lab0.c"
cp "$SKEL" "$E/submission_9003/lab0.c"
cp "$SOL" "$E/submission_9999/lab0.c"
cat >"$E/submission_metadata.yml" <<'EOF'
submission_9001:
  :submitters:
  - :name: John Doe
    :sid: '1001'
    :email: jdoe@example.edu
  :created_at: 2026-10-01 10:00:00.000000000 -07:00
  :score: 0.0
  :history: []
submission_9002:
  :submitters:
  - :name: Ann O'Roe
    :sid: '1002'
    :email: aroe@example.edu
  - :name: "Bob Smith"
    :sid: '1003'
    :email: bsmith@example.edu
  :created_at: 2026-10-01 11:00:00.000000000 -07:00
submission_9003:
  :submitters:
  - :name: Carol Lee
    :sid: ''
    :email: clee@example.edu
EOF
"$GRADER" --batch "$G" lab0 >"$TMP/g.out" 2>"$TMP/g.err"
expect_eq "gradescope: exit status (submission_9999, not in the metadata, needs a look)" "$?" 1
expect_match "gradescope: recognised" "$(cat "$TMP/g.err")" "Gradescope's download \\(recognised"
BOOK=$G.grades/grades.csv
expect_eq "gradescope: a row per submitter, the pair's both, the email without an SID" \
    "$(csv "$BOOK" | sed 1d | cut -d, -f1,2 | tr '\n' ' ')" \
    "1001,100 1002,100 1003,100 clee@example.edu,$(field "$BOOK" clee@example.edu 2) "
expect_match "gradescope: a folder the metadata does not name is listed" "$(cat "$TMP/g.out")" \
    "submission_9999 +not in submission_metadata.yml"

# ---- a bad --from ----
"$GRADER" --batch "$G" lab0 --from blackboard >"$TMP/bad.out" 2>&1
expect_eq "--from blackboard: a usage error" "$?" 2
expect_match "--from blackboard: says which" "$(cat "$TMP/bad.out")" "canvas, moodle, gradescope or plain"
"$GRADER" --batch "$M" lab0 --from gradescope --json-dir "$TMP/mg" >"$TMP/mg.out" 2>&1
expect_eq "--from gradescope on a Moodle download: a setup error" "$?" 2
expect_match "--from gradescope on a Moodle download: says why" "$(cat "$TMP/mg.out")" \
    "no submission_metadata.yml"

echo "test_from: $passed passed, $failed failed"
[ "$failed" = 0 ]
