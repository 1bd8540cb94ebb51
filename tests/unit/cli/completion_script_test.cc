// `merlin completion bash` and the man pages read the CLI11 app tree: every visible command and
// flag appears, hidden ones do not, and an option's values come from its hint (issue #15).
#include "merlin/cli/completion_script.h"

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include "merlin/cli/completion_hints.h"
#include "merlin/cli/help_formatter.h"

namespace merlin::cli {
namespace {

class CompletionScriptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    app_.formatter(help_formatter());
    app_.add_option("--log-level", level_, "levels");
    auto* run = app_.add_subcommand("run", "Queue a study (--local: run it here)");
    run->add_option("spec", text_, "The spec");
    run->add_flag("--local", flag_, "Here");
    run->add_option("-j,--jobs", number_, "Tasks at once");
    auto* status = app_.add_subcommand("status", "Progress of a study: per step");
    offer_values(status->add_option("--format", text_, "table, json or csv"),
                 {"table", "json", "csv"});
    status->add_option("--task_server", text_, "celery only")->check(CLI::IsMember({"celery"}));
    auto* config = app_.add_subcommand("config", "Broker settings; see create");
    offer(config->add_subcommand("create", "Write app.yaml")->add_option("dir", text_, "Where"),
          Completion::kDirectory);
    app_.add_subcommand("secret", "Not shown")->group("");
  }

  CLI::App app_{"test"};
  std::string level_, text_;
  bool flag_ = false;
  int number_ = 0;
};

TEST_F(CompletionScriptTest, ListsEveryVisibleCommandDepthFirstWithItsSummary) {
  auto cmds = visible_commands(app_);
  ASSERT_EQ(cmds.size(), 4u);
  EXPECT_EQ(cmds[0].path, std::vector<std::string>{"run"});
  EXPECT_EQ(cmds[0].summary, "Queue a study");
  EXPECT_EQ(cmds[1].summary, "Progress of a study");
  EXPECT_EQ(cmds[2].summary, "Broker settings");
  EXPECT_EQ(cmds[3].path, (std::vector<std::string>{"config", "create"}));
}

TEST_F(CompletionScriptTest, ScriptNamesEveryCommandAndFlagButHiddenOnes) {
  const auto s = bash_completion_script(app_);
  EXPECT_NE(s.find("['merlin']='run status config'"), std::string::npos) << s;
  EXPECT_NE(s.find("['merlin/config']='create'"), std::string::npos) << s;
  EXPECT_NE(s.find("['merlin/run']='-h --help --local -j --jobs --log-level'"), std::string::npos)
      << s;
  EXPECT_EQ(s.find("secret"), std::string::npos);
  EXPECT_NE(s.find("complete -F _merlin merlin"), std::string::npos);
}

TEST_F(CompletionScriptTest, ValuesComeFromHintsSetsAndTypes) {
  const auto s = bash_completion_script(app_);
  EXPECT_NE(s.find("['merlin/status:--format']='values:table,json,csv'"), std::string::npos) << s;
  EXPECT_NE(s.find("['merlin/status:--task_server']='values:celery'"), std::string::npos) << s;
  EXPECT_NE(s.find("['merlin/run:--jobs']='none'"), std::string::npos) << s;
  EXPECT_NE(s.find("['merlin:--log-level']='file'"), std::string::npos) << s;
  EXPECT_EQ(s.find("merlin/run:--local"), std::string::npos) << "a flag takes no value";
  EXPECT_NE(s.find("['merlin/run']='spec'"), std::string::npos) << "positionals are specs";
  EXPECT_NE(s.find("['merlin/config/create']='dir'"), std::string::npos) << s;
}

TEST_F(CompletionScriptTest, HelpShowsCommaSpacedNamesAndListedValues) {
  auto* status = app_.get_subcommand("status");
  const auto help = status->help();
  EXPECT_NE(help.find("--format {table,json,csv}"), std::string::npos) << help;
  EXPECT_NE(app_.get_subcommand("run")->help().find("-j, --jobs INT"), std::string::npos);
}

TEST(CompletionHints, ParsesValueSetsAsCli11ShowsThem) {
  EXPECT_EQ(parse_value_set("{a,b, c}"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(parse_value_set("TEXT").empty());
  EXPECT_EQ(short_summary("Run it here: fast"), "Run it here");
  EXPECT_EQ(short_summary("Plain."), "Plain");
  EXPECT_EQ(short_summary("(not in this build: edit app.yaml)"), "not in this build");
}

}  // namespace
}  // namespace merlin::cli
