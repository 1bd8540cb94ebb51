#include "adapters/web/status_json.h"

#include <nlohmann/json.hpp>

#include <cctype>

#include "merlin/core/report/json_writer.h"

namespace merlin::web {
namespace {
using nlohmann::json;

json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json eta_json(const std::optional<double>& eta) { return eta ? json(*eta) : json(nullptr); }

json counts(const report::StepSnapshot& s) {
  const auto& r = s.status;
  return {{"instances", r.instances},
          {"total", r.total},
          {"done", r.done},
          {"failed", r.failed},
          {"running", r.running},
          {"queued", r.queued},
          {"count_unknown", r.count_unknown},
          {"mean_seconds", r.mean_seconds},
          {"rate_per_second", s.rate},
          {"eta_seconds", eta_json(s.eta)}};
}

// Percent-encodes all but unreserved characters (and '/' when `keep_slash`).
std::string encoded(const std::string& text, bool keep_slash) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || (keep_slash && c == '/') || c == '.' || c == '_' || c == '-' ||
        c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

std::string err_url(const std::string& err_file) { return "/err/" + encoded(err_file, true); }

std::string lean_err_url(const std::string& instance, std::uint64_t sample) {
  return "/logs?step=" + encoded(instance, false) + "&sample=" + std::to_string(sample);
}

std::string status_json(const report::StudySnapshot& s) {
  json steps = json::array();
  for (const auto& st : s.steps) {
    json row = counts(st);
    row["step"] = st.status.step;
    steps.push_back(std::move(row));
  }
  json failures = json::array();
  for (const auto& f : s.failures)
    failures.push_back(
        {{"step", f.step},
         {"sample", f.sample},
         {"dir", f.dir},
         {"return_code", text_or_null(f.return_code)},
         {"ended_at", f.ended_at ? json(f.ended_at) : json(nullptr)},
         {"worker", text_or_null(f.worker)},
         {"err_file", text_or_null(f.err_file)},
         {"err_url", !f.err_file.empty()             ? json(err_url(f.err_file))
                     : !f.instance.empty() && s.lean ? json(lean_err_url(f.instance, f.sample))
                                                     : json(nullptr)},
         {"logs_command", text_or_null(f.logs_command)}});
  json workers = json::array();
  for (const auto& w : s.workers)
    workers.push_back({{"name", w.name},
                       {"host", w.host},
                       {"pid", w.pid},
                       {"queues", w.queues},
                       {"concurrency", w.concurrency},
                       {"batch_job", text_or_null(w.batch_job)},
                       {"study", text_or_null(w.study)},
                       {"heartbeat_age_seconds", w.heartbeat_age},
                       {"alive", w.alive}});
  json throughput = json::array();
  for (const auto& p : s.throughput)
    throughput.push_back(
        {{"time", static_cast<double>(p.at_ms) / 1000.0}, {"finished", p.finished}});
  // The searches as `merlin status --format json` writes them (one writer for both).
  json searches = json::array();
  for (const auto& o : s.searches) searches.push_back(json::parse(report::to_json(o)));
  json out = {{"schema", kStatusSchema},
              {"study",
               {{"name", s.study_name},
                {"workspace", s.workspace},
                {"distributed", s.distributed},
                {"lean", s.lean},
                {"broker", text_or_null(s.broker)}}},
              {"updated_at", static_cast<double>(s.taken_at_ms) / 1000.0},
              {"error", text_or_null(s.error)},
              {"steps", std::move(steps)},
              {"totals", counts(s.totals)},
              {"failed_total", s.failed_total},
              {"failures", std::move(failures)},
              {"failures_error", text_or_null(s.failures_error)},
              {"workers", std::move(workers)},
              {"throughput", std::move(throughput)},
              {"searches", std::move(searches)}};
  // Replace, not throw, on bytes that are not UTF-8 (a path or a host name could hold them).
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace merlin::web
