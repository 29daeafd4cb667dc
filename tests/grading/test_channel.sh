#!/bin/sh
# test_channel.sh - what crosses the channel between the judge and the
# subject (grading/channel.h), seen from two lab1 submissions built from the
# reference solution:
#   - past_end writes one byte past the end of lab1_scaled_cast's output:
#     the call fails, saying so (in one process it would have written into
#     the suite's memory, unseen);
#   - scribble overwrites the inputs it was given, after reading them: the
#     judge's own copies are untouched, so every test still passes.
#
#   GRADER=build/bin/grader sh tests/grading/test_channel.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

mkdir -p "$TMP/past_end" "$TMP/scribble"
awk '/^lab1_cast_counts lab1_scaled_cast\(/ { inside = 1 }
     inside && /^    return c;/ { print "    q[n] = 0x5a;"; inside = 0 }
     { print }' solutions/lab1/lab1.c >"$TMP/past_end/lab1.c"
awk '/^lab1_cast_counts lab1_scaled_cast\(/ { inside = 1 }
     inside && /^    return c;/ { print "    for (size_t i = 0; i < n; i++)";
                                  print "        ((float *)x)[i] = 12345.0f;"; inside = 0 }
     { print }' solutions/lab1/lab1.c >"$TMP/scribble/lab1.c"
expect_eq "past_end: the solution was changed" \
    "$(diff solutions/lab1/lab1.c "$TMP/past_end/lab1.c" | grep -c '^>')" 1
expect_eq "scribble: the solution was changed" \
    "$(diff solutions/lab1/lab1.c "$TMP/scribble/lab1.c" | grep -c '^>')" 2

"$GRADER" lab1 --dir "$TMP/past_end" --format json >"$TMP/past_end.json" 2>"$TMP/err"
expect_eq "past_end: exit status" "$?" 1
expect_match "past_end: scaled_cast says what it wrote" \
    "$(jq -r '.tests[] | select(.name == "scaled_cast") | .message' "$TMP/past_end.json")" \
    "^lab1_scaled_cast wrote past the end of an output of [0-9]+ bytes \\(byte 0 after it\\)"
expect_eq "past_end: a test that does not cast passes" \
    "$(jq -r '.tests[] | select(.name == "amax") | .status' "$TMP/past_end.json")" pass

"$GRADER" lab1 --dir "$TMP/scribble" --format json >"$TMP/scribble.json" 2>"$TMP/err"
expect_eq "scribble: exit status (full marks)" "$?" 0
expect_eq "scribble: score" "$(jq -r '.score' "$TMP/scribble.json")" \
    "$(jq -r '.max_score' "$TMP/scribble.json")"

echo "test_channel: $passed passed, $failed failed"
[ "$failed" = 0 ]
