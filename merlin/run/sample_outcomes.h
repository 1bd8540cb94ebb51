#pragma once
/// Which samples of one step instance have finished, and whether they succeeded, as the
/// study's task journals say (the local run's and every worker's: the files detailed-status
/// reads). Two bits per sample; no directory is walked.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "merlin/core/study/ids.h"
#include "merlin/core/workspace/journal_tail.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

struct SampleOutcomes {
  std::vector<bool> finished;   ///< a commit is recorded for the sample
  std::vector<bool> succeeded;  ///< one of its commits was a success (or stop-workers)
  std::uint64_t finished_count = 0;
};

/// Reads every journal of `info_dir` (a study of `instances` instances) for `instance`'s
/// `count` samples. A sample that failed and then succeeded on a restart counts as succeeded.
/// Errors: a journal that is not one, or of another study (kBadInput, naming it).
Result<SampleOutcomes> read_sample_outcomes(const std::string& info_dir, std::uint32_t instances,
                                            InstanceId instance, std::uint64_t count);

/// read_sample_outcomes kept up to date: `out` (of `count` samples; made so when it is of
/// another size or the journals were replaced) gets what the journals appended since the last
/// call through `tail` (only the new bytes are read). Returns what was read.
Result<TailRead> follow_sample_outcomes(JournalTail& tail, const std::string& info_dir,
                                        std::uint32_t instances, InstanceId instance,
                                        std::uint64_t count, SampleOutcomes& out);

/// What the journals say of one instance whose count may be decided at run time (a loop
/// iteration, a fan-out instance).
struct InstanceRecords {
  std::optional<std::uint64_t> recorded;  ///< its last count record (local runs keep them)
  bool journaled = false;                 ///< a task of it started or finished
  SampleOutcomes outcomes;                ///< sized to its highest sample finished, plus one
};

/// Reads every journal of `info_dir` (a study of `instances` instances) once for the instances
/// `wanted`: their count records, started tasks and finished samples (a sample id at or past
/// `max_samples`, which no instance of theirs can have, is ignored). Errors as
/// read_sample_outcomes.
Result<std::unordered_map<std::uint32_t, InstanceRecords>> read_instance_records(
    const std::string& info_dir, std::uint32_t instances, const std::vector<InstanceId>& wanted,
    std::uint64_t max_samples);

/// read_instance_records kept up to date through `tail`, as follow_sample_outcomes (`wanted`
/// the same at every call).
Result<TailRead> follow_instance_records(
    JournalTail& tail, const std::string& info_dir, std::uint32_t instances,
    const std::vector<InstanceId>& wanted, std::uint64_t max_samples,
    std::unordered_map<std::uint32_t, InstanceRecords>& out);

}  // namespace merlin::run
