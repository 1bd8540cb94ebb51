#!/usr/bin/env bash
# `spellbook make-samples` (beside merlin in the build tree, in bin/ installed) with the options
# Merlin's example specs pass it: shapes, bounds, Latin-hypercube strata, the x0/x1 stencil,
# the output file named as given, bad options refused with exit 2; then Merlin's feature_demo
# spec, whose samples it draws, laid out unchanged.
source "$(dirname "$0")/lib.sh"
ulimit -f 100000
SB="$(dirname "$MERLIN")/spellbook"
[ -x "$SB" ] || { fail "no spellbook beside $MERLIN"; finish; }
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "SKIP: spellbook make-samples needs Debian's python3-numpy"
  exit 77
fi
export PATH="/usr/bin:$PATH"  # numpy is Debian's python3's
py() { /usr/bin/python3 -c "import numpy as np; $1"; }
sb() { "$SB" "$@" >/dev/null; }  # it prints the samples, as spellbook does

check "default: 100 x 2 in [0, 1)" sb make-samples -outfile=a.npy
expect_eq "shape and bounds" "(100, 2) True" "$(py "x=np.load('a.npy'); print(x.shape, bool((x>=0).all() and (x<1).all()))")"
check "-dims 1 -n 10" sb make-samples -dims 1 -n 10 -outfile=b.npy
expect_eq "a column of 10" "(10, 1)" "$(py "print(np.load('b.npy').shape)")"
check "grid of 9 in 2-D" sb make-samples -n 9 -sample_type grid -outfile grid_9.npy
expect_eq "3 x 3 grid, corners included" "9 [0.0, 0.5, 1.0]" \
  "$(py "x=np.load('grid_9.npy'); print(len(x), sorted(set(x[:,0].tolist())))")"
check "lhs, scaled, seeded" sb make-samples -dims 2 -n 20 -sample_type lhs -scale "[(-2,2),(1,100,'log')]" -seed 4 -outfile=c.npy
expect_eq "one point per stratum in each column (log column in log10)" "True True" \
  "$(py "x=np.load('c.npy'); a=np.floor((x[:,0]+2)/4*20); b=np.floor(np.log10(x[:,1])/2*20); print(sorted(a)==list(range(20)), sorted(b)==list(range(20)))")"
"$SB" make-samples -dims 2 -n 20 -sample_type lhs -scale "[(-2,2),(1,100,log)]" -seed 4 -outfile=c2.npy >/dev/null
check "the same seed draws the same samples" cmp c.npy c2.npy
py "np.save('x0.npy', np.array([0.1, 0.2])); np.save('x1.npy', np.array([0.3, 0.4]))"
# As optimization_basic calls it.
check "stencil round a point with a line to another" sb make-samples -dims 2 -x0 x0.npy -x1 x1.npy \
  -n_line 5 -scale_factor 0.05 -scale "[(-2,2),(-1,3)]" -n 10 -sample_type lhd -outfile e.npy -seed 1 --hard-bounds
expect_eq "x0 first, 10 samples then 5 on the line" "(15, 2) [0.1, 0.2]" \
  "$(py "x=np.load('e.npy'); print(x.shape, x[0].tolist())")"
check "star round x0" sb make-samples -dims 2 -x0 x0.npy -scale_factor 0.05 -scale "[(-2,2),(-1,3)]" \
  -sample_type star -outfile f.npy
expect_eq "x0 and 4 axial points" "5" "$(py "print(len(np.load('f.npy')))")"
"$SB" make-samples -n 4 -outfile=noext >/dev/null
check "the output file is named as given (no .npy added)" test -f noext -a ! -e noext.npy

rc=0; "$SB" make-samples -n x 2>err.txt || rc=$?
expect_eq "a bad number: exit 2" 2 "$rc"
check "it names the option" grep -q -- "-n: 'x' is not a valid int" err.txt
rc=0; "$SB" make-samples -sample_type fancy 2>err.txt || rc=$?
expect_eq "an unknown sample type: exit 2" 2 "$rc"
rc=0; "$SB" serialize -infile x.npz 2>err.txt || rc=$?
expect_eq "a spellbook command that is not here: exit 2" 2 "$rc"
check "it names the ones that are and what merlin has instead" \
  grep -q "make-samples, collect, translate, stack-npz, learn, predict are.*merlin collect" err.txt

# Merlin's own feature_demo spec draws its samples with spellbook: laid out unchanged.
cp -r "$SRC/tests/compat/merlin-1.13/workflows/feature_demo" fd
rc=0
(cd fd && PATH="$(dirname "$MERLIN"):$PATH" "$MERLIN" run --local --dry --no-progress feature_demo.yaml \
  >out.txt 2>err.txt) || rc=$?
expect_eq "Merlin's feature_demo lays out with spellbook's samples" 0 "$rc"
check "10 samples loaded" grep -q "10 samples loaded." fd/err.txt
finish
