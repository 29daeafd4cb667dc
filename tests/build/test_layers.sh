#!/bin/sh
# test_layers.sh - the batch grader's files call each other one way, as
# grading/batch.c says: batch.c calls the others (but batch_gradescope.c,
# which only batch_out.c calls), batch_jobs.c calls
# batch_find.c and batch_files.c, batch_groups.c and batch_out.c call
# batch_find.c (its CSV reader), batch_out.c calls batch_gradescope.c,
# batch_find.c calls batch_files.c, and batch_files.c and
# batch_gradescope.c call none of them; no other file of the
# grader (grade.c, builder.c, ...) calls into a batch file. Read from the
# objects' symbols (nm): a function a file uses and another batch file
# defines is a call from the one to the other.
#
#   FP8LAB_BUILD=build sh tests/build/test_layers.sh
set -u
B=${FP8LAB_BUILD:-build}
O=$B/obj/grading
. tests/grading/lib.sh
if [ ! -f "$O/batch.o" ]; then
    echo "test_layers: FAIL: no $O/batch.o (make grader builds it)"
    exit 1
fi
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

# "FILE SYMBOL" for what each object defines (T, D, B, R) and uses (U).
for o in "$O"/*.o; do
    f=$(basename "$o" .o)
    nm -P "$o" | awk -v f="$f" '$2 ~ /^[TDBR]$/ { print f, $1 }' >>"$TMP/defs"
    nm -P "$o" | awk -v f="$f" '$2 == "U" { print f, $1 }' >>"$TMP/uses"
done
# "CALLER CALLEE" for every use of a symbol a batch file defines.
awk 'NR == FNR { if ($1 ~ /^batch/) def[$2] = $1; next }
     ($2 in def) && def[$2] != $1 { print $1, def[$2] }' "$TMP/defs" "$TMP/uses" |
    sort -u >"$TMP/edges"

allowed="batch batch_files
batch batch_find
batch batch_groups
batch batch_jobs
batch batch_out
batch_find batch_files
batch_groups batch_find
batch_jobs batch_files
batch_jobs batch_find
batch_out batch_find
batch_out batch_gradescope"
expect_eq "the batch files' calls (caller callee)" "$(grep '^batch' "$TMP/edges" | tr '\n' ';')" \
    "$(printf '%s\n' "$allowed" | tr '\n' ';')"
expect_eq "no other file of the grader calls a batch file" \
    "$(grep -v '^batch' "$TMP/edges" | grep -v '^grader ' | tr '\n' ';')" ""
# The check sees a call: batch_out.c's symbols are used by batch.c.
grep -q '^batch batch_out$' "$TMP/edges" && ok || bad "nm saw no call from batch.c to batch_out.c"

echo "test_layers: $passed passed, $failed failed"
[ "$failed" = 0 ]
