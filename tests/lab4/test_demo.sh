#!/bin/sh
# test_demo.sh - lab4's demo runs end to end: with the reference solution it
# works the handout's block (floor: scale 0x7f, SSE 4456; ceil: 0x80, SSE
# 360), prints the table with every scheme, numbers any correct run prints
# (the ceil rule clips nothing and the floor rule does; a scale per block
# beats one per tensor on the rows of "channels") and draws every plot; with
# the untouched skeleton it still runs; bad usage exits 2.
#
#   FP8LAB_BUILD=build sh tests/lab4/test_demo.sh
set -u
B=${FP8LAB_BUILD:-build}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

out=$("$B/solutions/lab4/lab4" --no-preview -o "$TMP/sol" 2>&1)
[ $? = 0 ] && ok || bad "solution demo: exit status"

# ---- the handout's block: the same numbers as README §3 -----------------------

# The lines of the block under rule $1 (floor or ceil), from its title to
# its SSE.
block_of() {
    printf '%s\n' "$out" | sed -n "/^  $1 rule (.*): amax /,/^  sum of squared errors/p"
}
for case in 'floor 0x7f 2^0 448 4456' 'ceil 0x80 2^1 480 360'; do
    set -- $case
    block=$(block_of "$1")
    printf '%s\n' "$block" | grep -q "^  $1 rule (.*): amax 485, scale code $2 = $3 = " && ok ||
        bad "solution demo: handout block, $1 rule: no line 'amax 485, scale code $2 = $3'"
    printf '%s\n' "$block" | grep -Eq "^ +485 +0x[0-9a-f]{2} +[0-9]+ +$4 +" && ok ||
        bad "solution demo: handout block, $1 rule: 485 should come back as $4"
    printf '%s\n' "$block" | grep -q "^  sum of squared errors (SSE): $5\$" && ok ||
        bad "solution demo: handout block, $1 rule: SSE should be $5"
done

# ---- the table --------------------------------------------------------------------

printf '%s\n' "$out" | grep -q 'Three 256 x 1024 tensors (README §8)' && ok ||
    bad "solution demo: the table's title"

# The fields after scheme $1 on its row of the main table (before the rows
# section), e.g. "8.250 30.68 27.25 27.95 2195": bits, SQNR on gaussian,
# outliers and channels, saturated on outliers. Empty when there is no row.
row_of() {
    printf '%s\n' "$out" | awk -v name="  $1  " '
        /^Channels, row by row/ { exit }
        index($0, name) == 1 { $0 = substr($0, length(name) + 1); $1 = $1; print; exit }'
}
# The same in the rows section: the worst and the median row's SQNR.
rows_of() {
    printf '%s\n' "$out" | awk -v name="  $1  " '
        /^Channels, row by row/ { on = 1 }
        on && index($0, name) == 1 { $0 = substr($0, length(name) + 1); $1 = $1; print; exit }'
}
field() { printf '%s\n' "$1" | awk -v i="$2" '{ print $i }'; }
# Whether the number $1 is greater than $2.
greater() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }

NUM='-?[0-9]+\.[0-9]+'
for s in 'per-tensor FP8 E4M3' \
         'MXFP8 E4M3 floor, block 32' 'MXFP8 E4M3 ceil, block 32' \
         'MXFP8 E5M2 floor, block 32' 'MXFP6 E3M2 floor, block 32' \
         'MXFP6 E2M3 floor, block 32' 'MXFP4 E2M1 floor, block 32' \
         'MXFP4 E2M1 ceil, block 32' 'NVFP4 E2M1, E4M3 scale, block 16' \
         'MXFP8 E4M3 floor, block 16' 'MXFP8 E4M3 floor, block 64' \
         'MXFP8 E4M3 floor, block 128' 'MXFP4 E2M1 floor, block 16' \
         'MXFP4 E2M1 floor, block 64' 'MXFP4 E2M1 floor, block 128'; do
    row_of "$s" | grep -Eq "^[0-9]+\.[0-9]{3} $NUM $NUM $NUM ([0-9]+|-)\$" && ok ||
        bad "solution demo: no table row with numbers for $s ('$(row_of "$s")')"
done
for b in 'MXFP8 E4M3 floor, block 32|8.250' 'MXFP6 E3M2 floor, block 32|6.250' \
         'MXFP4 E2M1 floor, block 32|4.250' 'NVFP4 E2M1, E4M3 scale, block 16|4.500' \
         'MXFP8 E4M3 floor, block 16|8.500' 'per-tensor FP8 E4M3|8.000'; do
    s=${b%|*} bits=${b#*|}
    [ "$(field "$(row_of "$s")" 1)" = "$bits" ] && ok ||
        bad "solution demo: $s should have $bits bits per element"
done

# The ceil rule never clips; the floor rule clips the block maxima whose
# mantissa is above the element max's.
for s in 'MXFP8 E4M3 ceil, block 32' 'MXFP4 E2M1 ceil, block 32' 'per-tensor FP8 E4M3'; do
    sat=$(field "$(row_of "$s")" 5)
    [ "$sat" = 0 ] && ok || bad "solution demo: $s saturates $sat elements of outliers, want 0"
done
for s in 'MXFP8 E4M3 floor, block 32' 'MXFP4 E2M1 floor, block 32'; do
    sat=$(field "$(row_of "$s")" 5)
    greater "$sat" 0 && ok || bad "solution demo: $s saturates none of outliers ('$sat')"
done
# ... which costs it on outliers, where the clipped maxima carry the energy.
floor_db=$(field "$(row_of 'MXFP8 E4M3 floor, block 32')" 3)
ceil_db=$(field "$(row_of 'MXFP8 E4M3 ceil, block 32')" 3)
greater "$ceil_db" "$floor_db" && ok ||
    bad "solution demo: on outliers, MXFP8 ceil ($ceil_db dB) should beat floor ($floor_db dB)"

# One scale per tensor against one per block on channels: the whole tensor
# (ruled by its largest rows) with the ceil rule, and the worst and the
# median row with both rules.
tensor_db=$(field "$(row_of 'per-tensor FP8 E4M3')" 4)
ceil_db=$(field "$(row_of 'MXFP8 E4M3 ceil, block 32')" 4)
greater "$ceil_db" "$tensor_db" && ok ||
    bad "solution demo: on channels, MXFP8 ceil ($ceil_db dB) should beat" \
        "per-tensor ($tensor_db dB)"
per_tensor_rows=$(rows_of 'per-tensor FP8 E4M3')
for s in 'MXFP8 E4M3 floor, block 32' 'MXFP8 E4M3 ceil, block 32'; do
    mx_rows=$(rows_of "$s")
    for i in 1 2; do
        what=$( [ $i = 1 ] && echo worst || echo median )
        mx=$(field "$mx_rows" $i) pt=$(field "$per_tensor_rows" $i)
        printf '%s\n' "$mx $pt" | grep -Eq "^$NUM $NUM\$" && greater "$mx" "$pt" && ok ||
            bad "solution demo: channels, $what row: $s ('$mx') should beat per-tensor ('$pt')"
    done
done

if command -v gnuplot >/dev/null 2>&1; then
    for plot in sqnr_bits block_error row_error; do
        [ -s "$TMP/sol/$plot.png" ] && [ -s "$TMP/sol/$plot.gp" ] && ok ||
            bad "solution demo: no $plot.png"
    done
    # the title names the reference line as it is drawn: dotted (an hline's
    # dashtype 3), not dashed
    grep -q "^set title .*per-tensor FP8 dotted" "$TMP/sol/block_error.gp" &&
        grep -q "^plot [0-9.e+-]* with lines .*dashtype 3 " "$TMP/sol/block_error.gp" && ok ||
        bad "block_error: the title's dotted per-tensor line is not drawn dotted"
fi

# The reader of its output goes away (`lab4 | head -1`): the demo dies of
# SIGPIPE, mid-plot or not, and leaves no temporary file (*.tmp*, such as
# row_error.txt.tmp1234, a preview gnuplot wrote) in the plots' folder.
"$B/solutions/lab4/lab4" -o "$TMP/pipe" 2>/dev/null | head -1 >/dev/null
left=$(ls -a "$TMP/pipe" 2>/dev/null | grep '\.tmp' | tr '\n' ' ')
[ -z "$left" ] && ok || bad "demo | head -1: temporary files left: $left"

# ---- the skeleton, and usage ------------------------------------------------------

"$B/lab4/lab4" --no-preview -o "$TMP/skel" >"$TMP/skel.out" 2>&1
[ $? = 0 ] && ok || bad "skeleton demo: exit status"
grep -q 'Three 256 x 1024 tensors' "$TMP/skel.out" && ok || bad "skeleton demo: no table"

"$B/lab4/lab4" --no-such-option >/dev/null 2>&1
[ $? = 2 ] && ok || bad "demo: bad usage should exit 2"

echo "test_demo: $passed passed, $failed failed"
[ "$failed" = 0 ]
