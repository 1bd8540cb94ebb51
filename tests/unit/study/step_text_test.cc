// A step's text as Merlin 1.13 reads it back from its expanded spec (observed in its dry-run
// scripts of its own examples: one-line commands end the script with one newline, blocks of
// several lines with an empty line).
#include "merlin/core/study/step_text.h"

#include <gtest/gtest.h>

namespace merlin {
namespace {

TEST(StepText, OneLineLosesItsNewlineAndSurroundingBlanks) {
  EXPECT_EQ(merlin_step_text("echo data > data.out\n"), "echo data > data.out");
  EXPECT_EQ(merlin_step_text("  python3 run.py -x 1 \t\n"), "python3 run.py -x 1");
  EXPECT_EQ(merlin_step_text("echo a"), "echo a");
  EXPECT_EQ(merlin_step_text(""), "");
  EXPECT_EQ(merlin_step_text(" \n"), "");
}

TEST(StepText, SeveralLinesEndWithExactlyOneNewline) {
  EXPECT_EQ(merlin_step_text("a\nb\n"), "a\nb\n");
  EXPECT_EQ(merlin_step_text("a\nb"), "a\nb\n") << "a `|-` block is read back as `|`";
  EXPECT_EQ(merlin_step_text("a\nb\n\n\n"), "a\nb\n") << "trailing empty lines dropped";
  EXPECT_EQ(merlin_step_text("a \n\n  b  \n"), "a \n\n  b  \n") << "inner text kept as is";
}

TEST(StepText, TheRoundTripIsStable) {
  for (const char* t : {"x\n", "a\nb\n", "a\nb", " y ", "\n\na\n"})
    EXPECT_EQ(merlin_step_text(merlin_step_text(t)), merlin_step_text(t)) << t;
}

// Merlin's spec loader puts the counts $(VLAUNCHER) reads in front of the command (its
// integration suite greps MERLIN_GPUS=1 in the script of a flux step with `gpus: 1`).
TEST(StepText, VlauncherCommandGetsTheStepsCountsInFront) {
  VlauncherCounts c{"6", "3", "2", "1"};
  EXPECT_EQ(
      with_vlauncher_lines("$(VLAUNCHER) echo hi\n", c, "/bin/bash"),
      "MERLIN_GPUS=1\nMERLIN_CORES=2\nMERLIN_PROCS=3\nMERLIN_NODES=6\n$(VLAUNCHER) echo hi\n");
  EXPECT_EQ(with_vlauncher_lines("$(VLAUNCHER) x", {}, "/bin/bash"),
            "MERLIN_GPUS=0\nMERLIN_CORES=1\nMERLIN_PROCS=1\nMERLIN_NODES=1\n$(VLAUNCHER) x")
      << "defaults 0 GPUs, 1 of the rest";
  EXPECT_EQ(with_vlauncher_lines("$(VLAUNCHER) x", {}, "/bin/tcsh").substr(0, 18),
            "set MERLIN_GPUS=0\n");
  EXPECT_EQ(with_vlauncher_lines("$(LAUNCHER) x\n", c, "/bin/bash"), "$(LAUNCHER) x\n");
}

TEST(StepText, CountsTheCommandSetsItselfAreNotRepeated) {
  EXPECT_EQ(with_vlauncher_lines("MERLIN_NODES=6\nMERLIN_PROCS=3\n$(VLAUNCHER) x", {}, "sh"),
            "MERLIN_GPUS=0\nMERLIN_CORES=1\nMERLIN_NODES=6\nMERLIN_PROCS=3\n$(VLAUNCHER) x");
  EXPECT_EQ(
      with_vlauncher_lines("#MERLIN_NODES=6\n$(VLAUNCHER) x", {}, "sh").find("\nMERLIN_NODES=1"),
      std::string("MERLIN_GPUS=0\nMERLIN_CORES=1\nMERLIN_PROCS=1").size())
      << "a commented line does not count";
  EXPECT_NE(
      with_vlauncher_lines("MERLIN_NODES=$N\n$(VLAUNCHER) x", {}, "sh").find("MERLIN_NODES=1"),
      std::string::npos)
      << "only digits count as a setting";
}

}  // namespace
}  // namespace merlin
