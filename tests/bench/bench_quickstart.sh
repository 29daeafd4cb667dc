#!/bin/sh
# bench_quickstart.sh - the README's first command from a fresh clone, on a
# machine that already has the packages: `make lab3 && ./grader lab3`, the
# build included, in seconds (target: at most 10 s on 2 cores), with the
# machine's load before and after. The skeleton's scorecard ends it (exit
# status 1); anything else is a failure of the benchmark.
#
#   sh tests/bench/bench_quickstart.sh        (from the top of a git clone)
set -u
ROOT=$(pwd)
if ! git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    echo "bench quickstart: skipped: $ROOT is not a git clone"
    exit 0
fi
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
git clone -q "$ROOT" "$TMP/course" || exit 1
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }
load_before=$(load)
t0=$(date +%s.%N)
(cd "$TMP/course" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL sh -c 'make lab3 && ./grader lab3') \
    >"$TMP/out" 2>&1
rc=$?
t1=$(date +%s.%N)
if [ $rc != 1 ] || ! grep -q '^Score: ' "$TMP/out"; then
    echo "bench quickstart: make lab3 && ./grader lab3 from a fresh clone: exit $rc, no scorecard:" >&2
    tail -n 10 "$TMP/out" >&2
    exit 1
fi
awk -v a="$t0" -v b="$t1" -v steps="$(grep -c '^  [A-Z]' "$TMP/out")" -v l0="$load_before" -v l1="$(load)" \
    'BEGIN { printf "quickstart: make lab3 && ./grader lab3 from a fresh clone   %5.1f s  (target 10 s; %d build steps; load %s -> %s)\n", b - a, steps, l0, l1 }'
