#pragma once
/// Which samples of one step instance have finished, and whether they succeeded, as the
/// study's task journals say (the local run's and every worker's: the files detailed-status
/// reads). Two bits per sample; no directory is walked.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/study/ids.h"
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

}  // namespace merlin::run
