#!/usr/bin/env bash
# Workers inside real Slurm jobs, against a real Redis: `merlin run-workers` submits the
# worker job (sbatch), the job runs one worker per node (srun), the study completes with an
# MPI step launched by srun through $(LAUNCHER), and the allocation ends with the study.
# A cancelled worker job loses nothing (another job takes its tasks over after the lease);
# a worker drains before its allocation's time limit. Bad input: a partition Slurm refuses,
# sbatch missing from PATH, nodes that are not a number.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
mpi_hello=$(dirname "$MERLIN")/mpi_hello
[ -x "$mpi_hello" ] || { echo "SKIP: $mpi_hello not built (apt-get install libopenmpi-dev)"; exit 77; }
start_redis
start_slurm
specs=$SRC/tests/integration/specs
cp "$specs/slurm_study.yaml" "$specs/slurm_samples.csv" .
# The states of a job (of each task of an array), one line per distinct state.
job_state() { squeue -h -t all -j "$1" -o %T 2>/dev/null | sort -u; }
job_over() { local s; s=$(job_state "$1"); [ -n "$s" ] && ! grep -qvE '^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL)$' <<<"$s"; }
job_id_of() { sed -n 's/^worker [^:]*: slurm job \([0-9]*\) .*/\1/p' "$1"; }

# --- --echo prints the job script, submits nothing ------------------------------------------------
"$MERLIN" run-workers slurm_study.yaml --echo >echo.txt
check "--echo prints an sbatch script" grep -q "^#SBATCH --nodes=1$" echo.txt
check "--echo: srun starts one worker per node, --here" \
  grep -q "^srun --mpi=none --overlap -N 1 -n 1 .* run-workers .*/slurm_study.yaml --worker simw --here --exit-when-done" echo.txt
expect_eq "--echo submits nothing" "" "$(squeue -h)"

# --- a study end to end in worker jobs: an array of two allocations ---------------------------------------
"$MERLIN" run slurm_study.yaml --vars "MPI_HELLO=$mpi_hello" >ws.txt 2>run.err
ws=$(cat ws.txt)
"$MERLIN" run-workers slurm_study.yaml --array 2 >submit.txt 2>submit.err
job=$(job_id_of submit.txt)
check "run-workers says which Slurm job it submitted ($(cat submit.txt))" test -n "$job"
if wait_until 120 job_over "$job"; then pass "the worker jobs end by themselves when the study is done"
else fail "the worker jobs end by themselves (state $(job_state "$job"))"; cat merlin_workers/*.out; fi
expect_eq "both array tasks ran" 2 "$(squeue -h -t all -j "$job" -o %i | wc -l)"
expect_eq "they completed (exit 0), releasing their nodes" COMPLETED "$(job_state "$job")"
expect_eq "every sample ran" 12 "$(find "$ws/sim" -name x.txt | wc -l)"
expect_eq "inside that Slurm job" "$job" "$(find "$ws/sim" -name job.txt -exec cat {} + | sort -u)"
expect_eq "the MPI step ran 2 ranks under srun" "ranks=2 launcher=srun" "$(cat "$ws/mpi/mpi.txt" 2>/dev/null)"
check "the jobs' logs name the worker" grep -q "worker=simw" merlin_workers/simw-"$job"_1.out
"$MERLIN" status "$ws" --format csv >status.csv
check "status: both steps finished" grep -q '^mpi,1,1,1,0' status.csv

# --- Merlin's way: your own batch script calls `merlin run-workers` inside the allocation -------------
"$MERLIN" run slurm_study.yaml --vars "MPI_HELLO=$mpi_hello" >ws1.txt 2>run1.err
ws1=$(cat ws1.txt)
own=$(sbatch --parsable -N 1 --exclusive -o own-%j.out --wrap "'$MERLIN' run-workers '$WORK/slurm_study.yaml'")
if wait_until 120 job_over "$own"; then pass "own batch script: the job ends with the study"
else fail "own batch script: the job ends with the study ($(job_state "$own"))"; cat own-*.out; fi
expect_eq "own batch script: completed" COMPLETED "$(job_state "$own")"
check "own batch script: run-workers launched the workers per node, not a new job" \
  grep -q "launching in this allocation: srun --mpi=none --overlap -N 1 -n 1" own-"$own".out
expect_eq "own batch script: every sample ran in that job" "$own" \
  "$(find "$ws1/sim" -name job.txt -exec cat {} + | sort -u)"

# --- scancel of a worker job mid-study: another job takes its tasks over ---------------------------------
"$MERLIN" run slurm_study.yaml --vars "MPI_HELLO=$mpi_hello" "GATE=$WORK/gate" >ws2.txt 2>run2.err
ws2=$(cat ws2.txt)
"$MERLIN" run-workers slurm_study.yaml --lease 2 >a.txt 2>a.err
ja=$(job_id_of a.txt)
# Job A holds two samples (2 slots) behind the gate; cancel it there.
holds_two() {  # the study's messages reserved by workers (queue-info's 4th column) >= 2
  local n
  n=$("$MERLIN" queue-info slurm_study.yaml --format csv 2>/dev/null |
    awk -F, -v k="$1" '$1 == k { r += $4 } END { print r + 0 }')
  [ "$n" -ge 2 ]
}
wait_until 60 holds_two "$(basename "$ws2")" || fail "job A reserved its tasks"
listed_in_job() {  # query-workers shows worker simw in job $1 (heartbeats come every second)
  "$MERLIN" query-workers --spec slurm_study.yaml --format csv >qw.csv 2>&1
  grep -q "^simw,[^,]*,[0-9]*,$1," qw.csv
}
if wait_until 10 listed_in_job "$ja"; then pass "query-workers names the job the worker runs in"
else fail "query-workers names the job the worker runs in ($(tr '\n' ' ' <qw.csv))"; fi
scancel "$ja"
wait_until 30 job_over "$ja" || fail "job A was cancelled"
"$MERLIN" run-workers slurm_study.yaml --lease 2 >b.txt 2>b.err
jb=$(job_id_of b.txt)
touch gate
if wait_until 120 job_over "$jb"; then pass "job B finishes the study"
else fail "job B finishes the study ($(job_state "$jb"))"; cat merlin_workers/*"$jb".out; fi
expect_eq "nothing lost: every sample ran" 12 "$(find "$ws2/sim" -name x.txt | wc -l)"
"$MERLIN" status "$ws2" --format csv >status2.csv
check "each sample committed once (sim 12 done, 0 failed)" grep -q '^sim,1,12,12,0' status2.csv
check "the MPI step ran after them" grep -q '^mpi,1,1,1,0' status2.csv

# --- a worker drains before its allocation's time limit; nothing is lost ---------------------------------
cp "$specs/slurm_drain.yaml" "$specs/slurm_drain_samples.csv" .
"$MERLIN" run slurm_drain.yaml >ws3.txt 2>run3.err
ws3=$(cat ws3.txt)
# walltime 1 minute, drain 52 s before it: the worker stops taking tasks after about 8 s.
"$MERLIN" run-workers slurm_drain.yaml --drain-margin 52 >c.txt 2>c.err
jc=$(job_id_of c.txt)
if wait_until 55 job_over "$jc"; then pass "the drained job ends before its time limit"
else fail "the drained job ends before its time limit ($(job_state "$jc"))"; fi
expect_eq "it ended cleanly (exit 0), not by the limit" COMPLETED "$(job_state "$jc")"
check "its log says why" grep -q "draining before its time limit" merlin_workers/drainw-"$jc".out
part=$(find "$ws3/sim" -name x.txt | wc -l)
check "part of the study ran in it ($part of 400)" test "$part" -gt 0 -a "$part" -lt 400
"$MERLIN" run-workers slurm_drain.yaml --here --exit-when-done >/dev/null 2>d.err
expect_eq "a later worker runs the rest: all 400 ran" 400 "$(find "$ws3/sim" -name x.txt | wc -l)"
"$MERLIN" status "$ws3" --format csv >status3.csv
check "each committed once, none failed" grep -q '^sim,1,400,400,0' status3.csv

# --- bad input ---------------------------------------------------------------------------------------------
sed 's/  walltime: "00:10:00"/  walltime: "00:10:00"\n  queue: nosuchpartition/' slurm_study.yaml >badq.yaml
set +e
"$MERLIN" run-workers badq.yaml >out.txt 2>err.txt
rc=$?
set -e
expect_eq "a refused job: exit 1" 1 "$rc"
check "a refused job: Slurm's own words ($(head -c 300 err.txt))" grep -q "sbatch refused the job (exit 1): sbatch: error: .*[Pp]artition" err.txt
set +e
PATH=/nonexistent "$MERLIN" run-workers slurm_study.yaml >out.txt 2>err.txt
rc=$?
set -e
expect_eq "sbatch missing: exit 1" 1 "$rc"
check "sbatch missing: says so" grep -q "sbatch: not found in PATH" err.txt
sed 's/        nodes: 1/        nodes: two/' slurm_study.yaml >badn.yaml
set +e
"$MERLIN" run-workers badn.yaml >out.txt 2>err.txt
rc=$?
set -e
expect_eq "nodes not a number: exit 2" 2 "$rc"
check "nodes not a number: names the spec line ($(cat err.txt))" grep -q "badn.yaml:[0-9]*:[0-9]*:.*nodes" err.txt
finish
