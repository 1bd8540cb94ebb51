// merlin.combine_parameters: cartesian — the grid as zipped lists, and its bound.
#include "merlin/core/spec/parameter_grid.h"

#include <gtest/gtest.h>

#include <set>

#include "merlin/core/spec/spec_loader.h"

namespace merlin::spec {
namespace {

Parameter param(std::string name, std::vector<std::string> values) {
  Parameter p;
  p.name = std::move(name);
  p.values = std::move(values);
  return p;
}

TEST(ParameterGrid, LastParameterVariesFastestAsItertoolsProduct) {
  std::vector<Parameter> ps = {param("A", {"1", "2"}), param("B", {"x", "y", "z"})};
  EXPECT_EQ(cartesian_size(ps), 6u);
  expand_cartesian(ps);
  EXPECT_EQ(ps[0].values, (std::vector<std::string>{"1", "1", "1", "2", "2", "2"}));
  EXPECT_EQ(ps[1].values, (std::vector<std::string>{"x", "y", "z", "x", "y", "z"}));
}

TEST(ParameterGrid, EveryCombinationAppearsOnce) {
  std::vector<Parameter> ps = {param("A", {"a", "b"}), param("B", {"1", "2", "3"}),
                               param("C", {"p", "q"})};
  expand_cartesian(ps);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < 12; ++i)
    seen.insert(ps[0].values[i] + ps[1].values[i] + ps[2].values[i]);
  EXPECT_EQ(seen.size(), 12u);
  EXPECT_EQ(ps[2].values.size(), 12u);
}

TEST(ParameterGrid, SizeSaturatesInsteadOfOverflowing) {
  std::vector<std::string> many(1u << 16, "v");
  std::vector<Parameter> ps(5, param("P", many));
  EXPECT_EQ(cartesian_size(ps), UINT64_MAX);
  EXPECT_EQ(cartesian_size({}), 0u);
}

constexpr const char* kGridSpec = R"(description:
  name: grid
study:
  - name: sim
    run:
      cmd: echo $(X) $(Y)
global.parameters:
  X:
    values: [1, 2, 3]
  Y:
    values: [a, b]
merlin:
  combine_parameters: COMBINE
)";

std::string with(const std::string& combine) {
  std::string s = kGridSpec;
  s.replace(s.find("COMBINE"), 7, combine);
  return s;
}

TEST(ParameterGrid, CartesianSpecLoadsAsSixZippedCombinations) {
  auto r = parse_spec(with("cartesian"), "grid.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->spec.parameters[0].values, (std::vector<std::string>{"1", "1", "2", "2", "3", "3"}));
  EXPECT_EQ(r->spec.parameters[1].values, (std::vector<std::string>{"a", "b", "a", "b", "a", "b"}));
}

TEST(ParameterGrid, ZipStaysTheRuleAndRefusesUnequalLengths) {
  auto r = parse_spec(with("zip"), "grid.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("must have the same length"), std::string::npos);
}

}  // namespace
}  // namespace merlin::spec
