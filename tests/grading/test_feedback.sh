#!/bin/sh
# test_feedback.sh - what a batch returns to each student (<id>.txt, and the
# report's build_log) names only the student's own files, and says in one
# line what a common slip is, on lab0:
#   - a file that does not compile: the compiler's messages, each naming
#     lab0.c as the student named it ("lab0.c:28:5: error"), never a folder
#     of the instructor's (the course, its build, the work folders);
#   - a file that only includes lab0.h: one line saying it defines none of
#     the lab's functions, naming them, instead of the linker's lines about
#     the grader's objects;
#   - one function misnamed: one line naming the function it lacks;
#   - an empty lab0.c (0 bytes): said so, not "defines none of the functions";
#   - Lab0.c, in a folder and in a zip, and a copy's name (lab0-1.c,
#     "lab0 (2).c", Google Drive's "Copy of lab0.c"): graded as lab0.c, the
#     scorecard and the summary
#     saying so; a student's own ./grader still says "rename it lab0.c";
#   - an archive refused for two lab0.c in folders named with a terminal's
#     escapes (ESC, an OSC title, BEL), a right-to-left override and HTML:
#     its message names the archive as the student named it, never by the
#     instructor's path, in the .txt, the .json and Moodle's Feedback; no
#     control or bidirectional character reaches a returned or LMS file or
#     the terminal, and Moodle's Feedback (shown as HTML) holds the HTML as
#     text.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/grading/test_feedback.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
BUILD=${FP8LAB_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

S=$TMP/class
for id in typo empty misnamed folder copy1 copy2 copy3 both zero; do mkdir -p "$S/$id"; done
: >"$S/zero/lab0.c"
cp solutions/lab0/lab0.c "$S/copy1/lab0-1.c"
cp solutions/lab0/lab0.c "$S/copy2/lab0 (2).c"
cp solutions/lab0/lab0.c "$S/copy3/Copy of lab0.c"
# the lab's own name beside a copy's: the own one is graded, nothing said
cp solutions/lab0/lab0.c "$S/both/lab0.c"
cp labs/lab0/lab0.c "$S/both/lab0 copy.c"
sed 's/return/retur/' solutions/lab0/lab0.c >"$S/typo/lab0.c"
echo '#include "lab0.h"' >"$S/empty/lab0.c"
sed 's/^float lab0_decode(/float lab0_decod(/' solutions/lab0/lab0.c >"$S/misnamed/lab0.c"
grep -q '^float lab0_decod(' "$S/misnamed/lab0.c" || bad "misnamed: the sed did not rename lab0_decode"
cp solutions/lab0/lab0.c "$S/folder/Lab0.c"
if command -v bsdtar >/dev/null 2>&1; then
    bsdtar -cf "$S/zipped.zip" --format zip -C "$S/folder" Lab0.c
else
    (cd "$S/folder" && tar cf "$S/zipped.tar" Lab0.c)
fi
ESC_DIR=$(printf 'a\033]0;owned\007\033[2Jb\342\200\256gnp.exe')
HTML_DIR='<img src=x onerror=alert(1)>'
mkdir -p "$TMP/mk/$ESC_DIR" "$TMP/mk/$HTML_DIR"
cp solutions/lab0/lab0.c "$TMP/mk/$ESC_DIR/"
cp solutions/lab0/lab0.c "$TMP/mk/$HTML_DIR/"
(cd "$TMP/mk" && bsdtar -cf "$S/twice.zip" --format zip "$ESC_DIR" "$HTML_DIR") ||
    bad "bsdtar could not make twice.zip"

"$GRADER" --batch "$S" lab0 --lms moodle >"$TMP/out" 2>"$TMP/err"
G=$S.grades
card() { cat "$G/$1.txt" 2>/dev/null; }
log_of() { jq -r .build_log "$G/$1.json" 2>/dev/null; }

# Every scorecard and report: no folder of the instructor's.
for id in typo empty misnamed folder; do
    for text in "$(card $id)" "$(log_of $id)"; do
        case $text in
        *"$ROOT"* | *"$BUILD"* | *"$TMP"* | *"/grade/"*)
            bad "$id: the feedback names a folder of the grader's:"
            printf '%s\n' "$text" | grep -E "$ROOT|$TMP|/grade/" | head -n 3 ;;
        *) ok ;;
        esac
    done
done
expect_match "typo: the error at its line in lab0.c" "$(card typo)" \
    "^ +lab0\\.c:[0-9]+:[0-9]+: error: "
expect_match "empty: one line, the lab's functions named" "$(card empty)" \
    "^ +the submission defines none of lab0's functions \\(it lacks lab0_[a-z_]+, lab0_[a-z_]+, lab0_[a-z_]+, which lab0\\.h declares\\): is it the right file\\? Start from the skeleton, labs/lab0/lab0\\.c$"
expect_eq "empty: no linker lines" "$(card empty | grep -cE 'undefined (symbol|reference)|ld returned')" 0
expect_match "misnamed: the one it lacks" "$(card misnamed)" \
    "^ +the submission does not define lab0_decode, which lab0\\.h declares and the tests call: write it in lab0\\.c"
for id in folder zipped; do
    expect_eq "$id: Lab0.c graded as lab0.c" "$(jq -r .score "$G/$id.json")" 100
    expect_match "$id: the scorecard says so" "$(card "$id")" \
        "^Note: Lab0\\.c graded as lab0\\.c \\(the lab's file names are exact: use them next time\\)\\.$"
done
expect_match "zero: an empty file, said in a word" "$(card zero)" \
    "lab0\\.c in the submission is empty \\(0 bytes\\): no code was uploaded"
expect_eq "copy1: lab0-1.c graded" "$(jq -r .score "$G/copy1.json"),$(jq -r .note "$G/copy1.json")" \
    "100,lab0-1.c graded as lab0.c (the lab's file names are exact: use them next time)"
expect_eq "copy2: 'lab0 (2).c' graded" "$(jq -r .score "$G/copy2.json")" 100
expect_eq "copy3: 'Copy of lab0.c' (Google Drive's) graded" "$(jq -r .score "$G/copy3.json")" 100
expect_eq "both: lab0.c itself graded, no note" \
    "$(jq -r .score "$G/both.json"),$(jq -r '.note // "none"' "$G/both.json")" "100,none"
expect_eq "the summary lists each, by id" \
    "$(sed -n "/^Graded under the lab's file name/,/^\$/p" "$TMP/out" | awk 'NR > 1 && NF { print $1 }' |
        tr '\n' ' ')" "copy1 copy2 copy3 folder zipped "
# A student at their own terminal: stopped, and told to rename it.
"$GRADER" lab0 --dir "$S/folder" >"$TMP/own.out" 2>&1
expect_match "own ./grader, Lab0.c: rename it" "$(cat "$TMP/own.out")" \
    "no lab0\\.c in the submission, but a Lab0\\.c: file names are case-sensitive; rename it lab0\\.c"

# The refused archive: named as the student named it, nothing else of the
# instructor's; no escape, BEL or U+202E in what is returned or imported.
LMS=$G/lms-moodle.csv
expect_match "twice.zip: refused, by its name" "$(jq -r .error "$G/twice.json")" \
    "^its archive was refused: twice\\.zip: two files named lab0\\.c"
for f in "$G/twice.txt" "$G/twice.json" "$LMS"; do
    case $(cat "$f") in
    *"$TMP"* | *"$ROOT"*) bad "$(basename "$f"): names a folder of the instructor's" ;;
    *) ok ;;
    esac
done
for f in "$G/twice.txt" "$LMS" "$TMP/out" "$TMP/err"; do
    bytes=$(LC_ALL=C tr -d '\n\r -~' <"$f" | od -An -tx1 | tr -s ' \n' '  ')
    case " $bytes " in
    *" 1b "* | *" 07 "* | *" e2 80 ae "*)
        bad "$(basename "$f"): a control or bidirectional character: $bytes" ;;
    *) ok ;;
    esac
done
feedback=$(csv "$LMS" | grep '^twice,')
expect_match "moodle: the feedback says why" "$feedback" "^twice,0,.*two files named lab0\\.c"
case $feedback in
*"<img"*) bad "moodle: the feedback holds HTML Moodle would render: $feedback" ;;
*) ok ;;
esac
expect_match "moodle: the HTML shown as text" "$feedback" "&lt;img src=x onerror=alert\\(1\\)&gt;"

echo "test_feedback: $passed passed, $failed failed"
[ "$failed" = 0 ]
