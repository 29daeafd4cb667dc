#!/bin/sh
# report.sh - everything lab5 needs checked on a GPU, in one run, into one
# text report: the device (name, driver, clocks), the course's device
# conversions, the reference solution through the grader (each test's
# time), every lab5 mutant through the grader (each must lose the points
# of the tests its patch names), and the benchmark (memory-bound kernels as
# a fraction of a device-to-device copy, GEMMs as a fraction of cuBLASLt,
# from one run). Meant to finish within 20 minutes on an H100.
#
# Steps, in order; the first that fails stops the run, is named on the
# last line, and the exit status is 1. Without a GPU it says so and exits
# 77, having run nothing. The commands are those of the lab5 handout (§9,
# §10):
#   1. gpuprobe, nvidia-smi
#   2. BUILD/tests/gpu_test_fp8_device
#   3. ./grader lab5 --solution
#   4. ./grader lab5 --dir COPY
#   5. BUILD/solutions/lab5/lab5 --bench --no-preview -o BUILD/solutions/lab5/bench
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
trap 'rm -rf "$TMP"' EXIT INT TERM

say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
fail() {
    say "gpu-report: FAILED at step $1: $2"
    exit 1
}

: >"$REPORT" || exit 1
say "gpu-report: lab5 on a GPU, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"

for f in "$B/bin/gpuprobe" "$B/tests/gpu_test_fp8_device" "$B/solutions/lab5/lab5"; do
    [ -x "$f" ] || fail 0 "$f is not built (make BUILD=$B lab5 solutions and the GPU tests)"
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

# ---- 2. the device conversions ------------------------------------------------------
say ""
say "== 2. $B/tests/gpu_test_fp8_device (all 2^32 floats, both formats, on the GPU)"
t=$(now)
"$B/tests/gpu_test_fp8_device" >"$TMP/fp8" 2>&1
rc=$?
cat "$TMP/fp8" >>"$REPORT"
say "(exit status $rc, $(since "$t"))"
[ $rc = 0 ] || fail 2 "gpu_test_fp8_device exited with $rc"

# ---- 3. the reference solution through the grader ------------------------------------
say ""
say "== 3. ./grader lab5 --solution (each line's time: since the line before it)"
t=$(now)
last=$t
"$GRADER" lab5 --solution >"$TMP/sol.fifo.out" 2>&1 &
pid=$!
# The scorecard prints a line as each test ends: time the lines as they come.
tail -f "$TMP/sol.fifo.out" --pid=$pid 2>/dev/null | while IFS= read -r line; do
    n=$(now)
    printf '%-80s  [+%s]\n' "$line" "$(awk -v a="$last" -v b="$n" 'BEGIN { printf "%.1f s", b - a }')"
    last=$n
done >>"$REPORT"
wait $pid
rc=$?
say "(exit status $rc, $(since "$t"))"
[ $rc = 0 ] || fail 3 "the reference solution did not get full marks (exit status $rc)"

# ---- 4. every mutant loses its points --------------------------------------------------
say ""
say "== 4. every lab5 mutant through the grader"
for patch in tests/lab5/mutants/*.patch; do
    name=$(basename "$patch" .patch)
    want=$(sed -n 's/^expect-fail: *//p' "$patch")
    dir="$TMP/m-$name"
    mkdir -p "$dir" && cp solutions/lab5/*.cu "$dir"/
    patch -s -d "$dir" -p1 <"$patch" || fail 4 "mutant $name: the patch does not apply"
    t=$(now)
    "$GRADER" lab5 --dir "$dir" --format json >"$TMP/m.json" 2>"$TMP/m.err"
    lost=""
    for test in $want; do
        st=$(jq -r --arg n "$test" '.tests[] | select(.name == $n) | "\(.status) \(.points)"' \
            "$TMP/m.json")
        case "$st" in
        "pass "* | "skipped "* | "not_run "* | "") fail 4 "mutant $name: $test was not lost ($st)" ;;
        *" 0") lost="$lost $test" ;;
        *) fail 4 "mutant $name: $test kept points ($st)" ;;
        esac
    done
    say "mutant $name: loses$lost, score $(jq -r '"\(.score)/\(.max_score)"' "$TMP/m.json") ($(since "$t"))"
done

# ---- 5. the benchmark ------------------------------------------------------------------
say ""
say "== 5. $B/solutions/lab5/lab5 --bench --no-preview -o $B/solutions/lab5/bench"
t=$(now)
"$B/solutions/lab5/lab5" --bench --no-preview -o "$B/solutions/lab5/bench" >"$TMP/bench" 2>&1
rc=$?
cat "$TMP/bench" >>"$REPORT"
say "(exit status $rc, $(since "$t"))"
[ $rc = 0 ] || fail 5 "the benchmark exited with $rc"

say ""
say "gpu-report: every step passed in $(since "$start"); the report is $REPORT"
exit 0
