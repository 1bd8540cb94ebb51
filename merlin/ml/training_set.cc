#include "merlin/ml/training_set.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "merlin/ml/row_split.h"

namespace merlin::ml {
namespace {

void append_rows(const std::vector<double>& data, std::size_t columns,
                 const std::vector<std::size_t>& rows, const Standardizer& s,
                 std::vector<float>& out) {
  const std::size_t first = out.size();
  out.resize(first + rows.size() * columns);
  for (std::size_t i = 0; i < rows.size(); ++i)
    s.apply(&data[rows[i] * columns], &out[first + i * columns]);
}

}  // namespace

Result<TrainingSet> make_training_set(const data::DatasetColumns& cols, const TrainOptions& o,
                                      int rank, int ranks) {
  const std::size_t rows = cols.rows();
  if (rows < static_cast<std::size_t>(std::max(o.min_rows, 2)))
    return Error::bad_input(fmt::format(
        "{}: {} usable rows (status 1, no NaN in the chosen columns, of {} committed); need at "
        "least {} (--min-rows)",
        o.data, rows, cols.rows_committed, std::max(o.min_rows, 2)));
  TrainingSet t;
  t.n_in = cols.input_names.size();
  t.n_out = cols.target_names.size();
  // Split over the rows in sample-id order: a file collected in another order (collect appends
  // as samples finish) gives the same split.
  std::vector<std::size_t> by_id(rows);
  std::iota(by_id.begin(), by_id.end(), std::size_t{0});
  std::stable_sort(by_id.begin(), by_id.end(), [&](std::size_t a, std::size_t b) {
    return cols.sample_ids[a] < cols.sample_ids[b];
  });
  auto split = split_rows(rows, o.val_fraction, o.seed);
  for (auto& r : split.train) r = by_id[r];
  for (auto& r : split.val) r = by_id[r];
  if (split.train.size() < static_cast<std::size_t>(ranks))
    return Error::bad_input(
        fmt::format("{}: {} training rows for {} ranks", o.data, split.train.size(), ranks));
  t.card.input_names = cols.input_names;
  t.card.target_names = cols.target_names;
  t.card.hidden = o.hidden;
  t.card.data = o.data;
  t.card.inputs = fit_standardizer(cols.inputs, t.n_in, split.train);
  t.card.targets = fit_standardizer(cols.targets, t.n_out, split.train);

  const auto shard = train_shard(split.train, rank, ranks);
  const auto val = strided_shard(split.val, rank, ranks);
  append_rows(cols.inputs, t.n_in, shard, t.card.inputs, t.x_train);
  append_rows(cols.targets, t.n_out, shard, t.card.targets, t.y_train);
  append_rows(cols.inputs, t.n_in, val, t.card.inputs, t.x_val);
  append_rows(cols.targets, t.n_out, val, t.card.targets, t.y_val);
  t.train_rows_total = shard.size() * static_cast<std::size_t>(ranks);
  t.val_rows_total = split.val.size();

  t.baseline_rmse.assign(t.n_out, 0.0);
  for (auto r : split.val)
    for (std::size_t c = 0; c < t.n_out; ++c) {
      const double d = cols.targets[r * t.n_out + c] - t.card.targets.mean[c];
      t.baseline_rmse[c] += d * d;
    }
  for (auto& b : t.baseline_rmse) b = std::sqrt(b / static_cast<double>(split.val.size()));
  return t;
}

}  // namespace merlin::ml
