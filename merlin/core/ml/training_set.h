#pragma once
/// From a dataset's index (its usable rows, their ids and inputs) to what one rank trains on:
/// the seeded split (over the rows in sample-id order, so the order a collect appended them in
/// does not matter), this rank's shard of the training rows and share of the validation rows
/// (standardised floats, row-major), and the normalisation. A rank reads the targets of its
/// own rows only; the target statistics and the baseline error are summed over the ranks.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "merlin/core/data/dataset_columns.h"
#include "merlin/core/ml/communicator.h"
#include "merlin/core/ml/model_card.h"
#include "merlin/core/ml/train_options.h"
#include "merlin/core/util/result.h"

namespace merlin::ml {

struct TrainingSet {
  ModelCard card;  ///< names, layers, normalisation (from the training rows of every rank)
  std::size_t n_in = 0, n_out = 0;
  std::vector<float> x_train, y_train;  ///< this rank's training rows, standardised
  std::vector<float> x_val, y_val;      ///< this rank's validation rows, standardised
  std::size_t train_rows_total = 0;     ///< rows trained on per epoch, all ranks
  std::size_t val_rows_total = 0;
  std::vector<double> baseline_rmse;  ///< per target: predicting the training mean, val rows
  std::size_t shard_rows() const { return n_in ? x_train.size() / n_in : 0; }
  std::size_t val_shard_rows() const { return n_in ? x_val.size() / n_in : 0; }
};

/// The flattened targets of some file rows (rows × targets, in the order asked).
using TargetReader =
    std::function<Result<std::vector<double>>(const std::vector<std::uint64_t>& file_rows)>;

/// Builds this rank's set from `index` (targets not needed in it), reading the targets of
/// every ranks-th training row (its shard and the rows its statistics cover) and of its
/// validation rows through `read_targets`. Collective: every rank of `comm` calls it.
/// Errors (kBadInput), the same on every rank, naming the data file: fewer usable rows than
/// --min-rows, fewer training rows than ranks; and what `read_targets` returns.
Result<TrainingSet> make_training_set(const data::DatasetColumns& index,
                                      const TargetReader& read_targets, const TrainOptions& o,
                                      Communicator& comm);

}  // namespace merlin::ml
