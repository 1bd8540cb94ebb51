#pragma once
/// Where a study's task journals are, and whose each is. `merlin run --local` keeps
/// `merlin_info/merlin.journal`; each process of `merlin run-workers` keeps one per worker in
/// `merlin_info/tasks/<worker>@<host>.<pid>.journal`, so that workers on many nodes append to
/// files of their own (no lock on the shared file system) and `merlin detailed-status` can
/// name the worker of every task.
#include <string>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin {

/// `<info_dir>/merlin.journal`: the local run's journal.
std::string local_journal_path(const std::string& info_dir);

/// `<info_dir>/tasks/<worker>@<host_pid>.journal`; a '/' or a NUL in the worker's name
/// becomes '_'.
std::string worker_journal_path(const std::string& info_dir, const std::string& worker,
                                const std::string& host_pid);

/// The worker that keeps the journal at `path`: the name before the last '@' of a worker
/// journal's file name; "" for the local run's journal (Merlin names no worker there).
std::string journal_worker(const std::string& path);

/// Every task journal of the study, the local one first (when it exists), then the workers'
/// in name order.
Result<std::vector<std::string>> study_journals(const std::string& info_dir);

}  // namespace merlin
