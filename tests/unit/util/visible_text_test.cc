// visible_text: what a message quotes can always be seen, and never cuts the message short.
#include "merlin/core/util/visible_text.h"

#include <gtest/gtest.h>

#include <string>

namespace merlin {
namespace {

TEST(VisibleText, PrintableAsciiIsKept) {
  EXPECT_EQ(visible_text("x; rm -rf ~ 'q' \"d\" $(id)"), "x; rm -rf ~ 'q' \"d\" $(id)");
  EXPECT_EQ(visible_text(""), "");
}

TEST(VisibleText, NulAndControlCharactersAreEscaped) {
  using namespace std::string_literals;
  EXPECT_EQ(visible_text("2\0"s
                         "3"),
            "2\\x003");
  EXPECT_EQ(visible_text("a\tb\nc\rd\x1b[31m\x7f"), "a\\tb\\nc\\rd\\x1b[31m\\x7f");
  EXPECT_EQ(visible_text("C:\\data"), "C:\\\\data");
}

TEST(VisibleText, ByteOrderMarkAndOtherNonAsciiBytesAreEscaped) {
  EXPECT_EQ(visible_text("\xEF\xBB\xBF"
                         "X0"),
            "\\xef\\xbb\\xbfX0");
  EXPECT_EQ(visible_text("caf\xC3\xA9"), "caf\\xc3\\xa9");
}

TEST(VisibleText, LongTextIsCutWithItsLength) {
  EXPECT_EQ(visible_text(std::string(10, 'a'), 4), "aaaa... (10 bytes in all)");
  EXPECT_EQ(visible_text("abcd", 4), "abcd");
}

}  // namespace
}  // namespace merlin
