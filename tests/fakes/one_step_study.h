#pragma once
// A study of one sampled step, A (`echo $(V)`, one sample per row of column V): for worker
// tests about the worker, not the spec (make_study(kOneSampledStep, N)).
namespace merlin::testing {

inline constexpr const char* kOneSampledStep = R"Y(
description: {name: one, description: d}
study:
  - name: A
    description: d
    run:
      cmd: echo $(V)
merlin:
  samples:
    file: samples.csv
    column_labels: [V]
)Y";

}  // namespace merlin::testing
