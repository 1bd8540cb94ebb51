#include "merlin/core/sampling/provenance.h"

#include <cmath>
#include <cstdio>

#include "merlin/core/util/json_text.h"

namespace merlin::sampling {
namespace {

std::string quoted(std::string_view s) { return json_quoted(s); }

std::string number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

const char* scrambling_of(const SampleDesign& d) {
  if (!d.scramble) return nullptr;
  if (d.method == Method::kSobol) return "linear matrix scrambling and digital shift";
  if (d.method == Method::kHalton) return "random digit permutation per digit position and base";
  return nullptr;
}

std::string distribution_of(Method m, const Column& c) {
  switch (c.dist) {
    case Dist::kRange: break;
    case Dist::kNormal: return "normal(mu=" + number(c.p1) + ", sigma=" + number(c.p2) + ")";
    case Dist::kLogNormal:
      return "lognormal(mu=" + number(c.p1) + ", sigma=" + number(c.p2) + ", of log x)";
    case Dist::kTruncNormal:
      return "truncnorm(mu=" + number(c.p1) + ", sigma=" + number(c.p2) + ") on [lo, hi]";
    case Dist::kBeta: return "beta(a=" + number(c.p1) + ", b=" + number(c.p2) + ") on [lo, hi]";
    case Dist::kChoice: {
      std::string s = "choice(";
      for (std::size_t i = 0; i < c.choices.size(); ++i) s += (i ? ", " : "") + number(c.choices[i]);
      return s + ")";
    }
  }
  return m == Method::kNormal ? "normal, lo:hi the +-3 sigma range" : "uniform";
}

}  // namespace

std::string provenance_json(const SampleDesign& d, std::uint64_t rows_written,
                            std::string_view version) {
  const char* scrambling = scrambling_of(d);
  std::string j = "{\n";
  j += "  \"generator\": \"merlin sample\",\n";
  j += "  \"merlin_version\": " + quoted(version) + ",\n";
  j += "  \"method\": " + quoted(method_name(d.method)) + ",\n";
  j += "  \"rows\": " + std::to_string(rows_written) + ",\n";
  j += "  \"seed\": " + std::to_string(d.seed) + ",\n";
  j += std::string("  \"scramble\": ") + (scrambling ? "true" : "false") + ",\n";
  j += "  \"scrambling\": " + (scrambling ? quoted(scrambling) : std::string("null")) + ",\n";
  j += "  \"columns\": [";
  for (std::size_t c = 0; c < d.columns.size(); ++c) {
    const Column& col = d.columns[c];
    const std::string name = col.name.empty() ? "x" + std::to_string(c) : col.name;
    j += c ? ",\n    " : "\n    ";
    j += "{\"name\": " + quoted(name) + ", \"lo\": " + number(col.lo) + ", \"hi\": " +
         number(col.hi) + ", \"scale\": \"" + (col.log ? "log" : "linear") +
         "\", \"distribution\": " + quoted(distribution_of(d.method, col)) +
         (col.round > 0 ? ", \"round\": " + number(col.round) : std::string()) + "}";
  }
  j += d.columns.empty() ? "]\n" : "\n  ]\n";
  return j + "}\n";
}

std::string provenance_path(const std::string& sample_path) { return sample_path + ".json"; }

}  // namespace merlin::sampling
