#include "merlin/core/util/path_expand.h"

#include <gtest/gtest.h>

#include <map>

namespace merlin {
namespace {

EnvLookup fake_env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& n) -> std::optional<std::string> {
    auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(PathExpand, TildeAndVariablesAsPythonExpandsThem) {
  auto env = fake_env({{"HOME", "/home/ada"}, {"SCRATCH", "/p/lustre"}, {"RUN", "r1"}});
  EXPECT_EQ(expand_path("~/studies", env), "/home/ada/studies");
  EXPECT_EQ(expand_path("~", env), "/home/ada");
  EXPECT_EQ(expand_path("$SCRATCH/out_${RUN}", env), "/p/lustre/out_r1");
  EXPECT_EQ(expand_path("a/~/b", env), "a/~/b") << "only a leading ~";
  EXPECT_EQ(expand_path("~bob/x", env), "~bob/x") << "~user is left alone";
  EXPECT_EQ(expand_path("$UNSET/x ${UNSET} $ $1 ${RUN", env), "$UNSET/x ${UNSET} $ $1 ${RUN");
  EXPECT_EQ(expand_path("./studies", env), "./studies");
}

TEST(PathExpand, NoHomeLeavesTheTilde) { EXPECT_EQ(expand_path("~/x", fake_env({})), "~/x"); }

}  // namespace
}  // namespace merlin
