#pragma once
/// `merlin-train`'s command line as plain structs (docs/training.md lists every option), and
/// the parser that fills them. Torch-free and MPI-free: unit-tested on its own.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::ml {

enum class OptimizerKind { kAdam, kSgd };

/// `merlin-train [train] --data F --target T ...`
struct TrainOptions {
  std::string data;                  ///< the collect dataset (.h5)
  std::vector<std::string> inputs;   ///< `/inputs` columns; empty: all of them
  std::vector<std::string> targets;  ///< fields under `/fields/` (at least one)
  std::vector<int> hidden = {64, 64};
  double lr = 1e-3;  ///< the learning rate of one rank (scaled by the ranks)
  int batch = 64;    ///< rows per step on each rank (global batch: batch × ranks)
  int epochs = 100;
  double val_fraction = 0.2;  ///< of the ok rows, held out for validation
  std::uint64_t seed = 1;     ///< split, initial weights, shuffles
  OptimizerKind optimizer = OptimizerKind::kAdam;
  int warmup_epochs = 5;               ///< linear ramp of the learning rate from lr to lr × ranks
  std::string checkpoint_dir;          ///< empty: no checkpoints, no resume
  int checkpoint_every = 5;            ///< epochs between checkpoints (and one at the end)
  std::optional<double> target_error;  ///< the validation RMSE to time (target units)
  bool stop_at_target = false;         ///< stop at the first epoch within target_error (needs it)
  double lr_decay = 1.0;               ///< rate factor per epoch after the warm-up; 1: no decay
  std::string init_from;      ///< warm start: model.pt, a checkpoint, or a directory of either
  std::string out = "model";  ///< the model directory (model.pt, model.json, report.json)
  /// Empty: none. Else one JSON line per epoch appended here (metrics_line), for a tuned step.
  std::string metrics_file;
  int min_rows = 10;  ///< fewer ok rows than this is bad input
};

/// `merlin-train predict --model DIR --inputs F [--out F]`
struct PredictOptions {
  std::string model;   ///< a directory `merlin-train` wrote
  std::string inputs;  ///< `.npy` (rows × inputs) or `.csv` (no header), columns in model order
  std::string out;     ///< CSV of predictions (header: the target names); empty: stdout
};

struct HelpRequest {
  std::string text;
};

using TrainCommand = std::variant<TrainOptions, PredictOptions, HelpRequest>;

/// Parses argv[1..]: `predict ...` or (optionally `train`) the training options. Errors
/// (kBadInput) name the option and the value: unknown option, missing value, a number out of
/// range, a missing --data/--target/--model/--inputs.
Result<TrainCommand> parse_train_command(const std::vector<std::string>& args);

/// The usage text of both modes.
std::string train_usage();

/// "a,b,c" → {"a","b","c"} (empty parts dropped).
std::vector<std::string> split_list(const std::string& s);

}  // namespace merlin::ml
