#!/bin/sh
# test_slurm.sh - grading a course on a cluster, for real: starts a Slurm
# of one node on loopback (munged, slurmctld and slurmd from Debian's munge
# and slurm-wlm, each on this test's own key, socket, ports and folders),
# grades seven lab0 submissions with grading/slurm/grade-course.sh as an
# array job of three shards and a merge job, and checks the merged
# gradebook against the submissions: with hidden inputs from a seed file
# (the jobs get no environment) and the LMS file from the merge. Skipped (exit 77), saying why, where
# Slurm or munge is not installed or the test does not run as root (the
# daemons need it here).
#
#   GRADER=build/bin/grader FP8LAB_BUILD=build sh tests/grading/test_slurm.sh
# Run from the top of the course. Exit status 0 when every check passes.

set -u
ROOT=$(pwd)
for tool in munged munge slurmctld slurmd sbatch squeue sinfo; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "test_slurm: skipped: $tool not found (Debian's slurm-wlm and munge: sudo apt-get install slurm-wlm munge)"
        exit 77
    fi
done
if [ "$(id -u)" != 0 ]; then
    echo "test_slurm: skipped: starting slurmd and munged here needs root"
    exit 77
fi
TMP=$(mktemp -d) || exit 1
chmod 755 "$TMP"
CTL_PORT=${FP8LAB_SLURM_PORT:-16817}
D_PORT=$((CTL_PORT + 1))
stop() {
    for d in slurmd slurmctld munged; do
        [ -f "$TMP/$d.pid" ] && kill "$(cat "$TMP/$d.pid")" 2>/dev/null
    done
    sleep 1
    rm -rf "$TMP"
}
trap stop EXIT INT TERM
. "$ROOT/tests/grading/lib.sh"

# ---- a cluster of one ------------------------------------------------------------------

mkdir -p "$TMP/state" "$TMP/spool" "$TMP/log"
head -c 1024 /dev/urandom >"$TMP/munge.key" && chmod 400 "$TMP/munge.key"
# --force: munged would rather not run as root, nor under a world-writable /tmp.
munged --force --key-file="$TMP/munge.key" --socket="$TMP/munge.sock" \
    --pid-file="$TMP/munged.pid" --log-file="$TMP/log/munged.log" \
    --seed-file="$TMP/munged.seed" >"$TMP/log/munged.out" 2>&1 ||
    { echo "test_slurm: munged did not start:"; cat "$TMP/log/munged.out"; exit 1; }
cat >"$TMP/slurm.conf" <<CONF
ClusterName=fp8labtest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$TMP/munge.sock
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
SlurmctldPort=$CTL_PORT
SlurmdPort=$D_PORT
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=cpu Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$TMP/slurm.conf
slurmctld -i >"$TMP/log/slurmctld.out" 2>&1 && slurmd -N localhost >"$TMP/log/slurmd.out" 2>&1 ||
    { echo "test_slurm: slurmctld or slurmd did not start:"; cat "$TMP"/log/*; exit 1; }
up=0
for i in $(seq 1 60); do
    sinfo -h -o %T 2>/dev/null | grep -q idle && { up=1; break; }
    sleep 0.5
done
[ $up = 1 ] && ok || { bad "the node did not come up:"; cat "$TMP"/log/*.log; exit 1; }

# ---- the course: seven submissions, three shards ----------------------------------------

SUBS=$TMP/submissions
for i in 1 2 3 4 5 6 7; do
    mkdir -p "$SUBS/s$i"
    cp solutions/lab0/lab0.c "$SUBS/s$i/"
done
cp labs/lab0/lab0.c "$SUBS/s4/"
# A seed that no shell quoting survives, in a file every job reads; no
# environment reaches the jobs (--export=NONE).
printf '%s\n' "fall&25 bob's \$HOME" >"$TMP/seed file"
out=$(sh grading/slurm/grade-course.sh -n 3 -s "$TMP/seed file" -l canvas -a "Lab 0 (4821)" -w "$SUBS" lab0 \
    --partition=cpu --export=NONE 2>&1)
expect_match "grade-course.sh: says what it submitted" "$out" \
    "array job [0-9]+ \\(3 shards\\), merge job [0-9]+"
BOOK=$SUBS.grades/grades.csv
for k in 1 2 3; do
    [ -f "$SUBS.grades/grades.shard-$k-of-3.csv" ] && ok || bad "shard $k of 3: no gradebook"
done
expect_eq "merged gradebook: every student, in order" \
    "$(tr -d '\r' <"$BOOK" | sed 1d | cut -d, -f1,4 | tr '\n' ' ')" \
    "s1,graded s2,graded s3,graded s4,graded s5,graded s6,graded s7,graded "
expect_eq "merged gradebook: the scores" \
    "$(tr -d '\r' <"$BOOK" | sed 1d | cut -d, -f2 | tr '\n' ' ')" \
    "100 100 100 $(jq -r .score "$SUBS.grades/s4.json") 100 100 100 "
expect_match "the merge job's summary" "$out" "7 submissions in .*, merged from the reports"
expect_eq "every shard drew hidden inputs" \
    "$(tr -d '\r' <"$BOOK" | sed 1d | awk -F, '{ print $(NF - 3) }' | sort -u)" yes
expect_match "the merge checked them" "$out" "hidden inputs: on .* 7 of the 7 graded drew them"
expect_eq "the merge wrote the LMS file" "$(tr -d '\r' <"$SUBS.grades/lms-canvas.csv" | sed 1d | wc -l | tr -d ' ')" 7
out=$(sh grading/slurm/grade-course.sh -l canvas "$SUBS" lab0 2>&1)
expect_eq "grade-course.sh -l canvas without -a: a usage error" "$?" 2
expect_match "grade-course.sh -l canvas without -a: says what to give" "$out" "needs -a 'TITLE \\(ID\\)'"
expect_eq "the LMS file's column, -a's" "$(tr -d '\r' <"$SUBS.grades/lms-canvas.csv" | head -n 1 | cut -d, -f6)" \
    "Lab 0 (4821)"
# Each shard ran as an array task of its own.
expect_eq "three array tasks ran" "$(ls "$SUBS.grades"/slurm-*_*.out 2>/dev/null | wc -l | tr -d ' ')" 3

# A shard that has not run (-k: only shards 1 and 2 of 3): the merge names
# it and writes no LMS file; -k 3 runs it alone, as shard 3 of 3, and the
# merge then gives the whole gradebook, the roster's missing student too.
C2=$TMP/class2
for i in 1 2 3 4 5; do mkdir -p "$C2/t$i" && cp solutions/lab0/lab0.c "$C2/t$i/"; done
printf 'id,name\nt1,One\nt2,Two\nt3,Three\nt4,Four\nt5,Five\nt6,Six Absent\n' >"$TMP/roster.csv"
out=$(sh grading/slurm/grade-course.sh -n 3 -k 1,2 -R "$TMP/roster.csv" -l moodle -w "$C2" lab0 \
    --partition=cpu --export=NONE 2>&1)
expect_match "-k 1,2: says which shards" "$out" "array job [0-9]+ \\(shards 1,2 of 3 shards\\)"
expect_match "-k 1,2: the merge names shard 3" "$out" \
    "For LMS: +not written: 1 submission \\(t3\\) has no report: shard 3 of 3 has not run"
[ ! -e "$C2.grades/lms-moodle.csv" ] && ok || bad "-k 1,2: an LMS file with shard 3's students at 0"
out=$(sh grading/slurm/grade-course.sh -n 3 -k 3 -R "$TMP/roster.csv" -l moodle -w "$C2" lab0 \
    --partition=cpu --export=NONE 2>&1)
[ -f "$C2.grades/grades.shard-3-of-3.csv" ] && [ ! -e "$C2.grades/grades.shard-1-of-1.csv" ] && ok ||
    bad "-k 3: not run as shard 3 of 3: $(ls "$C2.grades" | grep shard | tr '\n' ' ')"
expect_eq "-k 3, then the merge: every student, the roster's missing one too" \
    "$(tr -d '\r' <"$C2.grades/grades.csv" | sed 1d | cut -d, -f1,2,4 | tr '\n' ' ')" \
    "t1,100,graded t2,100,graded t3,100,graded t4,100,graded t5,100,graded t6,0,missing "
expect_eq "-k 3, then the merge: the LMS file" "$(tr -d '\r' <"$C2.grades/lms-moodle.csv" | sed 1d | wc -l | tr -d ' ')" 6

# -W reaches the shards (the grader's --reweight-skipped): t1's report,
# edited to hold a skipped test not re-weighted, is stale for shard 1 run
# with it, and graded again. -G reaches the merge (--groups): t6, on the
# roster with no submission, is in t1's group and gets its row; -L
# (--late-penalty) the merge's summary (a plain folder marks none late).
jq '.tests[0].status = "skipped" | .tests[0].points = 0 | .score = 100 - .tests[0].max_points' \
    "$C2.grades/t1.json" >"$TMP/t1.json" && cp "$TMP/t1.json" "$C2.grades/t1.json"
printf 'id,group\nt1,G\nt6,G\n' >"$TMP/groups.csv"
out=$(sh grading/slurm/grade-course.sh -n 3 -k 1 -W -G "$TMP/groups.csv" -L 10 -R "$TMP/roster.csv" \
    -w "$C2" lab0 \
    --partition=cpu --export=NONE 2>&1)
expect_match "-W: shard 1 grades t1 again" "$(cat "$C2.grades"/slurm-*_1.out)" \
    "t1: its score was not re-weighted to the points graded, and this run has --reweight-skipped"
expect_eq "-W: t1 graded again, nothing skipped" \
    "$(jq -r '"\(.score) \([.tests[] | select(.status == "skipped")] | length)"' "$C2.grades/t1.json")" "100 0"
expect_eq "-G: the merge gives t6 its group's row" "$(columns "$C2.grades/grades.csv" score status group |
    grep '^t6:')" "t6:100:graded:G"
expect_match "-L: the merge's summary" "$out" "late +-  --late-penalty 10%: nothing taken"

echo "test_slurm: $passed passed, $failed failed"
[ "$failed" = 0 ]
