#!/usr/bin/env bash
# The scripts of a dry run against real Merlin 1.13's, byte for byte, for the 23 example specs
# Merlin ships (tests/compat/merlin-1.13; its golden scripts in tests/compat/dryrun/golden,
# written by real Merlin through tests/compat/dryrun/regenerate.sh). Every spec must match once
# merlin's rank shim is out of the launcher lines (the one difference kept on purpose,
# docs/merlin-compatibility.md); the count as written is printed beside it.
source "$(dirname "$0")/lib.sh"
ulimit -f 200000
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "SKIP: the example specs' sample generators need Debian's python3-numpy"
  exit 77
fi
DRY="$SRC/tests/compat/dryrun"
TMPDIR="$WORK" bash "$DRY/run_dry.sh" "$WORK/ours" "$MERLIN" >run.log 2>&1
check "every spec's dry run worked" test "$(ls "$WORK/ours" | wc -l)" = "$(ls "$DRY/golden" | wc -l)"
grep -v '^$' run.log | head -20 || true
rc=0
/usr/bin/python3 "$DRY/dryrun_scripts.py" compare "$DRY/golden" "$WORK/ours" --verbose >compare.txt || rc=$?
cat compare.txt
check "every example spec's scripts are Merlin's once the rank shim is out" test "$rc" = 0
# Byte-identical as written: the specs without a launcher line (the count is in the docs).
check "at least 13 specs byte-identical as written" \
  test "$(sed -n 's/^\([0-9]*\) of .* as written.*/\1/p' compare.txt)" -ge 13
finish
