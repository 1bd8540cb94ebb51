// The PATH a merlin process gives its children: its own directory last, once.
#include "merlin/core/util/process_info.h"

#include <gtest/gtest.h>

namespace merlin {
namespace {

TEST(PathWith, AppendsTheDirectoryAfterTheUsersEntries) {
  EXPECT_EQ(path_with("/usr/bin:/bin", "/opt/merlin/bin"), "/usr/bin:/bin:/opt/merlin/bin");
}

TEST(PathWith, LeavesAPathThatHasItAlone) {
  EXPECT_EQ(path_with("/a:/opt/m:/b", "/opt/m"), "/a:/opt/m:/b");
  EXPECT_EQ(path_with("/opt/m", "/opt/m"), "/opt/m");
}

TEST(PathWith, APrefixOfAnEntryIsNotTheEntry) {
  EXPECT_EQ(path_with("/opt/merlin/bin2", "/opt/merlin/bin"), "/opt/merlin/bin2:/opt/merlin/bin");
  EXPECT_EQ(path_with("/opt/m/bin:/x", "/opt/m"), "/opt/m/bin:/x:/opt/m");
}

TEST(PathWith, AnEmptyPathBecomesTheDirectory) { EXPECT_EQ(path_with("", "/d"), "/d"); }

}  // namespace
}  // namespace merlin
