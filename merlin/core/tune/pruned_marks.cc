#include "merlin/core/tune/pruned_marks.h"

#include <sys/stat.h>

#include <cmath>

#include "merlin/core/tune/tune_report.h"

namespace merlin::tune {

std::set<std::uint32_t> pruned_trials(const std::string& instance_dir, const TuneShape& shape,
                                      const std::vector<TrialStanding>& standings) {
  std::set<std::uint32_t> out;
  for (const auto& s : standings) {
    if (s.rung < 0 || !s.stopped || !std::isnan(s.value)) continue;
    struct stat st {};
    const std::string path =
        instance_dir + "/" + trial_dir_name(shape, s.trial) + "/" + kPrunedMarker;
    if (::stat(path.c_str(), &st) == 0) out.insert(s.trial);
  }
  return out;
}

}  // namespace merlin::tune
