#include "workers/step_environment.h"

#include <gtest/gtest.h>

namespace merlin {
namespace {

const std::vector<std::string_view> kWorkerEnv = {"PATH=/usr/bin",
                                                  "MERLIN_BROKER_URL=redis://u:pw@h:6379/0",
                                                  "MERLIN_RESULTS_BACKEND_URL=redis://:pw@h/1",
                                                  "MERLIN_MONITOR_TOKEN=t0k3n",
                                                  "MERLIN_BROKER_RETRY=5",
                                                  "X=old"};

TEST(StepEnvironment, DropsEveryCredentialVariableByDefault) {
  auto env = step_environment(kWorkerEnv, {{"X", "new"}}, false);
  EXPECT_EQ(env, (std::vector<std::string>{
                     "PATH=/usr/bin", "MERLIN_BROKER_RETRY=5",
                     "MERLIN_CREDENTIALS_WITHHELD=MERLIN_BROKER_URL,MERLIN_RESULTS_BACKEND_URL,"
                     "MERLIN_MONITOR_TOKEN",
                     "X=new"}));
}

TEST(StepEnvironment, KeepsThemWhenTheStepAsksForTheBroker) {
  auto env = step_environment(kWorkerEnv, {}, true);
  ASSERT_EQ(env.size(), kWorkerEnv.size());  // and no MERLIN_CREDENTIALS_WITHHELD
  EXPECT_EQ(env[1], "MERLIN_BROKER_URL=redis://u:pw@h:6379/0");
}

TEST(StepEnvironment, TaskVariablesReplaceSameNamedOnesAndComeLast) {
  auto env = step_environment({"A=1", "B=2"}, {{"A", "3"}, {"C", "4"}}, false);
  EXPECT_EQ(env, (std::vector<std::string>{"B=2", "A=3", "C=4"}));
}

TEST(StepEnvironment, MatchesWholeNamesOnly) {
  EXPECT_TRUE(is_credential_variable("MERLIN_BROKER_URL"));
  EXPECT_FALSE(is_credential_variable("MERLIN_BROKER_URL_X"));
  EXPECT_FALSE(is_credential_variable("MERLIN_BROKER"));
  auto env = step_environment({"MERLIN_BROKER_URLS=a", "MERLIN_BROKER_URL"}, {}, false);
  EXPECT_EQ(env, (std::vector<std::string>{"MERLIN_BROKER_URLS=a",
                                           "MERLIN_CREDENTIALS_WITHHELD=MERLIN_BROKER_URL"}));
}

TEST(StepEnvironment, AStepsOwnWithheldListIsNotPassedOn) {
  auto env = step_environment({"MERLIN_CREDENTIALS_WITHHELD=MERLIN_BROKER_URL", "A=1"}, {}, false);
  EXPECT_EQ(env, (std::vector<std::string>{"A=1"}));
}

}  // namespace
}  // namespace merlin
