// parse_broker_url's steps, each on its own: what a part of the URL gives the location, and
// the words the user sees when it is wrong.
#include "merlin/core/broker/broker_url_steps.h"

#include <gtest/gtest.h>

#include "merlin/cli/backends.h"

namespace merlin::broker_url {
namespace {

BrokerLocation location_of(const std::string& scheme) {
  BrokerLocation loc;
  auto found = cli::broker_providers().by_scheme(scheme);
  EXPECT_TRUE(found.has_value()) << scheme;
  if (found) apply_form(loc, *found);
  return loc;
}

TEST(BrokerUrlSteps, TheSchemeIsLoweredAndTheRestFollowsItsSlashes) {
  std::string scheme;
  std::string_view rest;
  EXPECT_FALSE(split_scheme("REDIS://h:1/2", scheme, rest));
  EXPECT_EQ(scheme, "redis");
  EXPECT_EQ(rest, "h:1/2");
  auto none = split_scheme("h:6379", scheme, rest);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->what, "no scheme");
}

TEST(BrokerUrlSteps, AnUnknownSchemeIsNamedUnlessItMayHoldASecret) {
  BrokerProviders::Found found{};
  EXPECT_FALSE(find_form("rediss", cli::broker_providers(), found));
  EXPECT_TRUE(found.form->tls);
  EXPECT_EQ(find_form("http", cli::broker_providers(), found)->what, "unknown scheme 'http'");
  EXPECT_EQ(find_form("p@ss", cli::broker_providers(), found)->what, "unknown scheme");
  EXPECT_EQ(find_form("u:pw", cli::broker_providers(), found)->what, "unknown scheme");
}

TEST(BrokerUrlSteps, TheQueryStartsAtTheFirstQuestionMarkButNotInsideAPassword) {
  std::string_view address, query;
  EXPECT_FALSE(split_query("h/0?db=2&x=1", address, query));
  EXPECT_EQ(address, "h/0");
  EXPECT_EQ(query, "db=2&x=1");
  EXPECT_FALSE(split_query("h/0", address, query));
  EXPECT_EQ(address, "h/0");
  EXPECT_TRUE(query.empty());
  auto in_password = split_query(":pa?ss@h", address, query);
  ASSERT_TRUE(in_password);
  EXPECT_EQ(in_password->what, "a '?' before the '@': write a '?' in the user or password as %3F");
}

TEST(BrokerUrlSteps, QueryOptionsGoToTheDatabaseTlsCredentialsOrAreKept) {
  BrokerLocation loc = location_of("rediss");
  QueryCredentials creds;
  EXPECT_FALSE(
      read_query("db=3&ssl_cert_reqs=CERT_REQUIRED&ssl_ca_certs=%2Fca.pem&&"
                 "password=p%40ss&username=al&socket_timeout=5",
                 loc, creds));
  EXPECT_EQ(loc.db, 3);
  EXPECT_EQ(loc.tls_settings.cert_reqs, CertReqs::kRequired);
  EXPECT_EQ(loc.tls_settings.ca_certs, "/ca.pem");
  EXPECT_EQ(creds.password, "p@ss");
  EXPECT_EQ(creds.user, "al");
  ASSERT_EQ(loc.options.size(), 1u);
  EXPECT_EQ(loc.options[0], (std::pair<std::string, std::string>{"socket_timeout", "5"}));
}

TEST(BrokerUrlSteps, BadQueryValuesSayWhatIsWrong) {
  BrokerLocation loc = location_of("redis");
  QueryCredentials creds;
  EXPECT_EQ(read_query("virtual_host=x", loc, creds)->what, "database 'x' is not a number");
  EXPECT_EQ(read_query("ssl_cert_reqs=maybe", loc, creds)->what,
            "ssl_cert_reqs 'maybe' is none of CERT_NONE, CERT_OPTIONAL, CERT_REQUIRED (or none, "
            "optional, required)");
  EXPECT_EQ(read_query("password=%zz", loc, creds)->what,
            "a '%' in the user or password is not followed by two hex digits");
}

TEST(BrokerUrlSteps, UserinfoIsCutAtTheLastAtSignAndAloneIsThePassword) {
  BrokerLocation loc = location_of("redis");
  bool had = false;
  std::string_view address = "al%3A1:p@ss@h:1";
  EXPECT_FALSE(read_userinfo(address, loc, had));
  EXPECT_TRUE(had);
  EXPECT_EQ(loc.username, "al:1");
  EXPECT_EQ(loc.password, "p@ss");
  EXPECT_EQ(address, "h:1");
  address = "secret@h";
  EXPECT_FALSE(read_userinfo(address, loc, had));
  EXPECT_EQ(loc.username, "");
  EXPECT_EQ(loc.password, "secret");
  address = "h";
  EXPECT_FALSE(read_userinfo(address, loc, had));
  EXPECT_FALSE(had);
  address = ":%4@h";
  EXPECT_TRUE(read_userinfo(address, loc, had));
}

TEST(BrokerUrlSteps, ASocketUrlNamesAnAbsolutePath) {
  BrokerLocation loc = location_of("redis+socket");
  EXPECT_FALSE(read_socket_path("/run/redis%20x.sock", loc));
  EXPECT_EQ(loc.socket_path, "/run/redis x.sock");
  EXPECT_EQ(read_socket_path("run/r.sock", loc)->what,
            "a socket URL names an absolute path: redis+socket:///path/to/redis.sock");
}

TEST(BrokerUrlSteps, ThePathIsADatabaseOrAVirtualHostByTheForm) {
  std::string_view hostport;
  BrokerLocation redis = location_of("redis");
  EXPECT_FALSE(read_path("h:1/7", redis, hostport));
  EXPECT_EQ(redis.db, 7);
  EXPECT_EQ(hostport, "h:1");
  EXPECT_FALSE(read_path("h/", redis, hostport));
  EXPECT_EQ(redis.db, 7) << "an empty path leaves the database as it is";
  EXPECT_EQ(read_path("h/x", redis, hostport)->what, "database 'x' is not a number");
  BrokerLocation rabbit = location_of("amqp");
  EXPECT_FALSE(read_path("h/v%2Fh", rabbit, hostport));
  EXPECT_EQ(rabbit.vhost, "v/h");
  EXPECT_FALSE(read_path("h/", rabbit, hostport));
  EXPECT_EQ(rabbit.vhost, "/");
  EXPECT_EQ(read_path("h/%z", rabbit, hostport)->what,
            "a '%' in the virtual host is not followed by two hex digits");
}

TEST(BrokerUrlSteps, HostAndPortIncludingBracketedIpv6) {
  BrokerLocation loc = location_of("redis");
  std::string_view host;
  EXPECT_FALSE(read_host_port("node:6400", loc, host));
  EXPECT_EQ(host, "node");
  EXPECT_EQ(loc.port, 6400);
  EXPECT_FALSE(read_host_port("[::1]:7000", loc, host));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(loc.port, 7000);
  EXPECT_FALSE(read_host_port("", loc, host));
  EXPECT_TRUE(host.empty());
  EXPECT_EQ(read_host_port("[::1", loc, host)->what, "an IPv6 address without its ']'");
  EXPECT_EQ(read_host_port("[::1]x", loc, host)->what, "text after the IPv6 address's ']'");
  EXPECT_EQ(read_host_port("h:99999", loc, host)->what,
            "port '99999' is not a number from 1 to 65535");
}

TEST(BrokerUrlSteps, AColonWithNoHostBeforeItIsAMisplacedPasswordAndHidden) {
  BrokerLocation loc = location_of("redis");
  std::string_view host;
  const std::string_view hostport = ":s3cret";
  auto p = read_host_port(hostport, loc, host);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->what, "the port is not a number from 1 to 65535");
  EXPECT_EQ(p->hide, "s3cret");
  EXPECT_EQ(p->hide.data(), hostport.data() + 1) << "a view into the URL, so it can be masked";
}

TEST(BrokerUrlSteps, NumbersAreWholeAndBounded) {
  EXPECT_EQ(bounded_int("42", 0, 100), 42);
  EXPECT_FALSE(bounded_int("", 0, 100));
  EXPECT_FALSE(bounded_int("4x", 0, 100));
  EXPECT_FALSE(bounded_int("-1", 0, 100));
  EXPECT_FALSE(bounded_int("101", 0, 100));
  EXPECT_EQ(percent_decoded("a%40b"), "a@b");
  EXPECT_FALSE(percent_decoded("a%4"));
}

}  // namespace
}  // namespace merlin::broker_url
