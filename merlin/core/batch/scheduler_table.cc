// The table of schedulers: a new batch system is a file in schedulers/ and a line here.
#include <fmt/format.h>

#include "merlin/core/batch/scheduler.h"

namespace merlin::batch {

// Defined one per file in merlin/core/batch/schedulers/.
const Scheduler& local_scheduler();
const Scheduler& slurm_scheduler();
const Scheduler& flux_scheduler();
const Scheduler& lsf_scheduler();
const Scheduler& lsf_srun_scheduler();
const Scheduler& pbs_scheduler();

const std::vector<const Scheduler*>& schedulers() {
  static const std::vector<const Scheduler*> table = {
      &local_scheduler(), &slurm_scheduler(),      &flux_scheduler(),
      &lsf_scheduler(),   &lsf_srun_scheduler(), &pbs_scheduler(),
  };
  return table;
}

const Scheduler* find_scheduler(std::string_view type) {
  for (const auto* s : schedulers())
    if (s->type() == type) return s;
  return nullptr;
}

std::string hms(long seconds) {
  return fmt::format("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60);
}

}  // namespace merlin::batch
