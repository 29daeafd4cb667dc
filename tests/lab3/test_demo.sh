#!/bin/sh
# test_demo.sh - lab3's demo runs end to end: with the reference solution, two
# epochs on the course's subset train both models to numbers any correct
# run reaches (the loss falls, the test accuracy passes 70%, FP8 within 5
# points of FP32, no step skipped, l1.sx at 448), and it draws every plot
# and writes every .npy file with the right shape; a missing or corrupt data
# folder exits 1 naming the file; the untouched skeleton still runs and says
# it is not written; bad usage exits 2. --formats trains five models whose
# gradient casts flush what their formats predict (README §10).
#
#   FP8LAB_BUILD=build sh tests/lab3/test_demo.sh      (from the top of the course)
#
# The thresholds: two epochs (126 steps) from twelve seeds (--seed 1..12)
# gave test accuracies of 76.0% to 79.7% in FP32 and 76.9% to 79.8% in FP8,
# and gaps FP8 - FP32 of -1.9 to +1.5 points (1000 test images: 0.1 point
# each). 70% and 5 points leave room for another correct summation order
# (OpenBLAS's thread count alone changes it) and nothing for a broken model:
# gradients left loss-scaled, a scale_inv forgotten or gradients cast to
# E4M3 give 10% to 45%.
set -u
B=${FP8LAB_BUILD:-build}
DATA=data/fashion-mnist
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
# Whether the number $1 is at least $2; whether |$1| is at most $2.
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 >= b + 0) }'; }
abs_at_most() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && (a < 0 ? -a : a) <= b + 0) }'; }

out=$("$B/solutions/lab3/lab3" --data "$DATA" --epochs 2 --no-preview -o "$TMP/sol" 2>&1)
[ $? = 0 ] && ok || bad "solution demo: exit status"
printf '%s\n' "$out" | grep -q "^Fashion-MNIST from $DATA: 4000 training and 1000 test" &&
    ok || bad "solution demo: the data line"

# ---- the epochs -------------------------------------------------------------------

# The fields of the line of epoch $1, mode $2: loss, accuracy, time,
# skipped, loss scale, lr. Empty when there is no such line.
epoch_of() {
    printf '%s\n' "$out" | awk -v e="$1" -v m="$2" '$1 == e && $2 == m && NF == 8 {
        $1 = $2 = ""; sub(/^ +/, ""); print; exit }'
}
field() { printf '%s\n' "$1" | awk -v i="$2" '{ print $i }'; }
NUM='[0-9]+\.[0-9]+'
for mode in FP32 FP8; do
    for e in 1 2; do
        # On the subset no correct step overflows (the gradients are at most
        # 2^16 / 64 per element, and the casts saturate), and the loss scale
        # grows only after 2000 clean steps: 0 skipped, 2^16.
        epoch_of $e $mode | grep -Eq "^$NUM $NUM $NUM 0 2\^16 [0-9.]+\$" && ok ||
            bad "solution demo: epoch $e, $mode: want loss, accuracy, time, 0 skipped," \
                "loss scale 2^16, lr; got '$(epoch_of $e $mode)'"
    done
    l1=$(field "$(epoch_of 1 $mode)" 1) l2=$(field "$(epoch_of 2 $mode)" 1)
    awk -v a="$l1" -v b="$l2" 'BEGIN { exit !(a != "" && b + 0 < a + 0) }' && ok ||
        bad "solution demo: $mode's training loss should fall from epoch 1 to 2 ($l1, $l2)"
done

# ---- the summary ------------------------------------------------------------------

# The summary row of mode $1: final and best accuracy, time, ratio, skipped.
summary_of() {
    printf '%s\n' "$out" | awk -v m="$1" '/^Summary after/ { on = 1 }
        on && $1 == m { $1 = ""; sub(/^ +/, ""); print; exit }'
}
fp32=$(field "$(summary_of FP32)" 1) fp8=$(field "$(summary_of FP8)" 1)
for a in "FP32 $fp32" "FP8 $fp8"; do
    set -- $a
    at_least "${2:-}" 70 && ok || bad "solution demo: $1's final test accuracy '${2:-}' < 70%"
done
gap=$(awk -v a="$fp8" -v b="$fp32" 'BEGIN { if (a != "" && b != "") print a - b }')
abs_at_most "$gap" 5 && ok || bad "solution demo: FP8 - FP32 = '$gap' points, want within 5"
summary_of FP8 | grep -Eq "^$NUM $NUM $NUM ${NUM}x 0/126\$" && ok ||
    bad "solution demo: FP8's summary row ('$(summary_of FP8)')"
printf '%s\n' "$out" | grep -Eq '^  FP8 - FP32: [-+][0-9]+\.[0-9]{2} points final' && ok ||
    bad "solution demo: no accuracy gap line"

# The final scales: the FP32 model's stay 1; the FP8 model's l1.sx is 448 /
# 1.0, the brightest pixel (every batch has one).
scales_of() {
    printf '%s\n' "$out" | awk -v m="$1" '/^Final scales/ { on = 1 }
        on && $1 == m { $1 = ""; sub(/^ +/, ""); print; exit }'
}
[ "$(scales_of FP32)" = "1 1 1 1 1 1 2^16" ] && ok ||
    bad "solution demo: FP32's scales should stay 1 ('$(scales_of FP32)')"
[ "$(field "$(scales_of FP8)" 1)" = 448 ] && ok ||
    bad "solution demo: FP8's l1.sx should be 448 ('$(scales_of FP8)')"

# ---- the plots and the .npy files --------------------------------------------------

if command -v gnuplot >/dev/null 2>&1; then
    for plot in loss accuracy scales; do
        [ -s "$TMP/sol/$plot.png" ] && [ -s "$TMP/sol/$plot.gp" ] && ok ||
            bad "solution demo: no $plot.png"
    done
fi

# Whether $1 is a version 1.0 .npy file of float32 with shape ($2) and $3
# values: the magic, the header's descr and shape, and the file's size.
npy_ok() {
    [ -f "$1" ] || return 1
    [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 934e554d50590100 ] || return 1
    hlen=$(od -An -tu1 -j8 -N2 "$1" | awk '{ print $1 + 256 * $2 }')
    head -c $((10 + hlen)) "$1" | grep -q "'descr': '<f4'.*'shape': ($2)" || return 1
    [ "$(wc -c <"$1" | tr -d ' ')" = $((10 + hlen + 4 * $3)) ]
}
for m in fp32 fp8; do
    for spec in "w1|256, 784|200704" "b1|256,|256" "w2|10, 256|2560" "b2|10,|10"; do
        name=${spec%%|*} rest=${spec#*|}
        npy_ok "$TMP/sol/${m}_$name.npy" "${rest%|*}" "${rest#*|}" && ok ||
            bad "solution demo: ${m}_$name.npy is not float32 (${rest%|*})"
    done
done
cmp -s "$TMP/sol/fp32_w1.npy" "$TMP/sol/fp8_w1.npy" &&
    bad "solution demo: the FP32 and the FP8 model trained to the same w1" || ok
# Steps 0, 63 and 125 of 126; the last is the epoch's last batch, 4000 - 62 x
# 64 = 32 rows.
for cap in "00000 64" "00063 64" "00125 32"; do
    set -- $cap
    for spec in "l1_w|256, 784|200704" "l1_x|$2, 784|$(($2 * 784))" \
                "l1_dy|$2, 256|$(($2 * 256))" "l2_w|10, 256|2560" \
                "l2_x|$2, 256|$(($2 * 256))" "l2_dy|$2, 10|$(($2 * 10))"; do
        name=${spec%%|*} rest=${spec#*|}
        f="$TMP/sol/capture_step$1_$name.npy"
        npy_ok "$f" "${rest%|*}" "${rest#*|}" && ok ||
            bad "solution demo: $(basename "$f") is not float32 (${rest%|*})"
    done
done
cmp -s "$TMP/sol/capture_step00000_l1_w.npy" "$TMP/sol/capture_step00125_l1_w.npy" &&
    bad "solution demo: the captured w1 did not change from step 0 to 125" || ok
printf '%s\n' "$out" | grep -q "lab2's format recommender" && ok ||
    bad "solution demo: does not say what the captures are for"
printf '%s\n' "$out" | grep -q "what the FP32 model's GEMMs saw" && ok ||
    bad "solution demo: the captures should be the FP32 model's unless --capture fp8"

# --capture fp8: the FP8 model's tensors; both models start from the same w1.
"$B/solutions/lab3/lab3" --data "$DATA" --epochs 2 --capture fp8 --no-preview \
    -o "$TMP/fp8cap" >"$TMP/fp8cap.out" 2>&1
[ $? = 0 ] && grep -q "what the FP8 model's GEMMs saw" "$TMP/fp8cap.out" && ok ||
    bad "--capture fp8: should exit 0 and say whose tensors it wrote"
cmp -s "$TMP/sol/capture_step00000_l1_w.npy" "$TMP/fp8cap/capture_step00000_l1_w.npy" && ok ||
    bad "--capture fp8: step 0's w1 should be the FP32 model's, the same initial weights"
cmp -s "$TMP/sol/capture_step00125_l2_dy.npy" "$TMP/fp8cap/capture_step00125_l2_dy.npy" &&
    bad "--capture fp8: the same step-125 gradient as the FP32 model's" || ok

# ---- --formats: FP32, BF16, FP16, FP16 with the loss scaler, FP8 ---------------------------

# Two epochs on the subset, all five models. What any correct run shows,
# from the formats' ranges (README §10): FP32 casts nothing and BF16, with
# float's exponents, flushes nothing (a float gradient would have to be
# below 2^-134); FP16 without a loss scale flushes the small gradients (on
# seeds 1 to 6: 0.36% to 0.47% of the nonzero elements in epoch 1, 1.09% to
# 1.82% in epoch 2), and a loss scale of 2^16 keeps all but a few (0.0009%
# at most in epoch 2);
# no 16-bit model overflows; only FP16+LS has a loss scale other than 1.
fout=$("$B/solutions/lab3/lab3" --data "$DATA" --epochs 2 --formats --no-preview \
    -o "$TMP/formats" 2>&1)
[ $? = 0 ] && ok || bad "--formats: exit status"
# The line of epoch $1, mode $2, after those two: loss, accuracy, time,
# skipped, loss scale, lr, flushed (%), overflowed.
fepoch_of() {
    printf '%s\n' "$fout" | awk -v e="$1" -v m="$2" '$1 == e && $2 == m && NF == 10 {
        $1 = $2 = ""; sub(/^ +/, ""); print; exit }'
}
for mode in FP32 BF16 FP16 FP16+LS FP8; do
    case $mode in FP16+LS|FP32|FP8) scale='2\^16' ;; *) scale='2\^0' ;; esac
    for e in 1 2; do
        fepoch_of $e $mode | grep -Eq "^$NUM $NUM $NUM 0 $scale [0-9.]+ $NUM [0-9]+\$" && ok ||
            bad "--formats: epoch $e, $mode: got '$(fepoch_of $e $mode)'"
    done
    acc=$(field "$(fepoch_of 2 $mode)" 2)
    at_least "$acc" 70 && ok || bad "--formats: $mode's accuracy after 2 epochs '$acc' < 70%"
done
for mode in FP32 BF16; do
    for e in 1 2; do
        [ "$(field "$(fepoch_of $e $mode)" 7) $(field "$(fepoch_of $e $mode)" 8)" = "0.0000 0" ] &&
            ok || bad "--formats: $mode flushes or overflows in epoch $e: '$(fepoch_of $e $mode)'"
    done
done
for mode in FP16 FP16+LS; do
    [ "$(field "$(fepoch_of 2 $mode)" 8)" = 0 ] && ok ||
        bad "--formats: $mode overflowed in epoch 2: '$(fepoch_of 2 $mode)'"
done
f16=$(field "$(fepoch_of 2 FP16)" 7) f16ls=$(field "$(fepoch_of 2 FP16+LS)" 7)
at_least "$f16" 0.5 && ok || bad "--formats: FP16 without a loss scale flushed only '$f16'%"
awk -v a="$f16ls" -v b="$f16" 'BEGIN { exit !(a != "" && a * 100 <= b) }' && ok ||
    bad "--formats: the loss scale should keep FP16's gradients ($f16ls% flushed, $f16% without)"
printf '%s\n' "$fout" | grep -Eq '^  FP16 - FP32: [-+][0-9]+\.[0-9]{2} points final' && ok ||
    bad "--formats: no FP16 - FP32 line"
printf '%s\n' "$fout" | grep -q '^The gradient casts' && ok || bad "--formats: no casts table"
for p in bf16 fp16 fp16ls fp8 fp32; do
    [ -s "$TMP/formats/${p}_w1.npy" ] && ok || bad "--formats: no ${p}_w1.npy"
done
if command -v gnuplot >/dev/null 2>&1; then
    [ -s "$TMP/formats/flushed.png" ] && ok || bad "--formats: no flushed.png"
    [ ! -e "$TMP/sol/flushed.png" ] && ok || bad "without --formats: a flushed.png"
fi

# A batch and a hidden layer both wider than the input (800 > 784): the
# 16-bit step's scratch must hold batch x hidden too (a sanitized build sees
# any write past it).
"$B/solutions/lab3/lab3" --data "$DATA" --epochs 1 --formats --hidden 800 --batch 800 \
    --no-preview -o "$TMP/wide" >"$TMP/wide.out" 2>&1
[ $? = 0 ] && grep -q '^The gradient casts' "$TMP/wide.out" && ok ||
    bad "--formats with hidden 800, batch 800: $(tail -n 3 "$TMP/wide.out")"

# ---- the data missing or corrupt ---------------------------------------------------

"$B/solutions/lab3/lab3" --data "$TMP/nowhere" --no-preview -o "$TMP/x" >"$TMP/miss.out" 2>&1
[ $? = 1 ] && ok || bad "missing data: should exit 1"
grep -q "$TMP/nowhere/train-images-idx3-ubyte.gz" "$TMP/miss.out" && ok ||
    bad "missing data: the message should name the file"
grep -q 'make deps' "$TMP/miss.out" && ok || bad "missing data: should say how to get it"

mkdir "$TMP/corrupt" && cp "$DATA"/train-* "$DATA"/t10k-labels-idx1-ubyte.gz "$TMP/corrupt/" &&
    head -c 1000 "$DATA/t10k-images-idx3-ubyte.gz" >"$TMP/corrupt/t10k-images-idx3-ubyte.gz"
"$B/solutions/lab3/lab3" --data "$TMP/corrupt" --no-preview -o "$TMP/x" >"$TMP/bad.out" 2>&1
[ $? = 1 ] && ok || bad "corrupt data: should exit 1"
grep -q "$TMP/corrupt/t10k-images-idx3-ubyte.gz" "$TMP/bad.out" && ok ||
    bad "corrupt data: the message should name the file"

# ---- the skeleton and the command line -----------------------------------------------

"$B/lab3/lab3" --data "$DATA" --epochs 1 --no-preview -o "$TMP/skel" >"$TMP/skel.out" 2>&1
[ $? = 0 ] && ok || bad "skeleton demo: exit status"
grep -q 'not written yet' "$TMP/skel.out" && ok || bad "skeleton demo: should say so"
grep -q '^Summary after 1 epoch ' "$TMP/skel.out" && ok || bad "skeleton demo: no summary"

"$B/lab3/lab3" --help >"$TMP/help.out" 2>&1
[ $? = 0 ] && grep -q -- '--data DIR' "$TMP/help.out" && grep -q -- '--epochs N' "$TMP/help.out" &&
    ok || bad "demo: --help should exit 0 and list the training options"
for args in "--no-such-option" "--epochs 0" "--epochs" "--lr x" "--batch 2.5" "--data" \
            "--capture" "--capture bf16"; do
    "$B/lab3/lab3" $args >/dev/null 2>&1
    [ $? = 2 ] && ok || bad "demo: '$args' should exit 2"
done

echo "test_demo: $passed passed, $failed failed"
[ "$failed" = 0 ]
