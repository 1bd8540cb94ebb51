// An app.yaml server block, already parsed, as a location: each key's effect and each refusal,
// with the home directory and the password file answered by a fake edge.
#include "merlin/run/app_server_reading.h"

#include <gtest/gtest.h>

#include "merlin/cli/backends.h"

namespace merlin::run {
namespace {

using spec::AppServer;
using spec::AppValue;

AppValue value(const std::string& text, int line = 3, int column = 9) {
  AppValue v;
  v.given = true;
  v.text = text;
  v.where = {line, column};
  return v;
}

AppValue list_value(int line = 3) {
  AppValue v = value("", line);
  v.scalar = false;
  return v;
}

// The edge of a test: `~` is /home/u; a password names no file, so it is the value itself.
struct FakeEdge {
  std::vector<std::string> password_calls;
  AppServerEdge edge() {
    return {[](const std::string& p) { return p.rfind("~", 0) == 0 ? "/home/u" + p.substr(1) : p; },
            [this](const std::string& at, const std::string& key,
                   const std::string& written) -> Result<std::string> {
              password_calls.push_back(at + key);
              return "pw(" + written + ")";
            }};
  }
};

struct Read {
  Result<BrokerLocation> loc;
  std::vector<spec::IgnoredKey> unused;
};

Read read(const AppServer& b, bool results = false, FakeEdge* fake = nullptr) {
  FakeEdge local;
  FakeEdge& f = fake ? *fake : local;
  std::vector<spec::IgnoredKey> unused;
  auto loc = read_app_server("app.yaml", b, results ? "results_backend" : "broker", results,
                             cli::broker_providers(), f.edge(), unused);
  return {std::move(loc), std::move(unused)};
}

std::vector<std::string> keys(const std::vector<spec::IgnoredKey>& unused) {
  std::vector<std::string> out;
  for (const auto& k : unused) out.push_back(k.key);
  return out;
}

TEST(AppServerReading, AnEmptyBlockIsTheDefaultBrokerFromTheFile) {
  auto r = read(AppServer{});
  ASSERT_TRUE(r.loc.ok()) << r.loc.error().message;
  EXPECT_EQ(r.loc->display(), "redis://127.0.0.1:6379/0");
  EXPECT_EQ(r.loc->source.kind, LocationSource::kAppYaml);
  EXPECT_EQ(r.loc->source.name, "app.yaml");
  EXPECT_TRUE(r.unused.empty());
}

TEST(AppServerReading, AUrlWinsAndEveryOtherKeyIsNamedAsUnused) {
  AppServer b;
  b.url = value("redis://h:7000/2");
  b.server = value("other");
  b.port = value("1");
  auto r = read(b);
  ASSERT_TRUE(r.loc.ok()) << r.loc.error().message;
  EXPECT_EQ(r.loc->display(), "redis://h:7000/2");
  EXPECT_EQ(r.loc->source.kind, LocationSource::kAppYaml);
  EXPECT_EQ(keys(r.unused), (std::vector<std::string>{"broker.server", "broker.port"}));
  EXPECT_EQ(r.unused[0].why, spec::IgnoredWhy::kUrlInPlace);
  EXPECT_EQ(spec::why_text(r.unused[0]), "broker.url is used in their place, as Merlin does");
}

TEST(AppServerReading, ABadUrlIsNamedWithItsPlaceInTheFile) {
  AppServer b;
  b.url = value("redis://h:0", 4, 8);
  auto r = read(b);
  ASSERT_FALSE(r.loc.ok());
  EXPECT_EQ(r.loc.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(r.loc.error().message.rfind("app.yaml:4:8: broker.url: broker URL 'redis://h:0'", 0),
            0u)
      << r.loc.error().message;
}

TEST(AppServerReading, ServerPortDatabaseAndUserMakeTheAddress) {
  AppServer b;
  b.name = value("redis");
  b.server = value("node7");
  b.port = value("6400");
  b.db_num = value("3");
  b.username = value("alice");
  b.password = value("secret.txt");
  FakeEdge fake;
  auto r = read(b, false, &fake);
  ASSERT_TRUE(r.loc.ok()) << r.loc.error().message;
  EXPECT_EQ(r.loc->host, "node7");
  EXPECT_EQ(r.loc->port, 6400);
  EXPECT_EQ(r.loc->db, 3);
  EXPECT_EQ(r.loc->username, "alice");
  EXPECT_EQ(r.loc->password, "pw(secret.txt)");
  EXPECT_EQ(fake.password_calls, (std::vector<std::string>{"app.yaml:3:9: broker.password"}));
}

TEST(AppServerReading, AnUnknownNameListsTheNamesOfTheTable) {
  AppServer b;
  b.name = value("kafka", 2, 9);
  auto r = read(b);
  ASSERT_FALSE(r.loc.ok());
  EXPECT_EQ(r.loc.error().message,
            "app.yaml:2:9: broker.name 'kafka' is none of redis, rediss, redis+socket, rabbitmq, "
            "amqps, amqp");
}

TEST(AppServerReading, AResultsBackendCannotBeABrokerThatNeedsOne) {
  AppServer b;
  b.name = value("rabbitmq", 2, 9);
  auto r = read(b, true);
  ASSERT_FALSE(r.loc.ok());
  EXPECT_EQ(r.loc.error().message,
            "app.yaml:2:9: results_backend.name 'rabbitmq': the results backend is a Redis "
            "(redis, rediss, redis+socket)");
}

TEST(AppServerReading, ANameThatIsAListIsRefused) {
  AppServer b;
  b.name = list_value(2);
  auto r = read(b);
  ASSERT_FALSE(r.loc.ok());
  EXPECT_EQ(r.loc.error().message,
            "app.yaml:2:9: broker.name must be a single value, such as redis");
}

TEST(AppServerReading, APlaceholderAsksForTheValueButNeverQuotesAPassword) {
  AppServer b;
  b.server = value("<server name>", 5, 11);
  auto r = read(b);
  ASSERT_FALSE(r.loc.ok());
  EXPECT_EQ(r.loc.error().message,
            "app.yaml:5:11: broker.server is still the placeholder '<server name>': write the "
            "server's host name there");
  AppServer p;
  p.password = value("<password file>", 6, 13);
  FakeEdge fake;
  auto pw = read(p, false, &fake);
  ASSERT_FALSE(pw.loc.ok());
  EXPECT_EQ(pw.loc.error().message,
            "app.yaml:6:13: broker.password is still the placeholder of Merlin's template: write "
            "the path of a file holding the password there");
  EXPECT_TRUE(fake.password_calls.empty()) << "a placeholder is no file to read";
}

TEST(AppServerReading, APortOutOfRangeSaysWhatItMustBe) {
  AppServer b;
  b.port = value("70000");
  auto r = read(b);
  ASSERT_FALSE(r.loc.ok());
  EXPECT_EQ(r.loc.error().message,
            "app.yaml:3:9: broker.port must be a port number (1 to 65535), got '70000'");
}

TEST(AppServerReading, ASocketIsItsPathAndHasNoPortOrServer) {
  AppServer b;
  b.name = value("redis+socket");
  b.path = value("~/r.sock");
  b.server = value("h");
  b.port = value("6379");
  auto r = read(b);
  ASSERT_TRUE(r.loc.ok()) << r.loc.error().message;
  EXPECT_EQ(r.loc->socket_path, "/home/u/r.sock");
  EXPECT_EQ(keys(r.unused), (std::vector<std::string>{"broker.server", "broker.port"}));
  EXPECT_EQ(spec::why_text(r.unused[0]), "a redis+socket server is reached through its path");
  EXPECT_EQ(spec::why_text(r.unused[1]), "a redis+socket server has no port");
  AppServer none;
  none.name = value("redis+socket");
  auto missing = read(none);
  ASSERT_FALSE(missing.loc.ok());
  EXPECT_EQ(missing.loc.error().message,
            "app.yaml: broker.path: a redis+socket server is reached through its socket's path");
}

TEST(AppServerReading, RabbitmqTakesAVhostAndNamesADatabaseAsUnused) {
  AppServer b;
  b.name = value("rabbitmq");
  b.vhost = value("");
  b.db_num = value("2");
  auto r = read(b);
  ASSERT_TRUE(r.loc.ok()) << r.loc.error().message;
  EXPECT_EQ(r.loc->vhost, "/");
  EXPECT_EQ(r.loc->port, 5671);
  EXPECT_EQ(keys(r.unused), (std::vector<std::string>{"broker.db_num"}));
  EXPECT_EQ(spec::why_text(r.unused[0]), "a Redis database number; RabbitMQ has vhosts");
  AppServer redis;
  redis.vhost = value("v");
  auto rv = read(redis);
  ASSERT_TRUE(rv.loc.ok());
  EXPECT_EQ(keys(rv.unused), (std::vector<std::string>{"broker.vhost"}));
}

TEST(AppServerReading, TlsSettingsGoToATlsServerAndAreUnusedOnAPlainOne) {
  AppServer b;
  b.name = value("rediss");
  b.cert_reqs = value("CERT_REQUIRED");
  b.ca_certs = value("~/ca.pem");
  b.keyfile = value("k.pem");
  auto r = read(b);
  ASSERT_TRUE(r.loc.ok()) << r.loc.error().message;
  EXPECT_EQ(r.loc->tls_settings.cert_reqs, CertReqs::kRequired);
  EXPECT_EQ(r.loc->tls_settings.ca_certs, "/home/u/ca.pem");
  EXPECT_EQ(r.loc->tls_settings.keyfile, "k.pem");
  EXPECT_TRUE(r.unused.empty());
  AppServer plain;
  plain.cert_reqs = value("required");
  auto p = read(plain);
  ASSERT_TRUE(p.loc.ok());
  EXPECT_EQ(keys(p.unused), (std::vector<std::string>{"broker.cert_reqs"}));
  AppServer odd;
  odd.name = value("rediss");
  odd.cert_reqs = value("maybe");
  auto o = read(odd);
  ASSERT_TRUE(o.loc.ok());
  EXPECT_EQ(o.loc->tls_settings.cert_reqs, CertReqs::kUnset) << "Merlin leaves it unset too";
  ASSERT_EQ(o.unused.size(), 1u);
  EXPECT_EQ(spec::why_text(o.unused[0]), "'maybe' is none of none, optional, required");
}

TEST(AppServerReading, APasswordErrorOfTheEdgeIsReturnedAsItIs) {
  AppServer b;
  b.password = value("p");
  std::vector<spec::IgnoredKey> unused;
  AppServerEdge edge{
      [](const std::string& p) { return p; },
      [](const std::string&, const std::string&, const std::string&) -> Result<std::string> {
        return Error::bad_input("readable by everyone");
      }};
  auto r = read_app_server("app.yaml", b, "broker", false, cli::broker_providers(), edge, unused);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "readable by everyone");
}

}  // namespace
}  // namespace merlin::run
