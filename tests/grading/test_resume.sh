#!/bin/sh
# test_resume.sh - a resume that cannot go stale, on lab0:
#   - beside each report, the student's scorecard (<id>.txt), for an error
#     too (test_batch.sh);
#   - each report records the sha256 of the graded file, the grader's
#     version (its commit, and the sha256 of what grades the lab) and
#     whether hidden inputs were drawn (never the seed); a report from
#     another grader is graded again;
#   - a submission replaced after its report is graded again on resume (the
#     skeleton's low score does not stay), and the summary says how many;
#   - --seed-file takes a seed with quotes, &, $ and spaces; a run with a
#     seed regrades reports made without one, and the next run resumes
#     them; the gradebook and the summary say whether hidden inputs were on;
#   - --only ID grades that student again, the others resume; an unknown ID,
#     and a seed file that is empty, has two lines or is missing, exit 2;
#   - a merge takes the reports as they are, and refuses a stale one;
#   - the work folder a batch killed with SIGKILL leaves is removed by the
#     next run, which says so; a running batch's is left alone;
#   - a batch stopped by SIGTERM or SIGINT stops the processes it started,
#     ends by that signal, writes nothing after, and the next run resumes.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/grading/test_resume.sh
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

batch() { # NAME ARGS...
    name=$1
    shift
    "$GRADER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    echo $? >"$TMP/$name.rc"
}
rc_of() { cat "$TMP/$1.rc"; }
count_of() { sed -n "s/^  $2  *\([0-9.]*\) .*/\1/p" "$TMP/$1.out"; }

S=$TMP/class
G=$S.grades
BOOK=$G/grades.csv
mkdir -p "$S/good" "$S/late"
cp solutions/lab0/lab0.c "$S/good/"
cp labs/lab0/lab0.c "$S/late/"

batch first --batch "$S" lab0 -j 2
expect_eq "first: exit status" "$(rc_of first)" 0
expect_eq "report: the graded file's sha256" "$(jq -r '.sha256."lab0.c"' "$G/good.json")" \
    "$(sha256sum solutions/lab0/lab0.c | cut -d' ' -f1)"
expect_match "report: the grader's version" "$(jq -r .grader "$G/good.json")" "^([0-9a-f]{40}|unknown)"
expect_match "report: what grades the lab, hashed" "$(jq -r .grader_sha256 "$G/good.json")" "^[0-9a-f]{64}$"
expect_eq "report: no hidden inputs" "$(jq -r .hidden_inputs "$G/good.json")" false
expect_eq "gradebook: hidden inputs off" "$(field "$BOOK" good 16)" no
expect_match "summary: hidden inputs off" "$(cat "$TMP/first.out")" "hidden inputs: off"
late=$(field "$BOOK" late 2)
# The scorecard beside each report, for the student.
expect_match "scorecard: good.txt" "$(cat "$G/good.txt" 2>&1)" "^Score: 100/100"
expect_match "scorecard: late.txt" "$(cat "$G/late.txt" 2>&1)" "^Score: $late/100"

# The late student replaces the skeleton with a solution: graded again.
cp solutions/lab0/lab0.c "$S/late/lab0.c"
batch replaced --batch "$S" lab0 -j 2
expect_eq "replaced: exit status" "$(rc_of replaced)" 0
expect_eq "replaced: graded again" "$(field "$BOOK" late 2)" 100
[ "$late" != 100 ] && ok || bad "replaced: the skeleton scored 100 the first time"
expect_eq "replaced: the other resumed" "$(count_of replaced resumed),$(count_of replaced regraded)" "1,1"
expect_match "replaced: says why" "$(cat "$TMP/replaced.err")" "late: lab0\\.c changed since its report; grading it again"

# A report from another grader (its fingerprint differs) is graded again.
jq '.grader_sha256 = "0000"' "$G/good.json" >"$TMP/old.json" && cp "$TMP/old.json" "$G/good.json"
batch regrader --batch "$S" lab0
expect_eq "another grader: graded again" "$(count_of regrader graded),$(count_of regrader regraded)" "1,1"
expect_match "another grader: says why" "$(cat "$TMP/regrader.err")" \
    "good: the grader, the lab's tests or its goldens changed since its report"

# --reweight-skipped: a report with a test skipped (lab5's on an older GPU;
# made here by editing good's) holds only for a run that re-weights as it
# did.
skip_first='.tests[0].status = "skipped" | .tests[0].points = 0 | .score = 100 - .tests[0].max_points'
jq "$skip_first"' | .reweighted = {graded_score: .score, graded_max: .score} | .score = 100' \
    "$G/good.json" >"$TMP/rw.json" && cp "$TMP/rw.json" "$G/good.json"
batch rw_off --batch "$S" lab0
expect_eq "re-weighted report, a run without the flag: graded again" \
    "$(count_of rw_off graded),$(count_of rw_off regraded)" "1,1"
expect_match "re-weighted report, a run without the flag: says why" "$(cat "$TMP/rw_off.err")" \
    "good: its score was re-weighted to the points graded, and this run has no --reweight-skipped"
jq "$skip_first" "$G/good.json" >"$TMP/rw.json" && cp "$TMP/rw.json" "$G/good.json"
batch rw_on --batch "$S" lab0 --reweight-skipped
expect_eq "report not re-weighted, a run with the flag: graded again" \
    "$(count_of rw_on graded),$(count_of rw_on regraded)" "1,1"
expect_match "report not re-weighted, a run with the flag: says why" "$(cat "$TMP/rw_on.err")" \
    "good: its score was not re-weighted to the points graded, and this run has --reweight-skipped"
jq "$skip_first"' | .reweighted = {graded_score: .score, graded_max: .score} | .score = 100' \
    "$G/good.json" >"$TMP/rw.json" && cp "$TMP/rw.json" "$G/good.json"
batch rw_kept --batch "$S" lab0 --reweight-skipped
expect_eq "re-weighted report, a run with the flag: resumed" \
    "$(count_of rw_kept graded),$(count_of rw_kept resumed)" "0,2"
expect_match "re-weighted: the summary says so" "$(cat "$TMP/rw_kept.out")" \
    "SKIPPED +1  had tests SKIPPED .*; 1 of them scored out of the points graded"
expect_eq "re-weighted: the gradebook's score" "$(field "$BOOK" good 2)" 100
batch rw_back --batch "$S" lab0 --force
expect_eq "graded again: nothing skipped" "$(jq '[.tests[] | select(.status == "skipped")] | length' \
    "$G/good.json"),$(jq 'has("reweighted")' "$G/good.json")" "0,false"

# A seed no shell or make could quote plainly, from a file.
printf '%s\n' "fall&25 bob's \$HOME \"x\"" >"$TMP/seed"
batch seeded --batch "$S" lab0 -j 2 --seed-file "$TMP/seed"
expect_eq "seed file: exit status" "$(rc_of seeded)" 0
expect_eq "seed file: every report made without it regraded" \
    "$(count_of seeded graded),$(count_of seeded regraded)" "2,2"
expect_eq "seed file: hidden inputs in the report" "$(jq -r .hidden_inputs "$G/good.json")" true
expect_eq "seed file: hidden inputs in the gradebook" "$(field "$BOOK" good 16),$(field "$BOOK" late 16)" "yes,yes"
expect_match "seed file: the summary" "$(cat "$TMP/seeded.out")" "hidden inputs: on .* 2 of the 2 graded drew them"
grep -l "bob's" "$G"/*.json "$BOOK" "$TMP/seeded.out" 2>/dev/null | grep -q . &&
    bad "the seed is written somewhere" || ok
batch again --batch "$S" lab0 -j 2 --seed-file "$TMP/seed"
expect_eq "same seed: all resumed" "$(count_of again graded),$(count_of again resumed)" "0,2"
batch noseed --batch "$S" lab0 --merge
expect_eq "merge without a seed: takes the reports" "$(rc_of noseed),$(count_of noseed resumed)" "0,2"

# --only: one student again.
batch only --batch "$S" lab0 --seed-file "$TMP/seed" --only late
expect_eq "--only: exit status" "$(rc_of only)" 0
expect_eq "--only: graded, resumed" "$(count_of only graded),$(count_of only resumed)" "1,1"
expect_match "--only: the progress line" "$(cat "$TMP/only.err")" "^\[[12]/2\] late 100/100 \([0-9.]+ s\)$"

# A merge cannot grade: a stale report is an error there.
cp labs/lab0/lab0.c "$S/late/lab0.c"
batch stale --batch "$S" lab0 --merge
expect_eq "merge, stale: exit status" "$(rc_of stale)" 1
expect_match "merge, stale: says why" "$(cat "$TMP/stale.out")" \
    "late +its report is stale: lab0\\.c changed since its report"

# A batch killed mid-run leaves its work folder; the next run removes it,
# and leaves alone the folder of a batch still running (a submission that
# loops: 10 s and more).
works() { ls -d "$BUILD"/grade/batch.* 2>/dev/null | sort; }
# new_work EXCEPT: the work folder, with its lock, that is not in EXCEPT.
new_work() {
    for i in $(seq 1 100); do
        w=$(works | grep -vxF "$1" || true)
        [ -n "$w" ] && [ -e "$w/.lock" ] && { echo "$w"; return; }
        sleep 0.1
    done
}
before=$(works)
mkdir -p "$TMP/slow/stuck"
hostile_into "$TMP/slow/stuck/lab0.c" loop
CK_TIMEOUT_MULTIPLIER=1 "$GRADER" --batch "$TMP/slow" lab0 >/dev/null 2>&1 &
slow=$!
other=$(new_work "$before")
K=$TMP/killed
mkdir -p "$K/a"
cp solutions/lab0/lab0.c "$K/a/"
"$GRADER" --batch "$K" lab0 >/dev/null 2>&1 &
parent=$!
left=$(new_work "$(printf '%s\n%s' "$before" "$other")")
kill -KILL "$parent"
wait "$parent" 2>/dev/null
# What the killed batch had started ends on its own; then its lock is free.
for i in $(seq 1 300); do
    busy=0
    for f in /proc/[0-9]*/cmdline; do
        { tr '\0' ' ' <"$f"; } 2>/dev/null | grep -q -- "--batch $K " && busy=1
    done
    [ $busy = 0 ] && break
    sleep 0.2
done
[ -n "$left" ] && [ -d "$left" ] && ok || bad "killed batch: no work folder left to clean (got '$left')"
batch cleaned --batch "$K" lab0
expect_eq "cleaned: exit status" "$(rc_of cleaned)" 0
expect_match "cleaned: says so" "$(cat "$TMP/cleaned.err")" \
    "removed 1 work folder that an interrupted batch left in .*/grade$"
[ ! -e "$left" ] && ok || bad "cleaned: $left is still there"
if kill -0 "$slow" 2>/dev/null; then
    [ -n "$other" ] && [ -d "$other" ] && ok || bad "cleaned: a running batch's folder was removed"
else
    bad "the looping batch ended too soon to tell"
fi
wait "$slow"

# A batch stopped by SIGTERM or SIGINT stops what it started: it ends by
# that signal, no process it started is left, nothing is written after it
# ends, no gradebook, and its work folder is gone; the next run grades the
# rest. descendants PID: every process under PID now.
descendants() {
    for f in /proc/[0-9]*/stat; do
        st=$(cat "$f" 2>/dev/null) || continue
        rest=${st##*) }
        # shellcheck disable=SC2086
        set -- $rest
        echo "${st%% *} $2"
    done | awk -v root="$1" '{ kids[$2] = kids[$2] " " $1 }
        END { n = split(kids[root], q, " "); for (i = 1; i <= n; i++) { print q[i];
              m = split(kids[q[i]], more, " "); for (j = 1; j <= m; j++) q[++n] = more[j] } }'
}
listing() { find "$1" -printf '%p %s %T@\n' 2>/dev/null | sort; }
for sig in TERM INT; do
    case $sig in TERM) signum=15 ;; *) signum=2 ;; esac
    T=$TMP/stop$sig
    mkdir -p "$T/stuck" "$T/stuck2" "$T/good"
    hostile_into "$T/stuck/lab0.c" loop
    hostile_into "$T/stuck2/lab0.c" loop
    cp solutions/lab0/lab0.c "$T/good/"
    before=$(works)
    CK_TIMEOUT_MULTIPLIER=1 "$GRADER" --batch "$T" lab0 -j 2 >"$TMP/stop$sig.out" \
        2>"$TMP/stop$sig.err" &
    pid=$!
    work=$(new_work "$before")
    # Both children grading, each with what it started: a judge each, on a
    # loaded machine after a while (the builds come first).
    for i in $(seq 1 600); do
        judges=0
        for p in $(descendants "$pid"); do
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" = lab0_judge ] && judges=$((judges + 1))
        done
        [ $judges -ge 2 ] && break
        sleep 0.1
    done
    started=$(descendants "$pid")
    kill -$sig "$pid"
    wait "$pid"
    expect_eq "SIG$sig: the batch ends by it" "$?" $((128 + signum))
    after=$(listing "$T.grades")
    left=""
    for p in $started; do
        [ -d "/proc/$p" ] && left="$left $p($(cat "/proc/$p/comm" 2>/dev/null))"
    done
    expect_eq "SIG$sig: no process it started is left" "$left" ""
    [ $judges -ge 2 ] && ok ||
        bad "SIG$sig: the batch had not started its children's tests in 60 s ($(echo $started))"
    sleep 2
    expect_eq "SIG$sig: nothing written after it ended" "$(listing "$T.grades")" "$after"
    [ ! -e "$T.grades/grades.csv" ] && ok || bad "SIG$sig: a gradebook was written"
    [ -n "$work" ] && [ ! -e "$work" ] && ok || bad "SIG$sig: its work folder '$work' is left"
    expect_match "SIG$sig: says so" "$(cat "$TMP/stop$sig.err")" \
        "stopped by SIG$sig: .* no gradebook written; the same command grades the rest"
done
# The next run grades the rest: here, the good one among them at full marks.
rm -rf "$TMP/stopTERM/stuck" "$TMP/stopTERM/stuck2"
batch resumed --batch "$TMP/stopTERM" lab0
expect_eq "after SIGTERM: the next run's exit status" "$(rc_of resumed)" 0
expect_eq "after SIGTERM: the next run grades the rest" "$(field "$TMP/stopTERM.grades/grades.csv" good 2)" 100

# Usage errors.
: >"$TMP/empty"
printf 'one\ntwo\n' >"$TMP/two"
for args in "--only nobody" "--seed-file $TMP/empty" "--seed-file $TMP/two" \
    "--seed-file $TMP/missing" "--merge --only good"; do
    # shellcheck disable=SC2086
    "$GRADER" --batch "$S" lab0 $args >/dev/null 2>"$TMP/usage.err"
    expect_eq "usage '$args': exit status" "$?" 2
    [ -s "$TMP/usage.err" ] && ok || bad "usage '$args': no message"
done
expect_match "--only: names the id" "$("$GRADER" --batch "$S" lab0 --only nobody 2>&1)" \
    "--only nobody: no submission with that id"

echo "test_resume: $passed passed, $failed failed"
[ "$failed" = 0 ]
