#!/bin/sh
# test_gpu_report.sh - tests/gpu/report.sh (the gpu-report) where it can be
# checked without a GPU: it runs, says why it skipped and exits 77 having
# written the report's first lines; and each step's command, as its header
# lists them, is the one the lab5 handout gives (README §9). With a GPU
# this test does not run the report (8 minutes): it only checks the
# commands, and passes.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/lab5/test_gpu_report.sh
set -u
B=${FP8LAB_BUILD:-build}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. tests/grading/lib.sh

# Each "#   N. command" line of the script's header must be in the handout,
# with BUILD written as build.
sed -n 's/^#   [0-9]\. //p' tests/gpu/report.sh >"$TMP/steps"
expect_eq "report.sh: nine steps listed" "$(wc -l <"$TMP/steps" | tr -d ' ')" 9
while IFS= read -r step; do
    for cmd in $(printf '%s\n' "$step" | sed 's/, /\n/g; s/BUILD/build/g' | tr ' ' '\001'); do
        cmd=$(printf '%s' "$cmd" | tr '\001' ' ' | sed 's/ for each .*//')
        if grep -qF -- "$cmd" labs/lab5/README.md; then ok; else bad "handout lacks: $cmd"; fi
    done
done <"$TMP/steps"

if [ ! -x "$B/bin/gpuprobe" ]; then
    echo "test_gpu_report: $passed passed, $failed failed; the run skipped: nvcc not found"
    [ "$failed" = 0 ] || exit 1
    exit 77
fi
if "$B/bin/gpuprobe" >/dev/null 2>&1; then
    echo "test_gpu_report: $passed passed, $failed failed; a GPU is here: run make gpu-report"
    [ "$failed" = 0 ] || exit 1
    exit 0
fi
if [ ! -x "$B/tests/gpu_test_fp8_device" ] || [ ! -x "$B/tests/gpu_test_cublaslt_align" ] ||
    [ ! -x "$B/solutions/lab5/lab5" ]; then
    # Not built here (the GPU tests are built only with a GPU): the report
    # says which file is missing and stops at step 0.
    sh tests/gpu/report.sh "$B" ./grader "$TMP/report.txt" >"$TMP/out" 2>&1
    rc=$?
    expect_eq "report without its programs: exit status" "$rc" 1
    expect_match "report without its programs: says which" "$(cat "$TMP/out")" \
        "gpu-report: .* is not built"
else
    sh tests/gpu/report.sh "$B" ./grader "$TMP/report.txt" >"$TMP/out" 2>&1
    rc=$?
    expect_eq "report without a GPU: exit status" "$rc" 77
    expect_match "report without a GPU: says why" "$(cat "$TMP/out")" "gpu-report: skipped: no GPU"
    expect_match "report without a GPU: the report file" "$(cat "$TMP/report.txt")" \
        "gpu-report: skipped: no GPU"
fi
echo "test_gpu_report: $passed passed, $failed failed"
[ "$failed" = 0 ] || exit 1
exit 0
