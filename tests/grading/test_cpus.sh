#!/bin/sh
# test_cpus.sh - ./grader --batch -j 2 gives each job a CPU of its own: a
# submission that spins (tests/hostile/loop.c: lab0_format_limits never
# returns) graded beside a classmate whose lab0_format_limits takes a
# second (tests/hostile/slow.c, full marks), the grader given two CPUs, one of
# them kept busy by another program (where the scheduler, left alone, puts
# both jobs on the other). Each job's judges (and the subjects they keep on
# their CPU) run on CPUs no judge of the other job has, and the classmate's
# score and the spinner's are those each gets graded alone. It needs two
# CPUs (exit 77, SKIP, otherwise).
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/grading/test_cpus.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
BUILD=${FP8LAB_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
TMP=$(mktemp -d) || exit 1
hog=
trap '[ -n "$hog" ] && kill "$hog"; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
. "$ROOT/tests/grading/lib.sh"

cpus=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
       awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' | head -n 2)
if [ "$(echo "$cpus" | wc -l)" -lt 2 ]; then
    echo "test_cpus: SKIP: one CPU here"
    exit 77
fi
A=$(echo "$cpus" | sed -n 1p) B=$(echo "$cpus" | sed -n 2p)

S=$TMP/class
mkdir -p "$S/a-spin" "$S/b-slow"
hostile_into "$S/a-spin/lab0.c" loop
hostile_into "$S/b-slow/lab0.c" slow
for id in a-spin b-slow; do
    mkdir -p "$TMP/alone/$id" && cp "$S/$id/lab0.c" "$TMP/alone/$id/"
done
"$GRADER" --batch "$TMP/alone" lab0 -j 1 >"$TMP/alone.out" 2>&1

taskset -c "$B" sh -c 'while :; do :; done' &
hog=$!
taskset -c "$A,$B" "$GRADER" --batch "$S" lab0 -j 2 >"$TMP/out" 2>"$TMP/err" &
grader=$!
# Every judge of the batch while it runs: its job's slot and its CPUs.
while kill -0 "$grader" 2>/dev/null; do
    for pid in $(pgrep -f "^$BUILD/grade/batch\\.[^/]*/[0-9]+/grading/lab0_judge"); do
        slot=$( (tr '\0' ' ' <"/proc/$pid/cmdline") 2>/dev/null |
               sed -n 's|^.*/batch\.[^/]*/\([0-9]*\)/grading/lab0_judge .*|\1|p')
        on=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
        [ -n "$slot" ] && [ -n "$on" ] && echo "$slot $on" >>"$TMP/seen"
    done
    sleep 0.1
done
wait "$grader"
kill "$hog" && hog=

expect_eq "the batch ends well" "$(tail -n 1 "$TMP/err" | grep -c 'grader error')" 0
expect_eq "the judges of both jobs were seen" "$(cut -d' ' -f1 "$TMP/seen" | sort -u | wc -l)" 2
# A judge keeps to one CPU once its subject starts; before, it may have the job's.
pinned=$(awk '$2 ~ /^[0-9]+$/' "$TMP/seen" | sort -u)
shared=$(echo "$pinned" | awk 'NF && !seen[$2, $1]++ { k[$2]++ } END { for (c in k) if (k[c] > 1) print c }')
expect_eq "no CPU holds judges of both jobs (seen: $(echo "$pinned" | tr '\n' ';'))" "$shared" ""
for id in a-spin b-slow; do
    expect_eq "$id: its score as when graded alone" "$(field "$S.grades/grades.csv" "$id" 2)" \
        "$(field "$TMP/alone.grades/grades.csv" "$id" 2)"
done
expect_eq "b-slow: full marks beside the spinner" "$(field "$S.grades/grades.csv" b-slow 2)" 100

echo "test_cpus: $passed passed, $failed failed"
[ "$failed" = 0 ]
