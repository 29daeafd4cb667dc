#!/bin/sh
# test_demo.sh - lab2's demo runs end to end: with the reference solution it
# prints a row for each of the 23 tensors with the recommendation the
# reference gives (lognormal E5M2, wide keep, every real w and x E4M3, the
# real dy E4M3 at step 0, E5M2 at 7035 layer 1, keep where E5M2 flushes
# more than 1% too), practice beside the captures and a mark where the two
# differ; the dW measurement shows, at step 14069 layer 2, E4M3 with the
# smaller Frobenius error but more entries off than E5M2 (the point of the
# rule); it draws every histogram. A FILE.npy argument replaces the set;
# data missing, corrupt or not float32 exits 1 naming the file, before any
# table; the untouched skeleton still runs and says its functions return
# nothing yet; bad usage exits 2.
#
#   FP8LAB_BUILD=build sh tests/lab2/test_demo.sh      (from the top of the course)
set -u
B=${FP8LAB_BUILD:-build}
CAPTURES=data/captures
SYNTHETIC=data/golden/lab2
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
# Whether the number $1 is greater than $2 (both given).
greater() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a + 0 > b + 0) }'; }

out=$("$B/solutions/lab2/lab2" --no-preview -o "$TMP/sol" 2>&1)
[ $? = 0 ] && ok || bad "solution demo: exit status"

# ---- the table --------------------------------------------------------------------

# The fields after tensor $1's name on its row of the table (in $2, default
# the solution's output), one space apart: elements, zeros, amax, the two
# ranges, the outlier ratio, E4M3's and E5M2's saturated, underflow and
# SQNR, the pick, then practice and '*' for a capture. Empty when no row.
row_of() {
    printf '%s\n' "${2:-$out}" | awk -v name="  $1 " '
        /^Why/ { exit }
        index($0, name) == 1 { $0 = substr($0, length(name) + 1); $1 = $1; print; exit }'
}
field() { printf '%s\n' "$1" | awk -v i="$2" '{ print $i }'; }

N='[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?'
NUMBERS="^[0-9]+ $N $N $N $N $N $N $N $N $N $N $N"
for t in 'gauss_w E4M3' 'relu_act E4M3' 'student_t_grad E5M2' 'lognormal E5M2' 'wide keep'; do
    set -- $t
    row=$(row_of "$1")
    printf '%s\n' "$row" | grep -Eq "$NUMBERS $2\$" && ok ||
        bad "solution demo: $1's row should end in numbers and the pick $2 ('$row')"
done
# Each capture's pick, then practice (E4M3 for w and x, E5M2 for dy) and a
# '*' where they differ.
for t in '0 w E4M3' '0 x E4M3' '0 dy E4M3' '7035 w E4M3' '7035 x E4M3' '7035 dy E5M2' \
         '14069 w E4M3' '14069 x E4M3' '14069 dy keep'; do
    set -- $t
    for layer in 1 2; do
        pick=$3
        [ "$1 $2 $layer" = '7035 dy 2' ] && pick=keep # E5M2 flushes 13% of it
        [ "$1 $2 $layer" = '14069 dy 1' ] || [ "$1 $2 $layer" = '14069 dy 2' ] && pick=keep
        practice=E4M3
        [ "$2" = dy ] && practice=E5M2
        mark=''
        [ "$pick" != "$practice" ] && mark=' \*'
        row=$(row_of "l${layer}_$2 @$1")
        printf '%s\n' "$row" | grep -Eq "$NUMBERS $pick $practice$mark\$" && ok ||
            bad "solution demo: l${layer}_$2 @$1 should pick $pick, practice $practice" \
                "('$row')"
    done
done
# Numbers that come straight from the data: wide's 44 bits, and the share
# of l2_dy @14069 that E4M3 flushes (README §7).
[ "$(field "$(row_of wide)" 4)" = 44.0 ] && ok ||
    bad "solution demo: wide should span 44.0 bits ('$(row_of wide)')"
[ "$(field "$(row_of 'l2_dy @14069')" 8)" = 45.768 ] && ok ||
    bad "solution demo: E4M3 should flush 45.768% of l2_dy @14069 ('$(row_of 'l2_dy @14069')')"
printf '%s\n' "$out" | grep -q '^  l2_dy @7035: keep (practice: E5M2)$' && ok ||
    bad "solution demo: no reason for l2_dy @7035, whose pick differs from practice"
printf '%s\n' "$out" | grep -q "E4M3 loses too much of it; E5M2's range keeps it" && ok ||
    bad "solution demo: lab2_recommend's reasons are not printed"
printf '%s\n' "$out" | grep -q '^Note:' &&
    bad "solution demo: prints a note, as for functions not written yet" || ok

# ---- the measurement behind the rule ---------------------------------------------------

# The fields of the dW row of step $1, layer $2: E4M3's underflow of dy,
# then per format the relative Frobenius error and the entries off (%).
dw_of() {
    printf '%s\n' "$out" | awk -v s="$1" -v l="$2" '/^The measurement behind the rule/ { on = 1 }
        on && $1 == s && $2 == l && NF == 7 { $1 = $2 = ""; sub(/^ +/, ""); print; exit }'
}
rows=$(printf '%s\n' "$out" | awk '/^The measurement behind the rule/ { on = 1 }
    on && NF == 7 && $1 ~ /^[0-9]+$/ { n++ } END { print n + 0 }')
[ "$rows" = 6 ] && ok || bad "solution demo: $rows dW rows, want 6 (3 steps x 2 layers)"
dw=$(dw_of 14069 2)
printf '%s\n' "$dw" | grep -Eq "^$N $N $N $N $N\$" && ok ||
    bad "solution demo: no dW row for step 14069, layer 2 ('$dw')"
greater "$(field "$dw" 3)" "$(field "$dw" 5)" && ok ||
    bad "solution demo: step 14069, layer 2: E4M3 should leave more dW entries off" \
        "than E5M2 ('$dw')"
greater "$(field "$dw" 4)" "$(field "$dw" 2)" && ok ||
    bad "solution demo: step 14069, layer 2: E4M3's Frobenius error should be the" \
        "smaller ('$dw')"
dw=$(dw_of 0 1)
greater "$(field "$dw" 5)" "$(field "$dw" 3)" && ok ||
    bad "solution demo: step 0, layer 1 (nothing flushed): E4M3 should leave fewer" \
        "entries off than E5M2 ('$dw')"

# ---- the histograms ------------------------------------------------------------------

if command -v gnuplot >/dev/null 2>&1; then
    for name in gauss_w relu_act student_t_grad lognormal wide \
                step00000_l1_w step00000_l1_x step00000_l1_dy step00000_l2_w step00000_l2_x \
                step00000_l2_dy step07035_l1_w step07035_l1_x step07035_l1_dy step07035_l2_w \
                step07035_l2_x step07035_l2_dy step14069_l1_w step14069_l1_x step14069_l1_dy \
                step14069_l2_w step14069_l2_x step14069_l2_dy; do
        [ -s "$TMP/sol/hist_$name.png" ] && [ -s "$TMP/sol/hist_$name.gp" ] && ok ||
            bad "solution demo: no hist_$name.png"
    done
    printf '%s\n' "$out" | grep -q '^The other 20 histograms, written to' && ok ||
        bad "solution demo: should preview 3 histograms and list the other 20"
else
    printf '%s\n' "$out" | grep -q 'gnuplot is missing' && ok ||
        bad "solution demo: without gnuplot it should say so"
fi

# ---- the skeleton --------------------------------------------------------------------

"$B/lab2/lab2" --no-preview -o "$TMP/skel" >"$TMP/skel.out" 2>&1
[ $? = 0 ] && ok || bad "skeleton demo: exit status"
grep -q 'return nothing yet' "$TMP/skel.out" && ok || bad "skeleton demo: should say so"
skel=$(cat "$TMP/skel.out")
printf '%s\n' "$(row_of gauss_w "$skel")" | grep -Eq "$NUMBERS keep\$" && ok ||
    bad "skeleton demo: no table row for gauss_w ('$(row_of gauss_w "$skel")')"
grep -q '^The measurement behind the rule' "$TMP/skel.out" && ok ||
    bad "skeleton demo: no dW measurement"
if command -v gnuplot >/dev/null 2>&1; then
    [ -s "$TMP/skel/hist_step14069_l2_dy.png" ] && ok || bad "skeleton demo: no histograms"
fi

# ---- your own tensors ----------------------------------------------------------------

"$B/solutions/lab2/lab2" --no-preview -o "$TMP/files" "$SYNTHETIC/syn_lognormal_x.npy" \
    "$CAPTURES/capture_step07035_l1_dy.npy" >"$TMP/files.out" 2>&1
[ $? = 0 ] && ok || bad "FILE.npy: exit status"
files=$(cat "$TMP/files.out")
printf '%s\n' "$(row_of lognormal "$files")" | grep -Eq "$NUMBERS E5M2\$" && ok ||
    bad "FILE.npy: no row for lognormal picking E5M2 ('$(row_of lognormal "$files")')"
printf '%s\n' "$(row_of 'l1_dy @7035' "$files")" | grep -Eq "$NUMBERS E5M2 E5M2\$" && ok ||
    bad "FILE.npy: a capture named on the command line should show practice"
[ -z "$(row_of gauss_w "$files")" ] && ok || bad "FILE.npy: should analyse only the files named"

# ---- data missing, corrupt or not float32 --------------------------------------------

"$B/solutions/lab2/lab2" --no-preview -o "$TMP/x" --captures "$TMP/nowhere" \
    >"$TMP/miss.out" 2>"$TMP/miss.err"
[ $? = 1 ] && ok || bad "missing captures: should exit 1"
grep -q "$TMP/nowhere" "$TMP/miss.err" && ok || bad "missing captures: should name the folder"
grep -q 'make captures' "$TMP/miss.err" && ok || bad "missing captures: should say how to make them"
[ -s "$TMP/miss.out" ] && bad "missing captures: printed a report anyway" || ok

"$B/solutions/lab2/lab2" --no-preview -o "$TMP/x" --synthetic "$TMP/nowhere" \
    >/dev/null 2>"$TMP/syn.err"
[ $? = 1 ] && ok || bad "missing synthetic tensors: should exit 1"
grep -q "$TMP/nowhere/syn_gauss_w_x.npy" "$TMP/syn.err" && grep -q 'make goldens' "$TMP/syn.err" &&
    ok || bad "missing synthetic tensors: should name the file and say how to make it"

mkdir "$TMP/corrupt" && cp "$CAPTURES"/capture_*.npy "$TMP/corrupt/" &&
    head -c 1000 "$CAPTURES/capture_step07035_l1_x.npy" >"$TMP/corrupt/capture_step07035_l1_x.npy"
"$B/solutions/lab2/lab2" --no-preview -o "$TMP/x" --captures "$TMP/corrupt" \
    >"$TMP/bad.out" 2>"$TMP/bad.err"
[ $? = 1 ] && ok || bad "corrupt capture: should exit 1"
grep -q "$TMP/corrupt/capture_step07035_l1_x.npy" "$TMP/bad.err" && ok ||
    bad "corrupt capture: the message should name the file"
[ -s "$TMP/bad.out" ] && bad "corrupt capture: printed a report anyway" || ok

"$B/solutions/lab2/lab2" --no-preview -o "$TMP/x" "$SYNTHETIC/syn_gauss_w_stats.npy" \
    >/dev/null 2>"$TMP/f64.err"
[ $? = 1 ] && ok || bad "a float64 FILE.npy: should exit 1"
grep -q "$SYNTHETIC/syn_gauss_w_stats.npy: holds float64" "$TMP/f64.err" && ok ||
    bad "a float64 FILE.npy: the message should name the file and its type"

# ---- the command line ----------------------------------------------------------------

"$B/lab2/lab2" --help >"$TMP/help.out" 2>&1
[ $? = 0 ] && grep -q -- '--captures DIR' "$TMP/help.out" &&
    grep -q -- '--synthetic DIR' "$TMP/help.out" && grep -q 'FILE.npy' "$TMP/help.out" &&
    ok || bad "demo: --help should exit 0 and list the tensor options"
for args in "--no-such-option" "--captures" "--synthetic" "-o" \
            "--captures $CAPTURES $SYNTHETIC/syn_wide_x.npy"; do
    "$B/lab2/lab2" --no-preview $args >/dev/null 2>&1
    [ $? = 2 ] && ok || bad "demo: '$args' should exit 2"
done

echo "test_demo: $passed passed, $failed failed"
[ "$failed" = 0 ]
