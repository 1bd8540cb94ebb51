#!/usr/bin/env bash
# `merlin sample` through the real binary: a Latin hypercube written as a spec's
# generate.cmd and run locally (one task per row, the values in the commands), bad input
# (exit 2, nothing written), the same seed giving the same file.
source "$(dirname "$0")/lib.sh"
cat >lhs.yaml <<Y
description: {name: lhs, description: a study of its own Latin hypercube}
study:
  - name: sim
    run:
      cmd: echo \$(X) \$(K) > xk.txt
merlin:
  samples:
    generate:
      cmd: $MERLIN sample -n 20 -m lhs -c X=0:1 -c K=1e-3:1:log -s 4 -o \$(MERLIN_INFO)/samples.npy
    file: \$(MERLIN_INFO)/samples.npy
    column_labels: [X, K]
Y
"$MERLIN" run --local --no-progress lhs.yaml >run.out 2>run.err
expect_eq "the study of generated samples succeeds" 0 $?
ws=$(ls -d "$WORK"/lhs_*)
expect_eq "one task per generated row" 20 "$(find "$ws/sim" -name xk.txt | wc -l)"
check "each task got its row's values, in bounds" bash -c "cat '$ws'/sim/*/xk.txt | awk '\$1 < 0 || \$1 >= 1 || \$2 < 0.001 || \$2 > 1 { bad = 1 } END { exit bad || NR != 20 }'"
expect_eq "the X column is stratified: one row in each twentieth" 20 \
  "$(cat "$ws"/sim/*/xk.txt | awk '{ print int($1 * 20) }' | sort -u | wc -l)"

"$MERLIN" sample -n 100 -m sobol -d 3 -s 9 -o a.csv 2>/dev/null
"$MERLIN" sample -n 100 -m sobol -d 3 -s 9 -o b.csv 2>/dev/null
check "the same seed, the same rows" cmp -s a.csv b.csv
set +e
"$MERLIN" sample -n 10 -c x=1:0 -o bad.npy 2>err.txt
rc=$?
set -e
expect_eq "inverted bounds: exit 2" 2 "$rc"
check "inverted bounds: says which column and why" grep -q "'x=1:0': the lower bound is not below the upper one" err.txt
check "inverted bounds: nothing written" test ! -e bad.npy
set +e
"$MERLIN" sample -n 10 -d 2 -o out.parquet 2>err.txt
rc=$?
set -e
expect_eq "unknown extension: exit 2" 2 "$rc"

# generate.cmd calls a bare `merlin`: found through the PATH merlin gives its children, though
# this merlin was started by its full path and is on no PATH entry.
sed -e "s|$MERLIN sample|merlin sample|" -e 's/name: lhs/name: bare/' lhs.yaml >bare.yaml
set +e
env PATH=/usr/bin:/bin "$MERLIN" run --local --no-progress bare.yaml >bare.out 2>bare.err
rc=$?
set -e
expect_eq "generate.cmd finds a bare 'merlin' on the PATH it is given" 0 "$rc"
expect_eq "the bare study ran one task per generated row" 20 "$(find "$WORK"/bare_* -name xk.txt | wc -l)"
finish
