#pragma once
/// A tuned trial's result as the worker reads it when the task ends (docs/tuning.md): the
/// metric key of the last complete line of the trial's metric file.
#include <string>

namespace merlin {

/// The result in `path` (JSON Lines; only its last 64 KiB are read), NaN when the file is
/// missing or no line has `key` as a number. `why` says what was missing, for the log.
double read_trial_result(const std::string& path, const std::string& key, std::string& why);

}  // namespace merlin
