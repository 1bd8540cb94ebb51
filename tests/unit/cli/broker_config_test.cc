// Where the broker is: app.yaml (Merlin's format), MERLIN_BROKER_URL, --broker, and how long
// commands retry; never a password in a message.
#include "merlin/cli/broker_config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace merlin::cli {
namespace {
namespace fs = std::filesystem;

class BrokerConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("broker_config_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    env_.app_config = (dir_ / "app.yaml").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text, mode_t mode = 0600) {
    auto path = (dir_ / name).string();
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
  }
  void app_yaml(const std::string& password) {
    write("app.yaml",
          "broker:\n  name: redis\n  server: node1\n  port: 6390\n  password: " + password + "\n");
  }

  fs::path dir_;
  BrokerEnvironment env_;
  BrokerFlags flags_;
};

TEST_F(BrokerConfigTest, PasswordFileIsReadWithoutItsNewline) {
  app_yaml(write("redis.pass", "from-file\n"));
  auto l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->host, "node1");
  EXPECT_EQ(l->port, 6390);
  EXPECT_EQ(l->password, "from-file");
}

TEST_F(BrokerConfigTest, AValueThatNamesNoFileIsThePasswordItself) {
  app_yaml("s3cret-inline");  // Merlin takes it so
  auto l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->password, "s3cret-inline");
  EXPECT_EQ(l->display().find("s3cret"), std::string::npos);
}

TEST_F(BrokerConfigTest, EveryoneReadablePasswordFileIsRefusedWithoutItsContent) {
  app_yaml(write("redis.pass", "s3cret\n", 0644));
  auto l = resolve_broker(flags_, env_);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  EXPECT_NE(l.error().message.find("chmod 600"), std::string::npos) << l.error().message;
  EXPECT_EQ(l.error().message.find("s3cret"), std::string::npos) << l.error().message;
}

TEST_F(BrokerConfigTest, AUrlReplacesAppYamlWithoutReadingItsPassword) {
  app_yaml(write("redis.pass", "s3cret\n", 0644));  // would be refused if read
  env_.url = "redis://other:7000/1";
  auto l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->host, "other");
  EXPECT_EQ(l->password, "");
  EXPECT_EQ(l->source.kind, LocationSource::kEnvironment);
  EXPECT_EQ(l->source.name, "MERLIN_BROKER_URL");
}

TEST_F(BrokerConfigTest, AStepNotGivenTheBrokerUrlIsToldHowToAskForIt) {
  env_.withheld = "MERLIN_BROKER_URL,MERLIN_RESULTS_BACKEND_URL";
  auto l = resolve_broker(flags_, env_);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  EXPECT_NE(l.error().message.find("pass_broker: true"), std::string::npos) << l.error().message;
}

TEST_F(BrokerConfigTest, AStepNotGivenTheBrokerUrlUsesAppYamlsBroker) {
  env_.withheld = "MERLIN_BROKER_URL";
  app_yaml(write("redis.pass", "from-file\n"));
  auto l = resolve_broker(flags_, env_);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->host, "node1");
}

TEST_F(BrokerConfigTest, MalformedUrlsNameWhereTheyCameFromAndHideThePassword) {
  env_.url = "redis//:s3cret@host";
  auto l = resolve_broker(flags_, env_);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(l.error().message.rfind("MERLIN_BROKER_URL: ", 0), 0u) << l.error().message;
  EXPECT_EQ(l.error().message.find("s3cret"), std::string::npos) << l.error().message;
  env_.url.clear();
  flags_.url = "redis://:s3cret@";
  l = resolve_broker(flags_, env_);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message.rfind("--broker: ", 0), 0u) << l.error().message;
  EXPECT_EQ(l.error().message.find("s3cret"), std::string::npos) << l.error().message;
}

TEST_F(BrokerConfigTest, RetryBudgetFromTheFlagElseTheEnvironment) {
  auto unset = resolve_broker(flags_, env_);
  ASSERT_TRUE(unset.ok());
  EXPECT_FALSE(unset->retry_budget.has_value()) << "the adapter's default";
  env_.retry = "12.5";
  env_.timeout = "2";
  auto from_env = resolve_broker(flags_, env_);
  ASSERT_TRUE(from_env.ok()) << from_env.error().message;
  EXPECT_EQ(*from_env->retry_budget, std::chrono::milliseconds(12'500));
  EXPECT_EQ(*from_env->reply_timeout, std::chrono::milliseconds(2'000));
  flags_.retry_seconds = 0;
  auto from_flag = resolve_broker(flags_, env_);
  ASSERT_TRUE(from_flag.ok());
  EXPECT_EQ(*from_flag->retry_budget, std::chrono::milliseconds(0));
}

TEST_F(BrokerConfigTest, RetrySecondsThatAreNoNumberAreBadInput) {
  for (const char* bad : {"soon", "-1", "5s", "1e9"}) {
    env_.retry = bad;
    auto l = resolve_broker(flags_, env_);
    ASSERT_FALSE(l.ok()) << bad;
    EXPECT_EQ(l.error().code, ErrorCode::kBadInput);
    EXPECT_EQ(l.error().message, std::string("MERLIN_BROKER_RETRY: '") + bad +
                                     "' is not a number of seconds (0 or more)");
  }
  env_.retry.clear();
  env_.timeout = "0";
  auto l = resolve_broker(flags_, env_);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message, "MERLIN_BROKER_TIMEOUT: '0' is not a number of seconds above 0");
}

}  // namespace
}  // namespace merlin::cli
