#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-15 and runs each for a while (docs/fuzzing.md).
# Usage: tests/fuzz/run.sh [--seconds N] [--parallel] [--build-dir DIR] [--no-build] [TARGET...]
#   --seconds N    per target (default 60); tests/fuzz/run.sh --seconds 600 for a long run
#   --parallel     run the targets at the same time (one core each) instead of one by one
#   --build-dir    where to configure and build (default ./build-fuzz; $MERLIN_FUZZ_BUILD_DIR)
#   TARGET         spec_loader npy_reader csv_reader tab_reader task_message broker_url app_yaml
#                  json_output npy_output csv_output (default: all)
# Each target's corpus grows in <build-dir>/corpus/<target>, seeded from tests/fuzz/corpus/,
# the inputs make_seeds.py makes from the repository, and tests/fuzz/regressions/; a crash, leak,
# UB report or hang (-timeout=10) is written to <build-dir>/artifacts/<target>/ and makes the
# exit status 1. Prints per target: runs, exec/s, coverage, corpus size, exit status.
# Exit: 0 all clean, 1 a target found something, 2 usage or build error, 77 no clang-15.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=60
build=${MERLIN_FUZZ_BUILD_DIR:-$root/build-fuzz}
do_build=1
parallel=0
targets=()
all=(spec_loader npy_reader csv_reader tab_reader task_message broker_url app_yaml json_output
  npy_output csv_output)
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:-}; shift 2 ;;
    --build-dir) build=${2:-}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --parallel) parallel=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
case "$seconds" in ''|*[!0-9]*) echo "run.sh: --seconds needs a whole number of seconds" >&2; exit 2 ;; esac
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  case " ${all[*]} " in *" $t "*) ;; *) echo "run.sh: unknown target '$t' (one of: ${all[*]})" >&2; exit 2 ;; esac
done

# The per-target libFuzzer settings: input size bound and dictionary.
max_len_of() {
  case "$1" in
    spec_loader) echo 16384 ;; npy_reader) echo 4096 ;; csv_reader|tab_reader) echo 4096 ;;
    task_message) echo 128 ;; broker_url) echo 512 ;; app_yaml) echo 4096 ;;
    json_output) echo 65536 ;; npy_output) echo 4096 ;; csv_output) echo 4096 ;;
  esac
}
dict_of() {
  case "$1" in
    csv_reader|tab_reader|csv_output) echo text_table ;; npy_output) echo npy_reader ;;
    *) echo "$1" ;;
  esac
}

if [ "$do_build" = 1 ]; then
  if ! command -v clang++-15 >/dev/null || ! command -v clang-15 >/dev/null; then
    echo "SKIP: no clang-15 here (apt-get install clang-15 libfuzzer-15-dev)"
    exit 77
  fi
  if ! ls "$(clang-15 -print-resource-dir)"/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
    echo "SKIP: clang-15 has no libFuzzer here (apt-get install libfuzzer-15-dev)"
    exit 77
  fi
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  jobs=${MERLIN_FUZZ_JOBS:-2}
  echo "== configure and build $build (clang-15, -fsanitize=fuzzer,address,undefined)"
  mkdir -p "$build"
  # -O1 and line tables only: what libFuzzer's docs advise, and a quicker cold build than -O2 -g.
  if ! cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
      -DCMAKE_C_COMPILER=clang-15 -DCMAKE_CXX_COMPILER=clang++-15 "${launcher[@]}" \
      -DMERLIN_FUZZ=ON -DMERLIN_BUILD_TESTS=OFF -DMERLIN_WITH_RABBITMQ=OFF \
      -DMERLIN_WITH_HDF5=OFF -DMERLIN_WITH_MPI=OFF -DMERLIN_WITH_TORCH=OFF >"$build/configure.log" 2>&1; then
    cat "$build/configure.log" >&2
    echo "run.sh: configuring $build failed" >&2
    exit 2
  fi
  if ! cmake --build "$build" -j"$jobs" --target $(printf '%s_fuzz ' "${targets[@]}"); then
    echo "run.sh: building the fuzz targets failed" >&2
    exit 2
  fi
fi

seeds=$build/seeds
rm -rf "$seeds"
python3 "$root/tests/fuzz/make_seeds.py" "$root" "$seeds" || { echo "run.sh: making seeds failed" >&2; exit 2; }

row_format='%-13s %10s %9s %6s %7s %s\n'
# Runs one target; its summary row goes to <build>/rows/<target>, its exit status is returned.
run_one() {
  local t=$1
  local corpus=$build/corpus/$t artifacts=$build/artifacts/$t log=$build/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")" "$build/rows"
  local dirs=("$corpus")
  for d in "$root/tests/fuzz/corpus/$t" "$seeds/$t" "$root/tests/fuzz/regressions/$t"; do
    [ -d "$d" ] && dirs+=("$d")
  done
  echo "== $t: ${seconds}s (log $log)"
  "$build/tests/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$(max_len_of "$t")" -dict="$root/tests/fuzz/dict/$(dict_of "$t").dict" \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "${dirs[@]}" >"$log" 2>&1
  local rc=$? result=ok
  local runs speed cov size
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  size=$(find "$corpus" -type f | wc -l)
  if [ "$rc" != 0 ]; then
    result="FAILED (exit $rc; $log)"
    grep -E '^==[0-9]+==ERROR|runtime error|SUMMARY|Test unit written|ALARM|libFuzzer: ' "$log" | head -8 >&2
  fi
  printf "$row_format" "$t" "${runs:-?}" "${speed:-?}" "${cov:-?}" "$size" "$result" > "$build/rows/$t"
  cat "$build/rows/$t"
  return "$rc"
}

status=0
if [ "$parallel" = 1 ]; then
  pids=()
  for t in "${targets[@]}"; do run_one "$t" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
else
  for t in "${targets[@]}"; do run_one "$t" || status=1; done
fi
{
  printf "$row_format" target runs exec/s cov corpus status
  for t in "${targets[@]}"; do cat "$build/rows/$t"; done
} > "$build/summary.txt"
echo "== summary ($build/summary.txt; corpus = inputs this build dir has added)"
cat "$build/summary.txt"
exit $status
