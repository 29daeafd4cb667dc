#!/bin/sh
# test_groups.sh - ./grader --batch --groups FILE: a group submits once, and
# every member gets the group's row. On lab0: a plain id,group list (a
# group with one submission, one with none, one with two, a student in no
# group) and Canvas's export of a group set (its columns as
# GroupCategoriesController#export_headers writes them); the scorecard of
# a member scored on a groupmate's; a resumed run; Moodle's team assignment
# (its download names the groups, its worksheet who is in which) and its
# groups overview (found through the worksheet); from a Moodle in another
# language, a team's download read as participants' not put in the
# worksheet (a group's number a participant's), while names in another
# order or case, and blind marking's one word, are; a file that names no
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

# Moodle's team assignment: its download names each group's entry by the
# group, <group name>_<group id>_assignsubmission_file ('_' in the name
# written ' '), the default group's (students in none) by its name alone
# (mod/assign/classes/downloader.php, get_student_prefix); its grading
# worksheet has a row per participant and, for a team assignment only, the
# Group column (gradingtable.php). Participant 42 is in Team_B: group 42's
# (Team A's) score must not reach them. Team C is in no row: graded, given
# to no one, and said so.
M=$TMP/moodle
for e in "Team A_42" "Default group" "Team C_44"; do
    mkdir -p "$M/${e}_assignsubmission_file" && cp "$SOL" "$M/${e}_assignsubmission_file/"
done
mkdir -p "$M/Team B_43_assignsubmission_file" && cp "$SKEL" "$M/Team B_43_assignsubmission_file/"
cat >"$TMP/ws.csv" <<'CSV'
Identifier,"Full name","Email address",Status,Group,Grade,"Maximum Grade","Grade can be changed","Last modified (submission)","Last modified (grade)","Feedback comments"
"Participant 1000042","Ann Roe",ann@example.org,"Submitted for grading","Team A",,100.00,Yes,"Monday, 2 December 2026, 9:00 AM",-,
"Participant 42","Bob Coe",bob@example.org,"Submitted for grading",Team_B,,100.00,Yes,"Monday, 2 December 2026, 9:00 AM",-,
"Participant 1000044","Cy Doe",cy@example.org,"Submitted for grading","Team A",,100.00,Yes,"Monday, 2 December 2026, 9:00 AM",-,"<p>Well organised.</p>"
"Participant 1000045","Di Eve",di@example.org,"Submitted for grading","Default group",,100.00,Yes,"Monday, 2 December 2026, 9:00 AM",-,
CSV
"$GRADER" --batch "$M" lab0 --lms moodle --lms-worksheet "$TMP/ws.csv" >"$TMP/m.out" 2>"$TMP/m.err"
expect_eq "moodle team: exit status (Team C given to no one)" "$?" 1
MB=$M.grades/grades.csv
teamb=$(field "$MB" group-43 2)
[ -n "$teamb" ] && [ "$teamb" -lt 100 ] && ok || bad "moodle team: Team B (the skeleton) scored '$teamb'"
expect_eq "moodle team: every participant the group's row, the groups' own rows" \
    "$(columns "$MB" score status group | tr '\n' ' ')" \
    "1000042:100:graded:Team A 1000044:100:graded:Team A 1000045:100:graded:Default group 42:$teamb:graded:Team_B group-0:100:graded:Default group group-42:100:graded:Team A group-43:$teamb:graded:Team_B group-44:100:graded: "
expect_match "moodle team: the worksheet taken as the groups" "$(cat "$TMP/m.err")" \
    "ws\.csv: a team assignment's worksheet \(its Group column\)"
expect_match "moodle team: Team C said" "$(cat "$TMP/m.err")" \
    "Team C \(group-44\): no group of that name in the groups' file"
expect_match "moodle team: the summary lists the groups' submissions" "$(cat "$TMP/m.out")" \
    "A group's submission \(a Moodle team assignment\).*
  group-0 +Default group
  group-42 +Team A
  group-43 +Team_B"
expect_match "moodle team: and the one given to no one" "$(cat "$TMP/m.out")" \
    "given to no member.*
  group-44 +Team C"
expect_match "moodle team: needs your eye" "$(cat "$TMP/m.out")" \
    "Needs your eye.* 1 group submissions given to no member"
# The worksheet, as Moodle's import reads it (importgradeslib.php: the
# number after "Participant ", the Grade column): each participant the
# group's grade, participant 42 Team_B's; no group's row; a teacher's
# comment kept.
W=$M.grades/lms-moodle.csv
expect_eq "moodle team: the worksheet's grades" \
    "$(for p in "Participant 1000042" "Participant 42" "Participant 1000044" "Participant 1000045"; do csv_cell "$W" "$p" 6; done | tr '\n' ' ')" \
    "100 $teamb 100 100 "
expect_eq "moodle team: no row for a group" "$(csv "$W" | grep -c 'group-')" 0
expect_match "moodle team: Cy's comment kept" "$(csv_cell "$W" "Participant 1000044" 11)" \
    "^<p>Well organised.</p><br>"
expect_eq "moodle team: Ann's scorecard is Team A's" "$(sed -n 1p "$M.grades/1000042.txt")" \
    "Group Team A: scored on group-42's submission, the group's."
expect_eq "moodle team: the feedback zip, by participant (feedback/file's upload)" \
    "$(bsdtar -tf "$M.grades/feedback-moodle.zip" | sort | tr '\n' ' ')" \
    "Ann Roe_1000042_assignfeedback_file_lab0-scorecard.txt Bob Coe_42_assignfeedback_file_lab0-scorecard.txt Cy Doe_1000044_assignfeedback_file_lab0-scorecard.txt Di Eve_1000045_assignfeedback_file_lab0-scorecard.txt "
# Read as participants', the download would give group 42's score to
# participant 42: without the worksheet the run stops before grading,
# seeing the default group's entry (no download of one submission each has
# an entry without a number).
"$GRADER" --batch "$M" lab0 --lms moodle >"$TMP/m0.out" 2>&1
expect_eq "moodle team without the worksheet: exit status" "$?" 2
expect_match "moodle team without the worksheet: says what to give" "$(cat "$TMP/m0.out")" \
    "Default group_assignsubmission_file is a Moodle team assignment's default group's entry.*give the assignment's grading worksheet"
# The site's identity fields come before Status: one called Student is not
# the id (the Identifier is), one called Group is not the team's (the one
# right after Status is).
sed -e '1s/^Identifier,"Full name",/Identifier,"Full name",Student,Group,/' \
    -e '2,$s/^\("Participant [0-9]*","[^"]*",\)/\1555,"Team A",/' "$TMP/ws.csv" >"$TMP/ws-id.csv"
rm -rf "$M.grades"
"$GRADER" --batch "$M" lab0 --lms moodle --lms-worksheet "$TMP/ws-id.csv" >"$TMP/m3.out" 2>&1
expect_eq "moodle team, identity fields Student and Group: the same rows" \
    "$(columns "$MB" score | tr '\n' ' ')" \
    "1000042:100 1000044:100 1000045:100 42:$teamb group-0:100 group-42:100 group-43:$teamb group-44:100 "
# Moodle reads and writes its CSV as PHP does (escape '\'): a name with a
# backslash before a quote is read two ways, and could move cells (a grade
# into another's row): refused, with the line, before anything is graded.
{ cat "$TMP/ws.csv"; printf '%s\n' '"Participant 1000046","M,X\",Team A,,100,z\","",x,"No submission",Team_B,,100.00,Yes,-,-,'; } >"$TMP/ws-bs.csv"
"$GRADER" --batch "$M" lab0 --lms moodle --lms-worksheet "$TMP/ws-bs.csv" >"$TMP/m4.out" 2>&1
expect_eq "moodle team, a backslash before a quote: exit status" "$?" 2
expect_match "moodle team, a backslash before a quote: refused with the line" "$(cat "$TMP/m4.out")" \
    "ws-bs\.csv:6: a backslash before a double quote"
# A download of one submission each with a team assignment's worksheet (the
# wrong assignment's): a student named as a group would get its score.
I=$TMP/individual
mkdir -p "$I/Team A_1000099_assignsubmission_file" "$I/Ann Roe_1000042_assignsubmission_file" \
    "$I/Cy Doe_1000044_assignsubmission_file"
for d in "$I"/*; do cp "$SKEL" "$d/"; done
cp "$SOL" "$I/Team A_1000099_assignsubmission_file/"
"$GRADER" --batch "$I" lab0 --lms moodle --lms-worksheet "$TMP/ws.csv" >"$TMP/m5.out" 2>&1
expect_eq "a team worksheet with another download: exit status" "$?" 2
expect_match "a team worksheet with another download: refused" "$(cat "$TMP/m5.out")" \
    "of its 3 entries only 1 names a group of .*ws\.csv: is it the team assignment's download"
# A display name that begins with a dot (Moodle's clean_filename keeps it)
# is a student's, graded; macOS's ._ companions are not.
D=$TMP/dot
mkdir -p "$D/.Dot Com_1000046_assignsubmission_file" "$D/Ann Roe_1000042_assignsubmission_file"
cp "$SOL" "$D/.Dot Com_1000046_assignsubmission_file/"
cp "$SOL" "$D/Ann Roe_1000042_assignsubmission_file/"
: >"$D/._Ann Roe_1000042_assignsubmission_file_"
"$GRADER" --batch "$D" lab0 >"$TMP/d.out" 2>&1
expect_eq "a name with a leading dot: exit status" "$?" 0
expect_eq "a name with a leading dot: graded" "$(columns "$D.grades/grades.csv" score | tr '\n' ' ')" \
    "1000042:100 1000046:100 "
# --groups names the worksheet itself: the same rows.
rm -rf "$M.grades"
"$GRADER" --batch "$M" lab0 --groups "$TMP/ws.csv" >"$TMP/m2.out" 2>&1
expect_eq "moodle team, --groups: the same rows" "$(columns "$MB" score group | tr '\n' ' ')" \
    "1000042:100:Team A 1000044:100:Team A 1000045:100:Default group 42:$teamb:Team_B group-0:100:Default group group-42:100:Team A group-43:$teamb:Team_B group-44:100: "

# Moodle's groups overview (group/overview.php's download: Grouping, Group,
# First name, Last name, then the site's identity fields, a group once for
# each grouping it is in, a group without members on a row of its own, the
# students in none under "No group") names students, not participants:
# each is found in the assignment's worksheet, by email address (any case),
# else by full name. An assignment of one submission each, where Ann handed
# in her group's work.
O=$TMP/overview
mkdir -p "$O/Ann Roe_1000042_assignsubmission_file" "$O/Di Eve_1000045_assignsubmission_file"
cp "$SOL" "$O/Ann Roe_1000042_assignsubmission_file/"
cp "$SKEL" "$O/Di Eve_1000045_assignsubmission_file/"
cat >"$TMP/ov.csv" <<'CSV'
Grouping,Group,"First name","Last name","Email address"
"Lab teams","Team A",Ann,Roe,ann@example.org
"Lab teams","Team A",Cy,Doe,CY@example.org
"Project","Team A",Ann,Roe,ann@example.org
"Lab teams","Team Empty",,,
"Not in a group","No group",Di,Eve,di@example.org
CSV
cat >"$TMP/ws2.csv" <<'CSV'
Identifier,"Full name","Email address",Status,Grade,"Maximum Grade","Grade can be changed","Last modified (submission)","Last modified (grade)","Feedback comments"
"Participant 1000042","Ann Roe",ann@example.org,"Submitted for grading",,100.00,Yes,-,-,
"Participant 1000044","Cy Doe",cy@example.org,"No submission",,100.00,Yes,-,-,
"Participant 1000045","Di Eve",di@example.org,"Submitted for grading",,100.00,Yes,-,-,
CSV
"$GRADER" --batch "$O" lab0 --groups "$TMP/ov.csv" --lms moodle --lms-worksheet "$TMP/ws2.csv" \
    >"$TMP/o.out" 2>&1
expect_eq "moodle overview: exit status" "$?" 0
OB=$O.grades/grades.csv
di=$(field "$OB" 1000045 2)
expect_eq "moodle overview: Cy scored on Ann's, Di in no group" \
    "$(columns "$OB" score group | tr '\n' ' ')" "1000042:100:Team A 1000044:100:Team A 1000045:$di: "
expect_eq "moodle overview: the worksheet's grades" \
    "$(for p in 1000042 1000044 1000045; do csv_cell "$O.grades/lms-moodle.csv" "Participant $p" 5; done | tr '\n' ' ')" \
    "100 100 $di "
"$GRADER" --batch "$O" lab0 --groups "$TMP/ov.csv" >"$TMP/o2.out" 2>&1
expect_eq "moodle overview without the worksheet: exit status" "$?" 2
expect_match "moodle overview without the worksheet: says what to give" "$(cat "$TMP/o2.out")" \
    "names students, not the participants.*give the assignment's grading worksheet too \(--lms-worksheet\)"
# The worksheet of an assignment of one submission each, read to be
# filled in: a backslash before a quote refuses it too (nothing written).
{ cat "$TMP/ws2.csv"; printf '%s\n' '"Participant 1000047","Q\",x",q@example.org,"No submission",,100.00,Yes,-,-,'; } >"$TMP/ws2-bs.csv"
"$GRADER" --batch "$O" lab0 --lms moodle --lms-worksheet "$TMP/ws2-bs.csv" >"$TMP/o6.out" 2>&1
expect_eq "moodle worksheet, a backslash before a quote: exit status" "$?" 1
expect_match "moodle worksheet, a backslash before a quote: not written, why" "$(cat "$TMP/o6.out")" \
    "For LMS: +not written: --lms-worksheet .*ws2-bs\.csv:5: a backslash before a double quote"
[ ! -e "$O.grades/lms-moodle.csv" ] && ok || bad "moodle worksheet, a backslash before a quote: a file was written"
# A member the worksheet lacks (a tutor in the group) is left out and said;
# a student in no group who takes a member's name is refused, never given
# the group's score.
printf '"Lab teams","Team A",Tim,Teach,tim@example.org\n' >>"$TMP/ov.csv"
"$GRADER" --batch "$O" lab0 --groups "$TMP/ov.csv" --lms moodle --lms-worksheet "$TMP/ws2.csv" \
    >"$TMP/o4.out" 2>&1
expect_eq "moodle overview, a tutor in the group: exit status" "$?" 0
expect_match "moodle overview, a tutor in the group: left out, said" "$(cat "$TMP/o4.out")" \
    "ov\.csv:7: left out: no participant of the worksheet has the email address tim@example.org"
printf 'Grouping,Group,"First name","Last name"\n"Lab teams","Team A",Ann,Roe\n"Lab teams","Team A",Tim,Teach\n"Not in a group","No group",Tim,Teach\n' \
    >"$TMP/ov-twin.csv"
printf '"Participant 1000099","Tim Teach",tim@example.org,"No submission",,100.00,Yes,-,-,\n' |
    cat "$TMP/ws2.csv" - >"$TMP/ws-twin.csv"
"$GRADER" --batch "$O" lab0 --groups "$TMP/ov-twin.csv" --lms moodle --lms-worksheet \
    "$TMP/ws-twin.csv" >"$TMP/o5.out" 2>&1
expect_eq "moodle overview, a name in a group and in none: exit status" "$?" 2
expect_match "moodle overview, a name in a group and in none: refused" "$(cat "$TMP/o5.out")" \
    "ov-twin\.csv:3: Tim Teach is in group Team A and among the students in no group"
# By name where the overview has no email address: two Ann Roes are
# refused with both numbers, never guessed.
cut -d, -f1-4 "$TMP/ov.csv" >"$TMP/ov-names.csv"
sed 's/^"Participant 1000045","Di Eve"/"Participant 1000045","Ann Roe"/' "$TMP/ws2.csv" >"$TMP/ws3.csv"
"$GRADER" --batch "$O" lab0 --groups "$TMP/ov-names.csv" --lms moodle --lms-worksheet \
    "$TMP/ws3.csv" >"$TMP/o3.out" 2>&1
expect_eq "moodle overview, two of one name: exit status" "$?" 2
expect_match "moodle overview, two of one name: refused with both" "$(cat "$TMP/o3.out")" \
    "ov-names\.csv:2: Ann Roe is participants 1000042, 1000045 of the worksheet: which\?"

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

# A team assignment from a Moodle in another language: its worksheet's
# Group column is not known by name, so a download without the default
# group's entry reads as participants'. Team A's number, 42, is also a
# participant's (Bob, of Team B): the worksheet is not filled in, since the
# download's names are not its participants'.
G3=$TMP/moodle_de
for e in "Team A_42" "Team C_44"; do
    mkdir -p "$G3/${e}_assignsubmission_file" && cp "$SOL" "$G3/${e}_assignsubmission_file/"
done
mkdir -p "$G3/Team B_43_assignsubmission_file" && cp "$SKEL" "$G3/Team B_43_assignsubmission_file/"
{ echo 'Bezeichner,"Vollständiger Name",E-Mail-Adresse,Status,Gruppe,Bewertung,Bestwertung,"Bewertung kann geändert werden","Zuletzt geändert (Abgabe)","Zuletzt geändert (Bewertung)","Feedback als Kommentar"'
  sed 1d "$TMP/ws.csv" | sed 's/^"Participant /"Teilnehmer\/in /'; } >"$TMP/ws_de.csv"
"$GRADER" --batch "$G3" lab0 --lms moodle --lms-worksheet "$TMP/ws_de.csv" \
    --lms-worksheet-columns 1,6,10,11 >"$TMP/de.out" 2>"$TMP/de.err"
expect_eq "moodle team, German: exit status" "$?" 1
expect_match "moodle team, German: the worksheet not filled in, and why" "$(cat "$TMP/de.out")" \
    "For LMS: +not written: --lms-worksheet .*ws_de\\.csv: of the download's entries whose number is a participant's in it, 1 of 1 are not named as that participant \\(42's is \"Team A\", in no cell of row 3\\): a team assignment's download"
[ -e "$G3.grades/lms-moodle.csv" ] && bad "moodle team, German: a worksheet was written" || ok

# Not taken for a team's: names in another order and case (a site writes
# "last first" by the language of who downloads), and a download under
# blind marking, which names every entry by one word.
# written WHAT DIR ENTRY...: a download of the solution as ENTRY..._
# assignsubmission_file, graded with the German worksheet, has it filled in.
written() {
    what=$1 dir=$2
    shift 2
    for e in "$@"; do
        mkdir -p "$dir/${e}_assignsubmission_file" && cp "$SOL" "$dir/${e}_assignsubmission_file/"
    done
    "$GRADER" --batch "$dir" lab0 --lms moodle --lms-worksheet "$TMP/ws_de.csv" \
        --lms-worksheet-columns 1,6,10,11 >"$dir.out" 2>&1
    [ -s "$dir.grades/lms-moodle.csv" ] && ok ||
        bad "moodle, $what: the worksheet not written: $(grep 'For LMS' "$dir.out")"
}
written "names in another order" "$TMP/moodle_order" "ROE Ann_1000042" "doe CY_1000044"
written "blind marking" "$TMP/moodle_blind" "Teilnehmerin_42" "Teilnehmerin_1000044"

echo "test_groups: $passed passed, $failed failed"
[ "$failed" = 0 ]
