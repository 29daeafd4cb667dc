#!/bin/sh
# deps.sh - the Debian packages the course needs: which are missing, and
# installing them. `make deps`, the Makefile's dependency check and .ci/run
# all come here, so the list lives in one place.
#
#   deps.sh list [NEED...]       every package the course installs (make deps),
#                                or those of the NEEDs
#   deps.sh missing NEED...      the packages missing for the NEEDs below
#   deps.sh ensure NEED...       silent when nothing is missing; otherwise says
#                                what it will install and installs it with
#                                apt-get (as root, or through sudo when sudo
#                                needs no password); where it cannot, prints the
#                                one command to run and exits 1
#   deps.sh install [NEED...]    installs everything in `list` (make deps), or
#                                what the NEEDs name
#   deps.sh make-ensure NEED...  `ensure` for the Makefile: what it says goes to
#                                stderr, but the one line that stops a build,
#                                which goes to stdout for make to stop with
#
# NEEDs: build (the library and tools), test (make test), plot (the demos'
# plots), labs (the labs' BLAS), cuda (the host compiler nvcc runs, for lab5
# and the course's CUDA parts), data (the full datasets; the labs ship
# subsets in data/), cluster (Slurm and munge, for grading on a cluster and
# the test that starts a Slurm of one node, skipped without them; not in
# `all`, so not installed by make deps: their packages start daemons), fresh
# (mmdebstrap, for the fresh-machine test; not in `all` either), all.
# FP8LAB_NO_INSTALL=1 makes `ensure` report what is missing without installing.
#
# An optional package (OPTIONAL) is installed where the system's apt sources
# have it and left out where they do not (Debian 13 has no
# similarity-tester): nothing fails for want of it, and the tests that need
# it say SKIP and why. apt-get installs all the packages it is given or none,
# so an optional one is given only when apt knows it.
set -u

ALL_PACKAGES="gcc g++ make pkg-config check libsubunit-dev libjansson-dev libxml2-dev nettle-dev \
zlib1g-dev libarchive-dev bubblewrap libopenblas-dev gnuplot-nox jq libxml2-utils patch libarchive-tools \
similarity-tester \
dataset-fashion-mnist"
OPTIONAL="similarity-tester"

# build: the library, the tools and the grader (Check for the test suites,
# jansson for JSON reports, libxml2 for JUnit XML, nettle for sha256, zlib
# for the datasets' .gz files, libarchive for submissions sent as archives,
# bubblewrap for the sandbox submissions run in).
# test: what make test adds: a C++ compiler for the oracle tests, and jq,
# xmllint, patch and bsdtar (libarchive-tools, to make archives) for the
# grader's tests; sim_c (similarity-tester, optional) for --similarity's.
# cuda: g++, which nvcc compiles host code with.
packages_for() {
    case "$1" in
    build) echo "gcc make pkg-config check libsubunit-dev libjansson-dev libxml2-dev nettle-dev zlib1g-dev libarchive-dev bubblewrap" ;;
    test)  echo "g++ jq libxml2-utils patch libarchive-tools similarity-tester" ;;
    plot)  echo "gnuplot-nox" ;;
    cuda)  echo "g++" ;;
    labs)  echo "libopenblas-dev" ;;
    data)  echo "dataset-fashion-mnist" ;;
    cluster) echo "slurm-wlm munge" ;;
    fresh) echo "mmdebstrap" ;;
    all)   echo "$ALL_PACKAGES" ;;
    *)     echo "deps.sh: unknown need '$1' (build, test, plot, labs, cuda, data, cluster, fresh, all)" >&2; exit 2 ;;
    esac
}

# Whether a package's part that the course uses is present.
present() {
    case "$1" in
    gcc|g++|make|pkg-config) command -v "$1" >/dev/null 2>&1 ;;
    gnuplot-nox) command -v gnuplot >/dev/null 2>&1 ;;
    check)          pkg-config --exists check 2>/dev/null ;;
    libsubunit-dev) pkg-config --exists libsubunit 2>/dev/null ;;
    libjansson-dev) pkg-config --exists jansson 2>/dev/null ;;
    libxml2-dev)    pkg-config --exists libxml-2.0 2>/dev/null ;;
    nettle-dev)     pkg-config --exists nettle 2>/dev/null ;;
    jq|patch)       command -v "$1" >/dev/null 2>&1 ;;
    similarity-tester) command -v sim_c >/dev/null 2>&1 ;;
    libxml2-utils)  command -v xmllint >/dev/null 2>&1 ;;
    zlib1g-dev)     pkg-config --exists zlib 2>/dev/null ;;
    libarchive-dev) pkg-config --exists libarchive 2>/dev/null ;;
    libarchive-tools) command -v bsdtar >/dev/null 2>&1 ;;
    bubblewrap)     command -v bwrap >/dev/null 2>&1 ;;
    libopenblas-dev) pkg-config --exists openblas 2>/dev/null ;;
    dataset-fashion-mnist) [ -r /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] ;;
    slurm-wlm) command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 ;;
    munge) command -v munged >/dev/null 2>&1 ;;
    mmdebstrap) command -v mmdebstrap >/dev/null 2>&1 ;;
    *) return 1 ;;
    esac
}

missing() {
    out=""
    for need in "$@"; do
        for p in $(packages_for "$need"); do
            case " $out " in *" $p "*) continue ;; esac
            present "$p" || out="$out $p"
        done
    done
    echo "${out# }"
}

is_optional() { case " $OPTIONAL " in *" $1 "*) return 0 ;; esac; return 1; }
# The packages of $@ that are not optional.
required() {
    for p in "$@"; do is_optional "$p" || printf '%s ' "$p"; done | sed 's/ $//'
}
# The optional packages of $@ that apt can install: those its package lists
# know, or all of them where it has no lists yet (it is asked after an
# update).
installable() {
    have_lists=0
    for f in /var/lib/apt/lists/*_Packages*; do [ -e "$f" ] && have_lists=1 && break; done
    for p in "$@"; do
        is_optional "$p" || continue
        [ $have_lists = 0 ] || apt-cache show "$p" >/dev/null 2>&1 && printf '%s ' "$p"
    done | sed 's/ $//'
}

# Runs the apt-get install command "$@", its output shown on stderr as one
# line per package it downloads, with the count and an estimate first, then
# one line when it sets them up and one when done: a minutes-long install is
# seen to work. Returns apt-get's exit status.
apt_progress() {
    status=$(mktemp) || return 1
    start=$(date +%s)
    { "$@" 2>&1; echo $? >"$status"; } | awk '
        / newly installed, / { n = $1 + $3 }
        /^Need to get / {
            unit = $5; sub(/\/.*/, "", unit)
            size = $4 " " unit
            mb = $4 * (unit == "kB" ? 0.001 : unit == "GB" ? 1000 : 1)
            # about a second a package to unpack and set up, and the
            # download at 5 MB/s: an estimate, said as one
            est = int((n + mb / 5 + 59) / 60)
            printf "fp8lab: %d packages, %s to download: about %d min\n", n, size, est > "/dev/stderr"
        }
        /^Get:[0-9]+ / { k++; printf "  [%d/%d] %s\n", k, n, $5 > "/dev/stderr" }
        /^Setting up / && !setup { setup = 1; print "fp8lab: unpacking and setting them up" > "/dev/stderr" }
        /^E: / { print > "/dev/stderr" }'
    rc=$(cat "$status")
    [ "$rc" = 0 ] && echo "fp8lab: installed in $(($(date +%s) - start)) s" >&2
    rm -f "$status"
    return "${rc:-1}"
}

# apt-get update + install, as root or through password-less sudo. $1 says
# what the packages are ("missing Debian packages", ...), for the messages.
# Optional packages are installed where apt has them, and never stop it: with
# only optional packages to install, it returns 0 whatever happens.
apt_install() {
    what="$1"
    shift
    need=$(required "$@")
    if [ "$(id -u)" = 0 ]; then
        run=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        run="sudo"
    else
        [ -z "$need" ] && return 0
        stop "fp8lab: $what: $need. Run: sudo apt-get install -y $need"
        return 1
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        [ -z "$need" ] && return 0
        stop "fp8lab: missing $need (Debian package names); install them with your system's package manager"
        return 1
    fi
    echo "fp8lab: $what: $*; installing them with ${run:+sudo }apt-get" >&2
    if ! DEBIAN_FRONTEND=noninteractive $run apt-get update -qq; then
        [ -z "$need" ] && return 0
        stop "fp8lab: apt-get update failed. Run: ${run:+sudo }apt-get update && ${run:+sudo }apt-get install -y $need"
        return 1
    fi
    # What apt has of the optional ones, now that its lists are up to date.
    opt=$(installable "$@")
    left=""
    for p in "$@"; do
        is_optional "$p" && case " $opt " in *" $p "*) ;; *) left="$left $p" ;; esac
    done
    [ -n "$left" ] && echo "fp8lab: not in this system's apt sources, so not installed" \
        "(optional; the tests that need it say SKIP):$left" >&2
    [ -z "$need$opt" ] && return 0
    # shellcheck disable=SC2086
    if ! DEBIAN_FRONTEND=noninteractive apt_progress $run apt-get install -y -q $need $opt; then
        if [ -z "$need" ]; then
            echo "fp8lab: apt-get could not install $opt (optional): not installed" >&2
            return 0
        fi
        stop "fp8lab: apt-get could not install: $need $opt. Run: ${run:+sudo }apt-get install -y $need"
        return 1
    fi
}

# The line that stops a build: on stderr, or on stdout for make-ensure.
stop_to_stdout=0
stop() {
    if [ $stop_to_stdout = 1 ]; then echo "$1"; else echo "$1" >&2; fi
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
list)
    if [ $# = 0 ]; then
        echo "$ALL_PACKAGES"
    else
        for need in "$@"; do packages_for "$need"; done | tr '\n' ' ' | sed 's/ $//'
        echo
    fi ;;
missing)
    missing "$@" ;;
make-ensure|ensure)
    [ "$cmd" = make-ensure ] && stop_to_stdout=1
    m=$(missing "$@") || exit 2
    # An optional package that apt does not have is not missing.
    # shellcheck disable=SC2086
    need=$(required $m)
    # shellcheck disable=SC2086
    m=$(echo $need $(installable $m))
    [ -z "$m" ] && exit 0
    if [ "${FP8LAB_NO_INSTALL:-0}" = 1 ]; then
        [ -z "$need" ] && exit 0
        stop "fp8lab: missing Debian packages: $need. Run: sudo apt-get install -y $need"
        exit 1
    fi
    # shellcheck disable=SC2086
    apt_install "missing Debian packages" $m ;;
install)
    [ $# = 0 ] && set -- all
    # shellcheck disable=SC2046
    apt_install "the course needs these Debian packages" $(for need in "$@"; do packages_for "$need"; done) ;;
*)
    echo "usage: deps.sh list [NEED...] | missing NEED... | ensure NEED... | make-ensure NEED... | install [NEED...]" >&2
    exit 2 ;;
esac
