#include "merlin/core/sampling/sample_rows.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "merlin/core/sampling/sobol_directions.h"

namespace merlin::sampling {
namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform in [0, 1) for (seed, stream, row, col): counter-based, so any row stands alone.
double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t row, std::uint64_t col) {
  std::uint64_t h = mix(seed ^ mix(stream ^ mix(row ^ mix(col))));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

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

// Direction integers of dimension `dim` (0-based), 32 of them.
std::array<std::uint32_t, 32> sobol_directions(std::size_t dim) {
  std::array<std::uint32_t, 32> v{};
  if (dim == 0) {
    for (unsigned k = 0; k < 32; ++k) v[k] = std::uint32_t{1} << (31 - k);
    return v;
  }
  const SobolRow& row = kSobolRows[dim - 1];
  const unsigned s = row.degree;
  for (unsigned k = 0; k < s; ++k) v[k] = row.m[k] << (31 - k);
  for (unsigned k = s; k < 32; ++k) {
    v[k] = v[k - s] ^ (v[k - s] >> s);
    for (unsigned l = 1; l < s; ++l)
      if ((row.poly >> (s - 1 - l)) & 1) v[k] ^= v[k - l];
  }
  return v;
}

constexpr unsigned kPrimes[] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47,
                                53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113};

double halton(std::uint64_t index, unsigned base, const std::vector<unsigned>& perm) {
  double f = 1.0 / base, x = 0;
  for (std::uint64_t n = index; n > 0; n /= base) {
    x += perm[n % base] * f;
    f /= base;
  }
  return x;
}

// Digit permutation of `base` for a column: identity unscrambled, else random with 0 kept
// (finite expansions stay finite).
std::vector<unsigned> digit_perm(unsigned base, bool scramble, std::uint64_t seed, std::size_t col) {
  std::vector<unsigned> p(base);
  for (unsigned i = 0; i < base; ++i) p[i] = i;
  if (!scramble) return p;
  for (unsigned i = base - 1; i > 1; --i) {
    auto j = 1 + static_cast<unsigned>(uniform01(seed, 7, i, col) * i);
    std::swap(p[i], p[std::min(j, i)]);
  }
  return p;
}

double to_bounds(const Column& c, double u) {
  if (c.log) return std::exp(std::log(c.lo) + u * (std::log(c.hi) - std::log(c.lo)));
  return c.lo + u * (c.hi - c.lo);
}

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
        const std::uint32_t shift =
            d.scramble ? static_cast<std::uint32_t>(mix(d.seed ^ mix(c + 0x2000))) : 0;
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
        static_assert(sizeof(kPrimes) / sizeof(kPrimes[0]) == kHaltonMaxDims);
        const unsigned base = kPrimes[c];
        auto perm = digit_perm(base, d.scramble, d.seed, c);
        for (std::uint64_t r = 0; r < count; ++r)
          out[r * dims + c] = to_bounds(d.columns[c], halton(first + r + 1, base, perm));
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
    case Method::kNormal:
      for (std::uint64_t r = 0; r < count; ++r)
        for (std::size_t c = 0; c < dims; ++c)
          out[r * dims + c] =
              normal_to_bounds(d.columns[c], standard_normal(d.seed, first + r, c));
      return;
  }
}

}  // namespace merlin::sampling
