#!/bin/sh
# test_batch.sh - ./grader --batch, on lab0:
#   - a folder of six submissions graded two at a time: the solution (full
#     marks), the skeleton (near 0), a segfault in one function (85, as in
#     test_grader.sh), a syntax error and a folder without lab0.c (0, status
#     build_failed), and a student id with a comma and a space (quoted in the
#     CSV); a plain file, an archive the grader does not read (.7z) and a
#     hidden folder are skipped, each with its reason;
#   - one JSON report per submission, the CSV gradebook (header, rows sorted
#     by id, each test's points), the summary's counts, mean and median, and
#     the histogram's files;
#   - a second run resumes (no report is written again), --force regrades;
#   - a submission that hangs past --timeout, one whose grading process is
#     killed, and one whose report cannot be written each end in an error
#     (status error, score 0, exit 1; an error report where one can be
#     written), and the other submissions keep their results; nothing is
#     left running;
#   - submissions sent as archives (.zip, .tar.gz, .tar.xz, .tgz): the
#     student file taken from any folder in them, and nothing else; a link,
#     two files of the name, a zip bomb and a gzip bomb refused with a reason
#     naming the entry; a path with ../ written inside the work folder only;
#     an archive and a folder with one id: the folder graded;
#   - --shard K/N grades every N-th submission from the K-th, into the shared
#     report folder and a gradebook of its own; --merge makes the course's
#     gradebook from the reports, a submission whose shard has not run an
#     error;
#   - usage errors exit 2.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/grading/test_batch.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
BUILD=${FP8LAB_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

# hostile DIR NAME: DIR/lab0.c is the solution with the fragment's functions
# swapped in (lib.sh).
hostile() {
    mkdir -p "$1"
    hostile_into "$1/lab0.c" "$2"
}

# batch NAME ARGS...: runs the grader, its stdout into $TMP/NAME.out, its
# stderr into $TMP/NAME.err, its exit status into $TMP/NAME.rc.
batch() {
    name=$1
    shift
    "$GRADER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    echo $? >"$TMP/$name.rc"
}
rc_of() { cat "$TMP/$1.rc"; }
# csv and field (lib.sh): the gradebook, a row's field (1 student, 2 score, 4 status).
# The summary line for a count: "  graded   6  this run" -> 6.
count_of() { sed -n "s/^  $2  *\([0-9.]*\) .*/\1/p" "$TMP/$1.out"; }
# The command lines of running processes that grade in a batch work folder
# of this build (another course's batches on the machine are not this
# test's).
runners() {
    for f in /proc/[0-9]*/cmdline; do
        tr '\0' ' ' 2>/dev/null <"$f" | grep -F "$BUILD/grade/batch." && echo
    done
}

# ---- six submissions, a file and an archive --------------------------------------

SUBS=$TMP/submissions
mkdir -p "$SUBS/good" "$SUBS/skel" "$SUBS/empty" "$SUBS/weird, id"
cp solutions/lab0/lab0.c "$SUBS/good/"
cp labs/lab0/lab0.c "$SUBS/skel/"
cp solutions/lab0/lab0.c "$SUBS/weird, id/"
hostile "$SUBS/crash" segfault
hostile "$SUBS/broken" syntax_error
echo "graded by hand" >"$SUBS/notes.txt"
printf '7z\274\257\047\034' >"$SUBS/a.7z"
mkdir -p "$SUBS/.git"
cp solutions/lab0/lab0.c "$SUBS/.git/"
# Not a student's: the grader's own files beside them are not graded either.
echo "#error not the student's" >"$SUBS/good/lab0.h"
ls_before=$(ls "$BUILD/grade" 2>/dev/null | grep '^batch\.' | sort | tr '\n' ' ')

batch first --batch "$SUBS/" lab0 -j 2
GRADES=$TMP/submissions.grades
# notes.txt and a.7z are not submissions the grader reads: they need a look.
expect_eq "batch: exit status (two entries not recognised)" "$(rc_of first)" 1
expect_match "batch: the summary says what needs a look" "$(cat "$TMP/first.out")" \
    "^Needs your eye \\(exit status 1\\): 2 not recognised as submissions; each is listed above$"
for id in good skel crash broken empty "weird, id"; do
    [ -f "$GRADES/$id.json" ] && ok || bad "batch: no report $GRADES/$id.json"
    jq -e '.lab == "lab0" and (.tests | length) == 11 and (has("error") | not)' \
        "$GRADES/$id.json" >/dev/null 2>&1 && ok || bad "batch: $id.json is not a lab0 report"
done
expect_eq "batch: no report for what is not a folder" \
    "$(ls "$GRADES" | grep -c -e notes -e '^a\.7z')" 0
expect_eq "batch: progress lines" "$(grep -c '^\[[1-6]/6\] ' "$TMP/first.err")" 6
expect_match "batch: a progress line" "$(cat "$TMP/first.err")" \
    "^\[[1-6]/6\] good 100/100 \([0-9]+\.[0-9] s\)$"

# The gradebook: sorted by id, each test's points, RFC 4180 quoting.
BOOK=$GRADES/grades.csv
expect_eq "gradebook: header" "$(csv "$BOOK" | head -n 1)" \
    "student,score,max_score,status,decode_e4m3,decode_e5m2,encode_exact,encode_rne,encode_subnormal,encode_saturate,encode_overflow_nosat,encode_nan,encode_random,limits,rel_error_bound,hidden_inputs,late,late_penalty,group"
expect_eq "gradebook: rows" "$(csv "$BOOK" | sed 1d | wc -l | tr -d ' ')" 6
expect_eq "gradebook: CRLF line ends" "$(grep -c "$(printf '\r')\$" "$BOOK")" 7
expect_eq "gradebook: sorted by id" "$(csv "$BOOK" | sed 1d | cut -d, -f1 | tr '\n' ' ')" \
    'broken crash empty good skel "weird '
expect_eq "good: row" "$(csv "$BOOK" | grep '^good,')" "good,100,100,graded,10,10,10,10,10,10,10,5,10,10,5,no,,0,"
expect_eq "crash: score" "$(field "$BOOK" crash 2)" 85
expect_eq "crash: limits and rel_error_bound lost" \
    "$(csv "$BOOK" | grep '^crash,' | cut -d, -f14,15)" "0,0"
expect_eq "crash: status" "$(field "$BOOK" crash 4)" graded
expect_eq "crash: the report says it crashed" \
    "$(jq -r '.tests[] | select(.name == "limits") | .status' "$GRADES/crash.json")" error
skel=$(field "$BOOK" skel 2)
[ "${skel:-99}" -le 10 ] && ok || bad "skel: score '$skel', want at most 10"
expect_eq "broken: score and status" "$(field "$BOOK" broken 2),$(field "$BOOK" broken 4)" \
    "0,build_failed"
expect_match "broken: the compiler's message" "$(jq -r .build_log "$GRADES/broken.json")" \
    "lab0\\.c:[0-9]+:[0-9]+: error"
# Every test's passes and failures over the four that built, as the
# reports count them (jq over the JSON, not the grader's tally).
PER=$GRADES/per-test.csv
expect_eq "per test: header" "$(csv "$PER" | head -n 1)" \
    "test,title,max_points,passed,failed,skipped,mean_points"
expect_eq "per test: a row a test" "$(csv "$PER" | sed 1d | wc -l | tr -d ' ')" 11
want=$(for r in "$GRADES"/*.json; do jq -c 'select(.build_ok) | .tests[] | [.name, .status]' "$r"; done |
    jq -rs 'group_by(.[0]) | map([.[0][0], (map(select(.[1] == "pass")) | length),
        (map(select(.[1] == "fail" or .[1] == "error")) | length)] | join(",")) | .[]' | sort)
expect_eq "per test: passed and failed as the reports say" \
    "$(csv "$PER" | sed 1d | awk -F, '{ print $1 "," $(NF-3) "," $(NF-2) }' | sort | tr '\n' ' ')" \
    "$(echo "$want" | tr '\n' ' ')"
expect_eq "per test: good passed each (4 built: good, skel, crash, weird)" \
    "$(csv "$PER" | awk -F, '$1 == "decode_e4m3" { print $(NF-3) + $(NF-2) + $(NF-1) }')" 4
expect_match "per test: the summary says where" "$(cat "$TMP/first.out")" \
    "^Per test:  .*per-test\\.csv, every test's passes and failures over the 4 that built$"
# A folder without lab0.c is the submission's failure, as gr_grade reports
# it (build_ok false, the missing file in the build log), not the grader's.
expect_eq "empty: score and status" "$(field "$BOOK" empty 2),$(field "$BOOK" empty 4)" \
    "0,build_failed"
expect_match "empty: says what is missing" "$(jq -r .build_log "$GRADES/empty.json")" \
    "^no lab0\\.c in the submission$"
expect_eq "weird, id: quoted" "$(csv "$BOOK" | grep '^"weird, id",' | cut -d, -f3-5)" \
    "100,100,graded"

# The summary, against the gradebook.
expect_eq "summary: graded" "$(count_of first graded)" 6
expect_eq "summary: resumed" "$(count_of first resumed)" 0
expect_eq "summary: errors" "$(count_of first errors)" 0
expect_eq "summary: skipped" "$(count_of first skipped)" 3
expect_eq "summary: did not build" "$(count_of first 'no build')" 2
expect_eq "summary: the two that did not build, by name" \
    "$(sed -n '/^Did not build, or a file was missing/,/^$/p' "$TMP/first.out" | sed '1d;/^$/d' |
        tr -s ' ' | tr '\n' '|')" " broken| empty|"
want=$(csv "$BOOK" | sed 1d | awk -F, '{ s += $(NF - 17) } END { printf "%.1f", s / NR }')
expect_eq "summary: mean" "$(count_of first mean)" "$want"
want=$(csv "$BOOK" | sed 1d | awk -F, '{ print $(NF - 17) }' | sort -n |
    awk '{ v[NR] = $1 } END { printf "%.1f", (v[3] + v[4]) / 2 }')
expect_eq "summary: median" "$(count_of first median)" "$want"
out=$(cat "$TMP/first.out")
expect_match "summary: the archive, and why" "$out" "^  a\\.7z +an archive the grader does not read"
expect_match "summary: the file, and why" "$out" "^  notes\\.txt +not a folder"
expect_match "summary: the hidden folder, and why" "$out" "^  \\.git +hidden"
expect_match "summary: the most failed test" "$out" "^  limits +2 "
expect_match "summary: the gradebook" "$out" "^Gradebook: .*submissions\\.grades/grades\\.csv"
for f in scores.dat scores.gp; do
    [ -s "$GRADES/$f" ] && ok || bad "histogram: no $f"
done
for f in per-test.dat per-test.gp; do
    [ -s "$GRADES/$f" ] && ok || bad "per test: no $f"
done
# the plot's points: each test's share of passes, in rubric order
expect_eq "per test: the plot's points" \
    "$(grep -v '^#' "$GRADES/per-test.dat" | awk 'NF >= 2 { printf "%d:%.0f ", $1, $2 }')" \
    "$(csv "$PER" | sed 1d | awk -F, '{ p = $(NF-3); f = $(NF-2); if (p + f) printf "%d:%.0f ", NR, 100 * p / (p + f) }')"
if command -v gnuplot >/dev/null 2>&1; then
    [ -s "$GRADES/scores.png" ] && ok || bad "histogram: no scores.png"
    [ -s "$GRADES/per-test.png" ] && ok || bad "per test: no per-test.png"
else
    expect_match "histogram: gnuplot missing" "$out" "^Histogram: not drawn, gnuplot is missing"
fi
expect_eq "no work folder left in $BUILD/grade" \
    "$(ls "$BUILD/grade" 2>/dev/null | grep '^batch\.' | sort | tr '\n' ' ')" "$ls_before"

# ---- resume, and --force ---------------------------------------------------------------

cp "$BOOK" "$TMP/first.csv"
touch "$TMP/stamp"
sleep 1 # so that a report written again would be newer than the stamp
batch resume --batch "$SUBS" lab0 -j 2
expect_eq "resume: exit status" "$(rc_of resume)" 1
expect_eq "resume: every one resumed" "$(grep -c '^\[[1-6]/6\] .* (resumed)$' "$TMP/resume.err")" 6
expect_eq "resume: no report written again" "$(find "$GRADES" -name '*.json' -newer "$TMP/stamp" | wc -l | tr -d ' ')" 0
expect_eq "resume: summary" "$(count_of resume graded),$(count_of resume resumed)" "0,6"
expect_eq "resume: the same gradebook" "$(cat "$BOOK")" "$(cat "$TMP/first.csv")"

# A report that is not one is graded again, with a word on why.
echo '{"lab": "lab0"}' >"$GRADES/good.json"
batch damaged --batch "$SUBS" lab0 -j 2
expect_match "damaged report: says so" "$(cat "$TMP/damaged.err")" \
    "good\\.json: not a grader report.*grading it again"
expect_eq "damaged report: graded again" "$(jq -r .score "$GRADES/good.json")" 100
expect_eq "damaged report: summary" "$(count_of damaged graded),$(count_of damaged resumed)" "1,5"

touch "$TMP/stamp"
sleep 1
batch force --batch "$SUBS" lab0 -j 2 --force --csv "$TMP/book.csv"
expect_eq "--force: exit status" "$(rc_of force)" 1
expect_eq "--force: nothing resumed" "$(grep -c '(resumed)' "$TMP/force.err")" 0
expect_eq "--force: every report written again" \
    "$(find "$GRADES" -name '*.json' -newer "$TMP/stamp" | wc -l | tr -d ' ')" 6
expect_eq "--csv: the same grades" "$(csv "$TMP/book.csv" | cut -d, -f1-4)" \
    "$(csv "$TMP/first.csv" | cut -d, -f1-4)"

# ---- a submission that is not graded ---------------------------------------------------

# lab0_format_limits never returns: limits and rel_error_bound each run to
# their 5 s limit, so grading takes 10 s or more; --timeout 6 stops it.
HANG=$TMP/hang
mkdir -p "$HANG/good"
cp solutions/lab0/lab0.c "$HANG/good/"
hostile "$HANG/stuck" loop
CK_TIMEOUT_MULTIPLIER=1 batch hang --batch "$HANG" lab0 -j 2 --timeout 6 --json-dir "$TMP/hang-reports"
expect_eq "--timeout: exit status" "$(rc_of hang)" 1
expect_eq "--timeout: the others keep their result" "$(jq -r .score "$TMP/hang-reports/good.json")" 100
expect_eq "--timeout: an error report" \
    "$(jq -r '[.score, ([.tests[] | .status] | unique | join(","))] | join(" ")' "$TMP/hang-reports/stuck.json")" \
    "0 error"
expect_match "--timeout: says what happened" "$(jq -r .error "$TMP/hang-reports/stuck.json")" \
    "stopped after 6 s"
expect_match "--timeout: the student's scorecard says so" "$(cat "$TMP/hang-reports/stuck.txt" 2>&1)" \
    "not graded: stopped after 6 s"
expect_eq "--timeout: gradebook" "$(field "$TMP/hang-reports/grades.csv" stuck 4)" error
expect_eq "--timeout: summary" "$(count_of hang errors)" 1
expect_match "--timeout: progress" "$(cat "$TMP/hang.err")" "^\[[12]/2\] stuck error: stopped after 6 s"
expect_eq "--timeout: nothing left running" "$(runners)" ""
batch hang_resume --batch "$HANG" lab0 --json-dir "$TMP/hang-reports"
expect_eq "an error, resumed: exit status" "$(rc_of hang_resume)" 1
expect_match "an error, resumed: summary" "$(cat "$TMP/hang_resume.out")" \
    "errors +1 +not graded \\(1 of them resumed: --force grades again\\)"

# A report that cannot be written (an id of 250 characters: the temporary
# file beside <id>.json would pass the 255 a file name may have): the child
# says why and exits 2, and the gradebook still has the row.
LONG=$TMP/long
long_id=$(printf '%0250d' 0)
mkdir -p "$LONG/$long_id" "$LONG/good"
cp solutions/lab0/lab0.c "$LONG/$long_id/"
cp solutions/lab0/lab0.c "$LONG/good/"
batch long --batch "$LONG" lab0 -j 2
expect_eq "report not written: exit status" "$(rc_of long)" 1
expect_eq "report not written: the gradebook" \
    "$(field "$LONG.grades/grades.csv" "$long_id" 4),$(field "$LONG.grades/grades.csv" good 2)" \
    "error,100"
expect_match "report not written: says why" "$(cat "$TMP/long.err")" \
    "error: the grader failed on it: .*cannot create temporary file"

# The process grading a submission is killed (as if the grader had crashed
# on it): its error report says so.
rm -rf "$TMP/hang-reports" "$HANG/good"
CK_TIMEOUT_MULTIPLIER=1 "$GRADER" --batch "$HANG" lab0 --json-dir "$TMP/hang-reports" \
    >"$TMP/killed.out" 2>"$TMP/killed.err" &
parent=$!
child=""
for i in $(seq 1 100); do
    for f in /proc/[0-9]*/stat; do
        set -- $(sed 's/.*) //' "$f" 2>/dev/null) # state ppid ...
        [ "${2:-}" = "$parent" ] || continue
        pid=${f#/proc/}
        pid=${pid%/stat}
        tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--batch" && child=$pid
    done
    [ -n "$child" ] && break
    sleep 0.1
done
if [ -n "$child" ]; then
    sleep 1 # well into the 10 s that stuck takes
    kill -KILL "$child"
    ok
else
    bad "killed child: no grading process found"
fi
wait "$parent"
expect_eq "killed child: exit status" "$?" 1
expect_match "killed child: the error report says so" \
    "$(jq -r .error "$TMP/hang-reports/stuck.json")" "killed by signal 9"
expect_eq "killed child: nothing left running" "$(runners)" ""
expect_eq "no work folder left in $BUILD/grade" \
    "$(ls "$BUILD/grade" 2>/dev/null | grep '^batch\.' | sort | tr '\n' ' ')" "$ls_before"

# ---- archives -------------------------------------------------------------------------

ARCH=$TMP/archives
MK=$TMP/mk
mkdir -p "$ARCH" "$MK/alice/src" "$MK/bob" "$MK/dave/a" "$MK/dave/b" "$MK/eve" "$ARCH/carol" \
    "$MK/junk"
cp solutions/lab0/lab0.c "$MK/alice/src/"
echo "not graded" >"$MK/alice/notes.txt"
cp solutions/lab0/lab0.c "$MK/bob/"
cp solutions/lab0/lab0.c "$MK/dave/a/"
cp solutions/lab0/lab0.c "$MK/dave/b/"
ln -s /etc/passwd "$MK/eve/lab0.c"
cp labs/lab0/lab0.c "$ARCH/carol/"
(cd "$MK" && bsdtar -a -cf "$ARCH/alice.zip" alice) &&
    (cd "$MK/bob" && bsdtar -czf "$ARCH/bob.tar.gz" lab0.c) &&
    (cd "$MK/bob" && bsdtar -a -cf "$ARCH/carol.zip" lab0.c) &&
    (cd "$MK" && bsdtar -cJf "$ARCH/dave.tar.xz" dave) &&
    (cd "$MK" && bsdtar -czf "$ARCH/eve.tgz" eve) &&
    (cd "$MK/bob" && bsdtar -czPf "$ARCH/frank.tar.gz" -s ',^,../../,' lab0.c) &&
    truncate -s 300M "$MK/lab0.c" && (cd "$MK" && bsdtar -a -cf "$ARCH/mallory.zip" lab0.c) &&
    head -c 300M /dev/zero >"$MK/junk/zeros.bin" && cp solutions/lab0/lab0.c "$MK/junk/" &&
    (cd "$MK/junk" && bsdtar -czf "$ARCH/trudy.tar.gz" zeros.bin lab0.c) && ok ||
    bad "archives: bsdtar could not make the test archives"
rm -rf "$MK/lab0.c" "$MK/junk"
printf 'PK\003\004 not really' >"$ARCH/oscar.zip"
batch arch --batch "$ARCH" lab0 -j 2
AB=$ARCH.grades/grades.csv
expect_eq "archives: exit status" "$(rc_of arch)" 1
for id in alice bob frank; do
    expect_eq "archives: $id graded from the archive" "$(field "$AB" $id 2),$(field "$AB" $id 4)" \
        "100,graded"
done
expect_match "archives: the report names the archive" "$(jq -r .source "$ARCH.grades/alice.json")" \
    "alice\\.zip$"
expect_eq "archives: carol's folder, not her archive" "$(field "$AB" carol 2)" \
    "$(jq -r .score "$ARCH.grades/carol.json")"
[ "$(field "$AB" carol 2)" -le 10 ] && ok || bad "archives: carol's archive was graded, not her folder"
expect_match "archives: carol.zip skipped, and why" "$(cat "$TMP/arch.out")" \
    "^  carol\\.zip +the same student id as another entry"
for spec in "dave|two files named lab0\\.c" "eve|eve/lab0\\.c is a symbolic link to /etc/passwd" \
    "mallory|lab0\\.c is larger than 1024 KiB unpacked" "trudy|more than 256 MiB once unpacked" \
    "oscar|oscar\\.zip: "; do
    id=${spec%%|*}
    expect_eq "archives: $id refused" "$(field "$AB" "$id" 2),$(field "$AB" "$id" 4)" "0,error"
    expect_match "archives: $id's report says why" "$(jq -r .error "$ARCH.grades/$id.json")" \
        "its archive was refused: .*${spec#*|}"
done
[ ! -e "$TMP/lab0.c" ] && [ ! -e "$ARCH/../lab0.c" ] && ok ||
    bad "archives: frank's ../../lab0.c was written outside the work folder"

# ---- shards and the merge ------------------------------------------------------------

SH=$TMP/sharded
for i in 1 2 3 4 5 6 7; do
    mkdir -p "$SH/s$i"
    cp solutions/lab0/lab0.c "$SH/s$i/"
done
cp labs/lab0/lab0.c "$SH/s5/"
batch shard1 --batch "$SH" lab0 --shard 1/3
batch shard2 --batch "$SH" lab0 --shard 2/3 -j 2
expect_eq "shard 1/3: exit status" "$(rc_of shard1)" 0
expect_eq "shard 1/3: s1, s4, s7" "$(csv "$SH.grades/grades.shard-1-of-3.csv" | sed 1d | cut -d, -f1 |
    tr '\n' ' ')" "s1 s4 s7 "
expect_eq "shard 2/3: s2, s5" "$(csv "$SH.grades/grades.shard-2-of-3.csv" | sed 1d | cut -d, -f1 |
    tr '\n' ' ')" "s2 s5 "
expect_match "shard 2/3: the summary says which" "$(cat "$TMP/shard2.out")" \
    "2 submissions in .*, shard 2 of 3$"
[ ! -e "$SH.grades/grades.csv" ] && ok || bad "a shard wrote the course's gradebook"
batch early --batch "$SH" lab0 --merge --lms canvas --lms-assignment "Lab 0: formats (48213)"
expect_eq "merge before shard 3: exit status" "$(rc_of early)" 1
expect_eq "merge before shard 3: s3 and s6 not graded" \
    "$(field "$SH.grades/grades.csv" s3 4),$(field "$SH.grades/grades.csv" s6 4)" "error,error"
expect_match "merge before shard 3: says why" "$(cat "$TMP/early.out")" \
    "^  s3 +no report in .*: its shard has not run"
[ ! -e "$SH.grades/s3.json" ] && ok || bad "merge: wrote a report for s3"
# A merge that lacks a shard's reports writes no LMS file: its students
# would import as 0, not for anything they did; the summary names the shard.
[ ! -e "$SH.grades/lms-canvas.csv" ] && ok || bad "merge before shard 3: an LMS file with s3 and s6 at 0"
expect_match "merge before shard 3: the LMS file not written, the shard named" \
    "$(cat "$TMP/early.out")" \
    "^For LMS: +not written: 2 submissions \\(s3, \\.\\.\\.\\) have no report: shard 3 of 3 has not run, or not finished\\. .*Run it with --shard K/N"
batch early_moodle --batch "$SH" lab0 --merge --lms moodle
[ ! -e "$SH.grades/lms-moodle.csv" ] && ok || bad "merge before shard 3: a Moodle file with s3 and s6 at 0"
batch shard3 --batch "$SH" lab0 --shard 3/3
batch merge_canvas --batch "$SH" lab0 --merge --lms canvas --lms-assignment "Lab 0: formats (48213)"
# Canvas's import takes the assignment's id from a header "Title (id)"
# (Assignment.title_and_id: /\A(.*)\s\((\d+)\)\z/), else matches the
# title or makes a new assignment: the column is --lms-assignment's.
expect_eq "--lms canvas: the header" "$(csv "$SH.grades/lms-canvas.csv" | head -n 1)" \
    "Student,ID,SIS User ID,SIS Login ID,Section,Lab 0: formats (48213)"
expect_match "--lms canvas: the column, as Canvas's import reads a title and id" \
    "$(csv "$SH.grades/lms-canvas.csv" | head -n 1 | cut -d, -f6-)" "^.+[[:space:]]\\([0-9]+\\)$"
expect_eq "--lms canvas: the scores" \
    "$(csv "$SH.grades/lms-canvas.csv" | grep -e '^s1,' -e '^s3,' | tr '\n' ' ')" \
    "s1,,,s1,,100 s3,,,s3,,100 "
batch merge --batch "$SH" lab0 --merge --lms moodle
expect_eq "merge: exit status" "$(rc_of merge)" 0
expect_eq "merge: every row" "$(csv "$SH.grades/grades.csv" | sed 1d | cut -d, -f1,2 | tr '\n' ' ')" \
    "s1,100 s2,100 s3,100 s4,100 s5,$(jq -r .score "$SH.grades/s5.json") s6,100 s7,100 "
expect_eq "merge: graded nothing" "$(count_of merge graded),$(count_of merge resumed)" "0,7"
expect_eq "--lms moodle: every row" "$(csv "$SH.grades/lms-moodle.csv" | cut -d, -f1,2 | tr '\n' ' ')" \
    "Username,lab0 (FP8 number formats) s1,100 s2,100 s3,100 s4,100 s5,$(field "$SH.grades/grades.csv" s5 2) s6,100 s7,100 "
# Feedback on every row, so that a worksheet never blanks a comment with
# an empty cell: the score, and the tests not passed by name.
expect_eq "--lms moodle: full marks' feedback" "$(csv "$SH.grades/lms-moodle.csv" | grep '^s1,')" \
    "s1,100,lab0: 100 of 100 points; every test passed"
expect_match "--lms moodle: the skeleton's feedback names the tests it did not pass" \
    "$(csv "$SH.grades/lms-moodle.csv" | grep '^s5,')" \
    "^s5,[0-9]+,\"lab0: [0-9]+ of 100 points; not passed: decode_e4m3, decode_e5m2, .*, rel_error_bound; the scorecard says"
expect_match "--lms: the summary names the file" "$(cat "$TMP/merge.out")" \
    "^For LMS: +.*lms-moodle\\.csv \\(moodle's grade import\\)"

# ---- usage errors ----------------------------------------------------------------------

for args in "--batch $TMP/nowhere lab0" "--batch $SUBS lab0 -j 0" "--batch $SUBS lab0 -j x" \
    "--batch $SUBS lab0 --timeout 0" "--batch $SUBS lab0 --solution" \
    "--batch $SUBS lab0 --test limits" "--batch $SUBS lab0 --format tap" "lab0 -j 2" \
    "lab0 --force" "--batch $SUBS lab9" "--batch $SUBS lab0 --csv $TMP/nowhere/book.csv" \
    "--batch $SUBS lab0 --shard 0/3" "--batch $SUBS lab0 --shard 4/3" \
    "--batch $SUBS lab0 --shard 2" "--batch $SUBS lab0 --shard 1/3x" "lab0 --shard 1/2" \
    "--batch $SUBS lab0 --merge --shard 1/2" "--batch $SUBS lab0 --merge --force" \
    "--batch $SUBS lab0 --lms blackboard" "lab0 --lms canvas" \
    "--batch $SUBS lab0 --lms canvas" "--batch $SUBS lab0 --lms canvas --lms-assignment Lab0" \
    "--batch $SUBS lab0 --lms canvas --lms-assignment (12)" \
    "--batch $SUBS lab0 --lms canvas --lms-assignment Lab0(12)" \
    "--batch $SUBS lab0 --lms moodle --lms-assignment Lab0_(12)" \
    "--batch $SUBS lab0 --lms-assignment Lab0_(12)"; do
    # shellcheck disable=SC2086
    "$GRADER" $args >/dev/null 2>"$TMP/usage.err"
    expect_eq "usage error '$args': exit status" "$?" 2
    [ -s "$TMP/usage.err" ] && ok || bad "usage error '$args': no message"
done

"$GRADER" --batch "$SUBS" lab0 --lms canvas >/dev/null 2>"$TMP/usage.err"
expect_match "--lms canvas without the assignment: says what to give" "$(cat "$TMP/usage.err")" \
    "needs --lms-assignment 'TITLE \(ID\)'.*without the id Canvas's import makes a new assignment"
"$GRADER" --batch "$SUBS" lab0 --lms canvas --lms-assignment "Lab 0" >/dev/null 2>"$TMP/usage.err"
expect_match "--lms-assignment without an id: says the form" "$(cat "$TMP/usage.err")" \
    "'Lab 0': not TITLE \(ID\)"

echo "test_batch: $passed passed, $failed failed"
[ "$failed" = 0 ]
