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
  for (const char* url : {"h:6379", "amqp://h", "redis://h:0", "redis://h:port", "redis://h:1/x"}) {
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
                          "redis://:s3cret@h:1/x", "amqp://:s3cret@h", "redis://user:s3cret@h:0",
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
}  // namespace merlin
