// update_app_block: `config update-broker|update-backend`'s YAML edit (pure).
#include "merlin/core/spec/app_update.h"

#include <gtest/gtest.h>

#include "merlin/core/spec/app_config.h"

namespace merlin::spec {
namespace {

TEST(AppUpdate, SetsTheGivenKeysKeepsTheRestAndReadsBack) {
  const std::string text =
      "# a comment\nbroker:\n  name: redis\n  server: old\n  db_num: 3\nscratch: /nvme\n";
  auto out = update_app_block(text, "app.yaml", "broker",
                              {{"name", "rabbitmq"}, {"server", "mq.example"}, {"port", "5672", true}});
  ASSERT_TRUE(out.ok()) << out.error().message;
  auto cfg = parse_app_config(*out, "app.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->broker.name.text, "rabbitmq");
  EXPECT_EQ(cfg->broker.server.text, "mq.example");
  EXPECT_EQ(cfg->broker.port.text, "5672");
  EXPECT_EQ(cfg->broker.db_num.text, "3") << "a key not given is kept";
  EXPECT_EQ(cfg->scratch, "/nvme") << "other blocks are kept";
  EXPECT_NE(out->find("port: 5672\n"), std::string::npos) << "a number, not a string";
}

TEST(AppUpdate, MakesAMissingBlockAndRefusesWhatIsNotAMap) {
  auto made = update_app_block("", "app.yaml", "results_backend", {{"name", "rediss"}, {"username", ""}});
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_NE(made->find("results_backend:"), std::string::npos);
  EXPECT_NE(made->find("username: \"\""), std::string::npos) << "an empty username, as Merlin";
  auto list = update_app_block("- a\n- b\n", "app.yaml", "broker", {{"name", "redis"}});
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().code, ErrorCode::kBadInput);
  auto scalar = update_app_block("broker: here\n", "app.yaml", "broker", {{"name", "redis"}});
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.error().message.find("'broker' is not a map"), std::string::npos);
  auto bad = update_app_block("a: [\n", "app.yaml", "broker", {{"name", "redis"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("app.yaml:"), std::string::npos);
  auto port = update_app_block("", "app.yaml", "broker", {{"port", "80x", true}});
  ASSERT_FALSE(port.ok());
  EXPECT_NE(port.error().message.find("'80x' is not a whole number"), std::string::npos);
}

}  // namespace
}  // namespace merlin::spec
