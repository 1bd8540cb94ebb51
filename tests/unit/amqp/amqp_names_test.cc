// The priority a task message is queued with on RabbitMQ (amqp_names::depth_priority): single
// samples first, narrower ranges before wider ones, within the ten levels the queues have.
#include "adapters/broker/amqp/amqp_names.h"

#include <gtest/gtest.h>

namespace merlin::testing {
namespace {

TEST(AmqpDepthPriority, SingleSamplesFirstThenNarrowerRangesWithinTenLevels) {
  EXPECT_EQ(amqp_names::depth_priority(1), amqp_names::kMaxPriority);
  EXPECT_LE(amqp_names::kMaxPriority, 10) << "RabbitMQ advises at most 10 levels";
  int last = amqp_names::kMaxPriority;
  for (std::uint64_t w = 2; w != 0 && w < (1ull << 40); w = w * 3 / 2 + 1) {
    const int p = amqp_names::depth_priority(w);
    EXPECT_GE(p, 1) << "width " << w;
    EXPECT_LT(p, amqp_names::kMaxPriority) << "a range after every single sample: width " << w;
    EXPECT_LE(p, last) << "never before a narrower range: width " << w;
    last = p;
  }
  // A factor of 8 in width is one level, up to 2^27 samples.
  EXPECT_EQ(amqp_names::depth_priority(8), amqp_names::depth_priority(2));
  EXPECT_EQ(amqp_names::depth_priority(9), amqp_names::depth_priority(8) - 1);
  EXPECT_EQ(amqp_names::depth_priority(1ull << 27), 1);
  EXPECT_EQ(amqp_names::depth_priority((1ull << 24) + 1), 1);
  EXPECT_EQ(amqp_names::depth_priority(1ull << 24), 2);
  EXPECT_EQ(amqp_names::depth_priority(~0ull), 1);
}

}  // namespace
}  // namespace merlin::testing
