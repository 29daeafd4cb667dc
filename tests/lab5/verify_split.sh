#!/bin/sh
# verify_split.sh - on a GPU, what must hold before a class's lab5 is graded
# apart from the submission (make LAB5_SPLIT=1, INSTRUCTORS.md), against
# lab5 graded in one process (the default), in one run:
#   1. the builds: BUILD/split (LAB5_SPLIT=1), and BUILD/fig-one and
#      BUILD/fig-split, the same two ways with every performance tier out of
#      reach (CPPFLAGS=-DLAB5_SHOW_FIGURES), so that each perf test prints
#      its figures;
#   2. the reference solution both ways: full marks apart (112/112), in at
#      most 1.5 times the time it takes in one process;
#   3. the reference with --seed, apart: full marks on the tests that draw
#      hidden inputs;
#   4. the skeleton, apart: 2 points (builds), every other test lost and
#      none by a time-out (no hang);
#   5. every mutant of tests/lab5/mutants, apart: each loses the tests of its
#      expect-fail line, none by a time-out but an expect-hang one's;
#   6. the figures: each perf test's percentage (of the copy, of cuBLASLt)
#      apart within 5% of the one in one process.
# Every step runs, each under a time limit; the last line names the steps
# that failed (exit status 1). Without a GPU it says so and exits 77. Needs
# what grading needs, and `patch`. BUILD is a build folder of the course's
# (`make` made it: its grader grades lab5 in one process).
#
#   sh tests/lab5/verify_split.sh BUILD OUT
set -u
B=${1:?usage: verify_split.sh BUILD OUT}
OUT=${2:?usage: verify_split.sh BUILD OUT}
ROOT=$(pwd)
case $B in /*) ;; *) B=$ROOT/$B ;; esac
mkdir -p "$OUT" || exit 1
LOG=$OUT/verify_split.txt
: >"$LOG"
say() { printf '%s\n' "$*" | tee -a "$LOG"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
failed=""
fail() {
    say "FAILED: step $1: $2"
    case " $failed " in *" $1 "*) ;; *) failed="$failed $1" ;; esac
}
limited() { s=$1; shift; timeout -k 5 "$s" "$@"; }
# score FILE: "X/Y" from a text scorecard.
score() { sed -n 's/^Score: \([0-9]*\/[0-9]*\).*/\1/p' "$1" | head -n 1; }
# lines FILE STATUS: the tests of a text scorecard with that status.
tests_with() { awk -v s="$2" '$1 == s { print $2 }' "$1" | tr '\n' ' '; }

if [ ! -x "$B/bin/gpuprobe" ] || ! "$B/bin/gpuprobe" >"$OUT/gpuprobe.txt" 2>&1; then
    echo "verify_split: no GPU here ($(cat "$OUT/gpuprobe.txt" 2>/dev/null)): nothing run"
    exit 77
fi
say "verify_split: $(cat "$OUT/gpuprobe.txt"), $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
unset MAKEFLAGS MFLAGS MAKELEVEL

say "== 1. the builds"
t=$(now)
for b in "split LAB5_SPLIT=1" "fig-one LAB5_SPLIT=0" "fig-split LAB5_SPLIT=1"; do
    set -- $b
    extra=""
    case $1 in fig-*) extra="CPPFLAGS=-DLAB5_SHOW_FIGURES" ;; esac
    # shellcheck disable=SC2086
    limited 600 make -s --no-print-directory -j"$(nproc)" BUILD="$B/$1" "$2" $extra \
        grader-lab5 >"$OUT/make-$1.log" 2>&1 || fail 1 "make BUILD=$B/$1 $2 $extra grader-lab5"
done
limited 600 make -s --no-print-directory -j"$(nproc)" BUILD="$B" grader-lab5 \
    >"$OUT/make-one.log" 2>&1 || fail 1 "make BUILD=$B grader-lab5"
say "(builds: $(since "$t") s)"
ONE=$B/bin/grader
SPLIT=$B/split/bin/grader

say "== 2. the reference solution, in one process and apart"
t=$(now)
limited 300 "$ONE" lab5 --solution >"$OUT/solution-one.txt" 2>&1
one_s=$(since "$t")
t=$(now)
limited 450 "$SPLIT" lab5 --solution >"$OUT/solution-split.txt" 2>&1
split_s=$(since "$t")
say "in one process: $(score "$OUT/solution-one.txt") in $one_s s; apart: $(score "$OUT/solution-split.txt") in $split_s s"
[ "$(score "$OUT/solution-split.txt")" = 112/112 ] ||
    fail 2 "apart, the reference scored $(score "$OUT/solution-split.txt"): $(tests_with "$OUT/solution-split.txt" FAIL)$(tests_with "$OUT/solution-split.txt" ERROR)"
awk -v a="$split_s" -v b="$one_s" 'BEGIN { exit !(a <= 1.5 * b) }' ||
    fail 2 "apart, grading took $split_s s, more than 1.5 x $one_s s"

say "== 3. the reference with --seed, apart"
limited 200 "$SPLIT" lab5 --solution --seed verify-split --test amax,cast_e4m3,mx_e4m3,gemm_tiled \
    >"$OUT/seed-split.txt" 2>&1
say "$(score "$OUT/seed-split.txt")"
[ "$(score "$OUT/seed-split.txt")" = 24/24 ] || fail 3 "hidden inputs: $(score "$OUT/seed-split.txt")"

say "== 4. the skeleton, apart"
rm -rf "$OUT/skeleton" && mkdir -p "$OUT/skeleton" && cp labs/lab5/kernels.cu labs/lab5/gemm.cu "$OUT/skeleton/"
limited 450 "$SPLIT" lab5 --dir "$OUT/skeleton" >"$OUT/skeleton-split.txt" 2>&1
say "$(score "$OUT/skeleton-split.txt")"
[ "$(score "$OUT/skeleton-split.txt")" = 2/112 ] || fail 4 "the skeleton scored $(score "$OUT/skeleton-split.txt")"
grep -q "timed out" "$OUT/skeleton-split.txt" && fail 4 "a test of the skeleton timed out (a hang)"

say "== 5. every mutant, apart"
for p in tests/lab5/mutants/*.patch; do
    name=$(basename "$p" .patch)
    want=$(sed -n 's/^expect-fail: *//p' "$p")
    hang=$(sed -n 's/^expect-hang: *//p' "$p")
    dir=$OUT/mutant-$name
    rm -rf "$dir" && mkdir -p "$dir" && cp solutions/lab5/kernels.cu solutions/lab5/gemm.cu "$dir/"
    if ! patch -s -d "$dir" -p1 <"$p" >"$dir.patch.log" 2>&1; then
        fail 5 "mutant $name: the patch does not apply"
        continue
    fi
    limited 300 "$SPLIT" lab5 --dir "$dir" --test "$(echo $want | tr ' ' ',')" >"$dir.txt" 2>&1
    lost=$(tests_with "$dir.txt" FAIL)$(tests_with "$dir.txt" ERROR)
    line="$name: lost $lost"
    for test in $want; do
        case " $lost " in *" $test "*) ;; *) fail 5 "mutant $name: $test passed" ;; esac
    done
    if [ -z "$hang" ] && grep -q "timed out" "$dir.txt"; then
        fail 5 "mutant $name: a time-out, where its patch says its slip is a wrong value or a fault"
    fi
    say "$line"
done

say "== 6. the performance figures, in one process and apart"
perf=perf_amax_50,perf_cast_50,perf_mx_50,perf_gemm_10
limited 300 "$B/fig-one/bin/grader" lab5 --solution --test "$perf" >"$OUT/fig-one.txt" 2>&1
limited 300 "$B/fig-split/bin/grader" lab5 --solution --test "$perf" >"$OUT/fig-split.txt" 2>&1
# percent FILE TEST: the test's figure, "= X% of" in its message.
percent() {
    awk -v t="$2" '$2 == t { on = 1; next } /^[A-Z]+ +[a-z]/ { on = 0 }
        on && match($0, /= [0-9.]+% of/) { print substr($0, RSTART + 2, RLENGTH - 6); exit }' "$1"
}
for test in $(echo "$perf" | tr ',' ' '); do
    a=$(percent "$OUT/fig-one.txt" "$test")
    b=$(percent "$OUT/fig-split.txt" "$test")
    say "$test: in one process $a%, apart $b%"
    if [ -z "$a" ] || [ -z "$b" ]; then
        fail 6 "$test: no figure (see $OUT/fig-*.txt)"
    elif ! awk -v a="$a" -v b="$b" 'BEGIN { d = (b - a) / a; exit !(d <= 0.05 && d >= -0.05) }'; then
        fail 6 "$test: apart $b%, not within 5% of $a%"
    fi
done

if [ -n "$failed" ]; then
    say "verify_split: FAILED steps:$failed"
    exit 1
fi
say "verify_split: every step passed"
