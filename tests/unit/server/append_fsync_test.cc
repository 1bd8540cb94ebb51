// --append-mode's values: redis.conf's three words, read and written in one place.
#include "merlin/core/server/append_fsync.h"

#include <gtest/gtest.h>

#include "merlin/core/server/redis_conf.h"

namespace merlin::server {
namespace {

TEST(AppendFsync, TheThreeWordsReadAndWriteBack) {
  for (auto mode : {AppendFsync::kAlways, AppendFsync::kEverysec, AppendFsync::kNo})
    EXPECT_EQ(parse_append_fsync(append_fsync_name(mode)), mode);
  EXPECT_EQ(append_fsync_name(AppendFsync::kEverysec), "everysec");
}

TEST(AppendFsync, AnythingElseIsNoneOfThemEvenInAnotherCase) {
  EXPECT_FALSE(parse_append_fsync("sometimes"));
  EXPECT_FALSE(parse_append_fsync("Always"));
  EXPECT_FALSE(parse_append_fsync(""));
}

TEST(AppendFsync, AConfigChangeRefusesAnUnknownModeAndWritesAKnownOne) {
  ConfigChange bad;
  bad.append_mode = "sometimes";
  auto c = check_change(bad);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "--append-mode 'sometimes' is none of always, everysec, no");
  ConfigChange good;
  good.append_mode = "always";
  ASSERT_TRUE(check_change(good).ok());
  RedisConf conf = RedisConf::parse("appendfsync everysec\n");
  EXPECT_EQ(apply_change(conf, good), (std::vector<std::string>{"appendfsync always"}));
  EXPECT_EQ(conf.get("appendfsync"), "always");
}

}  // namespace
}  // namespace merlin::server
