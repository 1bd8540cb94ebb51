#!/usr/bin/env bash
# Sanitized builds and their tests (docs/sanitizers.md).
#
#   tests/sanitize/run.sh asan [--ci|--full]   ASan + UBSan build (build-asan), then ctest there
#   tests/sanitize/run.sh tsan [--ci|--full]   TSan build (build-tsan), then ctest there
#   ... [--ci|--full] CTEST_ARGS...             further arguments go to ctest (-R NAME: a few)
#
# --full (the default): asan runs the unit, contract and integration suites (but the tests that
# rebuild or install the tree: deb_package, container_image, install_consumer, spack_recipe);
# tsan runs the unit tests of workers/, run/, broker/, redis and amqp and the integration tests
# that run worker fleets. --ci: the subset tests/sanitize/ci.sh runs in CI (smaller, same kinds).
# The build directories are made beside the source tree, or under $MERLIN_SANITIZE_DIR.
# Every sanitizer report is written to <build>/sanitizer-logs/ (log_path), from the test
# binaries and from every merlin they start (workers in the background included), and the run
# fails when that directory holds any report, whatever the tests' own exit codes said.
# Exit: 0 clean; 1 a test failed or a sanitizer reported; 2 bad usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/sanitize
kind=${1:-}
scope=${2:---full}
shift $(( $# < 2 ? $# : 2 ))
usage() { echo "usage: $0 asan|tsan [--ci|--full]" >&2; exit 2; }
case $kind in asan|tsan) ;; *) usage ;; esac
case $scope in --ci|--full) ;; *) usage ;; esac
jobs=${MERLIN_SANITIZE_JOBS:-2}
build=${MERLIN_SANITIZE_DIR:-$root}/build-$kind
logs=$build/sanitizer-logs

# ---- configure and build ----------------------------------------------------------------------
if [[ $kind == asan ]]; then flags=address,undefined; else flags=thread; fi
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
fi
# -O0 -g1: line-numbered stacks at about half of -O2 -g's compile time (2 shared cores); NDEBUG as in the
# default build, so the code tested is the code shipped. No merlin-train (libtorch).
opt="-O0 -g1 -DNDEBUG"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
  -DMERLIN_SANITIZE=$flags -DMERLIN_WITH_TORCH=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$opt" >/dev/null
# merlin_tests brings merlin, merlin-guard and mpi_hello; nothing else (man pages, .deb) is built
# but for the full ASan run.
# TSan's --ci run needs only the worker unit tests (merlin_worker_tests, cmake/merlin_sanitize_tests.cmake).
targets=(merlin merlin_tests)
[[ $kind == tsan && $scope == --ci ]] && targets=(merlin merlin_worker_tests)
# The full ASan run has man_completion, which checks the man pages and completion of the build.
[[ $kind == asan && $scope == --full ]] && targets=(all)
cmake --build "$build" -j"$jobs" --target "${targets[@]}"

# ---- which tests ------------------------------------------------------------------------------
# The gtest suites defined in some folders of tests/unit, as alternatives of a regex.
suites_of() {
  (cd "$root/tests/unit" && grep -rhoE '^TEST(_F|_P)?\([A-Za-z0-9_]+' "$@" | sed -E 's/.*\(//' |
   sort -u | paste -sd'|')
}
# They and fuzz.bounded (its own clang-15 tree) build unsanitized copies: nothing more to see.
rebuilders='deb_package|container_image|install_consumer|spack_recipe'
if [[ $kind == asan && $scope == --full ]]; then
  select=(-E "^integration\\.($rebuilders)\$|^fuzz\\.bounded\$")
elif [[ $kind == asan ]]; then
  # Every unit and contract test, in one merlin_tests process (below: one process per test is
  # 1.4 s of ASan start and leak check each, 17 min against 4); a local run, a distributed Redis
  # run, a RabbitMQ run, restart, the lean workspace, the step guard.
  select=(-R "^integration\\.(examples_local|distributed_run|fanout_rabbitmq|restart|lean_workspace|step_guard)\$")
elif [[ $scope == --full ]]; then
  fleets='distributed_[a-z_]+|load_16x2|fanout[a-z_]*|rabbitmq_run|rabbitmq_faults|restart|interrupt[a-z_]*|lean_workspace|step_guard|staging|recovery_time'
  # (a parameterised suite's tests are PREFIX/Suite.Name/N)
  select=(-R "^([A-Za-z]+/)?($(suites_of workers run broker redis amqp)|rabbitmq)\\.|^integration\\.($fleets)\$")
else
  select=(-R "^workers\\.|^integration\\.distributed_run\$")
fi
echo "ctest ${select[*]}" >&2

# ---- run --------------------------------------------------------------------------------------
rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:check_initialization_order=1:strict_init_order=1:log_path=$logs/asan:suppressions=$here/asan.supp"
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan:suppressions=$here/ubsan.supp"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:log_path=$logs/tsan:suppressions=$here/tsan.supp"
# For the few test cases a sanitizer runtime cannot take (bad_input's ulimit -v).
export MERLIN_SANITIZED=$kind
wrap=()
if [[ $kind == tsan ]]; then
  # gcc 12's TSan maps its shadow at fixed addresses and dies ("unexpected memory mapping")
  # when the kernel randomises mmap with more than 28 bits (vm.mmap_rnd_bits): then run the
  # tests without address randomisation (setarch -R, inherited by every child).
  bits=$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)
  if (( bits > 28 )); then
    wrap=(setarch "$(uname -m)" -R)
    echo "tsan: vm.mmap_rnd_bits=$bits > 28: tests run under setarch -R"
  fi
fi
status=0
if [[ $kind == asan && $scope == --ci ]]; then
  ( cd "$build" && ./merlin_tests --gtest_brief=1 ) || status=1
fi
( cd "$build" && "${wrap[@]}" ctest --output-on-failure -j"$jobs" --timeout 600 "${select[@]}" "$@" ) || status=1
# Reports from any process, including those whose exit status no test looked at.
reports=$(find "$logs" -type f -size +0 | sort)
if [[ -n $reports ]]; then
  echo "sanitizer reports ($kind):"
  for f in $reports; do echo "==== $f"; head -c 20000 "$f"; done
  status=1
fi
echo "sanitize $kind $scope: $([[ $status == 0 ]] && echo clean || echo FAILED)"
exit $status
