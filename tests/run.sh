#!/bin/sh
# run.sh - runs the project's own tests from a manifest the Makefile writes,
# one line per test, and ends with the count: "tests: N passed, N failed, N
# skipped". Quiet when a test passes; a failure's output follows its line.
# Exit status: 0 when nothing failed.
#
# usage: tests/run.sh MANIFEST LOGDIR
# Manifest lines, fields separated by '|':
#   NAME|run|COMMAND      run COMMAND (a shell command line)
#   NAME|gpu|COMMAND      run it only when $FP8LAB_GPUPROBE says a GPU is usable
#   NAME|skip|REASON      not built here, for REASON
# A test program exits 0 when it passes and 77 when it skipped itself (its
# last line of output says why); any other status is a failure.
#
# FP8LAB_TESTS='PATTERN ...' runs only the tests whose names match one of the
# shell patterns ('common/* hostile/test_hostile'); the last line counts the
# others as not selected.
set -u
manifest="$1"
logdir="$2"
mkdir -p "$logdir"
passed=0 failed=0 skipped=0 unselected=0
selected() {
    [ -z "${FP8LAB_TESTS:-}" ] && return 0
    set -f
    for pat in $FP8LAB_TESTS; do
        # shellcheck disable=SC2254
        case $1 in $pat) set +f; return 0 ;; esac
    done
    set +f
    return 1
}
failures=""

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f s", b - a }'; }

gpu_reason=""
gpu_checked=0
gpu_usable() {
    if [ $gpu_checked = 0 ]; then
        gpu_checked=1
        probe="${FP8LAB_GPUPROBE:-}"
        if [ -z "$probe" ] || [ ! -x "$probe" ]; then
            gpu_reason="no gpuprobe (nvcc not found)"
        elif ! gpu_reason=$("$probe" 2>&1); then
            gpu_reason=$(printf '%s' "$gpu_reason" | tail -n 1)
        else
            gpu_reason=""
        fi
    fi
    [ -z "$gpu_reason" ]
}

while IFS='|' read -r name kind what; do
    [ -z "$name" ] && continue
    if ! selected "$name"; then
        unselected=$((unselected + 1))
        continue
    fi
    case "$kind" in
    skip)
        printf 'SKIP  %-24s %s\n' "$name" "$what"
        skipped=$((skipped + 1))
        continue ;;
    gpu)
        if ! gpu_usable; then
            printf 'SKIP  %-24s %s\n' "$name" "$gpu_reason"
            skipped=$((skipped + 1))
            continue
        fi ;;
    esac
    log="$logdir/$name.log"
    mkdir -p "$(dirname "$log")"
    t0=$(now)
    sh -c "$what" >"$log" 2>&1 </dev/null
    status=$?
    t1=$(now)
    case $status in
    0)
        printf 'PASS  %-24s (%s)\n' "$name" "$(elapsed "$t0" "$t1")"
        passed=$((passed + 1)) ;;
    77)
        printf 'SKIP  %-24s %s\n' "$name" "$(tail -n 1 "$log")"
        skipped=$((skipped + 1)) ;;
    *)
        printf 'FAIL  %-24s (exit %d, %s; log: %s)\n' "$name" "$status" "$(elapsed "$t0" "$t1")" "$log"
        tail -n 40 "$log" | sed 's/^/      /'
        failed=$((failed + 1))
        failures="$failures $name" ;;
    esac
done <"$manifest"

if [ -n "${FP8LAB_TESTS:-}" ] && [ $((passed + failed + skipped)) = 0 ]; then
    echo "FAIL  FP8LAB_TESTS='$FP8LAB_TESTS' names no test in $manifest"
    failed=1
fi
[ -n "$failures" ] && echo "failed:$failures"
if [ "$unselected" = 0 ]; then
    echo "tests: $passed passed, $failed failed, $skipped skipped"
else
    echo "tests: $passed passed, $failed failed, $skipped skipped, $unselected not selected (FP8LAB_TESTS)"
fi
[ "$failed" = 0 ]
