#!/bin/sh
# bench_grader.sh - how long ./grader takes on each lab's reference solution,
# after the build (the grader compiles the submission itself, so that is
# included): the median of 5 runs, in seconds. A lab whose tests were all
# SKIPPED (exit status 3: lab5 without a GPU) is reported as skipped.
#
#   sh tests/bench/bench_grader.sh build/bin/grader
set -u
GRADER=${1:-build/bin/grader}
for lab in $("$GRADER" --list | awk '/^lab/ { print $1 }'); do
    times=""
    for i in 1 2 3 4 5; do
        t0=$(date +%s.%N)
        "$GRADER" "$lab" --solution >/dev/null 2>&1
        rc=$?
        t1=$(date +%s.%N)
        if [ "$rc" = 3 ]; then
            printf 'grader %-6s --solution   skipped: its tests need what this machine lacks (%s)\n' "$lab" \
                "$("$GRADER" "$lab" --solution 2>&1 | grep -i -m 1 'skipped' | sed 's/^ *//')"
            continue 2
        fi
        if [ "$rc" != 0 ]; then
            echo "bench_grader: $GRADER $lab --solution exited $rc" >&2
            exit 1
        fi
        times="$times $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
    done
    median=$(printf '%s\n' $times | sort -n | sed -n 3p)
    printf 'grader %-6s --solution   %6.2f s  (median of 5:%s)\n' "$lab" "$median" "$times"
done
