#!/usr/bin/env bash
# spellbook's collect, translate, stack-npz, learn and predict (adapters/ml/python/spellbook_ml.py)
# as Merlin's feature_demo chains them: JSON files -> one JSON list -> .npz by a schema -> a
# pickled random forest -> predictions; stack-npz; bad input named with its exit code (1 a file,
# 2 an option); then Merlin's feature_demo run for real with this build, unchanged.
source "$(dirname "$0")/lib.sh"
ulimit -f 100000
set +e  # exit codes are what this test checks
SB="$(dirname "$MERLIN")/spellbook"
[ -x "$SB" ] || { fail "no spellbook beside $MERLIN"; finish; exit 1; }
need_python numpy sklearn
export PATH="$(dirname "$MERLIN"):$(dirname "$PY"):$PATH"  # Debian's python3 has numpy, sklearn
py() { "$PY" -c "import numpy as np; $1"; }

# Eight samples of y = 3 if x0 > 0.5 else 1 (a step a depth-2 forest fits), as feature_demo's
# hello step writes them.
for i in 0 1 2 3 4 5 6 7; do
  x0=$(awk "BEGIN { print ($i + 0.5) / 8 }")
  y=$(awk "BEGIN { print ($x0 > 0.5) ? 3 : 1 }")
  printf '{"inputs": {"X": %s, "Y": 0.25}, "outputs": {"Z": %s, "W": 7}}\n' "$x0" "$y" >"sample$i.json"
done
echo '{"inputs": {"X": 1, "Y": 1}, "outputs": {"Z": 1}}' >schema.json
"$SB" collect -outfile results.json -instring "$(ls sample*.json)"
expect_eq "collect: exit 0" 0 $?
expect_eq "collect: a JSON list of the 8 samples" 8 "$(py "import json; print(len(json.load(open('results.json'))))")"
"$SB" translate -input results.json -output results.npz -schema schema.json
expect_eq "translate: exit 0" 0 $?
expect_eq "translate: X from the schema's inputs, then its outputs" "['Z', 'X'] (8, 2) (8,)" \
  "$(py "d=np.load('results.npz'); print(d.files, d['X'].shape, d['Z'].shape)")"
"$SB" learn -infile results.npz -X X -y Z -outfile forest.pkl
expect_eq "learn -X X -y Z: exit 0" 0 $?
py "np.save('new_x.npy', np.array([[0.1, 0.25], [0.9, 0.25]]))"
"$SB" predict -infile new_x.npy -reg forest.pkl -outfile new_y.npy
expect_eq "predict: exit 0" 0 $?
expect_eq "predict: the step is learnt (about 1 below 0.5, about 3 above)" "True" \
  "$(py "y=np.load('new_y.npy'); print(bool(abs(y[0]-1) < 0.5 and abs(y[1]-3) < 0.5))")"
"$SB" stack-npz stacked.npz results.npz results.npz >stack.out
expect_eq "stack-npz: exit 0" 0 $?
expect_eq "stack-npz: rows of both files" "(16, 2)" "$(py "print(np.load('stacked.npz')['X'].shape)")"
"$SB" stack-npz stacked.npz results.npz results.npz 2>stack.err
expect_eq "stack-npz onto an existing file without -f: exit 1" 1 $?
check "... it says to pass -f" grep -q "pass -f" stack.err
"$SB" stack-npz -f stacked.npz results.npz results.npz
expect_eq "stack-npz -f: exit 0" 0 $?

# Bad input: the file or option is named.
"$SB" collect -outfile r.json -instring "sample0.json
missing.json" 2>e1.txt
expect_eq "collect of a missing file: exit 1" 1 $?
check "... it names the file" grep -q "missing.json" e1.txt
check "... and writes no partial result" test ! -e r.json
"$SB" translate -input results.json -schema nope.json 2>e2.txt
expect_eq "translate with a missing schema: exit 1" 1 $?
check "... it names the schema" grep -q "nope.json" e2.txt
"$SB" learn -infile results.npz -regressor GaussianProcessRegressor 2>e3.txt
expect_eq "learn with another regressor: exit 2" 2 $?
check "... it says which one is here" grep -q "only RandomForestRegressor" e3.txt
"$SB" learn -infile results.npz -bogus 1 2>e4.txt
expect_eq "an unknown option: exit 2" 2 $?
check "... it is named with the options there are" grep -q "unknown option '-bogus' (options: -infile" e4.txt
"$SB" predict -infile new_x.npy -reg missing.pkl 2>e5.txt
expect_eq "predict with a missing regressor: exit 1" 1 $?
check "... it names the file" grep -q "missing.pkl" e5.txt

# Merlin's feature_demo, unchanged, run here: hello -> collect -> translate -> learn, and
# make_new_samples -> predict -> verify. Its python2_hello step needs python2, which Debian 12
# has not: that one sample fails (so the run exits 1); every other step finishes.
cp -r "$SRC/tests/compat/merlin-1.13/workflows/feature_demo" fd
(cd fd && PYTHONPATH="$SRC/tests/compat/dryrun/stubs/py" timeout 300 "$MERLIN" run --local \
  --no-progress feature_demo.yaml --vars N_SAMPLES=4 OUTPUT_PATH=./out >run.out 2>run.err)
rc=$?
ws=$(ls -d fd/out/feature_demo_* 2>/dev/null | head -1)
failed=$("$MERLIN" status "$ws" --format csv 2>/dev/null | awk -F, 'NR > 1 && $5 != 0 { print $1 }')
if python2 -c pass 2>/dev/null; then
  expect_eq "feature_demo: exit 0" 0 "$rc"
else
  expect_eq "feature_demo without python2: exit 1" 1 "$rc"
  expect_eq "feature_demo: only python2_hello failed" python2_hello "$failed"
fi
check "feature_demo: learn pickled its forest" test -s "$ws/learn/X2.0.5/random_forest_reg.pkl"
check "feature_demo: predict wrote its predictions" test -s "$ws/predict/N_NEW.10.X2.0.5/prediction_10.npy"
check "feature_demo: verify found both and finished" test -f "$ws/verify/N_NEW.10.X2.0.5/FINISHED"
finish
