#!/bin/sh
# bench_lab3.sh - lab3's targets, measured with the reference solution's demo
# on the full Fashion-MNIST (60000 training, 10000 test images), 15 epochs
# with the demo's defaults (hidden 256, batch 64, lr 0.05 times 0.85 after
# each epoch, momentum 0.9, seed 1):
#
#   FP32 test accuracy                at least 88%
#   FP8 - FP32 test accuracy          within 0.5 points
#   an FP8 epoch                      under 10 s (on 2 CPU cores)
#   FP8 epoch time / FP32 epoch time  at most 1.5
#
# It prints each figure and whether its target is met, and the machine's
# load before and after: another job on the cores slows the epochs, and the
# FP8 ones (cast and GEMM) more than the FP32 ones, so rerun on an idle
# machine before reading much into a time. It exits 0 whatever the figures
# (a benchmark reports, it does not judge), 1 when the demo fails, and skips
# (exit 0) without the full set.
#
#   sh tests/bench/bench_lab3.sh build/solutions/lab3/lab3    (about a minute)
set -u
DEMO=${1:-build/solutions/lab3/lab3}
FULL=/usr/share/datasets/fashion-mnist
EPOCHS=15
for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz \
         t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
    if [ ! -f "$FULL/$f" ]; then
        echo "bench lab3: skipped: the full Fashion-MNIST is not in $FULL ($f is"
        echo "            missing); \`make deps\` installs it (dataset-fashion-mnist)"
        exit 0
    fi
done
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }
load_before=$(load)
if ! "$DEMO" --full --epochs "$EPOCHS" --no-preview -o "$TMP/out" >"$TMP/log" 2>&1; then
    echo "bench lab3: $DEMO --full --epochs $EPOCHS failed:" >&2
    tail -5 "$TMP/log" >&2
    exit 1
fi
load_after=$(load)

# The summary row of mode $1: final accuracy (%), best, mean epoch time (s),
# its ratio to FP32's ("2.50x"), skipped steps.
summary_of() {
    awk -v m="$1" '/^Summary after/ { on = 1 } on && $1 == m { $1 = ""; print; exit }' "$TMP/log"
}
set -- $(summary_of FP32)
acc32=${1:-} best32=${2:-} sec32=${3:-}
set -- $(summary_of FP8)
acc8=${1:-} best8=${2:-} sec8=${3:-} ratio=${4%x}
if [ -z "$acc32" ] || [ -z "$acc8" ] || [ -z "$ratio" ]; then
    echo "bench lab3: no summary in the demo's output:" >&2
    tail -5 "$TMP/log" >&2
    exit 1
fi

# One line: what, the figure, the target, met or not ($5: the test, in awk).
report() {
    met=$(awk -v v="$2" "BEGIN { print ($5) ? \"met\" : \"NOT met\" }")
    printf 'lab3 %-30s %10s   target %-14s %s\n' "$1" "$2 $3" "$4" "$met"
}
gap=$(awk -v a="$acc8" -v b="$acc32" 'BEGIN { printf "%+.2f", a - b }')
echo "lab3: $DEMO --full --epochs $EPOCHS, $(nproc 2>/dev/null || echo ?) cores," \
     "OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}"
report "FP32 test accuracy (final)" "$acc32" "%" ">= 88 %" 'v >= 88'
report "FP8 - FP32 (final)" "$gap" "pt" "within 0.5 pt" 'v <= 0.5 && v >= -0.5'
report "FP8 epoch (mean of $EPOCHS)" "$sec8" "s" "< 10 s" 'v < 10'
report "FP8 / FP32 epoch time" "$ratio" "x" "<= 1.5x" 'v <= 1.5'
printf 'lab3 %-30s %10s   (best: FP32 %s %%, FP8 %s %%)\n' "FP8 test accuracy (final)" "$acc8 %" \
    "$best32" "$best8"
printf 'lab3 %-30s %10s\n' "FP32 epoch (mean of $EPOCHS)" "$sec32 s"
echo "lab3: load average before $load_before, after $load_after (1, 5, 15 min);"
echo "      the times are wall clock: other jobs on the cores inflate them"
