#include "merlin/core/spec/did_you_mean.h"

#include <gtest/gtest.h>

namespace merlin::spec {
namespace {

TEST(SpecDidYouMean, EditDistanceCountsTranspositionsAsOneEdit) {
  EXPECT_EQ(edit_distance("nodes", "nodse"), 1);
  EXPECT_EQ(edit_distance("cmd", "CMD"), 0);
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(edit_distance("cores_per_task", "cores per task"), 2);
}

TEST(SpecDidYouMean, SuggestsCloseSpellingsAndPrefixes) {
  const std::vector<std::string> keys = {"cmd", "procs", "nodes", "max_retries", "cores per task"};
  EXPECT_EQ(did_you_mean("nodse", keys), "nodes");
  EXPECT_EQ(did_you_mean("procs_per_task", keys), "procs");
  EXPECT_EQ(did_you_mean("max_retr", keys), "max_retries");
  EXPECT_EQ(did_you_mean("cores_per_task", keys), "cores per task");
  EXPECT_EQ(did_you_mean("cmdd", keys), "cmd");
}

TEST(SpecDidYouMean, NothingNearMeansNoSuggestion) {
  const std::vector<std::string> keys = {"cmd", "procs"};
  EXPECT_EQ(did_you_mean("walltime", keys), std::nullopt);
  EXPECT_EQ(did_you_mean("xy", keys), std::nullopt);
  EXPECT_EQ(did_you_mean("cmd", keys), std::nullopt);  // exact matches are not suggestions
  EXPECT_EQ(suggestion_suffix("prcs", keys), " (did you mean 'procs'?)");
  EXPECT_EQ(suggestion_suffix("OUTDIR", {"OUT_DIR"}, "$(", ")"), " (did you mean '$(OUT_DIR)'?)");
}

}  // namespace
}  // namespace merlin::spec
