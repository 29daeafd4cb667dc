#!/bin/sh
# bench_batch.sh - how long ./grader --batch takes on 100 copies of lab0's
# reference solution, as many at once as the machine has cores (-j nproc):
# the wall-clock time, the time per submission and the rate, against the
# target of 2 minutes for 100 submissions. Prints; fails only when the
# grader does (a copy not graded 100/100).
#
#   sh tests/bench/bench_batch.sh build/bin/grader
set -u
GRADER=${1:-build/bin/grader}
N=100
TARGET_S=120
JOBS=$(nproc 2>/dev/null || echo 1)
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

i=1
while [ "$i" -le "$N" ]; do
    id=$(printf 'student%03d' "$i")
    mkdir -p "$TMP/submissions/$id"
    cp solutions/lab0/lab0.c "$TMP/submissions/$id/"
    i=$((i + 1))
done

t0=$(date +%s.%N)
"$GRADER" --batch "$TMP/submissions" lab0 -j "$JOBS" >"$TMP/summary" 2>"$TMP/progress"
rc=$?
t1=$(date +%s.%N)
full=$(tr -d '\r' <"$TMP/submissions.grades/grades.csv" 2>/dev/null | grep -c ',100,100,graded,')
if [ "$rc" != 0 ] || [ "$full" != "$N" ]; then
    echo "bench_batch: $GRADER --batch exited $rc; $full of $N copies graded 100/100" >&2
    tail -n 20 "$TMP/summary" "$TMP/progress" >&2
    exit 1
fi
awk -v a="$t0" -v b="$t1" -v n="$N" -v j="$JOBS" -v target="$TARGET_S" 'BEGIN {
    s = b - a
    printf "grader --batch lab0, %d copies of the solution, -j %d   %6.2f s  (%.2f s each, %.1f per minute; target %d s: %s)\n",
        n, j, s, s / n, 60 * n / s, target, s <= target ? "met" : "NOT met"
}'
