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
# Sobol from Boost's table of Joe and Kuo's numbers: 40 and 1000 columns; scrambled (linear
# matrix scrambling and a shift), still one point per 1/N interval of each column for N = 2^m.
"$MERLIN" sample -n 256 -m sobol -d 40 -s 3 -o s40.npy 2>s40.err
expect_eq "sobol -d 40: exit 0" 0 $?
check "sobol -d 40, 256 rows: a power of two, no warning" bash -c "! grep -q warning s40.err"
check "sobol -d 40: every column has one point in each 1/256 interval" /usr/bin/python3 -c "
import numpy as np, sys
x = np.load('s40.npy')
sys.exit(not (x.shape == (256, 40) and (x >= 0).all() and (x < 1).all()
              and all(len(set((x[:, c] * 256).astype(int))) == 256 for c in range(40))))"
"$MERLIN" sample -n 100 -m sobol -d 1000 -s 3 -o s1000.npy 2>s1000.err
expect_eq "sobol -d 1000: exit 0" 0 $?
check "sobol with 100 rows warns that it is not a power of two" grep -q "not a power of two" s1000.err
"$MERLIN" sample -n 64 -m halton -d 3 -s 1 -o h1.csv 2>/dev/null
"$MERLIN" sample -n 64 -m halton -d 3 -s 2 -o h2.csv 2>/dev/null
check "halton: column 0 differs between seeds" bash -c "! cmp -s <(cut -d, -f1 h1.csv) <(cut -d, -f1 h2.csv)"
"$MERLIN" sample -n 64 -m halton -d 3 -s 1 --no-scramble -o u1.csv 2>/dev/null
"$MERLIN" sample -n 64 -m halton -d 3 -s 2 --no-scramble -o u2.csv 2>/dev/null
check "halton --no-scramble: the same points whatever the seed" cmp -s u1.csv u2.csv
set +e
"$MERLIN" sample -n 10 -m sobol -d 3668 -o big.npy 2>err.txt
rc=$?
set -e
expect_eq "sobol beyond 3667 columns: exit 2" 2 "$rc"
check "sobol beyond 3667 columns: says the limit" grep -q "at most 3667" err.txt
# Provenance: a sidecar FILE.json beside .npy/.csv, root attributes in .h5.
"$MERLIN" sample -n 64 -m halton -c a=1:2 -c k=1e-3:1:log -s 5 -o prov.csv 2>/dev/null
check "the sidecar prov.csv.json records the design" /usr/bin/python3 -c "
import json, sys
p = json.load(open('prov.csv.json'))
c = p['columns']
sys.exit(not (p['method'] == 'halton' and p['seed'] == 5 and p['rows'] == 64 and p['scramble']
              and p['merlin_version'] and [x['name'] for x in c] == ['a', 'k']
              and c[1]['scale'] == 'log' and c[0]['lo'] == 1 and c[0]['hi'] == 2))"
if "$MERLIN" sample -n 8 -m sobol -d 2 -s 6 -o prov.h5 2>/dev/null && /usr/bin/python3 -c "import h5py" 2>/dev/null; then
  check "an .h5 file carries the provenance as root attributes" /usr/bin/python3 -c "
import h5py, json, sys
f = h5py.File('prov.h5', 'r')
a = f.attrs
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
p = json.loads(s(a['sample_provenance']))
sys.exit(not (s(a['sample_method']) == 'sobol' and int(a['sample_seed']) == 6
              and int(a['sample_rows']) == 8 and s(a['sample_scramble']) == 'true'
              and p['columns'][1]['name'] == 'x1' and f['samples'].shape == (8, 2)))"
  check "no sidecar beside an .h5 file" test ! -e prov.h5.json
else
  echo "SKIP the .h5 provenance check: no HDF5 in this build or no h5py"
fi
# Per-column distributions by inverse CDF, over any unit design; bad parameters exit 2.
"$MERLIN" sample -n 256 -m sobol -c z=normal:10:2 -c t=truncnorm:0:1:-1:1:round=0.5 \
  -c b=beta:2:5:0:10 -c c=choice:3,7 -s 2 -o dist.npy 2>/dev/null
expect_eq "distributions over sobol: exit 0" 0 $?
check "distributions: normal mean, truncnorm rounded in bounds, beta in range, choices" /usr/bin/python3 -c "
import numpy as np, sys
x = np.load('dist.npy')
sys.exit(not (abs(x[:, 0].mean() - 10) < 0.1 and set(x[:, 1]) <= {-1, -0.5, 0, 0.5, 1}
              and (x[:, 2] >= 0).all() and (x[:, 2] <= 10).all() and set(x[:, 3]) == {3, 7}))"
check "the sidecar names each column's distribution" grep -q 'truncnorm(mu=0, sigma=1)' dist.npy.json
for bad in "z=normal:0:0" "b=beta:-1:2" "t=truncnorm:0:1:2:1" "c=choice:1,x" "r=0:1:round=0"; do
  set +e
  "$MERLIN" sample -n 8 -c "$bad" -o bad.npy 2>err.txt
  rc=$?
  set -e
  expect_eq "bad distribution $bad: exit 2" 2 "$rc"
  check "bad distribution $bad: the message names it" grep -qF "'$bad'" err.txt
done
set +e
"$MERLIN" sample -n 8 -m grid -c z=normal:0:1 -o bad.npy 2>err.txt
rc=$?
set -e
expect_eq "a distribution over a grid: exit 2" 2 "$rc"
set +e
"$MERLIN" sample -n 10 -c x=1:0 -o bad.npy 2>err.txt
rc=$?
set -e
expect_eq "inverted bounds: exit 2" 2 "$rc"
check "inverted bounds: says which column and why" grep -q "'x=1:0': the lower bound is not below the upper one" err.txt
check "inverted bounds: nothing written" test ! -e bad.npy
check "inverted bounds: no sidecar either" test ! -e bad.npy.json
set +e
"$MERLIN" sample -n 10 -d 2 -o out.parquet 2>err.txt
rc=$?
set -e
expect_eq "unknown extension: exit 2" 2 "$rc"

# Designs sized by their columns, and maximin.
"$MERLIN" sample -m ccd -c a=0:10 -c k=1:100:log -o ccd.csv --header 2>ccd.err
expect_eq "ccd without -n: 2^2 + 2*2 + 1 rows, bounds exact" \
  "a,k|0,1|10,1|0,100|10,100|0,10.000000000000002|10,10.000000000000002|5,1|5,100|5,10.000000000000002|" \
  "$(tr '\n' '|' <ccd.csv)"
check "the sidecar names the method" grep -q '"method": "ccd"' ccd.csv.json
set +e
"$MERLIN" sample -m star -d 3 -n 5 -o star.npy 2>err.txt
rc=$?
set -e
expect_eq "star with a wrong -n: exit 2" 2 "$rc"
check "... saying the rows its columns make" grep -q "star with 3 columns has 6 rows, not 5 (leave -n out)" err.txt
set +e
"$MERLIN" sample -m lhs -d 3 -o lhs_no_n.npy 2>err.txt
rc=$?
set -e
expect_eq "lhs without -n: exit 2" 2 "$rc"
check "... -n is required for it" grep -q "n/--rows is required" err.txt
"$MERLIN" sample -m maximin -n 200 -d 4 -s 3 -o mm.csv 2>/dev/null
"$MERLIN" sample -m lhs -n 200 -d 4 -s 3 -o lhs4.csv 2>/dev/null
if command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  check "maximin: a Latin hypercube whose closest rows are further apart than lhs's" /usr/bin/python3 -c '
import numpy as np
m = np.loadtxt("mm.csv", delimiter=","); l = np.loadtxt("lhs4.csv", delimiter=",")
assert all(len(set((m[:, c] * 200).astype(int))) == 200 for c in range(4)), "not latin"
dist = lambda x: min(np.sqrt(((x[i] - x[i + 1:]) ** 2).sum(1)).min() for i in range(len(x) - 1))
assert dist(m) > 1.5 * dist(l), (dist(m), dist(l))'
fi

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
