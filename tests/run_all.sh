#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, and runs every test with ctest
# (unit tests, the reference and invalid spec suites, the example workspaces).
# Usage: tests/run_all.sh            (build dir: ./build, or $MERLIN_BUILD_DIR)
# The build is RelWithDebInfo's code (-O2 -DNDEBUG) without its debug info: the tests read no
# symbols, and -g makes a cold compile about 40% slower (8 sampled objects: 95 s against 66 s
# of CPU). MERLIN_DEBUG_INFO=1 keeps -g (for gdb on a failing test).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MERLIN_BUILD_DIR:-$root/build}
"$root/containers/install-deps.sh"
# ccache (installed by install-deps, used by CMakeLists.txt) in its usual place, at most 2 GB
# unless the caller says otherwise: integration.deb_package compiles with these flags and so
# takes its objects from this build's instead of compiling them again.
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
flags="-O2 -DNDEBUG"
[ "${MERLIN_DEBUG_INFO:-0}" = 1 ] && flags="$flags -g"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j"$(nproc)" --timeout 600
