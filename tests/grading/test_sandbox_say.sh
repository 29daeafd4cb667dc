#!/bin/sh
# test_sandbox_say.sh - where bwrap cannot make its namespaces, ./grader says
# as much as the one grading needs (grading/sandbox.c, gr_sandbox_warn):
# grading labs/labN, nothing where Landlock stands in (at most one short
# line); grading --dir, one short line; with -v, bwrap's reason and what to
# do, naming INSTRUCTORS.md.
#
# The bwrap the grader finds is one of the test's own, first on PATH, that
# fails as bwrap fails where the kernel refuses it namespaces.
#
#   GRADER=build/bin/grader sh tests/grading/test_sandbox_say.sh
set -u
GRADER=${GRADER:-build/bin/grader}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
ROOT=$(pwd)
. "$ROOT/tests/grading/lib.sh"

# (readable by nobody, whom the grader tries bwrap as when root)
chmod 755 "$TMP"
mkdir "$TMP/bin"
printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' >"$TMP/bin/bwrap"
chmod +x "$TMP/bin/bwrap"
grade() {
    PATH=$TMP/bin:$PATH "$GRADER" lab0 --test decode_e4m3 "$@" 2>"$TMP/err" >/dev/null
    grep -v '^$' "$TMP/err" | grep -i 'sandbox\|bwrap\|landlock' >"$TMP/said"
}
longest() { awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "$TMP/said"; }

# One's own files: at most one short line, none where Landlock stands in.
grade
expect_eq "labs/lab0: lines about the sandbox (at most 1)" "$(($(wc -l <"$TMP/said") <= 1))" 1
expect_eq "labs/lab0: that line is short (at most 140 characters)" "$(($(longest) <= 140))" 1
if grep -q 'Landlock' "$TMP/said" || ! grep -qi 'no sandbox here' "$TMP/said"; then
    expect_eq "labs/lab0: nothing said where Landlock stands in" "$(cat "$TMP/said")" ""
fi

# Anyone's files: one short line.
grade --dir labs/lab0
expect_eq "--dir: lines about the sandbox" "$(wc -l <"$TMP/said")" 1
expect_eq "--dir: that line is short (at most 140 characters)" "$(($(longest) <= 140))" 1
expect_match "--dir: it says what it means" "$(cat "$TMP/said")" "runs as you"

# -v: bwrap's own reason, and where to read the fix.
grade -v
expect_match "-v: bwrap's reason" "$(cat "$TMP/said")" "No permissions to create new namespace"
expect_match "-v: the fix" "$(cat "$TMP/said")" "INSTRUCTORS.md"

echo "test_sandbox_say: $passed passed, $failed failed"
[ "$failed" = 0 ]
