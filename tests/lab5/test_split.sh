#!/bin/sh
# test_split.sh - lab5 graded apart from the submission (LAB5_SPLIT=1:
# grading/lab5/calls.c), on a machine without a GPU: a grader built with
# CUDA_STANDIN=1, where the CUDA runtime and cuBLASLt are
# tests/lab5/cuda_standin.c and a submission's "kernels" are host code.
#
# It grades, on a selection of tests, a correct classmate (tests/lab5/
# classmate: full marks) twice, and hostile submissions, each the
# classmate with its lab5_amax replaced by one of tests/lab5/hostile/*.cu:
#   - start-up hooks: a static object's constructor, an indirect function's
#     resolver, a second relocation of nvcc's .init_array slot, a weak
#     definition of a name libstdc++ exports (refused at build, an early
#     check);
#   - threads left spinning to slow the judge's own baseline; a GEMM right
#     only where a fixed seed would sample it; an answer kept from an
#     untimed call and given again while timed;
#   - result lines forged on every descriptor, then an exit; the seed
#     looked for in the subject's environment (none: full marks);
#   - forged replies on the channel, an early reply while being timed, a
#     slow amax (only the performance tiers lost), a file opened and a
#     process started from a lab function (stopped by the filter, by name).
# The GPU's own behaviour (the CUDA runtime under the filters, the timing of
# real kernels) is not what this shows: that needs a GPU (INSTRUCTORS.md).
#
#   FP8LAB_BUILD=build sh tests/lab5/test_split.sh
set -u
ROOT=$(pwd)
B=${FP8LAB_BUILD:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. tests/grading/lib.sh

if ! grep -Eq '^(override )?NVCC := .' "$B/config.mk" 2>/dev/null ||
    ! grep -Eq '^(override )?CUDA_INC := .' "$B/config.mk" 2>/dev/null; then
    echo "test_split (lab5): skipped: nvcc or cuda_fp8.h not found, so lab5 is not built"
    exit 77
fi
# The stand-in grader, in a folder of its own beside the build (kept from
# one run to the next), with nothing of an enclosing make; under the
# sanitizers when the build is (its judge is; a subject never is). It builds
# submissions for one GPU family, 7.5 (FP8LAB_GPU_CC), not the three a
# build without a GPU checks: their device code never runs here (a kernel is
# host code), and nvcc takes half the time.
san=0 G=$B/standin/bin/grader
case $B in */sanitize) san=1 G=$B/standin/sanitize/bin/grader ;; esac
(unset MAKEFLAGS MFLAGS MAKELEVEL SANITIZE
 FP8LAB_GPU_CC=75 make -s --no-print-directory BUILD="$B/standin" SANITIZE=$san LAB5_SPLIT=1 CUDA_STANDIN=1 \
     WERROR=1 grader-lab5 >"$TMP/make.log" 2>&1) || {
    tail -n 30 "$TMP/make.log"
    echo "test_split: FAIL: the stand-in grader did not build"
    exit 1
}

# A compute capability left by an earlier run that stopped half way
# (below: what each GPU grades) would skip tests here.
rm -f "$(dirname "$G")/standin_cc"

SUBS=$TMP/class
for id in good1 good2; do
    mkdir -p "$SUBS/$id"
    cp tests/lab5/classmate/kernels.cu tests/lab5/classmate/gemm.cu "$SUBS/$id/"
done
# Each fragment replaces the classmate's lab5_amax (renamed good_amax), or,
# gemm_*.cu, its tensor-core GEMMs.
for frag in tests/lab5/hostile/*.cu; do
    id=$(basename "$frag" .cu)
    mkdir -p "$SUBS/$id"
    case $id in
    gemm_*)
        cp tests/lab5/classmate/kernels.cu "$SUBS/$id/"
        sed '/^GEMM(lab5_gemm_\(mma\|wgmma_tile\|wgmma\),/d' tests/lab5/classmate/gemm.cu \
            >"$SUBS/$id/gemm.cu"
        cat "$frag" >>"$SUBS/$id/gemm.cu"
        ;;
    *)
        cp tests/lab5/classmate/gemm.cu "$SUBS/$id/"
        sed 's/^extern "C" cudaError_t lab5_amax(/static cudaError_t good_amax(/' \
            tests/lab5/classmate/kernels.cu >"$SUBS/$id/kernels.cu"
        sed -e "s|@ROOT@|$ROOT|g" -e "s|@SUBS@|$SUBS|g" "$frag" >>"$SUBS/$id/kernels.cu"
        ;;
    esac
done

TESTS=builds,amax,amax_special,cast_tail,perf_amax_50,perf_amax_85
SEED=split-s3cr3t-$$
# grade ID: its report, in $TMP/ID.json; two at a time, the next started as
# soon as one ends (xargs -P 2), starve, the slowest, first.
# starve's amax takes 5 s a call by design while its fifteen threads spin:
# its tests take 12 s of their 60 s alone, and timed out with another make
# test at work beside them; only its message is checked, so its limits are
# four times the others'.
cat >"$TMP/grade.sh" <<'EOF'
tests=$TESTS mult=${CK_TIMEOUT_MULTIPLIER:-1}
case $1 in gemm_*) tests=perf_gemm_10 ;; starve) mult=$(awk -v m="$mult" 'BEGIN { print 4 * m }') ;; esac
CK_TIMEOUT_MULTIPLIER=$mult "$G" lab5 --dir "$SUBS/$1" --test "$tests" --seed "$SEED" -v \
    --format json -o "$TMP/$1.json" >"$TMP/$1.out" 2>&1
exit 0
EOF
export G SUBS TMP TESTS SEED
{ ls "$SUBS" | grep -x starve; ls "$SUBS" | grep -vx starve; } | xargs -P 2 -n 1 sh "$TMP/grade.sh"

# ---- what each GPU grades: compute capabilities 7.5 to 9.0 -----------------------
# The stand-in's gpuprobe names the compute capability in $B/standin/bin/
# standin_cc. The classmate, with tensor-core GEMMs that return at once
# with an error (a test that runs them fails fast; one that is skipped
# shows it was not run): below 8.9 those tests, cuBLASLt FP8's and the GEMM
# tier are SKIPPED by name with what they need, and wgmma's everywhere but
# on 9.0; the rest is graded as on Hopper; the exit status is 3 where
# something was skipped and nothing failed.
P=$(dirname "$G")
mkdir -p "$SUBS/../capability"
CAP=$SUBS/../capability
cp tests/lab5/classmate/kernels.cu "$CAP/"
sed '/^GEMM(lab5_gemm_\(mma\|wgmma_tile\|wgmma\),/d' tests/lab5/classmate/gemm.cu >"$CAP/gemm.cu"
printf '%s\n' 'GEMM(lab5_gemm_mma, refuse)' 'GEMM(lab5_gemm_wgmma_tile, refuse)' \
    'GEMM(lab5_gemm_wgmma, refuse)' >>"$CAP/gemm.cu"
sed -i 's/^#define GEMM(name, how)/static cudaError_t refuse(const uint8_t *A, const uint8_t *B, const float *sa,\
                          const float *sb, float *D, int M, int N, int K)\
{\
    (void)A, (void)B, (void)sa, (void)sb, (void)D, (void)M, (void)N, (void)K;\
    return cudaErrorNotSupported;\
}\
\
#define GEMM(name, how)/' "$CAP/gemm.cu"
# gemm_naive is the test every GPU grades (the cheapest here); from 8.9 on,
# where cuBLASLt FP8's test is not skipped, it is left out: it would run the
# classmate's host GEMMs, and nothing here needs them. Under the sanitizers
# (the judge and the grader sanitized, several times slower) 7.5 and 9.0,
# the two ends.
CAP_TESTS=builds,gemm_naive,gemm_mma,gemm_wgmma_tile,gemm_cublaslt_fp8,perf_gemm_10
status() { jq -r --arg t "$2" '.tests[] | select(.name == $t) | .status' "$TMP/cc$1.json"; }
ccs="7.5 8.0 8.6 8.9 9.0"
[ $san = 1 ] && ccs="7.5 9.0"
for cc in $ccs; do
    echo "$cc" >"$P/standin_cc"
    tests=$CAP_TESTS
    case $cc in 8.9 | 9.0) tests=builds,gemm_naive,gemm_mma,gemm_wgmma_tile,perf_gemm_10 ;; esac
    # 8.0 with the instructor's --reweight-skipped: the points graded are
    # scaled to the selection's, so the classmate has full marks, and the
    # exit status still says something was skipped.
    rw=""
    [ "$cc" = 8.0 ] && rw=--reweight-skipped
    "$G" lab5 --dir "$CAP" --test "$tests" --format json -o "$TMP/cc$cc.json" $rw \
        >"$TMP/cc$cc.out" 2>&1
    rc=$?
    [ "$cc" = 7.5 ] && "$G" lab5 --dir "$CAP" --test "$tests" >"$TMP/cc$cc.txt" 2>&1
    expect_eq "compute capability $cc: gemm_naive graded" "$(status "$cc" gemm_naive)" pass
    case $cc in
    7.5 | 8.0 | 8.6)
        expect_eq "compute capability $cc: exit status (skipped, none failed)" "$rc" 3
        for t in gemm_mma gemm_cublaslt_fp8 perf_gemm_10 gemm_wgmma_tile; do
            expect_eq "compute capability $cc: $t" "$(status "$cc" $t)" skipped
        done
        expect_match "compute capability $cc: why gemm_mma" \
            "$(jq -r '.tests[] | select(.name == "gemm_mma") | .message' "$TMP/cc$cc.json")" \
            "^needs compute capability 8.9 or later \(mma.sync with E4M3 operands\); this GPU is $cc"
        points=$(jq '[.tests[] | select(.status != "skipped") | .max_points] | add' "$TMP/cc$cc.json")
        if [ "$cc" = 8.0 ]; then
            expect_eq "compute capability 8.0, --reweight-skipped: score, points graded" \
                "$(jq -r '"\(.score == .max_score) \(.reweighted.graded_score) \(.reweighted.graded_max)"' \
                    "$TMP/cc$cc.json")" "true $points $points"
        else
            expect_eq "compute capability $cc: the points graded, not re-weighted" \
                "$(jq -r '"\(.score) \(has("reweighted"))"' "$TMP/cc$cc.json")" "$points false"
        fi
        [ "$cc" = 7.5 ] && {
            expect_match "compute capability 7.5: scorecard, wgmma" "$(cat "$TMP/cc7.5.txt")" \
                "Why \(gemm_wgmma_tile\): needs compute capability 9.0 \(wgmma and TMA"
            expect_match "compute capability 7.5: scorecard, cuBLASLt" "$(cat "$TMP/cc7.5.txt")" \
                "Why \(gemm_cublaslt_fp8\): needs compute capability 8.9 or later \(cuBLASLt's FP8"
            expect_match "compute capability 7.5: points not graded" "$(cat "$TMP/cc7.5.txt")" \
                "4 of 6 tests SKIPPED, not passed: 22 points were not graded here"
        }
        ;;
    8.9)
        expect_eq "compute capability 8.9: exit status (the refusals fail)" "$rc" 1
        expect_eq "compute capability 8.9: gemm_mma run" "$(status 8.9 gemm_mma)" fail
        expect_eq "compute capability 8.9: perf_gemm_10 run" "$(status 8.9 perf_gemm_10)" fail
        expect_eq "compute capability 8.9: gemm_wgmma_tile" "$(status 8.9 gemm_wgmma_tile)" skipped
        expect_match "compute capability 8.9: why wgmma" \
            "$(jq -r '.tests[] | select(.name == "gemm_wgmma_tile") | .message' "$TMP/cc8.9.json")" \
            "^needs compute capability 9.0 \(wgmma and TMA"
        ;;
    9.0)
        expect_eq "compute capability 9.0: exit status" "$rc" 1
        for t in gemm_mma gemm_wgmma_tile perf_gemm_10; do
            expect_eq "compute capability 9.0: $t run" "$(status 9.0 $t)" fail
        done
        ;;
    esac
done
rm -f "$P/standin_cc"


score() { jq -r '"\(.score)/\(.max_score)"' "$TMP/$1.json" 2>/dev/null; }
not_passed() {
    jq -r '[.tests[] | select(.status != "pass") | .name] | join(" ")' "$TMP/$1.json" 2>/dev/null
}
message_of() { jq -r --arg t "$2" '.tests[] | select(.name == $t) | .message' "$TMP/$1.json"; }
output_of() { jq -r --arg t "$2" '.tests[] | select(.name == $t) | .output // ""' "$TMP/$1.json"; }
# graded ID SCORE TESTS PATTERN: the score, the tests that did not pass, and
# the first one's message.
graded() {
    expect_eq "$1: score" "$(score "$1")" "$2/20"
    expect_eq "$1: tests hit" "$(not_passed "$1")" "$3"
    [ -n "$3" ] && expect_match "$1: message" "$(message_of "$1" "${3%% *}")" "$4"
}
graded good1 20 "" ""
graded good2 20 "" ""
amax_calls="amax amax_special perf_amax_50 perf_amax_85"
graded seed_leak 6 "$amax_calls" "expected"
seen=$(output_of seed_leak amax)
expect_match "seed_leak: its output shows no seed" "$seen" "^seed: \\(none\\)"
expect_eq "seed_leak: its environment is the grader's short list" \
    "$(printf '%s\n' "$seen" | sed -n 's/^env: \([A-Z_]*\)=.*/\1/p' | sort | tr '\n' ' ')" \
    "LC_ALL OMP_NUM_THREADS OPENBLAS_NUM_THREADS "
graded forge_results 6 "$amax_calls" "exited early with status 0|(lab5_amax did not answer as the subject does)"
graded forge_reply 6 "$amax_calls" "did not answer as the subject does"
graded early_reply 16 "perf_amax_50 perf_amax_85" "did not answer as the subject does"
graded slow 16 "perf_amax_50 perf_amax_85" "of a device-to-device copy .* this tier needs 50%"
# an answer kept from an untimed call: each timed batch has inputs of its own
graded memo 16 "perf_amax_50 perf_amax_85" "what a timed batch of runs left is not right"
# threads that slow the judge's own baseline: stopped while it is timed
graded starve 16 "perf_amax_50 perf_amax_85" "of a device-to-device copy .* this tier needs 50%"
expect_eq "gemm_sampled: score" "$(score gemm_sampled)" "0/2"
expect_match "gemm_sampled: not timed" "$(message_of gemm_sampled perf_gemm_10)" \
    "lab5_gemm_mma: not timed: wrong at [0-9]+ of 4096 sampled elements"
graded raw_open 6 "$amax_calls" "^forbidden system call: openat, in lab5_amax"
graded fork 6 "$amax_calls" "^forbidden system call: clone, in lab5_amax"
# refused ID PATTERN: no build, the build log says why.
refused() {
    expect_eq "$1: refused at build" "$(jq -r .build_ok "$TMP/$1.json")" "false"
    expect_match "$1: the build log says why" "$(jq -r .build_log "$TMP/$1.json")" "$2"
}
refused weak_interpose "__throw_bad_alloc.*(libstdc\\+\\+|librar)"
refused ctor_forge "constructor"
refused ifunc_hook "indirect function"
refused init_reloc "a relocation of .init_array other than nvcc's own"
expect_eq "no report says the grader erred" \
    "$(grep -l 'grader error' "$TMP"/*.json | wc -l | tr -d ' ')" 0
expect_eq "no report holds the seed" "$(grep -l -- "$SEED" "$TMP"/*.json | wc -l | tr -d ' ')" 0
# The timing is the judge's: the round trip is in the message of a tier
# missed, and under 2% of a batch.
rtt=$(message_of slow perf_amax_85)
expect_match "slow: timed as the judge times" "$rtt" "one run, too slow to repeat|timed from the judge"

echo "test_split: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
