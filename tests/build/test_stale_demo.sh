#!/bin/sh
# test_stale_demo.sh - a demo built from labs/labN that is older than a
# source there says so when it starts, and names `make labN`
# (common/demo_stale.c); an up-to-date one, and a solution's demo, say
# nothing of it.
#
# "A source changed after the build" is made without touching labs/: each
# demo is copied and the copy's time set to before the sources', which is
# what an edit after `make labN` leaves (the sources newer than the program).
#
#   FP8LAB_BUILD=build sh tests/build/test_stale_demo.sh   (from the top of the course)
set -u
B=${FP8LAB_BUILD:-build}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
ROOT=$(pwd)
. "$ROOT/tests/grading/lib.sh"

for lab in lab0 lab1 lab2 lab3 lab4 lab6; do
    demo=$B/$lab/$lab
    if [ ! -x "$demo" ]; then
        bad "$lab: no demo at $demo (make $lab)"
        continue
    fi
    # Older than its sources: one line on stderr, naming the command.
    cp "$demo" "$TMP/$lab"
    touch -d '2001-01-01 00:00' "$TMP/$lab"
    "$TMP/$lab" --help >"$TMP/out" 2>"$TMP/err"
    status=$?
    if grep -q "^$lab: labs/$lab/[^ ]* changed after this demo was built: .*run make $lab to rebuild it" \
        "$TMP/err"; then ok; else
        bad "$lab: a demo older than labs/$lab does not say so and name make $lab:"
        sed 's/^/    /' "$TMP/err"
    fi
    [ "$status" = 0 ] && ok || bad "$lab: the stale demo's --help exits $status, not 0"
    # Newer than its sources: nothing.
    touch "$TMP/$lab"
    "$TMP/$lab" --help >/dev/null 2>"$TMP/err"
    if grep -q "changed after" "$TMP/err"; then
        bad "$lab: an up-to-date demo says it is stale:"
        sed 's/^/    /' "$TMP/err"
    else ok; fi
    # A solution's demo is not built from labs/labN/labN.c: nothing.
    if [ -x "$B/solutions/$lab/$lab" ]; then
        cp "$B/solutions/$lab/$lab" "$TMP/sol-$lab"
        touch -d '2001-01-01 00:00' "$TMP/sol-$lab"
        "$TMP/sol-$lab" --help >/dev/null 2>"$TMP/err"
        if grep -q "changed after" "$TMP/err"; then
            bad "$lab: the solution's demo speaks of labs/$lab:"
            sed 's/^/    /' "$TMP/err"
        else ok; fi
    fi
done

echo "test_stale_demo: $passed passed, $failed failed"
[ "$failed" = 0 ]
