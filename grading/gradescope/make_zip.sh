#!/bin/sh
# make_zip.sh - Gradescope's autograder zip for one lab (what `make
# gradescope-LAB` runs): setup.sh and run_autograder from grading/gradescope,
# the course with its solutions (every judge links the reference, for
# hidden inputs) and, for hidden inputs, the seed in a file of its own.
#
#   sh grading/gradescope/make_zip.sh OUT LAB STUDENT_FILE
#
# writes OUT/LAB-autograder.zip (and OUT/LAB/, what it holds). The seed, if
# any, comes from the environment, never from a command line a shell or make
# would read: SEED_FILE (a file; the seed is its first line) or SEED (the
# string itself; make passes SEED=S given on its command line, where only a
# $ must be written $$). Run from the course's top folder.
set -eu
if [ $# != 3 ]; then
    echo "usage: make_zip.sh OUT LAB STUDENT_FILE" >&2
    exit 2
fi
out=$1 lab=$2 file=$3
course="Makefile README.md common grading labs solutions data"
case $lab in *[!a-z0-9]* | '') echo "make_zip.sh: $lab: not a lab's name" >&2; exit 2 ;; esac
case $file in *[!a-z0-9._]* | '') echo "make_zip.sh: $file: not a student file's name" >&2; exit 2 ;; esac
command -v bsdtar >/dev/null ||
    { echo "make_zip.sh: needs bsdtar (apt-get install libarchive-tools)" >&2; exit 2; }
dir=$out/$lab
rm -rf "$dir" "$out/$lab-autograder.zip"
mkdir -p "$dir/course"
# shellcheck disable=SC2086
cp -R $course "$dir/course/"
for f in setup.sh run_autograder; do
    sed -e "s/@LAB@/$lab/g" -e "s/@FILE@/$file/g" "grading/gradescope/$f" >"$dir/$f"
    chmod +x "$dir/$f"
done
seed=""
if [ -n "${SEED_FILE:-}" ]; then
    [ -f "$SEED_FILE" ] && [ -r "$SEED_FILE" ] ||
        { echo "make_zip.sh: SEED_FILE=$SEED_FILE: no such file" >&2; exit 2; }
    IFS= read -r seed <"$SEED_FILE" || [ -n "$seed" ] ||
        { echo "make_zip.sh: SEED_FILE=$SEED_FILE: empty" >&2; exit 2; }
elif [ -n "${SEED:-}" ]; then
    seed=$SEED
fi
if [ -n "$seed" ]; then
    printf '%s\n' "$seed" >"$dir/seed"
    # As the grader's --seed-file will read it: one line, 200 characters at most.
    case $seed in *"$(printf '')"*) echo "make_zip.sh: the seed holds a carriage return" >&2; exit 2 ;; esac
    [ "${#seed}" -le 200 ] || { echo "make_zip.sh: the seed is longer than 200 characters" >&2; exit 2; }
    [ "$(wc -l <"$dir/seed")" = 1 ] ||
        { echo "make_zip.sh: the seed is more than one line" >&2; exit 2; }
fi
(cd "$dir" && bsdtar --format zip -cf "../$lab-autograder.zip" setup.sh run_autograder course \
    $( [ -n "$seed" ] && echo seed ))
echo "gradescope-$lab: $out/$lab-autograder.zip (upload it as the autograder)$( [ -n "$seed" ] &&
    echo '; hidden inputs on')"
