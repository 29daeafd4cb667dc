#!/bin/sh
# test_grader.sh - the grader's own tests, on lab0:
#   - the reference solution scores full marks; the untouched skeleton scores
#     near 0 and the grader exits 1 without crashing;
#   - hostile submissions (tests/hostile/*.c) are each reported
#     against the tests they hit, and every other test still passes: a
#     segfault, an endless loop, exit(0) inside a graded function, a 64 GiB
#     malloc, 100 MB of output, a compile error, a constructor that exits
#     before any test, forged result lines;
#   - Check's traps: exit(0) (above), CK_RUN_CASE and friends in the
#     environment, a runner asked for a test that does not exist, and
#     CK_TIMEOUT_MULTIPLIER scaling the time limits;
#   - usage errors exit 2; goldens that do not match data/MANIFEST are refused;
#   - --test, --list, -o and the machine formats (checked with jq, xmllint).
#
#   GRADER=build/bin/grader sh tests/grading/test_grader.sh
# Run from the top of the course. Exit status 0 when every check passes.
#
# A hostile submission is the reference solution with one function replaced:
# the fragment defines, say, lab0_format_limits, and the solution's own is
# renamed solution_format_limits by the preprocessor, so the fragment can
# call it.

set -u
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

# grade NAME ARGS...: runs the grader with JSON output into $TMP/NAME.json,
# its exit status into $TMP/NAME.rc, its stderr into $TMP/NAME.err.
grade() {
    name=$1
    shift
    "$GRADER" --format json -o "$TMP/$name.json" "$@" 2>"$TMP/$name.err"
    echo $? >"$TMP/$name.rc"
}
rc_of() { cat "$TMP/$1.rc"; }
score_of() { jq -r '"\(.score)/\(.max_score)"' "$TMP/$1.json" 2>/dev/null; }
status_of() { jq -r --arg t "$2" '.tests[] | select(.name == $t) | .status' "$TMP/$1.json" 2>/dev/null; }
message_of() { jq -r --arg t "$2" '.tests[] | select(.name == $t) | .message' "$TMP/$1.json" 2>/dev/null; }
# The tests that did not pass, sorted, on one line.
not_passed() {
    jq -r '.tests[] | select(.status != "pass") | .name' "$TMP/$1.json" 2>/dev/null | sort | tr '\n' ' '
}

# hostile NAME: the solution with the fragment's functions swapped in.
hostile() {
    mkdir -p "$TMP/sub-$1"
    hostile_into "$TMP/sub-$1/lab0.c" "$1"
    echo "$TMP/sub-$1"
}

# ---- the solution and the skeleton ------------------------------------------------

grade solution lab0 --solution
expect_eq "solution: exit status" "$(rc_of solution)" 0
expect_eq "solution: score" "$(score_of solution)" "100/100"
expect_eq "solution: tests not passed" "$(not_passed solution)" ""
text=$("$GRADER" lab0 --solution 2>&1)
expect_match "solution: scorecard" "$text" "^PASS +decode_e4m3 +10/10"
expect_match "solution: scorecard ends with the score" "$(printf '%s\n' "$text" | tail -n 1)" \
    "^Score: 100/100"

grade skeleton lab0
expect_eq "skeleton: exit status" "$(rc_of skeleton)" 1
score=$(jq -r .score "$TMP/skeleton.json")
[ "$score" -le 10 ] && ok || bad "skeleton: score $score, want at most 10"
expect_eq "skeleton: every test ran and failed" \
    "$(jq -r '[.tests[] | .status] | unique | join(",")' "$TMP/skeleton.json")" "fail"
text=$("$GRADER" lab0 2>&1)
expect_match "skeleton: a counterexample with value and bits" "$text" \
    "expected 0\\.001953125 \\[0x3b000000\\]"
expect_match "skeleton: how many differ" "$text" "255 of 256 codes differ"
expect_match "skeleton: the section to re-read" "$text" "re-read: labs/lab0/README.md §2 Decoding"

# ---- hostile submissions --------------------------------------------------------

limits_only="limits rel_error_bound "

grade segfault lab0 --dir "$(hostile segfault)"
expect_eq "segfault: exit status" "$(rc_of segfault)" 1
expect_eq "segfault: tests hit" "$(not_passed segfault)" "$limits_only"
expect_eq "segfault: score" "$(score_of segfault)" "85/100"
expect_eq "segfault: status" "$(status_of segfault limits)" error
expect_match "segfault: message" "$(message_of segfault limits)" "crashed|exited early"

CK_TIMEOUT_MULTIPLIER=0.2 grade loop lab0 --dir "$(hostile loop)"
expect_eq "loop: tests hit" "$(not_passed loop)" "$limits_only"
expect_match "loop: message" "$(message_of loop rel_error_bound)" "^timed out"

grade exit0 lab0 --dir "$(hostile exit0)"
expect_eq "exit(0): tests hit" "$(not_passed exit0)" "decode_e4m3 decode_e5m2 "
expect_match "exit(0): message" "$(message_of exit0 decode_e4m3)" "exited early with status 0"

grade bigalloc lab0 --dir "$(hostile bigalloc)"
expect_eq "64 GiB malloc: tests hit" "$(not_passed bigalloc)" "$limits_only"
expect_match "64 GiB malloc: message" "$(message_of bigalloc limits)" "crashed|exited early"

grade flood lab0 --dir "$(hostile flood)"
expect_eq "output flood: tests hit" "$(not_passed flood)" "$limits_only"
expect_match "output flood: message" "$(message_of flood limits)" "^output flood"
size=$(wc -c <"$TMP/flood.json")
[ "$size" -lt 100000 ] && ok || bad "output flood: the report is $size bytes"

grade forge lab0 --dir "$(hostile forge)"
expect_eq "forged results: tests hit" "$(not_passed forge)" "decode_e4m3 decode_e5m2 "

grade early_exit lab0 --dir "$(hostile early_exit)"
expect_eq "constructor exit: exit status" "$(rc_of early_exit)" 1
expect_eq "constructor exit: score" "$(score_of early_exit)" "0/100"
expect_eq "constructor exit: every test not run" \
    "$(jq -r '[.tests[] | .status] | unique | join(",")' "$TMP/early_exit.json")" "not_run"
expect_match "constructor exit: refused at build time" "$(jq -r .build_log "$TMP/early_exit.json")" \
    "lab0\\.c: has a constructor or destructor \\(section \\.init_array"

grade syntax lab0 --dir "$(hostile syntax_error)"
expect_eq "compile error: exit status" "$(rc_of syntax)" 1
expect_eq "compile error: score" "$(score_of syntax)" "0/100"
expect_eq "compile error: build_ok" "$(jq -r .build_ok "$TMP/syntax.json")" false
expect_match "compile error: the compiler's message" "$(jq -r .build_log "$TMP/syntax.json")" \
    "lab0\\.c:[0-9]+:[0-9]+: error"
text=$("$GRADER" lab0 --dir "$TMP/sub-syntax_error" 2>&1)
expect_match "compile error: scorecard" "$text" "did not (compile|build)"

# Symbols a submission may not use (or define) are refused at build time,
# by name, in the build log; every test is then not run.
refused() {
    name=$1 frag=$2 want=$3
    grade "$name" lab0 --dir "$(hostile "$frag")"
    expect_eq "$name: build_ok" "$(jq -r .build_ok "$TMP/$name.json")" false
    expect_eq "$name: score" "$(score_of "$name")" "0/100"
    expect_match "$name: the build log says why" "$(jq -r .build_log "$TMP/$name.json")" "$want"
}
refused forbid_system spawn "lab0\\.c: uses system, which no submission may"
refused forbid_fopen read_golden "lab0\\.c: uses fopen, which no submission may"
refused forbid_codec codec "lab0\\.c: uses fp8_encode, which lab0 does not allow: the course's codec"
refused forbid_hook sanitizer_hook "lab0\\.c: defines __asan_default_options, a sanitizer hook"
refused forbid_reference call_reference "lab0\\.c: uses ref_lab0_encode, which no submission may"
# lab1's own rule: the library's delayed scaler is lab1's exercise.
mkdir -p "$TMP/sub-lab1-delayed"
{
    cat "$ROOT/solutions/lab1/lab1.c"
    printf '#include "delayed.h"\nvoid lab1_shortcut(delayed_scaler *s);\n'
    printf 'void lab1_shortcut(delayed_scaler *s) { delayed_update(s); }\n'
} >"$TMP/sub-lab1-delayed/lab1.c"
grade lab1_delayed lab1 --dir "$TMP/sub-lab1-delayed"
expect_match "lab1 with delayed_update: the build log says why" \
    "$(jq -r .build_log "$TMP/lab1_delayed.json")" "lab1\\.c: uses delayed_update, which lab1 does not allow"
grade lab3_delayed lab3 --solution
expect_eq "lab3 may use delayed_record: score" "$(score_of lab3_delayed)" "100/100"
# lab3's exercise 9 is the BF16 cast: the library's 16-bit functions are
# refused in lab3.c (and in lab0.c, whose codec they share).
mkdir -p "$TMP/sub-lab3-bf16"
sed 's/q\[i\] = (uint16_t)((u + 0x7FFFu + ((u >> 16) \& 1u)) >> 16);/q[i] = fp16_encode(x[i], FP16_BF16);/' \
    "$ROOT/solutions/lab3/lab3.c" >"$TMP/sub-lab3-bf16/lab3.c"
grep -q 'fp16_encode(x\[i\], FP16_BF16)' "$TMP/sub-lab3-bf16/lab3.c" && ok ||
    bad "lab3 with fp16_encode: the submission was not made"
grade lab3_bf16 lab3 --dir "$TMP/sub-lab3-bf16"
expect_eq "lab3 with fp16_encode: build_ok" "$(jq -r .build_ok "$TMP/lab3_bf16.json")" false
expect_match "lab3 with fp16_encode: the build log says why" \
    "$(jq -r .build_log "$TMP/lab3_bf16.json")" "lab3\\.c: uses fp16_encode, which lab3 does not allow: exercise 9"

# CK_TIMEOUT_MULTIPLIER: a test that takes a second passes under the
# rubric's 5 s and times out under 0.1 x 5 s.
grade slow lab0 --dir "$(hostile slow)" --test limits
expect_eq "slow, default limit: exit status" "$(rc_of slow)" 0
CK_TIMEOUT_MULTIPLIER=0.1 grade slow_scaled lab0 --dir "$TMP/sub-slow" --test limits
expect_eq "slow, scaled limit: status" "$(status_of slow_scaled limits)" error
expect_match "slow, scaled limit: message" "$(message_of slow_scaled limits)" "^timed out"

# ---- Check's environment cannot select or skip tests --------------------------------

CK_RUN_CASE=limits CK_RUN_SUITE=none CK_INCLUDE_TAGS=none CK_FORK=no \
    grade ckenv lab0 --solution
expect_eq "Check's environment: tests graded" "$(jq '.tests | length' "$TMP/ckenv.json")" 11
expect_eq "Check's environment: score" "$(score_of ckenv)" "100/100"

# A runner (lab0's: its judge) asked for a test it does not have reports an
# error, not success.
"$GRADER" lab0 --solution --keep --test encode_nan >/dev/null 2>"$TMP/keep.err"
stage=$(sed -n 's/^grader: the pristine tree is kept in //p' "$TMP/keep.err")
judge=$(dirname "$GRADER")/../grading/lab0_judge
if [ -x "$stage/subject" ] && [ -x "$judge" ]; then
    ok
    GRADER_GOLDEN_DIR=$ROOT/data/golden/lab0 GRADER_OUT_DIR=$stage/out GRADER_SUBJECT=$stage/subject \
        "$judge" 3 no_such_test 3>"$TMP/runner.out" >/dev/null 2>&1
    expect_eq "runner, no such test: exit status" "$?" 3
    expect_match "runner, no such test: says so" "$(cat "$TMP/runner.out")" "^error.*no test named"
    rm -rf "$stage"
else
    bad "--keep: no subject in '$stage', or no judge at $judge"
fi

# What a lab forbids from the course's library is not in its subject at all
# (each library function in a section of its own, the link dropping those
# nothing calls): lab6's stochastic rounding and 16-bit conversions, which a
# submission could otherwise reach by an offset from an allowed function's
# address. The allowed fp8_encode is there, so the check can fail.
"$GRADER" lab6 --solution --keep --test tile_scale >/dev/null 2>"$TMP/keep6.err"
stage=$(sed -n 's/^grader: the pristine tree is kept in //p' "$TMP/keep6.err")
if [ -x "$stage/subject" ] && command -v nm >/dev/null 2>&1; then
    nm "$stage/subject" | awk '{ print $NF }' | LC_ALL=C sort -u >"$TMP/keep6.syms"
    expect_eq "lab6's subject: fp8_encode in it" "$(grep -cx fp8_encode "$TMP/keep6.syms")" 1
    expect_eq "lab6's subject: no forbidden library function in it" \
        "$(grep -E '^(fp8_encode_stochastic|fp8_encode_array_stochastic|fp16_.*|bf16_.*)$' \
            "$TMP/keep6.syms" | tr '\n' ' ')" ""
    rm -rf "$stage"
else
    bad "--keep (lab6): no subject in '$stage', or no nm"
fi

# The judge short of processes for a moment (FP8LAB_TEST_JUDGE_SHORT=N:
# its first N forks fail with EAGAIN) waits and tries again; short for good,
# it is the grader's error (exit 2), retried, never the student's lost point.
FP8LAB_TEST_JUDGE_SHORT=2 "$GRADER" lab0 --solution --test limits >"$TMP/short.out" 2>&1
expect_eq "judge short for a moment: exit status" "$?" 0
expect_match "judge short for a moment: full marks" "$(cat "$TMP/short.out")" "Score: 10/10"
FP8LAB_TEST_JUDGE_SHORT=99 "$GRADER" lab0 --solution --test limits >"$TMP/short.out" 2>&1
expect_eq "judge short for good: exit status" "$?" 2
expect_match "judge short for good: the grader's error" "$(cat "$TMP/short.out")" \
    "judge could not start the submission's process for limits: .*three times \\(a grader error"

# ---- options -------------------------------------------------------------------------

grade one lab0 --solution --test encode_nan
expect_eq "--test: one test" "$(jq -r '[.tests[] | .name] | join(",")' "$TMP/one.json")" encode_nan
expect_eq "--test: its points" "$(score_of one)" "5/5"
grade two lab0 --solution --test encode_nan --test decode_e4m3,encode_rne
expect_eq "--test, repeated and a list: those tests, in rubric order" \
    "$(jq -r '[.tests[] | .name] | join(",")' "$TMP/two.json")" decode_e4m3,encode_rne,encode_nan
grade typo lab0 --solution --test encode_nan,encode_rn
expect_eq "--test: a name not in the rubric, among others: usage error" "$(rc_of typo)" 2

list=$("$GRADER" --list)
expect_match "--list: the lab" "$list" "^lab0 +FP8 number formats +\\(100 points\\)"
expect_eq "--list: every test of lab0" \
    "$(printf '%s\n' "$list" | awk '/^lab/ { in0 = $1 == "lab0" } in0 && /^  / { n++ } END { print n }')" 11

for args in "" "lab9" "--test nope lab0" "--solution --dir . lab0" "--dir $TMP/nowhere lab0" \
    "--format xml lab0" "lab0 lab0"; do
    # shellcheck disable=SC2086
    "$GRADER" $args >/dev/null 2>"$TMP/usage.err"
    expect_eq "usage error '$args': exit status" "$?" 2
    [ -s "$TMP/usage.err" ] && ok || bad "usage error '$args': no message"
done

# The submission's own lab0.h is not used: the grader's copy is.
mkdir -p "$TMP/sub-header"
cp solutions/lab0/lab0.c "$TMP/sub-header/"
echo '#error the submission header must not be used' >"$TMP/sub-header/lab0.h"
grade header lab0 --dir "$TMP/sub-header"
expect_eq "pristine tree: score" "$(score_of header)" "100/100"

# A submission without the student file.
mkdir -p "$TMP/sub-empty"
grade empty lab0 --dir "$TMP/sub-empty"
expect_eq "missing lab0.c: exit status" "$(rc_of empty)" 1
expect_match "missing lab0.c: says so" "$(jq -r .build_log "$TMP/empty.json")" "^no lab0\\.c in the submission$"

# The ./grader script brings the grader up to date and runs it. (Not in a
# SANITIZE=1 build: the script builds the plain grader.)
case ${FP8LAB_BUILD:-build} in
*sanitize*) ;;
*)
    out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL BUILD="${FP8LAB_BUILD:-build}" ./grader --list 2>&1)
    expect_eq "./grader: exit status" "$?" 0
    expect_match "./grader: runs the grader" "$out" "^lab0 +FP8 number formats" ;;
esac

# ---- hidden inputs: --seed ---------------------------------------------------------------

# npy_data FILE FMT: the values of an .npy file, one per line, as od reads them
# (FMT x4: 32-bit words in hex; u1: bytes).
npy_data() {
    hlen=$(od -An -tu1 -j8 -N2 "$1" | awk '{ print $1 + 256 * $2 }')
    od -An -v -t"$2" -j $((10 + hlen)) "$1" | tr -s ' ' '\n' | grep .
}
# A submission that learned the public goldens by heart: for the inputs of
# encode_random it returns the golden codes, for any other input 0.
mkdir -p "$TMP/sub-parrot"
{
    echo '#include <stdint.h>'
    echo '#include <string.h>'
    cat solutions/lab0/lab0.c | sed 's/^uint8_t lab0_encode(/static uint8_t solution_encode(/'
    for tag in e4m3 e5m2; do
        echo "static const uint32_t x_$tag[] = {"
        npy_data "data/golden/lab0/encode_random_${tag}_x.npy" x4 | sed 's/^/0x/; s/$/u,/'
        echo "};"
        echo "static const uint8_t q_$tag[] = {"
        npy_data "data/golden/lab0/encode_random_${tag}_q.npy" u1 | sed 's/$/,/'
        echo "};"
    done
    cat <<'C'
uint8_t lab0_encode(const lab0_format *f, float x, int saturate)
{
    int e4 = f->exp_bits == 4;
    const uint32_t *xs = e4 ? x_e4m3 : x_e5m2;
    const uint8_t *qs = e4 ? q_e4m3 : q_e5m2;
    size_t n = e4 ? sizeof x_e4m3 / 4 : sizeof x_e5m2 / 4;
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    for (size_t i = 0; i < n; i++)
        if (xs[i] == bits)
            return qs[2 * i + (saturate ? 0 : 1)];
    return 0;
}
C
} >"$TMP/sub-parrot/lab0.c"
grade parrot lab0 --dir "$TMP/sub-parrot" --test encode_random
expect_eq "parrot, public inputs: encode_random passes" "$(status_of parrot encode_random)" pass
grade parrot_seed lab0 --dir "$TMP/sub-parrot" --test encode_random --seed "course 2026, lab0"
expect_eq "parrot, hidden inputs: encode_random fails" "$(status_of parrot_seed encode_random)" fail
expect_eq "hidden inputs: the report says which tests" \
    "$(jq -r '[.hidden_inputs, (.tests[] | .hidden_inputs)] | map(tostring) | join(",")' \
      "$TMP/parrot_seed.json")" "true,true"
FP8LAB_SEED="course 2026, lab0" "$GRADER" lab0 --solution --format json -o "$TMP/seeded.json" 2>/dev/null
expect_eq "FP8LAB_SEED: the solution, full marks" "$(score_of seeded)" "100/100"
expect_eq "FP8LAB_SEED: only encode_random drew hidden inputs" \
    "$(jq -r '[.tests[] | select(.hidden_inputs) | .name] | join(",")' "$TMP/seeded.json")" \
    encode_random
grep -q "course 2026" "$TMP/parrot_seed.json" "$TMP/seeded.json" &&
    bad "hidden inputs: the report shows the seed" || ok

# ---- the sandbox, switched off ----------------------------------------------------------

FP8LAB_SANDBOX=none "$GRADER" lab0 --solution -v >/dev/null 2>"$TMP/nobox.err"
expect_eq "FP8LAB_SANDBOX=none: still grades" "$?" 0
expect_match "FP8LAB_SANDBOX=none: says there is no sandbox" "$(cat "$TMP/nobox.err")" \
    "^grader: warning: no (bwrap )?sandbox \\(FP8LAB_SANDBOX=none\\)"

# bwrap installed but unable to start (a container, a kernel that forbids
# its namespaces): a stand-in that fails as bwrap does, its message in two
# writes. With -v, the warning gives the whole reason and what gives bwrap
# its namespaces; without bwrap on PATH, it says to install it
# (tests/grading/test_sandbox_say.sh: what is said without -v). Grading goes
# on (Landlock).
mkdir -p "$TMP/bin" "$TMP/nobwrap"
chmod 711 "$TMP"
printf '%s\n' '#!/bin/sh' "printf 'bwrap: ' >&2" 'sleep 0.2' \
    "printf 'Creating new namespace failed: Operation not permitted\\n' >&2" 'exit 1' \
    >"$TMP/bin/bwrap"
chmod 755 "$TMP/bin" "$TMP/bin/bwrap"
PATH="$TMP/bin:$PATH" env -u FP8LAB_SANDBOX "$GRADER" lab0 --solution --test encode_exact -v >/dev/null 2>"$TMP/fakebox.err"
expect_eq "bwrap that cannot start: still grades" "$?" 0
expect_match "bwrap that cannot start: its whole reason" "$(cat "$TMP/fakebox.err")" \
    "^grader: warning: no (bwrap )?sandbox \\(bwrap: Creating new namespace failed: Operation not permitted"
expect_match "bwrap that cannot start: what to do" "$(cat "$TMP/fakebox.err")" \
    "sysctl -w|container or chroot refuses bwrap namespaces"
grep -q "install bubblewrap" "$TMP/fakebox.err" && bad "bwrap that cannot start: says to install it" || ok
# The system's programs but bwrap.
for f in /usr/bin/* /bin/*; do
    [ "${f##*/}" = bwrap ] || ln -sf "$f" "$TMP/nobwrap/"
done
PATH="$TMP/nobwrap" env -u FP8LAB_SANDBOX "$GRADER" lab0 --solution --test encode_exact -v >/dev/null 2>"$TMP/nobwrap.err"
expect_eq "no bwrap: still grades" "$?" 0
expect_match "no bwrap: says so, and to install it" "$(cat "$TMP/nobwrap.err")" \
    "^grader: warning: no (bwrap )?sandbox \\(bwrap is not installed\\).*apt-get install bubblewrap"

# ---- machine formats -----------------------------------------------------------------

"$GRADER" lab0 --format gradescope >"$TMP/gs.json" 2>/dev/null
expect_eq "gradescope: valid, with the schema's fields" \
    "$(jq -r '[.score, .max_score, (.tests | length),
               ([.tests[] | select(has("name") and has("score") and has("max_score")
                 and has("status") and has("output") and has("visibility"))] | length)]
              | join(",")' "$TMP/gs.json")" "$(jq -r .score "$TMP/skeleton.json"),100,11,11"
"$GRADER" lab0 --solution --format junit >"$TMP/junit.xml" 2>/dev/null
if xmllint --noout "$TMP/junit.xml" 2>/dev/null; then ok; else bad "junit: not well-formed XML"; fi
expect_eq "junit: test cases" "$(xmllint --xpath 'count(//testcase)' "$TMP/junit.xml")" 11
"$GRADER" lab0 --dir "$TMP/sub-segfault" --format junit >"$TMP/junit2.xml" 2>/dev/null
expect_eq "junit: errors" "$(xmllint --xpath 'count(//testcase/error)' "$TMP/junit2.xml")" 2
"$GRADER" lab0 --dir "$TMP/sub-segfault" -A >"$TMP/autolab" 2>/dev/null
expect_match "autolab: the scorecard first" "$(head -n 1 "$TMP/autolab")" "^lab0: FP8 number formats"
expect_eq "autolab: the last line, Autolab's scores" \
    "$(tail -n 1 "$TMP/autolab" | jq -r '[(.scores | length), (.scores | add), .scoreboard[0],
       .scores.limits] | join(",")')" "11,85,85,0"
"$GRADER" lab0 --format tap >"$TMP/tap" 2>/dev/null
expect_eq "tap: plan" "$(grep -m1 '^1\.\.' "$TMP/tap")" "1..11"
expect_eq "tap: results" "$(grep -cE '^(not )?ok [0-9]+ - ' "$TMP/tap")" 11

# ---- goldens against data/MANIFEST -------------------------------------------------------

(cd data && sha256sum --quiet -c MANIFEST) >/dev/null 2>&1 && ok ||
    bad "data/MANIFEST does not match data/ (sha256sum -c)"
mkdir -p "$TMP/root"
for d in labs solutions common; do ln -s "$ROOT/$d" "$TMP/root/$d"; done
cp -R data "$TMP/root/data"
printf 'x' >>"$TMP/root/data/golden/lab0/decode.npy"
FP8LAB_ROOT=$TMP/root "$GRADER" lab0 --solution >/dev/null 2>"$TMP/manifest.err"
expect_eq "changed golden: exit status" "$?" 2
expect_match "changed golden: names it" "$(cat "$TMP/manifest.err")" "golden/lab0/decode\\.npy: sha256"
cp data/golden/lab0/decode.npy "$TMP/root/data/golden/lab0/decode.npy"
cp data/golden/lab0/decode.npy "$TMP/root/data/golden/lab0/extra.npy"
FP8LAB_ROOT=$TMP/root "$GRADER" lab0 --solution >/dev/null 2>"$TMP/manifest.err"
expect_eq "unlisted golden: exit status" "$?" 2
expect_match "unlisted golden: names it" "$(cat "$TMP/manifest.err")" "extra\\.npy is not listed"
rm -f "$TMP/root/data/golden/lab0/extra.npy" "$TMP/root/data/MANIFEST"
FP8LAB_ROOT=$TMP/root "$GRADER" lab0 --solution >/dev/null 2>"$TMP/manifest.err"
expect_eq "no manifest: exit status" "$?" 2
expect_match "no manifest: names it" "$(cat "$TMP/manifest.err")" "MANIFEST: cannot open"

echo "test_grader: $passed passed, $failed failed"
[ "$failed" = 0 ]
