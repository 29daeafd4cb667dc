#!/bin/sh
# test_grading.sh - lab5 in the grader: what holds on every machine with
# nvcc, and what a GPU adds.
#
# Everywhere (nvcc, no GPU needed):
#   - the reference solution and the skeleton build: `builds` passes, every
#     GPU test is SKIPPED (never passed, no points) and the exit status is 3
#     where there is no GPU;
#   - a syntax error is reported at once, from nvcc, with every test NOT RUN
#     (a student without a GPU learns of it);
#   - what no submission may do in a .cu file is refused at build time: a
#     kernel with a global name, a definition of a name that libc,
#     libstdc++, libcudart or libcublasLt exports (even a weak one, as a
#     header's inline functions are), an object with a constructor at file scope,
#     opening a file, calling the course library (CPU code) instead of a
#     kernel;
#   - every mutant in tests/lab5/mutants still applies and builds;
#   - `./grader --batch` grades lab5 as it grades one submission at a time
#     (the reference and the skeleton; with a GPU two mutants too): the same
#     scores, and tests SKIPPED for want of a GPU are no error.
# With a GPU (gpuprobe says so): the solution passes every correctness test,
# the skeleton none, and each mutant loses the points of the tests aimed at
# it ("expect-fail:" in its patch); besides those, only the tests its
# "may-fail:" line names, and perf_* tests, may fail. Without one, this
# script ends with status 77 (skipped) after the checks above.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/lab5/test_grading.sh
set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
B=${FP8LAB_BUILD:-build}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. tests/grading/lib.sh

if [ ! -x "$B/bin/gpuprobe" ]; then
    echo "test_grading (lab5): skipped: nvcc not found, so lab5 is not built"
    exit 77
fi
if "$B/bin/gpuprobe" >"$TMP/probe" 2>&1; then gpu=1; else gpu=0; fi

# grade_to NAME: grades $TMP/NAME into $TMP/NAME.json, its exit status in
# $TMP/NAME.rc. graded NAME: that report as $TMP/r.json, its status as $rc.
grade_to() {
    "$GRADER" lab5 --dir "$TMP/$1" --format json >"$TMP/$1.json" 2>"$TMP/$1.err"
    echo $? >"$TMP/$1.rc"
}
graded() { cp "$TMP/$1.json" "$TMP/r.json"; rc=$(cat "$TMP/$1.rc"); }
status_of() { jq -r --arg n "$1" '.tests[] | select(.name == $n) | .status' "$TMP/r.json"; }
# The statuses of the GPU tests, one word each, sorted and unique.
gpu_statuses() { jq -r '[.tests[] | select(.name != "builds") | .status] | unique | join(" ")' \
    "$TMP/r.json"; }
# The tests that did not pass and are not performance tiers.
failed_correctness() { jq -r '[.tests[] | select(.status != "pass" and
    (.name | startswith("perf_") | not)) | .name] | sort | join(" ")' "$TMP/r.json"; }

copy_solution() { rm -rf "$1" && mkdir -p "$1" && cp solutions/lab5/*.cu "$1"/; }

# ---- the submissions ---------------------------------------------------------------
# Every folder first, then every grading: without a GPU, where only `builds`
# is graded (nvcc's work, one core each), two at a time, each into its own
# report; with one, one at a time (the performance tiers time the GPU).

copy_solution "$TMP/sol"
mkdir -p "$TMP/skel" && cp labs/lab5/*.cu "$TMP/skel"/
# Refused at build time, GPU or not.
copy_solution "$TMP/syntax"
printf 'cudaError_t lab5_broken(void) { return cudaSuccess }\n' >>"$TMP/syntax/kernels.cu"
copy_solution "$TMP/global"
printf '__global__ void stray_kernel(float *x) { x[0] = 1.0f; }\n' >>"$TMP/global/gemm.cu"
# A weak definition of a name libstdc++ exports (here one its own code calls
# when an allocation fails): the program's definition comes first, so the
# library would run the submission's code, before main too.
copy_solution "$TMP/interpose"
printf 'namespace std {\n__attribute__((weak)) void __throw_bad_alloc() { for (;;) { } }\n}\n' \
    >>"$TMP/interpose/kernels.cu"
copy_solution "$TMP/ctor"
printf '#include <cstdio>\nnamespace { struct Hello { Hello() { std::puts("hi"); } } hello; }\n' \
    >>"$TMP/ctor/kernels.cu"
copy_solution "$TMP/fopen"
printf '#include <cstdio>\nextern "C" int lab5_peek(void) { return std::fopen("/etc/passwd", "r") != 0; }\n' \
    >>"$TMP/fopen/kernels.cu"
copy_solution "$TMP/cpu"
printf 'extern "C" float lab5_cpu_amax(const float *x, size_t n) { return stats_amax(x, n, 0); }\n' \
    >>"$TMP/cpu/kernels.cu"
sed -i 's|#include "lab5.h"|#include "lab5.h"\n#include "stats.h"|' "$TMP/cpu/kernels.cu"
# The mutants.
count=0
: >"$TMP/mutants"
for patch in tests/lab5/mutants/*.patch; do
    [ -f "$patch" ] || continue
    name=$(basename "$patch" .patch)
    count=$((count + 1))
    copy_solution "$TMP/m-$name"
    if ! patch -s -d "$TMP/m-$name" -p1 <"$patch" >"$TMP/patch.log" 2>&1; then
        bad "mutant $name: the patch no longer applies to solutions/lab5"
        continue
    fi
    echo "$name" >>"$TMP/mutants"
done

# The solution's scorecard, as a student sees it (a job among the others).
scorecard() { "$GRADER" lab5 --solution >"$TMP/scorecard.txt" 2>&1; }
jobs="sol skel syntax global interpose ctor fopen cpu $(sed 's/^/m-/' "$TMP/mutants" | tr '\n' ' ')"
[ $gpu = 0 ] && jobs="$jobs scorecard"
# shellcheck disable=SC2086
set -- $jobs
while [ $# -gt 0 ]; do
    if [ $gpu = 1 ]; then grade_to "$1"; shift; continue; fi
    for job in "$1" "${2:-}"; do
        [ -n "$job" ] || continue
        if [ "$job" = scorecard ]; then scorecard & else grade_to "$job" & fi
    done
    wait
    shift; [ $# -gt 0 ] && shift
done

# ---- the solution and the skeleton ---------------------------------------------

graded sol
sol_score=$(jq -r .score "$TMP/r.json")
expect_eq "solution: builds" "$(status_of builds)" pass
if [ $gpu = 0 ]; then
    expect_eq "solution without a GPU: exit status" "$rc" 3
    expect_eq "solution without a GPU: the GPU tests" "$(gpu_statuses)" skipped
    expect_eq "solution without a GPU: score" "$(jq -r .score "$TMP/r.json")" 2
    expect_match "solution without a GPU: why" "$(jq -r '.tests[1].message' "$TMP/r.json")" \
        "it needs a GPU, and the tests found none they can use: no GPU"
    out=$(cat "$TMP/scorecard.txt")
    expect_match "scorecard: SKIP lines" "$out" "SKIP  gemm_wgmma"
    expect_match "scorecard: the summary" "$out" "29 of 30 tests SKIPPED, not passed"
    expect_match "scorecard: why, once" "$(printf '%s\n' "$out" | grep -c 'needs a GPU')" "^1$"
else
    expect_eq "solution on $(cat "$TMP/probe"): correctness tests that failed" \
        "$(failed_correctness)" ""
fi

graded skel
skel_score=$(jq -r .score "$TMP/r.json")
expect_eq "skeleton: builds" "$(status_of builds)" pass
if [ $gpu = 0 ]; then
    expect_eq "skeleton without a GPU: exit status" "$rc" 3
else
    expect_eq "skeleton: score" "$(jq -r .score "$TMP/r.json")" 2
fi

# ---- refused at build time, GPU or not -----------------------------------------

graded syntax
expect_eq "syntax error: exit status" "$rc" 1
expect_eq "syntax error: build_ok" "$(jq -r .build_ok "$TMP/r.json")" false
expect_eq "syntax error: every test" "$(jq -r '[.tests[].status] | unique | join(" ")' \
    "$TMP/r.json")" not_run
expect_match "syntax error: nvcc's message" "$(jq -r .build_log "$TMP/r.json")" \
    "kernels.cu\(.*\): error"

graded global
expect_eq "a global kernel: build_ok" "$(jq -r .build_ok "$TMP/r.json")" false
expect_match "a global kernel: named" "$(jq -r .build_log "$TMP/r.json")" \
    "gemm.cu: defines _Z12stray_kernelPf, a global name: only lab5_\* functions"

graded interpose
expect_eq "a library's name: build_ok" "$(jq -r .build_ok "$TMP/r.json")" false
expect_match "a library's name: named" "$(jq -r .build_log "$TMP/r.json")" \
    "kernels.cu: defines _ZSt17__throw_bad_allocv, a name that a library the program is linked with exports"

graded ctor
expect_eq "a constructor: build_ok" "$(jq -r .build_ok "$TMP/r.json")" false
expect_match "a constructor: named" "$(jq -r .build_log "$TMP/r.json")" \
    "kernels.cu: has an object with a constructor or destructor at file scope"

graded fopen
expect_eq "fopen: build_ok" "$(jq -r .build_ok "$TMP/r.json")" false
expect_match "fopen: named" "$(jq -r .build_log "$TMP/r.json")" "kernels.cu: uses fopen"

graded cpu
expect_eq "the course library: build_ok" "$(jq -r .build_ok "$TMP/r.json")" false
expect_match "the course library: named" "$(jq -r .build_log "$TMP/r.json")" \
    "kernels.cu: uses stats_amax, which lab5 does not allow"

# ---- the mutants ------------------------------------------------------------------

while read -r name; do
    patch=tests/lab5/mutants/$name.patch
    want=$(sed -n 's/^expect-fail: *//p' "$patch" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
    want=${want% }
    may=$(sed -n 's/^may-fail: *//p' "$patch")
    graded "m-$name"
    echo "$name $(jq -r .score "$TMP/r.json")" >>"$TMP/mutant_scores"
    expect_eq "mutant $name: builds" "$(status_of builds)" pass
    if [ $gpu = 1 ]; then
        # Every test aimed at it fails; any other correctness test that fails
        # is one the patch says may (a race, say, loses only sometimes).
        failing=$(failed_correctness)
        for t in $want; do
            case " $failing " in *" $t "*) ok ;; *) bad "mutant $name: $t passed" ;; esac
        done
        for t in $failing; do
            case " $want $may " in *" $t "*) ok ;; *) bad "mutant $name: $t failed too" ;; esac
        done
        lost=$(jq -r --arg w "$want" '($w | split(" ")) as $t
            | [.tests[] | select(.name as $n | $t | index($n)) | .points] | add // 0' "$TMP/r.json")
        expect_eq "mutant $name: points left on the tests aimed at it" "$lost" 0
    fi
done <"$TMP/mutants"
[ "$count" -ge 5 ] && ok || bad "only $count mutants in tests/lab5/mutants (the lab asks for 5)"

# ---- --batch: the same scores as one at a time --------------------------------------
# The reference and the skeleton (and, with a GPU, two mutants) as a class:
# each student's score is the one graded alone above, and the GPU tests that
# were SKIPPED (no GPU) are neither an error nor a most-failed test.
mkdir -p "$TMP/class"
cp -r "$TMP/sol" "$TMP/class/reference" && cp -r "$TMP/skel" "$TMP/class/skeleton"
printf 'reference %s\nskeleton %s\n' "$sol_score" "$skel_score" >"$TMP/want_scores"
if [ $gpu = 1 ]; then
    head -n 2 "$TMP/mutant_scores" | while read -r name score; do
        cp -r "$TMP/m-$name" "$TMP/class/$name" && echo "$name $score" >>"$TMP/want_scores"
    done
fi
"$GRADER" --batch "$TMP/class" lab5 -j 2 --csv "$TMP/class.csv" >"$TMP/batch.out" 2>&1
expect_eq "batch: exit status" "$?" 0
while read -r who want; do
    expect_eq "batch: $who's score, as graded alone" "$(field "$TMP/class.csv" "$who" 2)" "$want"
done <"$TMP/want_scores"
if [ $gpu = 0 ]; then
    expect_match "batch without a GPU: the summary" "$(cat "$TMP/batch.out")" \
        "none failed; 2 had tests SKIPPED"
fi

echo "test_grading (lab5): $passed passed, $failed failed"
[ "$failed" = 0 ] || exit 1
if [ $gpu = 0 ]; then
    echo "test_grading (lab5): the GPU half skipped: $(cat "$TMP/probe")"
    exit 77
fi
exit 0
