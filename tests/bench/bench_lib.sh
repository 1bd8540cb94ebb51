# Sourced by the benchmarks. bench_merlin REPO_ROOT [path/to/merlin]: sets `merlin` to the given
# binary (made absolute), or configures and builds build-bench/merlin (Release, no tests) and
# uses that.
bench_merlin() {
  local root=$1 given=${2:-}
  if [[ -n "$given" ]]; then
    merlin=$(realpath -m "$given")
    return
  fi
  echo "== building build-bench/merlin (Release)" >&2
  cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMERLIN_BUILD_TESTS=OFF >/dev/null
  cmake --build "$root/build-bench" -j2 --target merlin >/dev/null
  merlin=$root/build-bench/merlin
}

# funnel_spec NAME: prints the study of the Redis benchmarks: one sampled step `echo $(X) > out`
# (samples from --samplesfile, one column X) and a funnel after all its samples.
funnel_spec() {
  cat <<Y
description: {name: $1, description: one sampled step and a funnel}
study:
  - name: step
    run:
      cmd: echo \$(X) > out
  - name: funnel
    run:
      cmd: echo done > funnel.txt
      depends: [step_*]
merlin:
  resources:
    workers:
      w: {args: --concurrency 2, steps: [all]}
  samples:
    column_labels: [X]
Y
}
