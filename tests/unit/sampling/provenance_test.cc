// The provenance record of a sample file: every field of the design, valid JSON escaping, the
// scrambling named only for scrambled Sobol/Halton, and the sidecar's name.
#include <gtest/gtest.h>

#include "merlin/core/sampling/provenance.h"

namespace merlin::sampling {
namespace {

TEST(SampleProvenance, RecordsTheDesign) {
  SampleDesign d;
  d.method = Method::kSobol;
  d.rows = 1024;
  d.seed = 42;
  d.columns = {{"x", -1, 2, false}, {"k\"q", 1e-3, 1, true}};
  const std::string j = provenance_json(d, 1024, "v1.2-3-gabc");
  EXPECT_NE(j.find("\"generator\": \"merlin sample\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"merlin_version\": \"v1.2-3-gabc\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"method\": \"sobol\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"rows\": 1024"), std::string::npos) << j;
  EXPECT_NE(j.find("\"seed\": 42"), std::string::npos) << j;
  EXPECT_NE(j.find("\"scramble\": true"), std::string::npos) << j;
  EXPECT_NE(j.find("linear matrix scrambling"), std::string::npos) << j;
  EXPECT_NE(j.find("{\"name\": \"x\", \"lo\": -1, \"hi\": 2, \"scale\": \"linear\""),
            std::string::npos) << j;
  EXPECT_NE(j.find("\"name\": \"k\\\"q\""), std::string::npos) << "quotes escaped: " << j;
  EXPECT_NE(j.find("\"scale\": \"log\""), std::string::npos) << j;
  EXPECT_EQ(j.back(), '\n');
}

TEST(SampleProvenance, NoScramblingForUnscrambledOrOtherMethods) {
  SampleDesign d;
  d.method = Method::kLhs;
  d.rows = 5;
  d.columns = {{"", 0, 1, false}};
  auto j = provenance_json(d, 5, "v");
  EXPECT_NE(j.find("\"scramble\": false"), std::string::npos) << j;
  EXPECT_NE(j.find("\"scrambling\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"name\": \"x0\""), std::string::npos) << "unnamed columns are x0..: " << j;
  d.method = Method::kHalton;
  d.scramble = false;
  EXPECT_NE(provenance_json(d, 5, "v").find("\"scramble\": false"), std::string::npos);
  EXPECT_EQ(provenance_path("dir/x.npy"), "dir/x.npy.json");
}

}  // namespace
}  // namespace merlin::sampling
