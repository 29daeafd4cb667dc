#!/bin/sh
# test_from.sh - ./grader --batch reads a learning platform's bulk download
# as it arrives, unzipped: the sample trees below are laid out as each
# platform names its files.
#
#   Canvas "Download Submissions" (flat files):
#       doejohn_48213_1093321_lab0.c            user id 48213
#       núñezjosé_48220_1093330_lab0.c          a Unicode name
#       roeann_LATE_48214_1093400_lab0-1.c      late, and uploaded again
#       smithbob_48215_1093500_lab0.zip         an archive
#       leecarol_48216_1093600_notes.txt        no lab0.c (and a text entry)
#       x_48213_48218_1093800_lab0.c            a name that reads two ways
#       anon_Hx3ab_1093900_lab0.c               anonymous grading
#   Moodle "Download all submissions" (a folder per participant):
#       John Doe_123456_assignsubmission_file/src/lab0.c  (Moodle 4.1 and later)
#       Ann Roe_123457_assignsubmission_file_/lab0.c      (before 4.1)
#       Ann Roe_123457_assignsubmission_onlinetext/onlinetext.html
#       Bob Smith_123458_assignsubmission_file_lab0.c     (flat, no folders)
#       and names chosen to take a classmate's row
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
# Names as lib/content_zipper.rb writes them: the sortable name, lower case,
# with every character that is not a word character taken out (Unicode
# letters and '_' kept), LATE in capitals, the user id, the attachment id,
# the file's own name; an online text entry is <name>_<user id>_text.html.
C=$TMP/canvas
mkdir -p "$C" "$TMP/zip"
cp "$SOL" "$C/doejohn_48213_1093321_lab0.c"
cp "$SOL" "$C/núñezjosé_48220_1093330_lab0.c"
cp "$SOL" "$C/o_brienpat_48217_1093700_lab0.c"
cp "$SKEL" "$C/roeann_LATE_48214_1093400_lab0-1.c"
cp "$SOL" "$TMP/zip/lab0.c" && (cd "$TMP/zip" && bsdtar -a -cf ../s.zip lab0.c) &&
    cp "$TMP/s.zip" "$C/smithbob_48215_1093500_lab0.zip"
echo "my notes" >"$C/leecarol_48216_1093600_notes.txt"
echo "<p>see the file</p>" >"$C/leecarol_48216_text.html"
# A student who named themselves "x_48213!": read as doejohn's id one way,
# their own (48218) the other. Never taken as either.
cp "$SKEL" "$C/x_48213_48218_1093800_lab0.c"
echo "grading notes" >"$C/README.txt"
before=$(tree_sum "$C")
"$GRADER" --batch "$C" lab0 -j 2 --lms canvas --lms-assignment "Lab 0 (7)" >"$TMP/c.out" 2>"$TMP/c.err"
expect_eq "canvas: exit status (a stray file and a refused entry need a look)" "$?" 1
expect_match "canvas: recognised, a stray file and all" "$(cat "$TMP/c.err")" \
    "Canvas's download \\(recognised; --from plain"
BOOK=$C.grades/grades.csv
expect_eq "canvas: rows by user id, the Unicode name's and the underscored name's too" \
    "$(csv "$BOOK" | sed 1d | cut -d, -f1,2,4 | tr '\n' ' ')" \
    "48213,100,graded 48214,$(field "$BOOK" 48214 2),graded 48215,100,graded 48216,0,build_failed 48217,100,graded 48220,100,graded "
[ "$(field "$BOOK" 48214 2)" -lt 50 ] && ok || bad "canvas: the skeleton (LATE, lab0-1.c) scored $(field "$BOOK" 48214 2)"
expect_match "canvas: the missing file named" "$(cat "$C.grades/48216.txt" 2>/dev/null)" \
    "no lab0.c in the submission"
# The archive as the student uploaded it, not the <id>.zip it was read into.
expect_match "canvas: the scorecard names the student's own archive" \
    "$(head -n 1 "$C.grades/48215.txt" 2>/dev/null)" "\\(graded: lab0\\.zip\\)$"
expect_eq "canvas: and so does the report" "$(jq -r .source "$C.grades/48215.json")" "lab0.zip"
expect_match "canvas: the name read two ways refused, with why" "$(cat "$TMP/c.out")" \
    "x_48213_48218_1093800_lab0\\.c +its name reads as more than one student's"
expect_match "canvas: the stray file listed" "$(cat "$TMP/c.out")" \
    "README\\.txt +not named as Canvas names a submission"
expect_match "canvas: the text entry listed, needing no look" "$(cat "$TMP/c.out")" \
    "leecarol_48216_text\\.html +online text, not files"
expect_match "canvas: the summary says what needs a look" "$(cat "$TMP/c.out")" \
    "^Needs your eye \\(exit status 1\\): 1 refused, 1 not recognised as submissions;"
expect_eq "canvas: the LMS file matches rows by ID, the Canvas user id" \
    "$(csv "$C.grades/lms-canvas.csv" | grep '^doejohn,')" "doejohn,48213,,,,100"
expect_eq "canvas: the LMS file keeps the Unicode name" \
    "$(csv "$C.grades/lms-canvas.csv" | grep ',48220,' | cut -d, -f1)" "núñezjosé"
expect_eq "canvas: the download is unchanged" "$(tree_sum "$C")" "$before"
# LATE (content_zipper.rb, get_filename: [name, "LATE" when
# submission.late?, id].join("_")): the gradebook's late column, the others
# not late; no penalty without --late-penalty.
expect_eq "canvas: the late column (LATE in capitals)" \
    "$(columns "$BOOK" late late_penalty | tr '\n' ' ')" \
    "48213:no:0 48214:yes:0 48215:no:0 48216:no:0 48217:no:0 48220:no:0 "
expect_eq "canvas: the gradebook's last columns" "$(csv "$BOOK" | head -n 1 | awk -F, '{ print $(NF - 3) "," $(NF - 2) "," $(NF - 1) "," $NF }')" \
    "hidden_inputs,late,late_penalty,group"
expect_match "canvas: the summary counts the late" "$(cat "$TMP/c.out")" \
    "late +1  marked late by Canvas \(the gradebook's late column; --late-penalty"
"$GRADER" --batch "$C" lab0 --from plain --json-dir "$TMP/c-plain" >"$TMP/cp.out" 2>&1
expect_match "canvas --from plain: flat files are not submissions" "$(cat "$TMP/cp.out")" \
    "not a folder or an archive"
# Anonymous grading: [LATE_]anon_<anonymous id>_<attachment id>_<file>.
A=$TMP/canvas-anon
mkdir -p "$A"
cp "$SOL" "$A/anon_Hx3ab_1093900_lab0.c"
cp "$SOL" "$A/LATE_anon_Qq7zz_1094000_lab0.c"
"$GRADER" --batch "$A" lab0 >"$TMP/a.out" 2>&1
expect_eq "canvas, anonymous: rows by anonymous id" \
    "$(csv "$A.grades/grades.csv" | sed 1d | cut -d, -f1,2 | tr '\n' ' ')" "anon_Hx3ab,100 anon_Qq7zz,100 "
# --late-penalty: the late one (LATE_anon_) loses 10 % of its score, graded
# again (its report had none); the other resumes.
"$GRADER" --batch "$A" lab0 --late-penalty 10 >"$TMP/al.out" 2>"$TMP/al.err"
expect_eq "late penalty: the gradebook (score, late, points taken)" \
    "$(columns "$A.grades/grades.csv" score late late_penalty | tr '\n' ' ')" \
    "anon_Hx3ab:100:no:0 anon_Qq7zz:90:yes:10 "
expect_match "late penalty: the report it had is stale" "$(cat "$TMP/al.err")" \
    "anon_Qq7zz: its late penalty, 0%, is not this run's, 10% \(--late-penalty\); grading it again"
expect_match "late penalty: the scorecard says so" "$(cat "$A.grades/anon_Qq7zz.txt")" \
    "Late \(the platform marked it so\): 10% taken, 10 points: 100 of 100 become 90\."
expect_eq "late penalty: the report" "$(jq -c '[.score, .late_penalty]' "$A.grades/anon_Qq7zz.json")" \
    '[90,{"percent":10,"points":10}]'
expect_match "late penalty: the summary" "$(cat "$TMP/al.out")" \
    "late +1  marked late by Canvas: --late-penalty 10% took 10 points in all"
"$GRADER" --batch "$A" lab0 --late-penalty 10 >"$TMP/al2.out" 2>&1
expect_match "late penalty: the same penalty resumes" "$(cat "$TMP/al2.out")" "resumed +2 "
for bad in -1 101 10% x; do
    "$GRADER" --batch "$A" lab0 --late-penalty "$bad" >"$TMP/alb.out" 2>&1
    expect_eq "late penalty $bad: refused (exit 2)" "$?,$(grep -c 'a percentage, 0 to 100' "$TMP/alb.out")" "2,1"
done
# Canvas's import finds students by user id, SIS ids or name, never by an
# anonymous id: no LMS file, and the summary says why and what to do.
"$GRADER" --batch "$A" lab0 --lms canvas --lms-assignment "Lab 0 (7)" >"$TMP/a.out" 2>&1
expect_eq "canvas, anonymous, --lms canvas: exit status (needs a look)" "$?" 1
[ ! -e "$A.grades/lms-canvas.csv" ] && ok || bad "canvas, anonymous: an LMS file that imports nothing"
expect_match "canvas, anonymous, --lms canvas: says why and what to do" "$(cat "$TMP/a.out")" \
    "^For LMS: +not written: the submissions are Canvas's anonymous download \\(anon_.*SpeedGrader"
expect_eq "canvas, anonymous, --lms canvas: the gradebook still written" \
    "$(csv "$A.grades/grades.csv" | sed 1d | cut -d, -f1,2 | tr '\n' ' ')" "anon_Hx3ab,100 anon_Qq7zz,100 "

# Names Canvas leaves "_<digits>_" in (content_zipper.rb,
# sanitize_user_name: the '_' around digits taken out in one pass, then
# downcase; sanitize_file_name then drops blanks: "Evil__48300___77__x" is
# evil_48300_77_x): every reading is tried, and an entry read two ways with
# another id, file or late mark is refused, taking no one's row: the one
# who names a classmate's id, the late one who hides LATE in the file's
# name; a student named "Anon" in a download that is not anonymous is a
# student like any other.
C2=$TMP/canvas-names
mkdir -p "$C2"
cp "$SOL" "$C2/roeann_48214_1093400_lab0.c"
cp "$SKEL" "$C2/evil_48214_77_x_48300_1100_lab0.c"
cp "$SOL" "$C2/mal_48301_77_lab0_LATE_48301_1101_lab0.c"
cp "$SKEL" "$C2/anon_48215_1093500_lab0.c"
"$GRADER" --batch "$C2" lab0 --late-penalty 50 >"$TMP/c2.out" 2>&1
expect_eq "canvas names: exit status (refused entries)" "$?" 1
expect_eq "canvas names: the classmate graded, Anon by user id, the two read two ways out" \
    "$(csv "$C2.grades/grades.csv" | sed 1d | cut -d, -f1,4 | tr '\n' ' ')" "48214,graded 48215,graded "
expect_eq "canvas names: the classmate's own score" "$(field "$C2.grades/grades.csv" 48214 2)" 100
for e in evil_48214_77_x_48300_1100_lab0.c mal_48301_77_lab0_LATE_48301_1101_lab0.c; do
    expect_match "canvas names: $e refused, with why" "$(cat "$TMP/c2.out")" \
        "$(printf '%s' "$e" | sed 's/\./\\./g') +its name reads as more than one student's"
done

# ---- Moodle ----
# Names as mod/assign/classes/downloader.php writes them: <Full Name>_<id>
# then _assignsubmission_file; a folder ends there (before Moodle 4.1 with
# a '_'), a file goes on with _<its own name>; online text is a plugin of
# its own; blind marking writes "Participant" for the name.
M=$TMP/moodle
mkdir -p "$M/John Doe_123456_assignsubmission_file/src" "$M/Ann Roe_123457_assignsubmission_file_" \
    "$M/Ann Roe_123457_assignsubmission_onlinetext" "$M/José Núñez_123459_assignsubmission_file" \
    "$M/Participant_123462_assignsubmission_file"
cp "$SOL" "$M/John Doe_123456_assignsubmission_file/src/lab0.c"
cp "$SOL" "$M/Ann Roe_123457_assignsubmission_file_/lab0.c"
echo "<p>see file</p>" >"$M/Ann Roe_123457_assignsubmission_onlinetext/onlinetext.html"
cp "$SKEL" "$M/Bob Smith_123458_assignsubmission_file_lab0.c"
cp "$SOL" "$M/José Núñez_123459_assignsubmission_file/lab0.c"
cp "$SOL" "$M/Participant_123462_assignsubmission_file/lab0.c"
# Names chosen as weapons (an older Moodle kept '_' in names): a folder
# whose name holds John's marker is Eve's own, 123460; a file whose name
# reads as two ids is refused; two entries of one id under two names are
# both refused, never merged.
mkdir -p "$M/Eve_123456_assignsubmission_file_ Evil_123460_assignsubmission_file"
cp "$SKEL" "$M/Eve_123456_assignsubmission_file_ Evil_123460_assignsubmission_file/lab0.c"
cp "$SKEL" "$M/Mal_123456_assignsubmission_file_x_123461_assignsubmission_file_lab0.c"
mkdir -p "$M/Zed_123463_assignsubmission_file"
cp "$SOL" "$M/Zed_123463_assignsubmission_file/lab0.c"
cp "$SKEL" "$M/Zed Other_123463_assignsubmission_file_lab0.c"
"$GRADER" --batch "$M" lab0 --lms moodle --late-penalty 10 >"$TMP/m.out" 2>"$TMP/m.err"
expect_eq "moodle: exit status (refused entries need a look)" "$?" 1
expect_match "moodle, --late-penalty: nothing taken, and why" "$(cat "$TMP/m.out")" \
    "late +-  --late-penalty 10%: nothing taken, a moodle layout marks no work late"
expect_eq "moodle: the late column empty (no mark to read)" \
    "$(columns "$M.grades/grades.csv" late late_penalty | cut -d: -f2- | sort -u)" ":0"
expect_match "moodle: recognised" "$(cat "$TMP/m.err")" "Moodle's download \\(recognised"
BOOK=$M.grades/grades.csv
expect_eq "moodle: rows by participant id: both folder forms, flat, Unicode, blind, the weapon's own" \
    "$(csv "$BOOK" | sed 1d | cut -d, -f1,2 | tr '\n' ' ')" \
    "123456,100 123457,100 123458,$(field "$BOOK" 123458 2) 123459,100 123460,$(field "$BOOK" 123460 2) 123462,100 "
expect_match "moodle: online text listed, needing no look" "$(cat "$TMP/m.out")" \
    "Ann Roe_123457_assignsubmission_onlinetext +online text, not files"
expect_match "moodle: a name read as two ids refused" "$(cat "$TMP/m.out")" \
    "Mal_123456_assignsubmission_file_x_123461_assignsubmission_file_lab0\\.c +its name reads as more than one student's"
expect_match "moodle: one id under two names: the folder refused" "$(cat "$TMP/m.out")" \
    "Zed_123463_assignsubmission_file +its id, 123463, is also that of Zed Other_123463"
expect_match "moodle: one id under two names: the file refused" "$(cat "$TMP/m.out")" \
    "Zed Other_123463_assignsubmission_file_lab0\\.c +its id, 123463, is also that of Zed_123463"
# The worksheet: the columns of Moodle's own, and those its import
# (importgradeslib.php) requires: Identifier, Grade, Last modified (grade),
# the last a time PHP's strtotime reads (date -d reads the same form).
W=$M.grades/lms-moodle.csv
expect_eq "moodle: the worksheet's columns" "$(csv "$W" | sed -n 1p)" \
    "Identifier,Full name,Grade,Maximum Grade,Last modified (grade),Feedback comments"
expect_eq "moodle: the worksheet's first row" "$(csv "$W" | sed -n 2p | cut -d, -f1-4)" \
    "Participant 123456,John Doe,100,100"
modified=$(csv "$W" | sed -n 2p | cut -d, -f5)
when=$(date -d "$modified" +%s 2>/dev/null || echo 0)
[ $(( $(date +%s) - when )) -lt 3600 ] && ok || bad "moodle: Last modified (grade) '$modified' is not a time of this run"

# The feedback files' zip, read as Moodle's importer reads each entry
# (importziplib.php, is_valid_filename_for_import: explode('_', $part, 5),
# the second piece the participant id, then the plugin's type and name,
# the rest the file's name): every graded student's scorecard, as written.
Z=$M.grades/feedback-moodle.zip
expect_match "moodle: the summary names the feedback zip" "$(cat "$TMP/m.out")" \
    "For Moodle: .*feedback-moodle\\.zip, scorecards as feedback files: 6"
# A name that is not ASCII is in UTF-8, and flagged so (general purpose
# bit 11: the high byte of the flags, 6 bytes into the local header, which
# is 30 bytes and then the name), whatever the grader's locale.
at=$(grep -boa "José Núñez_123459" "$Z" | head -n 1 | cut -d: -f1)
expect_eq "moodle: a feedback entry's UTF-8 name, flagged so" \
    "$(od -An -tx1 -j$((${at:-30} - 30 + 7)) -N1 "$Z" | tr -d ' ')" 08
mkdir -p "$TMP/fz" && (cd "$TMP/fz" && LC_ALL=C.UTF-8 bsdtar -xf "$Z") || bad "moodle: the feedback zip does not unpack"
zipped=""
for f in "$TMP/fz"/*; do
    e=$(basename "$f")
    id=$(printf '%s' "$e" | cut -d_ -f2) plugin=$(printf '%s' "$e" | cut -d_ -f3-4)
    file=$(printf '%s' "$e" | cut -d_ -f5-)
    case $id in '' | *[!0-9]*) bad "moodle: feedback entry $e: no participant id second"; continue ;; esac
    [ "$plugin" = assignfeedback_file ] && [ "$file" = lab0-scorecard.txt ] && cmp -s "$f" "$M.grades/$id.txt" &&
        ok || bad "moodle: feedback entry $e: not assignfeedback_file_lab0-scorecard.txt with $id's scorecard"
    zipped="$zipped$id "
done
expect_eq "moodle: a feedback file for every student graded" "$(printf '%s' "$zipped" | tr ' ' '\n' | sort | tr '\n' ' ')" \
    "$(csv "$BOOK" | sed 1d | cut -d, -f1 | sort | tr '\n' ' ')"

# The worksheet as Moodle's "Download grading worksheet" gives it
# (mod/assign/gradingtable.php, downloading: the identifier, full name, an
# extra user field, status, grade, its maximum, grade can be changed, last
# modified (submission), last modified (grade), then the feedback fields),
# filled in by --lms-worksheet, read back as the import reads it
# (importgradeslib.php: the columns by the site's strings, the participant
# number after the identifier's prefix): every row and column kept, a row
# not of the batch byte for byte; John's teacher's comment kept before the
# grader's, Ann's earlier grader's text replaced and her teacher's kept;
# Eve, graded but without a row, named; one merge, nothing graded again.
WS=$TMP/worksheet.csv
printf '%s\r\n' \
    'Identifier,"Full name","Email address",Status,Grade,"Maximum Grade","Grade can be changed","Last modified (submission)","Last modified (grade)","Feedback comments"' \
    '"Participant 123456","John Doe",jd@example.edu,"Submitted for grading",,100.00,Yes,"Friday, 27 November 2026, 10:00 AM",-,"<p>Nice layout</p>"' \
    '"Participant 123457","Ann Roe",ar@example.edu,"Submitted for grading",50.00,100.00,Yes,"Friday, 27 November 2026, 10:01 AM","Friday, 27 November 2026, 11:00 AM","<p>see me</p><br>lab0: 50 of 100 points; not passed: encode_rne"' \
    '"Participant 123458","Bob Smith",bs@example.edu,"Submitted for grading",,100.00,Yes,-,-,' \
    '"Participant 123459","José Núñez",jn@example.edu,"Submitted for grading",,100.00,Yes,-,-,' \
    '"Participant 123462",Participant,p@example.edu,"Submitted for grading",,100.00,Yes,-,-,' \
    '"Participant 123499","Nora Nobody",nn@example.edu,"No submission",,100.00,Yes,-,-,"<p>ask me, please</p>"' \
    >"$WS"
"$GRADER" --batch "$M" lab0 --merge --lms moodle --lms-worksheet "$WS" >"$TMP/ws.out" 2>&1
expect_eq "worksheet: exit status (Eve has no row: a look)" "$?" 1
expect_match "worksheet: Eve named" "$(cat "$TMP/ws.out")" \
    "^ +but: 1 graded student has no row in the worksheet .*\\(123460\\)"
W=$M.grades/lms-moodle.csv
# cells FILE KEY: the cells of KEY's row, joined by '|'.
cells() { for n in 1 2 3 4 5 6 7 8 9 10 11; do csv_cell "$1" "$2" $n; done | tr '\n' '|'; }
expect_eq "worksheet: its header kept" "$(cells "$W" Identifier)" "$(cells "$WS" Identifier)"
expect_eq "worksheet: a row for each of its rows" "$(csv "$W" | wc -l | tr -d ' ')" 7
expect_eq "worksheet: Nora, not of the batch, as downloaded" "$(cells "$W" 123499)" \
    "$(cells "$WS" 123499)"
# wsrow ID N: the N-th cell of the row whose identifier ends in ID.
wsrow() { csv_cell "$W" " $1" "$2"; }
expect_eq "worksheet: John's grade, as in the gradebook" "$(wsrow 123456 5)" "$(field "$BOOK" 123456 2)"
expect_eq "worksheet: John's comment kept, the grader's after it" "$(wsrow 123456 10)" \
    "<p>Nice layout</p><br>lab0: 100 of 100 points; every test passed"
expect_eq "worksheet: Ann's earlier grader's text replaced, her teacher's kept" "$(wsrow 123457 10)" \
    "<p>see me</p><br>lab0: 100 of 100 points; every test passed"
expect_eq "worksheet: Ann's grade" "$(wsrow 123457 5)" 100
modified=$(wsrow 123457 9)
when=$(date -d "$modified" +%s 2>/dev/null || echo 0)
[ $(( $(date +%s) - when )) -lt 3600 ] && ok || bad "worksheet: Last modified (grade) '$modified' is not a time of this run"
expect_eq "worksheet: the maximum as downloaded" "$(wsrow 123456 6)" "100.00"
expect_eq "worksheet: nothing graded again" "$(grep '^\[' "$TMP/ws.out" | grep -vc '(resumed)$')" 0

# A site in another language: the same worksheet, its headers and the
# identifier's prefix in German-like words (the grader knows no language
# but English). Refused, the columns proposed where Moodle puts them; with
# them, filled in, the header and prefix kept.
WD=$TMP/worksheet-de.csv
{ printf '%s\r\n' 'ID,"Vollständiger Name",E-Mail,Status,Bewertung,Bestwertung,"Bewertung änderbar","Zuletzt geändert (Abgabe)","Zuletzt geändert (Bewertung)","Feedback als Kommentar"'
  csv "$WS" | sed 1d | sed 's/"Participant \([0-9]*\)"/"Teilnehmer\/in \1"/; s/$/\r/'; } >"$WD"
"$GRADER" --batch "$M" lab0 --merge --lms moodle --lms-worksheet "$WD" >"$TMP/wd.out" 2>&1
expect_eq "worksheet, another language: exit status" "$?" 1
expect_match "worksheet, another language: refused, the columns proposed" "$(cat "$TMP/wd.out")" \
    "For LMS: +not written: --lms-worksheet .*: its header is not English Moodle's.*run again with --lms-worksheet-columns 1,5,9,10"
[ -e "$W" ] && bad "worksheet, another language: the earlier file left, looking current" || ok
"$GRADER" --batch "$M" lab0 --merge --lms moodle --lms-worksheet "$WD" \
    --lms-worksheet-columns 1,5,9,10 >"$TMP/wd2.out" 2>&1
expect_eq "worksheet, another language, its columns: its header kept" "$(cells "$W" ID)" \
    "$(cells "$WD" ID)"
expect_eq "worksheet, another language: John's row" "$(wsrow 123456 1),$(wsrow 123456 5),$(wsrow 123456 10)" \
    "Teilnehmer/in 123456,100,<p>Nice layout</p><br>lab0: 100 of 100 points; every test passed"
# The columns given win over the names: three of them, no feedback written.
"$GRADER" --batch "$M" lab0 --merge --lms moodle --lms-worksheet "$WS" \
    --lms-worksheet-columns 1,5,9 >"$TMP/wd4.out" 2>&1
expect_eq "worksheet, three columns given: John's grade, his comment as downloaded" \
    "$(wsrow 123456 5),$(wsrow 123456 10)" "100,<p>Nice layout</p>"
"$GRADER" --batch "$M" lab0 --merge --lms moodle --lms-worksheet "$WD" \
    --lms-worksheet-columns 1,5,5 >"$TMP/wd3.out" 2>&1
expect_match "--lms-worksheet-columns with a column twice: says so" "$(cat "$TMP/wd3.out")" \
    "--lms-worksheet-columns 1,5,5: column 5 twice"

# A maximum below the lab's points: Moodle's import would skip the grades
# above it without a word (locallib.php, process_import_grades).
sed 's/,100\.00,/,80.00,/' "$WS" >"$TMP/ws80.csv"
"$GRADER" --batch "$M" lab0 --merge --lms moodle --lms-worksheet "$TMP/ws80.csv" >"$TMP/w80.out" 2>&1
expect_match "worksheet, maximum 80: refused, the students over it named" "$(cat "$TMP/w80.out")" \
    "not written: .*: 4 students scored above the assignment's maximum grade, 80 \\(123456 100, 123457 100, 123459 100, 123462 100\\).*set the maximum to the lab's 100 points"
"$GRADER" --batch "$M" lab0 --merge --lms canvas --lms-assignment "Lab 0 (7)" --lms-worksheet "$WS" >"$TMP/wc.out" 2>&1
expect_eq "--lms-worksheet with canvas: a usage error" "$?" 2
expect_match "--lms-worksheet with canvas: says what it goes with" "$(cat "$TMP/wc.out")" \
    "--lms-worksheet goes with --lms moodle"

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
# Carol's name, which a student chooses, as long as a line the metadata's
# reader once read in pieces of 4095 characters, less a tail that would
# then have been read as a line of its own: a submitter with John's SID on
# Carol's folder. Read whole, it is part of her name.
long=$(printf '%4078s' '' | tr ' ' x)
sed -i "s/^  - :name: Carol Lee\$/  - :name: Carol $long  - :sid: '1001'/" "$E/submission_metadata.yml"
expect_eq "gradescope: the long name's line" "$(grep -c "^  - :name: Carol x\{4078\}  - :sid: '1001'\$" \
    "$E/submission_metadata.yml")" 1
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
