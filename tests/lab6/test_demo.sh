#!/bin/sh
# test_demo.sh - lab6's demo, from the reference solution, trains every
# recipe a few steps from the same weights on the same batches: a row for
# each in its table with finite losses within 0.05 of FP32's (6 steps move
# the loss from 4.56 by about 0.7: a recipe that breaks the products is far
# off), the per-tensor FP8 recipes' cast shares, the master-less BF16
# recipes' lost updates, a text from each model; fp8-delayed's checkpoint
# resumed in BF16 and back in FP8 with the loss carried across; the plots;
# FP8 outside the linear layers (--fp8-also); bad usage and a missing text
# exit 2 naming what is wrong.
#
#   FP8LAB_BUILD=build sh tests/lab6/test_demo.sh
set -u
B=${FP8LAB_BUILD:-build}
demo=$B/solutions/lab6/lab6
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
out=$(OPENBLAS_NUM_THREADS=1 "$demo" --steps 6 --sample 30 --no-preview -o "$TMP/out" 2>&1)
[ $? = 0 ] && ok || { bad "demo: exit status"; printf '%s\n' "$out" | tail -20; }

row() { printf '%s\n' "$out" | awk -v r="$1" '$1 == r && $2 ~ /^[0-9.]+$/ { print; exit }'; }
ref=$(row fp32 | awk '{ print $3 }')
[ -n "$ref" ] && ok || bad "demo: no fp32 row"
for r in fp32 bf16 fp8-delayed fp8-current fp8-blockwise mxfp8 bf16-rne bf16-sr; do
    line=$(row "$r")
    if [ -z "$line" ]; then
        bad "demo: no row for $r in:"
        printf '%s\n' "$out" | tail -15 | sed 's/^/    /'
        continue
    fi
    printf '%s\n' "$line" | awk -v ref="$ref" '{ d = $3 - ref; exit !($2 > 3 && $2 < 4.5 &&
        d < 0.05 && d > -0.05 && $5 > 0) }' && ok ||
        bad "demo: $r: losses not near fp32's ($ref): $line"
    printf '%s\n' "$out" | grep -q "^  $r  *And he said, ." && ok || bad "demo: no text from $r"
done
for r in fp8-delayed fp8-current; do
    row "$r" | grep -Eq '([0-9]\.[0-9]e[-+][0-9]{2} ){5}[0-9]\.[0-9]e[-+][0-9]{2}' && ok ||
        bad "demo: $r: no saturated and flushed shares: $(row "$r")"
done
for r in bf16-rne bf16-sr; do
    row "$r" | grep -Eq ' [0-9.]+% / -?[0-9.]+%$' && ok ||
        bad "demo: $r: no shares of lost and kept updates: $(row "$r")"
done

# the checkpoint of fp8-delayed, resumed in BF16 and back: NumPy files, and
# the loss carried across each switch (the first step after it within 0.3
# of the checkpoint's validation loss)
for f in config params adam_m1 adam_m2; do
    [ -s "$TMP/out/checkpoint-fp8/$f.npy" ] && [ -s "$TMP/out/checkpoint-bf16/$f.npy" ] && ok ||
        bad "demo: no $f.npy in both checkpoints"
done
# each switch keeps the loss: the loaded weights' validation loss in the
# new precision within 0.02 (BF16) and 0.1 (FP8 with fresh scalers, scale
# 1) of the saved model's
saved=$(printf '%s\n' "$out" | awk '/^  fp8-delayed, saved/ { print $NF }')
bf16=$(printf '%s\n' "$out" | awk '/^  resumed in bf16, saved/ { print $(NF - 2), $NF }')
fp8=$(printf '%s\n' "$out" | awk '/^  back in fp8-delayed/ { print $(NF - 2) }')
set -- $bf16
[ -n "$saved" ] && [ $# = 2 ] && [ -n "$fp8" ] && awk -v s="$saved" -v l="$1" -v b="$2" -v f="$fp8" \
    'BEGIN { exit !(l - s < 0.02 && s - l < 0.02 && f - b < 0.1 && b - f < 0.1) }' && ok ||
    bad "demo: the loss across the switches: fp8 saved '$saved', bf16 loaded and after '$bf16', fp8 loaded '$fp8'"

# the fused QKV's table: Q, K, V of the weight and of the gradient, each
# with two SQNRs
n=$(printf '%s\n' "$out" | grep -Ec '^  (W_qkv \(E4M3\)|dy of QKV \(E5M2\)) +[QKV] +[0-9.e+-]+ +[0-9.]+ +[0-9.]+$')
[ "$n" = 6 ] && ok || bad "demo: the fused QKV table has $n of its 6 rows"
# and V made 2^-16 of its size: under the whole's one scale it loses more
# than 10 dB to its own scale (lab6_cast_sqnr)
vrow=$(printf '%s\n' "$out" | awk '$1 == "W_qkv," && $2 == "V" && $3 == "x" { print $(NF-1), $NF; exit }')
printf '%s\n' "$vrow" | awk '{ exit !($2 - $1 > 10) }' && ok ||
    bad "demo: V x 2^-16 under one scale and its own: '$vrow' (want more than 10 dB apart)"

# the four plots, each with data where its recipes ran: loss (every
# recipe), amax_history (fp8-delayed's 8 casts), channel_amax (fp32's 128
# and 384 channels), update_stall (bf16-rne and bf16-sr)
for plot in loss amax_history channel_amax update_stall; do
    [ -s "$TMP/out/$plot.gp" ] && [ -s "$TMP/out/$plot.dat" ] && ok || bad "demo: no $plot.gp/.dat"
    if command -v gnuplot >/dev/null 2>&1; then
        [ -s "$TMP/out/$plot.png" ] && ok || bad "demo: no $plot.png"
    fi
done
for pair in amax_history:8 channel_amax:2 update_stall:2 loss:8; do
    n=$(grep -c '^# series' "$TMP/out/${pair%:*}.dat" 2>/dev/null)
    [ "$n" = "${pair#*:}" ] && ok || bad "demo: ${pair%:*}.dat has '$n' series, want ${pair#*:}"
done

# the skeleton's demo (make lab6) runs too, its FP8 recipes learning nothing
skel=$(OPENBLAS_NUM_THREADS=1 "$B/lab6/lab6" --steps 2 --sample 0 --recipes fp32,fp8-delayed \
    --no-preview -o "$TMP/skel" 2>&1)
[ $? = 0 ] && ok || bad "skeleton demo: exit status"
printf '%s\n' "$skel" | grep -q '^fp8-delayed ' && ok || bad "skeleton demo: no table"

# FP8 outside the linear layers (--fp8-also): named in the header, and a
# row of flushed shares per recipe, one column per place (pv is the
# product's operands and its gradient, pv-grad)
also=$(OPENBLAS_NUM_THREADS=1 "$demo" --steps 2 --sample 0 --recipes fp32,fp8-current \
    --fp8-also softmax,pv --no-preview -o "$TMP/also" 2>&1)
[ $? = 0 ] && ok || bad "--fp8-also: exit status"
printf '%s\n' "$also" | grep -q "FP8 outside the linear layers too .*: softmax pv pv-grad$" && ok ||
    bad "--fp8-also: the header does not name softmax, pv and pv-grad"
flushed=$(printf '%s\n' "$also" | awk '/share of the last step.s values cast to zero/ { on = 1; next }
    on && $1 == "fp8-current" { print NF - 1; exit }')
[ "$flushed" = 3 ] && ok || bad "--fp8-also: fp8-current's flushed row has '$flushed' columns, want 3"
err=$("$demo" --fp8-also softmax,attn 2>&1)
[ $? = 2 ] && ok || bad "demo: an unknown --fp8-also place should exit 2"
printf '%s' "$err" | grep -q "no place named 'attn'" && ok || bad "demo: --fp8-also attn: $err"

err=$("$demo" --recipes fp32,fp9 2>&1)
[ $? = 2 ] && ok || bad "demo: an unknown recipe should exit 2"
printf '%s' "$err" | grep -q "no recipe named 'fp9'" && ok || bad "demo: unknown recipe: $err"
err=$("$demo" --text /nonexistent/corpus.txt -o "$TMP/x" 2>&1)
[ $? = 2 ] && ok || bad "demo: a missing text should exit 2"
printf '%s' "$err" | grep -q "/nonexistent/corpus.txt: cannot open" && ok ||
    bad "demo: missing text: $err"

echo "test_demo: $passed passed, $failed failed"
[ "$failed" = 0 ]
