// merlin server's redis.conf: generated, read back, edited by `merlin server config`.
#include "merlin/core/server/redis_conf.h"

#include <gtest/gtest.h>

namespace merlin::server {
namespace {

RedisConf default_conf() {
  return RedisConf::parse(
      default_redis_conf("/home/u/.merlin/server", "/home/u/.merlin/server/redis.users", 6379));
}

TEST(RedisConf, DefaultConfListensOnLoopbackWithDataAndUsersInTheServerDir) {
  auto s = read_settings(default_conf(), "redis.conf");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->bind, "127.0.0.1");
  EXPECT_EQ(s->port, 6379);
  EXPECT_EQ(s->dir, "/home/u/.merlin/server");
  EXPECT_EQ(s->users_file, "/home/u/.merlin/server/redis.users");
  EXPECT_EQ(s->log_file, "");
}

TEST(RedisConf, UsersAreSetInPlaceAddedAtTheEndAndRemovedAlone) {
  const std::string base = users_file_text("pw0");
  std::string t = users_with(base, "bob", "pw1");
  EXPECT_EQ(t, base + "user bob on >pw1 ~* &* +@all\n");
  t = users_with(t, "bob", "pw2");
  EXPECT_EQ(t, base + "user bob on >pw2 ~* &* +@all\n") << "replaced, not added twice";
  t = users_with(t, "default", "pw9");
  EXPECT_EQ(t, "user default on >pw9 ~* &* +@all\nuser bob on >pw2 ~* &* +@all\n");
  bool found = false;
  EXPECT_EQ(users_without(t, "bo", &found), t) << "a prefix of a name is another name";
  EXPECT_FALSE(found);
  EXPECT_EQ(users_without(t, "bob", &found), "user default on >pw9 ~* &* +@all\n");
  EXPECT_TRUE(found);
  EXPECT_TRUE(check_user_name("a.b-c_d@e").ok());
  EXPECT_FALSE(check_user_name("").ok());
  EXPECT_FALSE(check_user_name("two words").ok());
  EXPECT_FALSE(check_user_name("x>y").ok()) << "no ACL rule through a name";
}

TEST(RedisConf, DefaultConfPersistsRunsInForegroundAndNeverEvicts) {
  auto conf = default_conf();
  EXPECT_EQ(conf.get("appendonly"), "yes");
  EXPECT_EQ(conf.get("appendfsync"), "everysec");
  EXPECT_EQ(conf.get("save"), "300 100");
  EXPECT_EQ(conf.get("daemonize"), "no");
  EXPECT_EQ(conf.get("protected-mode"), "yes");
  EXPECT_EQ(conf.get("maxmemory-policy"), "noeviction");
  EXPECT_FALSE(conf.get("requirepass").has_value()) << "the password lives in the users file";
}

TEST(RedisConf, SetRewritesTheDirectiveInPlaceAndKeepsCommentsAndOtherLines) {
  auto conf = RedisConf::parse("# mine\nport 6379\nloglevel notice\n# tail\n");
  conf.set("port", "6400");
  EXPECT_EQ(conf.text(), "# mine\nport 6400\nloglevel notice\n# tail\n");
}

TEST(RedisConf, SetDropsLaterDuplicatesSoTheNewValueIsTheOneRedisApplies) {
  auto conf = RedisConf::parse("save 900 1\nsave 300 10\nport 1\n");
  conf.set("save", "60 5");
  EXPECT_EQ(conf.text(), "save 60 5\nport 1\n");
}

TEST(RedisConf, SetAppendsAMissingDirective) {
  auto conf = RedisConf::parse("port 1\n\n");
  conf.set("maxmemory", "2gb");
  EXPECT_EQ(conf.text(), "port 1\nmaxmemory 2gb\n");
}

TEST(RedisConf, GetIsCaseInsensitiveTakesTheLastAndUnquotes) {
  auto conf = RedisConf::parse("PORT 1\nport 2\nlogfile \"\"\ndir \"/a b\"\n");
  EXPECT_EQ(conf.get("port"), "2");
  EXPECT_EQ(conf.get("logfile"), "");
  EXPECT_EQ(conf.get("dir"), "/a b");
  EXPECT_FALSE(conf.get("bind").has_value());
}

TEST(RedisConf, ReadSettingsNamesTheFileForAPortThatIsNoNumber) {
  auto conf = default_conf();
  conf.set("port", "six");
  auto s = read_settings(conf, "/x/redis.conf");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kBadInput);
  EXPECT_NE(s.error().message.find("/x/redis.conf: port 'six'"), std::string::npos);
  EXPECT_NE(s.error().message.find("merlin server config --port"), std::string::npos);
}

TEST(RedisConf, ReadSettingsTakesTheFirstBindAddress) {
  auto conf = default_conf();
  conf.set("bind", "10.0.0.5 -::1");
  EXPECT_EQ(read_settings(conf, "c")->bind, "10.0.0.5");
}

TEST(RedisConf, ApplyChangeSetsEachMerlinFlagsDirective) {
  auto conf = default_conf();
  ConfigChange c;
  c.bind = "10.1.2.3";
  c.port = 6400;
  c.directory = "/data/redis";
  c.snapshot_file = "snap.rdb";
  c.append_mode = "always";
  c.append_file = "merlin.aof";
  c.max_memory = "4GB";
  ASSERT_TRUE(check_change(c).ok());
  auto changed = apply_change(conf, c);
  EXPECT_EQ(changed.size(), 7u);
  EXPECT_EQ(conf.get("bind"), "10.1.2.3");
  EXPECT_EQ(conf.get("port"), "6400");
  EXPECT_EQ(conf.get("dir"), "/data/redis");
  EXPECT_EQ(conf.get("dbfilename"), "snap.rdb");
  EXPECT_EQ(conf.get("appendfsync"), "always");
  EXPECT_EQ(conf.get("appendfilename"), "merlin.aof");
  EXPECT_EQ(conf.get("maxmemory"), "4gb");
}

TEST(RedisConf, SnapshotSecondsAloneKeepTheChangesOfTheSavePair) {
  auto conf = default_conf();
  ConfigChange c;
  c.snapshot_seconds = 60;
  EXPECT_EQ(apply_change(conf, c), std::vector<std::string>{"save 60 100"});
  ConfigChange d;
  d.snapshot_changes = 7;
  apply_change(conf, d);
  EXPECT_EQ(conf.get("save"), "60 7");
}

TEST(RedisConf, ApplyingTheSameValueAgainChangesNothing) {
  auto conf = default_conf();
  ConfigChange c;
  c.port = 6379;
  EXPECT_TRUE(apply_change(conf, c).empty());
}

TEST(RedisConf, CheckChangeReportsEveryBadValueAtOnce) {
  ConfigChange c;
  c.bind = "300.1.1.1";
  c.port = 70000;
  c.directory = "";  // relative ones are read from the server's base directory (server_files.h)
  c.append_mode = "sometimes";
  c.append_file = "../x.aof";
  c.max_memory = "lots";
  auto r = check_change(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  for (const char* flag : {"--ipaddress '300.1.1.1'", "--port 70000", "--directory",
                           "--append-mode 'sometimes'", "--append-file", "--max-memory 'lots'"})
    EXPECT_NE(r.error().message.find(flag), std::string::npos) << flag;
}

TEST(RedisConf, PasswordsThatWouldNeedQuotingAreRefused) {
  EXPECT_TRUE(check_password("0123abcdefXYZ!@$%^&*()").ok());
  EXPECT_FALSE(check_password("").ok());
  EXPECT_FALSE(check_password("two words").ok());
  EXPECT_FALSE(check_password("quote\"").ok());
  EXPECT_FALSE(check_password("#hash").ok());
}

TEST(RedisConf, UsersFileGivesTheDefaultUserThePasswordAndEverything) {
  EXPECT_EQ(users_file_text("s3cret"), "user default on >s3cret ~* &* +@all\n");
  EXPECT_EQ(password_from_file("s3cret  \r\nignored\n"), "s3cret");
}

}  // namespace
}  // namespace merlin::server
