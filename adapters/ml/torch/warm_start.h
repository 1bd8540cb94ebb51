#pragma once
/// A warm start (--init-from): another run's weights as this run's starting point, with a fresh
/// optimizer and epoch 0. Includes torch: only this folder's .cc files include it.
#include <string>

#include "adapters/ml/torch/mlp.h"
#include "merlin/core/ml/model_card.h"
#include "merlin/core/util/result.h"

namespace merlin::torchml {

/// The file `path` names: a model.pt or a checkpoint file as it is; a directory's model.pt, or
/// else its newest checkpoint. Errors (kBadInput): nothing of the kind there.
Result<std::string> resolve_initial_weights(const std::string& path);

/// Loads the weights of `file` (model.pt or a checkpoint) into `model`, whose architecture is
/// `card`'s (inputs, hidden widths, targets). Errors (kBadInput), naming the file: it cannot be
/// read, it has no architecture (a checkpoint of an older merlin-train), or its inputs, targets
/// or hidden widths differ from this run's (both sides shown).
Result<void> load_initial_weights(Mlp& model, const ml::ModelCard& card, const std::string& file);

}  // namespace merlin::torchml
