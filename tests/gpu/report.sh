#!/bin/sh
# report.sh - everything lab5 needs checked on a GPU, in one run, into one
# text report (make gpu-report): the device (name, driver, CUDA, clocks),
# the reference solution through the grader (each test's time), the
# benchmark (the memory-bound kernels as a fraction of a device-to-device
# copy, the GEMMs as a fraction of cuBLASLt, from one run), cuBLASLt with a
# misaligned scale, hidden inputs, the skeleton, every mutant, a class
# graded with --batch, and the course's device conversions. Meant to finish
# within 8 minutes on an H100 or H200: GPU time comes in short slots.
#
# Steps, in order, the most wanted first; every step runs, whatever the
# ones before it did, each under a time limit of its own, and the last
# lines name those that failed (exit status 1); without a GPU it says so and
# exits 77, having run nothing. It needs what grading needs (the grader's
# Debian packages, nvcc) and `patch` for the mutants; gnuplot is optional
# (without it the benchmark's plots are left as data and scripts, and it
# says so). The commands are those of the lab5 handout (§9, §10):
#   1. gpuprobe, nvidia-smi
#   2. ./grader lab5 --solution
#   3. BUILD/solutions/lab5/lab5 --bench --no-preview -o BUILD/solutions/lab5/bench
#   4. BUILD/tests/gpu_test_cublaslt_align
#   5. ./grader lab5 --solution --seed S --test NAMES
#   6. ./grader lab5 --dir COPY
#   7. ./grader lab5 --dir COPY --test NAMES for each mutant in tests/lab5/mutants
#   8. ./grader --batch DIR lab5 -j 1
#   9. BUILD/tests/gpu_test_fp8_device
# (5: the tests that draw hidden inputs; 6: a copy of the skeleton; 8: the
# reference, the skeleton and two mutants as a class.)
#
#   sh tests/gpu/report.sh BUILD GRADER REPORT
# BUILD: the build folder (make BUILD=...), GRADER: the ./grader script
# (run with BUILD in its environment), REPORT: the text file to write.
set -u
B=${1:?usage: report.sh BUILD GRADER REPORT}
GRADER=${2:?usage: report.sh BUILD GRADER REPORT}
REPORT=${3:?usage: report.sh BUILD GRADER REPORT}
export BUILD="$B"
TMP=$(mktemp -d) || exit 1
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT INT TERM
# Mutants graded at once in step 7 (each its own GPU context; their tests
# are correctness tests, which do not time anything).
PARALLEL=${FP8LAB_REPORT_PARALLEL:-4}

say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
failed_steps=""
fail() {
    say "FAILED: step $1: $2"
    case " $failed_steps " in *" $1 "*) ;; *) failed_steps="$failed_steps $1" ;; esac
}
# limited SECONDS COMMAND...: the command, killed past its limit (exit 124).
limited() {
    s=$1
    shift
    if command -v timeout >/dev/null 2>&1; then timeout -k 5 "$s" "$@"; else "$@"; fi
}

# tap_results FILE: one line per test of a TAP scorecard: NAME STATUS WHY,
# WHY "timeout" when the test ran out of time, "fault" when it crashed,
# "-" otherwise.
tap_results() {
    awk '
        /^(not )?ok [0-9]+ - / {
            if (name != "") print name, status, why
            status = ($1 == "ok") ? "pass" : "fail"
            name = ($1 == "ok") ? $4 : $5
            why = "-"
            next
        }
        /^  status: / { if ($2 == "skipped") status = "skip" }
        /timed out|Test timeout expired/ { why = "timeout" }
        /crashed|signal|Segmentation|illegal|fault/ { if (why == "-") why = "fault" }
        END { if (name != "") print name, status, why }
    ' "$1"
}

: >"$REPORT" || exit 1
say "gpu-report: lab5 on a GPU, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
for f in "$B/bin/gpuprobe" "$B/tests/gpu_test_fp8_device" "$B/tests/gpu_test_cublaslt_align" \
    "$B/solutions/lab5/lab5"; do
    [ -x "$f" ] || { say "gpu-report: $f is not built (make BUILD=$B gpu-report builds it)"; exit 1; }
done
if ! probe=$("$B/bin/gpuprobe" 2>&1); then
    say "gpu-report: skipped: $probe"
    exit 77
fi
start=$(now)

# ---- 1. the device ----------------------------------------------------------------
say ""
say "== 1. the device: gpuprobe, nvidia-smi"
say "$probe"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw,power.limit,ecc.mode.current \
        --format=csv >>"$REPORT" 2>&1 || fail 1 "nvidia-smi --query-gpu failed"
    nvidia-smi >>"$REPORT" 2>&1 || fail 1 "nvidia-smi failed"
else
    fail 1 "nvidia-smi not found: the report needs the driver's version and the clocks"
fi
nvcc=$(sed -n 's/^\(override \)\{0,1\}NVCC := //p' "$B/config.mk" 2>/dev/null)
[ -n "$nvcc" ] && say "nvcc: $("$nvcc" --version 2>/dev/null | tail -n 2 | tr '\n' ' ')"
say "host: $(uname -srm), $(nproc) cores; cc: $(sed -n 's/^# cc: //p' "$B/config.mk")"
say "course: commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git status --porcelain 2>/dev/null | grep -q . && echo ', with changes not committed')"

# ---- 2. the reference solution through the grader ------------------------------------
say ""
say "== 2. ./grader lab5 --solution (as TAP: each test's points and time)"
t=$(now)
limited 300 "$GRADER" lab5 --solution --format tap >"$TMP/sol.tap" 2>"$TMP/sol.err"
rc=$?
cat "$TMP/sol.tap" "$TMP/sol.err" >>"$REPORT"
sol_score=$(sed -n 's/^# Score: \([0-9]*\)\/.*/\1/p' "$TMP/sol.tap")
say "(exit status $rc, $(since "$t"))"
[ "$rc" = 0 ] || fail 2 "the reference solution did not get full marks (exit status $rc)"

# ---- 3. the benchmark ------------------------------------------------------------------
say ""
say "== 3. $B/solutions/lab5/lab5 --bench --no-preview -o $B/solutions/lab5/bench"
command -v gnuplot >/dev/null 2>&1 ||
    say "(no gnuplot here: the plots stay as data and scripts in $B/solutions/lab5/bench; run gnuplot on the .gp files where it is)"
t=$(now)
limited 240 "$B/solutions/lab5/lab5" --bench --no-preview -o "$B/solutions/lab5/bench" >"$TMP/bench" 2>&1
rc=$?
cat "$TMP/bench" >>"$REPORT"
say "(exit status $rc, $(since "$t"))"
[ $rc = 0 ] || fail 3 "the benchmark exited with $rc"

# ---- 4. cuBLASLt and misaligned scales -------------------------------------------------
say ""
say "== 4. $B/tests/gpu_test_cublaslt_align"
t=$(now)
limited 60 "$B/tests/gpu_test_cublaslt_align" >"$TMP/align" 2>&1
rc=$?
cat "$TMP/align" >>"$REPORT"
say "(exit status $rc, $(since "$t"))"
[ $rc = 0 ] || fail 4 "gpu_test_cublaslt_align exited with $rc"

# ---- 5. hidden inputs --------------------------------------------------------------------
# The rubric's list of the tests that draw hidden inputs.
hidden=$(cat grading/lab5/rubric.c 2>/dev/null |
    sed -n 's/.*hidden\[\] = {\(.*\), 0};.*/\1/p' | tr -d '" ' | head -n 1)
say ""
say "== 5. ./grader lab5 --solution --seed gpu-report --test $hidden"
t=$(now)
limited 180 "$GRADER" lab5 --solution --seed gpu-report --test "$hidden" >"$TMP/seed" 2>&1
rc=$?
cat "$TMP/seed" >>"$REPORT"
say "(exit status $rc, $(since "$t"))"
[ $rc = 0 ] || fail 5 "the reference solution lost points with hidden inputs (exit status $rc)"

# ---- 6. the skeleton ----------------------------------------------------------------------
say ""
say "== 6. ./grader lab5 --dir COPY (the skeleton, labs/lab5)"
mkdir -p "$TMP/class/skeleton" && cp labs/lab5/*.cu "$TMP/class/skeleton/"
t=$(now)
limited 240 "$GRADER" lab5 --dir "$TMP/class/skeleton" --format tap >"$TMP/skel.tap" 2>"$TMP/skel.err"
rc=$?
grep -E '^(not )?ok |^# Score' "$TMP/skel.tap" >>"$REPORT"
skel_score=$(sed -n 's/^# Score: \([0-9]*\)\/.*/\1/p' "$TMP/skel.tap")
say "(exit status $rc, $(since "$t"))"
builds_points=$("$GRADER" --list 2>/dev/null | awk '/^lab5 /{on=1; next} /^lab[0-9]/{on=0} on && $1 == "builds" {print $2}')
if [ -z "$skel_score" ] || [ "$skel_score" -gt "${builds_points:-2}" ] || [ $rc = 124 ] || [ $rc = 2 ]; then
    fail 6 "the skeleton scored ${skel_score:-nothing} (at most the ${builds_points:-2} points of builds), exit status $rc"
fi
hung=$(tap_results "$TMP/skel.tap" | awk '$3 == "timeout" { printf " %s", $1 }')
[ -z "$hung" ] || fail 6 "the skeleton hung (timed out) in:$hung"

# ---- 7. every mutant loses its points, each for its own reason ---------------------------
say ""
say "== 7. every lab5 mutant, on the tests its patch names ($PARALLEL at a time)"
if ! command -v patch >/dev/null 2>&1; then
    say "(skipped: no patch command to apply the mutants)"
    fail 7 "patch not found"
else
    t=$(now)
    running=0
    for p in tests/lab5/mutants/*.patch; do
        name=$(basename "$p" .patch)
        want=$(sed -n 's/^expect-fail: *//p' "$p")
        may=$(sed -n 's/^may-fail: *//p' "$p")
        dir="$TMP/m/$name"
        mkdir -p "$dir" && cp solutions/lab5/*.cu "$dir"/
        if ! patch -s -d "$dir" -p1 <"$p" >"$TMP/m/$name.patch.log" 2>&1; then
            echo "does not apply" >"$TMP/m/$name.rc"
            continue
        fi
        tests=$(echo $want $may | tr ' ' ',')
        (limited 240 "$GRADER" lab5 --dir "$dir" --test "$tests" --format tap >"$TMP/m/$name.tap" \
            2>"$TMP/m/$name.err"; echo $? >"$TMP/m/$name.rc"; date +%s.%N >"$TMP/m/$name.end") &
        running=$((running + 1))
        if [ $running -ge "$PARALLEL" ]; then
            wait
            running=0
        fi
    done
    wait
    for p in tests/lab5/mutants/*.patch; do
        name=$(basename "$p" .patch)
        want=$(sed -n 's/^expect-fail: *//p' "$p")
        hang=$(sed -n 's/^expect-hang: *//p' "$p")
        if [ "$(cat "$TMP/m/$name.rc")" = "does not apply" ]; then
            fail 7 "mutant $name: the patch does not apply"
            continue
        fi
        tap_results "$TMP/m/$name.tap" >"$TMP/m/$name.res"
        line="mutant $name:"
        for test in $want; do
            r=$(awk -v n="$test" '$1 == n { print $2, $3 }' "$TMP/m/$name.res")
            case "$r" in
            "fail timeout")
                case " $hang " in
                *" $test "*) line="$line $test lost (a time-out: its hang, as the patch says);" ;;
                *) line="$line $test lost, but to a time-out;"
                   fail 7 "mutant $name: $test failed by a time-out, not for its own reason" ;;
                esac ;;
            "fail fault") line="$line $test lost (a fault);" ;;
            "fail -") line="$line $test lost (a wrong value);" ;;
            *) line="$line $test NOT lost (${r:-not run});"
               fail 7 "mutant $name: $test was not lost (${r:-not run})" ;;
            esac
        done
        others=$(awk -v w=" $want " '$2 == "fail" && index(w, " " $1 " ") == 0 { printf " %s", $1 }' "$TMP/m/$name.res")
        [ -n "$others" ] && line="$line may-fail tests lost too:$others;"
        say "$line"
    done
    say "(mutants: $(since "$t"))"
fi

# ---- 8. a class with --batch: the same scores as one at a time --------------------------
say ""
say "== 8. ./grader --batch DIR lab5 -j 1 (the reference, the skeleton and two mutants)"
mkdir -p "$TMP/class/reference" && cp solutions/lab5/*.cu "$TMP/class/reference/"
picked=""
for p in tests/lab5/mutants/*.patch; do
    name=$(basename "$p" .patch)
    [ -f "$TMP/m/$name.tap" ] && [ -z "$(sed -n 's/^expect-hang: *//p' "$p")" ] || continue
    cp -r "$TMP/m/$name" "$TMP/class/$name" && picked="$picked $name"
    [ "$(echo $picked | wc -w)" -ge 2 ] && break
done
t=$(now)
limited 420 "$GRADER" --batch "$TMP/class" lab5 -j 1 --csv "$TMP/class.csv" >"$TMP/batch" 2>&1
rc=$?
cat "$TMP/batch" >>"$REPORT"
say "(exit status $rc, $(since "$t"))"
[ $rc = 0 ] || fail 8 "the batch exited with $rc"
col() { tr -d '\r' <"$TMP/class.csv" | awk -F, -v id="$1" -v name="$2" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
    $1 == id { print $c }'; }
[ "$(col reference score)" = "$sol_score" ] || fail 8 "batch: the reference scored $(col reference score), alone $sol_score"
[ "$(col skeleton score)" = "$skel_score" ] || fail 8 "batch: the skeleton scored $(col skeleton score), alone $skel_score"
for name in $picked; do
    want=$(sed -n 's/^expect-fail: *//p' "tests/lab5/mutants/$name.patch")
    for test in $want; do
        [ "$(col "$name" "$test")" = 0 ] || fail 8 "batch: mutant $name kept points on $test, which it lost alone"
    done
    lost=$(tr -d '\r' <"$TMP/class.csv" | awk -F, -v id="$name" '
        NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; next }
        $1 == id { for (i = 5; i < NF; i++) if ($i == "0") printf " %s", h[i] }')
    say "batch: mutant $name scored $(col "$name" score), lost:$lost"
done

# ---- 9. the device conversions ------------------------------------------------------
say ""
say "== 9. $B/tests/gpu_test_fp8_device (all 2^32 floats, both formats, on the GPU)"
t=$(now)
limited 120 "$B/tests/gpu_test_fp8_device" >"$TMP/fp8" 2>&1
rc=$?
cat "$TMP/fp8" >>"$REPORT"
say "(exit status $rc, $(since "$t"))"
[ $rc = 0 ] || fail 9 "gpu_test_fp8_device exited with $rc"

say ""
if [ -z "$failed_steps" ]; then
    say "gpu-report: every step passed in $(since "$start"); the report is $REPORT"
    exit 0
fi
say "gpu-report: steps that failed:$failed_steps ($(since "$start")); the report is $REPORT"
exit 1
