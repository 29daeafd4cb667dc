# lib.sh - what the grader's shell tests share: counting checks, comparing,
# and building a hostile lab0 submission. Sourced (`. tests/grading/lib.sh`)
# from the top of the course, after ROOT and TMP are set.

passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
expect_eq() { # what got want
    if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}
# csv FILE: the gradebook FILE without its CRLF's CRs; field FILE ID N: the
# N-th column of ID's row.
csv() { tr -d '\r' <"$1"; }
field() { csv "$1" | awk -F, -v id="$2" -v n="$3" '$1 == id { print $n }'; }
# columns FILE NAME...: each row's id, then the columns the header names
# NAME, joined by ':', a row a line (cells without commas in them).
columns() {
    f=$1
    shift
    csv "$f" | awk -F, -v want="$*" 'NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
        { line = $1; n = split(want, w, " "); for (k = 1; k <= n; k++) line = line ":" $(at[w[k]]); print line }'
}
# csv_cell FILE KEY N: the N-th cell of the row of FILE whose first cell
# ends in KEY, unquoted (RFC 4180: quoted cells, doubled quotes; none holds
# a line break).
csv_cell() {
    tr -d '\r' <"$1" | awk -v key="$2" -v want="$3" '{
        n = 0; cell = ""; q = 0
        for (i = 1; i <= length($0); i++) {
            c = substr($0, i, 1)
            if (q && c == "\"" && substr($0, i + 1, 1) == "\"") { cell = cell c; i++ }
            else if (c == "\"") q = !q
            else if (!q && c == ",") { v[++n] = cell; cell = "" }
            else cell = cell c
        }
        v[++n] = cell
        k = length(key)
        if (length(v[1]) >= k && substr(v[1], length(v[1]) - k + 1) == key) print v[want]
        delete v
    }'
}
expect_match() { # what text extended-regex
    if printf '%s' "$2" | grep -Eq -- "$3"; then ok; else
        bad "$1: no match for /$3/ in:"
        printf '%s\n' "$2" | head -n 20 | sed 's/^/    /'
    fi
}

# hostile_into FILE NAME: FILE becomes the lab0 solution with the functions
# of tests/hostile/NAME.c swapped in for its own (renamed
# solution_decode, solution_encode, solution_format_limits, which the
# fragment may call). A fragment with the line "hostile: first" goes before
# the solution instead, whole.
hostile_into() {
    frag=$ROOT/tests/hostile/$2.c
    if grep -q 'hostile: first' "$frag"; then
        cat "$frag" "$ROOT/solutions/lab0/lab0.c" >"$1"
        return
    fi
    # The solution's own keeps a lab0_ name (only those may be global) and
    # is called solution_NAME in the fragment.
    {
        for f in lab0_decode lab0_encode lab0_format_limits; do
            grep -q "^[a-z_0-9]* $f(" "$frag" && echo "#define $f ${f}_solution"
        done
        cat "$ROOT/solutions/lab0/lab0.c"
        for f in lab0_decode lab0_encode lab0_format_limits; do
            grep -q "^[a-z_0-9]* $f(" "$frag" &&
                printf '#undef %s\n#define solution_%s %s_solution\n' "$f" "${f#lab0_}" "$f"
        done
        echo "#include <stdint.h>"
        cat "$frag"
    } >"$1"
}
