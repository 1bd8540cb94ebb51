#!/usr/bin/env bash
# `merlin collect` after `merlin restart` (issue #25, item 3): a sample that failed (status 2)
# is repaired by a restart, one whose output was broken (status 3) by fixing the file; collecting again into
# the same file rewrites their rows (status 1, their values), counts them in the file's
# `rows_rewritten` attribute and moves `updated` on. A third collect changes nothing.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks

need_python h5py numpy  # sets PY, or skips
ulimit -f 100000  # KB: nothing here writes more than a few

printf '%s\n' "0.5" "1.5" "2.5" "3.5" >samples.csv
cat >rep.yaml <<Y
description: {name: rep, description: samples repaired by a restart}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: simulate
    run:
      cmd: |
        if [ \$(MERLIN_SAMPLE_ID) -eq 1 ] && [ ! -e \$(SPECROOT)/fixed ]; then exit \$(MERLIN_SOFT_FAIL); fi
        if [ \$(MERLIN_SAMPLE_ID) -eq 2 ] && [ ! -e \$(SPECROOT)/fixed ]; then echo '{"e": ' > result.json; exit 0; fi
        printf '{"e": %s, "v": [%s, %s]}\n' \$(X) \$(X) \$(MERLIN_SAMPLE_ID) > result.json
merlin:
  samples:
    file: \$(SPECROOT)/samples.csv
    column_labels: [X]
Y

# rows FILE: "id:status:e:v0:v1 ..." in id order, then rows_rewritten.
rows() {
  "$PY" - "$1" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    n = int(f.attrs["rows_committed"])
    ids, st = f["sample_ids"][:n], f["status"][:n]
    e, v = f["fields/result/e"][:n], f["fields/result/v"][:n]
    out = sorted((int(i), int(s), float(a), float(b[0]), float(b[1])) for i, s, a, b in zip(ids, st, e, v))
    print(" ".join("%d:%d:%g:%g:%g" % r for r in out), "rewritten=%s" % f.attrs.get("rows_rewritten", "none"))
PY
}

"$MERLIN" run --local --no-progress rep.yaml >run.out 2>&1
expect_eq "the study runs with one failed sample (exit 1)" 1 $?
ws=$(ls -d "$WORK"/studies/rep_*)
"$MERLIN" collect "$ws" --step simulate -f result.json -o out.h5 --no-progress >c1.out 2>c1.err
expect_eq "the first collect: exit 1 (a failed and a malformed row)" 1 $?
expect_eq "the first collect: sample 1 failed, sample 2 malformed, NaN in both" \
  "0:1:0.5:0.5:0 1:2:nan:nan:nan 2:3:nan:nan:nan 3:1:3.5:3.5:3 rewritten=0" "$(rows out.h5)"

touch fixed
"$MERLIN" restart --local --no-progress "$ws" >restart.out 2>&1
expect_eq "the restart runs the failed sample again (exit 0)" 0 $?
# Sample 2 succeeded, so restart leaves it: its broken output is fixed where it is.
printf '{"e": 2.5, "v": [2.5, 2]}\n' >"$ws/simulate/02/result.json"
updated1=$("$PY" -c "import h5py,sys; print(h5py.File(sys.argv[1],'r').attrs['updated'])" out.h5)
sleep 1.1  # `updated` has a resolution of one second: let it be able to move
"$MERLIN" collect "$ws" --step simulate -f result.json -o out.h5 --no-progress >c2.out 2>c2.err
expect_eq "collecting again: exit 0 (every row is ok now)" 0 $?
check "the summary says two rows were rewritten" grep -q "0 rows appended to out.h5.*2 rows rewritten" c2.err
expect_eq "the repaired rows hold their values and status 1; the file counts them" \
  "0:1:0.5:0.5:0 1:1:1.5:1.5:1 2:1:2.5:2.5:2 3:1:3.5:3.5:3 rewritten=2" "$(rows out.h5)"
updated2=$("$PY" -c "import h5py,sys; print(h5py.File(sys.argv[1],'r').attrs['updated'])" out.h5)
check "the file's updated time moved on ($updated1 -> $updated2)" test "$updated1" != "$updated2"

sum=$(md5sum out.h5)
"$MERLIN" collect "$ws" --step simulate -f result.json -o out.h5 --no-progress >c3.out 2>c3.err
expect_eq "a third collect: exit 0" 0 $?
check "a third collect rewrites nothing" grep -q "0 rows appended to out.h5" c3.err
expect_eq "a third collect leaves the file as it was" "$sum" "$(md5sum out.h5)"
finish
