#include "merlin/core/sampling/sample_rows.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "merlin/core/sampling/inverse_cdf.h"
#include "merlin/core/sampling/maximin_lhs.h"
#include "merlin/core/sampling/qmc_scramble.h"
#include "merlin/core/sampling/sobol_directions.h"

namespace merlin::sampling {
namespace {

std::uint64_t mix(std::uint64_t x) { return mix64(x); }

// A keyed bijection of [0, n): a balanced Feistel network on the smallest even number of bits
// covering n, walked until the value falls inside (fewer than 4 steps on average).
std::uint64_t permute(std::uint64_t x, std::uint64_t n, std::uint64_t key) {
  unsigned bits = 2;
  while (bits < 64 && (std::uint64_t{1} << bits) < n) bits += 2;
  const unsigned half = bits / 2;
  const std::uint64_t mask = (std::uint64_t{1} << half) - 1;
  do {
    std::uint64_t l = x >> half, r = x & mask;
    for (std::uint64_t round = 0; round < 4; ++round) {
      std::uint64_t f = mix(key ^ mix(round ^ (r << 8))) & mask;
      std::uint64_t nl = r;
      r = l ^ f;
      l = nl;
    }
    x = (l << half) | r;
  } while (x >= n);
  return x;
}

// The first kHaltonMaxDims primes, Halton's bases, made at compile time.
constexpr auto kPrimes = [] {
  std::array<unsigned, kHaltonMaxDims> p{};
  std::size_t n = 0;
  for (unsigned k = 2; n < p.size(); ++k) {
    bool prime = true;
    for (std::size_t i = 0; i < n && p[i] * p[i] <= k; ++i) prime = prime && k % p[i] != 0;
    if (prime) p[n++] = k;
  }
  return p;
}();
static_assert(kPrimes[29] == 113 && kPrimes[999] == 7919);

double distributed(const Column& c, double u) {
  // Away from 0 and 1, where the unbounded quantiles are infinite.
  const double v = std::clamp(u, 0x1.0p-60, 1 - 0x1.0p-53);
  switch (c.dist) {
    case Dist::kRange: break;
    case Dist::kNormal: return c.p1 + c.p2 * normal_quantile(v);
    case Dist::kLogNormal: return std::exp(c.p1 + c.p2 * normal_quantile(v));
    case Dist::kTruncNormal: return truncnorm_quantile(u, c.p1, c.p2, c.lo, c.hi);
    case Dist::kBeta: return c.lo + (c.hi - c.lo) * beta_quantile(u, c.p1, c.p2);
    case Dist::kChoice: {
      auto i = static_cast<std::size_t>(u * static_cast<double>(c.choices.size()));
      return c.choices[std::min(i, c.choices.size() - 1)];
    }
  }
  // The bounds themselves at u = 0 and 1 (grid, star and ccd put points there): exp(log(hi))
  // is not always hi.
  if (u <= 0) return c.lo;
  if (u >= 1) return c.hi;
  if (c.log) return std::exp(std::log(c.lo) + u * (std::log(c.hi) - std::log(c.lo)));
  return c.lo + u * (c.hi - c.lo);
}

double rounded(const Column& c, double x) {
  return c.round > 0 ? std::round(x / c.round) * c.round : x;
}

double to_bounds(const Column& c, double u) { return rounded(c, distributed(c, u)); }

double normal_to_bounds(const Column& c, double z) {  // [lo, hi] is the ±3σ range
  if (c.log) {
    double a = std::log(c.lo), b = std::log(c.hi);
    return std::exp((a + b) / 2 + z * (b - a) / 6);
  }
  return (c.lo + c.hi) / 2 + z * (c.hi - c.lo) / 6;
}

double standard_normal(std::uint64_t seed, std::uint64_t row, std::size_t col) {
  double u1 = uniform01(seed, 11, row, col), u2 = uniform01(seed, 13, row, col);
  return std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * M_PI * u2);  // Box-Muller
}

}  // namespace

void fill_rows(const SampleDesign& d, std::uint64_t first, std::uint64_t count, double* out) {
  const std::size_t dims = d.columns.size();
  switch (d.method) {
    case Method::kUniform:
      for (std::uint64_t r = 0; r < count; ++r)
        for (std::size_t c = 0; c < dims; ++c)
          out[r * dims + c] = to_bounds(d.columns[c], uniform01(d.seed, 1, first + r, c));
      return;
    case Method::kLhs:
      for (std::size_t c = 0; c < dims; ++c) {
        const std::uint64_t key = mix(d.seed ^ mix(c + 0x1000));
        for (std::uint64_t r = 0; r < count; ++r) {
          const std::uint64_t row = first + r;
          double u = (static_cast<double>(permute(row, d.rows, key)) +
                      uniform01(d.seed, 2, row, c)) /
                     static_cast<double>(d.rows);
          out[r * dims + c] = to_bounds(d.columns[c], std::min(u, std::nextafter(1.0, 0.0)));
        }
      }
      return;
    case Method::kSobol:
      for (std::size_t c = 0; c < dims; ++c) {
        auto v = sobol_directions(c);
        std::uint32_t shift = 0;
        if (d.scramble) {
          v = sobol_lms(v, d.seed, c);
          shift = sobol_shift(d.seed, c);
        }
        // Gray-code order: point i is the XOR of the directions of gray(i)'s bits.
        std::uint64_t i = first;
        std::uint64_t g = i ^ (i >> 1);
        std::uint32_t x = 0;
        for (unsigned k = 0; k < 32; ++k)
          if ((g >> k) & 1) x ^= v[k];
        for (std::uint64_t r = 0; r < count; ++r) {
          out[r * dims + c] = to_bounds(d.columns[c], static_cast<double>(x ^ shift) * 0x1.0p-32);
          ++i;
          x ^= v[static_cast<unsigned>(__builtin_ctzll(i))];
        }
      }
      return;
    case Method::kHalton:
      for (std::size_t c = 0; c < dims; ++c) {
        const unsigned base = kPrimes[c];
        const HaltonDigits halton(base, d.scramble, d.seed, c);
        for (std::uint64_t r = 0; r < count; ++r)
          out[r * dims + c] = to_bounds(d.columns[c], halton(first + r + 1));
      }
      return;
    case Method::kGrid: {
      const std::uint64_t k = grid_side(d.rows, dims);
      for (std::uint64_t r = 0; r < count; ++r) {
        std::uint64_t rest = first + r;
        for (std::size_t c = dims; c-- > 0;) {  // the last column varies fastest
          const std::uint64_t digit = rest % k;
          rest /= k;
          double u = k == 1 ? 0.5 : static_cast<double>(digit) / static_cast<double>(k - 1);
          out[r * dims + c] = to_bounds(d.columns[c], u);
        }
      }
      return;
    }
    case Method::kMaximin: {
      // Optimised as a whole, once per (rows, columns, seed) and thread: the writer asks for
      // it block by block.
      thread_local struct {
        std::uint64_t rows = 0, seed = 0;
        std::size_t dims = 0;
        std::vector<double> unit;
      } cache;
      if (cache.unit.empty() || cache.rows != d.rows || cache.dims != dims || cache.seed != d.seed) {
        cache.unit = maximin_lhs_unit(d.rows, dims, d.seed);
        cache.rows = d.rows;
        cache.dims = dims;
        cache.seed = d.seed;
      }
      for (std::uint64_t r = 0; r < count; ++r)
        for (std::size_t c = 0; c < dims; ++c)
          out[r * dims + c] = to_bounds(d.columns[c], cache.unit[(first + r) * dims + c]);
      return;
    }
    case Method::kStar:  // row 2k: column k at its low bound, 2k + 1: at its high one
      for (std::uint64_t r = 0; r < count; ++r)
        for (std::size_t c = 0; c < dims; ++c) {
          const std::uint64_t row = first + r;
          const double u = row / 2 == c ? double(row % 2) : 0.5;
          out[r * dims + c] = to_bounds(d.columns[c], u);
        }
      return;
    case Method::kCcd: {  // the 2^d corners (bit c of the row: column c high), the axial points, the centre
      const std::uint64_t corners = std::uint64_t{1} << dims;
      for (std::uint64_t r = 0; r < count; ++r)
        for (std::size_t c = 0; c < dims; ++c) {
          const std::uint64_t row = first + r;
          double u = 0.5;
          if (row < corners)
            u = double((row >> c) & 1);
          else if (row - corners < 2 * dims && (row - corners) / 2 == c)
            u = double((row - corners) % 2);
          out[r * dims + c] = to_bounds(d.columns[c], u);
        }
      return;
    }
    case Method::kNormal:
      for (std::uint64_t r = 0; r < count; ++r)
        for (std::size_t c = 0; c < dims; ++c)
          out[r * dims + c] =
              rounded(d.columns[c],
                      normal_to_bounds(d.columns[c], standard_normal(d.seed, first + r, c)));
      return;
  }
}

}  // namespace merlin::sampling
