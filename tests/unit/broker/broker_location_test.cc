// MERLIN_BROKER_URL / --broker: redis://[[user]:password@]host[:port][/db].
#include "merlin/core/broker/broker_location.h"

#include <gtest/gtest.h>

#include "merlin/cli/backends.h"

namespace merlin {
namespace {

// The URL forms of this build's brokers (the CLI's table).
Result<BrokerLocation> parse_broker_url(std::string_view url) {
  return merlin::parse_broker_url(url, cli::broker_providers());
}

TEST(BrokerUrl, FullFormWithPasswordAndDb) {
  auto l = parse_broker_url("redis://:s3cret@node7:6400/3");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->host, "node7");
  EXPECT_EQ(l->port, 6400);
  EXPECT_EQ(l->db, 3);
  EXPECT_EQ(l->password, "s3cret");
  EXPECT_EQ(l->username, "");
}

TEST(BrokerUrl, DefaultsForWhatIsLeftOut) {
  auto l = parse_broker_url("redis://");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->host, "127.0.0.1");
  EXPECT_EQ(l->port, 6379);
  EXPECT_EQ(l->db, 0);
  auto h = parse_broker_url("redis://example");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->host, "example");
  EXPECT_EQ(h->port, 6379);
}

TEST(BrokerUrl, AclUserAndPassword) {
  auto l = parse_broker_url("redis://alice:pw@h:1/0");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->username, "alice");
  EXPECT_EQ(l->password, "pw");
}

TEST(BrokerUrl, DisplayNeverShowsThePassword) {
  auto l = parse_broker_url("redis://:s3cret@h:1/2");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->display(), "redis://:***@h:1/2");
}

TEST(BrokerUrl, BadUrlsAreBadInputWithThePasswordMasked) {
  for (const char* url : {"h:6379", "ftp://h", "redis://h:0", "redis://h:port", "redis://h:1/x"}) {
    auto l = parse_broker_url(url);
    ASSERT_FALSE(l.ok()) << url;
    EXPECT_EQ(l.error().code, ErrorCode::kBadInput) << url;
  }
  auto l = parse_broker_url("redis://:s3cret@h:99999/0");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message.find("s3cret"), std::string::npos) << l.error().message;
  EXPECT_NE(l.error().message.find("'99999'"), std::string::npos);
}

TEST(BrokerUrl, MalformedUrlsNeverShowThePassword) {
  for (const char* url : {"redis:/:s3cret@host", "redis//:s3cret@host", "redis://s3cret@h:port",
                          "redis://:s3cret@h:1/x", "ftp://:s3cret@h", "redis://user:s3cret@h:0",
                          "s3cret@h", "redis:s3cret@h:1"}) {
    auto l = parse_broker_url(url);
    ASSERT_FALSE(l.ok()) << url;
    EXPECT_EQ(l.error().code, ErrorCode::kBadInput) << url;
    EXPECT_EQ(l.error().message.find("s3cret"), std::string::npos) << l.error().message;
    EXPECT_NE(l.error().message.find("***@"), std::string::npos) << l.error().message;
  }
}

TEST(BrokerUrl, APasswordAloneIsMaskedAndTheUserKept) {
  auto l = parse_broker_url("redis://alice:s3cret@h:0");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("'redis://alice:***@h:0'"), std::string::npos)
      << l.error().message;
  auto alone = parse_broker_url("redis://s3cret@h:0");
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.error().message.find("'redis://***@h:0'"), std::string::npos)
      << alone.error().message;
}

TEST(BrokerUrl, APasswordIsNeverSentToTheDefaultAddress) {
  for (const char* url : {"redis://:s3cret@", "redis://:s3cret@:6380/0", "redis://alice:s3cret@/0",
                          "redis://s3cret@"}) {
    auto l = parse_broker_url(url);
    ASSERT_FALSE(l.ok()) << url << " would AUTH to " << l->host;
    EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
    EXPECT_NE(l.error().message.find("no host"), std::string::npos) << l.error().message;
    EXPECT_EQ(l.error().message.find("s3cret"), std::string::npos) << l.error().message;
  }
}

TEST(BrokerUrl, ATextInThePortsPlaceIsNotQuoted) {
  auto l = parse_broker_url("redis://:s3cret");  // the '@host' forgotten
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message.find("s3cret"), std::string::npos) << l.error().message;
  EXPECT_NE(l.error().message.find("'redis://:***': the port is not a number"), std::string::npos)
      << l.error().message;
}

}  // namespace
// The URL forms Merlin users have (issue #10).
TEST(BrokerUrl, RabbitMqUrlsAreReadAsKombuReadsThem) {
  auto l = parse_broker_url("amqp://u:s%40cret@h:5673/merlin%2Fv");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->scheme, "amqp");
  EXPECT_FALSE(l->tls);
  EXPECT_EQ(l->username, "u");
  EXPECT_EQ(l->password, "s@cret");
  EXPECT_EQ(l->host, "h");
  EXPECT_EQ(l->port, 5673);
  EXPECT_EQ(l->vhost, "merlin/v");
  EXPECT_EQ(l->display(), "amqp://u:***@h:5673/merlin/v");
  auto tls = parse_broker_url("amqps://h");
  ASSERT_TRUE(tls.ok());
  EXPECT_TRUE(tls->tls);
  EXPECT_EQ(tls->port, 5671) << "amqps' default port";
  EXPECT_EQ(tls->vhost, "/");
  auto py = parse_broker_url("pyamqp://h//");
  ASSERT_TRUE(py.ok());
  EXPECT_EQ(py->scheme, "amqp") << "Celery's pyamqp is amqp";
  EXPECT_EQ(py->port, 5672);
  EXPECT_EQ(py->vhost, "/");
}

TEST(BrokerUrl, RedissIsParsedWithItsTlsOptions) {
  auto l = parse_broker_url("rediss://:s3cret@redis.example.org:6380/2?ssl_cert_reqs=none");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_TRUE(l->tls);
  EXPECT_EQ(l->host, "redis.example.org");
  EXPECT_EQ(l->port, 6380);
  EXPECT_EQ(l->db, 2);
  EXPECT_EQ(l->tls_settings.cert_reqs, CertReqs::kNone);
  EXPECT_TRUE(l->options.empty()) << "a known option is recorded, not left for the note";
  EXPECT_EQ(l->display(), "rediss://:***@redis.example.org:6380/2");
}

TEST(BrokerUrl, Ipv6HostsInBrackets) {
  auto l = parse_broker_url("redis://:pw@[::1]:7000/3");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->host, "::1");
  EXPECT_EQ(l->port, 7000);
  EXPECT_EQ(l->db, 3);
  EXPECT_EQ(l->display(), "redis://:***@[::1]:7000/3");
  auto d = parse_broker_url("redis://[fe80::1]");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->port, 6379);
  EXPECT_FALSE(parse_broker_url("redis://[::1").ok());
  EXPECT_FALSE(parse_broker_url("redis://[::1]x").ok());
  EXPECT_FALSE(parse_broker_url("redis://[::1]:").ok());
}

TEST(BrokerUrl, PercentEncodedUserAndPassword) {
  auto l = parse_broker_url("redis://al%69ce:p%40ss%3Aw%2Fd@h:1/0");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->username, "alice");
  EXPECT_EQ(l->password, "p@ss:w/d");
  auto bad = parse_broker_url("redis://:s3cret%zz@h");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.find("s3cret"), std::string::npos) << bad.error().message;
}

TEST(BrokerUrl, UnixSocketsAsCeleryWritesThem) {
  auto l = parse_broker_url("redis+socket:///run/user/1000/redis.sock?virtual_host=4");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->socket_path, "/run/user/1000/redis.sock");
  EXPECT_EQ(l->db, 4);
  EXPECT_EQ(l->display(), "redis+socket:///run/user/1000/redis.sock?db=4");
  auto u = parse_broker_url("unix://:pw@/tmp/r.sock?db=1");
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(u->socket_path, "/tmp/r.sock");
  EXPECT_EQ(u->password, "pw");
  EXPECT_FALSE(parse_broker_url("redis+socket://relative.sock").ok());
}

namespace {

TEST(BrokerUrl, TlsQueryOptionsAreRecordedInCelerysSpellings) {
  struct Case {
    const char* query;
    CertReqs want;
  } cases[] = {{"ssl_cert_reqs=none", CertReqs::kNone},
               {"ssl_cert_reqs=CERT_NONE", CertReqs::kNone},
               {"ssl_cert_reqs=optional", CertReqs::kOptional},
               {"ssl_cert_reqs=CERT_OPTIONAL", CertReqs::kOptional},
               {"ssl_cert_reqs=required", CertReqs::kRequired},
               {"ssl_cert_reqs=CERT_REQUIRED", CertReqs::kRequired}};
  for (const auto& c : cases) {
    auto l = parse_broker_url(std::string("rediss://h:6380/0?") + c.query);
    ASSERT_TRUE(l.ok()) << c.query << ": " << l.error().message;
    EXPECT_EQ(l->tls_settings.cert_reqs, c.want) << c.query;
    EXPECT_TRUE(l->options.empty()) << c.query;
  }
  auto files = parse_broker_url(
      "rediss://h?ssl_ca_certs=%2Fetc%2Fca.pem&ssl_certfile=/c.pem&ssl_keyfile=/k.pem");
  ASSERT_TRUE(files.ok()) << files.error().message;
  EXPECT_EQ(files->tls_settings.ca_certs, "/etc/ca.pem");
  EXPECT_EQ(files->tls_settings.certfile, "/c.pem");
  EXPECT_EQ(files->tls_settings.keyfile, "/k.pem");
  auto bad = parse_broker_url("rediss://:s3cret@h?ssl_cert_reqs=maybe");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad.error().message.find("ssl_cert_reqs 'maybe'"), std::string::npos)
      << bad.error().message;
  EXPECT_EQ(bad.error().message.find("s3cret"), std::string::npos) << bad.error().message;
}

TEST(BrokerUrl, UnknownQueryOptionsAreKeptForTheNote) {
  auto l = parse_broker_url("redis://h/1?socket_timeout=5&&health_check_interval");
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_EQ(l->options.size(), 2u);
  EXPECT_EQ(l->options[0], (std::pair<std::string, std::string>{"socket_timeout", "5"}));
  EXPECT_EQ(l->options[1].first, "health_check_interval");
  EXPECT_EQ(l->db, 1);
}

TEST(BrokerUrl, AQueryPasswordIsUsedAndNeverShown) {
  auto l = parse_broker_url("redis://h:1/0?username=alice&password=s3cr%40t");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->username, "alice");
  EXPECT_EQ(l->password, "s3cr@t");
  EXPECT_TRUE(l->options.empty());
  EXPECT_EQ(l->display(), "redis://alice:***@h:1/0");
  auto bad = parse_broker_url("redis://h:0/0?a=1&password=s3cret&b=2");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.find("s3cret"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("?a=1&password=***&b=2"), std::string::npos)
      << bad.error().message;
  EXPECT_FALSE(parse_broker_url("redis://?password=s3cret").ok()) << "no host: never sent";
}

TEST(BrokerUrl, AQuestionMarkInAnUnencodedPasswordIsNotShown) {
  auto l = parse_broker_url("redis://:pa?ss3cret@h:1/0");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(l.error().message.find("ss3cret"), std::string::npos) << l.error().message;
  EXPECT_NE(l.error().message.find("%3F"), std::string::npos) << l.error().message;
  auto encoded = parse_broker_url("redis://:pa%3Fss@h:1/0");
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(encoded->password, "pa?ss");
}

TEST(BrokerUrl, TheSchemeIsMatchedInAnyCase) {
  auto l = parse_broker_url("REDIS://h:7/0");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->scheme, "redis");
  auto s = parse_broker_url("Redis+Socket:///tmp/r.sock");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->socket_path, "/tmp/r.sock");
  auto bad = parse_broker_url("p@ss://h");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.find("p@ss"), std::string::npos) << bad.error().message;
}

TEST(BrokerUrl, SocketPathsMayBePercentEncodedAndCarryAPassword) {
  auto l = parse_broker_url("redis+socket://:s3cret@/tmp/my%20dir/r.sock?virtual_host=3");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->socket_path, "/tmp/my dir/r.sock");
  EXPECT_EQ(l->password, "s3cret");
  EXPECT_EQ(l->db, 3);
  EXPECT_EQ(l->display(), "redis+socket://:***@/tmp/my dir/r.sock?db=3");
}

TEST(BrokerUrl, DisplayNeverShowsAPasswordInAnyForm) {
  for (const char* url : {"redis://:s3cret@h", "redis://alice:s3cret@h:1/2", "redis://s3cret@h",
                          "redis://:s3%63ret@h", "rediss://:s3cret@h:6380/0?ssl_cert_reqs=none",
                          "redis://:s3cret@[::1]:6379/0", "redis+socket://:s3cret@/tmp/r.sock?db=1",
                          "unix://:s3cret@/tmp/r.sock", "redis://h?password=s3cret"}) {
    auto l = parse_broker_url(url);
    ASSERT_TRUE(l.ok()) << url << ": " << l.error().message;
    EXPECT_EQ(l->password, "s3cret") << url;
    EXPECT_EQ(l->display().find("s3cret"), std::string::npos) << l->display();
    EXPECT_NE(l->display().find("***"), std::string::npos) << l->display();
  }
}

TEST(CertReqs, PythonsNamesInAnyCase) {
  EXPECT_EQ(parse_cert_reqs("none"), CertReqs::kNone);
  EXPECT_EQ(parse_cert_reqs("Cert_Required"), CertReqs::kRequired);
  EXPECT_EQ(parse_cert_reqs("OPTIONAL"), CertReqs::kOptional);
  EXPECT_FALSE(parse_cert_reqs("").has_value());
  EXPECT_FALSE(parse_cert_reqs("CERT_").has_value());
  EXPECT_FALSE(parse_cert_reqs("yes").has_value());
}

TEST(UrlUnquoted, DecodesEscapesAndLeavesStrayPercents) {
  EXPECT_EQ(url_unquoted("p%40ss%3Aw%2fd"), "p@ss:w/d");
  EXPECT_EQ(url_unquoted("100%"), "100%");
  EXPECT_EQ(url_unquoted("%zz%4"), "%zz%4");
  EXPECT_EQ(url_unquoted("a+b"), "a+b") << "'+' is no space in a URL's user info";
}

}  // namespace
}  // namespace merlin
