// Task messages: "v1 <instance> <lo> <hi> <attempt> <kind> <gated>", and nothing else decodes.
#include "merlin/core/broker/task_message.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace merlin {
namespace {

TEST(TaskMessage, EncodesAsVersionedSpaceSeparatedFields) {
  TaskMessage m;
  m.instance = InstanceId{3};
  m.lo = 25;
  m.hi = 50;
  m.attempt = 2;
  m.kind = TaskKind::kRestart;
  m.gated = true;
  EXPECT_EQ(encode(m), "v1 3 25 50 2 1 1");
  EXPECT_EQ(encode(TaskMessage{}), "v1 0 0 1 0 0 0");
}

TEST(TaskMessage, DecodeOfEncodeGivesTheSameMessage) {
  std::vector<TaskMessage> cases(4);
  cases[1].instance = InstanceId{7};
  cases[1].lo = 999999;
  cases[1].hi = 1000000;
  cases[2].instance = InstanceId{std::numeric_limits<std::uint32_t>::max()};
  cases[2].lo = 0;
  cases[2].hi = std::numeric_limits<std::uint64_t>::max();
  cases[2].attempt = std::numeric_limits<std::uint32_t>::max();
  cases[3].kind = TaskKind::kRestart;
  cases[3].gated = true;
  cases[3].attempt = 30;
  for (const auto& m : cases) {
    auto back = decode(encode(m));
    ASSERT_TRUE(back.has_value()) << encode(m);
    EXPECT_EQ(*back, m) << encode(m);
  }
}

TEST(TaskMessage, IsLeafOnlyForOneSample) {
  TaskMessage m;
  m.lo = 4;
  m.hi = 5;
  EXPECT_TRUE(m.is_leaf());
  m.hi = 6;
  EXPECT_FALSE(m.is_leaf());
}

TEST(TaskMessage, GarbageIsRejected) {
  for (const char* text :
       {"", "v1", "v1 ", "hello", "v1 a b c d e f", "v1 0 0 1 0 0", "v1 0 0 1 0 0 0 ",
        " v1 0 0 1 0 0 0", "v1 0 0 1 0 0 0 7", "v1  0 0 1 0 0 0", "v1 -1 0 1 0 0 0",
        "v1 +1 0 1 0 0 0", "v1 0 0 1 0 0 0\n", "v1 0x1 0 1 0 0 0"}) {
    EXPECT_FALSE(decode(text).has_value()) << "'" << text << "'";
  }
}

TEST(TaskMessage, OtherVersionsAreRejected) {
  EXPECT_FALSE(decode("v2 0 0 1 0 0 0").has_value());
  EXPECT_FALSE(decode("v0 0 0 1 0 0 0").has_value());
  EXPECT_FALSE(decode("V1 0 0 1 0 0 0").has_value());
}

TEST(TaskMessage, OutOfRangeFieldsAreRejected) {
  EXPECT_FALSE(decode("v1 0 5 5 0 0 0").has_value()) << "empty range";
  EXPECT_FALSE(decode("v1 0 6 5 0 0 0").has_value()) << "reversed range";
  EXPECT_FALSE(decode("v1 0 0 1 0 2 0").has_value()) << "unknown kind";
  EXPECT_FALSE(decode("v1 0 0 1 0 0 2").has_value()) << "gated is 0 or 1";
  EXPECT_FALSE(decode("v1 4294967296 0 1 0 0 0").has_value()) << "instance > 32 bits";
  EXPECT_FALSE(decode("v1 0 0 1 4294967296 0 0").has_value()) << "attempt > 32 bits";
  EXPECT_FALSE(decode("v1 0 0 18446744073709551616 0 0 0").has_value()) << "hi > 64 bits";
}

}  // namespace
}  // namespace merlin
