#pragma once
/// From the rows read out of a dataset to what one rank trains on: the seeded split (over the
/// rows in sample-id order, so the order a collect appended them in does not matter), the
/// normalisation fitted on the training rows, this rank's shard of them (standardised floats,
/// row-major) and its share of the validation rows. Every rank computes the same split and
/// statistics from the same rows, so nothing needs to be communicated.
#include <cstddef>
#include <vector>

#include "merlin/data/dataset_columns.h"
#include "merlin/ml/model_card.h"
#include "merlin/ml/train_options.h"
#include "merlin/util/result.h"

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

/// Errors (kBadInput), naming the data file: fewer ok rows than --min-rows, or fewer training
/// rows than ranks.
Result<TrainingSet> make_training_set(const data::DatasetColumns& cols, const TrainOptions& o,
                                      int rank, int ranks);

}  // namespace merlin::ml
