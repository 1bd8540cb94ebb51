#!/usr/bin/env bash
# The lean workspace (docs/lean-workspace.md): per sample merlin makes only its directory; a
# sample's stdout/stderr come back exactly through `merlin logs` (a failed sample's stderr, a
# retried sample's attempts); status, detailed-status, restart, a $(MERLIN_GLOB_PATH) funnel,
# merlin collect and staging work on it, locally and with two Redis run-workers processes.
# Merlin's layout, run on the same spec, is counted for comparison.
source "$(dirname "$0")/lib.sh"
N=200
seq 0 $((N - 1)) | awk '{print $1 "," $1 * 2}' >samples.csv
mkdir -p flags
cat >lean.yaml <<'Y'
description:
  name: lean
  description: per-sample outputs, a failure, a retry, a staged step and a glob funnel
env:
  variables:
    OUTPUT_PATH: ./out
    FLAGS: $(SPECROOT)/flags
study:
  - name: sim
    run:
      cmd: |
        echo "sample=$(MERLIN_SAMPLE_ID) x=$(X)"
        echo 'quoted $(X) stays substituted, as in Merlin'
        echo "{\"y\": $Y}" > result.json
        if [ $(MERLIN_SAMPLE_ID) = 5 ] && [ ! -e $(FLAGS)/fixed5 ]; then
          echo "boom 5" >&2; exit 1
        fi
        if [ $(MERLIN_SAMPLE_ID) = 7 ] && [ ! -e $(FLAGS)/retried7 ]; then
          touch $(FLAGS)/retried7; echo "first try of 7"; exit $(MERLIN_RETRY)
        fi
      retry_delay: 0
  - name: stage
    run:
      cmd: echo "staged $(MERLIN_SAMPLE_ID)" > staged.txt
      depends: [sim]
      scratch: auto
      stage_out: [staged.txt]
  - name: funnel
    run:
      cmd: cat $(sim.workspace)/$(MERLIN_GLOB_PATH)/result.json | wc -l
      depends: [sim_*, stage_*]
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [X, Y]
  layout: lean
Y
sed 's/^  layout: lean$//' lean.yaml >merlin_layout.yaml
export MERLIN_SCRATCH_ROOT=$WORK/scratch  # a staging root of the test's own
export TMPDIR=$WORK/tmp                  # the captures while steps run
mkdir -p "$TMPDIR"

# ws_of SPEC: the workspace a local run of SPEC made.
ws_of() { ls -d "$WORK"/out/"$1"_* | tail -1; }
# merlin_inodes WS STEP: inodes under WS/STEP that are not the user's outputs, nor the
# per-instance logs and the lean workspace's one script per instance (counted apart).
merlin_inodes() {
  find "$1/$2" -xdev ! -name result.json ! -name staged.txt ! -path '*/.merlin_logs*' \
    ! -path "$1/$2/$2.sh" -printf '%i\n' | sort -u | wc -l
}

# --- Merlin's layout, for comparison ----------------------------------------------------------
"$MERLIN" run --local -j2 --no-progress merlin_layout.yaml >/dev/null 2>&1 || true
mws=$(ws_of lean)
m_inodes=$(merlin_inodes "$mws" sim)
echo "Merlin's layout: $m_inodes inodes of merlin's under sim/ for $N samples"
check "Merlin's layout: at least 5 inodes per sample (dir, .sh, .out, .err, MERLIN_FINISHED)" \
  test "$m_inodes" -ge $((5 * (N - 1)))
rm -rf out flags/*

# --- lean, locally -----------------------------------------------------------------------------
set +e
"$MERLIN" run --local -j2 --no-progress lean.yaml >run.out 2>run.err
rc=$?
set -e
expect_eq "lean local run: exit 1 (sample 5 failed)" 1 "$rc"
ws=$(ws_of lean)
check "run.env records the layout" grep -qx "layout=lean" "$ws/merlin_info/run.env"
l_inodes=$(merlin_inodes "$ws" sim)
levels_dirs=$(find "$ws/sim" -mindepth 1 -maxdepth 1 -type d ! -name .merlin_logs | wc -l)
echo "lean: $l_inodes inodes of merlin's under sim/ for $N samples ($levels_dirs hierarchy dirs)"
# The sample dirs, the hierarchy's upper level (N/25 dirs, shared) and sim/ itself.
check "lean: at most one inode per sample (plus the shared hierarchy dirs)" \
  test "$l_inodes" -le $((N + levels_dirs + 1))
expect_eq "lean: sample dirs hold only the user's outputs" "" \
  "$(find "$ws/sim" "$ws/stage" -mindepth 2 -type f ! -name result.json ! -name staged.txt \
       ! -path '*/.merlin_logs/*' ! -path '*/.merlin_staged/*' | head -5)"
check "lean: the script once per instance, tokens left for the reader" \
  grep -q 'echo "sample=$(MERLIN_SAMPLE_ID) x=$(X)"' "$ws/sim/sim.sh"
expect_eq "lean: no MERLIN_FINISHED without finished_markers" 0 \
  "$(find "$ws" -name MERLIN_FINISHED | wc -l)"

bad=0
for s in $(seq 0 $((N - 1))); do
  [ "$s" = 5 ] && continue
  x=$(sed -n "$((s + 1))p" samples.csv | cut -d, -f1)
  want=$(printf 'sample=%s x=%s\nquoted %s stays substituted, as in Merlin\n' "$s" "$x" "$x")
  [ "$("$MERLIN" logs "$ws" sim "$s")" == "$want" ] || bad=$((bad + 1))
done
expect_eq "merlin logs: every sample's stdout exactly" 0 "$bad"
expect_eq "merlin logs --err: the failed sample's stderr" "boom 5" "$("$MERLIN" logs "$ws" sim 5 --err)"
"$MERLIN" logs "$ws" sim 7 --all-attempts >a7.txt
expect_eq "merlin logs --all-attempts: the retried sample's two attempts" \
  "==== merlin: sim sample 7 attempt 1 exit 104 (worker X) ====
sample=7 x=7
quoted 7 stays substituted, as in Merlin
first try of 7
==== merlin: sim sample 7 attempt 2 exit 0 (worker X) ====
sample=7 x=7
quoted 7 stays substituted, as in Merlin" "$(sed -E 's/\(worker [^)]*\)/(worker X)/' a7.txt)"
expect_eq "merlin logs: the newest attempt by default" "sample=7 x=7" \
  "$("$MERLIN" logs "$ws" sim 7 | head -1)"
# Sample 5 wrote its result.json before failing; a soft-failed sample counts as finished for
# its dependents, so its staging step ran too.
expect_eq "funnel: the glob found the samples' outputs" "$N" \
  "$("$MERLIN" logs "$ws" funnel 0 | tr -d ' ')"
expect_eq "staging: staged outputs in the lean sample dirs" "$N" \
  "$(find "$ws/stage" -name staged.txt | wc -l)"

"$MERLIN" status "$ws" --format csv >st.csv
check "status: sim 199 done, 1 failed" grep -q "^sim,1,$N,$((N - 1)),1," st.csv
"$MERLIN" detailed-status "$ws" >ds.txt 2>&1 || true
check "detailed-status: the failed sample" grep -qE "^sim/00/05 +FAILED" ds.txt

# restart runs the failed sample again: a second attempt in the logs, the study completes.
touch flags/fixed5
"$MERLIN" restart --local --no-progress "$ws" >/dev/null 2>&1
"$MERLIN" status "$ws" --format csv >st2.csv
check "restart: sim complete" grep -q "^sim,1,$N,$N,0," st2.csv
expect_eq "restart: sample 5 has two attempts" 2 \
  "$("$MERLIN" logs "$ws" sim 5 --all-attempts | grep -c '^==== merlin: ')"
expect_eq "restart: sample 5's newest stdout" "sample=5 x=5" "$("$MERLIN" logs "$ws" sim 5 | head -1)"
check "merlin collect reads the lean sample dirs (every row ok)" \
  "$MERLIN" collect "$ws" --step sim -f result.json -o c.h5 --no-progress

# --- bad input for merlin logs ----------------------------------------------------------------
logs_rc() { set +e; "$MERLIN" logs "$@" >/dev/null 2>err.txt; echo $?; set -e; }
expect_eq "logs: unknown step exits 2" 2 "$(logs_rc "$ws" simm 1)"
check "logs: unknown step says did you mean" grep -q "did you mean 'sim'" err.txt
expect_eq "logs: sample out of range exits 2" 2 "$(logs_rc "$ws" sim $N)"
check "logs: says the range" grep -q "samples 0 to $((N - 1))" err.txt
expect_eq "logs: not a number exits 2" 2 "$(logs_rc "$ws" sim seven)"
expect_eq "logs: not a workspace exits 2" 2 "$(logs_rc "$WORK/flags" sim 1)"
"$MERLIN" run --local --no-progress merlin_layout.yaml >/dev/null 2>&1 || true
expect_eq "logs: a workspace of Merlin's layout exits 2" 2 "$(logs_rc "$(ws_of lean)" sim 1)"
check "logs: says where Merlin's layout keeps output" grep -q "not a lean workspace" err.txt
check "logs --help explains the logs and exit codes" \
  bash -c "'$MERLIN' logs --help | grep -q 'Exit codes: 0 printed'"
# A parameterised step: its instances are named by their directories.
cat >param.yaml <<'Y'
description: {name: param, description: two instances}
env: {variables: {OUTPUT_PATH: ./out}}
global.parameters:
  N: {values: [1, 2], label: N.%%}
study:
  - name: p
    run: {cmd: echo "n=$(N)"}
merlin: {layout: lean}
Y
"$MERLIN" run --local --no-progress param.yaml >/dev/null 2>&1
pws=$(ws_of param)
expect_eq "logs: a step with several instances exits 2" 2 "$(logs_rc "$pws" p 0)"
check "logs: names the instances" grep -q "name one: p/N.1, p/N.2" err.txt
expect_eq "logs: an instance by its directory" "n=2" "$("$MERLIN" logs "$pws" p/N.2 0)"
rm -rf out flags/*

# --- lean by flag, two Redis run-workers processes -----------------------------------------------
start_redis
"$MERLIN" run --lean merlin_layout.yaml >ws.txt 2>queue.err
rws=$(cat ws.txt)
check "run --lean records the layout" grep -qx "layout=lean" "$rws/merlin_info/run.env"
"$MERLIN" run-workers merlin_layout.yaml --exit-when-done --concurrency 2 >w1.out 2>w1.err &
w1=$!
"$MERLIN" run-workers merlin_layout.yaml --exit-when-done --concurrency 2 >w2.out 2>w2.err &
w2=$!
CLEANUP+=("kill -9 $w1 $w2")
wait $w1 || true
wait $w2 || true
"$MERLIN" status "$rws" --format csv >rst.csv
check "redis: sim 199 done, 1 failed" grep -q "^sim,1,$N,$((N - 1)),1," rst.csv
expect_eq "redis: sample dirs hold only the user's outputs" "" \
  "$(find "$rws/sim" -mindepth 2 -type f ! -name result.json ! -path '*/.merlin_logs/*' | head -5)"
check "redis: at most one inode per sample" \
  test "$(merlin_inodes "$rws" sim)" -le $((N + levels_dirs + 1))
bad=0
for s in 0 1 2 3 4 6 7 50 99 150 199; do
  x=$(sed -n "$((s + 1))p" samples.csv | cut -d, -f1)
  [ "$("$MERLIN" logs "$rws" sim "$s" | head -1)" == "sample=$s x=$x" ] || bad=$((bad + 1))
done
expect_eq "redis: merlin logs finds samples run by either worker" 0 "$bad"
expect_eq "redis: the failed sample's stderr" "boom 5" "$("$MERLIN" logs "$rws" sim 5 --err)"
expect_eq "redis: the retried sample's attempts" 2 \
  "$("$MERLIN" logs "$rws" sim 7 --all-attempts | grep -c '^==== merlin: ')"
expect_eq "redis: funnel" "$N" "$("$MERLIN" logs "$rws" funnel 0 | tr -d ' ')"
# The broker loses the study: restart rebuilds it from the task journals (no markers here).
redis-cli -p "$REDIS_PORT" flushall >/dev/null
"$MERLIN" restart "$rws" >r.out 2>r.err
check "redis, study lost: restart keeps the journals' successes (all but sample 5)" \
  grep -q "$((2 * N))/$((2 * N + 1)) tasks finished" r.err
echo "redis: log writers: $(ls "$rws/sim/.merlin_logs" | sed 's/\..*//' | sort -u | wc -l) host(s), $(ls "$rws/sim/.merlin_logs"/*.index | wc -l) index file(s)"
finish
