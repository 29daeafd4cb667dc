#!/bin/sh
# test_deps_progress.sh - while common/deps.sh installs packages, it shows
# that it works: how many and an estimate first, then one line per package
# apt-get downloads, then when they are set up and how long it took; and an
# apt-get that fails still stops it with the command to run.
#
# The apt-get (and apt-cache) it runs are the test's own, first on PATH,
# which print what Debian 12's apt-get prints for a two-package install. Run
# as root (deps.sh runs apt-get itself only as root, else through sudo).
#
#   sh tests/build/test_deps_progress.sh    (from the top of the course)
set -u
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
ROOT=$(pwd)
. "$ROOT/tests/grading/lib.sh"
if [ "$(id -u)" != 0 ]; then
    echo "test_deps_progress: skipped: needs root (deps.sh runs apt-get through sudo otherwise)"
    exit 77
fi

mkdir "$TMP/bin"
cat >"$TMP/bin/apt-get" <<'FAKE'
#!/bin/sh
case " $* " in *" update "*) exit 0 ;; esac
cat <<'OUT'
Reading package lists...
Building dependency tree...
The following NEW packages will be installed:
  gnuplot-nox libcheck0
0 upgraded, 2 newly installed, 0 to remove and 0 not upgraded.
Need to get 1234 kB of archives.
Get:1 http://deb.debian.org/debian bookworm/main amd64 gnuplot-nox amd64 5.4.4+dfsg1-2 [1000 kB]
Get:2 http://deb.debian.org/debian bookworm/main amd64 libcheck0 amd64 0.15.2-2 [234 kB]
Fetched 1234 kB in 1s (1234 kB/s)
Unpacking gnuplot-nox (5.4.4+dfsg1-2) ...
Setting up gnuplot-nox (5.4.4+dfsg1-2) ...
Setting up libcheck0 (0.15.2-2) ...
OUT
exit "${FAKE_APT_STATUS:-0}"
FAKE
printf '#!/bin/sh\nexit 0\n' >"$TMP/bin/apt-cache"
chmod +x "$TMP/bin/apt-get" "$TMP/bin/apt-cache"

PATH=$TMP/bin:$PATH sh common/deps.sh install plot >"$TMP/out" 2>"$TMP/err"
expect_eq "deps.sh install: exit status" "$?" 0
err=$(cat "$TMP/err")
expect_match "the count and an estimate" "$err" "^fp8lab: 2 packages, 1234 kB to download: about [0-9]+ min"
expect_match "a line per package downloaded" "$err" "\[1/2\] gnuplot-nox"
expect_match "... the second" "$err" "\[2/2\] libcheck0"
expect_match "setting up" "$err" "^fp8lab: unpacking and setting them up"
expect_match "the time it took" "$err" "^fp8lab: installed in [0-9]+ s"
expect_eq "nothing on stdout (make reads it)" "$(cat "$TMP/out")" ""

FAKE_APT_STATUS=100 PATH=$TMP/bin:$PATH sh common/deps.sh install plot >"$TMP/out" 2>"$TMP/err"
expect_eq "a failing apt-get: exit status" "$(($? != 0))" 1
expect_match "a failing apt-get: the command to run" "$(cat "$TMP/err")" "could not install.*Run: "

echo "test_deps_progress: $passed passed, $failed failed"
[ "$failed" = 0 ]
