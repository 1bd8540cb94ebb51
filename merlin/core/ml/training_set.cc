#include "merlin/core/ml/training_set.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "merlin/core/ml/row_split.h"

namespace merlin::ml {
namespace {

// Rows `first`.. of a row-major table, standardised, appended to `out`.
void append_rows(const double* data, std::size_t columns, std::size_t rows, const Standardizer& s,
                 std::vector<float>& out) {
  const std::size_t at = out.size();
  out.resize(at + rows * columns);
  for (std::size_t i = 0; i < rows; ++i) s.apply(data + i * columns, &out[at + i * columns]);
}

// Per column sum of (y - centre)^2 (or of y, with no centre) over `rows` rows, then the count,
// summed over the ranks.
Result<std::vector<double>> summed(const double* y, std::size_t rows, std::size_t columns,
                                   const std::vector<double>* centre, Communicator& comm) {
  std::vector<double> s(columns + 1, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < columns; ++c) {
      const double v = y[r * columns + c];
      s[c] += centre ? (v - (*centre)[c]) * (v - (*centre)[c]) : v;
    }
  s[columns] = static_cast<double>(rows);
  if (auto r = comm.allreduce_sum(s.data(), s.size()); !r) return r.error();
  return s;
}

}  // namespace

Result<TrainingSet> make_training_set(const data::DatasetColumns& index,
                                      const TargetReader& read_targets, const TrainOptions& o,
                                      Communicator& comm) {
  const int rank = comm.rank(), ranks = comm.size();
  const std::size_t rows = index.rows();
  if (rows < static_cast<std::size_t>(std::max(o.min_rows, 2)))
    return Error::bad_input(fmt::format(
        "{}: {} usable rows (status 1, no NaN in the chosen columns, of {} committed); need at "
        "least {} (--min-rows)",
        o.data, rows, index.rows_committed, std::max(o.min_rows, 2)));
  TrainingSet t;
  t.n_in = index.input_names.size();
  t.n_out = index.target_names.size();
  // Split over the rows in sample-id order: a file collected in another order (collect appends
  // as samples finish) gives the same split.
  std::vector<std::size_t> by_id(rows);
  std::iota(by_id.begin(), by_id.end(), std::size_t{0});
  std::stable_sort(by_id.begin(), by_id.end(), [&](std::size_t a, std::size_t b) {
    return index.sample_ids[a] < index.sample_ids[b];
  });
  auto split = split_rows(rows, o.val_fraction, o.seed);
  for (auto& r : split.train) r = by_id[r];
  for (auto& r : split.val) r = by_id[r];
  if (split.train.size() < static_cast<std::size_t>(ranks))
    return Error::bad_input(
        fmt::format("{}: {} training rows for {} ranks", o.data, split.train.size(), ranks));
  t.card.input_names = index.input_names;
  t.card.target_names = index.target_names;
  t.card.hidden = o.hidden;
  t.card.data = o.data;
  t.card.inputs = fit_standardizer(index.inputs, t.n_in, split.train);  // every rank has them

  // This rank's rows: every ranks-th training row (its statistics' share; the shard is the
  // first shard_size of them) and every ranks-th validation row.
  const auto mine = strided_shard(split.train, rank, ranks);
  const std::size_t shard_size = split.train.size() / static_cast<std::size_t>(ranks);
  const auto val = strided_shard(split.val, rank, ranks);
  std::vector<std::uint64_t> wanted;
  for (auto r : mine) wanted.push_back(index.file_rows[r]);
  for (auto r : val) wanted.push_back(index.file_rows[r]);
  auto y = read_targets(wanted);
  if (!y) return y.error();
  const double* y_mine = y->data();
  const double* y_val = y->data() + mine.size() * t.n_out;

  // Target mean and std over all training rows, as sums over the ranks' shares.
  auto sums = summed(y_mine, mine.size(), t.n_out, nullptr, comm);
  if (!sums) return sums.error();
  auto& tg = t.card.targets;
  tg.mean.resize(t.n_out);
  for (std::size_t c = 0; c < t.n_out; ++c) tg.mean[c] = (*sums)[c] / (*sums)[t.n_out];
  auto sq = summed(y_mine, mine.size(), t.n_out, &tg.mean, comm);
  if (!sq) return sq.error();
  tg.std.resize(t.n_out);
  for (std::size_t c = 0; c < t.n_out; ++c) {
    tg.std[c] = std::sqrt((*sq)[c] / (*sq)[t.n_out]);
    if (!(tg.std[c] > 1e-12)) tg.std[c] = 1.0;  // constant: centred only
  }

  std::vector<double> x_rows;
  for (std::size_t i = 0; i < shard_size; ++i)
    x_rows.insert(x_rows.end(), index.inputs.begin() + mine[i] * t.n_in,
                  index.inputs.begin() + (mine[i] + 1) * t.n_in);
  append_rows(x_rows.data(), t.n_in, shard_size, t.card.inputs, t.x_train);
  append_rows(y_mine, t.n_out, shard_size, tg, t.y_train);
  x_rows.clear();
  for (auto r : val)
    x_rows.insert(x_rows.end(), index.inputs.begin() + r * t.n_in,
                  index.inputs.begin() + (r + 1) * t.n_in);
  append_rows(x_rows.data(), t.n_in, val.size(), t.card.inputs, t.x_val);
  append_rows(y_val, t.n_out, val.size(), tg, t.y_val);
  t.train_rows_total = shard_size * static_cast<std::size_t>(ranks);
  t.val_rows_total = split.val.size();

  auto base = summed(y_val, val.size(), t.n_out, &tg.mean, comm);
  if (!base) return base.error();
  t.baseline_rmse.resize(t.n_out);
  for (std::size_t c = 0; c < t.n_out; ++c)
    t.baseline_rmse[c] = std::sqrt((*base)[c] / std::max((*base)[t.n_out], 1.0));
  return t;
}

}  // namespace merlin::ml
