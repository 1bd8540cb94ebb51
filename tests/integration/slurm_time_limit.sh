#!/usr/bin/env bash
# A worker job killed by its Slurm time limit in the middle of a study loses nothing: the
# steps Slurm kills run again (they are requeued, not failed), the tasks the killed worker had
# reserved are taken over after the lease, and a later worker finishes the study with every
# sample committed once. (--drain-margin 0: no draining, Slurm's kill ends the worker.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
start_redis
start_slurm
specs=$SRC/tests/integration/specs
cp "$specs/slurm_limit.yaml" "$specs/slurm_limit_samples.csv" .
job_state() { squeue -h -t all -j "$1" -o %T 2>/dev/null | sort -u; }
job_over() { local s; s=$(job_state "$1"); [ -n "$s" ] && ! grep -qvE '^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL)$' <<<"$s"; }

"$MERLIN" run slurm_limit.yaml >ws.txt 2>run.err
ws=$(cat ws.txt)
# 1000 samples of 0.5 s on 2 slots need 250 s; the job has 1 minute (Slurm enforces it within
# about 30 s more).
"$MERLIN" run-workers slurm_limit.yaml --drain-margin 0 --lease 2 >a.txt 2>a.err ||
  fail "run-workers submitted its job: $(cat a.err)"
job=$(sed -n 's/^worker [^:]*: slurm job \([0-9]*\) .*/\1/p' a.txt)
check "the worker job was submitted ($(cat a.txt))" test -n "$job"
if wait_until 200 job_over "$job"; then pass "the job ended"
else fail "the job ended ($(job_state "$job"))"; fi
expect_eq "by its time limit" TIMEOUT "$(job_state "$job")"
part=$(find "$ws/sim" -name x.txt | wc -l)
check "part of the study ran in it ($part of 1000)" test "$part" -gt 0 -a "$part" -lt 1000
"$MERLIN" run-workers slurm_limit.yaml --here --exit-when-done --lease 2 >/dev/null 2>b.err
expect_eq "a later worker runs the rest: all 1000 ran" 1000 "$(find "$ws/sim" -name x.txt | wc -l)"
"$MERLIN" status "$ws" --format csv >status.csv
check "each committed once, none failed ($(grep '^sim,' status.csv))" grep -q '^sim,1,1000,1000,0' status.csv
finish
