#!/bin/sh
# grade-course.sh - grades a course's submissions on a Slurm cluster: an
# array job of N shards (grade.sbatch), then a merge job (merge.sbatch)
# that waits for all of them and writes the gradebook. INSTRUCTORS.md,
# "Grading on a Slurm cluster", says what the compute nodes need.
#
#   sh grading/slurm/grade-course.sh [-n N] [-k K,...] [-r REPORTS] [-s SEED_FILE]
#                                    [-R ROSTER] [-G GROUPS] [-l LMS] [-a 'TITLE (ID)']
#                                    [-L PERCENT] [-W] [-f] [-w]
#                                    SUBMISSIONS LAB [SBATCH_ARG...]
#
#   -n N          shards (array tasks; default 8)
#   -k K,...      run only these of the N shards (again), then the merge:
#                 what a merge named as not run ("shard 3 of 8": -n 8 -k 3)
#   -R ROSTER     the class list (the grader's --roster): the merged
#                 gradebook has a row "missing" for each student without one
#   -r REPORTS    the report folder, on storage every node sees (default
#                 SUBMISSIONS.grades)
#   -s SEED_FILE  hidden inputs: the seed is the file's first line; every
#                 job reads the file (never the environment, which
#                 --export=NONE empties), and the merge checks the reports
#   -l LMS        the merge also writes REPORTS/lms-LMS.csv (canvas, moodle),
#                 or REPORTS/lms-gradescope.zip (gradescope)
#   -a 'TITLE (ID)'  with -l canvas (needed): the Canvas assignment's column
#                 (the grader's --lms-assignment)
#   -G GROUPS     a CSV of student and group (the grader's --groups): the
#                 merge gives each member the group's row
#   -L PERCENT    taken from the score of work the platform marked late
#                 (the grader's --late-penalty)
#   -W            where tests were skipped (lab5 on a GPU older than they
#                 need), scores out of the points graded, scaled to the
#                 rubric's (the grader's --reweight-skipped)
#   -f            the shards grade again what has a report (--force)
#   -w            wait for the merge job and print its summary
# Anything after LAB goes to both sbatch calls, e.g. a partition:
#   sh grading/slurm/grade-course.sh subs/ lab3 --partition=cpu
#   sh grading/slurm/grade-course.sh subs/ lab5 --partition=gpu --gres=gpu:1
# Run from the course's top folder, on a shared file system: every node
# runs this checkout's build/bin/grader, which this script builds first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
usage="usage: grade-course.sh [-n N] [-k K,...] [-r REPORTS] [-s SEED_FILE] [-R ROSTER] [-G GROUPS] [-l LMS] [-a 'TITLE (ID)'] [-L PERCENT] [-W] [-f] [-w] SUBMISSIONS LAB [SBATCH_ARG...]"
shards=8 only="" reports="" wait=0 seed_file="" roster="" lms="" assignment="" force="" reweight="" groups="" late=""
while getopts n:k:r:s:R:G:l:a:L:Wfw opt; do
    case $opt in
    n) shards=$OPTARG ;;
    k) only=$OPTARG ;;
    R) roster=$OPTARG ;;
    r) reports=$OPTARG ;;
    s) seed_file=$OPTARG ;;
    l) lms=$OPTARG ;;
    a) assignment=$OPTARG ;;
    W) reweight=--reweight-skipped ;;
    G) groups=$OPTARG ;;
    L) late=$OPTARG ;;
    f) force=--force ;;
    w) wait=1 ;;
    *) echo "$usage" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
    echo "$usage" >&2
    exit 2
fi
case $lms in '' | canvas | moodle | gradescope) ;; *) echo "grade-course.sh: -l $lms: canvas, moodle or gradescope" >&2; exit 2 ;; esac
case $lms,$assignment in
canvas,) echo "grade-course.sh: -l canvas needs -a 'TITLE (ID)', the assignment's column as Canvas's gradebook export heads it" >&2; exit 2 ;;
canvas,* | *,) ;;
*) echo "grade-course.sh: -a goes with -l canvas" >&2; exit 2 ;;
esac
if [ -n "$seed_file" ]; then
    [ -f "$seed_file" ] && [ -r "$seed_file" ] ||
        { echo "grade-course.sh: -s $seed_file: no such file" >&2; exit 2; }
    seed_file=$(cd "$(dirname "$seed_file")" && pwd)/$(basename "$seed_file")
fi
if [ -n "$roster" ]; then
    [ -f "$roster" ] && [ -r "$roster" ] ||
        { echo "grade-course.sh: -R $roster: no such file" >&2; exit 2; }
    roster=$(cd "$(dirname "$roster")" && pwd)/$(basename "$roster")
fi
if [ -n "$groups" ]; then
    [ -f "$groups" ] && [ -r "$groups" ] ||
        { echo "grade-course.sh: -G $groups: no such file" >&2; exit 2; }
    groups=$(cd "$(dirname "$groups")" && pwd)/$(basename "$groups")
fi
subs=$(cd "$1" && pwd) lab=$2
shift 2
case $shards in '' | *[!0-9]* | 0) echo "grade-course.sh: -n $shards: a number of shards, 1 or more" >&2; exit 2 ;; esac
for k in $(printf '%s' "$only" | tr ',' ' '); do
    case $k in *[!0-9]* | 0) k=0 ;; esac
    [ "$k" -ge 1 ] && [ "$k" -le "$shards" ] ||
        { echo "grade-course.sh: -k $only: shards are 1 to $shards (-n)" >&2; exit 2; }
done
reports=${reports:-$subs.grades}
mkdir -p "$reports"
reports=$(cd "$reports" && pwd)
make -s -C "$root" grader >&2
"$root/build/bin/grader" --list | grep -q "^$lab " ||
    { echo "grade-course.sh: no lab named $lab (./grader --list)" >&2; exit 2; }

cd "$root"
# The grader's arguments go to each job as words of its own: no shell reads
# them again, whatever the paths hold.
array=$(sbatch --parsable --array="${only:-1-$shards}" --output="$reports/slurm-%A_%a.out" "$@" \
    "$here/grade.sbatch" "$subs" "$lab" "$reports" --shards "$shards" \
    ${seed_file:+--seed-file} ${seed_file:+"$seed_file"} ${force:+"$force"} ${reweight:+"$reweight"} \
    ${late:+--late-penalty} ${late:+"$late"})
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterany:$array" \
    --output="$reports/slurm-merge-%j.out" "$@" \
    "$here/merge.sbatch" "$subs" "$lab" "$reports" \
    ${seed_file:+--seed-file} ${seed_file:+"$seed_file"} ${roster:+--roster} ${roster:+"$roster"} \
    ${lms:+--lms} ${lms:+"$lms"} \
    ${assignment:+--lms-assignment} ${assignment:+"$assignment"} ${reweight:+"$reweight"} \
    ${groups:+--groups} ${groups:+"$groups"} ${late:+--late-penalty} ${late:+"$late"})
merge=${merge%%;*}
echo "grade-course.sh: array job $array (${only:+shards $only of }$shards shards), merge job $merge; the gradebook will be $reports/grades.csv"
if [ $wait = 1 ]; then
    while squeue -h -j "$merge" 2>/dev/null | grep -q .; do
        sleep 2
    done
    cat "$reports/slurm-merge-$merge.out"
fi
