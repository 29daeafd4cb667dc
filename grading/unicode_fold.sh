#!/bin/sh
# unicode_fold.sh - writes grading/unicode_fold.h, the tables batch_find.c uses to
# compare student ids as Unicode says two strings are "canonical caseless"
# equal (Unicode 15.0, section 3.13, D145): the full canonical decomposition
# of every code point that has one (UnicodeData.txt; Hangul syllables are
# left to the algorithm), the canonical combining class of every mark, and
# the full case folding (CaseFolding.txt, statuses C and F).
#
#   sh grading/unicode_fold.sh [UCD_FOLDER] > grading/unicode_fold.h
#
# UCD_FOLDER defaults to /usr/share/unicode (Debian's unicode-data).
set -eu
ucd=${1:-/usr/share/unicode}
version=$(sed -n 's/^# CaseFolding-\([0-9.]*\)\.txt.*/\1/p' "$ucd/CaseFolding.txt")
awk -F';' -v version="$version" '
function expand(cp,    parts, n, i, out) {
    if (!(cp in decomp))
        return cp
    n = split(decomp[cp], parts, " ")
    out = ""
    for (i = 1; i <= n; i++)
        out = out (out == "" ? "" : " ") expand(parts[i])
    return out
}
# Entries are packed onto lines of at most 100 columns, several a line, so
# that the header stays short to read past; put(s) adds one.
function put(s) {
    if (length(row) + 1 + length(s) > 100) {
        print row
        row = "   "
    }
    row = row " " s
}
function flush() {
    if (row != "   ")
        print row
    row = "   "
}
function emit(name, keys, values, count,    i, n, parts, off, j, e) {
    off = 0
    row = "   "
    printf "static const uint32_t %s_data[] = {\n", name
    for (i = 1; i <= count; i++) {
        n = split(values[keys[i]], parts, " ")
        e = ""
        for (j = 1; j <= n; j++)
            e = e (j > 1 ? " " : "") "0x" parts[j] ","
        put(e)
    }
    flush()
    print "};"
    printf "static const uf_map %s[] = {\n", name
    for (i = 1; i <= count; i++) {
        n = split(values[keys[i]], parts, " ")
        put(sprintf("{0x%s, %d, %d},", keys[i], off, n))
        off += n
    }
    flush()
    print "};"
}
FILENAME ~ /UnicodeData/ {
    if ($4 != "0") { ccc[++nccc] = $1; cccv[$1] = $4 }
    if ($6 != "" && $6 !~ /^</) { decomp[$1] = $6; dkeys[++ndecomp] = $1 }
    next
}
FILENAME ~ /CaseFolding/ && $0 !~ /^#/ && NF >= 3 {
    st = $2; gsub(/ /, "", st)
    if (st == "C" || st == "F") {
        m = $3; sub(/^ /, "", m)
        fold[$1] = m; fkeys[++nfold] = $1
    }
}
END {
    print "/*"
    print " * unicode_fold.h - Unicode " version "\x27s canonical decompositions, combining classes"
    print " * and full case folding, for comparing student ids (batch_find.c). Written by"
    print " * grading/unicode_fold.sh from UnicodeData.txt and CaseFolding.txt: do not edit."
    print " * Each table is sorted by code point, for a binary search."
    print " */"
    print "#ifndef FP8LAB_UNICODE_FOLD_H"
    print "#define FP8LAB_UNICODE_FOLD_H"
    print ""
    print "#include <stdint.h>"
    print ""
    print "typedef struct uf_map {"
    print "    uint32_t cp;  /* the code point */"
    print "    uint16_t off; /* its expansion: <table>_data[off .. off + len) */"
    print "    uint16_t len;"
    print "} uf_map;"
    print ""
    for (i = 1; i <= ndecomp; i++)
        full[dkeys[i]] = expand(dkeys[i])
    emit("uf_decomp", dkeys, full, ndecomp)
    print ""
    emit("uf_fold", fkeys, fold, nfold)
    print ""
    print "typedef struct uf_class {"
    print "    uint32_t cp;"
    print "    uint8_t ccc; /* canonical combining class, never 0 here */"
    print "} uf_class;"
    print ""
    print "static const uf_class uf_ccc[] = {"
    row = "   "
    for (i = 1; i <= nccc; i++)
        put(sprintf("{0x%s, %d},", ccc[i], cccv[ccc[i]]))
    flush()
    print "};"
    print ""
    print "#endif"
}' "$ucd/UnicodeData.txt" "$ucd/CaseFolding.txt"
