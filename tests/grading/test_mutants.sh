#!/bin/sh
# test_mutants.sh - every lab's mutants lose exactly the points of the tests
# aimed at them.
#
# A mutant is a plausible wrong solution: tests/<lab>/mutants/<name>.patch
# changes the reference solution (solutions/<lab>/) and says, on a line of
# its own before the diff,
#     expect-fail: test_a test_b
# the tests it must fail. For each mutant this applies the patch to a copy of
# the solution's student files, grades the copy, and checks that exactly
# those tests fail and that the score is the total less their points.
#
#   GRADER=build/bin/grader sh tests/grading/test_mutants.sh
# Run from the top of the course. Exit status 0 when every mutant is caught
# as it says.

set -u
GRADER=${GRADER:-build/bin/grader}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0 failed=0 count=0

for patch in tests/*/mutants/*.patch; do
    # lab5 needs a GPU: tests/lab5/test_grading.sh grades its mutants.
    case $patch in tests/lab5/*) continue ;; esac
    [ -f "$patch" ] || continue
    lab=$(basename "$(dirname "$(dirname "$patch")")")
    name=$(basename "$patch" .patch)
    count=$((count + 1))
    want=$(sed -n 's/^expect-fail: *//p' "$patch" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
    dir=$TMP/$lab-$name
    mkdir -p "$dir"
    cp "solutions/$lab"/* "$dir"/
    if [ -z "$want" ]; then
        echo "FAIL: $lab/$name: no expect-fail line"
        failed=$((failed + 1))
        continue
    fi
    if ! patch -s -d "$dir" -p1 <"$patch" >"$TMP/patch.log" 2>&1; then
        echo "FAIL: $lab/$name: the patch no longer applies to solutions/$lab:"
        sed 's/^/    /' "$TMP/patch.log"
        failed=$((failed + 1))
        continue
    fi
    "$GRADER" "$lab" --dir "$dir" --format json >"$TMP/r.json" 2>"$TMP/r.err"
    rc=$?
    got=$(jq -r '.tests[] | select(.status != "pass") | .name' "$TMP/r.json" | sort | tr '\n' ' ')
    lost=$(jq -r '.max_score - .score' "$TMP/r.json")
    aimed=$(jq -r --arg w "$want" '($w | split(" ") | map(select(. != ""))) as $t
        | [.tests[] | select(.name as $n | $t | index($n)) | .max_points] | add // 0' "$TMP/r.json")
    if [ "$rc" = 1 ] && [ "$got" = "$want" ] && [ "$lost" = "$aimed" ]; then
        passed=$((passed + 1))
    else
        echo "FAIL: $lab/$name: exit $rc, failed [$got], want [$want]; lost $lost points, want $aimed"
        head -n 5 "$TMP/r.err" | sed 's/^/    /'
        failed=$((failed + 1))
    fi
done

if [ "$count" = 0 ]; then
    echo "test_mutants: no mutants found under tests/*/mutants"
    exit 1
fi
echo "test_mutants: $passed of $count mutants caught as they say, $failed not"
[ "$failed" = 0 ]
