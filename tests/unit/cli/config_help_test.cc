// `merlin config create`'s help names the brokers of the table, so a new kind of broker is
// named there without an edit to the command.
#include "merlin/cli/config_help.h"

#include <gtest/gtest.h>

#include "merlin/cli/backends.h"

namespace merlin::cli {
namespace {

BrokerProvider provider(const std::string& title, const std::string& config_name,
                        bool needs_results_backend) {
  BrokerProvider p;
  p.kind = BrokerKind{config_name.empty() ? title : config_name};
  p.title = title;
  p.config_name = config_name;
  p.needs_results_backend = needs_results_backend;
  return p;
}

TEST(ConfigHelp, TheBrokerOptionNamesEachTemplateOfTheTable) {
  EXPECT_EQ(config_broker_help(broker_providers()),
            "redis, or rabbitmq (with a Redis as the results backend)");
}

TEST(ConfigHelp, TheCommandSaysWhichBrokersItWritesFor) {
  EXPECT_EQ(config_create_help(broker_providers()),
            "Write ~/.merlin/app.yaml (or -o FILE) for a Redis broker (or RabbitMQ and a Redis "
            "results backend) on this machine, mode 0600; an existing file is kept unless "
            "--force. Records the file in ~/.merlin/config_path.txt, as Merlin does");
}

TEST(ConfigHelp, AThirdBrokerIsNamedFromItsProviderAlone) {
  const auto redis = provider("Redis", "redis", false);
  const auto rabbit = provider("RabbitMQ", "rabbitmq", true);
  const auto foo = provider("Foo", "foo", false);
  const BrokerProviders three({&redis, &rabbit, &foo});
  EXPECT_EQ(config_broker_help(three),
            "redis, rabbitmq (with a Redis as the results backend), or foo");
  EXPECT_NE(config_create_help(three).find(
                "for a Redis broker (or RabbitMQ and a Redis results backend, or Foo) on"),
            std::string::npos);
}

TEST(ConfigHelp, AProviderWithoutATemplateIsNotOffered) {
  const auto redis = provider("Redis", "redis", false);
  const auto bare = provider("Bare", "", false);
  const BrokerProviders two({&redis, &bare});
  EXPECT_EQ(config_broker_help(two), "redis");
  EXPECT_NE(config_create_help(two).find("for a Redis broker on this machine"), std::string::npos);
}

}  // namespace
}  // namespace merlin::cli
