#include "merlin/run/search_board.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "merlin/core/report/text_writer.h"
#include "merlin/core/tune/pruned_marks.h"
#include "merlin/core/tune/trial_config.h"
#include "merlin/core/tune/tune_report.h"
#include "merlin/core/spec/tune_method_names.h"

namespace merlin::run {
namespace {

// A budget as a cell: an integer when whole, else a number shown as its token text.
report::Cell budget_cell(const tune::TuneShape& shape, int rung) {
  if (rung < 0 || shape.budgets.empty()) return {};
  const double b = shape.budgets[static_cast<std::size_t>(rung)];
  if (b == std::floor(b) && std::fabs(b) < 9e15) return static_cast<std::int64_t>(b);
  return report::Cell(b).shown_as(shape.budget_text(static_cast<std::uint32_t>(rung)));
}

report::Cell dimension_cell(const spec::TuneDimension& d, const std::string& text) {
  switch (d.kind) {
    case spec::TuneDimension::Kind::kChoice:
      return text;
    case spec::TuneDimension::Kind::kInteger:
      return static_cast<std::int64_t>(std::stoll(text));
    default:
      return report::Cell(std::stod(text)).shown_as(fmt::format("{:.6g}", std::stod(text)));
  }
}

bool has_result(const tune::TrialStanding& s) { return s.rung >= 0 && !std::isnan(s.value); }

std::string value_text(double v) { return fmt::format("{:.6g}", v); }

}  // namespace

SearchCounts search_counts(const SearchBoard& search) {
  SearchCounts c;
  c.trials = static_cast<std::uint32_t>(search.board.size());
  for (const auto& s : search.board) {
    const std::string state =
        tune::trial_state(s, search.shape, search.pruned.count(s.trial) != 0);
    if (state == "waiting") ++c.waiting;
    else if (state == "pruned") ++c.pruned;
    else if (state == "running") ++c.running;
    else if (state == "completed") ++c.completed;
    else if (state == "stopped") ++c.stopped;
    else ++c.failed;
    if (has_result(s) && s.rung + 1 == static_cast<int>(search.shape.rungs)) ++c.full;
  }
  if (!search.board.empty() && has_result(search.board.front())) c.best = search.board.front();
  return c;
}

std::string search_title(const SearchBoard& search) {
  const SearchCounts c = search_counts(search);
  std::string out = search.step;
  if (!search.labels.empty()) out += " (" + search.labels + ")";
  out += fmt::format(": {} trial{}, {} at the full budget", c.trials, c.trials == 1 ? "" : "s",
                     c.full);
  if (!search.shape.budgets.empty())
    out += " (" + search.shape.budget_text(search.shape.rungs - 1) + ")";
  out += fmt::format(", {} stopped", c.stopped);
  if (c.pruned) out += fmt::format(", {} pruned", c.pruned);
  if (c.failed) out += fmt::format(", {} failed", c.failed);
  if (c.running) out += fmt::format(", {} running", c.running);
  if (c.waiting) out += fmt::format(", {} waiting", c.waiting);
  if (c.best)
    out += fmt::format(", best {} (trial {})", value_text(c.best->value), c.best->trial);
  else
    out += ", no result yet";
  return out;
}

report::Table search_table(const SearchBoard& search, std::size_t limit) {
  using report::Align;
  report::Table t;
  t.columns = {{.header = "RANK", .key = "rank", .align = Align::kRight},
               {.header = "TRIAL", .key = "trial", .align = Align::kRight},
               {.header = "RUNG", .key = "rung", .align = Align::kRight},
               {.header = "BUDGET", .key = "budget", .align = Align::kRight},
               {.header = "VALUE", .key = "value", .align = Align::kRight},
               {.header = "STATE", .key = "state", .align = Align::kLeft}};
  for (const auto& d : search.spec.space) {
    // A dimension named like a fixed column gets its own key.
    const bool taken = std::any_of(t.columns.begin(), t.columns.begin() + 6,
                                   [&](const report::Column& c) { return c.key == d.name; });
    t.columns.push_back(
        {.header = d.name, .key = taken ? "config." + d.name : d.name, .align = Align::kAuto});
  }
  const std::size_t n =
      limit == 0 ? search.board.size() : std::min(limit, search.board.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = search.board[i];
    std::vector<report::Cell> row{static_cast<std::uint64_t>(i + 1),
                                  static_cast<std::uint64_t>(s.trial)};
    row.push_back(s.rung < 0 ? report::Cell() : report::Cell(static_cast<std::int64_t>(s.rung)));
    row.push_back(budget_cell(search.shape, s.rung));
    row.push_back(has_result(s) ? report::Cell(s.value).shown_as(value_text(s.value))
                                : report::Cell());
    row.push_back(tune::trial_state(s, search.shape, search.pruned.count(s.trial) != 0));
    const auto values = tune::trial_values(search.spec, s.trial);
    for (std::size_t d = 0; d < search.spec.space.size() && d < values.size(); ++d)
      row.push_back(dimension_cell(search.spec.space[d], values[d]));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Result<std::vector<SearchBoard>> search_boards(const StudyGraph& graph, StateStore& store) {
  std::vector<SearchBoard> out;
  for (const auto& inst : graph.instances()) {
    const StepNode& node = graph.step_of(inst.id);
    if (!node.tune || !node.spec || !node.spec->run.tune) continue;
    // The store learns the shape (idempotent): a broker's store answers from it before the
    // search's first commit.
    store.set_tuned(inst.id, *node.tune);
    auto standings = store.standings(inst.id);
    if (!standings) return standings.error();
    if (standings->empty()) continue;
    SearchBoard b;
    b.step = node.name;
    b.labels = inst.labels;
    b.instance = inst.rel_dir;
    b.spec = *node.spec->run.tune;
    b.shape = *node.tune;
    b.board = tune::leaderboard(std::move(*standings), b.shape.maximize);
    b.pruned = tune::pruned_trials(graph.tokens().workspace + "/" + inst.rel_dir, b.shape, b.board);
    out.push_back(std::move(b));
  }
  return out;
}

report::Object search_object(const SearchBoard& search, std::size_t limit) {
  const SearchCounts c = search_counts(search);
  const auto& shape = search.shape;
  report::Object o;
  o.push_back({"step", search.step});
  o.push_back({"labels", report::text_or_null(search.labels)});
  o.push_back({"instance", search.instance});
  o.push_back({"method", spec::tune_method_name(search.spec.method)});
  o.push_back({"mode", search.spec.metric.maximize ? "max" : "min"});
  o.push_back({"trials", static_cast<std::uint64_t>(c.trials)});
  o.push_back({"full_budget", static_cast<std::uint64_t>(c.full)});
  o.push_back({"budget", budget_cell(shape, static_cast<int>(shape.rungs) - 1)});
  o.push_back({"waiting", static_cast<std::uint64_t>(c.waiting)});
  o.push_back({"running", static_cast<std::uint64_t>(c.running)});
  o.push_back({"completed", static_cast<std::uint64_t>(c.completed)});
  o.push_back({"stopped", static_cast<std::uint64_t>(c.stopped)});
  o.push_back({"pruned", static_cast<std::uint64_t>(c.pruned)});
  o.push_back({"failed", static_cast<std::uint64_t>(c.failed)});
  report::Cell best_trial, best_value;
  if (c.best) {
    best_trial = static_cast<std::uint64_t>(c.best->trial);
    best_value = c.best->value;
  }
  o.push_back({"best_trial", best_trial});
  o.push_back({"best_value", best_value});
  o.push_back({"leaderboard", search_table(search, limit)});
  return o;
}

std::string searches_text(const std::vector<SearchBoard>& searches, std::size_t limit) {
  std::string out;
  for (const auto& s : searches) {
    out += "\n" + search_title(s) + "\n";
    report::Table t = search_table(s, limit);
    out += report::to_text(t);
    if (t.rows.size() < s.board.size())
      out += fmt::format("({} more; --trials 0 shows every trial)\n",
                         s.board.size() - t.rows.size());
  }
  return out;
}

}  // namespace merlin::run
