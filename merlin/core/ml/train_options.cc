#include "merlin/core/ml/train_options.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <map>

namespace merlin::ml {
namespace {

Result<double> to_double(const std::string& opt, const std::string& v) {
  try {
    std::size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size() && std::isfinite(d)) return d;
  } catch (const std::exception&) {
  }
  return Error::bad_input(opt + ": '" + v + "' is not a number");
}

Result<long long> to_int(const std::string& opt, const std::string& v, long long min) {
  long long x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size())
    return Error::bad_input(opt + ": '" + v + "' is not an integer");
  if (x < min) return Error::bad_input(opt + ": " + v + " is below " + std::to_string(min));
  return x;
}

using Setter = std::function<Result<void>(const std::string&, const std::string&)>;

template <typename T>
Result<void> assign(T& dst, Result<T> r) {
  if (!r) return r.error();
  dst = *r;
  return ok();
}

// `switches` take no value: present means true.
Result<void> parse_flags(const std::vector<std::string>& args, std::size_t first,
                         const std::map<std::string, Setter>& flags,
                         const std::map<std::string, bool*>& switches = {}) {
  for (std::size_t i = first; i < args.size(); ++i) {
    std::string a = args[i], v;
    if (auto sw = switches.find(a); sw != switches.end()) {
      *sw->second = true;
      continue;
    }
    auto eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      v = a.substr(eq + 1);
      a = a.substr(0, eq);
      if (switches.count(a)) return Error::bad_input(a + " takes no value, got '" + v + "'");
    }
    auto it = flags.find(a);
    if (it == flags.end())
      return Error::bad_input("unknown option '" + a + "' (merlin-train --help lists them)");
    if (eq == std::string::npos) {
      if (i + 1 >= args.size()) return Error::bad_input(a + " needs a value");
      v = args[++i];
    }
    if (auto r = it->second(a, v); !r) return r;
  }
  return ok();
}

Result<TrainCommand> parse_train(const std::vector<std::string>& args, std::size_t first) {
  TrainOptions o;
  auto integer = [](int& dst, long long min) {
    return [&dst, min](const std::string& opt, const std::string& v) -> Result<void> {
      auto r = to_int(opt, v, min);
      if (!r) return r.error();
      dst = static_cast<int>(*r);
      return ok();
    };
  };
  std::map<std::string, Setter> flags = {
      {"--data", [&](auto&, auto& v) { return assign(o.data, Result<std::string>(v)); }},
      {"--inputs", [&](auto&, auto& v) { return assign(o.inputs, Result(split_list(v))); }},
      {"--target", [&](auto&, auto& v) { return assign(o.targets, Result(split_list(v))); }},
      {"--hidden",
       [&](auto& opt, auto& v) -> Result<void> {
         o.hidden.clear();
         for (const auto& part : split_list(v)) {
           auto r = to_int(opt, part, 1);
           if (!r) return r.error();
           o.hidden.push_back(static_cast<int>(*r));
         }
         if (o.hidden.empty()) return Error::bad_input(opt + ": give at least one layer width");
         return ok();
       }},
      {"--lr",
       [&](auto& opt, auto& v) -> Result<void> {
         if (auto r = assign(o.lr, to_double(opt, v)); !r) return r;
         if (o.lr <= 0) return Error::bad_input(opt + ": must be > 0, got " + v);
         return ok();
       }},
      {"--batch", integer(o.batch, 1)},
      {"--epochs", integer(o.epochs, 1)},
      {"--val-fraction",
       [&](auto& opt, auto& v) -> Result<void> {
         if (auto r = assign(o.val_fraction, to_double(opt, v)); !r) return r;
         if (o.val_fraction <= 0 || o.val_fraction >= 1)
           return Error::bad_input(opt + ": must be between 0 and 1, got " + v);
         return ok();
       }},
      {"--seed",
       [&](auto& opt, auto& v) -> Result<void> {
         auto r = to_int(opt, v, 0);
         if (!r) return r.error();
         o.seed = static_cast<std::uint64_t>(*r);
         return ok();
       }},
      {"--optimizer",
       [&](auto& opt, auto& v) -> Result<void> {
         if (v == "adam")
           o.optimizer = OptimizerKind::kAdam;
         else if (v == "sgd")
           o.optimizer = OptimizerKind::kSgd;
         else
           return Error::bad_input(opt + ": '" + v + "' is not adam or sgd");
         return ok();
       }},
      {"--warmup-epochs", integer(o.warmup_epochs, 0)},
      {"--checkpoint", [&](auto&, auto& v) { return assign(o.checkpoint_dir, Result(v)); }},
      {"--checkpoint-every", integer(o.checkpoint_every, 1)},
      {"--target-error",
       [&](auto& opt, auto& v) -> Result<void> {
         auto r = to_double(opt, v);
         if (!r) return r.error();
         if (*r <= 0) return Error::bad_input(opt + ": must be > 0, got " + v);
         o.target_error = *r;
         return ok();
       }},
      {"--out", [&](auto&, auto& v) { return assign(o.out, Result(v)); }},
      {"--metrics",
       [&](auto& opt, auto& v) -> Result<void> {
         if (v.empty()) return Error::bad_input(opt + ": give a file to append to");
         o.metrics_file = v;
         return ok();
       }},
      {"--min-rows", integer(o.min_rows, 2)},
      {"--lr-decay",
       [&](auto& opt, auto& v) -> Result<void> {
         if (auto r = assign(o.lr_decay, to_double(opt, v)); !r) return r;
         if (o.lr_decay <= 0 || o.lr_decay > 1)
           return Error::bad_input(opt + ": must be in (0, 1], got " + v);
         return ok();
       }},
      {"--init-from",
       [&](auto& opt, auto& v) -> Result<void> {
         if (v.empty()) return Error::bad_input(opt + ": give a model directory or file");
         o.init_from = v;
         return ok();
       }},
  };
  if (auto r = parse_flags(args, first, flags, {{"--stop-at-target", &o.stop_at_target}}); !r)
    return r.error();
  if (o.stop_at_target && !o.target_error)
    return Error::bad_input("--stop-at-target needs --target-error E (the RMSE to stop at)");
  if (o.data.empty()) return Error::bad_input("--data is required (a merlin collect .h5 file)");
  if (o.targets.empty())
    return Error::bad_input("--target is required (a field, e.g. result/range)");
  if (o.out.empty()) return Error::bad_input("--out must name a directory");
  return TrainCommand(std::move(o));
}

Result<TrainCommand> parse_predict(const std::vector<std::string>& args, std::size_t first) {
  PredictOptions o;
  std::map<std::string, Setter> flags = {
      {"--model", [&](auto&, auto& v) { return assign(o.model, Result(v)); }},
      {"--inputs", [&](auto&, auto& v) { return assign(o.inputs, Result(v)); }},
      {"--out", [&](auto&, auto& v) { return assign(o.out, Result(v)); }},
  };
  if (auto r = parse_flags(args, first, flags); !r) return r.error();
  if (o.model.empty()) return Error::bad_input("predict: --model is required (a model directory)");
  if (o.inputs.empty()) return Error::bad_input("predict: --inputs is required (.npy or .csv)");
  return TrainCommand(std::move(o));
}

}  // namespace

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string train_usage() {
  return R"(merlin-train: a surrogate (MLP) trained on a merlin collect dataset, data-parallel over MPI

  merlin-train --data D.h5 --target F[,F...] [options]        (under mpirun/srun: one rank each)
  merlin-train predict --model DIR --inputs X.npy|X.csv [--out P.csv]

  --data FILE            merlin collect's HDF5 file (rows with status 1 among rows_committed)
  --inputs A,B,...       input columns (default: all of /inputs)
  --target F,...         fields to predict (/fields/<F>; several, or one with a shape)
  --hidden 64,64         hidden layer widths
  --lr 1e-3              learning rate of one rank; scaled by the ranks after warm-up
  --batch 64             rows per step per rank
  --epochs 100
  --val-fraction 0.2     rows held out for validation
  --seed 1               split, initial weights, shuffles
  --optimizer adam|sgd   (sgd: momentum 0.9)
  --warmup-epochs 5      linear warm-up of the learning rate from lr to lr x ranks
  --checkpoint DIR       checkpoints here; a new run resumes from the newest
  --checkpoint-every 5   epochs between checkpoints (and one at the end)
  --target-error E       validation RMSE (target units) to time: seconds_to_target in report.json
  --stop-at-target       stop at the first epoch whose validation RMSE is <= --target-error
  --lr-decay 1           multiply the rate by this each epoch after warm-up (e.g. 0.97)
  --init-from PATH       start from another run's weights (model dir, model.pt or a checkpoint),
                         fresh optimizer, epoch 0; inputs, targets and --hidden must match
  --out model            model directory: model.pt (the best validation epoch), model.json,
                         report.json
  --min-rows 10          refuse datasets with fewer ok rows
  --metrics FILE         after each epoch append one JSON line to FILE, flushed:
                         {"budget": EPOCH, "value": VAL_RMSE, "train_loss": ..., "lr": ...,
                         "seconds": ...} (the metric of a tuned step; docs/tuning.md). A run
                         resumed from --checkpoint appends from the checkpoint's next epoch

exit codes: 0 ok, 1 training failed (diverged, I/O), 2 bad input
)";
}

Result<TrainCommand> parse_train_command(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (a == "-h" || a == "--help") return TrainCommand(HelpRequest{train_usage()});
  if (!args.empty() && args[0] == "predict") return parse_predict(args, 1);
  if (!args.empty() && args[0] == "train") return parse_train(args, 1);
  return parse_train(args, 0);
}

}  // namespace merlin::ml
