#!/bin/sh
# test_ids.sh - ./grader --batch and the names a class gives it, on lab0:
#   - ids a spreadsheet would run as formulas (=1+1, +SUM(A1:A9), @x, -2,
#     =cmd|' -C calc'!A0, a / being no
#     part of a file name) are graded, and written to the gradebook and the
#     LMS file with a leading ' (OWASP), the json report keeping the exact id;
#   - ids that are one student's once case and Unicode normalisation are set
#     aside (alice and Alice; café with é precomposed and decomposed; Straße
#     and STRASSE) are each an error naming the other, never a second grade;
#   - ids that are not UTF-8 or hold a control character (a tab, a CR, ESC,
#     the C1 byte 0x9B alone and as U+009B) or an invisible formatting
#     character (the right-to-left override U+202E, the isolate U+2067, the
#     Arabic letter mark U+061C, a zero-width space, a BOM) and a
#     submission folder that is a symbolic link are refused with the
#     reason, and the batch exits 1; ordinary names past ASCII (王芳, José)
#     are graded;
#   - no control or bidirectional character from an id reaches the
#     terminal: the summary and the progress lines are clean.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/grading/test_ids.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

count_of() { sed -n "s/^  $1  *\([0-9.]*\) .*/\1/p" "$TMP/out"; }

SUBS=$TMP/class
mkdir -p "$SUBS"
sub() { # NAME: a folder holding the solution
    mkdir -p "$SUBS/$1" && cp solutions/lab0/lab0.c "$SUBS/$1/"
}
for id in '=1+1' '+SUM(A1:A9)' '@x' '-2' "=cmd|' -C calc'!A0" alice Alice \
    "$(printf 'caf\303\251')" "$(printf 'cafe\314\201')" "Straße" "STRASSE" \
    "$(printf 'bad\377id')" "$(printf 'tab\tid')" "$(printf 'cr\rid')" \
    "$(printf 'esc\033[31mred')" "$(printf 'csi\233id')" "$(printf 'c1\302\233id')" \
    "$(printf 'rlo\342\200\256gnp.exe')" "$(printf 'rli\342\201\247id')" \
    "$(printf 'alm\330\234id')" "$(printf 'zw\342\200\213id')" "$(printf 'bom\357\273\277id')" \
    "王芳" "José"; do
    sub "$id"
done
mkdir -p "$TMP/elsewhere/linked"
cp solutions/lab0/lab0.c "$TMP/elsewhere/linked/"
ln -s "$TMP/elsewhere/linked" "$SUBS/linked"

"$GRADER" --batch "$SUBS" lab0 -j 2 --lms canvas --lms-assignment "Lab 0 (7)" >"$TMP/out" 2>"$TMP/err"
expect_eq "exit status: refusals are errors" "$?" 1
BOOK=$SUBS.grades/grades.csv
LMS=$SUBS.grades/lms-canvas.csv

# Formulas: neutralised in both CSV files, exact in the json.
expect_eq "gradebook: formula ids neutralised" \
    "$(csv "$BOOK" | grep -e "^\"'" | cut -d, -f1 | sort | tr '\n' ' ')" \
    "\"'+SUM(A1:A9)\" \"'-2\" \"'=1+1\" \"'=cmd|' -C calc'!A0\" \"'@x\" "
expect_eq "gradebook: a neutralised id keeps its grade" \
    "$(csv "$BOOK" | grep "^\"'=1+1\"," | cut -d, -f2-4)" "100,100,graded"
expect_eq "gradebook: no cell starts a formula" \
    "$(csv "$BOOK" | grep -c -e '^[=+@-]' -e ',[=+@-]')" 0
expect_eq "lms: no cell starts a formula" \
    "$(csv "$LMS" | grep -c -e '^[=+@-]' -e ',[=+@-]')" 0
expect_eq "lms: a neutralised row" "$(csv "$LMS" | grep "^\"'@x\"")" "\"'@x\",,,\"'@x\",,100"
expect_eq "json: the exact id" "$(jq -r .student "$SUBS.grades/=1+1.json")" "=1+1"

# One student under two names.
for id in alice Alice "$(printf 'caf\303\251')" "$(printf 'cafe\314\201')" Straße STRASSE; do
    expect_eq "collision: $id is an error row" \
        "$(csv "$BOOK" | awk -F, -v id="$id" '$1 == id { print $2 "," $4 }')" "0,error"
    [ ! -e "$SUBS.grades/$id.json" ] && ok || bad "collision: $id was graded"
done
expect_match "collision: named in the summary" "$(cat "$TMP/out")" \
    "^  alice +not graded: the same student as 'Alice' once case and Unicode"
expect_match "collision: café both ways" "$(cat "$TMP/out")" \
    "^  cafe.* +not graded: the same student as 'café'"
expect_match "collision: full case folding" "$(cat "$TMP/out")" \
    "^  STRASSE +not graded: the same student as 'Straße'"
expect_eq "lms: a collision is not a grade" \
    "$(csv "$LMS" | awk -F, '$1 == "alice" { print $6 }')" 0

# Refused: never graded, never in the gradebook, each with its reason.
expect_eq "refused: the count" "$(count_of refused)" 12
expect_eq "refused: none in the gradebook" \
    "$(csv "$BOOK" | grep -c -e '^bad' -e '^tab' -e '^cr' -e '^esc' -e '^csi' -e '^c1' -e '^linked' \
        -e '^rlo' -e '^rli' -e '^alm' -e '^zw' -e '^bom')" 0
for id in 王芳 José; do
    expect_eq "past ASCII: $id graded" "$(field "$BOOK" "$id" 2),$(field "$BOOK" "$id" 4)" \
        "100,graded"
done
out=$(cat "$TMP/out")
# The summary shows a refused id's bad byte as U+FFFD (3 bytes): [^ ]+ matches
# it in any locale, where . is one byte in the C locale.
expect_match "refused: not UTF-8" "$out" "^  bad[^ ]+id +its name is not UTF-8 \\(byte 0xFF at 3\\)"
expect_match "refused: a tab" "$out" "^  tab[^ ]+id +its name holds the control character U\\+0009"
expect_match "refused: a CR" "$out" "^  cr[^ ]+id +its name holds the control character U\\+000D"
expect_match "refused: ESC" "$out" "^  esc.*red +its name holds the control character U\\+001B"
expect_match "refused: a lone 0x9B" "$out" "^  csi[^ ]+id +its name is not UTF-8 \\(byte 0x9B at 3\\)"
expect_match "refused: U+009B" "$out" "^  c1[^ ]+id +its name holds the control character U\\+009B"
for spec in rlo:202E rli:2067 alm:061C zw:200B bom:FEFF; do
    expect_match "refused: U+${spec#*:}" "$out" \
        "^  ${spec%%:*}[^ ]+(gnp\\.exe|id) +its name holds the invisible formatting character U\\+${spec#*:} at byte"
done
expect_match "refused: a link" "$out" "^  linked +a symbolic link, which the grader does not follow"
[ ! -e "$SUBS.grades/linked.json" ] && ok || bad "refused: the link was followed and graded"

# Nothing from an id reaches the terminal as a control character.
for f in out err; do
    bytes=$(LC_ALL=C tr -d '\n -~' <"$TMP/$f" | od -An -tx1 | tr -s ' \n' '  ')
    case " $bytes " in
    *" 1b "* | *" 09 "* | *" 0d "* | *" 9b "* | *" c2 9b "* | *" e2 80 ae "* | *" e2 81 a7 "* | \
        *" d8 9c "* | *" e2 80 8b "* | *" ef bb bf "*)
        bad "terminal: a control byte in the $f stream: $bytes" ;;
    *) ok ;;
    esac
    # What is left past ASCII must be UTF-8 (U+FFFD, é, ß, U+0301).
    LC_ALL=C.UTF-8 iconv -f UTF-8 -t UTF-8 <"$TMP/$f" >/dev/null 2>&1 && ok ||
        bad "terminal: the $f stream is not UTF-8"
done

echo "test_ids: $passed passed, $failed failed"
[ "$failed" = 0 ]
