#include "merlin/run/sample_outcomes.h"

#include "merlin/core/workspace/journal.h"

namespace merlin::run {
namespace {

void mark(SampleOutcomes& o, const JournalRecord& r) {
  if (!o.finished[r.sample]) {
    o.finished[r.sample] = true;
    o.finished_count++;
  }
  if (r.outcome == Outcome::kSuccess || r.outcome == Outcome::kStopped)
    o.succeeded[r.sample] = true;
}

}  // namespace

Result<TailRead> follow_sample_outcomes(JournalTail& tail, const std::string& info_dir,
                                        std::uint32_t instances, InstanceId instance,
                                        std::uint64_t count, SampleOutcomes& out) {
  auto reset = [&] {
    out = SampleOutcomes{};
    out.finished.assign(count, false);
    out.succeeded.assign(count, false);
  };
  if (out.finished.size() != count) reset();
  return tail.read(info_dir, instances, reset, [&](const JournalRecord& r) {
    if (r.instance.v != instance.v || r.sample >= count) return;
    mark(out, r);
  });
}

Result<SampleOutcomes> read_sample_outcomes(const std::string& info_dir, std::uint32_t instances,
                                            InstanceId instance, std::uint64_t count) {
  JournalTail tail;
  SampleOutcomes out;
  auto r = follow_sample_outcomes(tail, info_dir, instances, instance, count, out);
  if (!r) return r.error();
  return out;
}

Result<TailRead> follow_instance_records(
    JournalTail& tail, const std::string& info_dir, std::uint32_t instances,
    const std::vector<InstanceId>& wanted, std::uint64_t max_samples,
    std::unordered_map<std::uint32_t, InstanceRecords>& out) {
  auto reset = [&] {
    out.clear();
    for (auto w : wanted) out[w.v];
  };
  if (out.empty()) reset();
  return tail.read(
      info_dir, instances, reset,
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
        mark(o, r);
      },
      /*with_starts=*/true,
      [&](InstanceId i, std::uint64_t count) {
        if (auto it = out.find(i.v); it != out.end()) it->second.recorded = count;
      });
}

Result<std::unordered_map<std::uint32_t, InstanceRecords>> read_instance_records(
    const std::string& info_dir, std::uint32_t instances, const std::vector<InstanceId>& wanted,
    std::uint64_t max_samples) {
  JournalTail tail;
  std::unordered_map<std::uint32_t, InstanceRecords> out;
  auto r = follow_instance_records(tail, info_dir, instances, wanted, max_samples, out);
  if (!r) return r.error();
  return out;
}

}  // namespace merlin::run
