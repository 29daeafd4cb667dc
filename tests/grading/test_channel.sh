#!/bin/sh
# test_channel.sh - what crosses the channel between the judge and the
# subject (grading/channel.h), seen from two lab1 submissions built from the
# reference solution:
#   - past_end writes one byte past the end of lab1_scaled_cast's output:
#     the call fails, saying so (in one process it would have written into
#     the suite's memory, unseen);
#   - scribble overwrites the inputs it was given, after reading them: the
#     judge's own copies are untouched, so every test still passes;
#   - reshape (lab3) makes its layer say it is a million times larger after
#     each forward pass the judge asks for (not inside its own training
#     step): the judge keeps the shape it gave, which sizes its next copies
#     (else it would copy past its own buffers into the arena), so every
#     test still passes, train_short's evaluation too, which runs forward
#     passes on the same layers one after another.
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
mkdir -p "$TMP/reshape"
{
    echo 'static int in_step; /* inside its own training step */'
    echo '#define lab3_train_step lab3_train_step_inner'
    awk '/^void lab3_linear_forward\(/ { inside = 1 }
         inside && /^}/ { print "    if (!in_step)";
                          print "        L->in <<= 20, L->out <<= 20, L->max_batch <<= 20;";
                          inside = 0 }
         { print }' solutions/lab3/lab3.c
    echo '#undef lab3_train_step'
    echo 'lab3_step lab3_train_step(lab3_mlp *m, const float *x, const uint8_t *labels, size_t batch)'
    echo '{'
    echo '    in_step = 1;'
    echo '    lab3_step r = lab3_train_step_inner(m, x, labels, batch);'
    echo '    in_step = 0;'
    echo '    return r;'
    echo '}'
} >"$TMP/reshape/lab3.c"
expect_eq "reshape: the solution was changed" \
    "$(diff solutions/lab3/lab3.c "$TMP/reshape/lab3.c" | grep -c '^>')" 12
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

"$GRADER" lab3 --dir "$TMP/reshape" --format json >"$TMP/reshape.json" 2>"$TMP/err"
expect_eq "reshape: exit status (full marks)" "$?" 0
expect_eq "reshape: score" "$(jq -r '.score' "$TMP/reshape.json")" \
    "$(jq -r '.max_score' "$TMP/reshape.json")"

echo "test_channel: $passed passed, $failed failed"
[ "$failed" = 0 ]
