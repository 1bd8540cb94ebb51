// random_secret: the passwords of `merlin server` and the tokens of `merlin monitor --web`.
#include "merlin/core/util/secret.h"

#include <gtest/gtest.h>

#include <string>

namespace merlin {
namespace {

TEST(RandomSecret, SixtyFourHexDigitsAndNeverTheSameTwice) {
  auto a = random_secret(), b = random_secret();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 64u);
  EXPECT_EQ(a->find_first_not_of("0123456789abcdef"), std::string::npos) << *a;
  EXPECT_NE(*a, *b);
}

}  // namespace
}  // namespace merlin
