#!/bin/sh
# test_cli.sh - checks the fp8 explorer (common/fp8cli.c) against answers
# worked out by hand from the OCP OFP8 and MX specifications and IEEE 754
# (FP16) or the bfloat16 layout (BF16: a float's top 16 bits).
#
#   sh tests/common/test_cli.sh build/bin/fp8
#
# Each check runs fp8 and looks for one exact line (runs of blanks squeezed to
# one, leading blanks dropped, so column widths do not matter), a fragment of
# a line, a count of lines or an exit status. Exit status 0 when every check
# passes, 1 otherwise; each failure prints the command, what was expected and
# what came out.
#
# The arithmetic behind the expected values is in the comments: E4M3 has bias
# 7, 3 mantissa bits and max 448 = 1.110b x 2^8 (0x7e); E5M2 bias 15, 2
# mantissa bits, max 57344 = 1.11b x 2^15 (0x7b), inf 0x7c. FP16 has bias 15,
# 10 mantissa bits, max 65504 = 1.1111111111b x 2^15 (0x7bff), inf 0x7c00 and
# smallest subnormal 2^-24; BF16 bias 127, 7 mantissa bits, inf 0x7f80.

FP8=$1
if [ -z "$FP8" ]; then
    echo "usage: sh test_cli.sh path/to/fp8" >&2
    exit 1
fi
if [ ! -x "$FP8" ]; then
    echo "test_cli.sh: '$FP8' is not an executable" >&2
    exit 1
fi

TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

passed=0
failed=0
CMD=

# run ARGS...: runs fp8, keeping stdout, stderr and the exit status.
run() {
    CMD="fp8 $*"
    "$FP8" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    sed -e 's/  */ /g' -e 's/^ //' "$TMP/out" >"$TMP/norm"
}

pass() { passed=$((passed + 1)); }

# fail WHAT EXPECTED GOT
fail() {
    failed=$((failed + 1))
    printf 'FAIL: %s\n  %s\n  expected: %s\n  got:      %s\n' "$CMD" "$1" "$2" "$3"
}

# The first output line that starts with the same word as $1, to show on failure.
same_label() {
    grep -F -- "${1%% *}" "$TMP/norm" | head -n 1
}

# line TEXT: stdout has this exact line (blanks squeezed).
line() {
    if grep -Fxq -- "$1" "$TMP/norm"; then pass; else fail "line" "$1" "$(same_label "$1")"; fi
}

# contains TEXT: some stdout line contains TEXT.
contains() {
    if grep -Fq -- "$1" "$TMP/norm"; then pass; else fail "text" "$1" "(not found)"; fi
}

# count PATTERN N: N stdout lines match the basic regular expression PATTERN.
count() {
    n=$(grep -c -- "$1" "$TMP/norm")
    if [ "$n" -eq "$2" ]; then pass; else fail "lines matching '$1'" "$2" "$n"; fi
}

# status N: the exit status was N.
status() {
    if [ "$rc" -eq "$1" ]; then pass; else fail "exit status" "$1" "$rc"; fi
}

# error TEXT: exit status 2, nothing on stdout, TEXT and the hint on stderr.
error() {
    status 2
    if [ -s "$TMP/out" ]; then fail "stdout" "(empty)" "$(head -n 1 "$TMP/out")"; else pass; fi
    if grep -Fq -- "$1" "$TMP/err"; then pass; else fail "stderr" "$1" "$(head -n 1 "$TMP/err")"; fi
    if grep -Fq -- "see fp8 --help" "$TMP/err"; then pass; else
        fail "stderr" "see fp8 --help" "$(tail -n 1 "$TMP/err")"; fi
}

# ---- explain ------------------------------------------------------------------

# 3.14 is 1.57 x 2^1: exponent field 1 + 7 = 8 = 1000b, spacing 2^(1-3) = 0.25.
# Its neighbours are 3 = 1.100b x 2 (0x44) and 3.25 = 1.101b x 2 (0x45); the
# float 3.14000010490417... is 0.11 from 3.25 and 0.14 from 3, so up.
run explain 3.14 -f e4m3
status 0
line "3.14 in E4M3 (OCP E4M3FN), rounding to nearest, ties to even"
line "as float 3.1400001 (0x1.91eb86p+1, the nearest float)"
line "code 0x45 = 0 1000 101 (s eeee mmm)"
line "sign 0 (+)"
line "exponent 1000b = 8, unbiased 8 - 7 = 1"
line "mantissa 101b = 5: significand 1 + 5/8 = 1.625"
line "class normal"
line "formula (-1)^0 x 1.101b x 2^(8-7) = 1.625 x 2^1 = 3.25"
line "stored 3.25 (0x1.ap+1)"
# 3.25 - 3.1400001049041748046875 = 0.1099998950958251953125, 3.503% of it
line "error +0.109999895 absolute, +3.5% relative (stored - input)"
line "below 3 (0x44)"
line "above 3.25 (0x45)"
contains "rounded up to nearest"
contains "saturation on (default)"

# The same with --format, an upper-case name and the -0.5 style of value.
run explain 3.14 --format E4M3
line "code 0x45 = 0 1000 101 (s eeee mmm)"
run explain -3.14 --format=fp8_e4m3
line "code 0xc5 = 1 1000 101 (s eeee mmm)"
line "stored -3.25 (-0x1.ap+1)"
line "below -3.25 (0xc5)"
line "above -3 (0xc4)"

# Other roundings: toward zero keeps 3, away from zero takes 3.25.
run explain 3.14 --round zero
line "stored 3 (0x1.8p+1)"
contains "toward zero"
run explain 3.14 -r away
line "stored 3.25 (0x1.ap+1)"
contains "away from zero"

# 464 is halfway between max 448 = 1.110b x 2^8 (0x7e, mantissa even) and the
# next step 448 + 2^(8-3) = 480, which is past max: the tie goes to 448.
run explain 464
line "code 0x7e = 0 1111 110 (s eeee mmm)"
line "stored 448 (0x1.cp+8)"
line "class max"
line "error -16 absolute, -3.45% relative (stored - input)"
line "above none (out of range)"
contains "tie, to even"

# 500 is past the midpoint 464, so it rounds to 480: past max.
run explain 500
line "code 0x7e = 0 1111 110 (s eeee mmm)"
contains "saturated to max finite"
run explain 500 --no-saturate
line "code 0x7f = 0 1111 111 (s eeee mmm)"
line "stored NaN"
line "class NaN"
contains "overflow -> NaN"
run explain -500 --no-saturate
line "code 0xff = 1 1111 111 (s eeee mmm)"
# Rounding toward zero never overflows, saturating or not.
run explain 500 --no-saturate --round zero
line "code 0x7e = 0 1111 110 (s eeee mmm)"

# E5M2 around 500: 2^8..2^9 in steps of 2^(8-2) = 64, so 448 (0 10111 11 =
# 0x5f) and 512 = 2^9 (0 11000 00 = 0x60); 500 is 12 from 512.
run explain 500 -f e5m2
line "500 in E5M2, rounding to nearest, ties to even"
line "code 0x60 = 0 11000 00 (s eeeee mm)"
line "formula (-1)^0 x 1.00b x 2^(24-15) = 1 x 2^9 = 512"
line "stored 512 (0x1p+9)"
line "below 448 (0x5f)"
line "above 512 (0x60)"
contains "rounded up to nearest"
contains "--no-saturate gives inf (0x7c)"

# E5M2 overflow: max 57344 (0x7b), next step 57344 + 2^(15-2) = 65536, midpoint
# 61440. 60000 rounds down; 61440 is a tie and 0x7b is odd, so it goes up.
run explain 60000 -f e5m2 --no-saturate
line "code 0x7b = 0 11110 11 (s eeeee mm)"
line "stored 57344 (0x1.cp+15)"
run explain 61440 -f e5m2 --no-saturate
line "code 0x7c = 0 11111 00 (s eeeee mm)"
line "stored +inf"
contains "overflow -> inf"
run explain 61440 -f e5m2
line "code 0x7b = 0 11110 11 (s eeeee mm)"
run explain -1e5 -f e5m2 --no-saturate
line "code 0xfc = 1 11111 00 (s eeeee mm)"
line "stored -inf"

# Hex floats and the bottom of E4M3: the smallest subnormal is 2^-9 (0x01);
# 2^-10 is halfway between 0 (0x00, even) and 2^-9 (0x01, odd).
run explain 0x1p-9
line "code 0x01 = 0 0000 001 (s eeee mmm)"
line "class subnormal"
line "formula (-1)^0 x 0.001b x 2^(1-7) = 0.125 x 2^-6 = 0.001953125"
contains "exact"
run explain 0x1p-10
line "code 0x00 = 0 0000 000 (s eeee mmm)"
line "below 0 (0x00)"
line "above 0.001953125 (0x01)"
contains "tie, to even"
contains "underflow to zero"
run explain 0x1p-10 --round away
line "code 0x01 = 0 0000 001 (s eeee mmm)"

# Signed zero, infinities and NaN.
run explain -0
line "code 0x80 = 1 0000 000 (s eeee mmm)"
line "stored -0 (-0x0p+0)"
run explain inf
line "code 0x7e = 0 1111 110 (s eeee mmm)"
run explain inf --no-saturate
line "code 0x7f = 0 1111 111 (s eeee mmm)"
run explain nan -f e5m2
line "code 0x7f = 0 11111 11 (s eeeee mm)"

# Several values at once: 1 = 1.000b x 2^0 (0 0111 000 = 0x38), 2 (0x40).
run explain 1 2
count "^stored " 2
line "code 0x38 = 0 0111 000 (s eeee mmm)"
line "code 0x40 = 0 1000 000 (s eeee mmm)"

# E8M0 is 2^(e-127) with no sign and no zero: 3 is halfway between 2 = 2^1
# (0x80, even) and 4 (0x81); 0 becomes the smallest value, 2^-127 (0x00).
run explain -3 -f e8m0
line "code 0x80 = 10000000 (eeeeeeee)"
line "stored 2 (0x1p+1)"
contains "tie, to even"
run explain 0 -f e8m0
line "code 0x00 = 00000000 (eeeeeeee)"
line "stored 5.87747175e-39 (0x1p-127)"

# E2M1 has no NaN and no inf: NaN and anything past 6 become 6 (0x7).
run explain 100 -f e2m1 --no-saturate
line "code 0x7 = 0 11 1 (s ee m)"
line "stored 6 (0x1.8p+2)"
run explain nan -f e2m1
line "code 0x7 = 0 11 1 (s ee m)"

# FP16 and BF16: IEEE, so by default overflow gives inf, not max. 70000 is past
# the midpoint 65520 of max 65504 and the next step 65504 + 2^(15-10) = 65536.
run explain 70000 -f fp16
status 0
line "70000 in FP16 (IEEE binary16), rounding to nearest, ties to even"
line "code 0x7c00 = 0 11111 0000000000 (s eeeee mmmmmmmmmm)"
line "class inf"
line "stored +inf"
line "below 65504 (0x7bff)"
line "above none (out of range)"
contains "65536, past max finite 65504: overflow -> inf"
contains "saturation off (default): past 65504, and inf, give inf; --saturate gives 65504 (0x7bff)"
run explain 70000 -f fp16 --saturate
line "code 0x7bff = 0 11110 1111111111 (s eeeee mmmmmmmmmm)"
line "stored 65504 (0x1.ffcp+15)"
line "class max"
contains "saturated to max finite"
contains "saturation on (--saturate)"
run explain 70000 -f fp16 --round zero
line "code 0x7bff = 0 11110 1111111111 (s eeeee mmmmmmmmmm)"
# 65520 is the tie itself; 0x7bff is odd, so it goes up, to inf.
run explain 65520 --format=half
line "code 0x7c00 = 0 11111 0000000000 (s eeeee mmmmmmmmmm)"
contains "tie, to even"
run explain -70000 -f fp16 --no-saturate
line "code 0xfc00 = 1 11111 0000000000 (s eeeee mmmmmmmmmm)"
line "stored -inf"

# 70000 = 2^16 x 1.068...; BF16 steps by 2^(16-7) = 512 there: 69632 =
# 2^16 + 8 x 512 (0 10001111 0001000 = 0x4788) and 70144 = 2^16 + 9 x 512
# (0x4789); 70000 is 368 above the one and 144 below the other.
run explain 70000 -f bf16
line "code 0x4789 = 0 10001111 0001001 (s eeeeeeee mmmmmmm)"
line "exponent 10001111b = 143, unbiased 143 - 127 = 16"
line "formula (-1)^0 x 1.0001001b x 2^(143-127) = 1.0703125 x 2^16 = 70144"
line "stored 70144 (0x1.12p+16)"
line "error +144 absolute, +0.206% relative (stored - input)"
line "below 69632 (0x4788)"
line "above 70144 (0x4789)"
contains "rounded up to nearest"
run explain 70000 -f BFloat16 --round zero
line "code 0x4788 = 0 10001111 0001000 (s eeeeeeee mmmmmmm)"

# 1e-8 is below 2^-25, half FP16's smallest subnormal 2^-24: it becomes 0.
run explain 1e-8 -f fp16
line "code 0x0000 = 0 00000 0000000000 (s eeeee mmmmmmmmmm)"
line "stored 0 (0x0p+0)"
line "above 5.96046448e-08 (0x0001)"
line "error -9.99999994e-09 absolute, -100% relative (stored - input)"
contains "underflow to zero"
run explain 0x1p-25 -f fp16 --round away
line "code 0x0001 = 0 00000 0000000001 (s eeeee mmmmmmmmmm)"
line "class subnormal"
# In BF16 1e-8 = 1.3422 x 2^-27 is normal: exponent 127 - 27 = 100 = 01100100b,
# mantissa 0.3422 x 128 = 43.8, so 44 = 0101100b: 0x322c, 172 x 2^-34.
run explain 1e-8 -f bf16
line "code 0x322c = 0 01100100 0101100 (s eeeeeeee mmmmmmm)"
line "stored 1.00117177e-08 (0x1.58p-27)"
line "below 9.95351002e-09 (0x322b)"


# --compare: one line per format. 70000 is a float (0x4788b800: 2^16 x
# 1.0001000101110000b, exponent 143); BF16 rounds it to 70144 (+144/70000 =
# +0.206%), FP16 overflows to inf, E4M3 and E5M2 saturate to 448 (-99.4%) and
# 57344 (57344/70000 - 1 = -18.1%).
run explain 70000 --compare
status 0
count "^fp32 \|^bf16 \|^fp16 \|^e4m3 \|^e5m2 " 5
line "fp32 0x4788b800 70000 0 kept"
line "bf16 0x4789 70144 +0.206% rounded"
line "fp16 0x7c00 +inf - overflow -> inf"
line "e4m3 0x7e 448 -99.4% saturated to max finite"
line "e5m2 0x7b 57344 -18.1% saturated to max finite"
run explain 70000 --compare --saturate
line "fp16 0x7bff 65504 -6.42% saturated to max finite"
# 1e-8 is not a float (nearest 0x322bcc77); BF16 keeps 1.00117e-8 (+0.117%),
# the others flush it to zero. 1e-6 is 16.78 x 2^-24: FP16 subnormal 17 x 2^-24.
run explain 1e-8 1e-6 --compare
line "fp32 0x322bcc77 9.99999994e-09 -6.08e-07% rounded"
line "bf16 0x322c 1.00117177e-08 +0.117% rounded"
line "fp16 0x0000 0 -100% flushed to zero"
line "e5m2 0x00 0 -100% flushed to zero"
line "fp16 0x0011 1.01327896e-06 +1.33% rounded, subnormal"


# 0x7e = 0 1111 110: 1.75 x 2^(15-7) = 448, the largest E4M3 value.
run decode 0x7e
status 0
line "0x7e in E4M3 (OCP E4M3FN)"
line "code 0x7e = 0 1111 110 (s eeee mmm)"
line "exponent 1111b = 15, unbiased 15 - 7 = 8"
line "class max"
line "value 448 (0x1.cp+8)"
run decode 126
line "value 448 (0x1.cp+8)"
run decode 0x7f
line "class NaN"
line "value NaN"
# 0x08 = 2^(1-7) = 0.015625 is the smallest normal; 0x01 = 2^-9.
run decode 0x08 0x01 0x80
line "value 0.015625 (0x1p-6)"
line "value 0.001953125 (0x1p-9)"
line "value -0 (-0x0p+0)"
count "^class " 3

# E5M2: exponent 11111 with mantissa 00 is inf, else NaN.
run decode 0x7c -f e5m2
line "class inf"
line "value +inf"
run decode 0x7d 0xfc -f e5m2
line "value NaN"
line "value -inf"
run decode 0x7b -f e5m2
line "value 57344 (0x1.cp+15)"

# The small formats: E3M2 0x3f = 1 111 11 = -1.75 x 2^4 = -28; E2M1 0xb =
# 1 01 1 = -1.5; E2M3 0x1f = 0 11 111 = 1.875 x 2^2 = 7.5; E8M0 0x7f = 2^0.
run decode 0x3f -f e3m2
line "value -28 (-0x1.cp+4)"
run decode 0xb -f e2m1
line "code 0xb = 1 01 1 (s ee m)"
line "value -1.5 (-0x1.8p+0)"
run decode 0x1f -f e2m3
line "value 7.5 (0x1.ep+2)"
run decode 0x7f 0xff -f e8m0
line "value 1 (0x1p+0)"
line "value NaN"

# FP16 0x3c00 = 0 01111 0000000000 = 2^0; 0x0001 = 2^-24; 0x7c00 inf, 0xfc01 NaN.
run decode 0x3c00 -f fp16
status 0
line "0x3c00 in FP16 (IEEE binary16)"
line "exponent 01111b = 15, unbiased 15 - 15 = 0"
line "value 1 (0x1p+0)"
run decode 0x0001 0x7bff 0x7c00 0xfc01 -f binary16
line "value 5.96046448e-08 (0x1p-24)"
line "value 65504 (0x1.ffcp+15)"
line "value +inf"
line "value NaN"
count "^class " 4
# BF16 0x7f80 = 0 11111111 0000000 is inf; 0x3f80 = 2^0; 0xc000 = -2.
run decode 0x7f80 0x3f80 0xc000 -f bf16
line "code 0x7f80 = 0 11111111 0000000 (s eeeeeeee mmmmmmm)"
line "value +inf"
line "value 1 (0x1p+0)"
line "value -2 (-0x1p+1)"


# ---- table and info -------------------------------------------------------------

run table e5m2
status 0
count "^0x" 256
count " NaN$" 6
count " inf$" 2
line "0x7b 0 11110 11 57344 max"
line "0x7c 0 11111 00 +inf inf"
line "0x01 0 00000 01 1.52587891e-05 subnormal"
contains "max finite 57344 (0x7b), min normal 6.10351562e-05 (0x04),"
contains "min subnormal 1.52587891e-05 (0x01)"
contains "OCP 8-bit Floating Point Specification"

run table e4m3
count "^0x" 256
count " NaN$" 2
line "0x7e 0 1111 110 448 max"

# E2M1: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
run table E2M1
count "^0x" 16
line "0x5 0 10 1 3 normal"
line "0xf 1 11 1 -6 max"
run table e3m2
count "^0x" 64
run table e8m0
count "^0x" 256
line "0x00 00000000 5.87747175e-39 normal"

# FP16 and BF16 by binade: one line per exponent field, 2^5 = 32 and 2^8 =
# 256 of them. FP16 field 0 holds zero and the subnormals k x 2^-24, up to
# 1023 x 2^-24 = 2^-14 - 2^-24; field 15 is [1, 2 - 2^-10] in steps of
# 2^(0-10); field 30 is [2^15, 65504] in steps of 2^(15-10) = 32.
run table fp16
status 0
count "^[01]\{5\} 0x" 32
count "^0x" 0
count "" 36
line "00000 0x0000-0x03ff 0 6.09755516e-05 2^-24 zero, subnormal"
line "00001 0x0400-0x07ff 6.10351562e-05 0.000122010708 2^-24 normal"
line "01111 0x3c00-0x3fff 1 1.99902344 2^-10 normal"
line "11110 0x7800-0x7bff 32768 65504 2^5 normal, max"
line "11111 0x7c00-0x7fff +inf NaN - inf, NaN"
contains "epsilon 2^-10 = 0.0009765625"
# BF16: field 0 up to 127 x 2^-133; field 254 is [2^127, (2 - 2^-7) x 2^127]
# in steps of 2^(127-7).
run table bfloat16
count "^[01]\{8\} 0x" 256
line "00000000 0x0000-0x007f 0 1.1663108e-38 2^-133 zero, subnormal"
line "01111111 0x3f80-0x3fff 1 1.9921875 2^-7 normal"
line "11111110 0x7f00-0x7f7f 1.70141183e+38 3.38953139e+38 2^120 normal, max"

run info
status 0
line "e4m3 8 1 4 3 7 448 2^-6 2^-9 none 0x7f 0xff"
line "e5m2 8 1 5 2 15 57344 2^-14 2^-16 0x7c 0xfc 0x7d-0x7f 0xfd-0xff"
line "e8m0 8 0 8 0 127 1.70141183e+38 2^-127 none none 0xff"
line "e2m1 4 1 2 1 1 6 2^0 2^-1 none none"
line "e3m2 6 1 3 2 3 28 2^-2 2^-4 none none"
line "e2m3 6 1 2 3 1 7.5 2^0 2^-3 none none"
run info e3m2
count "^e" 2
# The 16-bit formats in a table of their own, with epsilon 2^-man_bits, and
# their limits in decimal: 2^-14 = 6.103515625e-05, 2^-24 = 5.96e-08.
run info
line "fp16 16 1 5 10 15 65504 2^-14 2^-24 2^-10 0x7c00 0xfc00 0x7c01-0x7fff 0xfc01-0xffff"
line "bf16 16 1 8 7 127 3.38953139e+38 2^-126 2^-133 2^-7 0x7f80 0xff80 0x7f81-0x7fff 0xff81-0xffff"
contains "fp16 max finite 65504 (0x7bff), min normal 6.10351562e-05 (0x0400), min subnormal 5.96046448e-08 (0x0001), epsilon 2^-10 = 0.0009765625"
contains "bf16 BF16 (bfloat16):"
run info fp16
count "^fp16" 3
count "^e" 0
contains "IEEE 754"

# ---- help and errors --------------------------------------------------------------

run --help
status 0
contains "usage:"
run help
status 0
run
status 0
contains "fp8 explain"

run explain 3.14 -f e9m9
error "unknown format 'e9m9'"
run explain 3.1x
error "fp8: '3.1x' is not a number"
run explain 3.14 ''
error "is not a number"
run decode 0x100
error "0x100"
run decode 0x40 -f e3m2
error "0x40"
run decode 0x10 -f e2m1
error "0x10"
run decode 0x10000 -f fp16
error "0 to 0xffff"
run decode 0xffff -f bf16
status 0
run explain 1 -f fp32
error "e4m3 e5m2 e8m0 e2m1 e3m2 e2m3 fp16 bf16"
run decode 0x7z
error "'0x7z' is not a code"
run decode -1
error "'-1' is not a code"
run table e9m9
error "unknown format"
run frobnicate
error "unknown command 'frobnicate'"
run explain 1 --round up
error "unknown rounding 'up'"
run explain 1 -f
error "needs a format"
run decode 1 --no-saturate
error "--no-saturate"
run explain
error "needs a value"
run explain 1 --compare -f e4m3
error "leave out --format"
run decode 1 --compare
error "--compare"

total=$((passed + failed))
if [ "$failed" -ne 0 ]; then
    echo "test_cli: $failed of $total checks failed"
    exit 1
fi
echo "test_cli: all $total checks passed"
exit 0
