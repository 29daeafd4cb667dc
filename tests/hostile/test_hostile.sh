#!/bin/sh
# test_hostile.sh - one batch, as an instructor would run it the night of a
# deadline: every hostile submission in tests/hostile (each a fragment
# swapped into the lab0 solution, tests/grading/lib.sh), two hostile
# archives (a symbolic link out of the archive, a zip bomb) and three
# correct submissions, graded together two at a time. Each hostile one gets
# the report aimed at it, the correct ones full marks; nothing is written
# outside the work folders, the goldens are untouched, nothing is left
# running. Every check holds with bubblewrap and with Landlock alone
# (FP8LAB_SANDBOX=none, as where bwrap cannot start: a container; .ci/run
# runs it so in make test-fresh's plain chroot, where bwrap cannot start),
# which keep the compiler from /etc/shadow; run by root,
# the grader runs the tests as nobody.
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/hostile/test_hostile.sh
#   FP8LAB_HOSTILE_STRIDE=K ...   the batch grades one hostile submission in K
#                                 (in the names' sorted order; the correct ones
#                                 and slow_build always), and the checks of the
#                                 others are skipped and counted; the rest is
#                                 checked whole: .ci/run's sanitized run, after
#                                 a plain run graded them all
#   FP8LAB_HOSTILE_OFFSET=O ...   with a stride, which one in K: the O-th (0 to
#                                 K-1; default 0), or seed: by a seed new each
#                                 run, so that runs grade different ones (the
#                                 run says which O, to grade the same again)
# Run from the top of the course. Exit status 0 when every check passes, 2
# when the stride or the offset is not one.

set -u
STRIDE=${FP8LAB_HOSTILE_STRIDE:-1}
case $STRIDE in '' | *[!0-9]* | 0* | ???????*)
    echo "test_hostile: FP8LAB_HOSTILE_STRIDE is a whole number from 1 to 999999, not '$STRIDE'"
    exit 2 ;;
esac
OFFSET=${FP8LAB_HOSTILE_OFFSET:-0} BY=""
if [ "$OFFSET" = seed ]; then
    BY=$(date +%s)
    OFFSET=$((BY % STRIDE)) BY=", picked by the seed $BY"
fi
case $OFFSET in '' | *[!0-9]* | 0?* | ???????*) OFFSET=$STRIDE ;; esac
if [ "$OFFSET" -ge "$STRIDE" ]; then
    echo "test_hostile: FP8LAB_HOSTILE_OFFSET is seed or a whole number from 0 to $((STRIDE - 1))" \
        "(below FP8LAB_HOSTILE_STRIDE, $STRIDE), not '$FP8LAB_HOSTILE_OFFSET'"
    exit 2
fi
ROOT=$(pwd)
GRADER=${GRADER:-build/bin/grader}
case $GRADER in /*) ;; *) GRADER=$ROOT/$GRADER ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

# Every submission is made in $ALL, each hostile one's name a line of
# $TMP/names; the batch's folder, $SUBS, gets the correct ones and this
# run's share of the hostile ones (the Landlock batch and the crowd take
# theirs from $ALL).
ALL=$TMP/all
SUBS=$TMP/course
mkdir -p "$ALL" "$SUBS"
for id in good1 good2 good3; do
    mkdir -p "$ALL/$id"
    cp solutions/lab0/lab0.c "$ALL/$id/"
done
# Every fragment but slow.c (a second, fine under the limit: test_grader.sh).
count=0
: >"$TMP/names"
for frag in tests/hostile/*.c; do
    name=$(basename "$frag" .c)
    [ "$name" = slow ] && continue
    mkdir -p "$ALL/$name"
    hostile_into "$ALL/$name/lab0.c" "$name"
    echo "$name" >>"$TMP/names"
    count=$((count + 1))
done
# The course's solution and a classmate's file, by absolute path: the
# compiler sees neither (the least view: sandbox.h).
mkdir -p "$ALL/include_solution" "$ALL/include_classmate"
printf '#include "%s/solutions/lab0/lab0.c"\n' "$ROOT" >"$ALL/include_solution/lab0.c"
printf '#include "%s/good1/lab0.c"\n' "$SUBS" >"$ALL/include_classmate/lab0.c"
# Asks the compiler whether the solution exists, outside its view: it must
# not know (bwrap shows no such file; Landlock refuses it, which the
# compiler's preload, grading/enoent.c, makes read as a missing file), so
# the build goes on and the solution below it scores full marks.
mkdir -p "$ALL/has_include"
{ printf '#if __has_include("%s/solutions/lab0/lab0.c")
#error the compiler can tell that a file outside its view exists
#endif
' \
    "$ROOT"; cat solutions/lab0/lab0.c; } >"$ALL/has_include/lab0.c"
printf '%s\n' include_solution include_classmate has_include >>"$TMP/names"
count=$((count + 3))
mkdir -p "$TMP/mk/link"
ln -s /etc/passwd "$TMP/mk/link/lab0.c"
(cd "$TMP/mk" && bsdtar -czf "$ALL/symlink_escape.tar.gz" link) &&
    truncate -s 200M "$TMP/mk/lab0.c" && (cd "$TMP/mk" && bsdtar -a -cf "$ALL/zip_bomb.zip" lab0.c) &&
    ok || bad "bsdtar could not make the hostile archives"
rm -f "$TMP/mk/lab0.c"
printf '%s\n' symlink_escape zip_bomb >>"$TMP/names"
count=$((count + 2))
[ "$count" -ge 15 ] && ok || bad "only $count hostile submissions; the course keeps at least 15"

# This run's share, $TMP/share: the hostile submissions at place i, from 0,
# in the names' sorted order with i % STRIDE = OFFSET; pragma_missing at
# pragma_hidden's place (same_log compares their logs), and slow_build in
# every share (the batch sees the compiler running by it: watched).
while read -r name; do
    case $name in pragma_missing) echo "pragma_hidden $name" ;; *) echo "$name $name" ;; esac
done <"$TMP/names" | LC_ALL=C sort | awk -v k="$STRIDE" -v o="$OFFSET" '
    $2 == "slow_build" { print $2; next }
    $1 != last { i++; last = $1 }
    (i - 1) % k == o { print $2 }' >"$TMP/share"
for name in good1 good2 good3 $(cat "$TMP/share"); do
    if [ -d "$ALL/$name" ]; then cp -R "$ALL/$name" "$SUBS/"; else cp "$ALL/$name".* "$SUBS/"; fi
done
graded_n=$(wc -l <"$TMP/share" | tr -d ' ')
[ "$STRIDE" = 1 ] || echo "hostile: one in $STRIDE graded, offset $OFFSET$BY" \
    "(FP8LAB_HOSTILE_STRIDE=$STRIDE FP8LAB_HOSTILE_OFFSET=$OFFSET grades the same)"
# in_share NAME: this run grades NAME. share NAME [N]: the same; when not,
# NAME's N checks (default 1) are skipped and counted, never passed.
in_share() { grep -qx -- "$1" "$TMP/share"; }
skipped=0
: >"$TMP/checked"
: >"$TMP/skipped"
share() {
    if in_share "$1"; then
        echo "$1" >>"$TMP/checked"
        return 0
    fi
    skipped=$((skipped + ${2:-1}))
    echo "$1" >>"$TMP/skipped"
    return 1
}

BUILD=${FP8LAB_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
# watched UIDS CMD...: runs CMD and returns its status, writing to UIDS the
# user id of every compiler (cc1) of this course's batches seen meanwhile
# (slow_build keeps one running for seconds).
watched() {
    uids=$1
    shift
    : >"$uids"
    "$@" &
    w=$!
    while kill -0 "$w" 2>/dev/null; do
        for pid in $(pgrep -f "cc1 .*$BUILD/grade/batch\\."); do
            sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status" 2>/dev/null >>"$uids"
        done
        sleep 0.05
    done
    wait "$w"
}
# compiled_by_user UIDS WHAT: the compiler was seen, and never as root.
compiled_by_user() {
    [ -s "$1" ] && ! grep -qx 0 "$1" && ok ||
        bad "$2: the compiler ran as root, or was never seen (user ids: $(sort -u "$1" | tr '\n' ' '))"
}
# same_log PREFIX: pragma_hidden's build log reads as pragma_missing's.
same_log() {
    expect_eq "${1}pragma_hidden: its build log reads as pragma_missing's" \
        "$(jq -r .build_log "$2/pragma_hidden.json" | sed 's|/etc/shadow|FILE|g')" \
        "$(jq -r .build_log "$2/pragma_missing.json" | sed 's|/etc/fp8lab-no-such-file|FILE|g')"
}

sums_before=$(sha256sum data/golden/lab0/* | sha256sum)
rm -f /tmp/fp8lab-hostile-was-here
# Hidden inputs on: no seed may reach a report (seed_leak prints what it can).
SEED=hostile-s3cr3t-$$
watched "$TMP/uids" "$GRADER" --batch "$SUBS" lab0 -j 2 --seed "$SEED" >"$TMP/out" 2>"$TMP/err"
rc=$? refusals=0
in_share symlink_escape || in_share zip_bomb && refusals=1
expect_eq "batch: exit status (1 if an archive is refused)" "$rc" "$refusals"
compiled_by_user "$TMP/uids" "batch"
R=$SUBS.grades
BOOK=$R/grades.csv
field() { tr -d '\r' <"$BOOK" | awk -F, -v id="$1" -v n="$2" '$1 == id { print $n }'; }
not_passed() { jq -r '[.tests[] | select(.status != "pass") | .name] | join(" ")' "$R/$1.json"; }
message_of() { jq -r --arg t "$2" '.tests[] | select(.name == $t) | .message' "$R/$1.json"; }

expect_eq "every submission in the gradebook" "$(tr -d '\r' <"$BOOK" | sed 1d | wc -l | tr -d ' ')" \
    $((graded_n + 3))
for id in good1 good2 good3; do
    expect_eq "$id: full marks" "$(field $id 2),$(field $id 4)" "100,graded"
done

# Whether int $0x80 is a system call here: getpid through i386's number 20.
i386_gate() {
    printf 'int main(void) { long r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L)); return r <= 0; }\n' |
        cc -x c - -o "$TMP/i386_gate" 2>/dev/null && "$TMP/i386_gate" 2>/dev/null
}
# graded NAME SCORE TESTS PATTERN: the report's score, the tests that did
# not pass, and the first one's message.
graded() {
    share "$1" 3 || return 0
    expect_eq "$1: score and status" "$(field "$1" 2),$(field "$1" 4)" "$2,graded"
    expect_eq "$1: tests hit" "$(not_passed "$1")" "$3"
    expect_match "$1: message" "$(message_of "$1" "${3%% *}")" "$4"
}
limits="limits rel_error_bound"
graded segfault 85 "$limits" "^crashed: signal 11 .*a NULL one; memory is limited"
graded abort 85 "$limits" "^crashed: signal 6 .*abort\(\), a failed assert"
graded loop 85 "$limits" "^timed out"
graded bigalloc 85 "$limits" "^crashed: signal 11 .*a huge malloc returns NULL"
graded flood 85 "$limits" "^output flood"
graded stderr_flood 85 "$limits" "^output flood"
# The subject's exit status decides nothing (DESIGN.md, subject and judge).
graded exit0 80 "decode_e4m3 decode_e5m2" "exited early with status 0"
graded exit93 80 "decode_e4m3 decode_e5m2" "exited early with status 93: the code under test \\(lab0_decode\\)"
graded raw_exit 80 "decode_e4m3 decode_e5m2" "exited early with status 93"
graded forge 80 "decode_e4m3 decode_e5m2" "."
# Policy in the kernel: system calls that no name check sees.
graded raw_open 80 "decode_e4m3 decode_e5m2" "^forbidden system call: openat, in lab0_decode"
graded raw_exec 80 "decode_e4m3 decode_e5m2" "^forbidden system call: execve, in lab0_decode"
graded raw_kill 80 "decode_e4m3 decode_e5m2" "^forbidden system call: getppid, in lab0_decode"
# int $0x80 reaches the filter only where the kernel has its 32-bit gate
# (IA32 emulation); a kernel built without it faults the instruction, a
# crash: asked of the machine with a probe outside the grader.
if ! share raw_i386 3; then
    :
elif i386_gate; then
    graded raw_i386 80 "decode_e4m3 decode_e5m2" "^forbidden system call: \\(not known\\), in lab0_decode"
else
    echo "note: this kernel has no 32-bit system call gate: raw_i386 crashes at int \$0x80"
    graded raw_i386 80 "decode_e4m3 decode_e5m2" "crashed|exited early"
fi
graded raw_x32 80 "decode_e4m3 decode_e5m2" "^forbidden system call: \\(not known\\), in lab0_decode"
graded glob_read 80 "decode_e4m3 decode_e5m2" "^forbidden system call: openat, in lab0_decode"
graded wordexp_shell 80 "decode_e4m3 decode_e5m2" "^forbidden system call: (pipe2|clone|clone3|vfork)"
encode_tests="encode_exact encode_rne encode_subnormal encode_saturate encode_overflow_nosat encode_nan encode_random"
graded threads 35 "$encode_tests" "^forbidden system call: (rt_sigaction|clone3?|mmap)"
graded seed_leak 80 "decode_e4m3 decode_e5m2" "expected"
# What the subject writes into the arena or the reply pipe is its own
# claim: never the grader's error.
graded forge_header 80 "decode_e4m3 decode_e5m2" "exited early with status 1"
graded forge_reply 80 "decode_e4m3 decode_e5m2" "^lab0_decode did not answer as the subject does"
expect_eq "no report says the grader erred" "$(grep -l 'grader error' "$R"/*.json | wc -l | tr -d ' ')" 0
if share seed_leak 2; then
    seen=$("$GRADER" lab0 --dir "$SUBS/seed_leak" --seed "$SEED" -v --format json 2>/dev/null |
        jq -r '.tests[0].output')
    expect_match "seed_leak: its output (-v) shows no seed" "$seen" "seed: \\(none\\)"
    case $seen in *"$SEED"*) bad "seed_leak: its output shows the seed" ;; *) ok ;; esac
fi
expect_eq "no report holds the seed" "$(grep -rl -- "$SEED" "$R" | wc -l | tr -d ' ')" 0
# Run by root, the grader runs submissions as nobody (sandbox.h).
share not_root && expect_eq "not_root: full marks, so not run as root" "$(field not_root 2)" 100
# No stat-family call reaches a path, AT_EMPTY_PATH or not: a stat that
# worked would have made its answers wrong.
share stat_anywhere && expect_eq "stat_anywhere: full marks, so no stat reached a path" \
    "$(field stat_anywhere 2),$(field stat_anywhere 4)" "100,graded"

# refused NAME PATTERN: no build, score 0, the build log says why.
refused() {
    share "$1" 2 || return 0
    expect_eq "$1: score and status" "$(field "$1" 2),$(field "$1" 4)" "0,build_failed"
    expect_match "$1: the build log says why" "$(jq -r .build_log "$R/$1.json")" "$2"
}
refused syntax_error "lab0\\.c:[0-9]+:[0-9]+: error"
refused fork_bomb "uses fork"
refused spawn "uses system"
refused write_outside "uses fopen"
refused overwrite_golden "uses open"
refused read_solution "uses fopen"
refused read_golden "uses fopen"
refused kill_parent "uses (kill|getppid)"
# libc's other names: by address (__open64 is open64's), and by name
refused libc_alias "uses __open64 \\(libc's other name for open(64)?\\), which no submission may"
if share libc_alias 2; then
    expect_match "libc_alias: _Fork named too" "$(jq -r .build_log "$R/libc_alias.json")" "uses _Fork, which"
    expect_match "libc_alias: __libc_open64 named too" "$(jq -r .build_log "$R/libc_alias.json")" \
        "uses __libc_open64, which"
fi
refused codec "uses fp8_encode"
refused call_reference "uses ref_lab0_encode"
# lab0's subject links none of the course's library (the rubric's .library).
refused library_reach "undefined (symbol|reference).*mx_dequantize"
refused ifunc_space "symbol whose name is not a C name \\(\"early x\" holds a space"
refused early_exit "has a constructor or destructor"
refused forge_early "has a constructor or destructor"
refused global_name "defines fclose, a global name: only lab0_\\* names may be global"
refused unique_symbol "defines waitpid, a global name"
refused long_global "defines helper_a{1016}, a global name: only lab0_\\* names may be global"
refused sanitizer_hook "__asan_default_options"
refused self_include "nested depth|nested too deeply"
refused include_secret "/etc/shadow: No such file or directory"
refused include_solution "solutions/lab0/lab0\\.c: No such file or directory"
refused include_classmate "good1/lab0\\.c: No such file or directory"
# A file outside the view reads as one that does not exist.
refused pragma_hidden "/etc/shadow: No such file or directory"
refused pragma_missing "/etc/fp8lab-no-such-file: No such file or directory"
share pragma_hidden && same_log "" "$R"
share slow_build && expect_eq "slow_build: full marks" "$(field slow_build 2),$(field slow_build 4)" "100,graded"
refused syscall_insn "^lab0\\.c: holds a system-call instruction \\(syscall, in lab0_decode\\)"
share has_include && expect_eq "has_include: the compiler cannot tell the solution exists (full marks)" \
    "$(field has_include 2),$(field has_include 4)" "100,graded"
share syscall_lookalike && expect_eq "syscall_lookalike: its 0f 05 in a constant, full marks" \
    "$(field syscall_lookalike 2),$(field syscall_lookalike 4)" "100,graded"
# Its first raw open stopped it, in every test: nothing of its attack ran
# (a test it passed would be one the attack forged).
if share raw_write 3; then
    expect_eq "raw_write: score and status" "$(field raw_write 2),$(field raw_write 4)" "0,graded"
    expect_eq "raw_write: every test ran, and failed" \
        "$(jq -r '[.tests[].status] | unique | join(" ")' "$R/raw_write.json")" "fail"
    expect_match "raw_write: stopped at its first open" "$(message_of raw_write limits)" \
        "^forbidden system call: open, in lab0_format_limits"
fi
if share include_secret; then
    case "$(jq -r .build_log "$R/include_secret.json")" in
    *root:*) bad "include_secret: the build log shows /etc/shadow" ;;
    *) ok ;;
    esac
fi
refused include_zero "out of memory|memory exhausted|stopped after"
# flooded: a log of 4 MiB and more, rewritten whole (flooded PREFIX DIR)
flooded() {
    refused_log=$(jq -r .build_log "$2/log_flood.json")
    expect_match "${1}log_flood: its log names lab0.c" "$(printf '%s\n' "$refused_log" | head -n 1)" \
        "^lab0\\.c:[0-9]+:[0-9]+: warning: a line of the flood"
    case $refused_log in
    *"$BUILD"* | *"$ROOT"* | */grade/*) bad "${1}log_flood: the build log names the grader's folders" ;;
    *) ok ;;
    esac
}
refused log_flood "warning: a line of the flood"
share log_flood 2 && flooded "" "$R"

for spec in "symlink_escape|link/lab0\\.c is a symbolic link to /etc/passwd" \
    "zip_bomb|lab0\\.c is larger than 1024 KiB unpacked"; do
    id=${spec%%|*}
    share "$id" 2 || continue
    expect_eq "$id: refused" "$(field "$id" 2),$(field "$id" 4)" "0,error"
    expect_match "$id: says why" "$(jq -r .error "$R/$id.json")" "its archive was refused: .*${spec#*|}"
done

# Its first open, to fill the sandbox's /tmp, stopped it: a subject opens
# nothing (the sandbox's /tmp holds 64 MiB for the compiler and the tests).
graded tmp_fill 85 "$limits" "^forbidden system call: open, in lab0_format_limits"

# A crowd: one submission trying to hold as many threads as it may, graded
# first, beside six correct ones two at a time. Its subject may start none;
# and each job has its own user id (the process limit counts threads per
# user) and cgroup: no classmate loses a point or fails to build.
C=$TMP/crowd
mkdir -p "$C/a-threads"
cp "$ALL/threads/lab0.c" "$C/a-threads/"
for i in 1 2 3 4 5 6; do mkdir -p "$C/good$i" && cp solutions/lab0/lab0.c "$C/good$i/"; done
"$GRADER" --batch "$C" lab0 -j 2 >"$TMP/crowd.out" 2>"$TMP/crowd.err"
if [ "$(id -u)" = 0 ] && ! grep -q "do not each have" "$TMP/crowd.err"; then
    expect_eq "crowd: every classmate full marks" \
        "$(tr -d '\r' <"$C.grades/grades.csv" | sed 1d | cut -d, -f1,2,4 | tr '\n' ' ')" \
        "a-threads,35,graded good1,100,graded good2,100,graded good3,100,graded good4,100,graded good5,100,graded good6,100,graded "
else
    expect_match "crowd: the batch says what each job lacks" "$(cat "$TMP/crowd.err")" \
        "do not each have"
    echo "SKIP: crowd: the jobs share a user or a cgroup here: $(grep 'do not each have' "$TMP/crowd.err")"
fi

# Without bwrap (FP8LAB_SANDBOX=none, as in a container that refuses it
# namespaces), Landlock keeps the same view, where the kernel has it.
L=$TMP/landlock
for id in good1 include_secret include_solution include_classmate raw_write exit93 raw_open \
    raw_exec wordexp_shell not_root stat_anywhere pragma_hidden pragma_missing slow_build log_flood \
    has_include; do
    mkdir -p "$L/$id" && cp "$ALL/$id/lab0.c" "$L/$id/"
done
watched "$TMP/ll.uids" env FP8LAB_SANDBOX=none "$GRADER" --batch "$L" lab0 -j 2 >"$TMP/ll.out" 2>"$TMP/ll.err"
# Run by root, the compiler runs as an unprivileged user without bwrap too.
[ "$(id -u)" = 0 ] && compiled_by_user "$TMP/ll.uids" "no bwrap"
if grep -q "Landlock (ABI" "$TMP/ll.err"; then
    LB=$L.grades/grades.csv
    lfield() { tr -d '\r' <"$LB" | awk -F, -v id="$1" -v n="$2" '$1 == id { print $n }'; }
    expect_eq "no bwrap: good1 full marks" "$(lfield good1 2),$(lfield good1 4)" "100,graded"
    # run by root, the judge starts the subject as nobody
    expect_eq "no bwrap: not_root full marks" "$(lfield not_root 2),$(lfield not_root 4)" "100,graded"
    # Landlock has no right that covers stat: the filter alone keeps it
    expect_eq "no bwrap: stat_anywhere full marks, so no stat reached a path" \
        "$(lfield stat_anywhere 2),$(lfield stat_anywhere 4)" "100,graded"
    for id in include_secret include_solution include_classmate; do
        expect_eq "no bwrap: $id refused" "$(lfield $id 2),$(lfield $id 4)" "0,build_failed"
        expect_match "no bwrap: $id: the compiler's own message" \
            "$(jq -r .build_log "$L.grades/$id.json")" "No such file or directory"
    done
    # Landlock refuses a file outside the view; the log says it is not there.
    for id in pragma_hidden pragma_missing; do
        expect_eq "no bwrap: $id refused" "$(lfield $id 2),$(lfield $id 4)" "0,build_failed"
    done
    same_log "no bwrap: " "$L.grades"
    flooded "no bwrap: " "$L.grades"
    expect_eq "no bwrap: has_include: the compiler cannot tell the solution exists (full marks)" \
        "$(lfield has_include 2),$(lfield has_include 4)" "100,graded"
    expect_eq "no bwrap: slow_build full marks" "$(lfield slow_build 2),$(lfield slow_build 4)" \
        "100,graded"
    case "$(jq -r .build_log "$L.grades/include_secret.json")" in
    *root:*) bad "no bwrap: include_secret: the build log shows /etc/shadow" ;;
    *) ok ;;
    esac
    expect_eq "no bwrap: raw_write: every test ran, and failed on its answers" \
        "$(jq -r '[.tests[].status] | unique | join(" ")' "$L.grades/raw_write.json")" "fail"
else
    expect_match "no bwrap, no Landlock: the warning says so" "$(cat "$TMP/ll.err")" \
        "no sandbox \\(FP8LAB_SANDBOX=none\\) and no Landlock"
    echo "SKIP: no Landlock in this kernel: the view without bwrap is not checked"
fi

# The subject holds the submission and the call driver, nothing of the
# tests: no suite, no reference solution, no goldens' names (DESIGN.md).
"$GRADER" lab0 --dir "$SUBS/good1" --keep >"$TMP/keep.out" 2>"$TMP/keep.err"
kept=$(sed -n 's/^grader: the pristine tree is kept in //p' "$TMP/keep.err")
if [ -n "$kept" ] && [ -f "$kept/subject" ]; then
    expect_eq "subject: no reference, suite or Check symbol" \
        "$(nm "$kept/subject" | awk '$3 ~ /^(ref_|gr_golden|gr_seed|srunner|tcase_|suite_)/' | head -3)" ""
    expect_eq "subject: no golden's name" "$(grep -c -a -e 'decode\.npy' -e 'GRADER_SEED' "$kept/subject")" 0
    expect_match "subject: it holds the submission" "$(nm "$kept/subject")" " T lab0_decode"
    rm -rf "$kept"
else
    bad "subject: --keep did not keep a stage with a subject ($(cat "$TMP/keep.err"))"
fi

# Nothing escaped.
expect_eq "the goldens are untouched" "$(sha256sum data/golden/lab0/* | sha256sum)" "$sums_before"
[ ! -e /tmp/fp8lab-hostile-was-here ] && ok || bad "a submission wrote outside its folder"
left=$(for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' 2>/dev/null <"$f" | grep "$TMP" && echo; done)
expect_eq "nothing left running" "$left" ""

# Each hostile submission's report was read, or its checks were skipped
# and counted: none passes unread.
while read -r name; do
    grep -qx -- "$name" "$TMP/checked" || grep -qx -- "$name" "$TMP/skipped" ||
        bad "$name: no check reads its report"
done <"$TMP/names"
echo "hostile: $graded_n of $count hostile submissions graded this run (stride $STRIDE, offset $OFFSET)"
[ "$skipped" = 0 ] || echo "SKIP: $skipped checks of the other $((count - graded_n)), which another" \
    "FP8LAB_HOSTILE_OFFSET grades: $(LC_ALL=C sort -u "$TMP/skipped" | tr '\n' ' ')"
echo "test_hostile: $passed passed, $failed failed"
[ "$failed" = 0 ]
