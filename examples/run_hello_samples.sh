#!/usr/bin/env bash
# Quick start: installs what is missing, builds merlin, and runs examples/hello_samples on this
# machine (no server). The study's workspace appears under ./studies/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MERLIN_BUILD_DIR:-$root/build}
"$root/containers/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target merlin
mkdir -p "$root/studies"
cd "$root/studies"
"$build/merlin" run --local "$root/examples/hello_samples/hello_samples.yaml"
ws=$(ls -d "$root"/studies/hello_samples_* | tail -1)
echo
echo "workspace: $ws"
echo "greetings collected by step_2: $(cat "$ws/step_2/all_greetings.txt" | wc -l)"
"$build/merlin" status "$ws"
