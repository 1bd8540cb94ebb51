#pragma once
/// Training and using the surrogate (an MLP regression on standardised inputs and targets),
/// behind a header without torch: only the .cc files of this folder include <torch/torch.h>
/// (each takes tens of seconds to compile). Torch's exceptions (c10::Error) are caught here
/// and come back as Errors.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/ml/communicator.h"
#include "merlin/core/ml/train_options.h"
#include "merlin/core/ml/train_report.h"
#include "merlin/core/ml/training_set.h"
#include "merlin/core/util/result.h"

namespace merlin::torchml {

struct TrainOutcome {
  std::vector<ml::EpochRecord> history;  ///< every epoch, those before a resume included
  std::optional<int> resumed_from_epoch;
  int saved_epoch = 0;             ///< the epoch model.pt holds: the best validation one
  bool stopped_at_target = false;  ///< o.stop_at_target ended it before o.epochs
};

/// Called on rank 0 with each line to log (epochs, checkpoints, the resume).
using LogFn = std::function<void(const std::string&)>;

/// Called on rank 0 after each epoch it trains, before that epoch's checkpoint is written (so
/// a run killed in between trains the epoch again and reports it again, rather than never).
/// An error ends the training with that error.
using EpochFn = std::function<Result<void>(const ml::EpochRecord&)>;

/// Data-parallel training of `set` (this rank's shard) with every rank of `comm`: parameters
/// broadcast from rank 0, gradients averaged with one allreduce per step, the rate scaled by
/// the ranks after a linear warm-up, validation errors summed over the ranks. With
/// `o.checkpoint_dir`, resumes from the newest checkpoint there (every rank reads it: the
/// directory must be shared) and rank 0 writes one every `o.checkpoint_every` epochs and at
/// the end. With `o.init_from` and nothing to resume, starts from that run's weights (every
/// rank reads the file). With `o.stop_at_target`, stops after the first epoch whose worst
/// validation RMSE is <= `o.target_error` (every rank sees the same all-reduced errors, so all
/// stop together). At the end rank 0 writes `o.out`/model.pt with the weights of the best
/// validation epoch (the earliest of equals), not the last. `started` is the process start:
/// each epoch records its seconds since then. Errors: kRuntime when the loss stops being finite
/// ("diverged") or a file cannot be written; kBadInput when the checkpoint was made by a run
/// with other options, or the --init-from model has another architecture. Every rank returns
/// the same outcome. `on_epoch` (rank 0, may be empty) sees each epoch trained here, not those
/// of the checkpoint resumed from.
Result<TrainOutcome> train_surrogate(
    const ml::TrainingSet& set, const ml::TrainOptions& o, ml::Communicator& comm, const LogFn& log,
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now(),
    const EpochFn& on_epoch = {});

/// Predictions (rows × targets, in target units) of the model in `model_dir` for `x` (rows ×
/// the model's inputs, in its input order). Fills `card` with what model.pt says (names,
/// normalisation). Errors (kBadInput): no model there, or `columns` is not its input count.
Result<std::vector<double>> predict_surrogate(const std::string& model_dir,
                                              const std::vector<double>& x, std::size_t columns,
                                              ml::ModelCard* card);

}  // namespace merlin::torchml
