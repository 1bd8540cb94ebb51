#include "merlin/core/sampling/sample_design.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "merlin/core/sampling/maximin_lhs.h"
#include "merlin/core/sampling/sobol_directions.h"

namespace merlin::sampling {
namespace {

struct Named {
  const char* name;
  Method method;
};
constexpr Named kMethods[] = {{"uniform", Method::kUniform}, {"lhs", Method::kLhs},
                              {"sobol", Method::kSobol},     {"halton", Method::kHalton},
                              {"grid", Method::kGrid},       {"normal", Method::kNormal},
                              {"maximin", Method::kMaximin}, {"star", Method::kStar},
                              {"ccd", Method::kCcd}};

bool parse_double(std::string_view s, double* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(*out);
}

}  // namespace

Result<Method> parse_method(std::string_view text) {
  for (const auto& m : kMethods)
    if (text == m.name) return m.method;
  return Error::bad_input("--method '" + std::string(text) +
                          "' is none of uniform, lhs, sobol, halton, grid, normal, maximin, star, ccd");
}

const char* method_name(Method m) {
  for (const auto& n : kMethods)
    if (n.method == m) return n.name;
  return "?";
}

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    auto at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

struct DistName {
  const char* name;
  Dist dist;
};
constexpr DistName kDists[] = {{"normal", Dist::kNormal},       {"lognormal", Dist::kLogNormal},
                               {"truncnorm", Dist::kTruncNormal}, {"beta", Dist::kBeta},
                               {"choice", Dist::kChoice}};

Result<Column> parse_distribution(std::string_view text, Column c, Dist dist,
                                  std::vector<std::string_view> parts) {
  auto bad = [&](const std::string& why) {
    return Error::bad_input("--column '" + std::string(text) + "': " + why +
                            " (expected NAME=normal:MU:SIGMA, NAME=lognormal:MU:SIGMA, "
                            "NAME=truncnorm:MU:SIGMA:LO:HI, NAME=beta:A:B[:LO:HI] or "
                            "NAME=choice:V1,V2,...; optionally :round=STEP)");
  };
  c.dist = dist;
  const std::string kind = std::string(parts[0]);
  parts.erase(parts.begin());
  if (dist == Dist::kChoice) {
    if (parts.size() != 1 || parts[0].empty()) return bad("choice takes one list of values");
    for (auto v : split(parts[0], ',')) {
      double x;
      if (!parse_double(v, &x)) return bad("the choice '" + std::string(v) + "' is no number");
      c.choices.push_back(x);
    }
    c.lo = *std::min_element(c.choices.begin(), c.choices.end());
    c.hi = *std::max_element(c.choices.begin(), c.choices.end());
    return c;
  }
  const std::size_t want = dist == Dist::kTruncNormal ? 4 : 2;
  if (!(parts.size() == want || (dist == Dist::kBeta && parts.size() == 4)))
    return bad(kind + " takes " + (dist == Dist::kBeta ? std::string("2 or 4") : std::to_string(want)) +
               " numbers, got " + std::to_string(parts.size()));
  std::vector<double> v(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (!parse_double(parts[i], &v[i])) return bad("'" + std::string(parts[i]) + "' is no number");
  c.p1 = v[0];
  c.p2 = v[1];
  if (dist == Dist::kBeta) {
    if (!(c.p1 > 0 && c.p2 > 0)) return bad("beta's shapes A and B must be above 0");
    c.lo = v.size() == 4 ? v[2] : 0;
    c.hi = v.size() == 4 ? v[3] : 1;
  } else {
    if (!(c.p2 > 0)) return bad(kind + "'s SIGMA must be above 0");
    if (dist == Dist::kTruncNormal) {
      c.lo = v[2];
      c.hi = v[3];
    }
  }
  if ((dist == Dist::kBeta || dist == Dist::kTruncNormal) && !(c.lo < c.hi))
    return bad("the lower bound is not below the upper one");
  return c;
}

}  // namespace

Result<Column> parse_column(std::string_view text) {
  Column c;
  std::string_view range = text;
  if (auto eq = text.find('='); eq != std::string_view::npos) {
    c.name = std::string(text.substr(0, eq));
    range = text.substr(eq + 1);
  }
  auto bad = [&](const std::string& why) {
    return Error::bad_input("--column '" + std::string(text) + "': " + why +
                            " (expected NAME=LO:HI or NAME=LO:HI:log)");
  };
  // A trailing ":round=STEP", on any column.
  if (auto r = range.rfind(":round="); r != std::string_view::npos) {
    const std::string_view step = range.substr(r + 7);
    if (!parse_double(step, &c.round) || !(c.round > 0))
      return Error::bad_input("--column '" + std::string(text) + "': the rounding step '" +
                              std::string(step) + "' is not a number above 0");
    range = range.substr(0, r);
  }
  {
    auto parts = split(range, ':');
    for (const auto& d : kDists)
      if (parts[0] == d.name) return parse_distribution(text, c, d.dist, parts);
  }
  auto colon = range.find(':');
  if (colon == std::string_view::npos) return bad("no ':' between the bounds");
  std::string_view lo = range.substr(0, colon), rest = range.substr(colon + 1), scale;
  if (auto second = rest.find(':'); second != std::string_view::npos) {
    scale = rest.substr(second + 1);
    rest = rest.substr(0, second);
  }
  if (!parse_double(lo, &c.lo)) return bad("the lower bound '" + std::string(lo) + "' is no number");
  if (!parse_double(rest, &c.hi))
    return bad("the upper bound '" + std::string(rest) + "' is no number");
  if (!(c.lo < c.hi)) return bad("the lower bound is not below the upper one");
  if (scale == "log") {
    c.log = true;
    if (c.lo <= 0) return bad("a log scale needs bounds above 0");
  } else if (!scale.empty() && scale != "linear") {
    return bad("scale '" + std::string(scale) + "' is neither linear nor log");
  }
  return c;
}

Result<std::uint64_t> parse_rows(std::string_view text) {
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && end == text.data() + text.size() && v >= 1 &&
      static_cast<std::uint64_t>(v) <= kMaxRows)
    return static_cast<std::uint64_t>(v);
  return Error::bad_input("-n/--rows: " + std::string(text) + " is not a row count from 1 to " +
                          std::to_string(kMaxRows));
}

Result<void> check_design(const SampleDesign& d) {
  if (d.rows == 0) return Error::bad_input("-n: at least one row");
  if (d.rows > kMaxRows)
    return Error::bad_input("-n/--rows: at most " + std::to_string(kMaxRows) + " rows, got " +
                            std::to_string(d.rows));
  if (d.columns.empty()) return Error::bad_input("no columns: give --dims D or --column NAME=LO:HI");
  if (d.method == Method::kSobol && d.columns.size() > kSobolMaxDims)
    return Error::bad_input("--method sobol: at most " + std::to_string(kSobolMaxDims) +
                            " columns in this build, got " + std::to_string(d.columns.size()));
  if (d.method == Method::kHalton && d.columns.size() > kHaltonMaxDims)
    return Error::bad_input("--method halton: at most " + std::to_string(kHaltonMaxDims) +
                            " columns (one prime base each), got " +
                            std::to_string(d.columns.size()));
  if (d.method == Method::kGrid || d.method == Method::kNormal || sized_by_columns(d.method))
    for (const auto& c : d.columns)
      if (c.dist != Dist::kRange)
        return Error::bad_input("--column '" + c.name + "': a distribution applies to methods "
                                "uniform, lhs, maximin, sobol and halton, not " +
                                method_name(d.method));
  if (d.method == Method::kMaximin && d.rows > kMaximinMaxRows)
    return Error::bad_input("--method maximin: at most " + std::to_string(kMaximinMaxRows) +
                            " rows (its optimisation compares every row with every other), got " +
                            std::to_string(d.rows) + "; lhs takes any number");
  if (d.method == Method::kCcd && d.columns.size() > kCcdMaxDims)
    return Error::bad_input("--method ccd: at most " + std::to_string(kCcdMaxDims) +
                            " columns (2^d corners), got " + std::to_string(d.columns.size()));
  if (d.method == Method::kSobol && d.rows > (std::uint64_t{1} << 32))
    return Error::bad_input("--method sobol: at most 2^32 rows");
  return ok();
}

std::uint64_t design_rows(const SampleDesign& d) {
  const std::size_t dims = d.columns.size();
  switch (d.method) {
    case Method::kGrid: {
      const std::uint64_t k = grid_side(d.rows, dims);
      std::uint64_t n = 1;
      for (std::size_t i = 0; i < dims; ++i) n *= k;
      return n;
    }
    case Method::kStar: return 2 * std::uint64_t{dims};
    case Method::kCcd: return (std::uint64_t{1} << std::min<std::size_t>(dims, 63)) + 2 * dims + 1;
    default: return d.rows;
  }
}

std::uint64_t grid_side(std::uint64_t rows, std::size_t dims) {
  auto k = static_cast<std::uint64_t>(std::floor(std::pow(static_cast<double>(rows), 1.0 / dims) + 1e-9));
  k = std::max<std::uint64_t>(k, 1);
  auto power = [&](std::uint64_t b) {
    long double p = 1;
    for (std::size_t i = 0; i < dims; ++i) p *= b;
    return p;
  };
  while (power(k + 1) <= rows) ++k;  // floating error below
  while (k > 1 && power(k) > rows) --k;
  return k;
}

}  // namespace merlin::sampling
