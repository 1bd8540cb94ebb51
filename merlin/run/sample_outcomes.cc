#include "merlin/run/sample_outcomes.h"

#include "merlin/core/workspace/journal.h"
#include "merlin/core/workspace/task_journals.h"

namespace merlin::run {

Result<SampleOutcomes> read_sample_outcomes(const std::string& info_dir, std::uint32_t instances,
                                            InstanceId instance, std::uint64_t count) {
  SampleOutcomes out;
  out.finished.assign(count, false);
  out.succeeded.assign(count, false);
  auto journals = study_journals(info_dir);
  if (!journals) return journals.error();
  for (const auto& path : *journals) {
    auto n = read_journal(path, instances, [&](const JournalRecord& r) {
      if (r.instance.v != instance.v || r.sample >= count) return;
      if (!out.finished[r.sample]) {
        out.finished[r.sample] = true;
        out.finished_count++;
      }
      if (r.outcome == Outcome::kSuccess || r.outcome == Outcome::kStopped)
        out.succeeded[r.sample] = true;
    });
    if (!n) return n.error();
  }
  return out;
}

}  // namespace merlin::run
