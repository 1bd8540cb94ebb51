#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, and runs every test with ctest
# (unit tests, the reference and invalid spec suites, the example workspaces).
# Usage: tests/run_all.sh            (build dir: ./build, or $MERLIN_BUILD_DIR)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MERLIN_BUILD_DIR:-$root/build}
"$root/containers/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j"$(nproc)" --timeout 600
