// Why an app.yaml key is not used: a reason as a value, told in the words Merlin users read.
#include "merlin/core/spec/ignored_key.h"

#include <gtest/gtest.h>

namespace merlin::spec {
namespace {

TEST(IgnoredKey, EachReasonHasItsWords) {
  EXPECT_EQ(why_text({"broker.ssl_protocol", IgnoredWhy::kTlsProtocol}),
            "a TLS setting merlin does not take: it uses TLS 1.2 or later");
  EXPECT_EQ(why_text({"broker.x", IgnoredWhy::kNotAServerKey}), "not a key Merlin reads there");
  EXPECT_EQ(why_text({"celery", IgnoredWhy::kCelerySettings}),
            "Celery's own settings, which the workers here, not being Celery, do not read");
  EXPECT_EQ(why_text({"process", IgnoredWhy::kServerSettings}),
            "`merlin server`'s settings for the Redis it starts; that command is not in this "
            "build");
  EXPECT_EQ(why_text({"x", IgnoredWhy::kNotAnAppYamlKey}), "not a key of Merlin's app.yaml");
  EXPECT_EQ(why_text({"broker.db_num", IgnoredWhy::kRedisDatabase}),
            "a Redis database number; RabbitMQ has vhosts");
  EXPECT_EQ(why_text({"broker.vhost", IgnoredWhy::kRabbitmqVhost}),
            "RabbitMQ's virtual host; a Redis server has none (db_num picks its database)");
  EXPECT_EQ(why_text({"broker.keyfile", IgnoredWhy::kTlsOfPlainServer}),
            "a TLS setting, which a plain (non-TLS) server does not use");
  EXPECT_EQ(why_text({"results_backend", IgnoredWhy::kOwnProgress}),
            "a Redis broker keeps progress on its own server, so that a commit and the queueing "
            "of what it releases are one step");
}

TEST(IgnoredKey, AReasonThatNamesSomethingSaysItsDetail) {
  EXPECT_EQ(why_text({"broker.port", IgnoredWhy::kUrlInPlace, "broker.url"}),
            "broker.url is used in their place, as Merlin does");
  EXPECT_EQ(why_text({"broker", IgnoredWhy::kUrlReplacesBlock, "--broker"}),
            "--broker is used in its place");
  EXPECT_EQ(why_text({"broker.server", IgnoredWhy::kSocketHasPath, "redis+socket"}),
            "a redis+socket server is reached through its path");
  EXPECT_EQ(why_text({"broker.port", IgnoredWhy::kSocketHasNoPort, "redis+socket"}),
            "a redis+socket server has no port");
  EXPECT_EQ(why_text({"broker.cert_reqs", IgnoredWhy::kUnknownCertReqs, "maybe"}),
            "'maybe' is none of none, optional, required");
}

}  // namespace
}  // namespace merlin::spec
