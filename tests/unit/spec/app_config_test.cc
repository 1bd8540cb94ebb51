// ~/.merlin/app.yaml as Merlin writes it: broker/results_backend, Celery extras ignored.
#include "merlin/spec/app_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace merlin::spec {
namespace {

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/merlin-app-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(AppConfig, ReadsMerlinsBrokerKeys) {
  auto path = write_temp(R"(
celery:
  override:
    visibility_timeout: 86400
broker:
  name: redis
  server: node1
  port: 6390
  password: ~/.merlin/redis.pass
  db_num: 2
  vhost: ignored
results_backend:
  name: redis
  server: node1
  encryption_key: ~/.merlin/encrypt_data_key
)");
  auto c = read_app_config(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->broker.present);
  EXPECT_EQ(c->broker.name, "redis");
  EXPECT_EQ(c->broker.server, "node1");
  EXPECT_EQ(c->broker.port, 6390);
  EXPECT_EQ(c->broker.db, 2);
  EXPECT_EQ(c->broker.password_file, "~/.merlin/redis.pass");
  EXPECT_TRUE(c->results_backend.present);
  unlink(path.c_str());
}

TEST(AppConfig, MissingFileIsEmptyNotAnError) {
  auto c = read_app_config("/nonexistent/app.yaml");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->broker.present);
  EXPECT_EQ(c->path, "");
}

TEST(AppConfig, BadPortNamesFileLineAndColumn) {
  auto path = write_temp("broker:\n  server: h\n  port: sixty\n");
  auto c = read_app_config(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kBadInput);
  EXPECT_NE(c.error().message.find(path + ":3:9: 'broker.port' must be a number, got 'sixty'"),
            std::string::npos)
      << c.error().message;
  unlink(path.c_str());
}

TEST(AppConfig, NotAMapIsBadInput) {
  auto path = write_temp("- a\n- b\n");
  auto c = read_app_config(path);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("must be a map"), std::string::npos);
  unlink(path.c_str());
}

}  // namespace
}  // namespace merlin::spec
