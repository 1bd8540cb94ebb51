#include "merlin/run/collect_plan.h"

#include <cstdlib>
#include <limits>

#include "merlin/core/spec/did_you_mean.h"

namespace merlin::run::collect {
using data::SampleStatus;

Result<std::vector<OutputFile>> output_files(const std::vector<std::string>& files) {
  std::vector<OutputFile> out;
  if (files.empty()) return Error::bad_input("give the output files to read: --file NAME");
  for (const auto& f : files) {
    auto kind = data::output_kind(f);
    if (!kind) return kind.error();
    if (f.empty() || f[0] == '/')
      return Error::bad_input("--file " + f + ": a path relative to each sample's directory");
    for (const auto& g : out)
      if (data::output_stem(g.name) == data::output_stem(f))
        return Error::bad_input("--file " + f + " and " + g.name +
                                " would make fields of one name (" + data::output_stem(f) + ")");
    out.push_back({f, *kind, data::output_stem(f)});
  }
  return out;
}

Result<const StepNode*> collectable_step(const StudyGraph& g, const std::string& step) {
  const StepNode* node = nullptr;
  std::vector<std::string> names;
  for (const auto& n : g.steps()) {
    names.push_back(n.name);
    if (n.name == step) node = &n;
  }
  if (!node)
    return Error::bad_input("--step " + step + ": the study has no such step" +
                            spec::suggestion_suffix(step, names));
  if (!node->sampled)
    return Error::bad_input("--step " + step +
                            ": not a sampled step (its commands name no sample column), so it has "
                            "no per-sample outputs to collect");
  if (node->instance_count != 1)
    return Error::bad_input("--step " + step + ": it runs for " +
                            std::to_string(node->instance_count) + " parameter combinations" +
                            (node->loop >= 0 ? " in each loop iteration" : "") +
                            "; merlin collect takes a step of one");
  return node;
}

std::string layout_mismatch(const data::DatasetLayout& file, const data::DatasetLayout& want) {
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return "[" + s + "]";
  };
  if (file.step != want.step) return "it holds step '" + file.step + "', not '" + want.step + "'";
  if (file.files != want.files)
    return "it holds the files " + list(file.files) + ", not " + list(want.files);
  if (file.iterations != want.iterations)
    return file.iterations ? "it has an /iteration column (a loop or fan-out step's file)"
                           : "it has no /iteration column, which a loop or fan-out step's "
                             "rows need (a file of an earlier merlin, or of another step)";
  if (file.input_columns != want.input_columns)
    return "its inputs are " + list(file.input_columns) + ", the study's " +
           list(want.input_columns);
  return "";
}

void Ledger::record_row(std::uint64_t row, std::uint64_t id, SampleStatus status) {
  if (id >= taken.size()) return;
  taken[id] = true;
  if (status != SampleStatus::kOk)
    redo[id] = {row, status};
  else
    redo.erase(id);
}

Round plan_round(const Ledger& ledger, const std::vector<bool>& finished,
                 const std::vector<bool>& succeeded, bool first_round) {
  const std::uint64_t samples = ledger.taken.size();
  Round r;
  r.todo.assign(samples, false);
  for (std::uint64_t i = 0; i < samples; ++i)
    if (finished[i] && !ledger.taken[i]) {
      r.todo[i] = true;
      r.count++;
    }
  // Missing and malformed rows are read again in the first round; failed rows whenever their
  // journal shows a success (a sample repaired by a restart).
  for (const auto& [id, redo] : ledger.redo)
    if (redo.was == SampleStatus::kFailed ? bool(succeeded[id]) : first_round && finished[id]) {
      r.todo[id] = true;
      r.count++;
    }
  return r;
}

Handoff route_read(Ledger& ledger, std::uint64_t id, SampleStatus now) {
  if (auto again = ledger.redo.find(id); again != ledger.redo.end() && ledger.taken[id]) {
    Handoff h{true, again->second};
    if (now != SampleStatus::kFailed) ledger.redo.erase(again);  // read: not again
    return h;
  }
  ledger.taken[id] = true;
  return {};
}

NextRound next_round(bool follow, bool local, std::uint64_t finished, std::uint64_t samples,
                     const std::function<bool()>& run_alive, FollowState& state,
                     std::chrono::steady_clock::time_point now,
                     std::chrono::steady_clock::duration gone_after) {
  if (!follow || finished == samples) return NextRound::kDone;
  // A local run that is gone finishes nothing more: stop rather than wait forever. Its
  // status.live is rewritten every second while it runs (and may not be there yet in its
  // first second), so "gone" is no live file and no new commit for `gone_after`.
  if (!local || run_alive() || finished != state.last_finished) state.alive_at = now;
  if (now - state.alive_at >= gone_after) return NextRound::kGone;
  state.last_finished = finished;
  return NextRound::kPoll;
}

CollectSummary summary_of(CollectSummary sum, const WriterTally& t) {
  sum.missing = t.counts[static_cast<int>(SampleStatus::kMissing)];
  sum.ok = t.counts[static_cast<int>(SampleStatus::kOk)];
  sum.failed = t.counts[static_cast<int>(SampleStatus::kFailed)];
  sum.malformed = t.counts[static_cast<int>(SampleStatus::kMalformed)];
  sum.written = t.written;
  sum.unwritten = t.waiting;
  sum.rows = t.rows;
  sum.rewritten = t.rewritten;
  sum.rewritten_ok = t.rewritten_counts[static_cast<int>(SampleStatus::kOk)];
  return sum;
}

double input_value(const std::string& v) {
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  return end != v.c_str() && *end == '\0' ? d : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace merlin::run::collect
