#!/usr/bin/env bash
# `merlin collect --follow` read live: a generator commits 10^4 samples of a laid-out study
# (their result.json, then their journal record, as a local run does, ~500 a second) while
# collect --follow appends them in batches (SWMR writing), and an h5py reader opened with
# swmr=True reads the file 1,000 times meanwhile. Every read must succeed, the row count never
# goes down, and every row read holds its sample's values. Then: the journal bytes the polls
# read (--log-level debug); a collect killed mid-append, after which the next collect
# recovers the file and appends the rest.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
ulimit -f $((512 * 1024))  # KiB: no file above 512 MiB

PY=/usr/bin/python3
if ! "$PY" -c 'import h5py, numpy' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 has no h5py/numpy (apt-get install python3-h5py python3-numpy)"
  exit 77
fi
N=${LIVE_SAMPLES:-10000}
READS=${LIVE_READS:-1000}

"$PY" -c "
for i in range($N): print(f'{i * 0.5},{i % 7}')" >samples.csv
cat >live.yaml <<Y
description: {name: live, description: samples collected while they run}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: simulate
    run:
      cmd: |
        printf '{"x": %s, "id": %s, "v": [%s, %s]}\n' \$(X) \$(MERLIN_SAMPLE_ID) \$(Y) \$(X) > result.json
merlin:
  samples:
    file: \$(SPECROOT)/samples.csv
    column_labels: [X, Y]
Y

"$MERLIN" run --local --dry live.yaml >run.out 2>&1
ws=$(ls -d "$WORK"/studies/live_* 2>/dev/null)
if [ -z "$ws" ]; then fail "the study was not laid out: $(head -3 run.out)"; finish; exit 1; fi
# The generator: sample i's directory is its base-25 digits (level_max_dirs 25, 3 levels for
# 10^4 samples); a record per sample in merlin_info/merlin.journal (journal.h's layout).
(exec timeout 240 "$PY" - "$ws" "$N" >gen.out 2>&1 <<'PY'
import os, struct, sys, time
ws, n = sys.argv[1], int(sys.argv[2])
levels = 0
while 25 ** levels < n: levels += 1
j = open(os.path.join(ws, "merlin_info", "merlin.journal"), "ab", buffering=0)
if j.tell() == 0: j.write(b"MRLNJRN1" + struct.pack("<II", 1, 0))
for i in range(n):
    digits = [(i // 25 ** k) % 25 for k in reversed(range(levels))]
    d = os.path.join(ws, "simulate", *[f"{x:02d}" for x in digits])
    os.makedirs(d, exist_ok=True)
    x, y = i * 0.5, i % 7
    with open(os.path.join(d, "result.json"), "w") as f:
        f.write('{"x": %r, "id": %d, "v": [%r, %r]}\n' % (x, i, float(y), x))
    j.write(struct.pack("<IIQBBBBf", 0, int(time.time()), i, 0, 0, 0, 0, 0.01))
    if i % 50 == 49: time.sleep(0.1)
print("generated", n)
PY
) &
RUN=$!
CLEANUP+=("kill $RUN")

(exec timeout 240 "$MERLIN" collect "$ws" --step simulate -f result.json -o live.h5 --follow \
  --poll 100ms --batch 64 --no-progress --log-level debug >c.out 2>c.err) &
COLLECT=$!
CLEANUP+=("kill $COLLECT")

# The reader: opens with SWMR as soon as the file is there, then reads it $READS times (a
# fresh open every 100 reads), each time: /sample_ids' length (the rows it may read), then
# every dataset's first rows, checked against what each sample wrote.
timeout 300 "$PY" - live.h5 "$READS" "$N" $COLLECT >reader.out 2>reader.err <<'PY'
import os, sys, time, traceback
import h5py, numpy as np
path, reads, total, writer = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
deadline = time.time() + 120
while not os.path.exists(path) and time.time() < deadline:
    time.sleep(0.01)
failures, last, done, while_writing, checked = 0, 0, 0, 0, 0
kinds = {}
f = None
while done < reads:
    try:
        if f is None or done % 100 == 0:
            if f is not None:
                f.close()
            f = h5py.File(path, "r", libver="latest", swmr=True)
        ids_ds = f["sample_ids"]
        ids_ds.refresh()
        n = ids_ds.shape[0]
        if n < last:
            raise AssertionError(f"rows went down: {last} -> {n}")
        last = n
        ds = [f["status"], f["inputs"], f["fields/result/x"], f["fields/result/id"],
              f["fields/result/v"]]
        for d in ds:
            d.refresh()
            if d.shape[0] < n:
                raise AssertionError(f"{d.name} has {d.shape[0]} rows, /sample_ids {n}")
        ids = ids_ds[:n]
        st, inp, x, i, v = (d[:n] for d in ds)
        if len(set(ids.tolist())) != n:
            raise AssertionError("an id twice")
        want_x = ids * 0.5
        if not (np.all(st == 1) and np.array_equal(inp[:, 0], want_x) and
                np.array_equal(inp[:, 1], ids % 7) and np.array_equal(x, want_x) and
                np.array_equal(i, ids) and np.array_equal(v[:, 0], ids % 7) and
                np.array_equal(v[:, 1], want_x)):
            raise AssertionError("a row's values are not its sample's")
        checked += n
        try:
            os.kill(writer, 0)
            while_writing += 1
        except OSError:
            pass
    except Exception as e:
        failures += 1
        kinds[type(e).__name__ + ": " + str(e)[:80]] = kinds.get(type(e).__name__ + ": " + str(e)[:80], 0) + 1
        if failures <= 3:
            traceback.print_exc()
        f = None
    done += 1
    time.sleep(0.005)
print(f"reads={done} failures={failures} while_writing={while_writing} last_rows={last} "
      f"rows_checked={checked} errors={kinds}")
PY
echo "reader: $(cat reader.out)"
head -20 reader.err
wait $RUN
expect_eq "the generator committed every sample" 0 $?
wait $COLLECT
expect_eq "--follow ended with every sample ok (exit 0)" 0 $?
reads=$(sed -n 's/.*reads=\([0-9]*\).*/\1/p' reader.out)
failures=$(sed -n 's/.*failures=\([0-9]*\).*/\1/p' reader.out)
writing=$(sed -n 's/.*while_writing=\([0-9]*\).*/\1/p' reader.out)
expect_eq "the reader read $READS times" "$READS" "$reads"
expect_eq "no read failed (swmr=True while collect appended)" 0 "$failures"
check "the reader read while collect was appending ($writing of $reads reads)" test "${writing:-0}" -gt 0
rows=$("$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(len(f['sample_ids']), int(f.attrs['rows_committed']))" live.h5)
expect_eq "the file holds every sample once, all committed" "$N $N" "$rows"
polls=$(grep -c "journal bytes read" c.err)
first=$(grep -m1 -o "[0-9]* journal bytes read" c.err | cut -d' ' -f1)
bytes_all=$(grep "journal bytes read" c.err | tail -1 | sed -n 's/.*; \([0-9]*\) in all/\1/p')
journal=$(stat -c %s "$ws/merlin_info/merlin.journal")
echo "collect polled the journal $polls times: $bytes_all bytes read in all (first poll $first);" \
  "the journal is $journal bytes; reading it whole at every poll would read up to $((polls * journal))"
check "the polls read each journal byte about once (not the whole journal at every poll)" \
  test "$bytes_all" -le $((journal + polls * 16))

# A collect killed in the middle of its SWMR appends: the next collect opens the file and
# appends what is missing.
"$PY" -c "import h5py,sys; h5py.File(sys.argv[1],'r').close()" live.h5
(exec "$MERLIN" collect "$ws" --step simulate -f result.json -o killed.h5 --batch 16 --no-progress \
  -j 1 >k.out 2>k.err) &
K=$!
wait_until 60 test -e killed.h5
sleep 0.2
kill -9 $K 2>/dev/null
wait $K 2>/dev/null
"$MERLIN" collect "$ws" --step simulate -f result.json -o killed.h5 --no-progress >k2.out 2>k2.err
expect_eq "after a killed collect, the next one appends the rest (exit 0)" 0 $?
cat k2.err | tail -3
rows=$("$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(len(set(f['sample_ids'][:].tolist())), int(f.attrs['rows_committed']))" killed.h5)
expect_eq "and the file holds every sample once" "$N $N" "$rows"
finish
