// CLI11's parse errors in merlin's words: the nearest command or option, in the order typed.
#include "merlin/cli/parse_errors.h"

#include <gtest/gtest.h>

namespace merlin::cli {
namespace {

TEST(ParseErrors, AMisspeltCommandGetsTheNearestOne) {
  EXPECT_EQ(unknown_command_message("rnu", {"run", "restart", "status"}),
            "unknown command 'rnu' (did you mean 'run'?); `merlin --help` lists the commands");
  EXPECT_EQ(unknown_command_message("zzzz", {"run"}),
            "unknown command 'zzzz'; `merlin --help` lists the commands");
}

TEST(ParseErrors, AMisspeltOptionGetsTheNearestOneOfItsCommand) {
  EXPECT_EQ(unexpected_arguments_message("run", {"--lcoal"}, {"--local", "--dry", "-j"}),
            "run: unknown option '--lcoal' (did you mean '--local'?); `merlin run --help` lists "
            "the options");
  EXPECT_EQ(unexpected_arguments_message("run", {"--lcoal=1"}, {"--local"}).substr(0, 30),
            "run: unknown option '--lcoal' ")
      << "an option's value is not part of its name";
  EXPECT_EQ(unexpected_arguments_message("", {"--bogus"}, {"--level"}),
            "unknown option '--bogus'; `merlin --help` lists the options");
}

TEST(ParseErrors, SeveralUnexpectedWordsAreNamedOnOneLine) {
  EXPECT_EQ(
      unexpected_arguments_message("server config", {"--add-user", "bob", "pw"}, {"--add-user-x"}),
      "server config: unknown option '--add-user' (did you mean '--add-user-x'?), "
      "unexpected argument 'bob', unexpected argument 'pw'; `merlin server config --help` "
      "lists the options");
}

}  // namespace
}  // namespace merlin::cli
