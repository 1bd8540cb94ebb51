#!/usr/bin/env bash
# The suite's bounded fuzz run (ctest fuzz.bounded): every target for 30 s (MERLIN_FUZZ_SECONDS),
# one after another, in the build dir given (default ./build-fuzz). docs/fuzzing.md.
# Skips (77) with the reason when MERLIN_TEST_FUZZ=0 or without clang-15 and libFuzzer.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${MERLIN_TEST_FUZZ:-1}" = 0 ]; then
  echo "SKIP: MERLIN_TEST_FUZZ=0 (unset it to run the fuzz targets)"
  exit 77
fi
exec bash "$here/run.sh" --seconds "${MERLIN_FUZZ_SECONDS:-30}" --build-dir "${1:-$here/../../build-fuzz}"
