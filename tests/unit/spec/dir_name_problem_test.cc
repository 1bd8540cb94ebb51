// Why a study or step name cannot be a directory: a kind to decide on, a reason to print.
#include <gtest/gtest.h>

#include "merlin/core/spec/field_checks.h"

namespace merlin::spec {
namespace {

using Kind = DirNameProblem::Kind;

TEST(DirNameProblem, ASafeNameHasNoProblemAndNoReason) {
  auto p = dir_name_problem("sim_1.a-b", 10);
  EXPECT_EQ(p.kind, Kind::kNone);
  EXPECT_EQ(p.reason, "");
  EXPECT_EQ(unsafe_dir_name_reason("sim_1.a-b", 10), "");
}

TEST(DirNameProblem, EachUnsafeNameIsToldApartByItsKind) {
  EXPECT_EQ(dir_name_problem("", 10).kind, Kind::kEmpty);
  EXPECT_EQ(dir_name_problem("a/b", 10).kind, Kind::kSlash);
  EXPECT_EQ(dir_name_problem(std::string_view("a\0b", 3), 10).kind, Kind::kNul);
  EXPECT_EQ(dir_name_problem("a b", 10).kind, Kind::kCharacter);
  EXPECT_EQ(dir_name_problem(".hidden", 10).kind, Kind::kLeading);
  EXPECT_EQ(dir_name_problem("-opt", 10).kind, Kind::kLeading);
  EXPECT_EQ(dir_name_problem("abcdefghijk", 10).kind, Kind::kTooLong);
  EXPECT_EQ(dir_name_problem("abcdefghij", 10).kind, Kind::kNone) << "exactly the limit";
}

TEST(DirNameProblem, TheReasonSaysWhatIsWrongForTheUserToRead) {
  EXPECT_EQ(dir_name_problem("a/b", 10).reason, "it contains '/'");
  EXPECT_EQ(dir_name_problem("-opt", 10).reason, "it starts with '-'");
  EXPECT_EQ(dir_name_problem("abcdefghijk", 10).reason, "it is 11 bytes long, more than 10");
  EXPECT_EQ(dir_name_problem("a b", 10).reason,
            "it contains ' ' (only letters, digits, '_', '-' and '.' are allowed)");
  EXPECT_EQ(unsafe_dir_name_reason("a/b", 10), dir_name_problem("a/b", 10).reason);
}

}  // namespace
}  // namespace merlin::spec
