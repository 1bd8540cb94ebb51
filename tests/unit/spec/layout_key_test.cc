// merlin.layout and merlin.finished_markers: the lean workspace's switches
// (docs/lean-workspace.md).
#include <gtest/gtest.h>

#include "merlin/core/spec/spec_loader.h"

namespace merlin::spec {
namespace {

std::string spec_with(const std::string& merlin_block) {
  return "description:\n  name: s\nstudy:\n  - name: a\n    run:\n      cmd: echo hi\nmerlin:\n" +
         merlin_block;
}

TEST(LayoutKey, MerlinsLayoutIsTheDefault) {
  auto r = parse_spec(spec_with("  resources: {}\n"), "s.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->spec.layout, WorkspaceLayout::kMerlin);
  EXPECT_FALSE(r->spec.finished_markers);
}

TEST(LayoutKey, LeanWithFinishedMarkers) {
  auto r = parse_spec(spec_with("  layout: lean\n  finished_markers: true\n"), "s.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->spec.layout, WorkspaceLayout::kLean);
  EXPECT_TRUE(r->spec.finished_markers);
}

TEST(LayoutKey, AnUnknownLayoutIsRefusedWithItsChoicesAndAHint) {
  auto r = parse_spec(spec_with("  layout: laen\n"), "s.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("'merlin.layout' is 'laen'"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("did you mean 'lean'"), std::string::npos);
}

TEST(LayoutKey, AMisspeltKeyGetsDidYouMean) {
  auto r = parse_spec(spec_with("  layuot: lean\n"), "s.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("layout"), std::string::npos) << r.error().message;
}

TEST(LayoutKey, FinishedMarkersMustBeABoolean) {
  auto r = parse_spec(spec_with("  layout: lean\n  finished_markers: sometimes\n"), "s.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("finished_markers"), std::string::npos);
}

}  // namespace
}  // namespace merlin::spec
