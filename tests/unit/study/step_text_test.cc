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

}  // namespace
}  // namespace merlin
