#include "merlin/core/tune/trial_config.h"

#include <algorithm>
#include <cmath>

#include "merlin/core/sampling/sample_rows.h"
#include "merlin/core/sampling/sobol_directions.h"
#include "merlin/core/util/value_format.h"

namespace merlin::tune {

std::vector<std::string> trial_values(const spec::TuneSpec& spec, std::uint32_t trial) {
  using Kind = spec::TuneDimension::Kind;
  sampling::SampleDesign d;
  d.method = spec.method == spec::TuneMethod::kSobol && spec.space.size() <= sampling::kSobolMaxDims
                 ? sampling::Method::kSobol
                 : sampling::Method::kUniform;
  d.seed = spec.seed;
  d.rows = std::uint64_t{spec.trials};
  for (const auto& dim : spec.space) {
    sampling::Column c;
    c.name = dim.name;
    switch (dim.kind) {
      case Kind::kUniform: c.lo = dim.low; c.hi = dim.high; break;
      case Kind::kLogUniform: c.lo = dim.low; c.hi = dim.high; c.log = true; break;
      case Kind::kInteger: c.lo = dim.low; c.hi = dim.high + 1; break;
      case Kind::kChoice: c.lo = 0; c.hi = double(dim.choices.size()); break;
    }
    d.columns.push_back(c);
  }
  std::vector<double> row(d.columns.size());
  sampling::fill_rows(d, trial, 1, row.data());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < spec.space.size(); ++i) {
    const auto& dim = spec.space[i];
    switch (dim.kind) {
      case Kind::kUniform:
      case Kind::kLogUniform:
        out.push_back(samples::format_float64(std::clamp(row[i], dim.low, dim.high)));
        break;
      case Kind::kInteger: {
        const double v = std::clamp(std::floor(row[i]), dim.low, dim.high);
        out.push_back(samples::format_int(static_cast<std::int64_t>(v)));
        break;
      }
      case Kind::kChoice: {
        const auto n = dim.choices.size();
        auto k = static_cast<std::size_t>(std::max(0.0, std::floor(row[i])));
        out.push_back(dim.choices[std::min(k, n - 1)]);
        break;
      }
    }
  }
  return out;
}

}  // namespace merlin::tune
