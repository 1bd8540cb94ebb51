// The table of brokers (merlin/core/broker/broker_provider.h): a kind of broker is one provider, and
// generic code finds it by scheme or app.yaml name instead of comparing text.
#include "merlin/core/broker/broker_provider.h"

#include <gtest/gtest.h>

#include "merlin/cli/backends.h"

namespace merlin {
namespace {

const BrokerProviders& table() { return cli::broker_providers(); }

TEST(BrokerProviders, ASchemeIsFoundWithItsProviderAndItsForm) {
  auto found = table().by_scheme("amqps");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->provider->kind.name(), "rabbitmq");
  EXPECT_TRUE(found->provider->needs_results_backend);
  EXPECT_TRUE(found->form->tls);
  EXPECT_EQ(found->form->default_port, 5671);
  EXPECT_EQ(found->form->path, UrlPath::kVirtualHost);
  EXPECT_FALSE(table().by_scheme("http").has_value());
}

TEST(BrokerProviders, AnAliasKeepsTheCanonicalScheme) {
  auto a = parse_broker_url("pyamqp://h/", table());
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->scheme, "amqp");
  EXPECT_EQ(a->port, 5672);
  auto u = parse_broker_url("unix:///run/r.sock", table());
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(u->scheme, "redis+socket");
  EXPECT_EQ(u->path, UrlPath::kSocketPath);
  EXPECT_EQ(u->display(), "redis+socket:///run/r.sock");
}

TEST(BrokerProviders, NoBrokerNamedIsTheFirstProvidersFirstFormOnThisHost) {
  const BrokerLocation d = table().default_location();
  EXPECT_EQ(d.display(), "redis://127.0.0.1:6379/0");
  EXPECT_EQ(d.source.kind, LocationSource::kDefault);
  EXPECT_FALSE(d.needs_results_backend());
  auto by_name = table().by_app_name("");
  ASSERT_TRUE(by_name.has_value());
  EXPECT_EQ(by_name->provider, d.provider);
}

TEST(BrokerProviders, AppYamlNamesMapToTheirSchemes) {
  auto rabbit = table().by_app_name("rabbitmq");
  ASSERT_TRUE(rabbit.has_value());
  EXPECT_EQ(rabbit->form->scheme, "amqps") << "Merlin's rabbitmq is AMQP over TLS";
  auto plain = table().by_app_name("amqp");
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(plain->form->tls);
  EXPECT_FALSE(table().by_app_name("kafka").has_value());
}

TEST(BrokerProviders, OnlyBrokersThatKeepProgressThemselvesAreNamedForAResultsBackend) {
  EXPECT_EQ(table().app_names_text(true), "redis, rediss, redis+socket");
  EXPECT_EQ(table().app_names_text(false), "redis, rediss, redis+socket, rabbitmq, amqps, amqp");
}

TEST(BrokerProviders, TheServedSchemesAreTheCanonicalOnes) {
  EXPECT_EQ(table().schemes(),
            (std::vector<std::string>{"redis", "rediss", "redis+socket", "amqp", "amqps"}));
}

// A third kind of broker is one more provider: the generic parser, the app.yaml names and the
// opening follow its data, and nothing else changes.
TEST(BrokerProviders, ANewKindOfBrokerIsOneMoreProvider) {
  BrokerProvider foo;
  foo.kind = BrokerKind{"foo"};
  foo.title = "Foo";
  foo.forms = {{"foo", "", 7000, false, UrlPath::kDatabase},
               {"foos", "", 7001, true, UrlPath::kDatabase}};
  foo.app_names = {{"foo", "foo"}};
  int opened = 0;
  foo.open = [&opened](const BrokerLocation& loc, const BackendOptions&,
                       const BrokerProviders&) -> Result<std::unique_ptr<Backend>> {
    ++opened;
    EXPECT_EQ(loc.port, 7001);
    return Error::runtime("no server in a unit test");
  };
  const BrokerProviders providers({&foo});
  auto loc = parse_broker_url("FOOS://:pw@h/2", providers);
  ASSERT_TRUE(loc.ok()) << loc.error().message;
  EXPECT_EQ(loc->provider->kind, BrokerKind{"foo"});
  EXPECT_TRUE(loc->tls);
  EXPECT_EQ(loc->db, 2);
  EXPECT_EQ(loc->display(), "foos://:***@h:7001/2");
  EXPECT_FALSE(providers.open(*loc).ok());
  EXPECT_EQ(opened, 1);
  auto unknown = parse_broker_url("redis://h", providers);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kBadInput);
}

TEST(BrokerProviders, ALocationNoProviderOpensIsARuntimeErrorNamingTheServedSchemes) {
  BrokerLocation loc;
  loc.scheme = "kafka";
  auto b = table().open(loc);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, ErrorCode::kRuntime);
  EXPECT_NE(b.error().message.find("redis, rediss, redis+socket, amqp, amqps"), std::string::npos);
}

TEST(BrokerKind, KindsCompareAsValues) {
  EXPECT_EQ(BrokerKind{"redis"}, BrokerKind{"redis"});
  EXPECT_NE(BrokerKind{"redis"}, BrokerKind{"rabbitmq"});
  EXPECT_EQ(BrokerKind{"redis"}.str(), "redis");
}

}  // namespace
}  // namespace merlin
