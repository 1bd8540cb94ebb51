#pragma once
/// Training and using the surrogate (an MLP regression on standardised inputs and targets),
/// behind a header without torch: only the .cc files of this folder include <torch/torch.h>
/// (each takes tens of seconds to compile). Torch's exceptions (c10::Error) are caught here
/// and come back as Errors.
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
};

/// Called on rank 0 with each line to log (epochs, checkpoints, the resume).
using LogFn = std::function<void(const std::string&)>;

/// Data-parallel training of `set` (this rank's shard) with every rank of `comm`: parameters
/// broadcast from rank 0, gradients averaged with one allreduce per step, the rate scaled by
/// the ranks after a linear warm-up, validation errors summed over the ranks. With
/// `o.checkpoint_dir`, resumes from the newest checkpoint there (every rank reads it: the
/// directory must be shared) and rank 0 writes one every `o.checkpoint_every` epochs and at
/// the end. At the end rank 0 writes `o.out`/model.pt. Errors: kRuntime when the loss stops
/// being finite ("diverged") or a file cannot be written; kBadInput when the checkpoint was
/// made by a run with other options. Every rank returns the same outcome.
Result<TrainOutcome> train_surrogate(const ml::TrainingSet& set, const ml::TrainOptions& o,
                                     ml::Communicator& comm, const LogFn& log);

/// Predictions (rows × targets, in target units) of the model in `model_dir` for `x` (rows ×
/// the model's inputs, in its input order). Fills `card` with what model.pt says (names,
/// normalisation). Errors (kBadInput): no model there, or `columns` is not its input count.
Result<std::vector<double>> predict_surrogate(const std::string& model_dir,
                                              const std::vector<double>& x, std::size_t columns,
                                              ml::ModelCard* card);

}  // namespace merlin::torchml
