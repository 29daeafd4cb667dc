#!/bin/sh
# test_demo.sh - lab1's demo runs end to end: with the reference solution it
# prints the table with every strategy, numbers any correct run prints (the
# lag of delayed scaling, no saturation with a margin or with current
# scaling) and draws every plot; killed mid-run it leaves no temporary file;
# with the untouched skeleton it still runs; bad usage exits 2.
#
#   FP8LAB_BUILD=build sh tests/lab1/test_demo.sh
set -u
B=${FP8LAB_BUILD:-build}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# Fields 3 (steps with saturation) and 4 (saturated elements) of the table
# row of tensor $1 and strategy $2, e.g. "0 0"; empty when there is no row.
saturation_of() {
    printf '%s\n' "$out" | sed -n "s/^  $1 *$2  *\(-\{0,1\}[0-9n]\)/\1/p" |
        awk 'NR == 1 { print $3, $4 }'
}

out=$("$B/solutions/lab1/lab1" --no-preview -o "$TMP/sol" 2>&1)
[ $? = 0 ] && ok || bad "solution demo: exit status"
printf '%s\n' "$out" | grep -q 'N = 4096 elements per tensor, T = 300 steps,' && ok ||
    bad "solution demo: the table's title"
for tensor in activation gradient; do
    for s in 'delayed max L=16 m=0' 'delayed max L=16 m=2' 'delayed max L=1024 m=0' \
             'delayed recent L=1 m=0' 'current' 'current pow2' 'EMA m=0.9'; do
        printf '%s\n' "$out" | grep -Eq "^  $tensor +$s +-?[0-9]+\.[0-9]+ " && ok ||
            bad "solution demo: no table row with numbers for $tensor, $s"
    done
done

# The lag of delayed max L=16 m=0: it saturates at a jump in amax, and not
# the step after: at the activation's spike, and when the gradient comes back
# after its zeros to the scale kept from before them.
N='\([0-9]*\)'
lag_of() {
    re="^  $1: $N elements saturated at step $2 (.*), $N at step $3\$"
    printf '%s\n' "$out" | sed -n "s/$re/\1 \2/p"
}
for jump in 'activation 120 121' 'gradient 170 171'; do
    set -- $jump
    lag=$(lag_of "$@")
    at="$1, steps $2 and $3"
    set -- $lag
    [ $# = 2 ] && [ "$1" -gt 0 ] && [ "$2" = 0 ] && ok ||
        bad "solution demo: lag line, $at should saturate > 0 and 0, got '$lag'"
done

# A margin of 2 (a factor 4) absorbs the spike (x3) and the growth (x1.05 a
# step), and current scaling maps each step's own amax to 448: no saturation.
for s in 'delayed max L=16 m=2' 'current'; do
    sat=$(saturation_of activation "$s")
    [ "$sat" = "0 0" ] && ok || bad "solution demo: activation, $s saturates ('$sat', want '0 0')"
done

if command -v gnuplot >/dev/null 2>&1; then
    for plot in amax_scale saturation underflow underflow_grad sqnr sqnr_grad; do
        [ -s "$TMP/sol/$plot.png" ] && [ -s "$TMP/sol/$plot.gp" ] && ok ||
            bad "solution demo: no $plot.png"
    done
fi

"$B/lab1/lab1" --no-preview -o "$TMP/skel" >"$TMP/skel.out" 2>&1
[ $? = 0 ] && ok || bad "skeleton demo: exit status"
grep -q 'N = 4096 elements per tensor' "$TMP/skel.out" && ok || bad "skeleton demo: no table"

# Killed mid-run, the demo leaves no temporary file (*.tmp*: a PNG or a
# preview gnuplot was writing, a .dat or .gp being written) in the plots'
# folder, and dies of the signal (status 128 + its number). First the reader
# of its output goes away (`lab1 | head -1`: SIGPIPE), then Ctrl-C (SIGINT)
# and SIGTERM, each sent once the first plot is drawn, while it draws the
# others. A job started with & has SIGINT ignored; env --default-signal
# gives it the default back, as a program started at a terminal has it.
left_over() { ls -a "$1" 2>/dev/null | grep '\.tmp' | tr '\n' ' '; }
"$B/solutions/lab1/lab1" -o "$TMP/pipe" 2>/dev/null | head -1 >/dev/null
[ -z "$(left_over "$TMP/pipe")" ] && ok ||
    bad "demo | head -1: temporary files left: $(left_over "$TMP/pipe")"
for sig in INT TERM; do
    if [ $sig = INT ] && ! env --default-signal=INT true 2>/dev/null; then
        continue # no GNU env: SIGINT stays ignored in a background job
    fi
    env --default-signal=INT "$B/solutions/lab1/lab1" -o "$TMP/$sig" >"$TMP/$sig.out" 2>&1 &
    pid=$!
    i=0
    while [ ! -e "$TMP/$sig/amax_scale.gp" ] && [ $i -lt 600 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    kill -s $sig $pid
    wait $pid
    status=$?
    want=$( [ $sig = INT ] && echo 130 || echo 143 ) # 128 + 2, 128 + 15
    [ $status = $want ] && ok || bad "demo killed by SIG$sig: exit status $status, want $want"
    [ -z "$(left_over "$TMP/$sig")" ] && ok ||
        bad "demo killed by SIG$sig: temporary files left: $(left_over "$TMP/$sig")"
done

"$B/lab1/lab1" --no-such-option >/dev/null 2>&1
[ $? = 2 ] && ok || bad "demo: bad usage should exit 2"

echo "test_demo: $passed passed, $failed failed"
[ "$failed" = 0 ]
