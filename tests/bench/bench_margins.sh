#!/bin/sh
# bench_margins.sh - how far the time limits of the tests are from the time
# the tests take, so that make test passes on a loaded machine.
#
# Every time limit in make test is scaled by CK_TIMEOUT_MULTIPLIER: Check's
# limit of each unit test, and the grader's limit of each graded test (the
# grader passes it on). Run here with CK_TIMEOUT_MULTIPLIER=1/M, a test that
# still passes has more than M times the time it needs on this machine as it
# is now; with M = 10, a machine ten times slower or busier still passes it.
# For each of make test's Check programs (build/tests/manifest) and each
# lab's reference solution graded, this prints whether it passes at 1/M of
# its limits, and its slowest test: seconds, and (the grader) its limit.
# Nothing is asserted: a figure for the reader; a test that fails at 1/M
# needs a larger limit.
#
#   sh tests/bench/bench_margins.sh build/bin/grader [M]    (default M = 10)
set -u
GRADER=${1:-build/bin/grader}
M=${2:-10}
MANIFEST=${FP8LAB_BUILD:-build}/tests/manifest
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
FRAC=$(awk -v m="$M" 'BEGIN { printf "%.6g", 1 / m }')
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown)
echo "margins: every test at 1/$M of its time limit (CK_TIMEOUT_MULTIPLIER=$FRAC), load average $load on $(nproc) cores"

# Check's XML log: the slowest test, "SECONDS TCASE:TEST".
slowest() {
    awk '/<id>/ { gsub(/.*<id>|<\/id>.*/, ""); id = $0 }
         /<duration>/ { gsub(/.*<duration>|<\/duration>.*/, ""); d = $0 + 0 }
         /<description>/ { gsub(/.*<description>|<\/description>.*/, "");
                           if (d >= best) { best = d; what = $0 ":" id } }
         END { if (what != "") printf "%.2f s %s\n", best, what }' "$1"
}

fails=0
if [ -f "$MANIFEST" ]; then
    # the Check programs: a test whose command is one program under build/tests
    while IFS='|' read -r name kind cmd; do
        case $kind in run | solo) ;; *) continue ;; esac
        case $cmd in *" "* | "") continue ;; esac
        [ -x "$cmd" ] || continue
        xml=$TMP/$(echo "$name" | tr / _).xml
        CK_TIMEOUT_MULTIPLIER=$FRAC CK_XML_LOG_FILE_NAME=$xml "$cmd" >"$TMP/out" 2>&1
        rc=$?
        case $rc in
        0) verdict="passes" ;;
        77) verdict="skipped: $(tail -n 1 "$TMP/out")" ;;
        *) verdict="FAILS: $(grep -m 3 -E ':[EF]:' "$TMP/out" | sed 's/.*:[EF]:/ /' | tr '\n' ';')"
           fails=$((fails + 1)) ;;
        esac
        worst=$([ -f "$xml" ] && slowest "$xml")
        printf '  %-26s %s%s\n' "$name" "$verdict" "${worst:+; slowest test $worst}"
    done <"$MANIFEST"
else
    echo "  no $MANIFEST: build the tests first (make test builds them)"
fi

# The graders, on each lab's reference solution: full marks at 1/M.
for lab in $("$GRADER" --list 2>/dev/null | awk '/^lab/ { print $1 }'); do
    CK_TIMEOUT_MULTIPLIER=$FRAC "$GRADER" "$lab" --solution --format json >"$TMP/r.json" 2>"$TMP/r.err"
    rc=$?
    if [ "$rc" = 3 ]; then
        printf '  grader %-19s skipped: its tests need what this machine lacks\n' "$lab"
        continue
    fi
    worst=$(jq -r '[.tests[] | select(.seconds > 0)] | max_by(.seconds / .timeout_s)
        | "\(.name) \(.seconds * 100 | round / 100) s of its \(.timeout_s) s"' "$TMP/r.json" 2>/dev/null)
    if [ "$rc" = 0 ]; then verdict="full marks"; else
        verdict="FAILS ($(jq -r '.score' "$TMP/r.json" 2>/dev/null)/$(jq -r '.max_score' "$TMP/r.json" 2>/dev/null): $(jq -r '[.tests[] | select(.status != "pass") | .name] | join(" ")' "$TMP/r.json" 2>/dev/null))"
        fails=$((fails + 1))
    fi
    printf '  grader %-19s %s; nearest its limit: %s\n' "$lab" "$verdict" "${worst:-none}"
done
echo "margins: $fails programs fail at 1/$M of their limits"
