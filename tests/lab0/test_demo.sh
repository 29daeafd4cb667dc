#!/bin/sh
# test_demo.sh - lab0's demo runs end to end: with the reference solution it
# prints the limits table and draws both plots; with the untouched skeleton
# it still runs and says what it could not draw; bad usage exits 2.
#
#   FP8LAB_BUILD=build sh tests/lab0/test_demo.sh
set -u
B=${FP8LAB_BUILD:-build}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

out=$("$B/solutions/lab0/lab0" --no-preview -o "$TMP/sol" 2>&1)
[ $? = 0 ] && ok || bad "solution demo: exit status"
printf '%s\n' "$out" | grep -Eq 'max finite +448 = 1\.75 x 2\^8 +57344 = 1\.75 x 2\^15' && ok ||
    bad "solution demo: the limits table"
if command -v gnuplot >/dev/null 2>&1; then
    for plot in values rel_error; do
        [ -s "$TMP/sol/$plot.png" ] && [ -s "$TMP/sol/$plot.gp" ] && ok ||
            bad "solution demo: no $plot.png"
    done
fi

"$B/lab0/lab0" --no-preview -o "$TMP/skel" >"$TMP/skel.out" 2>&1
[ $? = 0 ] && ok || bad "skeleton demo: exit status"

"$B/lab0/lab0" --no-such-option >/dev/null 2>&1
[ $? = 2 ] && ok || bad "demo: bad usage should exit 2"

echo "test_demo: $passed passed, $failed failed"
[ "$failed" = 0 ]
