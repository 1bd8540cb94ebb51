#!/usr/bin/env bash
# `merlin collect` (issue #12, part 3) through the real binary: a sampled study whose samples
# write result.json (scalars and an array) and field.npy; one sample fails, one writes broken
# JSON, one leaves field.npy out. The HDF5 file is read back with h5py, value for value against
# what each sample wrote, with ids, inputs and the status mask. Then: collecting again appends
# nothing; a study still running is collected in two goes (only new samples appended) and with
# --follow; collect as a funnel step of the spec; `merlin sample -o x.h5`; bad input (exit 2,
# the file named and left as it was).
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks

PY=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import h5py, numpy' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
if [ -z "$PY" ]; then
  echo "SKIP: no python3 with h5py and numpy here (apt-get install python3-h5py python3-numpy):"
  echo "SKIP: merlin collect's HDF5 files cannot be checked without them"
  exit 77
fi
export HDF5_USE_FILE_LOCKING=FALSE  # h5py reads a file a running collect holds open

printf '%s\n' "0.5,1.5" "0.25,2" "1,3" "2,4" "3,5.5" "4,6" "1e-3,7" >samples.csv
cat >col.yaml <<Y
description: {name: col, description: collect per-sample outputs}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: simulate
    run:
      cmd: |
        if [ \$(MERLIN_SAMPLE_ID) -eq 2 ]; then exit \$(MERLIN_SOFT_FAIL); fi
        if [ \$(MERLIN_SAMPLE_ID) -eq 4 ]; then echo '{"energy": ' > result.json; exit 0; fi
        while [ -e \$(SPECROOT)/hold\$(MERLIN_SAMPLE_ID) ]; do sleep 0.05; done
        printf '{"energy": %s, "traj": [%s, %s, %s]}\n' \$(X) \$(X) \$(Y) \$(MERLIN_SAMPLE_ID) > result.json
        if [ \$(MERLIN_SAMPLE_ID) -eq 5 ]; then exit 0; fi
        $PY -c "import numpy as np; np.save('field.npy', np.array([[\$(X), \$(Y)], [\$(Y), \$(X)]]))"
  - name: gather
    run:
      cmd: |
        $MERLIN collect \$(MERLIN_WORKSPACE) --step simulate -f result.json -f field.npy -o \$(MERLIN_WORKSPACE)/gathered.h5 --no-progress
        echo \$? > rc.txt
      depends: [simulate_*]
merlin:
  samples:
    file: \$(SPECROOT)/samples.csv
    column_labels: [X, Y]
Y

# check_file FILE ROWS [STUDY]: every row against samples.csv and what its sample wrote.
check_file() {
  "$PY" - "$1" "$2" "${3:-col}" <<'PY'
import sys, math, h5py, numpy as np
path, want_rows, study = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [tuple(float(v) for v in l.split(",")) for l in open("samples.csv").read().split()]
want_status = {2: 2, 4: 3, 5: 0}
bad = []
with h5py.File(path, "r") as f:
    ids = f["sample_ids"][()]
    n = int(f.attrs["rows_committed"])
    if n != want_rows or len(ids) != want_rows: bad.append(f"rows {n}/{len(ids)} != {want_rows}")
    if len(set(ids.tolist())) != len(ids): bad.append(f"an id twice: {ids}")
    if f.attrs["format"] != "merlin-collect" or f.attrs["step"] != "simulate": bad.append("attrs")
    if list(f.attrs["files"]) != ["result.json", "field.npy"]: bad.append(f"files {f.attrs['files']}")
    if list(f["inputs"].attrs["columns"]) != ["X", "Y"]: bad.append("input columns")
    if f"name: {study}," not in f.attrs["spec"] or f.attrs["study"] != study: bad.append("spec/study")
    for key in ("merlin_version", "hdf5_version", "created", "updated"):
        if not f.attrs[key]: bad.append("no " + key)
    st, inp = f["status"][()], f["inputs"][()]
    e, traj, fld = f["fields/result/energy"][()], f["fields/result/traj"][()], f["fields/field"][()]
    if traj.shape[1:] != (3,) or fld.shape[1:] != (2, 2): bad.append(f"shapes {traj.shape} {fld.shape}")
    for r, i in enumerate(ids.tolist()):
        x, y = rows[i]
        if list(inp[r]) != [x, y]: bad.append(f"inputs of {i}: {inp[r]}")
        s = want_status.get(i, 1)
        if st[r] != s: bad.append(f"status of {i}: {st[r]} != {s}")
        if s == 1:
            if e[r] != x or list(traj[r]) != [x, y, i] or fld[r].tolist() != [[x, y], [y, x]]:
                bad.append(f"values of {i}: {e[r]} {traj[r]} {fld[r]}")
        elif not (math.isnan(e[r]) and np.isnan(traj[r]).all() and np.isnan(fld[r]).all()):
            bad.append(f"sample {i} (status {s}) has values")
print("\n".join(bad) if bad else "ok")
PY
}
rows_of() { "$PY" -c "import h5py,sys; print(int(h5py.File(sys.argv[1],'r').attrs['rows_committed']))" "$1"; }

# 1. A finished study: collected by its funnel step and from the command line.
"$MERLIN" run --local --no-progress col.yaml >run.out 2>&1
expect_eq "the study runs (one sample soft-fails: exit 1)" 1 $?
ws=$(ls -d "$WORK"/studies/col_*)
"$MERLIN" collect "$ws" --step simulate -f result.json -f field.npy -o out.h5 >c1.out 2>c1.err
expect_eq "collect exits 1: some samples are not ok (they are written)" 1 $?
expect_eq "the file holds every sample, value for value" ok "$(check_file out.h5 7)"
check "a warning names the failed sample" grep -q "sample 2 (.*simulate/02): the step failed" c1.err
check "a warning names the malformed sample and its file" grep -q "sample 4 (.*simulate/04): result.json: not valid JSON" c1.err
check "a warning names the missing output" grep -q "sample 5 (.*simulate/05): field.npy: no such file" c1.err
check "the summary counts each status" grep -q "7 rows appended to out.h5 (4 ok, 1 failed, 1 malformed, 1 missing output)" c1.err
for j in 1 4; do
  "$MERLIN" collect "$ws" --step simulate -f result.json -f field.npy -o j$j.h5 -j $j --batch 2 >/dev/null 2>&1
  expect_eq "with $j reader threads and batches of 2 rows: the same rows" ok "$(check_file j$j.h5 7)"
done
expect_eq "the funnel step's collect wrote the same rows" ok "$(check_file "$ws/gathered.h5" 7)"
expect_eq "the funnel step's collect exited 1 (not all ok)" 1 "$(cat "$ws/gather/rc.txt")"
sum1=$(md5sum out.h5)
"$MERLIN" collect "$ws" --step simulate -f result.json -f field.npy -o out.h5 >c2.out 2>c2.err
expect_eq "collecting again: exit 0 (nothing new, nothing bad)" 0 $?
check "collecting again appends nothing" grep -q "0 rows appended to out.h5" c2.err
expect_eq "collecting again leaves the file as it was" "$sum1" "$(md5sum out.h5)"
expect_eq "and leaves no temporary file" "" "$(ls -A | grep '\.tmp\.')"

# 2. A study still running: sample 6 held. Collect now, then again when it finished.
mkdir run2 && cp samples.csv run2/ && sed 's/name: col,/name: col2,/' col.yaml >run2/col.yaml
touch run2/hold6
(cd run2 && exec "$MERLIN" run --local --no-progress col.yaml >run.out 2>&1) &
RUN=$!
CLEANUP+=("rm -f $WORK/run2/hold6; kill $RUN")
ws2=""
wait_until 60 bash -c "ls -d '$WORK'/run2/studies/col2_* >/dev/null 2>&1"
ws2=$(ls -d "$WORK"/run2/studies/col2_* 2>/dev/null)
check "six samples finish, sample 6 is held" wait_until 60 bash -c \
  "'$MERLIN' status '$ws2' --format csv 2>/dev/null | awk -F, '\$1 == \"simulate\" && \$4 + \$5 == 6 { ok = 1 } END { exit !ok }'"
"$MERLIN" collect "$ws2" --step simulate -f result.json -f field.npy -o part.h5 >p1.out 2>p1.err
check "a running study: the finished samples are collected" grep -q "6 rows appended to part.h5.*1 not finished yet" p1.err
expect_eq "a running study: six rows" 6 "$(rows_of part.h5)"
# --follow on a new file while sample 6 is held: it appends the six, then waits.
"$MERLIN" collect "$ws2" --step simulate -f result.json -f field.npy -o follow.h5 --follow --poll 100ms >f.out 2>f.err &
FOLLOW=$!
CLEANUP+=("kill $FOLLOW")
check "--follow makes the file with what finished" wait_until 60 test -e follow.h5
check "--follow still waits for sample 6" kill -0 $FOLLOW
rm -f run2/hold6
wait $RUN
wait $FOLLOW
expect_eq "--follow ends when the step is complete (exit 1: not all ok)" 1 $?
expect_eq "--follow collected every sample once" ok "$(check_file follow.h5 7 col2)"
# An append cut short (rows written, rows_committed not moved on): two rows of garbage.
"$PY" - <<'PY'
import h5py
with h5py.File("part.h5", "r+") as f:
    def grow(name, obj):
        if isinstance(obj, h5py.Dataset):
            obj.resize(obj.shape[0] + 2, axis=0)
            obj[-2:] = 6 if name == "sample_ids" else 1
    f.visititems(grow)
PY
"$MERLIN" collect "$ws2" --step simulate -f result.json -f field.npy -o part.h5 >p2.out 2>p2.err
check "collecting the finished study appends only the new sample" grep -q "1 rows appended to part.h5 (1 ok" p2.err
expect_eq "the two goes make the whole study, each sample once, the uncommitted rows dropped" ok "$(check_file part.h5 7 col2)"

# 3. merlin sample -o x.h5: the rows of the .npy, with the column labels.
"$MERLIN" sample -n 500 -m lhs -c X=0:1 -c K=1e-3:1:log -s 4 -o s.npy 2>/dev/null
"$MERLIN" sample -n 500 -m lhs -c X=0:1 -c K=1e-3:1:log -s 4 -o s.h5 2>/dev/null
expect_eq "sample -o x.h5 exits 0" 0 $?
expect_eq "sample -o x.h5: the .npy's rows, labelled" "True ['X', 'K']" "$("$PY" -c "
import h5py, numpy as np
f = h5py.File('s.h5', 'r')
print(np.array_equal(f['samples'][()], np.load('s.npy')), list(f['samples'].attrs['column_labels']))")"

# 4. Bad input: exit 2, a message naming the file or step, nothing changed.
"$PY" -c "import h5py; h5py.File('foreign.h5', 'w').attrs['title'] = 'not ours'"
sumf=$(md5sum foreign.h5)
"$MERLIN" collect "$ws" --step simulate -f result.json -o foreign.h5 >/dev/null 2>err.txt
expect_eq "a foreign HDF5 file: exit 2" 2 $?
check "a foreign HDF5 file: named" grep -q "foreign.h5: not a dataset of merlin collect" err.txt
expect_eq "a foreign HDF5 file: untouched" "$sumf" "$(md5sum foreign.h5)"
echo "some text" >text.h5
"$MERLIN" collect "$ws" --step simulate -f result.json -o text.h5 >/dev/null 2>err.txt
expect_eq "a text file as output: exit 2" 2 $?
check "a text file as output: named" grep -q "text.h5: not an HDF5 file" err.txt
"$MERLIN" collect "$ws" --step simulate -f result.json -o out.h5 >/dev/null 2>err.txt
expect_eq "our file of other fields: exit 2" 2 $?
check "our file of other fields: says which" grep -q "out.h5: it holds the files \[result.json, field.npy\], not \[result.json\]" err.txt
expect_eq "our file of other fields: untouched" "$sum1" "$(md5sum out.h5)"
"$MERLIN" collect "$ws" --step simulte -f result.json -o new.h5 >/dev/null 2>err.txt
expect_eq "a missing step: exit 2" 2 $?
check "a missing step: named, with a suggestion" grep -q "simulte: the study has no such step.*simulate" err.txt
"$MERLIN" collect "$ws" --step gather -f result.json -o new.h5 >/dev/null 2>err.txt
expect_eq "a step that is not sampled: exit 2" 2 $?
check "a step that is not sampled: said" grep -q "gather: not a sampled step" err.txt
"$MERLIN" collect "$ws" --step simulate -f result.json -o "$WORK/no/such/dir/new.h5" >/dev/null 2>err.txt
expect_eq "an output directory that does not exist: exit 2" 2 $?
check "an output directory that does not exist: named" grep -q "no/such/dir/new.h5: no directory" err.txt
if [ "$(id -u)" != 0 ]; then
  mkdir ro && chmod 555 ro
  "$MERLIN" collect "$ws" --step simulate -f result.json -o ro/new.h5 >/dev/null 2>err.txt
  expect_eq "an unwritable output directory: exit 2" 2 $?
  check "an unwritable output directory: named" grep -q "ro/new.h5: cannot write in ro" err.txt
fi
"$MERLIN" collect "$WORK" --step simulate -f result.json -o new.h5 >/dev/null 2>err.txt
expect_eq "not a workspace: exit 2" 2 $?
"$MERLIN" collect "$ws" --step simulate -f result.txt -o new.h5 >/dev/null 2>err.txt
expect_eq "an output kind it cannot read: exit 2" 2 $?
check "nothing was made by the refused collects" test ! -e new.h5 -a ! -e ro/new.h5
finish
