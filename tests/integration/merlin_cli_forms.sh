#!/usr/bin/env bash
# Command lines Merlin users type (issue #10): restart --local, --task_server celery, status
# --dump/-o/--no-prompts, queue-info --spec/--specific-queues/--steps/--dump, example -p PATH,
# run --pgen refused with a reason. Broker forms against a real redis-server.
source "$(dirname "$0")/lib.sh"
start_redis
set +e  # exit codes are what this test checks

cat >forms.yaml <<'Y'
description: {name: forms, description: Merlin's command forms}
env:
  variables:
    OUTPUT_PATH: ./studies
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: sim
    run: {cmd: 'echo $(X) > x.txt', task_queue: sim_q}
  - name: post
    run: {cmd: 'cat $(sim.workspace)/X.*/x.txt', depends: [sim_*], task_queue: post_q}
Y

# Before anything is queued: no workers, nothing to serve; both said in words.
"$MERLIN" query-workers >qw.out 2>qw.err
expect_eq "query-workers with none: exit 0" 0 $?
check "... 'No workers found', as Merlin says, with the broker" grep -q "^No workers found (at redis" qw.err
timeout 120 "$MERLIN" run-workers forms.yaml --exit-when-done >rw.out 2>rw.err
expect_eq "run-workers --exit-when-done with nothing queued: exit 0" 0 $?
check "... saying nothing is queued and how to queue it" grep -q "nothing is queued for study name=forms.*merlin run SPEC" rw.err

# example -p PATH: PATH is the new directory itself, as in Merlin.
"$MERLIN" example hello -p my_hello >/dev/null 2>&1
check "example hello -p my_hello: the files are in my_hello/" test -f my_hello/hello.yaml
"$MERLIN" example hello -p my_hello >/dev/null 2>ex.err
expect_eq "example -p onto an existing directory: refused" 2 $?
"$MERLIN" example hello >/dev/null 2>&1
check "example hello: ./hello/hello.yaml by default" test -f hello/hello.yaml

# run --pgen/--pargs: a Python module; refused, saying what to do instead.
"$MERLIN" run --local forms.yaml --pgen gen.py --pargs a:1 >/dev/null 2>pgen.err
expect_eq "run --pgen: exit 2" 2 $?
check "run --pgen: the message says why and what instead" grep -q "Python module.*global.parameters" pgen.err
check "run --pgen: nothing was run" test ! -e studies
"$MERLIN" run --local --no-progress --no-errors forms.yaml >/dev/null 2>&1
expect_eq "run --no-errors (Merlin's test flag) is accepted" 0 $?

# restart --local of a local workspace; status with Merlin's flags.
ws=$(ls -d studies/forms_*)
rm -f "$ws"/post/MERLIN_FINISHED
"$MERLIN" restart --local --no-progress "$ws" >/dev/null 2>&1
expect_eq "restart --local WS runs a local study here" 0 $?
"$MERLIN" status forms.yaml --task_server celery --no-prompts --dump st.csv >/dev/null 2>&1
expect_eq "status --task_server celery --no-prompts --dump st.csv" 0 $?
expect_eq "--dump wrote the table as CSV" "sim,2,2,2,0" "$(grep '^sim,' st.csv | cut -d, -f1-5)"
"$MERLIN" status forms.yaml --dump st.json >/dev/null 2>&1
check "--dump st.json is JSON" python3 -c 'import json,sys; json.load(open("st.json"))'
"$MERLIN" status forms.yaml --dump st.txt >/dev/null 2>dump.err
expect_eq "--dump to another extension: exit 2" 2 $?
mkdir elsewhere && mv studies elsewhere/
"$MERLIN" status forms.yaml -o elsewhere/studies --format csv >o.csv 2>/dev/null
expect_eq "status -o DIR finds the spec's workspace there" "post,1,1,1,0" "$(grep '^post,' o.csv | cut -d, -f1-5)"
"$MERLIN" status forms.yaml --task_server redis >/dev/null 2>ts.err
expect_eq "--task_server other than celery: exit 2" 2 $?
check "... naming the accepted value" grep -q celery ts.err

# queue-info --spec/--specific-queues/--steps/--dump on a queued study.
"$MERLIN" run forms.yaml >/dev/null 2>&1
expect_eq "run queues the study" 0 $?
"$MERLIN" queue-info --spec forms.yaml --task_server celery --format csv >q.csv 2>q.err
expect_eq "queue-info --spec SPEC" 0 $?
check "queue-info: sim_q has the 2 sim messages... or 1 range message" grep -q ',sim_q,' q.csv
"$MERLIN" queue-info --spec forms.yaml --specific-queues post_q --format csv >q2.csv 2>/dev/null
expect_eq "--specific-queues post_q: only post_q" "post_q" "$(tail -n +2 q2.csv | cut -d, -f2 | sort -u)"
"$MERLIN" queue-info --spec forms.yaml --steps sim --dump q.json >/dev/null 2>&1
check "--steps sim --dump q.json: only sim's queue, in JSON" python3 -c '
import json; rows = json.load(open("q.json")); assert rows and all(r["queue"] == "sim_q" for r in rows), rows'
"$MERLIN" queue-info --steps nope --spec forms.yaml >/dev/null 2>steps.err
expect_eq "--steps with an unknown step: exit 2" 2 $?
check "... naming it" grep -q "no step 'nope'" steps.err
"$MERLIN" query-workers --task_server celery >/dev/null 2>&1
expect_eq "query-workers --task_server celery" 0 $?
"$MERLIN" stop-workers --task_server celery >/dev/null 2>&1
expect_eq "stop-workers --task_server celery" 0 $?
"$MERLIN" status forms.yaml -o elsewhere/studies --cb-help >cb.out 2>/dev/null
expect_eq "status --cb-help: accepted" 0 $?
check "... and explains the columns, which are words and not colours" grep -q "words, not colours" cb.out

# monitor --steps: only those steps' queues. post's task is not queued until sim is done, so
# monitoring post alone returns at once while sim's work waits.
"$MERLIN" monitor forms.yaml --steps post --sleep 0.1 >/dev/null 2>mon.err
expect_eq "monitor --steps post: nothing of post is pending, exit 0" 0 $?
check "... saying so" grep -q "no work left" mon.err
"$MERLIN" monitor forms.yaml --steps postt --sleep 0.1 >/dev/null 2>mon.err
expect_eq "monitor --steps with an unknown step: exit 2" 2 $?
check "... with a suggestion" grep -q "did you mean 'post'" mon.err

# run-workers --disable-logs: the workers run the study and log nothing below an error.
"$MERLIN" run-workers forms.yaml --disable-logs --exit-when-done >rw.out 2>rw.err
expect_eq "run-workers --disable-logs runs the study" 0 $?
expect_eq "... and logs nothing (no info or warning lines)" "" "$(cat rw.err)"
sed 's/^study:/batch: {type: slurm}\nstudy:/' forms.yaml >slurmy.yaml
"$MERLIN" run-workers slurmy.yaml --echo --disable-logs >echo.txt 2>&1
check "--disable-logs reaches the worker jobs: --log-level error in their command" \
  grep -q "run-workers .* --log-level error" echo.txt
"$MERLIN" run-workers slurmy.yaml --echo >echo.txt 2>&1
check "... and no --log-level in them without it" bash -c "! grep -q -- --log-level echo.txt"
# Issue #25: the bundled hello_samples' worker args (-l INFO --concurrency=2) were reported as
# ignored Celery flags. Celery's common flags are accepted silently; one warning names a flag
# that would change a worker's behaviour.
"$MERLIN" run-workers "$SRC/examples/hello_samples/hello_samples.yaml" --echo >hs.txt 2>&1
check "hello_samples' worker args: no warning of ignored Celery flags" \
  bash -c "! grep -q 'Celery flags' hs.txt"
sed 's/--concurrency=2/--concurrency=2 -Q other/' "$SRC/examples/hello_samples/hello_samples.yaml" >hsq.yaml
"$MERLIN" run-workers hsq.yaml --echo >hsq.txt 2>&1
expect_eq "a -Q in worker args: one warning naming it" \
  "worker=demo_worker Celery flags in args are ignored: -Q other" \
  "$(grep 'Celery flags' hsq.txt | sed 's/^\[[^]]*\] warning //')"
sed 's/^study:/batch: {type: pbs, walltime: "10:00"}\nstudy:/' forms.yaml >pbs.yaml
"$MERLIN" run-workers pbs.yaml --echo >pbs.txt 2>&1
expect_eq "run-workers of a pbs study: exit 0" 0 $?
check "... a qsub job script with its directives" grep -qx "#PBS -l walltime=00:10:00" pbs.txt
check "... back in the submit directory, then mpiexec per node" \
  bash -c "grep -A1 -x 'cd \"\$PBS_O_WORKDIR\" || exit 1' pbs.txt | grep -q '^mpiexec -n 1 -ppn 1 .*run-workers'"
qws=$(ls -d studies/forms_*)
"$MERLIN" restart --local "$qws" >/dev/null 2>rl.err
expect_eq "restart --local of a study queued in the broker: refused (workers could run it too)" 2 $?
check "... saying to restart it without --local" grep -q "without --local" rl.err

# Misspelt commands and options: exit 2, the nearest right word, where the list is.
rc=0; "$MERLIN" rnu forms.yaml 2>typo.err || rc=$?
expect_eq "a misspelt command: exit 2" 2 "$rc"
expect_eq "... named, with the nearest command" \
  "merlin: unknown command 'rnu' (did you mean 'run'?); \`merlin --help\` lists the commands" "$(cat typo.err)"
rc=0; "$MERLIN" run --lcoal forms.yaml 2>typo.err || rc=$?
expect_eq "a misspelt option: exit 2" 2 "$rc"
check "... named, with the nearest option of that command" \
  grep -qF "run: unknown option '--lcoal' (did you mean '--local'?); \`merlin run --help\`" typo.err
rc=0; "$MERLIN" server config --frobnicate bob pw 2>typo.err || rc=$?
check "... several unexpected words in the order typed" grep -qF \
  "unknown option '--frobnicate', unexpected argument 'bob', unexpected argument 'pw'" typo.err
finish
