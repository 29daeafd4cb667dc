#!/bin/sh
# test_hints.sh - a failure message that names a slip ("that is x's top 16
# bits, truncated, not rounded") names it only when the output is that
# slip's. Each lab's skeleton, graded as given (its stubs return zeros),
# gets no such hint; each mutant that makes the slip gets its hint.
#
# HINTS below lists every slip-naming hint of the labs' suites
# (grading/labN/suite.c): its lab, a phrase of it, and the mutant
# (tests/labN/mutants/NAME.patch, applied as tests/grading/test_mutants.sh
# applies it) whose output is that slip's.
#
#   GRADER=build/bin/grader sh tests/grading/test_hints.sh
# Run from the top of the course. Exit status 0 when every hint is right.
set -u
GRADER=${GRADER:-build/bin/grader}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
ROOT=$(pwd)
. "$ROOT/tests/grading/lib.sh"

HINTS="lab3|truncated, not rounded|bf16_truncated
lab3|a tie: it goes to the even code|bf16_ties_away"

# messages LAB DIR: every failure message of DIR graded as LAB, one file.
messages() {
    "$GRADER" "$1" --dir "$2" --format json >"$TMP/r.json" 2>"$TMP/r.err"
    jq -r '.tests[] | select(.status != "pass") | .name + ": " + (.message // "")' "$TMP/r.json"
}

for lab in lab0 lab1 lab2 lab3 lab4 lab6; do
    messages "$lab" "labs/$lab" >"$TMP/$lab.skeleton"
    if [ ! -s "$TMP/$lab.skeleton" ]; then
        bad "$lab: the skeleton graded without a failure message"
        sed 's/^/    /' "$TMP/r.err"
        continue
    fi
    printf '%s\n' "$HINTS" | grep "^$lab|" >"$TMP/$lab.hints"
    told=""
    while IFS='|' read -r hlab phrase mutant; do
        if grep -F -- "$phrase" "$TMP/$lab.skeleton" >"$TMP/hit"; then
            told="$told
    \"$phrase\" ($mutant's slip): $(head -n 1 "$TMP/hit" | cut -c1-300)"
        fi
    done <"$TMP/$lab.hints"
    if [ -n "$told" ]; then
        bad "$lab: the skeleton's zeros are told a slip:$told"
    else
        ok
    fi
done

while IFS='|' read -r lab phrase mutant; do
    dir=$TMP/$lab-$mutant
    mkdir -p "$dir"
    cp "solutions/$lab"/* "$dir"/
    if ! patch -s -d "$dir" -p1 <"tests/$lab/mutants/$mutant.patch" >"$TMP/patch.log" 2>&1; then
        bad "$lab/$mutant: the patch does not apply"
        continue
    fi
    if messages "$lab" "$dir" | grep -qF -- "$phrase"; then
        ok
    else
        bad "$lab/$mutant: its failure is not told \"$phrase\""
    fi
done <<EOF
$HINTS
EOF

echo "test_hints: $passed passed, $failed failed"
[ "$failed" = 0 ]
