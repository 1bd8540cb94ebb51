#include "merlin/run/status_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "merlin/core/report/csv_writer.h"
#include "merlin/core/report/json_writer.h"
#include "merlin/core/report/text_writer.h"

namespace merlin::run {

std::vector<StepStatus> step_status(const StudyGraph& graph,
                                    const std::vector<InstanceProgress>& progress,
                                    const std::vector<std::uint32_t>& running) {
  std::vector<StepStatus> rows;
  for (const auto& node : graph.spec().steps) {
    StepStatus row;
    row.step = node.name;
    rows.push_back(row);
  }
  std::vector<double> seconds(rows.size(), 0);
  for (const auto& inst : graph.instances()) {
    auto& row = rows[inst.step.v];
    row.instances++;
    const bool known = inst.id.v < progress.size() && progress[inst.id.v].count_known;
    if (!graph.unknown_at_start(inst.id))
      row.total += inst.count;
    else if (known)
      row.total += progress[inst.id.v].total;
    else
      row.count_unknown++;
    if (inst.id.v < progress.size()) {
      row.done += progress[inst.id.v].done;
      row.failed += progress[inst.id.v].failed;
      seconds[inst.step.v] += progress[inst.id.v].seconds;
    }
    if (inst.id.v < running.size()) row.running += running[inst.id.v];
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    r.done -= r.failed;  // DONE counts successes; FAILED the rest of the finished
    r.queued = r.total - std::min(r.total, r.done + r.failed + r.running);
    std::uint64_t finished = r.done + r.failed;
    r.mean_seconds = finished > 0 ? seconds[i] / static_cast<double>(finished) : 0;
  }
  return rows;
}

report::Table status_table(const std::vector<StepStatus>& rows) {
  using report::Align;
  auto number = [](const char* header, const char* key, std::size_t width) {
    return report::Column{.header = header, .key = key, .align = Align::kRight, .min_width = width};
  };
  report::Table t;
  t.columns = {{.header = "STEP", .key = "step", .align = Align::kLeft},
               number("INSTANCES", "instances", 9),
               number("TOTAL", "total", 10),
               number("DONE", "done", 10),
               number("FAILED", "failed", 8),
               number("RUNNING", "running", 8),
               number("QUEUED", "queued", 10),
               {.header = "MEAN(s)",
                .key = "mean_seconds",
                .align = Align::kRight,
                .min_width = 9,
                .decimals = 3}};
  for (const auto& r : rows)
    t.rows.push_back({r.step, r.instances, r.total, r.done, r.failed, r.running, r.queued,
                      std::round(r.mean_seconds * 1e6) / 1e6});  // journals hold float seconds
  return t;
}

std::string format_status(const std::vector<StepStatus>& rows, StatusFormat format) {
  report::Table t = status_table(rows);
  if (format == StatusFormat::kJson) return report::to_json(t);
  if (format == StatusFormat::kCsv) {
    t.columns.back().decimals = 6;
    return report::to_csv(t, report::CsvHeader::kKeys);
  }
  std::string out = report::to_text(t);
  for (const auto& r : rows)
    if (r.count_unknown > 0)
      out += fmt::format("{}: {} instance{} pending, count unknown (not released yet)\n", r.step,
                         r.count_unknown, r.count_unknown == 1 ? "" : "s");
  return out;
}

std::string status_document(const std::vector<StepStatus>& rows,
                            const std::vector<SearchBoard>& searches, std::size_t trials,
                            StatusFormat format, bool searches_only) {
  if (!searches_only) {
    if (format != StatusFormat::kTable) return format_status(rows, format);
    return format_status(rows, format) + searches_text(searches, trials);
  }
  if (format != StatusFormat::kJson) return searches_text(searches, trials);
  // An array of search objects, each written as to_json(Object) writes one.
  std::string out = "[";
  for (std::size_t i = 0; i < searches.size(); ++i)
    out += (i ? ",\n" : "\n") + report::to_json(search_object(searches[i], trials));
  if (!searches.empty() && out.back() == '\n') out.pop_back();
  return out + (searches.empty() ? "]\n" : "\n]\n");
}

std::string progress_line(std::uint64_t done, std::uint64_t total, double elapsed) {
  double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  double pct = total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0;
  std::string eta = "--";
  if (rate > 0 && done < total) {
    auto s = static_cast<long long>(static_cast<double>(total - done) / rate);
    eta = s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60)
          : s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60)
                    : fmt::format("{}s", s);
  }
  return fmt::format("{}/{} tasks ({:.1f}%)  {:.1f}/s  ETA {}", done, total, pct, rate, eta);
}

}  // namespace merlin::run
