#!/usr/bin/env bash
# ctest's sanitize.ci: the --ci subsets of the ASan+UBSan and the TSan runs (tests/sanitize/run.sh,
# docs/sanitizers.md), in build directories under $1. MERLIN_TEST_SANITIZE=0 skips it (exit 77).
set -uo pipefail
if [[ ${MERLIN_TEST_SANITIZE:-1} == 0 ]]; then
  echo "SKIP: MERLIN_TEST_SANITIZE=0"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
export MERLIN_SANITIZE_DIR=${1:?usage: ci.sh BUILD_PARENT_DIR}
mkdir -p "$MERLIN_SANITIZE_DIR"
status=0
for kind in asan tsan; do
  start=$SECONDS
  bash "$here/run.sh" $kind --ci || status=1
  echo "sanitize.ci: $kind took $((SECONDS - start)) s"
done
exit $status
