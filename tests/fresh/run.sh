#!/bin/sh
# run.sh - the README's quick start on fresh machines (make test-fresh).
#
# For each Debian release the README promises, Debian 12 (bookworm) and
# Debian 13 (trixie), makes a minimal root with mmdebstrap from apt sources
# written here for that release (its suite, -updates and -security, from
# this machine's Debian mirror), checks that the root is that release
# (/etc/os-release), adds only what the README states as prerequisites
# (make and git; root, or a user without sudo), clones the course into it
# and types the README's commands exactly as written:
#
#   1. as a user who is not root and has no sudo: `make lab3` stops with one
#      line naming the command to run, and leaves nothing built;
#   2. as root: `make lab3 && ./grader lab3` installs what it needs, builds,
#      and prints lab3's scorecard for the skeleton (exit 1, a Score line);
#      the time it took is printed;
#   3. the same user as in 1, now that the packages are there: the scorecard;
#   4. with this machine's CUDA Toolkit bound in read-only, in a new clone:
#      the scorecard, and no CUDA compiled for a CPU lab;
#   5. as root, in the clone of 2 (no CUDA), in a plain chroot as a user's
#      is (/dev, /proc and /sys bound in; bubblewrap cannot make its
#      namespaces there, so the grader's sandbox is Landlock's and its own;
#      steps 1-4 enter a root where bwrap starts): `make -j test` passes:
#      the whole build with the release's compiler (warnings are errors),
#      and the tests FP8LAB_FRESH_TESTS names (FP8LAB_TESTS: tests/run.sh),
#      by default those that use what the release installs: Check, zlib,
#      OpenBLAS and gnuplot (the unit tests, the goldens, the demos), and
#      seccomp, Landlock, jq, xmllint and bsdtar (the grader's own, the
#      hostile submissions, a batch); '*' for all. make test on this
#      machine runs every test, with bwrap.
#
# The first release runs every step; the others run 1, 2 and 5, those that
# depend on the release (its packages, its compiler), and leave 3 and 4 to
# the first. Step 5 runs only in the releases FP8LAB_FRESH_TEST names, where
# it is set. The releases' roots are made and tried FP8LAB_FRESH_JOBS at a
# time (default 1); each one's lines are printed when it is done, with the
# time it took.
#
# It needs root (to make the roots, mount and chroot), mmdebstrap and git;
# without them it says why and exits 77 (SKIP), never 0. The course cloned is
# this repository's HEAD: what is not committed is not tested.
#
#   sh tests/fresh/run.sh [SUITE...]  (from the top of the course; default:
#                                     bookworm trixie)
#   FP8LAB_FRESH_KEEP=1               keeps the roots and says where they are
#   FP8LAB_FRESH_JOBS=2               two releases at a time
#   FP8LAB_FRESH_TESTS='*'            step 5 runs every test
#   FP8LAB_FRESH_TEST=trixie          step 5 in those releases' roots only
#   FP8LAB_HOSTILE_STRIDE=K FP8LAB_HOSTILE_OFFSET=O
#                                     step 5's test_hostile grades one hostile
#                                     submission in K (tests/hostile/test_hostile.sh)
#                                     (default: every one tried)
set -u
ROOT=$(pwd)
[ $# = 0 ] && set -- bookworm trixie
FIRST=$1
TEST_IN=${FP8LAB_FRESH_TEST-$*}
TESTS=${FP8LAB_FRESH_TESTS:-common/* data/* lab*/test_goldens lab*/test_demo grading/test_report \
grading/test_spawn grading/test_grader grading/test_batch grading/test_feedback hostile/test_hostile \
build/test_deps_progress build/test_stale_demo}
HOSTILE_STRIDE=${FP8LAB_HOSTILE_STRIDE:-1} HOSTILE_OFFSET=${FP8LAB_HOSTILE_OFFSET:-0}
case $HOSTILE_STRIDE$HOSTILE_OFFSET in *[!0-9a-z]*)
    echo "test-fresh: FP8LAB_HOSTILE_STRIDE and _OFFSET are numbers (or seed)"
    exit 2 ;;
esac
case $TESTS in *"'"*)
    echo "test-fresh: FP8LAB_FRESH_TESTS holds a quote: '$TESTS'"
    exit 2 ;;
esac

skip() { echo "test-fresh: SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (to make a Debian root with mmdebstrap and chroot into it)"
command -v mmdebstrap >/dev/null 2>&1 || skip "mmdebstrap not found (apt-get install mmdebstrap)"
command -v unshare >/dev/null 2>&1 || skip "unshare not found (util-linux)"
git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "$ROOT is not a git clone of the course"

TMP=$(mktemp -d /var/tmp/fp8lab-fresh.XXXXXX) || exit 1
cleanup() {
    if [ "${FP8LAB_FRESH_KEEP:-0}" = 1 ]; then echo "test-fresh: the roots are kept in $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }

# mirror SUFFIX DEFAULT: the mirror this machine's apt sources (deb822 or
# one-line) name for its own release's suite (VERSION_CODENAME) followed by
# SUFFIX ("" or -security); else DEFAULT.
mirror() {
    codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
    uri=""
    [ -n "$codename" ] && uri=$(
        for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -f "$f" ] && cat "$f" && echo
        done | awk -v want="$codename$1" '
        function flush() { if (hit && uris != "" && !done) { print uris; done = 1 } hit = 0; uris = "" }
        /^[ \t]*#/ { next }
        /^deb[ \t]/ { sub(/\[[^]]*\]/, ""); if ($3 == want && !done) { print $2; done = 1 } next }
        /^URIs:/ { uris = $2 }
        /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == want) hit = 1 }
        /^[ \t]*$/ { flush() }
        END { flush() }')
    echo "${uri:-$2}"
}
MIRROR=$(mirror "" http://deb.debian.org/debian)
SECURITY=$(mirror -security http://deb.debian.org/debian-security)

# enter R WHO CUDA COMMAND: runs COMMAND (sh -c) in the root R as WHO (root
# or student), in a mount namespace of its own where the root is what / is
# on a machine (pivot_root; bubblewrap cannot start under a plain chroot),
# with /dev, /proc and /sys, and CUDA (a folder, or empty) bound in
# read-only. With ENTER=chroot, as root in a plain chroot instead, as a
# user's chroot is (/dev, /proc and /sys bound in, then chroot): there
# bubblewrap cannot make its namespaces, and the grader does without it.
cat >"$TMP/enter.sh" <<'EOF'
set -u
R=$1 WHO=$2 CUDA=$3 CMD=$4
if [ "${ENTER:-}" = chroot ]; then
    mount --rbind /dev "$R/dev" && mount -t proc proc "$R/proc" && mount --rbind /sys "$R/sys" ||
        exit 90
    cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
    exec chroot "$R" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        TERM=dumb sh -c "$CMD"
fi
mount --bind "$R" "$R" && mount --rbind /dev "$R/dev" && mount -t proc proc "$R/proc" &&
    mount --rbind /sys "$R/sys" || exit 90
if [ -n "$CUDA" ]; then
    mount --bind "$CUDA" "$R$CUDA" && mount -o remount,bind,ro "$R$CUDA" || exit 91
fi
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
cd "$R" && mkdir -p .host && pivot_root . .host && cd / && /.host/usr/bin/umount -l /.host &&
    rmdir /.host || exit 92
if [ "$WHO" = root ]; then
    exec env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        TERM=dumb sh -c "$CMD"
fi
exec setpriv --reuid 1000 --regid 1000 --clear-groups env -i HOME=/home/student \
    PATH=/usr/local/bin:/usr/bin:/bin TERM=dumb sh -c "$CMD"
EOF

# one SUITE: makes SUITE's root in $TMP/SUITE and runs its steps; what it
# says goes to stdout; exit status 0 when every check passed.
one() {
    suite=$1
    D=$TMP/$suite
    R=$D/root
    full=0
    [ "$suite" = "$FIRST" ] && full=1
    passed=0 failed=0
    ok() { passed=$((passed + 1)); }
    bad() { echo "FAIL: $suite: $*"; failed=$((failed + 1)); }
    say() { echo "test-fresh: $suite: $*"; }
    mkdir -p "$D/out"
    t0=$(now)
    cat >"$D/$suite.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    if ! mmdebstrap --variant=apt --include=make,git "$suite" "$R" "$D/$suite.sources" \
        >"$D/mmdebstrap.log" 2>&1; then
        tail -n 20 "$D/mmdebstrap.log"
        bad "mmdebstrap could not make a $suite root from $MIRROR"
        return 1
    fi
    # The release asked for, and a release (testing has no VERSION_ID).
    release=$(. "$R/etc/os-release" && echo "${VERSION_CODENAME:-}|${VERSION_ID:-}|${PRETTY_NAME:-}")
    want=${release#*|}
    want=${want%%|*}
    case $suite in bookworm) want=12 ;; trixie) want=13 ;; esac
    if [ "${release%%|*}" = "$suite" ] && [ -n "$want" ] && [ "$(echo "$release" | cut -d'|' -f2)" = "$want" ]
    then ok; else bad "the root is not Debian $want ($suite): /etc/os-release says '$release'"; fi
    say "a fresh root of ${release##*|} with make and git ($(secs "$t0" "$(now)") s)"

    # A user without sudo, and the course cloned for it and for root. Root's
    # clones are in /opt: in /root (mode 0700) the grader's sandbox cannot
    # run the submissions as nobody, who cannot read the course there, and
    # runs them as root (it says so), which tests/hostile rightly fails.
    # Each release's under a name of its own: the roots share the machine's
    # processes, and a test that looks for what its own batches left
    # running finds them by their folder.
    echo 'student:x:1000:1000::/home/student:/bin/sh' >>"$R/etc/passwd"
    echo 'student:x:1000:' >>"$R/etc/group"
    mkdir -p "$R/home/student"
    git clone -q "$ROOT" "$R/home/student/course" && git clone -q "$ROOT" "$R/opt/course-$suite" ||
        { bad "git clone"; return 1; }
    chown -R 1000:1000 "$R/home/student"
    CUDA=""
    if [ $full = 1 ] && [ -x /usr/local/cuda/bin/nvcc ]; then
        CUDA=/usr/local/cuda
        mkdir -p "$R$CUDA"
        git clone -q "$ROOT" "$R/opt/course-cuda" || { bad "git clone"; return 1; }
    fi

    # step N WHO CUDA COMMAND: its output in out/N.out, its status in out/N.rc.
    step() {
        n=$1
        shift
        unshare -m env ENTER="${enter:-}" sh "$TMP/enter.sh" "$R" "$@" >"$D/out/$n.out" 2>&1
        echo $? >"$D/out/$n.rc"
    }
    step 1 student "" 'cd ~/course && make lab3'
    find "$R/home/student/course/build" 2>/dev/null | wc -l >"$D/out/1.built"
    t2=$(now)
    step 2 root "" "cd /opt/course-$suite && make lab3 && ./grader lab3"
    awk -v a="$t2" -v b="$(now)" 'BEGIN { printf "%.1f\n", b - a }' >"$D/out/2.time"
    if [ $full = 1 ]; then
        step 3 student "" 'cd ~/course && make lab3 && ./grader lab3'
        [ -n "$CUDA" ] && step 4 root "$CUDA" "cd /opt/course-cuda && PATH=\$PATH:$CUDA/bin && make lab3 && ./grader lab3"
        cp "$R/opt/course-cuda/build/config.mk" "$D/out/4.config" 2>/dev/null
    fi
    t5=$(now)
    test_here=0
    case " $TEST_IN " in *" $suite "*) test_here=1 ;; esac
    # as a user's chroot, where bwrap cannot start: what bwrap says there
    # first, then make test
    enter=chroot
    [ $test_here = 1 ] &&
        step 5 root "" "cd /opt/course-$suite && { bwrap --ro-bind / / true 2>&1 &&
            echo 'bwrap: started'; echo; FP8LAB_TESTS='$TESTS' \
            FP8LAB_HOSTILE_STRIDE='$HOSTILE_STRIDE' FP8LAB_HOSTILE_OFFSET='$HOSTILE_OFFSET' \
            make -j\$(nproc) test; }"
    enter=""
    t6=$(now)
    for n in 1 2 3 4 5; do
        case $(cat "$D/out/$n.rc" 2>/dev/null) in 9[0-2])
            bad "could not enter the root (mount or pivot_root, status $(cat "$D/out/$n.rc")):"
            cat "$D/out/$n.out"
            return 1 ;;
        esac
    done

    out() { cat "$D/out/$1.out" 2>/dev/null; }
    rc() { cat "$D/out/$1.rc" 2>/dev/null || echo none; }
    show() { echo "  --- the last lines of step $1:"; out "$1" | tail -n "${2:-15}" | sed 's/^/  | /'; }

    # 1. No root, no sudo: one line, the command to run, nothing built.
    lines=$(out 1 | wc -l)
    if [ "$(rc 1)" != 0 ] && [ "$lines" = 1 ] && out 1 | grep -q 'Run: sudo apt-get install -y '; then ok; else
        bad "1: as a user without sudo, make lab3 should stop with one line naming the command (exit $(rc 1), $lines lines)"
        show 1
    fi
    built=$(cat "$D/out/1.built" 2>/dev/null || echo unknown)
    if [ "$built" = 0 ]; then ok; else bad "1: make lab3 left $built files in build/ after stopping"; fi

    # 2. Root on the fresh root: packages installed, the skeleton's scorecard.
    if [ "$(rc 2)" = 1 ] && out 2 | grep -q '^Score: [0-9]*/100'; then ok; else
        bad "2: as root, make lab3 && ./grader lab3 should print the skeleton's scorecard and exit 1 (exit $(rc 2))"
        show 2 30
    fi
    say "the first scorecard (make lab3 && ./grader lab3 as root, installs included):" \
        "$(cat "$D/out/2.time" 2>/dev/null) s, with $(chroot "$R" gcc --version 2>/dev/null | head -n 1)"

    if [ $full = 1 ]; then
        # 3. The user again, with the packages there: nothing half-built trips it.
        if [ "$(rc 3)" = 1 ] && out 3 | grep -q '^Score: [0-9]*/100'; then ok; else
            bad "3: as the user, after the packages are installed, make lab3 && ./grader lab3 (exit $(rc 3))"
            show 3 30
        fi
        # 4. With the CUDA Toolkit: the scorecard, nvcc seen but not run for lab3.
        if [ -n "$CUDA" ]; then
            if [ "$(rc 4)" = 1 ] && out 4 | grep -q '^Score: [0-9]*/100'; then ok; else
                bad "4: with CUDA bound read-only, make lab3 && ./grader lab3 (exit $(rc 4))"
                show 4 30
            fi
            grep -q "^override NVCC := $CUDA/bin/nvcc" "$D/out/4.config" 2>/dev/null && ok ||
                bad "4: the build did not see the CUDA Toolkit (build/config.mk has no NVCC)"
            if out 4 | grep -q '^ *NVCC '; then bad "4: make lab3 ran nvcc for a CPU lab"; show 4 40; else ok; fi
        else
            say "step 4 skipped: no CUDA Toolkit in /usr/local/cuda on this machine"
        fi
    fi

    # 5. make test in the root without CUDA.
    if [ $test_here = 0 ]; then
        say "step 5 (make test) not run here: FP8LAB_FRESH_TEST is '$TEST_IN'"
    elif [ "$(rc 5)" = 0 ] && out 5 | grep -q '^tests: [0-9]* passed, 0 failed'; then ok; else
        bad "5: make test on the fresh root (exit $(rc 5))"
        out 5 | grep -E '^(FAIL|tests:|failed:)' | head -n 20 | sed 's/^/  | /'
        show 5 40
    fi
    # The hostile submissions where bwrap cannot start, every one (or the
    # share FP8LAB_HOSTILE_STRIDE gives) with Landlock alone: ran and passed,
    # not skipped (.ci/run counts on it).
    case " $TESTS " in *" hostile/test_hostile "*)
        if [ $test_here = 1 ]; then
            if out 5 | grep -q '^PASS  hostile/test_hostile'; then ok; else
                bad "5: hostile/test_hostile did not pass in the plain chroot: $(out 5 | grep 'hostile/test_hostile')"
            fi
        fi ;;
    esac
    if [ $test_here = 1 ]; then
        say "make test as root in a plain chroot, where bwrap said: $(out 5 | head -n 1)"
        out 5 | grep '^SKIP' | sed "s/^/test-fresh: $suite: make test: /"
        out 5 | grep '^tests:' | sed "s/^/test-fresh: $suite: make test ($(secs "$t5" "$t6") s): /"
    fi
    say "$(secs "$t0" "$(now)") s in all; $passed passed, $failed failed"
    [ "$failed" = 0 ]
}

# The releases, FP8LAB_FRESH_JOBS at a time, each one's lines when it is done.
jobs=${FP8LAB_FRESH_JOBS:-1}
t0=$(now)
status=0
running=0
waiting=""
for suite in "$@"; do
    one "$suite" >"$TMP/$suite.log" 2>&1 &
    waiting="$waiting $!:$suite"
    running=$((running + 1))
    [ "$running" -lt "$jobs" ] && continue
    # the oldest, which finishes first or soon after
    first=${waiting# }
    first=${first%% *}
    wait "${first%%:*}" || status=1
    cat "$TMP/${first#*:}.log"
    waiting=${waiting# "$first"}
    running=$((running - 1))
done
for w in $waiting; do
    wait "${w%%:*}" || status=1
    cat "$TMP/${w#*:}.log"
done
echo "test-fresh: $(secs "$t0" "$(now)") s in all, $* $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
