#include "merlin/core/ml/model_card.h"

#include <fmt/format.h>

#include "merlin/core/ml/train_report.h"

namespace merlin::ml {
namespace {

std::string strings(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_string(v[i]);
  return s + "]";
}

template <typename T>
std::string numbers(const std::vector<T>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + json_number(static_cast<double>(v[i]));
  return s + "]";
}

}  // namespace

std::string model_card_json(const ModelCard& c) {
  return fmt::format(
      "{{\n  \"format\": \"merlin-train-mlp\",\n  \"format_version\": 1,\n  \"inputs\": {},\n"
      "  \"targets\": {},\n  \"hidden\": {},\n  \"activation\": {},\n"
      "  \"input_mean\": {},\n  \"input_std\": {},\n  \"target_mean\": {},\n"
      "  \"target_std\": {},\n  \"data\": {},\n{}  \"weights\": \"model.pt\"\n}}\n",
      strings(c.input_names), strings(c.target_names), numbers(c.hidden), json_string(c.activation),
      numbers(c.inputs.mean), numbers(c.inputs.std), numbers(c.targets.mean),
      numbers(c.targets.std), json_string(c.data),
      c.saved_epoch > 0 ? fmt::format("  \"saved_epoch\": {},\n  \"saved_val_rmse\": {},\n",
                                      c.saved_epoch, json_number(c.saved_val_rmse))
                        : "");
}

std::string run_fingerprint(const TrainOptions& o, const ModelCard& c, std::size_t rows,
                            int ranks) {
  std::string layers;
  for (int h : c.hidden) layers += fmt::format("{},", h);
  std::string in, out;
  for (const auto& s : c.input_names) in += s + ",";
  for (const auto& s : c.target_names) out += s + ",";
  // Options added later appear only when set, so older checkpoints still resume.
  std::string later;
  if (o.lr_decay != 1.0) later += fmt::format(" lr_decay={}", o.lr_decay);
  if (!o.init_from.empty()) later += " init_from=" + o.init_from;
  return fmt::format(
      "rows={} inputs={} targets={} hidden={} optimizer={} lr={} batch={} warmup={} seed={} "
      "val_fraction={} ranks={}{}",
      rows, in, out, layers, o.optimizer == OptimizerKind::kAdam ? "adam" : "sgd", o.lr, o.batch,
      o.warmup_epochs, o.seed, o.val_fraction, ranks, later);
}

}  // namespace merlin::ml
