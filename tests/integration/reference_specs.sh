#!/usr/bin/env bash
# Every spec in specs/reference/ (one per feature) validates, lays out with --dry, and runs with
# --local to exit 0 — unless its first lines say "# merlin-test: dry-only" (e.g. it launches
# srun). Every spec in specs/invalid/ is refused by `validate --strict` with exit 2 and exactly its
# .expected message (strict: an unknown token is an error there, a warning otherwise).
source "$(dirname "$0")/lib.sh"
n=0
for spec in "$SRC"/specs/reference/*.yaml; do
  [ -e "$spec" ] || continue
  n=$((n + 1))
  name=$(basename "$spec" .yaml)
  mkdir -p "$WORK/$name/dry" "$WORK/$name/run"
  check "$name validates" "$MERLIN" validate "$spec" >/dev/null 2>&1
  (cd "$WORK/$name/dry" && "$MERLIN" run --local --dry --no-progress "$spec" >/dev/null 2>err.txt)
  check "$name lays out (--dry)" test $? = 0
  if head -5 "$spec" | grep -q 'merlin-test: dry-only'; then continue; fi
  set +e
  (cd "$WORK/$name/run" && "$MERLIN" run --local --no-progress "$spec" >/dev/null 2>err.txt)
  rc=$?
  set -e
  if [ $rc = 0 ]; then pass "$name runs (--local)"; else fail "$name runs (--local): rc=$rc"; tail -5 "$WORK/$name/run/err.txt"; fi
done
check "there are reference specs ($n)" test "$n" -gt 0

m=0
cd "$SRC/specs/invalid"
for spec in *.yaml; do
  [ -e "$spec" ] || continue
  m=$((m + 1))
  name=$(basename "$spec" .yaml)
  set +e
  "$MERLIN" validate --strict "$spec" >/dev/null 2>"$WORK/$name.err"
  rc=$?
  set -e
  expect_eq "invalid/$name exits 2" 2 "$rc"
  expect_eq "invalid/$name message" "$(cat "$name.expected")" "$(cat "$WORK/$name.err")"
done
check "there are invalid specs ($m)" test "$m" -gt 0

# Without --strict an unknown token is a warning: Merlin leaves it for the shell.
set +e
"$MERLIN" validate unknown_token.yaml >/dev/null 2>"$WORK/lenient.err"
rc=$?
set -e
expect_eq "unknown_token without --strict: valid (exit 0)" 0 "$rc"
check "unknown_token without --strict: warned at its place" \
  grep -q "^unknown_token.yaml:11:19: warning: unknown token '\$(OUTPUT_DIRR)'" "$WORK/lenient.err"
cd "$WORK"
finish
