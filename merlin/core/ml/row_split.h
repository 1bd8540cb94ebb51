#pragma once
/// Which rows train and which validate, which training rows each rank holds, and the order a
/// rank visits them in an epoch: pure functions of (rows, seed, epoch, rank), so a resumed run
/// needs only the epoch to continue the same sequence.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace merlin::ml {

/// splitmix64: the next value of a 64-bit counter-based generator (state advanced in place).
std::uint64_t splitmix64(std::uint64_t& state);

/// A permutation of 0..n-1 from `key` (Fisher-Yates on splitmix64, the same on every platform,
/// unlike std::shuffle).
std::vector<std::size_t> permutation(std::size_t n, std::uint64_t key);

struct RowSplit {
  std::vector<std::size_t> train;  ///< row indices, in a seeded random order
  std::vector<std::size_t> val;
};

/// Holds out round(rows × val_fraction) rows (at least 1, leaving at least 1 to train),
/// chosen by `seed`. Precondition: rows >= 2, 0 < val_fraction < 1.
RowSplit split_rows(std::size_t rows, double val_fraction, std::uint64_t seed);

/// Rank `rank` of `ranks`'s share of `rows`: rows[rank], rows[rank + ranks], ... cut to
/// rows.size() / ranks entries, so every rank has as many rows, hence as many steps per epoch
/// (the allreduce of every step needs all ranks). Up to ranks - 1 rows are left out.
std::vector<std::size_t> train_shard(const std::vector<std::size_t>& rows, int rank, int ranks);

/// Every ranks-th row from `rank` (all rows are used: validation sums are allreduced).
std::vector<std::size_t> strided_shard(const std::vector<std::size_t>& rows, int rank, int ranks);

/// The order of a rank's n rows in `epoch` (a permutation of 0..n-1).
std::vector<std::size_t> epoch_order(std::size_t n, std::uint64_t seed, int epoch, int rank);

/// Steps in an epoch of n rows in batches of `batch` (the last batch may be short).
inline std::size_t steps_per_epoch(std::size_t n, std::size_t batch) {
  return (n + batch - 1) / batch;
}

}  // namespace merlin::ml
