// The broker of a Merlin user's app.yaml, in every shape Merlin writes (issue #10): used when
// this build speaks it, refused with what to do when it does not, and never a password shown.
#include "merlin/run/app_broker.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"

namespace merlin::cli {
namespace {
using run::app_broker;
using run::find_app_config;
using run::unused_keys_note;
namespace fs = std::filesystem;

class AppBrokerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("app_broker_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / ".merlin");
    if (const char* h = std::getenv("HOME")) old_home_ = h;
    ::setenv("HOME", dir_.c_str(), 1);
    env_.app_config = (dir_ / ".merlin" / "app.yaml").string();
  }
  void TearDown() override {
    ::setenv("HOME", old_home_.c_str(), 1);
    fs::remove_all(dir_);
  }

  std::string write(const std::string& name, const std::string& text, mode_t mode = 0600) {
    auto path = (dir_ / name).string();
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
  }
  void app_yaml(const std::string& text) { write(".merlin/app.yaml", text); }
  // app_broker of the app.yaml written, and the keys it names as not used.
  Result<BrokerLocation> read(std::vector<std::string>* unused_keys = nullptr) {
    auto c = spec::read_app_config(env_.app_config);
    if (!c) return c.error();
    std::vector<spec::IgnoredKey> unused;
    auto l = app_broker(*c, unused, broker_providers());
    if (unused_keys)
      for (const auto& k : unused) unused_keys->push_back(k.key);
    return l;
  }

  fs::path dir_;
  std::string old_home_;
  BrokerEnvironment env_;
  BrokerFlags flags_;
};

TEST_F(AppBrokerTest, MerlinsRabbitmqTemplateAsksForItsPlaceholders) {
  app_yaml(R"(broker:
    name: rabbitmq
    username: <username>
    password: <path to rabbitmq password file>
    server: <rabbit server name>
    port: <server port>
    vhost: <vhost>
    cert_reqs: none
results_backend:
    name: rediss
    server: <server name>
    port: <server port>
    encryption_key: ~/.merlin/encrypt_data_key
celery:
    overrides:
)");
  auto l = resolve_broker(flags_, env_);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput) << "exit 2";
  EXPECT_NE(l.error().message.find(
                "broker.server is still the placeholder '<rabbit server name>': write the "
                "server's host name there"),
            std::string::npos)
      << l.error().message;
}

TEST_F(AppBrokerTest, EveryRabbitmqNameIsReadAsMerlinReadsIt) {
  struct Case {
    const char* name;
    const char* scheme;
    int port;
  } cases[] = {{"rabbitmq", "amqps", 5671}, {"amqps", "amqps", 5671}, {"amqp", "amqp", 5672}};
  write(".merlin/rabbit.pass", "s3cret\n");
  for (const auto& c : cases) {
    app_yaml(std::string("broker:\n  name: ") + c.name +
             "\n  server: rabbit\n  username: merlin\n  password: rabbit.pass\n  vhost: "
             "study\n  cert_reqs: none\nresults_backend:\n  name: redis\n  server: node7\n  "
             "port: 6400\n  db_num: 3\n");
    auto l = resolve_broker(flags_, env_);
    ASSERT_TRUE(l.ok()) << c.name << ": " << l.error().message;
    EXPECT_EQ(l->scheme, c.scheme) << c.name;
    EXPECT_EQ(l->port, c.port) << c.name;
    EXPECT_EQ(l->host, "rabbit");
    EXPECT_EQ(l->username, "merlin");
    EXPECT_EQ(l->password, "s3cret");
    EXPECT_EQ(l->vhost, "study");
    ASSERT_TRUE(l->results) << "the results backend comes along";
    EXPECT_EQ(l->results->host, "node7");
    EXPECT_EQ(l->results->port, 6400);
    EXPECT_EQ(l->results->db, 3);
  }
}

TEST_F(AppBrokerTest, ARabbitmqBrokerWithoutAResultsBackendSaysWhereToPutOne) {
  app_yaml("broker:\n  name: amqp\n  server: rabbit\n");
  auto l = resolve_broker(flags_, env_);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  EXPECT_NE(l.error().message.find("MERLIN_RESULTS_BACKEND_URL"), std::string::npos)
      << l.error().message;
  env_.results_url = "redis://results:6379/1";
  auto with = resolve_broker(flags_, env_);
  ASSERT_TRUE(with.ok()) << with.error().message;
  EXPECT_EQ(with->results->host, "results");
  EXPECT_EQ(with->results->source.kind, LocationSource::kEnvironment);
  EXPECT_EQ(with->results->source.name, "MERLIN_RESULTS_BACKEND_URL");
  env_.results_url = "amqp://rabbit2";
  auto bad = resolve_broker(flags_, env_);
  ASSERT_FALSE(bad.ok()) << "a RabbitMQ is no results backend";
  EXPECT_NE(bad.error().message.find("must be a Redis"), std::string::npos) << bad.error().message;
  flags_.results_url = "redis://rabbit/1";
  auto flag = resolve_broker(flags_, env_);
  ASSERT_TRUE(flag.ok()) << flag.error().message;
  EXPECT_EQ(flag->results->source.kind, LocationSource::kFlag);
  EXPECT_EQ(flag->results->source.name, "--results-backend");
}

TEST_F(AppBrokerTest, ARabbitmqAppYamlIsNoObstacleToAUrl) {
  app_yaml("broker:\n  name: rabbitmq\n  port: <server port>\n  vhost: v\n");
  env_.url = "redis://node3:6400/2";
  auto l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->host, "node3");
  EXPECT_EQ(l->source.kind, LocationSource::kEnvironment);
  EXPECT_EQ(l->source.name, "MERLIN_BROKER_URL");
}

TEST_F(AppBrokerTest, MerlinsRedisTemplateUnfilledAsksForItsValues) {
  // `merlin config create --broker redis` writes a rediss broker: its placeholders are bad
  // input, as any broker's.
  app_yaml(R"(broker:
    name: rediss
    username: ''
    password: <path to redis password file>
    server: <server name>
    port: <server port>
    db_num: 0
    cert_reqs: none
)");
  auto l = resolve_broker(flags_, env_);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  EXPECT_NE(l.error().message.find("broker.server is still the placeholder '<server name>'"),
            std::string::npos)
      << l.error().message;
}

TEST_F(AppBrokerTest, ARedissBrokerIsResolvedWithItsTlsSettings) {
  app_yaml(R"(broker:
  name: rediss
  username: merlin
  password: s3cret
  server: redis.example.org
  port: 6380
  db_num: 3
  cert_reqs: required
  ca_certs: ~/ca.pem
  certfile: ~/client.crt
  keyfile: ~/client.key
)");
  auto loc = read();
  ASSERT_TRUE(loc.ok()) << loc.error().message;
  EXPECT_TRUE(loc->tls);
  EXPECT_EQ(loc->port, 6380);
  EXPECT_EQ(loc->db, 3);
  EXPECT_EQ(loc->tls_settings.cert_reqs, CertReqs::kRequired);
  EXPECT_EQ(loc->tls_settings.ca_certs, (dir_ / "ca.pem").string());
  auto l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->scheme, "rediss");
  EXPECT_TRUE(l->tls);
  EXPECT_EQ(l->username, "merlin");
  EXPECT_EQ(l->password, "s3cret");
  EXPECT_EQ(l->tls_settings.certfile, (dir_ / "client.crt").string());
  EXPECT_EQ(l->tls_settings.keyfile, (dir_ / "client.key").string());
  EXPECT_EQ(l->display(), "rediss://merlin:***@redis.example.org:6380/3");
}

TEST_F(AppBrokerTest, ARedissUrlIsResolved) {
  flags_.url = "rediss://u:pw@10.0.0.5:6390/0?ssl_cert_reqs=CERT_NONE";
  auto l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_TRUE(l->tls);
  EXPECT_EQ(l->tls_settings.cert_reqs, CertReqs::kNone);
  EXPECT_EQ(l->source.kind, LocationSource::kFlag);
  EXPECT_EQ(l->source.name, "--broker");
}

TEST_F(AppBrokerTest, ARabbitmqBrokersResultsBackendMayBeRediss) {
  flags_.url = "amqps://merlin:pw@rabbit.example.org:5671//merlin";
  flags_.results_url = "rediss://:pw@10.0.0.5:6390/2?ssl_ca_certs=/etc/ca.pem";
  auto l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_TRUE(l->results);
  EXPECT_TRUE(l->results->tls);
  EXPECT_EQ(l->results->scheme, "rediss");
  EXPECT_EQ(l->results->db, 2);
  EXPECT_EQ(l->results->tls_settings.ca_certs, "/etc/ca.pem");
}

TEST_F(AppBrokerTest, ConfigCreatesShapeWithARedisBrokerWorks) {
  write(".merlin/redis.pass", "p@ss:w/rd\n");
  app_yaml(R"(broker:
    name: redis
    username: ''
    password: redis.pass
    server: node1
    port: 6390
    db_num: 1
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
)");
  std::vector<std::string> unused;
  auto l = read(&unused);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->host, "node1");
  EXPECT_EQ(l->port, 6390);
  EXPECT_EQ(l->db, 1);
  EXPECT_EQ(l->username, "");
  EXPECT_EQ(l->password, "p@ss:w/rd") << "found under ~/.merlin, as Merlin looks";
  EXPECT_FALSE(l->tls);
  EXPECT_EQ(unused, (std::vector<std::string>{"broker.cert_reqs"}));
  auto resolved = resolve_broker(flags_, env_);
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_EQ(resolved->display(), "redis://:***@node1:6390/1");
}

TEST_F(AppBrokerTest, PasswordFileGivesItsFirstLineTrimmed) {
  auto pass = write("redis.pass", "  s3cret \nsecond line\n");
  app_yaml("broker:\n  name: redis\n  server: h\n  password: " + pass + "\n");
  auto l = read();
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->password, "s3cret");
}

TEST_F(AppBrokerTest, ADirectPasswordIsPercentDecodedAsCeleryReadsMerlinsUrl) {
  app_yaml("broker:\n  name: redis\n  server: h\n  password: 'p%40ss%2Fw'\n");
  auto l = read();
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->password, "p@ss/w");
  app_yaml("broker:\n  name: redis\n  server: h\n  password: '100%:#@x'\n");
  l = read();
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->password, "100%:#@x") << "a '%' without two hex digits stays";
}

TEST_F(AppBrokerTest, TheUrlKeyWinsOverEveryOtherAsInMerlin) {
  app_yaml(R"(broker:
  name: rabbitmq
  url: redis://:p%40ss@node9:7000/4
  server: ignored
  vhost: v
)");
  std::vector<std::string> unused;
  auto l = read(&unused);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->host, "node9");
  EXPECT_EQ(l->port, 7000);
  EXPECT_EQ(l->db, 4);
  EXPECT_EQ(l->password, "p@ss");
  EXPECT_EQ(l->source.kind, LocationSource::kAppYaml);
  EXPECT_EQ(l->source.name, env_.app_config);
  EXPECT_EQ(unused, (std::vector<std::string>{"broker.name", "broker.server", "broker.vhost"}));
  app_yaml("broker:\n  url: 'redis://:s3cret@h:0'\n");
  l = read();
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(l.error().message.rfind(env_.app_config + ":2:8: broker.url: ", 0), 0u)
      << l.error().message;
  EXPECT_EQ(l.error().message.find("s3cret"), std::string::npos) << l.error().message;
}

TEST_F(AppBrokerTest, ARedisSocketBrokerUsesItsPath) {
  app_yaml("broker:\n  name: redis+socket\n  path: ~/redis.sock\n  db_num: 5\n  port: 6379\n");
  std::vector<std::string> unused;
  auto l = read(&unused);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->socket_path, (dir_ / "redis.sock").string());
  EXPECT_EQ(l->db, 5);
  EXPECT_EQ(l->display(), "redis+socket://" + (dir_ / "redis.sock").string() + "?db=5");
  EXPECT_EQ(unused, (std::vector<std::string>{"broker.port"}));
  app_yaml("broker:\n  name: redis+socket\n");
  l = read();
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("broker.path"), std::string::npos) << l.error().message;
}

TEST_F(AppBrokerTest, PlaceholdersAndBadNumbersNameWhereTheyAre) {
  app_yaml("broker:\n  name: redis\n  server: <server name>\n");
  auto l = read();
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(l.error().message, env_.app_config +
                                   ":3:11: broker.server is still the placeholder '<server "
                                   "name>': write the server's host name there");
  app_yaml("broker:\n  server: h\n  port: sixty\n");
  l = read();
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message, env_.app_config +
                                   ":3:9: broker.port must be a port number (1 to 65535), got "
                                   "'sixty'");
  app_yaml("broker:\n  server: h\n  password: <your password>\n");
  l = read();
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message.find("your password"), std::string::npos)
      << "a password's placeholder is not quoted: " << l.error().message;
  app_yaml("broker:\n  name: [redis]\n");
  l = read();
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  app_yaml("broker:\n  name: kafka\n");
  l = read();
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  EXPECT_NE(l.error().message.find(":2:9: broker.name 'kafka' is none of"), std::string::npos)
      << l.error().message;
}

TEST_F(AppBrokerTest, NameIsMatchedInAnyCaseAndDbNumIsTheDatabase) {
  app_yaml("broker:\n  name: REDIS\n  server: h\n  db_num: 7\n  vhost: v\n");
  std::vector<std::string> unused;
  auto l = read(&unused);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->db, 7);
  EXPECT_EQ(unused, (std::vector<std::string>{"broker.vhost"}));
}

TEST_F(AppBrokerTest, TheNoteGroupsKeysByReason) {
  using spec::IgnoredWhy;
  std::vector<spec::IgnoredKey> unused = {{"broker.server", IgnoredWhy::kSocketHasPath, "unix"},
                                          {"broker.cert_reqs", IgnoredWhy::kTlsOfPlainServer},
                                          {"celery", IgnoredWhy::kCelerySettings},
                                          {"broker.ca_certs", IgnoredWhy::kTlsOfPlainServer},
                                          {"broker.port", IgnoredWhy::kSocketHasPath, "x"}};
  EXPECT_EQ(unused_keys_note(unused),
            "broker.server (a unix server is reached through its path); broker.cert_reqs, "
            "broker.ca_certs (a TLS setting, which a plain (non-TLS) server does not use); celery "
            "(Celery's own settings, which the workers here, not being Celery, do not read); "
            "broker.port (a x server is reached through its path)");
}

TEST_F(AppBrokerTest, TheFileIsFoundWhereMerlinLooks) {
  const std::string home = dir_.string();
  fs::create_directories(dir_ / "work");
  const std::string cwd = (dir_ / "work").string();
  EXPECT_EQ(find_app_config(cwd, home), home + "/.merlin/app.yaml") << "the default";
  auto other = write("other.yaml", "broker: {}\n");
  write(".merlin/config_path.txt", other + "\n");
  EXPECT_EQ(find_app_config(cwd, home), other) << "`merlin config use` names it";
  write(".merlin/config_path.txt", (dir_ / "gone.yaml").string());
  EXPECT_EQ(find_app_config(cwd, home), home + "/.merlin/app.yaml") << "named but missing";
  write("work/app.yaml", "broker: {}\n");
  EXPECT_EQ(find_app_config(cwd, home), cwd + "/app.yaml") << "the working directory's first";
}

TEST_F(AppBrokerTest, TheFileConfigCreateWritesIsALocalRedisWithNothingUnused) {
  app_yaml(broker_providers().by_config_name("redis")->app_yaml);
  std::vector<std::string> unused;
  auto l = read(&unused);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->display(), "redis://127.0.0.1:6379/0");
  EXPECT_EQ(l->password, "");
  EXPECT_EQ(l->username, "");
  EXPECT_TRUE(unused.empty());
  auto c = spec::read_app_config(env_.app_config);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->ignored.empty());
}

// Redis ACL users (issue #16): Merlin's `username` beside the password file, for the broker
// and for a RabbitMQ broker's Redis results backend, and a user name in the URL.
TEST_F(AppBrokerTest, RedisAclUsersComeFromUsernameInTheBrokerAndResultsBackendBlocks) {
  write(".merlin/worker.pass", "w-pw\n");
  write(".merlin/results.pass", "r-pw\n");
  app_yaml(
      "broker:\n  name: redis\n  server: node1\n  username: merlin-worker\n"
      "  password: worker.pass\n");
  auto l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->username, "merlin-worker");
  EXPECT_EQ(l->password, "w-pw");
  EXPECT_EQ(l->display().find("w-pw"), std::string::npos) << l->display();

  app_yaml(
      "broker:\n  name: rabbitmq\n  server: rabbit\n  username: r\n  password: worker.pass\n"
      "results_backend:\n  name: redis\n  server: node7\n  username: merlin-results\n"
      "  password: results.pass\n");
  l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_TRUE(l->results);
  EXPECT_EQ(l->results->username, "merlin-results");
  EXPECT_EQ(l->results->password, "r-pw");

  env_.url = "redis://merlin-worker:u%40rl-pw@node2:6390/0";
  l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->username, "merlin-worker");
  EXPECT_EQ(l->password, "u@rl-pw");
}

}  // namespace
}  // namespace merlin::cli
