#include "merlin/core/ml/train_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace merlin::ml {
namespace {

std::string numbers(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_number(v[i]);
  return s + "]";
}

template <typename T>
std::string optional_number(const std::optional<T>& v) {
  return v ? json_number(static_cast<double>(*v)) : "null";
}

}  // namespace

double worst_rmse(const EpochRecord& r) {
  double w = 0;
  for (double x : r.val_rmse) w = std::isnan(x) ? x : std::max(w, x);
  return w;
}

std::string epoch_line(const EpochRecord& r, int epochs, const std::vector<std::string>& targets) {
  std::string s = fmt::format("epoch={}/{} train_loss={:.6g}", r.epoch, epochs, r.train_loss);
  if (r.val_rmse.size() == 1) {
    s += fmt::format(" val_rmse={:.6g}", r.val_rmse[0]);
  } else {
    for (std::size_t i = 0; i < r.val_rmse.size(); ++i)
      s +=
          fmt::format(" val_rmse[{}]={:.6g}", i < targets.size() ? targets[i] : "?", r.val_rmse[i]);
  }
  return s + fmt::format(" seconds={:.3f} lr={:.3g}", r.seconds, r.lr);
}

std::string metrics_line(const EpochRecord& r, const std::vector<std::string>& targets) {
  std::string s =
      fmt::format(R"({{"budget": {}, "value": {}, "train_loss": {}, "lr": {}, )", r.epoch,
                  json_number(worst_rmse(r)), json_number(r.train_loss), json_number(r.lr));
  if (r.val_rmse.size() > 1) {
    s += R"("val_rmse": {)";
    for (std::size_t i = 0; i < r.val_rmse.size(); ++i)
      s += (i ? ", " : "") + json_string(i < targets.size() ? targets[i] : std::to_string(i)) +
           ": " + json_number(r.val_rmse[i]);
    s += "}, ";
  }
  return s + R"("seconds": )" + json_number(r.seconds) + "}";
}

TrainSummary summarize(const std::vector<EpochRecord>& history, const RunFacts& facts) {
  TrainSummary s;
  s.epochs = history.back().epoch;
  s.best_val_rmse = worst_rmse(history.front());
  s.best_epoch = history.front().epoch;
  double elapsed = 0;
  for (const auto& r : history) {
    elapsed += r.seconds;
    const double w = worst_rmse(r);
    if (w < s.best_val_rmse) {
      s.best_val_rmse = w;
      s.best_epoch = r.epoch;
    }
    if (facts.target_error && !s.epoch_to_target && w <= *facts.target_error) {
      s.seconds_to_target = r.since_start;
      s.epoch_seconds_to_target = elapsed;
      s.epoch_to_target = r.epoch;
    }
  }
  s.final_val_rmse = worst_rmse(history.back());
  s.epoch_seconds_total = elapsed;
  s.total_seconds = facts.process_seconds.value_or(elapsed);
  s.samples_per_second =
      elapsed > 0 ? static_cast<double>(facts.train_rows) * history.size() / elapsed : 0;
  return s;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", c);
        else
          out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  return fmt::format("{}", x);
}

std::string report_json(const std::vector<EpochRecord>& history, const RunFacts& facts) {
  const auto s = summarize(history, facts);
  std::string targets = "[";
  for (std::size_t i = 0; i < facts.targets.size(); ++i)
    targets += (i ? ", " : "") + json_string(facts.targets[i]);
  targets += "]";
  std::string epochs = "[";
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto& r = history[i];
    epochs += fmt::format(
        "{}\n    {{\"epoch\": {}, \"train_loss\": {}, \"val_rmse\": {}, "
        "\"seconds\": {}, \"since_start\": {}, \"lr\": {}}}",
        i ? "," : "", r.epoch, json_number(r.train_loss), numbers(r.val_rmse),
        json_number(r.seconds), json_number(r.since_start), json_number(r.lr));
  }
  epochs += "\n  ]";
  return fmt::format(
      "{{\n  \"ranks\": {},\n  \"epochs\": {},\n  \"train_rows\": {},\n  \"val_rows\": {},\n"
      "  \"targets\": {},\n  \"best_val_rmse\": {},\n  \"best_epoch\": {},\n"
      "  \"saved_epoch\": {},\n  \"final_val_rmse\": {},\n  \"final_val_rmse_per_target\": {},\n"
      "  \"baseline_val_rmse_per_target\": {},\n  \"target_error\": {},\n"
      "  \"stopped_at_target\": {},\n  \"seconds_to_target\": {},\n"
      "  \"epoch_seconds_to_target\": {},\n  \"epoch_to_target\": {},\n"
      "  \"total_seconds\": {},\n  \"epoch_seconds_total\": {},\n"
      "  \"samples_per_second\": {},\n  \"resumed_from_epoch\": {},\n  \"history\": {}\n}}\n",
      facts.ranks, s.epochs, facts.train_rows, facts.val_rows, targets,
      json_number(s.best_val_rmse), s.best_epoch, optional_number(facts.saved_epoch),
      json_number(s.final_val_rmse), numbers(history.back().val_rmse), numbers(facts.baseline_rmse),
      optional_number(facts.target_error), facts.stopped_at_target ? "true" : "false",
      optional_number(s.seconds_to_target), optional_number(s.epoch_seconds_to_target),
      optional_number(s.epoch_to_target), json_number(s.total_seconds),
      json_number(s.epoch_seconds_total), json_number(s.samples_per_second),
      optional_number(facts.resumed_from_epoch), epochs);
}

}  // namespace merlin::ml
