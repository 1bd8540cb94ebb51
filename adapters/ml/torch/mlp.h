#pragma once
/// The surrogate's network and its model.pt file. Includes torch: only this folder's .cc
/// files include it.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "merlin/core/ml/model_card.h"
#include "merlin/core/util/result.h"

namespace merlin::torchml {

/// Linear → SiLU for each hidden width, then a Linear to the targets.
struct MlpImpl : torch::nn::Module {
  MlpImpl(int n_in, const std::vector<int>& hidden, int n_out);
  torch::Tensor forward(const torch::Tensor& x) { return net->forward(x); }
  torch::nn::Sequential net{nullptr};
};
TORCH_MODULE(Mlp);

/// The module's parameters, flattened into one contiguous float tensor (a copy).
torch::Tensor flatten_parameters(Mlp& model);
/// Writes a flat tensor (from flatten_parameters) back into the parameters.
void unflatten_parameters(Mlp& model, const torch::Tensor& flat);

/// Writes the architecture of `card` (layer widths, input and target names) into `ar`: in
/// model.pt and in checkpoints, so a warm start can check it (adapters/ml/torch/warm_start.h).
void write_architecture(torch::serialize::OutputArchive& ar, const ml::ModelCard& card);

/// Writes model.pt into `dir` (temp name, rename): weights, layer widths, names and
/// normalisation.
Result<void> save_model(Mlp& model, const ml::ModelCard& card, const std::string& dir);

}  // namespace merlin::torchml
