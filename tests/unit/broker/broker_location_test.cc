// MERLIN_BROKER_URL / --broker: redis://[[user]:password@]host[:port][/db].
#include "merlin/broker/broker_location.h"

#include <gtest/gtest.h>

namespace merlin {
namespace {

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
TEST(BrokerUrl, RabbitMqUrlsSayThereIsNoRabbitMqYet) {
  for (const char* url : {"amqp://u:s3cret@h:5672//merlin", "amqps://h", "pyamqp://h"}) {
    auto l = parse_broker_url(url);
    ASSERT_FALSE(l.ok()) << url;
    EXPECT_EQ(l.error().code, ErrorCode::kRuntime) << url;
    EXPECT_NE(l.error().message.find("RabbitMQ"), std::string::npos) << l.error().message;
    EXPECT_EQ(l.error().message.find("s3cret"), std::string::npos) << l.error().message;
  }
}

TEST(BrokerUrl, RedissIsParsedWithItsTlsOptions) {
  auto l = parse_broker_url("rediss://:s3cret@redis.example.org:6380/2?ssl_cert_reqs=none");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_TRUE(l->tls);
  EXPECT_EQ(l->host, "redis.example.org");
  EXPECT_EQ(l->port, 6380);
  EXPECT_EQ(l->db, 2);
  ASSERT_EQ(l->options.size(), 1u);
  EXPECT_EQ(l->options[0].first, "ssl_cert_reqs");
  EXPECT_EQ(l->options[0].second, "none");
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

}  // namespace merlin
