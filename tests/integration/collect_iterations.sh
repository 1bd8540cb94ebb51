#!/usr/bin/env bash
# `merlin collect` of a step in a loop that takes its samples from a file (docs/collect.md,
# "Loops and fan-out steps"): an active-learning shape. Each of 3 loop iterations proposes its
# own small CSV, a samples_from step simulates each row (result.json), the decider loops back
# twice (the bound is 5: iterations 4 and 5 are skipped). Checked with h5py: a row per sample
# of every iteration, the /iteration column, inputs as each iteration's CSV, fields; a second
# collect is a no-op; a collect while iteration 3 is held, then one after it finished, gives
# the same dataset as one collect at the end; --follow ends with the loop. Bad cases: a fan-out
# iteration whose file is refused (exit 1, named), a parameterised step and a file of another
# layout (exit 2). A sampled step in a loop without samples_from is collected too.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
ulimit -f 200000  # KB: the files here are a few KB

PY=/usr/bin/python3
if ! "$PY" -c 'import h5py, numpy' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 has no h5py/numpy (apt-get install python3-h5py python3-numpy)"
  exit 77
fi
export HDF5_USE_FILE_LOCKING=FALSE  # h5py reads a file a running collect holds open

# Iteration i proposes rows "i.<k>,<k*10+i>" for k = 1 .. (2, 4, 3)[i-1].
cat >al.yaml <<Y
description: {name: al, description: active learning as one study}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: propose
    run:
      cmd: |
        while [ -e \$(SPECROOT)/hold\$(MERLIN_ITERATION) ]; do sleep 0.05; done
        n=\$(echo 2 4 3 | cut -d' ' -f\$(MERLIN_ITERATION))
        if [ -e \$(SPECROOT)/empty\$(MERLIN_ITERATION) ]; then : > next.csv; exit 0; fi
        for k in \$(seq 1 \$n); do echo "\$(MERLIN_ITERATION).\$k,\$((k * 10 + \$(MERLIN_ITERATION)))"; done > next.csv
  - name: sim
    run:
      cmd: |
        printf '{"y": %s, "v": [%s, %s]}\n' \$((\$(B) * 2)) \$(B) \$(MERLIN_ITERATION) > result.json
      depends: [propose]
      samples_from:
        file: \$(propose.workspace)/next.csv
        column_labels: [A, B]
  - name: decide
    run:
      cmd: if [ \$(MERLIN_ITERATION) -lt 3 ]; then touch MERLIN_LOOP_AGAIN; fi
      depends: [sim]
      loop:
        back_to: propose
        max_iterations: 5
Y

# check FILE: every row against the CSV its iteration proposed, sorted by (iteration, id).
check_file() {
  "$PY" - "$1" "$2" <<'PY'
import sys, glob, h5py, numpy as np
path, ws = sys.argv[1], sys.argv[2]
bad = []
with h5py.File(path, "r") as f:
    n = int(f.attrs["rows_committed"])
    ids, it = f["sample_ids"][:n], f["iteration"][:n]
    st, X = f["status"][:n], f["inputs"][:n]
    y, v = f["fields/result/y"][:n], f["fields/result/v"][:n]
    cols = [c.decode() if isinstance(c, bytes) else c for c in f["inputs"].attrs["columns"]]
    if cols != ["A", "B"]: bad.append("columns %r" % cols)
    if f["iteration"].dtype != np.uint32: bad.append("iteration dtype %s" % f["iteration"].dtype)
want = {}
for i in (1, 2, 3):
    rows = [l.split(",") for l in open("%s/propose/iter.%d/next.csv" % (ws, i)).read().split()]
    for k, (a, b) in enumerate(rows):
        want[(i, k)] = (float(a), float(b))
got = sorted(zip(it.tolist(), ids.tolist()))
if got != sorted(want): bad.append("rows %r, not %r" % (got, sorted(want)))
if len(set(got)) != len(got): bad.append("a row twice")
for r in range(n):
    a, b = want.get((int(it[r]), int(ids[r])), (None, None))
    if st[r] != 1: bad.append("row %d status %d" % (r, st[r]))
    if a is None or X[r][0] != a or X[r][1] != b: bad.append("row %d inputs %r" % (r, X[r]))
    elif y[r] != 2 * b: bad.append("row %d y %r" % (r, y[r]))
    elif list(v[r]) != [b, it[r]]: bad.append("row %d v %r" % (r, v[r]))
print("ok" if not bad else "; ".join(bad[:5]))
PY
}
# The rows of a file, sorted by (iteration, id), as text: two files of the same rows compare equal.
rows_text() {
  "$PY" - "$1" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    n = int(f.attrs["rows_committed"])
    cols = [f["iteration"][:n], f["sample_ids"][:n], f["status"][:n], f["inputs"][:n]]
    cols += [f["fields/" + k][:n] for k in sorted(f.attrs["fields"])]
    rows = sorted(tuple(repr(c[r].tolist()) for c in cols) for r in range(n))
print("\n".join(" ".join(r) for r in rows))
PY
}
iterations_of() { "$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(' '.join(str(i) for i in f['iteration'][:int(f.attrs['rows_committed'])]))" "$1"; }

# 1. A finished study: 2 + 4 + 3 rows, iterations 1 to 3.
"$MERLIN" run --local --no-progress al.yaml >run.out 2>&1
expect_eq "the study runs" 0 $?
ws=$(ls -d "$WORK"/studies/al_*)
check "three iterations ran, the fourth was skipped" test -d "$ws/sim/iter.3" -a ! -d "$ws/sim/iter.4"
"$MERLIN" collect "$ws" --step sim -f result.json -o all.h5 >c1.out 2>c1.err
expect_eq "collect of a loop's fan-out step: exit 0" 0 $?
cat c1.err | tail -2
check "the summary counts every iteration's samples" grep -q "9 rows appended to all.h5 (9 ok.*9 samples in the step's 3 iterations so far" c1.err
expect_eq "a row per sample of every iteration, inputs as its CSV" ok "$(check_file all.h5 "$ws")"
expect_eq "the iteration column, in the order collected" "1 1 2 2 2 2 3 3 3" "$(iterations_of all.h5)"
sum1=$(md5sum all.h5)
"$MERLIN" collect "$ws" --step sim -f result.json -o all.h5 >c2.out 2>c2.err
expect_eq "collecting again: exit 0" 0 $?
check "collecting again appends nothing" grep -q "0 rows appended to all.h5" c2.err
expect_eq "collecting again leaves the file as it was" "$sum1" "$(md5sum all.h5)"
"$MERLIN" collect "$ws" --step sim -f result.json -o j1.h5 -j 1 --batch 2 >/dev/null 2>&1
expect_eq "one reader thread, batches of 2: the same rows" "$(rows_text all.h5)" "$(rows_text j1.h5)"

# 2. A study still running: iteration 3's proposal held. Collect iterations 1-2, then the rest.
mkdir run2 && sed 's/name: al,/name: al2,/' al.yaml >run2/al.yaml && touch run2/hold3
(cd run2 && exec "$MERLIN" run --local --no-progress al.yaml >run.out 2>&1) &
RUN=$!
CLEANUP+=("rm -f $WORK/run2/hold3; kill $RUN")
wait_until 60 bash -c "ls -d '$WORK'/run2/studies/al2_* >/dev/null 2>&1"
ws2=$(ls -d "$WORK"/run2/studies/al2_* 2>/dev/null)
check "iterations 1 and 2 finish, iteration 3 is held" wait_until 60 test -e "$ws2/decide/iter.2/MERLIN_LOOP_AGAIN"
"$MERLIN" collect "$ws2" --step sim -f result.json -o part.h5 >p1.out 2>p1.err
expect_eq "collect while the loop runs: exit 0" 0 $?
check "the finished iterations are collected" grep -q "6 rows appended to part.h5.*6 samples in the step's 2 iterations so far" p1.err
expect_eq "iterations 1 and 2 only" "1 1 2 2 2 2" "$(iterations_of part.h5)"
"$MERLIN" collect "$ws2" --step sim -f result.json -o follow.h5 --follow --poll 100ms >f.out 2>f.err &
FOLLOW=$!
CLEANUP+=("kill $FOLLOW")
check "--follow makes the file with what finished" wait_until 60 test -e follow.h5
sleep 0.5
check "--follow waits for the iterations to come" kill -0 $FOLLOW
rm -f run2/hold3
wait $RUN
expect_eq "the held study finishes" 0 $?
"$MERLIN" collect "$ws2" --step sim -f result.json -o part.h5 >p2.out 2>p2.err
expect_eq "collect after the loop ended: exit 0" 0 $?
check "only iteration 3's rows are appended" grep -q "3 rows appended to part.h5.*9 rows in the file" p2.err
expect_eq "collected in two goes: the same dataset as one collect at the end" ok "$(check_file part.h5 "$ws2")"
"$MERLIN" collect "$ws2" --step sim -f result.json -o once.h5 >/dev/null 2>&1
expect_eq "two goes and one go: the same rows" "$(rows_text once.h5)" "$(rows_text part.h5)"
wait_until 60 bash -c "! kill -0 $FOLLOW 2>/dev/null"
wait $FOLLOW
expect_eq "--follow ends once the loop stopped (exit 0)" 0 $?
expect_eq "--follow collected every iteration once" "$(rows_text once.h5)" "$(rows_text follow.h5)"

# 3. A proposal the fan-out refuses (iteration 2 writes an empty CSV): its iteration has no
# rows, the others are collected, exit 1 naming it.
mkdir run3 && sed 's/name: al,/name: al3,/' al.yaml >run3/al.yaml && touch run3/empty2
(cd run3 && "$MERLIN" run --local --no-progress al.yaml >run.out 2>&1)
ws3=$(ls -d "$WORK"/run3/studies/al3_*)
"$MERLIN" collect "$ws3" --step sim -f result.json -o bad.h5 >b.out 2>b.err
expect_eq "an iteration whose samples file was refused: exit 1" 1 $?
check "a warning names the iteration and why" grep -q "iteration 2 of step sim has no rows: .*empty" b.err
check "the summary counts it" grep -q "1 iteration has no rows: the step could not read its samples_from file" b.err
expect_eq "the other iterations' rows are there (its decider looped on)" "1 1 3 3 3" "$(iterations_of bad.h5)"

# 4. A loop step without samples_from: the study's samples again in every iteration (2 here).
printf '%s\n' "0.5,1" "1.5,2" "2.5,3" >samples.csv
cat >loop.yaml <<Y
description: {name: lp, description: a sampled step in a loop}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: sim
    run:
      cmd: |
        printf '{"y": %s}\n' \$((\$(B) * 10 + \$(MERLIN_ITERATION))) > result.json
  - name: decide
    run:
      cmd: if [ \$(MERLIN_ITERATION) -lt 2 ]; then touch MERLIN_LOOP_AGAIN; fi
      depends: [sim_*]
      loop:
        back_to: sim
        max_iterations: 3
merlin:
  samples:
    file: \$(SPECROOT)/samples.csv
    column_labels: [A, B]
Y
mkdir runl && cp loop.yaml samples.csv runl/ && (cd runl && "$MERLIN" run --local --no-progress loop.yaml >run.out 2>&1)
wsl=$(ls -d "$WORK"/runl/studies/lp_*)
"$MERLIN" collect "$wsl" --step sim -f result.json -o loop.h5 >l.out 2>l.err
expect_eq "a sampled step in a loop: exit 0" 0 $?
expect_eq "its rows: the study's samples in iterations 1 and 2" \
  "1 0 0.5 1.0 11.0|1 1 1.5 2.0 21.0|1 2 2.5 3.0 31.0|2 0 0.5 1.0 12.0|2 1 1.5 2.0 22.0|2 2 2.5 3.0 32.0" \
  "$("$PY" - loop.h5 <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    n = int(f.attrs["rows_committed"])
    rows = sorted((int(f["iteration"][r]), int(f["sample_ids"][r]), *f["inputs"][r].tolist(),
                   float(f["fields/result/y"][r])) for r in range(n))
print("|".join(" ".join(str(v) for v in row) for row in rows))
PY
)"

# 5. Bad input: exit 2, the file left as it was.
"$MERLIN" collect "$ws" --step decide -f result.json -o x.h5 >/dev/null 2>x.err
expect_eq "an unsampled step in the loop: exit 2" 2 $?
check "it says why" grep -q "not a sampled step" x.err
sed -e 's/name: al,/name: alp,/' -e 's/^study:/global.parameters:\n  P: {values: [1, 2], label: P.%%}\nstudy:/' \
  -e 's/printf .{"y"/test $(P) \&\& &/' al.yaml >alp.yaml
mkdir runp && cp alp.yaml runp/ && (cd runp && "$MERLIN" run --local --no-progress --dry alp.yaml >/dev/null 2>&1)
wsp=$(ls -d "$WORK"/runp/studies/alp_* 2>/dev/null | head -1)
if [ -n "$wsp" ]; then
  "$MERLIN" collect "$wsp" --step sim -f result.json -o p.h5 >/dev/null 2>p.err
  expect_eq "a parameterised loop step: exit 2" 2 $?
  check "it says so" grep -q "parameter combinations in each loop iteration; merlin collect takes a step of one" p.err
fi
sum_c=$(md5sum all.h5)
"$MERLIN" collect "$ws" --step sim -f other.json -o all.h5 >/dev/null 2>c3.err
expect_eq "other files onto a loop step's file: exit 2" 2 $?
check "it names the difference" grep -q "it holds the files \[result.json\], not \[other.json\]" c3.err
expect_eq "the file is left as it was" "$sum_c" "$(md5sum all.h5)"
finish
