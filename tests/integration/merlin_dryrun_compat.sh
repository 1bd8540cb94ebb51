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

# A real run of Merlin's restart example: `runs` asks for a restart and has no `restart:`, so
# its own script runs again, and no runs.restart.sh is written (Merlin writes none either);
# `runs_rs` has one and gets its restart script.
mkdir real && cp -r "$SRC/tests/compat/merlin-1.13/workflows/restart/." real/
rc=0
(cd real && PATH="$DRY/stubs/bin:/usr/bin:/bin" PYTHONPATH="$DRY/stubs/py" HOME="$WORK/real/.home" \
  timeout 300 "$MERLIN" run --local --no-progress restart.yaml >out.txt 2>err.txt) || rc=$?
expect_eq "Merlin's restart example runs to the end" 0 "$rc"
ws=$(dirname "$(find real -maxdepth 3 -type d -name merlin_info | head -1)")
check "runs restarted every sample" test "$(find "$ws/runs" -name restarted | wc -l)" -gt 0
expect_eq "no restart script for the step without restart:" "" \
  "$(find "$ws/runs" -name 'runs.restart*.sh')"
check "the step with restart: has its restart scripts" test -n "$(find "$ws/runs_rs" -name 'runs_rs.restart*.sh')"
finish
