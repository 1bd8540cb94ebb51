// app.yaml as Merlin writes it: every key understood or named as not used, with a reason;
// nothing Merlin writes is refused by the reader.
#include "merlin/core/spec/app_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace merlin::spec {
namespace {

class AppConfigTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!path_.empty()) unlink(path_.c_str());
  }
  Result<AppConfig> read(const std::string& text) {
    char path[] = "/tmp/merlin-app-XXXXXX";
    int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    close(fd);
    std::ofstream(path) << text;
    path_ = path;
    return read_app_config(path_);
  }
  static std::vector<std::string> keys(const AppConfig& c) {
    std::vector<std::string> out;
    for (const auto& k : c.ignored) out.push_back(k.key);
    return out;
  }
  std::string path_;
};

// The shape of Merlin's default template (a RabbitMQ broker), placeholders and all.
constexpr const char* kRabbitTemplate = R"(broker:
    name: rabbitmq
    username: <username>
    password: <path to rabbitmq password file>
    server: <rabbit server name>
    port: <server port>
    vhost: <vhost>
    cert_reqs: none

results_backend:
    name: rediss
    username: ''
    password: <path to redis password file>
    server: <server name>
    encryption_key: ~/.merlin/encrypt_data_key
    port: <server port>
    db_num: 0
    cert_reqs: none

celery:
    overrides:
)";

TEST_F(AppConfigTest, MerlinsTemplateIsReadPlaceholdersAndAll) {
  auto c = read(kRabbitTemplate);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->path, path_);
  EXPECT_EQ(c->broker.name.text, "rabbitmq");
  EXPECT_EQ(c->broker.port.text, "<server port>");
  EXPECT_EQ(c->broker.vhost.text, "<vhost>");
  EXPECT_EQ(c->broker.cert_reqs.text, "none");
  EXPECT_TRUE(c->results_backend.present);
  EXPECT_EQ(c->results_backend.name.text, "rediss");
  EXPECT_EQ(keys(*c), (std::vector<std::string>{"celery"}));
  for (const auto& k : c->ignored) EXPECT_FALSE(why_text(k).empty()) << k.key;
}

TEST_F(AppConfigTest, EveryServerKeyIsKeptWithWhereItWasWritten) {
  auto c = read(R"(broker:
  name: Redis
  server: node1
  port: 6390
  db_num: 2
  username: ''
  password: ~/.merlin/redis.pass
  path: /tmp/redis.sock
  url: redis://node2:6379/0
  ca_certs: ~/ca.pem
  certfile: ~/c.pem
  keyfile: ~/k.pem
)");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto& b = c->broker;
  EXPECT_TRUE(b.present);
  EXPECT_EQ(b.name.text, "redis") << "lowered, as Merlin compares it";
  EXPECT_EQ(b.server.text, "node1");
  EXPECT_EQ(b.port.text, "6390");
  EXPECT_EQ(b.port.where.line, 4);
  EXPECT_EQ(b.port.where.column, 9);
  EXPECT_EQ(b.db_num.text, "2");
  EXPECT_TRUE(b.username.given);
  EXPECT_EQ(b.username.text, "");
  EXPECT_EQ(b.password.text, "~/.merlin/redis.pass");
  EXPECT_EQ(b.path.text, "/tmp/redis.sock");
  EXPECT_EQ(b.url.text, "redis://node2:6379/0");
  EXPECT_EQ(b.ca_certs.text, "~/ca.pem");
  EXPECT_EQ(b.certfile.text, "~/c.pem");
  EXPECT_EQ(b.keyfile.text, "~/k.pem");
  EXPECT_FALSE(b.vhost.given);
  EXPECT_TRUE(c->ignored.empty());
}

TEST_F(AppConfigTest, AnEmptyValueIsNotGiven) {
  auto c = read("broker:\n  name: redis\n  password:\n  server: h\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->broker.password.given);
  EXPECT_TRUE(c->broker.server.given);
}

TEST_F(AppConfigTest, MerlinServersFileIsReadAndItsBlocksNamed) {
  // What `merlin server init` leaves in merlin_server/app.yaml.
  auto c = read(R"(broker:
  name: redis
  username: default
  password: /home/u/merlin_server/redis.pass
  server: 127.0.0.1
  port: 6379
results_backend:
  name: redis
  username: default
  password: /home/u/merlin_server/redis.pass
  server: 127.0.0.1
  port: 6379
container:
  format: singularity
  image_type: redis
  image: redis_latest.sif
  url: docker://redis
  config: redis.conf
  config_dir: ./merlin_server/
  pfile: merlin_server.pf
  pass_file: redis.pass
  user_file: redis.users
process:
  status: pgrep -P {pid}
  kill: kill {pid}
)");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->broker.username.text, "default");
  EXPECT_EQ(keys(*c), (std::vector<std::string>{"container", "process"}));
  EXPECT_NE(why_text(c->ignored[1]).find("merlin server"), std::string::npos)
      << why_text(c->ignored[1]);
}

TEST_F(AppConfigTest, OtherBrokerKeysAreNamedWithAReason) {
  auto c = read("broker:\n  name: rediss\n  ssl_protocol: TLSv1_2\n  colour: blue\nextra: 1\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(keys(*c), (std::vector<std::string>{"broker.ssl_protocol", "broker.colour", "extra"}));
  EXPECT_NE(why_text(c->ignored[0]).find("TLS 1.2 or later"), std::string::npos)
      << why_text(c->ignored[0]);
  EXPECT_NE(why_text(c->ignored[1]).find("not a key Merlin reads"), std::string::npos);
  EXPECT_NE(why_text(c->ignored[2]).find("not a key of Merlin's app.yaml"), std::string::npos);
}

TEST_F(AppConfigTest, AResultsBackendOfAnyShapeIsNoError) {
  auto c = read("results_backend: redis://somewhere\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(keys(*c).empty()) << "whether it is used is the broker's business";
  EXPECT_FALSE(c->results_backend.present) << "not a block a RabbitMQ broker could use";
}

TEST_F(AppConfigTest, ABrokerThatIsNoMapNamesFileLineAndColumn) {
  auto c = read("celery: {}\nbroker: redis://:s3cret@h\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kBadInput);
  EXPECT_NE(c.error().message.find(path_ + ":2:9: 'broker' must be a map"), std::string::npos)
      << c.error().message;
  EXPECT_EQ(c.error().message.find("s3cret"), std::string::npos) << c.error().message;
}

TEST_F(AppConfigTest, MissingFileIsEmptyNotAnError) {
  auto c = read_app_config("/nonexistent/app.yaml");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->broker.present);
  EXPECT_EQ(c->path, "");
}

TEST_F(AppConfigTest, NotAMapIsBadInput) {
  auto c = read("- a\n- b\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kBadInput);
  EXPECT_NE(c.error().message.find("must be a map"), std::string::npos);
}

TEST_F(AppConfigTest, StagingScratchIsReadAndNotListedAsUnused) {
  auto c = read("scratch: /nvme/$USER\nbroker:\n  name: redis\n  server: localhost\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->scratch, "/nvme/$USER");
  for (const auto& k : keys(*c)) EXPECT_NE(k, "scratch");
  auto bad = read("scratch: [a, b]\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad.error().message.find("'scratch' must be a path"), std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace merlin::spec
