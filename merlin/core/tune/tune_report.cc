#include "merlin/core/tune/tune_report.h"

#include <algorithm>
#include <cmath>

#include "merlin/core/tune/trial_config.h"
#include "merlin/core/util/value_format.h"
#include "merlin/core/spec/tune_method_names.h"
#include "merlin/core/util/json_text.h"

namespace merlin::tune {
namespace {

std::string json_string(const std::string& s) { return json_quoted(s); }

std::string json_number(double v) { return std::isfinite(v) ? samples::format_float64(v) : "null"; }

// A dimension's value as JSON: numbers as numbers, choices as strings.
std::string json_value(const spec::TuneDimension& d, const std::string& text) {
  return d.kind == spec::TuneDimension::Kind::kChoice ? json_string(text) : text;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The leader: the board's first trial, when it has a result.
const TrialStanding* leader_of(const std::vector<TrialStanding>& board) {
  if (board.empty() || board.front().rung < 0 || std::isnan(board.front().value)) return nullptr;
  return &board.front();
}

}  // namespace

std::string trial_state(const TrialStanding& s, const TuneShape& shape, bool pruned) {
  if (s.rung < 0) return "waiting";
  if (!s.stopped) return "running";
  if (std::isnan(s.value)) return pruned ? "pruned" : "failed";
  return s.rung + 1 == static_cast<int>(shape.rungs) ? "completed" : "stopped";
}

std::string trial_dir_name(const TuneShape& shape, std::uint32_t trial) {
  const std::string digits = std::to_string(trial);
  const std::size_t width = std::to_string(shape.trials == 0 ? 0 : shape.trials - 1).size();
  return "trial_" + std::string(width - std::min(width, digits.size()), '0') + digits;
}

std::vector<TrialStanding> leaderboard(std::vector<TrialStanding> standings, bool maximize) {
  std::stable_sort(standings.begin(), standings.end(),
                   [&](const TrialStanding& a, const TrialStanding& b) {
                     if (a.rung != b.rung) return a.rung > b.rung;
                     const bool an = std::isnan(a.value), bn = std::isnan(b.value);
                     if (an != bn) return bn;
                     if (!an && a.value != b.value)
                       return maximize ? a.value > b.value : a.value < b.value;
                     return a.trial < b.trial;
                   });
  return standings;
}

std::string best_json(const spec::TuneSpec& spec, const TuneShape& shape,
                      const std::vector<TrialStanding>& board, const std::string& trial_dir) {
  const TrialStanding* leader = leader_of(board);
  if (!leader) return "{}\n";
  const TrialStanding& b = *leader;
  const auto values = trial_values(spec, b.trial);
  std::string out = "{\"trial\": " + std::to_string(b.trial) + ", \"rung\": " +
                    std::to_string(b.rung);
  const std::string budget = shape.budget_text(static_cast<std::uint32_t>(b.rung));
  if (!budget.empty()) out += ", \"budget\": " + budget;
  out += ", \"value\": " + json_number(b.value) + ", \"config\": {";
  for (std::size_t i = 0; i < spec.space.size(); ++i)
    out += (i ? ", " : "") + json_string(spec.space[i].name) + ": " +
           json_value(spec.space[i], values[i]);
  out += "}, \"method\": \"" + std::string(spec::tune_method_name(spec.method)) +
         "\", \"mode\": \"" + (spec.metric.maximize ? "max" : "min") +
         "\", \"trials\": " + std::to_string(shape.trials) +
         ", \"trial_dir\": " + json_string(trial_dir) + "}\n";
  return out;
}

std::string best_env(const spec::TuneSpec& spec, const TuneShape& shape,
                     const std::vector<TrialStanding>& board, const std::string& trial_dir) {
  const TrialStanding* leader = leader_of(board);
  if (!leader) return "";
  const TrialStanding& b = *leader;
  const auto values = trial_values(spec, b.trial);
  std::string out;
  for (std::size_t i = 0; i < spec.space.size(); ++i)
    out += spec.space[i].name + "=" + shell_quote(values[i]) + "\n";
  if (spec.budget)
    out += spec.budget->token + "=" +
           shell_quote(shape.budget_text(static_cast<std::uint32_t>(b.rung))) + "\n";
  out += "TRIAL=" + std::to_string(b.trial) + "\n";
  out += "TRIAL_VALUE=" + shell_quote(json_number(b.value)) + "\n";
  out += "TRIAL_DIR=" + shell_quote(trial_dir) + "\n";
  return out;
}

std::string trials_csv(const spec::TuneSpec& spec, const TuneShape& shape,
                       const std::vector<TrialStanding>& board,
                       const std::set<std::uint32_t>& pruned) {
  std::string out = "trial,rung,budget,value,state";
  for (const auto& d : spec.space) out += "," + csv_cell(d.name);
  out += "\n";
  for (const auto& s : board) {
    out += std::to_string(s.trial) + "," + (s.rung < 0 ? "" : std::to_string(s.rung)) + "," +
           (s.rung < 0 ? "" : shape.budget_text(static_cast<std::uint32_t>(s.rung))) + "," +
           (s.rung < 0 || std::isnan(s.value) ? "" : samples::format_float64(s.value)) + "," +
           trial_state(s, shape, pruned.count(s.trial) != 0);
    for (const auto& v : trial_values(spec, s.trial)) out += "," + csv_cell(v);
    out += "\n";
  }
  return out;
}

}  // namespace merlin::tune
