#!/bin/sh
# bench_quickstart.sh - the README's first command from a fresh clone, on a
# machine that already has the packages: `make lab3 && ./grader lab3`, the
# build included, in seconds (target: at most 10 s on 2 cores), with the
# machine's load before and after; twice: as the machine is, and with all
# its cores but one kept busy by loops that it starts and stops itself, as
# on a shared machine. The skeleton's scorecard ends each run (exit status
# 1); anything else is a failure of the benchmark.
#
#   sh tests/bench/bench_quickstart.sh        (from the top of a git clone)
set -u
ROOT=$(pwd)
if ! git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    echo "bench quickstart: skipped: $ROOT is not a git clone"
    exit 0
fi
TMP=$(mktemp -d) || exit 1
busy=""
stop_busy() {
    for pid in $busy; do kill "$pid" 2>/dev/null; done
    for pid in $busy; do wait "$pid" 2>/dev/null; done
    busy=""
}
trap 'stop_busy; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }
cores=$(nproc 2>/dev/null || echo 1)

# quickstart WHAT: the first command from a fresh clone, timed; one line.
quickstart() {
    rm -rf "$TMP/course"
    git clone -q "$ROOT" "$TMP/course" || exit 1
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
    awk -v a="$t0" -v b="$t1" -v steps="$(grep -c '^  [A-Z]' "$TMP/out")" -v l0="$load_before" \
        -v l1="$(load)" -v what="$1" \
        'BEGIN { printf "quickstart %-22s %5.1f s  (target 10 s idle; %d build steps; load %s -> %s)\n", what, b - a, steps, l0, l1 }'
}

# As it is, then with every core but one kept busy by a loop of this
# script's own (one busy core on a machine of one): what a shared machine
# does to the same command.
quickstart "idle, $cores cores"
others=$((cores > 1 ? cores - 1 : 1))
for _ in $(seq "$others"); do
    sh -c 'while :; do :; done' &
    busy="$busy $!"
done
quickstart "$others core(s) busy"
stop_busy
