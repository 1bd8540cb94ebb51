#pragma once
/// RabbitMQ queue names of a study, in one place: its task queues and, beside each, the delay
/// queue whose expired messages dead-letter back into it. Every name starts "merlin.<study>.",
/// so studies never share a queue.
#include <algorithm>
#include <cstdint>
#include <string>

namespace merlin::amqp_names {

inline std::string task_queue(const std::string& study, const std::string& queue) {
  return "merlin." + study + ".q." + queue;
}
inline std::string delay_queue(const std::string& study, const std::string& queue) {
  return "merlin." + study + ".d." + queue;
}

/// Depth-first splitting: task queues serve narrower messages first, single samples before
/// any range, so a hierarchical study's queue holds O(levels × level_max_dirs) messages, not
/// a breadth-first frontier. Priority = kMaxPriority for a single sample, then one less per
/// factor of 8 in a range's width (ceil(log2) / 3, rounded up), at least 1: ranges up to 2^27
/// samples wide get levels of their own. Ten levels, not one per doubling: RabbitMQ keeps a
/// queue per priority level and visits them on every get, so that each level costs CPU per
/// message (with 10 levels instead of 40, RabbitMQ's CPU per task fell 7-25% in 6 of 7
/// alternating runs of tests/bench/redis_load_bench.sh LOAD_BROKER=rabbitmq; RabbitMQ's own
/// advice is at most 10).
inline constexpr int kMaxPriority = 10;
inline std::uint8_t depth_priority(std::uint64_t width) {
  if (width <= 1) return kMaxPriority;
  const int bits = 64 - __builtin_clzll(width - 1);  // ceil(log2(width)), 1..64
  return static_cast<std::uint8_t>(std::max(1, kMaxPriority - (bits + 2) / 3));
}

/// Headers a message carries when merlin queues it again: deliveries so far, and whether a
/// worker may have run it (a reservation taken over).
inline constexpr const char* kDeliveriesHeader = "x-merlin-deliveries";
inline constexpr const char* kRedeliveredHeader = "x-merlin-redelivered";

}  // namespace merlin::amqp_names
