#!/bin/sh
# test_similarity.sh - ./grader --batch --similarity, on lab0: identical
# submissions are named first, and those that are the skeleton as given
# apart, as "unchanged skeleton", never as copies; sim_c's pairs follow, a copy with its names
# changed and its comments gone found as one, the skeleton's own lines not
# counted (a student who submits the skeleton matches no one); the scores
# are those of a run without it; without sim_c, the identical ones are still
# named and the summary says what is missing; a bad threshold is a usage
# error; students whose ids are "similarity", "grades", "scores" keep their
# own scorecards beside the batch's files. Where sim_c is not installed (Debian 13 has no similarity-tester),
# the checks that need it are skipped, the others run, and it exits 77 (SKIP)
# when they pass.
#
#   GRADER=build/bin/grader sh tests/grading/test_similarity.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

have_sim=1
command -v sim_c >/dev/null 2>&1 || have_sim=0
S=$TMP/class
for id in alice bob carol dave erin; do mkdir -p "$S/$id"; done
cp solutions/lab0/lab0.c "$S/alice/"
cp solutions/lab0/lab0.c "$S/carol/"
cp labs/lab0/lab0.c "$S/dave/"
cp labs/lab0/lab0.c "$S/erin/"
# bob: alice's, its names changed and its one-line comments gone.
sed -e 's/\bbits\b/b_/g; s/\bsign\b/sgn/g; s/\bmant\b/m_/g; s|^ */\*.*\*/ *$||' \
    solutions/lab0/lab0.c >"$S/bob/lab0.c"
cmp -s "$S/alice/lab0.c" "$S/bob/lab0.c" && bad "bob's copy is alice's, byte for byte"

"$GRADER" --batch "$S" lab0 --json-dir "$TMP/plain" >"$TMP/plain.out" 2>&1
"$GRADER" --batch "$S" lab0 --similarity >"$TMP/out" 2>"$TMP/err"
expect_eq "exit status" "$?" 0
OUT=$(cat "$TMP/out")
REPORT=$S.grades/similarity.log
expect_eq "the scores are those of a run without it" \
    "$(csv "$S.grades/grades.csv" | cut -d, -f1-4)" "$(csv "$TMP/plain/grades.csv" | cut -d, -f1-4)"
expect_eq "identical: alice and carol (the skeleton's not)" \
    "$(echo "$OUT" | sed -n 's/^  identical: //p' | tr '\n' '|')" "alice, carol|"
expect_eq "the unchanged skeletons named apart" \
    "$(echo "$OUT" | sed -n 's/^  unchanged skeleton: //p')" "dave, erin"
expect_match "the report names them apart" "$(cat "$REPORT")" \
    "Unchanged skeleton \\(the lab's files as given, left out of the comparison\\):"
expect_match "the report names the identical ones first" \
    "$(sed -n '3,4p' "$REPORT" | tr '\n' '|')" "^Identical submissions.*\\|  alice, carol\\|"
if [ $have_sim = 1 ]; then
    expect_match "bob's copy is found with alice's" "$OUT" "^    +(9[0-9]|100) %  +(9[0-9]|100) %  alice  bob$"
    expect_eq "no pair holds a skeleton" "$(grep -E '^ +[0-9]+ %' "$REPORT" | grep -c -e dave -e erin)" 0
    "$GRADER" --batch "$S" lab0 --similarity=100 --json-dir "$TMP/t100" >"$TMP/t100.out" 2>&1
    expect_eq "--similarity=100: only the pairs at 100 %" \
        "$(grep -cE '^    +100 %  +100 %' "$TMP/t100.out")" \
        "$(grep -cE '^    +[0-9]+ %  +[0-9]+ %' "$TMP/t100.out")"
fi

mkdir -p "$TMP/bin"
for t in sh cat git; do ln -s "$(command -v $t)" "$TMP/bin/$t" 2>/dev/null; done
PATH=$TMP/bin "$GRADER" --batch "$S" lab0 --merge --similarity --json-dir "$S.grades" \
    >"$TMP/nosim.out" 2>&1
expect_match "without sim_c: the identical ones" "$(cat "$TMP/nosim.out")" "^  identical: alice, carol$"
expect_match "without sim_c: what is missing" "$(cat "$TMP/nosim.out")" \
    "pairs not compared: sim_c is not installed \\(apt-get install similarity-tester, where the release has it\\)"

# Students whose ids are the stems of the batch's own files: each keeps
# their own scorecard and report, and the batch's files are its own.
N=$TMP/names
for id in similarity grades scores lms-canvas; do
    mkdir -p "$N/$id" && cp labs/lab0/lab0.c "$N/$id/"
done
"$GRADER" --batch "$N" lab0 --similarity --lms canvas --lms-assignment "Lab 0 (7)" \
    >"$TMP/names.out" 2>&1
for id in similarity grades scores lms-canvas; do
    expect_match "id '$id': its own scorecard" "$(head -n 1 "$N.grades/$id.txt" 2>&1)" \
        "^lab0: .*\\(graded: $id\\)$"
    expect_eq "id '$id': its own report" "$(jq -r .student "$N.grades/$id.json" 2>&1)" "$id"
done
expect_match "the similarity report is the batch's" "$(head -n 1 "$N.grades/similarity.log")" \
    "^Similarity of 4 submissions"
expect_match "the gradebook is the batch's" "$(head -n 1 "$N.grades/grades.csv")" "^student,score,"

"$GRADER" --batch "$S" lab0 --similarity=0 >"$TMP/bad.out" 2>&1
expect_eq "--similarity=0: a usage error" "$?" 2
expect_match "--similarity=0: says what it takes" "$(cat "$TMP/bad.out")" "a percentage, 1 to 100"

# A slow file costs only its own pairs. mallory hands in the skeleton and a
# 1 MB block of braces under #if 0, which the compiler never reads: the
# comparison never sees it. slow hands in the skeleton and one line again
# and again, cut at the cap and still slow to compare:
# under a per-submission limit lowered for the test, it is named, and
# alice's and bob's copy is still found.
if [ $have_sim = 1 ]; then
    H=$TMP/hostile
    for id in alice bob mallory slow; do mkdir -p "$H/$id"; done
    cp "$S/alice/lab0.c" "$H/alice/"
    cp "$S/bob/lab0.c" "$H/bob/"
    { cat labs/lab0/lab0.c; echo '#if 0'
      yes '{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}' | head -n 16000
      echo '#endif'; } >"$H/mallory/lab0.c"
    # sim_c is slowest on a line of names alone repeated (a file need not
    # build to be compared): 1.9 s for the 64 KiB of it, against 0.02 s for
    # the skeleton, at a load of 2 on 2 cores; x = x * 3 + 1; repeated took
    # 0.2 s, inside the 0.5 s limit on an idle machine.
    { cat labs/lab0/lab0.c
      yes 'a b c d e f g h i j k l m n o p;' | head -n 3000; } >"$H/slow/lab0.c"
    FP8LAB_TEST_SIM_LIMIT_S=0.5 timeout 240 "$GRADER" --batch "$H" lab0 --similarity \
        >"$TMP/hostile.out" 2>&1
    expect_eq "a 1 MB block of braces: the batch ends" "$?" 0
    HOUT=$(cat "$TMP/hostile.out")
    expect_match "beside it, bob's copy is still found" "$HOUT" \
        "^    +(9[0-9]|100) %  +(9[0-9]|100) %  alice  bob$"
    expect_match "the slow one is named" "$HOUT" \
        "^  not compared in full \\(its comparison ran past 0.5 s\\): slow$"
    expect_match "the report names it too" "$(cat "$H.grades/similarity.log")" \
        "^  slow$"
    expect_eq "the braces under #if 0 are not compared: mallory is not slow" \
        "$(echo "$HOUT" | grep -c 'not compared.*mallory')" 0
fi

if [ $have_sim = 0 ]; then
    echo "test_similarity: $passed passed, $failed failed; the pairs skipped: sim_c (package similarity-tester) is not installed"
    [ "$failed" = 0 ] || exit 1
    exit 77
fi
echo "test_similarity: $passed passed, $failed failed"
[ "$failed" = 0 ]
