#!/usr/bin/env bash
# `merlin collect` on hostile per-sample outputs (issue #25, item 7): JSON nested 30,000 deep,
# a result.json linked to /dev/zero, a FIFO, a directory and a file above the size cap. Each
# makes its sample's row malformed with a reason; the collect itself never crashes, never
# hangs (every run is under `timeout`) and never takes unbounded memory (under `ulimit -v`).
source "$(dirname "$0")/lib.sh"
set +e

need_python h5py numpy  # sets PY, or skips
ulimit -f 100000  # KB

seq 0 7 >samples.csv
cat >hostile.yaml <<'Y'
description: {name: hostile, description: outputs that are not what they seem}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: simulate
    run:
      cmd: |
        case $(MERLIN_SAMPLE_ID) in
          1) { head -c 30000 /dev/zero | tr '\0' '['; head -c 30000 /dev/zero | tr '\0' ']'; } > result.json ;;
          2) ln -s /dev/zero result.json ;;
          3) mkfifo result.json ;;
          4) mkdir result.json ;;
          5) { head -c 100000 /dev/zero | tr '\0' ' '; printf '{"e": 5}\n'; } > result.json ;;
          6) ln -s ../00/result.json result.json ;;
          *) printf '{"e": %s}\n' $(MERLIN_SAMPLE_ID) > result.json ;;
        esac
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [K]
Y
"$MERLIN" run --local --no-progress hostile.yaml >run.out 2>&1
expect_eq "the study runs" 0 $?
ws=$(ls -d "$WORK"/studies/hostile_*)

statuses() {
  "$PY" -c "
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
ids, st, e = f['sample_ids'][()], f['status'][()], f['fields/result/e'][()]
# e is an integer field (int64): rows without a value are flagged in its mask, shown as nan.
gone = f['missing/result/e'][()].astype(bool)
o = np.argsort(ids)
print(' '.join('%d:%d:%s' % (i, s, 'nan' if g else '%g' % v)
               for i, s, v, g in zip(ids[o], st[o], e[o], gone[o])))" "$1"
}

for j in 1 4; do
  (ulimit -v 4000000; exec timeout 60 "$MERLIN" collect "$ws" --step simulate -f result.json \
    -o out$j.h5 -j $j --max-output-size 64K --no-progress) >c.out 2>c$j.err
  expect_eq "-j $j: collect ends by itself, exit 1 (rows not ok)" 1 $?
  expect_eq "-j $j: the hostile samples are malformed rows, the others ok" \
    "0:1:0 1:3:nan 2:3:nan 3:3:nan 4:3:nan 5:3:nan 6:1:0 7:1:7" "$(statuses out$j.h5)"
done
check "deep nesting: the reason" grep -q "sample 1 (.*): result.json: nested more than 64 levels deep" c1.err
check "/dev/zero: the reason" grep -q "sample 2 (.*): result.json: not a regular file (a character device); merlin collect reads only regular files" c1.err
check "a FIFO: the reason" grep -q "sample 3 (.*): result.json: not a regular file (a FIFO)" c1.err
check "a directory: the reason" grep -q "sample 4 (.*): result.json: not a regular file (a directory)" c1.err
check "above the cap: the reason and the way out" grep -q "sample 5 (.*): result.json: 100009 bytes, more than --max-output-size 65536 bytes (raise it to read this file)" c1.err

# The cap raised: the large file reads.
(ulimit -v 4000000; exec timeout 60 "$MERLIN" collect "$ws" --step simulate -f result.json \
  -o big.h5 --max-output-size 1M --no-progress) >c.out 2>big.err
expect_eq "--max-output-size 1M: exit 1" 1 $?
expect_eq "--max-output-size 1M: sample 5 reads" \
  "0:1:0 1:3:nan 2:3:nan 3:3:nan 4:3:nan 5:1:5 6:1:0 7:1:7" "$(statuses big.h5)"

# A bad cap is bad input.
"$MERLIN" collect "$ws" --step simulate -f result.json -o bad.h5 --max-output-size 12Q >/dev/null 2>err.txt
expect_eq "--max-output-size 12Q: exit 2" 2 $?
check "--max-output-size 12Q: says what it takes" grep -q -- "--max-output-size 12Q: a size such as" err.txt
finish
