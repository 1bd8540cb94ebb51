// LocalRedisServer's files (init, config) and point_app_yaml, on a scratch directory. Starting
// and stopping the real server is integration.server_command's.
#include "adapters/server/local_redis_server.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <string>

#include "adapters/server/app_yaml_writer.h"
#include "merlin/core/util/files.h"
#include "tests/unit/samples/sample_test_files.h"

namespace merlin::server {
namespace {
using samples::testing::ScratchDir;
using samples::testing::write_file;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// No test here talks to a server.
ProbeFactory no_probes() {
  return [](const std::string&, int, const std::string&) -> std::unique_ptr<ServerProbe> {
    ADD_FAILURE() << "no server is asked in these tests";
    return nullptr;
  };
}

TEST(LocalRedisServer, InitWritesPrivateFilesWithANewPasswordInAPrivateDirectory) {
  ScratchDir tmp;
  LocalRedisServer server({tmp.file("home/.merlin/server")}, no_probes());
  auto created = server.init();
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(*created, (std::vector<std::string>{"redis.pass", "redis.users", "redis.conf",
                                                "merlin_server.yaml"}));
  EXPECT_EQ(mode_of(tmp.file("home/.merlin/server")), 0700u);
  EXPECT_EQ(mode_of(tmp.file("home/.merlin")), 0700u);
  for (const char* f : {"redis.pass", "redis.users", "redis.conf", "merlin_server.yaml"})
    EXPECT_EQ(mode_of(tmp.file(std::string("home/.merlin/server/") + f)), 0600u) << f;
  auto pw = server.password();
  ASSERT_TRUE(pw.ok());
  EXPECT_EQ(pw->size(), 64u);
  EXPECT_EQ(pw->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(*files::read(tmp.file("home/.merlin/server/redis.users")), users_file_text(*pw));
  auto conf = files::read(tmp.file("home/.merlin/server/redis.conf"));
  // Merlin's requirepass line holds it (the file is as private as redis.pass); Redis reads the
  // users file.
  EXPECT_NE(conf->find("\nrequirepass " + *pw + "\n"), std::string::npos);
  auto s = server.settings();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dir, tmp.file("home/.merlin/server"));
  EXPECT_EQ(s->users_file, tmp.file("home/.merlin/server/redis.users"));
}

TEST(LocalRedisServer, InitAgainKeepsThePasswordAndTheEditsAndTightensModes) {
  ScratchDir tmp;
  LocalRedisServer server({tmp.file("srv")}, no_probes());
  ASSERT_TRUE(server.init().ok());
  const std::string pw = *server.password();
  ConfigChange c;
  c.port = 6401;
  ASSERT_TRUE(server.configure(c, std::nullopt).ok());
  ::chmod(tmp.file("srv/redis.pass").c_str(), 0644);
  auto again = server.init();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
  EXPECT_EQ(*server.password(), pw);
  EXPECT_EQ(server.settings()->port, 6401);
  EXPECT_EQ(mode_of(tmp.file("srv/redis.pass")), 0600u);
}

TEST(LocalRedisServer, ConfigurePasswordRewritesPassAndUsersAndSaysPasswordNotIt) {
  ScratchDir tmp;
  LocalRedisServer server({tmp.file("srv")}, no_probes());
  auto changed = server.configure({}, std::string("N3wSecret"));
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(*changed, std::vector<std::string>{"password"});
  EXPECT_EQ(*server.password(), "N3wSecret");
  EXPECT_EQ(*files::read(tmp.file("srv/redis.users")), users_file_text("N3wSecret"));
  EXPECT_NE(files::read(tmp.file("srv/redis.conf"))->find("\nrequirepass N3wSecret\n"),
            std::string::npos);
}

TEST(LocalRedisServer, InitGivesARedisConfWithoutRequirepassTheKeptPassword) {
  ScratchDir tmp;
  LocalRedisServer server({tmp.file("srv")}, no_probes());
  ASSERT_TRUE(server.init().ok());
  const std::string pw = *server.password();
  // An earlier build's redis.conf: no requirepass line.
  std::string conf = *files::read(tmp.file("srv/redis.conf"));
  conf.erase(conf.find("requirepass "), pw.size() + 13);
  ASSERT_EQ(conf.find("requirepass"), std::string::npos);
  write_file(tmp.file("srv/redis.conf"), conf);
  ASSERT_TRUE(server.init().ok());
  EXPECT_EQ(*server.password(), pw);
  EXPECT_NE(files::read(tmp.file("srv/redis.conf"))->find("\nrequirepass " + pw + "\n"),
            std::string::npos);
  EXPECT_EQ(mode_of(tmp.file("srv/redis.conf")), 0600u);
}

TEST(ServerFiles, RelativePathsAreReadFromTheDirectoryHoldingTheServers) {
  ServerFiles f{"/home/u/study/merlin_server"};
  EXPECT_EQ(f.base(), "/home/u/study");
  EXPECT_EQ(f.resolve("./config_dir"), "/home/u/study/./config_dir");
  EXPECT_EQ(f.resolve("/data/redis"), "/data/redis");
  EXPECT_EQ(ServerFiles{"/merlin_server"}.base(), "/");
}

TEST(LocalRedisServer, ConfigureRefusesBadValuesBeforeWritingAnything) {
  ScratchDir tmp;
  LocalRedisServer server({tmp.file("srv")}, no_probes());
  ConfigChange c;
  c.port = 0;
  auto r = server.configure(c, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_FALSE(files::exists(tmp.file("srv")));
}

TEST(LocalRedisServer, StatusOfAnUninitializedDirectoryAsksNoServer) {
  ScratchDir tmp;
  LocalRedisServer server({tmp.file("srv")}, no_probes());
  auto st = server.status();
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->state, ServerState::kNotInitialized);
  ASSERT_TRUE(server.init().ok());
  EXPECT_EQ(server.status()->state, ServerState::kNotRunning);
}

TEST(PointAppYaml, CreatesAPrivateFileThenChangesNothingTheSecondTime) {
  ScratchDir tmp;
  const std::string path = tmp.file("m/app.yaml");
  auto first = point_app_yaml(path, "127.0.0.1", 6400, "/s/redis.pass");
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->changed);
  EXPECT_TRUE(first->backup.empty());
  EXPECT_EQ(mode_of(path), 0600u);
  auto second = point_app_yaml(path, "127.0.0.1", 6400, "/s/redis.pass");
  EXPECT_FALSE(second->changed);
}

TEST(PointAppYaml, KeepsTheUsersOriginalOnceAsBak) {
  ScratchDir tmp;
  const std::string path = tmp.file("app.yaml");
  write_file(path, "# mine\nbroker:\n  name: rabbitmq\n");
  auto first = point_app_yaml(path, "127.0.0.1", 6400, "/s/redis.pass");
  EXPECT_EQ(first->backup, path + ".bak");
  EXPECT_EQ(*files::read(path + ".bak"), "# mine\nbroker:\n  name: rabbitmq\n");
  EXPECT_EQ(mode_of(path + ".bak"), 0600u);
  auto moved = point_app_yaml(path, "127.0.0.1", 6401, "/s/redis.pass");
  EXPECT_TRUE(moved->changed);
  EXPECT_TRUE(moved->backup.empty());
  EXPECT_EQ(*files::read(path + ".bak"), "# mine\nbroker:\n  name: rabbitmq\n")
      << "the user's own settings are never overwritten";
  EXPECT_EQ(files::read(path)->rfind("# mine\n", 0), 0u);
}

}  // namespace
}  // namespace merlin::server
