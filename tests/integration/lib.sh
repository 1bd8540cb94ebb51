# Sourced by the integration tests: $1 = merlin binary, $2 = source dir. Each test runs in its
# own temp dir, removed on success, kept (and named) on failure.
set -euo pipefail
MERLIN=$(realpath "$1")
SRC=$(realpath "$2")
WORK=$(mktemp -d /tmp/merlin-it.XXXXXX)
FAILS=0
PASSES=0
cd "$WORK"
trap 'if [ $FAILS -eq 0 ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi' EXIT

pass() { PASSES=$((PASSES + 1)); echo "ok   $*"; }
fail() { FAILS=$((FAILS + 1)); echo "FAIL $*"; }
# check "description" command...: passes when the command succeeds
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
# expect_eq "description" expected actual
expect_eq() {
  if [ "$2" == "$3" ]; then pass "$1"; else fail "$1"; diff <(echo "$2") <(echo "$3") | head -20 || true; fi
}
# workspace tree with the timestamp normalised, relative to the output dir
tree_of() { (cd "$1" && find . -mindepth 1 | sed -E 's/_[0-9]{8}-[0-9]{6}/_TIMESTAMP/' | LC_ALL=C sort); }
finish() {
  echo "$PASSES passed, $FAILS failed"
  [ $FAILS -eq 0 ]
}
