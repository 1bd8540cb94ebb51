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

Result<std::unordered_map<std::uint32_t, InstanceRecords>> read_instance_records(
    const std::string& info_dir, std::uint32_t instances, const std::vector<InstanceId>& wanted,
    std::uint64_t max_samples) {
  std::unordered_map<std::uint32_t, InstanceRecords> out;
  for (auto w : wanted) out[w.v];
  auto journals = study_journals(info_dir);
  if (!journals) return journals.error();
  for (const auto& path : *journals) {
    auto n = read_journal(
        path, instances,
        [&](const JournalRecord& r) {
          auto it = out.find(r.instance.v);
          if (it == out.end()) return;
          InstanceRecords& rec = it->second;
          rec.journaled = true;
          if (r.started || r.sample >= max_samples) return;
          SampleOutcomes& o = rec.outcomes;
          if (r.sample >= o.finished.size()) {
            o.finished.resize(r.sample + 1, false);
            o.succeeded.resize(r.sample + 1, false);
          }
          if (!o.finished[r.sample]) {
            o.finished[r.sample] = true;
            o.finished_count++;
          }
          if (r.outcome == Outcome::kSuccess || r.outcome == Outcome::kStopped)
            o.succeeded[r.sample] = true;
        },
        /*with_starts=*/true,
        [&](InstanceId i, std::uint64_t count) {
          if (auto it = out.find(i.v); it != out.end()) it->second.recorded = count;
        });
    if (!n) return n.error();
  }
  return out;
}

}  // namespace merlin::run
