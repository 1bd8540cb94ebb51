#include "merlin/core/ml/row_split.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace merlin::ml {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<std::size_t> permutation(std::size_t n, std::uint64_t key) {
  std::vector<std::size_t> p(n);
  std::iota(p.begin(), p.end(), std::size_t{0});
  std::uint64_t state = key;
  for (std::size_t i = n; i > 1; --i) {
    // Multiply-shift maps the 64-bit value into [0, i) without modulo bias worth noticing.
    const auto j =
        static_cast<std::size_t>((static_cast<unsigned __int128>(splitmix64(state)) * i) >> 64);
    std::swap(p[i - 1], p[j]);
  }
  return p;
}

RowSplit split_rows(std::size_t rows, double val_fraction, std::uint64_t seed) {
  auto p = permutation(rows, seed ^ 0x5EED5EED0000D47Aull);
  auto nval = static_cast<std::size_t>(std::llround(static_cast<double>(rows) * val_fraction));
  nval = std::clamp<std::size_t>(nval, 1, rows - 1);
  RowSplit s;
  s.val.assign(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(nval));
  s.train.assign(p.begin() + static_cast<std::ptrdiff_t>(nval), p.end());
  return s;
}

std::vector<std::size_t> strided_shard(const std::vector<std::size_t>& rows, int rank, int ranks) {
  std::vector<std::size_t> out;
  for (std::size_t i = static_cast<std::size_t>(rank); i < rows.size();
       i += static_cast<std::size_t>(ranks))
    out.push_back(rows[i]);
  return out;
}

std::vector<std::size_t> train_shard(const std::vector<std::size_t>& rows, int rank, int ranks) {
  auto out = strided_shard(rows, rank, ranks);
  out.resize(rows.size() / static_cast<std::size_t>(ranks));
  return out;
}

std::vector<std::size_t> epoch_order(std::size_t n, std::uint64_t seed, int epoch, int rank) {
  std::uint64_t key = seed;
  splitmix64(key);
  key ^= (static_cast<std::uint64_t>(epoch) << 20) ^ static_cast<std::uint64_t>(rank);
  return permutation(n, key);
}

}  // namespace merlin::ml
