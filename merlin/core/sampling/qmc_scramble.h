#pragma once
/// Randomisations of the quasi-random sequences, as pure functions of (seed, column):
/// - Sobol: linear matrix scrambling (a random lower-triangular binary matrix with unit diagonal
///   applied to every direction integer) followed by a random digital shift, as
///   scipy.stats.qmc.Sobol(scramble=True) does. The scrambled points of N = 2^m rows are still a
///   (t, m, s)-net: each column has one point in each of the 2^m intervals [k/2^m, (k+1)/2^m).
/// - Halton: an independent random permutation of {0..b-1} for every digit position of every
///   base (scipy.stats.qmc.Halton(scramble=True)'s approach), applied to all digits down to 2^-53,
///   trailing zeros included, so the points are spread over [0, 1) and the estimates unbiased.
#include <array>
#include <cstdint>
#include <vector>

namespace merlin::sampling {

/// splitmix64's finaliser: the mixing step of every counter-based random number here.
std::uint64_t mix64(std::uint64_t x);

/// A uniform in [0, 1) for (seed, stream, row, col).
double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t row, std::uint64_t col);

/// Sobol direction integers `v` of column `col` scrambled by a random lower-triangular binary
/// matrix L (unit diagonal): output bit p (from the most significant) is the parity of the
/// input bits 0..p selected by L's row p.
std::array<std::uint32_t, 32> sobol_lms(const std::array<std::uint32_t, 32>& v, std::uint64_t seed,
                                        std::uint64_t col);

/// The random digital shift of column `col` (XORed into every point).
std::uint32_t sobol_shift(std::uint64_t seed, std::uint64_t col);

/// A Halton column's radical inverse with per-digit permutations.
class HaltonDigits {
 public:
  /// Unscrambled (identity permutations, no tail) when `scramble` is false.
  HaltonDigits(unsigned base, bool scramble, std::uint64_t seed, std::uint64_t col);
  /// The point of `index` in [0, 1).
  double operator()(std::uint64_t index) const;
  /// The permutation of digit position `pos` (0 = the b^-1 digit).
  const std::vector<unsigned>& permutation(std::size_t pos) const { return perm_[pos]; }
  std::size_t digits() const { return perm_.size(); }

 private:
  unsigned base_;
  std::vector<std::vector<unsigned>> perm_;  // per digit position
  std::vector<double> tail_;  // tail_[k]: what the (permuted) zero digits from position k add
};

}  // namespace merlin::sampling
