#include "merlin/core/sampling/qmc_scramble.h"

#include <algorithm>
#include <cmath>

namespace merlin::sampling {

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t row, std::uint64_t col) {
  std::uint64_t h = mix64(seed ^ mix64(stream ^ mix64(row ^ mix64(col))));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

namespace {
std::uint64_t bits_of(std::uint64_t seed, std::uint64_t stream, std::uint64_t row, std::uint64_t col) {
  return mix64(seed ^ mix64(stream ^ mix64(row ^ mix64(col))));
}
}  // namespace

std::array<std::uint32_t, 32> sobol_lms(const std::array<std::uint32_t, 32>& v, std::uint64_t seed,
                                        std::uint64_t col) {
  // Row p of L as a mask over the 32-bit word: bit (31 - p) set (the diagonal) and random bits
  // at the more significant positions (the lower triangle, counting from the top bit).
  std::array<std::uint32_t, 32> row{};
  for (unsigned p = 0; p < 32; ++p) {
    const std::uint32_t diag = std::uint32_t{1} << (31 - p);
    const std::uint32_t above = p == 0 ? 0 : ~((diag << 1) - 1);
    row[p] = diag | (static_cast<std::uint32_t>(bits_of(seed, 21, p, col)) & above);
  }
  std::array<std::uint32_t, 32> out{};
  for (unsigned k = 0; k < 32; ++k) {
    std::uint32_t x = 0;
    for (unsigned p = 0; p < 32; ++p)
      if (__builtin_parity(v[k] & row[p])) x |= std::uint32_t{1} << (31 - p);
    out[k] = x;
  }
  return out;
}

std::uint32_t sobol_shift(std::uint64_t seed, std::uint64_t col) {
  return static_cast<std::uint32_t>(bits_of(seed, 22, 0, col) >> 32);
}

HaltonDigits::HaltonDigits(unsigned base, bool scramble, std::uint64_t seed, std::uint64_t col)
    : base_(base) {
  // Enough digits for a 2^-53 resolution (and for any 64-bit index when unscrambled).
  const auto count = static_cast<std::size_t>(std::ceil(64.0 / std::log2(static_cast<double>(base))));
  perm_.assign(count, std::vector<unsigned>(base));
  for (std::size_t pos = 0; pos < count; ++pos) {
    auto& p = perm_[pos];
    for (unsigned i = 0; i < base; ++i) p[i] = i;
    if (!scramble) continue;
    for (unsigned i = base - 1; i > 0; --i) {  // Fisher-Yates
      auto j = static_cast<unsigned>(uniform01(seed, 23, (pos << 16) | i, col) * (i + 1));
      std::swap(p[i], p[std::min(j, i)]);
    }
  }
  tail_.assign(count + 1, 0.0);
  if (scramble) {
    double f = std::pow(static_cast<double>(base), -static_cast<double>(count));
    for (std::size_t k = count; k-- > 0;) {
      tail_[k] = tail_[k + 1] + perm_[k][0] * f;
      f *= base;
    }
  }
}

double HaltonDigits::operator()(std::uint64_t index) const {
  double f = 1.0 / base_, x = 0;
  std::size_t pos = 0;
  for (std::uint64_t n = index; n > 0; n /= base_, ++pos) {
    x += perm_[pos][n % base_] * f;
    f /= base_;
  }
  x += tail_[pos];
  return std::min(x, std::nextafter(1.0, 0.0));
}

}  // namespace merlin::sampling
