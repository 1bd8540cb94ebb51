#include "merlin/run/collect_sources.h"

#include <algorithm>
#include <limits>

#include "merlin/core/util/log.h"
#include "merlin/run/collect_plan.h"

namespace merlin::run {

CollectSources::CollectSources(const PreparedStudy& study, const StepNode& node)
    : study_(study), node_(node) {
  const StudyGraph& g = *study_.graph;
  iterated_ = node_.fanout || node_.loop >= 0;
  iterations_ = node_.loop >= 0 ? g.loops()[node_.loop].iterations : 1;
  warned_.assign(iterations_, false);
  if (!iterated_) {
    keys_.add(1, node_.first_instance, g.instance(node_.first_instance).count);
    tables_.push_back(study_.table.get());
  }
}

std::string CollectSources::dir_of(std::uint64_t key) const {
  const auto& p = part(key);
  return study_.renderer->task_dir(p.instance, key - p.offset);
}

void CollectSources::inputs(std::uint64_t key, std::size_t columns,
                            std::vector<double>& out) const {
  const std::size_t i = keys_.part_index(key);
  const samples::SampleTable* table = tables_[i];
  const std::uint64_t id = key - keys_.parts()[i].offset;
  for (std::size_t c = 0; c < columns; ++c)
    out.push_back(table && c < table->columns() ? collect::input_value(table->value(id, c))
                                                : std::numeric_limits<double>::quiet_NaN());
}

Result<CollectObservation> CollectSources::observe() {
  CollectObservation ob;
  const std::string& info_dir = study_.tokens.info_dir;
  const StudyGraph& g = *study_.graph;
  const auto instances = static_cast<std::uint32_t>(g.instances().size());
  auto note = [&](const TailRead& t) {
    ++polls_;
    bytes_read_ += t.bytes;
    log::debug("collect: poll {}: {} journal bytes read ({} records, {} journals{}); {} in all",
               polls_, t.bytes, t.records, t.journals, t.rebuilt ? ", read anew" : "",
               bytes_read_);
  };
  if (!iterated_) {
    auto t = follow_sample_outcomes(tail_, info_dir, instances, node_.first_instance,
                                    keys_.size(), outcomes_);
    if (!t) return t.error();
    note(*t);
    ob.outcomes = outcomes_;
    return ob;
  }
  const FanoutTables& fanout = study_.renderer->fanout();
  const StepNode* decider = node_.loop >= 0 ? &g.step(g.loops()[node_.loop].decider) : nullptr;
  std::vector<InstanceId> wanted;
  for (std::uint32_t it = 1; it <= iterations_; ++it) {
    wanted.push_back(g.in_iteration(node_.id, 0, it));
    for (std::uint32_t k = 0; decider && k < decider->instance_count; ++k)
      wanted.push_back(g.in_iteration(decider->id, k, it));
  }
  const std::uint64_t static_count = node_.fanout ? 0 : g.instance(node_.first_instance).count;
  const std::uint64_t max_samples = std::max<std::uint64_t>(
      1, node_.fanout ? node_.spec->run.samples_from->max_rows : static_count);
  auto t = follow_instance_records(tail_, info_dir, instances, wanted, max_samples, records_);
  if (!t) return t.error();
  note(*t);
  auto* records = &records_;
  std::vector<collect::IterationSeen> seen;
  std::vector<collect::IterationRows> rows;
  for (std::uint32_t it = 1; it <= iterations_; ++it) {
    const InstanceId inst = g.in_iteration(node_.id, 0, it);
    const InstanceRecords& rec = (*records)[inst.v];
    collect::IterationSeen v;
    v.iteration = it;
    v.recorded = rec.recorded;
    v.journaled = rec.journaled;
    v.finished_any = rec.outcomes.finished_count > 0;
    const samples::SampleTable* table = nullptr;
    std::string why;
    if (node_.fanout && !keys_.has(it)) {
      // The copy its tasks were rendered from (merlin_info/fanout/): the rows as it ran them.
      if (auto t = fanout.table(inst)) {
        table = *t;
        v.table_rows = table->rows();
      } else {
        why = t.error().message;
      }
    }
    if (decider) {
      // Deciders finished, not all of which left MERLIN_LOOP_AGAIN, ended the loop at this
      // iteration (the Plan releases the next only when every one of them asks for it).
      bool all = decider->instance_count > 0, again = true;
      for (std::uint32_t k = 0; k < decider->instance_count; ++k) {
        const InstanceId d = g.in_iteration(decider->id, k, it);
        if ((*records)[d.v].outcomes.finished_count == 0)
          all = false;
        else
          again = again && fanout.loop_again(d);
      }
      v.stop_after = all && !again;
    }
    collect::IterationRows r = collect::iteration_rows(v, node_.fanout, static_count);
    if (keys_.has(it)) r = {it, collect::IterationState::kRows, 0};  // found in an earlier call
    if (r.state == collect::IterationState::kRows && keys_.add(it, inst, r.count))
      tables_.push_back(node_.fanout ? table : study_.table.get());
    if (r.state == collect::IterationState::kNoTable) {
      ob.no_table++;
      if (!warned_[it - 1]) {
        warned_[it - 1] = true;
        log::warn(
            "collect: iteration {} of step {} has no rows: {} (fix the file, then merlin "
            "restart the study and collect again)",
            it, node_.name, why.empty() ? "its samples were never read" : why);
      }
    }
    seen.push_back(v);
    rows.push_back(r);
  }
  ob.more_to_come = collect::more_to_come(seen, rows);
  SampleOutcomes& out = ob.outcomes;
  out.finished.assign(keys_.size(), false);
  out.succeeded.assign(keys_.size(), false);
  for (const auto& p : keys_.parts()) {
    const SampleOutcomes& o = (*records)[p.instance.v].outcomes;
    for (std::uint64_t id = 0; id < p.count && id < o.finished.size(); ++id)
      if (o.finished[id]) {
        out.finished[p.offset + id] = true;
        out.succeeded[p.offset + id] = o.succeeded[id];
        out.finished_count++;
      }
  }
  return ob;
}

}  // namespace merlin::run
