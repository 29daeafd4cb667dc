#!/bin/sh
# test_similarity.sh - ./grader --batch --similarity, on lab0: identical
# submissions are named first, and those that are the skeleton as given
# apart, as "unchanged skeleton", never as copies; sim_c's pairs follow, a copy with its names
# changed and its comments gone found as one, the skeleton's own lines not
# counted (a student who submits the skeleton matches no one); the scores
# are those of a run without it; without sim_c, the identical ones are still
# named and the summary says what is missing; a bad threshold is a usage
# error, and so is --similarity-common below 2 or without --similarity;
# in a class whose solutions converge, what more than --similarity-common
# submissions share is left out, and the pairs alike only in it are
# counted and listed apart, the others ranked by the tokens they share; the
# handout's C code pairs no one; students whose ids are "similarity", "grades", "scores" keep their
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
    expect_match "bob's copy is found with alice's" "$OUT" "^    +(9[0-9]|100) %  +(9[0-9]|100) %  +[0-9]+  alice  bob$"
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

"$GRADER" --batch "$S" lab0 --similarity-common 2 >"$TMP/c0.out" 2>&1
expect_eq "--similarity-common without --similarity: a usage error" "$?" 2
expect_match "it says so" "$(cat "$TMP/c0.out")" "it goes with --similarity"
"$GRADER" --batch "$S" lab0 --similarity --similarity-common 1 >"$TMP/c1.out" 2>&1
expect_eq "--similarity-common 1: a usage error" "$?" 2
expect_match "it says what it takes" "$(cat "$TMP/c1.out")" "a number of submissions, 2 or more"
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
        "^    +(9[0-9]|100) %  +(9[0-9]|100) %  +[0-9]+  alice  bob$"
    expect_match "the slow one is named" "$HOUT" \
        "^  not compared in full \\(its comparison ran past 0.5 s\\): slow$"
    expect_match "the report names it too" "$(cat "$H.grades/similarity.log")" \
        "^  slow$"
    expect_eq "the braces under #if 0 are not compared: mallory is not slow" \
        "$(echo "$HOUT" | grep -c 'not compared.*mallory')" 0
fi

# A class whose solutions converge: r1 and r2 hand in the reference, each with
# one name changed (so none is another's copy, byte for byte); x and y the
# reference with a decoder of their own, the same one, and each a helper of
# their own besides; u and v the reference with the same short limits of
# their own; h1 and h2 the skeleton with the handout's code (labs/lab0
# README.md's C block) in its decoder, laid out apart. On all they wrote,
# every pair of the six who wrote code is alike. With --similarity-common
# 2, what more than two of them share (the reference) is left out: x/y and
# u/v are listed, x/y first (more tokens in common, though u/v's shares are
# higher), and the other 13 pairs are counted and listed apart as common.
# Graded once; the other runs resume.
if [ $have_sim = 1 ]; then
    F=$TMP/converge
    for id in r1 r2 x y u v h1 h2; do mkdir -p "$F/$id"; done
    REF=solutions/lab0/lab0.c
    sed 's/\bsig\b/s1g/g' $REF >"$F/r1/lab0.c"
    sed 's/\bq\b/kept/g' $REF >"$F/r2/lab0.c"
    # replace_fn NAME NEW: the reference with function NAME's definition
    # replaced by the file NEW.
    replace_fn() {
        awk -v name="$1" -v new="$2" '
            !skip && index($0, name "(") && $0 ~ /^[a-z]/ { while ((getline l < new) > 0) print l; skip = 1; next }
            skip && /^}/ { skip = 0; next }
            !skip { print }' $REF
    }
    cat >"$TMP/decode.c" <<'EOC'
float lab0_decode(const lab0_format *f, uint8_t code)
{
    int ebits = f->exp_bits, mbits = f->man_bits;
    int top = (1 << ebits) - 1, full = (1 << mbits) - 1;
    int field = (code & 0x7F) >> mbits, frac = code & full;
    double mag;
    if (field == top && f->has_inf)
        mag = frac ? NAN : INFINITY;
    else if (field == top && frac == full)
        mag = NAN;
    else if (field == 0)
        mag = frac * pow(2.0, 2 - (1 << (ebits - 1)) - mbits);
    else
        mag = (frac + (1 << mbits)) * pow(2.0, field - (1 << (ebits - 1)) + 1 - mbits);
    if (mag != mag)
        return NAN;
    return (float)((code & 0x80) ? -mag : mag);
}
EOC
    { replace_fn lab0_decode "$TMP/decode.c"
      printf '%s\n' 'static int spare_x(int a, int b)' '{' '    int t = a;' \
          '    while (b-- > 0)' '        t = t * 3 + (a ^ b);' '    return t % 97;' '}'
    } >"$F/x/lab0.c"
    { replace_fn lab0_decode "$TMP/decode.c" | sed 's/\bfield\b/ef/g; s/\bfrac\b/mf/g; s/\bmag\b/v/g'
      printf '%s\n' 'static double spare_y(const double *p, int n)' '{' '    double s = 0;' \
          '    for (int i = n - 1; i >= 0; i -= 2)' '        s += p[i] / (1.0 + i);' \
          '    return s < 0 ? -s : s;' '}'
    } >"$F/y/lab0.c"
    cat >"$TMP/limits.c" <<'EOC'
lab0_limits lab0_format_limits(const lab0_format *f)
{
    lab0_limits l;
    int b = (1 << (f->exp_bits - 1)) - 1, hi = (1 << f->exp_bits) - 1 - b;
    l.min_normal = ldexpf(1.0f, 1 - b);
    l.min_subnormal = ldexpf(l.min_normal, -f->man_bits);
    l.epsilon = ldexpf(1.0f, -f->man_bits);
    l.rel_error_bound = l.epsilon / 2;
    l.max = f->has_inf ? ldexpf(2.0f - l.epsilon, hi - 1) : ldexpf(2.0f - 2 * l.epsilon, hi);
    return l;
}
EOC
    replace_fn lab0_format_limits "$TMP/limits.c" >"$F/u/lab0.c"
    replace_fn lab0_format_limits "$TMP/limits.c" | sed 's/\bhi\b/top_exp/g' >"$F/v/lab0.c"
    awk '/^```c$/ { on = 1; next } /^```/ { on = 0 } on' labs/lab0/README.md >"$TMP/handout.c"
    [ -s "$TMP/handout.c" ] || bad "lab0's handout has no C block"
    awk -v h="$TMP/handout.c" '{ print } /^float lab0_decode/ { getline; print; while ((getline l < h) > 0) print l }' \
        labs/lab0/lab0.c >"$F/h1/lab0.c"
    awk -v h="$TMP/handout.c" '{ print } /^float lab0_decode/ { getline; print; while ((getline l < h) > 0) print "  " l "  " }' \
        labs/lab0/lab0.c >"$F/h2/lab0.c"
    "$GRADER" --batch "$F" lab0 --similarity --similarity-common 1000 >"$TMP/all.out" 2>&1
    ALL=$(sed -n '/^Similarity/,$p' "$TMP/all.out")
    expect_match "nothing in more than 1000: nothing left out" "$ALL" \
        "; no passage is in more than 1000 of the 6 submissions$"
    expect_eq "on all they wrote: every pair of the six (15)" \
        "$(grep -cE '^  +[0-9]+ %  +[0-9]+ %  +[0-9]+  ' "$F.grades/similarity.log")" 15
    "$GRADER" --batch "$F" lab0 --similarity --similarity-common 2 >"$TMP/rare.out" 2>&1
    expect_eq "resumed, not graded again" "$(grep -c '^\[.*(resumed)$' "$TMP/rare.out")" 8
    RARE=$(sed -n '/^Similarity/,$p' "$TMP/rare.out")
    LOG=$(cat "$F.grades/similarity.log")
    expect_match "the common passages counted" "$RARE" \
        "; [0-9]+ passages in more than 2 of the 6 submissions, [0-9]+ % of the tokens compared \\(--similarity-common\\)$"
    expect_eq "what is rare: x/y, then u/v" \
        "$(echo "$RARE" | sed -n 's/^    .*[0-9]  \([a-z0-9]*  [a-z0-9]*\)$/\1/p' | tr '\n' '|')" "x  y|u  v|"
    expect_match "u/v's shares are the higher" "$RARE" "^    +(9[0-9]|100) %  +(9[0-9]|100) %  +[0-9]+  u  v$"
    expect_eq "x/y's tokens more than u/v's" \
        "$(echo "$RARE" | awk '$NF == "y" && $(NF-1) == "x" { x = $(NF-2) } $NF == "v" { u = $(NF-2) } END { print (x > u) }')" 1
    expect_match "the rest counted as common" "$RARE" \
        "^  left out as common: 13 pairs alike at or above 50 % only in what more than 2 submissions share"
    expect_eq "and listed in the report" \
        "$(echo "$LOG" | sed -n '/^Left out as common/,$p' | grep -cE '^  +[0-9]+ %  +[0-9]+ %  [a-z0-9]+  [a-z0-9]+$')" 13
    expect_eq "the handout's code pairs no one" "$(echo "$LOG" | grep -E '^ +[0-9]+ %' | grep -c 'h[12]')" 0
    expect_match "h1 and h2 named: nothing of their own" "$RARE" "^  nothing of its own to compare: h1, h2$"
    expect_match "the given lines counted" "$LOG" "^  given: [0-9]+ lines of the submissions are lines of the skeleton or of the handout's code$"
fi

if [ $have_sim = 0 ]; then
    echo "test_similarity: $passed passed, $failed failed; the pairs skipped: sim_c (package similarity-tester) is not installed"
    [ "$failed" = 0 ] || exit 1
    exit 77
fi
echo "test_similarity: $passed passed, $failed failed"
[ "$failed" = 0 ]
