// specs/invalid/NAME.yaml must fail with exactly the lines of NAME.expected, messages naming the
// file as "NAME.yaml" (as when run from inside specs/invalid). Set MERLIN_UPDATE_GOLDEN=1 to
// rewrite the .expected files (then review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "merlin/core/spec/spec_loader.h"

namespace merlin::spec {
namespace {
namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SpecInvalidSpecs, EachFailsWithExactlyTheExpectedMessages) {
  const fs::path dir = fs::path(MERLIN_SOURCE_DIR) / "specs" / "invalid";
  const bool update = std::getenv("MERLIN_UPDATE_GOLDEN") != nullptr;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    // As `merlin validate --strict` reads them: unknown tokens are errors.
    LoadOptions strict;
    strict.strict_tokens = true;
    auto r = parse_spec(read_file(entry.path()), name, strict);
    ASSERT_FALSE(r.ok()) << name << " was accepted";
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    fs::path expected_path = entry.path();
    expected_path.replace_extension(".expected");
    const std::string actual = r.error().message + "\n";
    if (update) {
      std::ofstream(expected_path, std::ios::binary) << actual;
      continue;
    }
    ASSERT_TRUE(fs::exists(expected_path)) << expected_path << " is missing";
    EXPECT_EQ(actual, read_file(expected_path));
  }
  EXPECT_GE(count, 20);
}

}  // namespace
}  // namespace merlin::spec
