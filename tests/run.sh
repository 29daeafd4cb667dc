#!/bin/sh
# run.sh - runs the project's own tests from a manifest the Makefile writes,
# one line per test, and ends with the count: "tests: N passed, N failed, N
# skipped". Quiet when a test passes; a failure's output follows its line.
# Exit status: 0 when nothing failed.
#
# usage: tests/run.sh MANIFEST LOGDIR
# Manifest lines, fields separated by '|':
#   NAME|run|COMMAND      run COMMAND (a shell command line)
#   NAME|solo|COMMAND     the same, with no other test beside it (FP8LAB_TEST_JOBS)
#   NAME|gpu|COMMAND      run it only when $FP8LAB_GPUPROBE says a GPU is usable,
#                         with no other test beside it
#   NAME|skip|REASON      not built here, for REASON
# A test program exits 0 when it passes and 77 when it skipped itself (its
# last line of output says why); any other status is a failure.
#
# FP8LAB_TEST_JOBS=N runs up to N tests at once (default 1).
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

# Several tests at once (FP8LAB_TEST_JOBS, default 1): a test runs in the
# background, and its line is printed when it ends, in the order tests end.
# A "solo" test (one that keeps every core busy itself: a parallel sweep or
# build, mutants graded a core each) runs with nothing beside it.
jobs=${FP8LAB_TEST_JOBS:-1}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac
state=$(mktemp -d) || exit 2
trap 'rm -rf "$state"' EXIT
pending="" running=0 seq=0

# report ID: the line of a test that ended (its status and times in
# $state/ID.done, its name and log in $state/ID.name and .log). Its
# variables are its own (r_*): the loop's name and log are not touched.
report() {
    read -r r_status r_t0 r_t1 <"$state/$1.done"
    r_name=$(cat "$state/$1.name")
    r_log=$(cat "$state/$1.log")
    case $r_status in
    0)
        printf 'PASS  %-24s (%s)\n' "$r_name" "$(elapsed "$r_t0" "$r_t1")"
        passed=$((passed + 1)) ;;
    77)
        printf 'SKIP  %-24s %s\n' "$r_name" "$(tail -n 1 "$r_log")"
        skipped=$((skipped + 1)) ;;
    *)
        printf 'FAIL  %-24s (exit %d, %s; log: %s)\n' "$r_name" "$r_status" \
            "$(elapsed "$r_t0" "$r_t1")" "$r_log"
        tail -n 40 "$r_log" | sed 's/^/      /'
        failed=$((failed + 1))
        failures="$failures $r_name" ;;
    esac
}

# reap: reports the tests that have ended since the last call.
reap() {
    left=""
    for id in $pending; do
        if [ -f "$state/$id.done" ]; then
            report "$id"
            running=$((running - 1))
        else
            left="$left $id"
        fi
    done
    pending=$left
}

# wait_for N: until at most N tests run.
wait_for() {
    reap
    while [ "$running" -gt "$1" ]; do
        sleep 0.2
        reap
    done
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
    case $kind in solo | gpu) wait_for 0 ;; *) wait_for $((jobs - 1)) ;; esac
    seq=$((seq + 1))
    printf '%s\n' "$name" >"$state/$seq.name"
    printf '%s\n' "$log" >"$state/$seq.log"
    (
        t0=$(now)
        sh -c "$what" >"$log" 2>&1 </dev/null
        status=$?
        echo "$status $t0 $(now)" >"$state/$seq.done.tmp" && mv "$state/$seq.done.tmp" "$state/$seq.done"
    ) </dev/null &
    pending="$pending $seq"
    running=$((running + 1))
    case $kind in solo | gpu) wait_for 0 ;; esac
done <"$manifest"
wait_for 0
wait

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
