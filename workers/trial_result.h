#pragma once
/// A tuned trial's metric file as the worker reads it (docs/tuning.md): its result when the
/// task ends (the metric key of the last complete line) and, for pruning, its whole curve.
#include <string>
#include <vector>

#include "merlin/core/data/output_reader.h"

namespace merlin {

/// The result in `path` (JSON Lines; only its last 64 KiB are read), NaN when the file is
/// missing or no line has `key` as a number. `why` says what was missing, for the log.
double read_trial_result(const std::string& path, const std::string& key, std::string& why);

/// The (budget, value) lines of `path`'s last 256 KiB, in file order (data::metric_curve);
/// empty when the file is missing or has none. `size` is set to the file's size (-1 without
/// a file), so a caller can skip re-reading a file that has not grown.
std::vector<data::MetricPoint> read_trial_curve(const std::string& path, const std::string& key,
                                                long long& size);

}  // namespace merlin
