// Progress lines for people: paced, with counts, rate and ETA; rewritten in place on a
// terminal, one line per period in a log.
#include "merlin/run/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace merlin::run {
namespace {

using namespace std::chrono_literals;

struct FakeClock {
  Progress::Clock::time_point t{};
  Progress::Now now() {
    return [this] { return t; };
  }
};

TEST(Progress, ALogGetsALinePerPeriodWithRateAndEta) {
  FakeClock clock;
  std::vector<std::string> lines;
  auto p = log_progress(
      "study=s1 ", [&](const std::string& l) { lines.push_back(l); }, 10s, clock.now());
  clock.t += 5s;
  EXPECT_FALSE(p->due());
  p->update(50, 1000);
  EXPECT_TRUE(lines.empty()) << "not due before its period";
  clock.t += 5s;
  EXPECT_TRUE(p->due());
  p->update(100, 1000);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "study=s1 100/1000 tasks (10.0%)  10.0/s  ETA 1m30s");
  p->update(101, 1000);
  EXPECT_EQ(lines.size(), 1u) << "the next line waits a period again";
  p->finish();
  EXPECT_EQ(lines.size(), 1u);
}

TEST(Progress, ATerminalLineIsRewrittenInPlaceAndEndedOnce) {
  FakeClock clock;
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  auto p = terminal_progress("laying out ", f, 500ms, clock.now());
  clock.t += 1s;
  p->update(10, 20);
  clock.t += 1s;
  p->update(20, 20);
  p->finish();
  p->finish();
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  EXPECT_EQ(text,
            "\rlaying out 10/20 tasks (50.0%)  10.0/s  ETA 1s   "
            "\rlaying out 20/20 tasks (100.0%)  10.0/s  ETA --   \n");
}

TEST(Progress, NothingShownNothingToEnd) {
  std::FILE* f = std::tmpfile();
  auto p = terminal_progress("x ", f, 1s);
  p->finish();
  EXPECT_EQ(std::ftell(f), 0L);
  std::fclose(f);
}

}  // namespace
}  // namespace merlin::run
