#!/bin/sh
# bench_lab6.sh - lab6's FP32 training step (labs/lab6/model.c) against
# PyTorch's on the same model, batch, optimizer and text, one thread each.
#
# Target: the course's FP32 step within 1.2 times PyTorch's (issue: lab6,
# speed). Both sides time the same thing (tests/bench/lab6_step.c,
# tests/lab6/torch_model.py --bench): gathering a batch of 16 windows of 128
# tokens, forward, backward, AdamW with clipping. PyTorch's GEMMs are
# OpenBLAS's (Debian's python3-torch), so OPENBLAS_NUM_THREADS=1 is set for
# both, and torch.set_num_threads(1). The runs alternate, the course then
# PyTorch, three times; the figure is the median of all of a side's steps.
# Then each recipe's step against FP32's (target: every FP8 recipe at most
# 1.5 times FP32's, its casts emulated): lab6_step with the recipe
# (recipes.h, the reference solution's lab6.c), 10 steps a run, the
# recipes in turn, three rounds; the median of each one's 30 steps.
#
# Exits 0 whatever the figures (a benchmark reports, it does not judge).
#
#   sh tests/bench/bench_lab6.sh BUILD/bench/lab6_step
step=$1
text=data/lab6/corpus.txt
tmp=$(mktemp -d) || exit 0
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1
echo "lab6: the FP32 training step, 2 layers d_model 128, 16 x 128 tokens, 1 thread"
have_torch=yes
/usr/bin/python3 -c 'import torch, numpy' 2>"$tmp/torch.err" || have_torch=no
for _ in 1 2 3; do
    "$step" "$text" 20 3 >>"$tmp/c" || { echo "  lab6_step failed"; exit 0; }
    [ $have_torch = yes ] && /usr/bin/python3 tests/lab6/torch_model.py --bench "$text" 20 3 1 \
        >>"$tmp/torch" 2>>"$tmp/torch.err"
done
median() {
    awk '$1 == "step" { print $4 }' "$1" | sort -g | awk '{ v[NR] = $1 } END {
        if (NR) printf "%.1f ms (%d steps, %.1f to %.1f)", 1000 * v[int((NR + 1) / 2)], NR,
            1000 * v[1], 1000 * v[NR] }'
}
echo "  course FP32:  $(median "$tmp/c")"
if [ $have_torch = yes ] && [ -s "$tmp/torch" ]; then
    echo "  PyTorch FP32: $(median "$tmp/torch") (torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'))"
    c=$(awk '$1 == "step" { print $4 }' "$tmp/c" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    t=$(awk '$1 == "step" { print $4 }' "$tmp/torch" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    awk -v c="$c" -v t="$t" 'BEGIN { r = c / t; printf "  course / PyTorch: %.2f (target at most 1.2: %s)\n", r,
        r <= 1.2 ? "met" : "NOT met" }'
else
    echo "  PyTorch: not measured ($(head -c 200 "$tmp/torch.err" | tr '\n' ' ')); Debian: apt-get install python3-torch python3-numpy"
fi

echo "lab6: each recipe's step against FP32's (10 steps a run, the recipes in turn, three rounds)"
for _ in 1 2 3; do
    for r in fp32 bf16 fp8-delayed fp8-current fp8-blockwise mxfp8 bf16-rne bf16-sr; do
        "$step" "$text" 10 2 "$r" | sed "s/^step /$r /" >>"$tmp/recipes" ||
            { echo "  lab6_step $r failed"; exit 0; }
    done
done
awk '$2 ~ /^[0-9]+$/ && $3 == "seconds" { n[$1]++; t[$1, n[$1]] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
    function median(r,   i, j, v, m) { m = n[r]; for (i = 1; i <= m; i++) v[i] = t[r, i];
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
        return v[int((m + 1) / 2)] }
    END { ref = median("fp32"); for (i = 1; i <= k; i++) { r = order[i]; md = median(r); ratio = md / ref;
        target = r ~ /^(fp8|mx)/ ? (ratio <= 1.5 ? "  (target at most 1.5: met)" : "  (target at most 1.5: NOT met)") : "";
        printf "  %-13s %7.1f ms  step / fp32 step %.2f%s\n", r, 1000 * md, ratio, target } }' "$tmp/recipes"
