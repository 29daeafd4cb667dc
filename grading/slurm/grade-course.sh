#!/bin/sh
# grade-course.sh - grades a course's submissions on a Slurm cluster: an
# array job of N shards (grade.sbatch), then a merge job that waits for all
# of them and writes the gradebook.
#
#   sh grading/slurm/grade-course.sh [-n N] [-r REPORTS] [-w] SUBMISSIONS LAB [SBATCH_ARG...]
#
#   -n N        shards (array tasks; default 8)
#   -r REPORTS  the report folder, on storage every node sees (default
#               SUBMISSIONS.grades)
#   -w          wait for the merge job and print its summary
# Anything after LAB goes to both sbatch calls, e.g. a partition:
#   sh grading/slurm/grade-course.sh subs/ lab3 --partition=cpu
#   sh grading/slurm/grade-course.sh subs/ lab5 --partition=gpu --gres=gpu:1
# Run from the course's top folder, on a shared file system: every node
# runs this checkout's build/bin/grader, which this script builds first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shards=8 reports="" wait=0
while getopts n:r:w opt; do
    case $opt in
    n) shards=$OPTARG ;;
    r) reports=$OPTARG ;;
    w) wait=1 ;;
    *) echo "usage: grade-course.sh [-n N] [-r REPORTS] [-w] SUBMISSIONS LAB [SBATCH_ARG...]" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
    echo "usage: grade-course.sh [-n N] [-r REPORTS] [-w] SUBMISSIONS LAB [SBATCH_ARG...]" >&2
    exit 2
fi
subs=$(cd "$1" && pwd) lab=$2
shift 2
case $shards in '' | *[!0-9]* | 0) echo "grade-course.sh: -n $shards: a number of shards, 1 or more" >&2; exit 2 ;; esac
reports=${reports:-$subs.grades}
mkdir -p "$reports"
reports=$(cd "$reports" && pwd)
make -s -C "$root" grader >&2
"$root/build/bin/grader" --list | grep -q "^$lab " ||
    { echo "grade-course.sh: no lab named $lab (./grader --list)" >&2; exit 2; }

cd "$root"
array=$(sbatch --parsable --array="1-$shards" --output="$reports/slurm-%A_%a.out" "$@" \
    "$here/grade.sbatch" "$subs" "$lab" "$reports")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterany:$array" --job-name=fp8lab-merge \
    --output="$reports/slurm-merge-%j.out" "$@" \
    --wrap="FP8LAB_ROOT='$root' '$root/build/bin/grader' --batch '$subs' '$lab' --merge --json-dir '$reports'")
merge=${merge%%;*}
echo "grade-course.sh: array job $array ($shards shards), merge job $merge; the gradebook will be $reports/grades.csv"
if [ $wait = 1 ]; then
    while squeue -h -j "$merge" 2>/dev/null | grep -q .; do
        sleep 2
    done
    cat "$reports/slurm-merge-$merge.out"
fi
