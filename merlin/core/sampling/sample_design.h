#pragma once
/// What `merlin sample` makes: a method, N rows, and per column a name, bounds and scale.
/// Pure values and their parsing; the generators are in unit_sequences.h.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::sampling {

enum class Method { kUniform, kLhs, kSobol, kHalton, kGrid, kNormal, kMaximin, kStar, kCcd };

/// "uniform", "lhs", "sobol", "halton", "grid", "normal", "maximin" (a Latin hypercube with its
/// rows spread apart: maximin_lhs.h), "star" (the 2·d axial points: each column at its low and
/// its high bound, the others at their centre) and "ccd" (a face-centred central composite
/// design: the 2^d corners, the 2·d axial points and the centre); kBadInput naming the known
/// ones.
Result<Method> parse_method(std::string_view text);
const char* method_name(Method m);

/// A column's distribution, applied by inverse CDF to the unit design's u in [0, 1).
enum class Dist { kRange, kNormal, kLogNormal, kTruncNormal, kBeta, kChoice };

struct Column {
  std::string name;
  double lo = 0, hi = 1;  ///< bounds; for `normal`, the ±3σ range; truncnorm's and beta's range
  bool log = false;       ///< uniform in log(x) between lo and hi (both > 0)
  Dist dist = Dist::kRange;
  double p1 = 0, p2 = 0;        ///< normal/lognormal/truncnorm: mu, sigma; beta: a, b
  std::vector<double> choices{};  ///< kChoice: the values, each equally likely
  double round = 0;             ///< > 0: values rounded to the nearest multiple of it
};

/// "NAME=LO:HI" or "NAME=LO:HI:log" (also "LO:HI" unnamed); or a distribution:
/// "NAME=normal:MU:SIGMA", "NAME=lognormal:MU:SIGMA" (of log x), "NAME=truncnorm:MU:SIGMA:LO:HI",
/// "NAME=beta:A:B" or "NAME=beta:A:B:LO:HI", "NAME=choice:V1,V2,..." (numbers); any of them may
/// end in ":round=STEP". kBadInput saying what is wrong: inverted or equal bounds, a log scale
/// over a non-positive bound, no number, sigma or a beta shape not above 0, an empty choice, a
/// rounding step not above 0.
Result<Column> parse_column(std::string_view text);

struct SampleDesign {
  Method method = Method::kUniform;
  std::uint64_t rows = 0;
  std::vector<Column> columns;
  std::uint64_t seed = 0;
  bool scramble = true;  ///< Sobol: random digital shift; Halton: random digit permutations
};

/// The most rows `merlin sample` writes: 10^12 (8 TB a column as float64). More is a mistake
/// (a count that wrapped, a missing exponent), refused before anything is written.
inline constexpr std::uint64_t kMaxRows = 1'000'000'000'000;

/// `-n` as written: a whole number from 1 to kMaxRows, read as signed so that "-5" is refused
/// as -5 rather than wrapped to 2^64-5. kBadInput "-n/--rows: -5 is not a row count from 1 to
/// 1000000000000" otherwise.
Result<std::uint64_t> parse_rows(std::string_view text);

/// Halton's columns: one prime base each, the first 1,000 primes (2 to 7919; sample_rows.cc).
/// scipy's Halton takes any count; past a few dozen columns its large bases fill the space
/// slowly, and scrambling (the default) is what keeps them usable.
inline constexpr std::size_t kHaltonMaxDims = 1000;

/// Checks a design as a whole (rows from 1 to kMaxRows, at least one column, the method's limits:
/// Sobol's and Halton's columns; distributions only over uniform, lhs, sobol and halton); kBadInput.
Result<void> check_design(const SampleDesign& d);

/// Rows a full grid of `rows` requested points has: k^d with k = floor(rows^(1/d)), k >= 1.
std::uint64_t grid_side(std::uint64_t rows, std::size_t dims);

/// The rows `d` makes: a grid's k^d, star's 2·d, ccd's 2^d + 2·d + 1; `d.rows` otherwise.
std::uint64_t design_rows(const SampleDesign& d);

/// Whether the columns alone decide the row count (star, ccd): -n may then be left out.
inline bool sized_by_columns(Method m) { return m == Method::kStar || m == Method::kCcd; }

/// ccd's most columns (2^20 corners).
inline constexpr std::size_t kCcdMaxDims = 20;

}  // namespace merlin::sampling
