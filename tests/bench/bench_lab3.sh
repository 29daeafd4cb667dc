#!/bin/sh
# bench_lab3.sh - lab3's targets, measured with the reference solution's demo
# on the full Fashion-MNIST (60000 training, 10000 test images), and its
# speed against PyTorch's on the same machine.
#
# 1. The targets, from 15 epochs with the demo's defaults (hidden 256, batch
#    64, lr 0.05 times 0.85 after each epoch, momentum 0.9, seed 1, the GEMMs
#    on the demo's default thread count):
#
#      FP32 test accuracy                at least 88%
#      FP8 - FP32 test accuracy          within 0.5 points
#      an FP8 epoch                      under 10 s (on 2 CPU cores)
#      FP8 epoch time / FP32 epoch time  at most 1.3
#
# 2. The peer table: seconds per epoch of the same FP32 training in PyTorch
#    (tests/bench/peer_torch.py: the same model, initial-weight law, batch,
#    optimizer, learning-rate schedule, data and epoch count), and of the
#    course's FP32 and FP8 models, each at 1 thread and at N threads (N = the
#    cores this process may use; PyTorch with torch.set_num_threads(N) and
#    OPENBLAS_NUM_THREADS=N, since its GEMMs are OpenBLAS's and
#    set_num_threads does not reach them; the demo with --threads N), then
#    each at its own defaults (nothing set). The runs alternate, PyTorch
#    then the course, so that a change in the machine's load falls on both.
#    Per run: the median of its epochs and their spread (min to max), and
#    the ratios course FP32 / PyTorch and FP8 / FP32 of the medians.
#    PyTorch is optional (Debian's python3-torch); without it the table says
#    why and has the course's rows only.
#
# Both sides time the same thing: the wall clock over an epoch's 938 steps,
# each gathering its batch of 64 shuffled images, the forward and backward
# pass and the optimizer's step; not the loading, the shuffle or the test
# evaluation. The course's FP32 step does a little more than PyTorch's: the
# loss scaling (dlogits times the loss scale, then the gradients unscaled and
# checked for inf and NaN) and the copies of x and W that lab3_linear_forward
# keeps for backward (README §4, §6).
#
# It prints each figure and whether its target is met, and the machine's
# load before and after: other jobs on the cores slow the epochs, so read
# the ratios (both sides measured in the same minute) before the seconds.
# It exits 0 whatever the figures (a benchmark reports, it does not judge),
# 1 when the demo fails, and skips (exit 0) without the full set.
#
#   sh tests/bench/bench_lab3.sh build/solutions/lab3/lab3    (a few minutes)
#
# PEER_EPOCHS (default 5): the epochs of each peer-table run. PYTHON: the
# interpreter that has torch (default python3, then /usr/bin/python3, where
# Debian's python3-torch installs it).
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
PEER_EPOCHS=${PEER_EPOCHS:-5}
HERE=$(dirname "$0")
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
     "OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}," \
     "$(sed -n 's/^GEMMs on \([0-9]*\) thread.*/GEMMs on \1 thread(s)/p' "$TMP/log")"
report "FP32 test accuracy (final)" "$acc32" "%" ">= 88 %" 'v >= 88'
report "FP8 - FP32 (final)" "$gap" "pt" "within 0.5 pt" 'v <= 0.5 && v >= -0.5'
report "FP8 epoch (mean of $EPOCHS)" "$sec8" "s" "< 10 s" 'v < 10'
report "FP8 / FP32 epoch time" "$ratio" "x" "<= 1.3x" 'v <= 1.3'
printf 'lab3 %-30s %10s   (best: FP32 %s %%, FP8 %s %%)\n' "FP8 test accuracy (final)" "$acc8 %" \
    "$best32" "$best8"
printf 'lab3 %-30s %10s\n' "FP32 epoch (mean of $EPOCHS)" "$sec32 s"
echo "lab3: load average before $load_before, after $load_after (1, 5, 15 min);"
echo "      the times are wall clock: other jobs on the cores inflate them"

# ---- 2. the peer table ------------------------------------------------------

# An interpreter that imports torch, or none (the reason in $why).
why=""
py=""
for cand in "${PYTHON:-python3}" /usr/bin/python3; do
    command -v "$cand" >/dev/null 2>&1 || continue
    if out=$("$cand" -c 'import torch; print(torch.__version__)' 2>&1); then
        py=$cand torch_version=$out
        break
    fi
    why=$(printf '%s' "$out" | tail -n 1)
done
[ -z "$py" ] && [ -z "$why" ] && why="no python3"
N=$(nproc 2>/dev/null || echo 1)

# The per-epoch seconds of one run, one a line, into $TMP/$1.
torch_run() { # name threads (0: PyTorch's defaults)
    if [ "$2" = 0 ]; then
        "$py" "$HERE/peer_torch.py" --data "$FULL" --epochs "$PEER_EPOCHS" >"$TMP/$1.log" 2>&1
    else
        OPENBLAS_NUM_THREADS=$2 OMP_NUM_THREADS=$2 "$py" "$HERE/peer_torch.py" --data "$FULL" \
            --epochs "$PEER_EPOCHS" --threads "$2" >"$TMP/$1.log" 2>&1
    fi || { echo "bench lab3: PyTorch's run failed:" >&2; tail -3 "$TMP/$1.log" >&2; }
    awk '$1 == "epoch" { print $4 }' "$TMP/$1.log" >"$TMP/$1"
}
course_run() { # name threads (0: the demo's default)
    if [ "$2" = 0 ]; then set -- "$1"; else set -- "$1" --threads "$2"; fi
    name=$1
    shift
    env -u OPENBLAS_NUM_THREADS -u OMP_NUM_THREADS "$DEMO" --full --epochs "$PEER_EPOCHS" \
        --no-preview -o "$TMP/out_$name" "$@" >"$TMP/$name.log" 2>&1 ||
        { echo "bench lab3: $DEMO failed:" >&2; tail -3 "$TMP/$name.log" >&2; exit 1; }
    awk '/^Summary after/ { exit } $2 == "FP32" && $1 ~ /^[0-9]+$/ { print $5 }' \
        "$TMP/$name.log" >"$TMP/${name}_fp32"
    awk '/^Summary after/ { exit } $2 == "FP8" && $1 ~ /^[0-9]+$/ { print $5 }' \
        "$TMP/$name.log" >"$TMP/${name}_fp8"
}
# "median min max" of the numbers in file $1, or "- - -".
stats() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "- - -"; exit }
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2fx", a / b }'; }
row() { # threads, run, file, ratio column text
    set -- "$1" "$2" $(stats "$3") "$4"
    printf '  %-8s %-26s %8s %8s %8s   %s\n' "$1" "$2" "$3" "$4" "$5" "$6"
}

echo
echo "lab3 peer: seconds per epoch of 938 steps (batch 64, the full set, evaluation not"
echo "counted), $PEER_EPOCHS epochs a run; median, and the spread min to max"
if [ -n "$py" ]; then
    echo "  PyTorch $torch_version ($py), the same FP32 model and training"
else
    echo "  PyTorch: skipped, cannot import torch ($why);"
    echo "  Debian's python3-torch installs it (an optional benchmark dependency)"
fi
load_before=$(load)
for t in 1 "$N" 0; do
    [ "$t" = 1 ] && [ "$N" = 1 ] && continue # N = 1: the first row is all
    [ -n "$py" ] && torch_run "torch_$t" "$t"
    course_run "course_$t" "$t"
done
load_after=$(load)
printf '  %-8s %-26s %8s %8s %8s   %s\n' threads run median min max ratio
for t in 1 "$N" 0; do
    [ -f "$TMP/course_${t}_fp32" ] || continue
    if [ "$t" = 0 ]; then
        label="default"
        demo_threads=$(sed -n 's/^GEMMs on \([0-9]*\) thread.*/\1/p' "$TMP/course_0.log")
        ctext="course FP32 ($demo_threads thr.)"
        ttext="PyTorch FP32 (its own)"
    else
        label=$t ctext="course FP32" ttext="PyTorch FP32"
    fi
    set -- $(stats "$TMP/course_${t}_fp32")
    c32=$1
    set -- $(stats "$TMP/course_${t}_fp8")
    c8=$1
    if [ -n "$py" ] && [ -s "$TMP/torch_$t" ]; then
        set -- $(stats "$TMP/torch_$t")
        tt=$1
        row "$label" "$ttext" "$TMP/torch_$t" ""
        row "$label" "$ctext" "$TMP/course_${t}_fp32" "course / PyTorch $(ratio "$c32" "$tt")"
    else
        row "$label" "$ctext" "$TMP/course_${t}_fp32" ""
    fi
    row "$label" "course FP8" "$TMP/course_${t}_fp8" "FP8 / FP32 $(ratio "$c8" "$c32")"
done
if [ -n "$py" ]; then
    torch_default=$(awk '$1 == "threads" { print $2 }' "$TMP/torch_0.log")
    echo "  PyTorch's default: torch.get_num_threads() = ${torch_default:-?}, OpenBLAS's own count"
fi
echo "  Both time each step's batch gather, forward, backward and SGD with momentum;"
echo "  the course's FP32 step also scales the loss and unscales and checks the"
echo "  gradients, and copies x and W for backward (README §9)."
echo "lab3 peer: load average before $load_before, after $load_after (1, 5, 15 min)"
