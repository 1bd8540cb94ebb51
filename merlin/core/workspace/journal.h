#pragma once
/// A task journal: fixed-size binary records appended to a file. The local run keeps one,
/// `merlin_info/merlin.journal`: a record per committed sample, appended before the commit
/// returns, which `merlin restart` replays to skip finished work and `merlin status` sums; and
/// a "started" record when a task starts, for `merlin detailed-status`. Each distributed worker
/// keeps its own in `merlin_info/tasks/` (see task_journals.h). A torn last record (a crash
/// mid-write) is ignored. write(2) without fsync: survives a killed process, not a lost
/// machine.
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/study/ids.h"
#include "merlin/core/util/result.h"

namespace merlin {

struct JournalRecord {
  InstanceId instance;
  SampleId sample = 0;
  Outcome outcome = Outcome::kSuccess;  ///< of a finished record
  float seconds = 0;                    ///< run time, of a finished record
  bool started = false;                 ///< the task started (no outcome yet)
  /// A fan-out count record (docs/fanout.md): `sample` holds the instance's recorded count.
  bool count = false;
  /// A tuned trial's result record (docs/tuning.md): `value` is the result of task `sample`,
  /// written before that task's commit record; replayed in order, the results rebuild the
  /// rungs' decisions exactly.
  bool trial = false;
  double value = 0;
  std::uint32_t at = 0;  ///< when, in seconds since the epoch; 0 = not recorded
};

class JournalWriter {
 public:
  JournalWriter() = default;
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  ~JournalWriter();

  /// Opens (creating with a header if new) the journal at `path` for appending.
  Result<void> open(const std::string& path, std::uint32_t instances);
  /// Appends one record, stamped with the time now when its `at` is 0. Thread-safe.
  Result<void> append(const JournalRecord& r);

 private:
  std::mutex mu_;
  int fd_ = -1;
  std::string path_;
};

/// Called with each fan-out count record (instance, count), in order among the others.
using JournalCounts = std::function<void(InstanceId, std::uint64_t count)>;

/// Called with each trial result record (instance, task, value), in order among the others.
using JournalValues = std::function<void(InstanceId, SampleId task, double value)>;

/// Reads every complete finished record (and the started ones too with `with_starts`) of the
/// journal at `path`, in order; returns how many it read. Count records go to `on_count` when
/// given (else they are skipped, and not counted); trial result records likewise go to
/// `on_value`. A missing file is an empty journal.
/// Errors: a file that is not a journal, or one written for another instance count.
Result<std::uint64_t> read_journal(const std::string& path, std::uint32_t instances,
                                   const std::function<void(const JournalRecord&)>& each,
                                   bool with_starts = false, const JournalCounts& on_count = {},
                                   const JournalValues& on_value = {});

}  // namespace merlin
