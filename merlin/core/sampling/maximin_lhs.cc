#include "merlin/core/sampling/maximin_lhs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "merlin/core/sampling/qmc_scramble.h"

namespace merlin::sampling {
namespace {

// Streams of uniform01 used here (the other methods use 1 to 13).
constexpr std::uint64_t kShuffleStream = 21, kSwapStream = 22, kJitterStream = 23;

// d^-15 from the squared distance d2 = d^2, i.e. 1 / d2^7.5 = 1 / (d2^8 / d2 · √d2), by
// multiplications (the optimisation evaluates it 4 times per row per swap).
double inverse_p(double d2) {
  const double d4 = d2 * d2;
  return 1.0 / (d4 * d4 / d2 * std::sqrt(d2));
}

}  // namespace

std::vector<double> maximin_lhs_unit(std::uint64_t rows, std::size_t dims, std::uint64_t seed) {
  const std::size_t n = static_cast<std::size_t>(rows);
  // cell[r * dims + c]: row r's cell in column c, each column a permutation of 0..n-1.
  std::vector<std::uint32_t> cell(n * dims);
  for (std::size_t c = 0; c < dims; ++c) {
    std::vector<std::uint32_t> p(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint32_t>(i);
    for (std::size_t i = n; i-- > 1;) {  // Fisher-Yates from counter-based draws
      auto j = static_cast<std::size_t>(uniform01(seed, kShuffleStream, i, c) * double(i + 1));
      std::swap(p[i], p[std::min(j, i)]);
    }
    for (std::size_t r = 0; r < n; ++r) cell[r * dims + c] = p[r];
  }
  auto x = [&](std::size_t r, std::size_t c) { return (cell[r * dims + c] + 0.5) / double(n); };
  auto dist2 = [&](std::size_t a, std::size_t b) {
    double s = 0;
    for (std::size_t c = 0; c < dims; ++c) {
      const double t = x(a, c) - x(b, c);
      s += t * t;
    }
    return s;
  };
  if (n > 2 && dims > 1) {
    // Proposals: as many as about 2·10^8 row-distance updates allow, at most 500 per row.
    const double per_swap = double(n) * double(dims + 4);
    const auto swaps = static_cast<std::uint64_t>(std::min(2e8 / per_swap, 500.0 * double(n)));
    for (std::uint64_t s = 0; s < swaps; ++s) {
      const auto c = std::min<std::size_t>(dims - 1, std::size_t(uniform01(seed, kSwapStream, s, 0) * dims));
      const auto i = std::min<std::size_t>(n - 1, std::size_t(uniform01(seed, kSwapStream, s, 1) * n));
      auto j = std::min<std::size_t>(n - 2, std::size_t(uniform01(seed, kSwapStream, s, 2) * (n - 1)));
      if (j >= i) ++j;
      // Swapping the two rows' column-c coordinates changes only their distances to the
      // other rows (theirs to each other stays).
      const double xi = x(i, c), xj = x(j, c);
      double delta = 0;
      for (std::size_t k = 0; k < n; ++k) {
        if (k == i || k == j) continue;
        const double xk = x(k, c);
        const double di = dist2(i, k), dj = dist2(j, k);
        const double a = (xi - xk) * (xi - xk), b = (xj - xk) * (xj - xk);
        delta += inverse_p(di - a + b) - inverse_p(di) + inverse_p(dj - b + a) - inverse_p(dj);
      }
      if (delta < 0) std::swap(cell[i * dims + c], cell[j * dims + c]);
    }
  }
  std::vector<double> out(n * dims);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = 0; c < dims; ++c) {
      const double u = (cell[r * dims + c] + uniform01(seed, kJitterStream, r, c)) / double(n);
      out[r * dims + c] = std::min(u, std::nextafter(1.0, 0.0));
    }
  return out;
}

double min_row_distance(const std::vector<double>& points, std::size_t dims) {
  const std::size_t n = dims == 0 ? 0 : points.size() / dims;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) {
      double s = 0;
      for (std::size_t c = 0; c < dims; ++c) {
        const double t = points[a * dims + c] - points[b * dims + c];
        s += t * t;
      }
      best = std::min(best, s);
    }
  return std::sqrt(best);
}

}  // namespace merlin::sampling
