#!/usr/bin/env bash
# `merlin collect -o` onto a damaged existing file (issue #25, item 8). A real collected file
# (rows_committed set back to 4 of 7, so that collecting onto it also writes) gets bytes
# changed: 40 copies, deterministic seeds, half anywhere in the file and half inside HDF5's own
# structures (mostly the global heap of the text attributes; object headers, B-trees). Collecting
# onto each must end by itself with exit 0 (the change missed what is read; the file then
# holds all 7 rows) or exit 2 naming the file; never a signal, and no HDF5 error stack on the
# terminal.
source "$(dirname "$0")/lib.sh"
set +e

need_python h5py numpy  # sets PY, or skips
ulimit -f 100000  # KB

seq 0 6 >samples.csv
cat >dmg.yaml <<'Y'
description: {name: dmg, description: a dataset to damage}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: simulate
    run:
      cmd: |
        printf '{"e": %s, "v": [1, 2, %s]}\n' $(K) $(MERLIN_SAMPLE_ID) > result.json
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [K]
Y
"$MERLIN" run --local --no-progress dmg.yaml >run.out 2>&1
expect_eq "the study runs" 0 $?
ws=$(ls -d "$WORK"/studies/dmg_*)
"$MERLIN" collect "$ws" --step simulate -f result.json -o base.h5 --no-progress >/dev/null 2>&1
expect_eq "the base file is collected" 0 $?
"$PY" -c "import h5py; h5py.File('base.h5', 'r+').attrs.modify('rows_committed', 4)"

"$PY" - <<'PY'
import random, re
data = open("base.h5", "rb").read()
heap = [m.start() for m in re.finditer(rb"GCOL", data)]
sigs = [m.start() for m in re.finditer(rb"OHDR|OCHK|TREE|HEAP|SNOD|BTHD|BTLF|BTIN|FRHP|FHDB|FHIB|EAHD|EAIB|EADB|FAHD|FADB|\x89HDF", data)]
for seed in range(40):
    rnd = random.Random(seed)
    b = bytearray(data)
    # Even seeds: anywhere. Odd: the global heap (the text attributes, where a damaged file
    # crashed libhdf5 in H5HG_read), or one of HDF5's other structures every fourth seed.
    where = None if seed % 2 == 0 else (sigs if seed % 4 == 3 else heap) or sigs
    for _ in range(rnd.randint(1, 3)):
        if not where:
            pos = rnd.randrange(len(b))
        else:
            pos = min(len(b) - 1, rnd.choice(where) + rnd.randrange(8, 120))
        b[pos] = rnd.randrange(256)
    open("m%02d.h5" % seed, "wb").write(bytes(b))
PY

rows7() { "$PY" -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
n = int(f.attrs['rows_committed'])
print(n, sorted(f['sample_ids'][:n].tolist()) == list(range(7)))" "$1" 2>/dev/null; }

cp base.h5 pristine.h5
"$MERLIN" collect "$ws" --step simulate -f result.json -o pristine.h5 --no-progress >/dev/null 2>err.txt
expect_eq "the undamaged copy: exit 0" 0 $?
expect_eq "the undamaged copy: the three rows past rows_committed written again" "7 True" "$(rows7 pristine.h5)"

signals=0 bad=0 named=0 ok=0 unnamed=0 stack=0
for i in $(seq -w 0 39); do
  (ulimit -v 4000000; exec timeout 60 "$MERLIN" collect "$ws" --step simulate -f result.json \
    -o m$i.h5 --no-progress) >/dev/null 2>e$i.txt
  rc=$?
  grep -q "HDF5-DIAG" e$i.txt && stack=$((stack + 1))
  case $rc in
    0) if [ "$(rows7 m$i.h5)" = "7 True" ]; then ok=$((ok + 1)); else bad=$((bad + 1)); echo "m$i.h5: exit 0 but not 7 rows"; fi ;;
    2) if grep -q "m$i.h5" e$i.txt; then named=$((named + 1)); else unnamed=$((unnamed + 1)); echo "m$i.h5: exit 2 without its name: $(head -c 300 e$i.txt)"; fi ;;
    *) signals=$((signals + 1)); echo "m$i.h5: exit $rc: $(tail -c 300 e$i.txt)" ;;
  esac
done
echo "40 damaged files: $ok exit 0 with 7 rows, $named exit 2 naming the file"
expect_eq "no collect died of a signal, hung or exited other than 0 or 2" 0 $signals
expect_eq "every exit 0 left a file of 7 rows" 0 $bad
expect_eq "every exit 2 named the file" 0 $unnamed
expect_eq "no HDF5 error stack on the terminal" 0 $stack
check "some damage was found (exit 2)" test $named -gt 0
finish
