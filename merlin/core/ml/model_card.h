#pragma once
/// What a saved model is, beside its weights: the inputs and targets by name, the layer widths
/// and the normalisation. Written as model.json (for people and other tools) next to model.pt
/// (which holds the same numbers for merlin-train predict).
#include <string>
#include <vector>

#include "merlin/core/ml/standardizer.h"
#include "merlin/core/ml/train_options.h"

namespace merlin::ml {

struct ModelCard {
  std::vector<std::string> input_names;
  std::vector<std::string> target_names;  ///< flattened: "trajectory[3]"
  std::vector<int> hidden;
  std::string activation = "silu";
  Standardizer inputs;
  Standardizer targets;
  std::string data;     ///< the dataset trained on
  int saved_epoch = 0;  ///< the epoch whose weights are saved (the best validation one); 0: unset
  double saved_val_rmse = 0;  ///< that epoch's validation RMSE (worst target)
};

/// model.json's text (saved_epoch and saved_val_rmse only when saved_epoch is set).
std::string model_card_json(const ModelCard& card);

/// A one-line description of what must not change for a checkpoint to be resumed: the data
/// file's selected rows, inputs, targets, layers, optimizer, rates, batch, seed and ranks.
std::string run_fingerprint(const TrainOptions& o, const ModelCard& card, std::size_t rows,
                            int ranks);

}  // namespace merlin::ml
