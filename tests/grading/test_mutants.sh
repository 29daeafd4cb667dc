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
# those tests fail and that the score is the total less their points, on
# the public inputs or with hidden inputs (--seed): a trap is caught every
# time, whatever the seed. Each run grades every mutant once, half of them
# (every other one) on the public inputs and half with the run's seed, which
# half decided by the seed, so that runs with different seeds cover both for
# each; FP8LAB_MUTANT_INPUTS=both grades each both ways (twice the time).
#
# Each lab's table of traps, tests/<lab>/TRAPS.md, lists every mutant: a
# table row
#     | what the slip is | where the handout names it | `mutant` | `test_a` `test_b` |
# names the mutant in its third column and the tests that catch it in its
# fourth. This checks that the table and the mutants agree: every mutant has
# one row, every row's mutant exists, and the tests are its expect-fail.
#
#   GRADER=build/bin/grader sh tests/grading/test_mutants.sh
#   FP8LAB_MUTANT_LAB=lab2 ...    one lab only
#   FP8LAB_MUTANT_SEED=S ...      that seed (default: a new one each run)
#   FP8LAB_MUTANT_INPUTS=both ... each mutant on the public inputs and with
#                                 the seed (default: one of the two, in turn)
#   FP8LAB_MUTANT_STRIDE=K ...    grades every K-th mutant only (the tables are
#                                 still checked whole): .ci/run's sanitized run,
#                                 after a plain run graded them all
#   FP8LAB_MUTANT_OFFSET=seed ... with a stride, which K-th ones the seed
#                                 decides (default: the K-th, 2K-th, ...), so
#                                 that runs with different seeds grade different
#                                 ones: .ci/run's plain run grades half, a
#                                 different half each run
# Run from the top of the course. Exit status 0 when every mutant is caught
# as it says.

set -u
GRADER=${GRADER:-build/bin/grader}
SEED=${FP8LAB_MUTANT_SEED:-mutants-$(date +%s)}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0 failed=0 count=0

INPUTS=${FP8LAB_MUTANT_INPUTS:-turn}
case $INPUTS in both | turn) ;; *)
    echo "test_mutants: FP8LAB_MUTANT_INPUTS is 'both' or unset, not '$INPUTS'"
    exit 2 ;;
esac
# Which mutants the seed's run grades with the seed: those graded in even
# turn, or in odd, by the seed's checksum; and, with a stride and
# FP8LAB_MUTANT_OFFSET=seed, which one of each K (from the checksum's other
# bits, so that the two choices do not go together).
SUM=$(printf '%s' "$SEED" | cksum | awk '{ print $1 }')
PARITY=$((SUM % 2))

# check_mutant PATCH LAB NAME TURN: grades the mutant on public or hidden
# inputs (both with FP8LAB_MUTANT_INPUTS=both) and writes its verdict, "ok"
# or what went wrong, to $TMP/LAB-NAME.verdict (each in a folder of its
# own: several run at once).
check_mutant() {
    patch=$1 lab=$2 name=$3 turn=$4
    if [ "$INPUTS" = both ]; then seeds='"" "$SEED"'
    elif [ $((turn % 2)) = "$PARITY" ]; then seeds='"$SEED"'
    else seeds='""'; fi
    dir=$TMP/$lab-$name
    out=$TMP/$lab-$name.verdict
    want=$(sed -n 's/^expect-fail: *//p' "$patch" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
    mkdir -p "$dir/files"
    cp "solutions/$lab"/* "$dir/files"/
    if [ -z "$want" ]; then
        echo "FAIL: $lab/$name: no expect-fail line" >"$out"
        return
    fi
    if ! patch -s -d "$dir/files" -p1 <"$patch" >"$dir/patch.log" 2>&1; then
        { echo "FAIL: $lab/$name: the patch no longer applies to solutions/$lab:"
          sed 's/^/    /' "$dir/patch.log"; } >"$out"
        return
    fi
    : >"$out.tmp"
    eval "set -- $seeds"
    for seed in "$@"; do
        if [ -n "$seed" ]; then
            how="with --seed $seed"
            "$GRADER" "$lab" --dir "$dir/files" --seed "$seed" --format json >"$dir/r.json" 2>"$dir/r.err"
        else
            how="public inputs"
            "$GRADER" "$lab" --dir "$dir/files" --format json >"$dir/r.json" 2>"$dir/r.err"
        fi
        rc=$?
        got=$(jq -r '.tests[] | select(.status != "pass") | .name' "$dir/r.json" | sort | tr '\n' ' ')
        lost=$(jq -r '.max_score - .score' "$dir/r.json")
        aimed=$(jq -r --arg w "$want" '($w | split(" ") | map(select(. != ""))) as $t
            | [.tests[] | select(.name as $n | $t | index($n)) | .max_points] | add // 0' "$dir/r.json")
        if [ "$rc" != 1 ] || [ "$got" != "$want" ] || [ "$lost" != "$aimed" ]; then
            { echo "FAIL: $lab/$name ($how): exit $rc, failed [$got], want [$want]; lost $lost points, want $aimed"
              head -n 5 "$dir/r.err" | sed 's/^/    /'; } >>"$out.tmp"
        fi
    done
    if [ -s "$out.tmp" ]; then mv "$out.tmp" "$out"; else rm -f "$out.tmp"; echo ok >"$out"; fi
}

# The mutants, FP8LAB_MUTANT_JOBS at a time (default: one a core): each
# grading is one process after another, so a second keeps the other core busy.
jobs=${FP8LAB_MUTANT_JOBS:-$(nproc 2>/dev/null || echo 1)}
running=0
stride=${FP8LAB_MUTANT_STRIDE:-1}
case $stride in '' | *[!0-9]* | 0)
    echo "test_mutants: FP8LAB_MUTANT_STRIDE is a whole number from 1, not '$stride'"
    exit 2 ;;
esac
case ${FP8LAB_MUTANT_OFFSET:-} in
'') offset=0 ;;
seed) offset=$((SUM / 2 % stride)) ;;
*)  echo "test_mutants: FP8LAB_MUTANT_OFFSET is 'seed' or unset, not '$FP8LAB_MUTANT_OFFSET'"
    exit 2 ;;
esac
index=0
: >"$TMP/order"
for patch in tests/*/mutants/*.patch; do
    # lab5 needs a GPU: tests/lab5/test_grading.sh grades its mutants.
    case $patch in tests/lab5/*) continue ;; esac
    case $patch in tests/${FP8LAB_MUTANT_LAB:-*}/*) ;; *) continue ;; esac
    [ -f "$patch" ] || continue
    index=$((index + 1))
    [ $((index % stride)) = "$offset" ] || [ "$stride" = 1 ] || continue
    lab=$(basename "$(dirname "$(dirname "$patch")")")
    name=$(basename "$patch" .patch)
    count=$((count + 1))
    echo "$lab-$name" >>"$TMP/order"
    check_mutant "$patch" "$lab" "$name" "$count" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait
while read -r id; do
    if [ "$(cat "$TMP/$id.verdict" 2>/dev/null)" = ok ]; then
        passed=$((passed + 1))
    else
        cat "$TMP/$id.verdict" 2>/dev/null || echo "FAIL: $id: no verdict"
        failed=$((failed + 1))
    fi
done <"$TMP/order"

# The tables of traps and the mutants agree.
tables=0
for lab_dir in tests/lab*; do
    [ -d "$lab_dir/mutants" ] || continue
    case $lab_dir in tests/${FP8LAB_MUTANT_LAB:-*}) ;; *) continue ;; esac
    lab=$(basename "$lab_dir")
    table=$lab_dir/TRAPS.md
    if [ ! -f "$table" ]; then
        echo "FAIL: $lab has mutants but no table of traps, $table"
        failed=$((failed + 1))
        continue
    fi
    # "mutant|tests" for each row whose third column is one `name`.
    awk -F'|' 'NF >= 6 && $4 ~ /^ *`[A-Za-z0-9_]+` *$/ {
            m = $4; gsub(/[ `]/, "", m)
            t = $5; gsub(/[`,]/, " ", t)
            print m "|" t
        }' "$table" >"$TMP/rows"
    for patch in "$lab_dir"/mutants/*.patch; do
        [ -f "$patch" ] || continue
        name=$(basename "$patch" .patch)
        rows=$(grep -c "^$name|" "$TMP/rows")
        want=$(sed -n 's/^expect-fail: *//p' "$patch" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
        listed=$(grep "^$name|" "$TMP/rows" | head -n 1 | cut -d'|' -f2 | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
        if [ "$rows" != 1 ]; then
            echo "FAIL: $table: mutant $name has $rows rows, not 1"
            failed=$((failed + 1))
        elif [ "$listed" != "$want" ]; then
            echo "FAIL: $table: $name is caught by [$listed], its patch says [$want]"
            failed=$((failed + 1))
        fi
    done
    while IFS='|' read -r name _; do
        if [ ! -f "$lab_dir/mutants/$name.patch" ]; then
            echo "FAIL: $table: names mutant $name, which $lab_dir/mutants does not have"
            failed=$((failed + 1))
        fi
    done <"$TMP/rows"
    tables=$((tables + 1))
done

if [ "$count" = 0 ]; then
    echo "test_mutants: no mutants found under tests/*/mutants"
    exit 1
fi
of=""
[ "$stride" = 1 ] || of=" (one in $stride of $index: FP8LAB_MUTANT_STRIDE${FP8LAB_MUTANT_OFFSET:+, which by the seed})"
how="each with and without --seed"
[ "$INPUTS" = both ] || how="half on the public inputs, half with --seed $SEED"
echo "test_mutants: $passed of $count mutants$of caught as they say ($how); $tables tables of traps read; $failed failures"
[ "$failed" = 0 ]
