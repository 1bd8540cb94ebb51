#pragma once
/// RabbitMQ queue names of a study, in one place: its task queues and, beside each, the delay
/// queue whose expired messages dead-letter back into it. Every name starts "merlin.<study>.",
/// so studies never share a queue.
#include <string>

namespace merlin::amqp_names {

inline std::string task_queue(const std::string& study, const std::string& queue) {
  return "merlin." + study + ".q." + queue;
}
inline std::string delay_queue(const std::string& study, const std::string& queue) {
  return "merlin." + study + ".d." + queue;
}

/// Headers a message carries when merlin queues it again: deliveries so far, and whether a
/// worker may have run it (a reservation taken over).
inline constexpr const char* kDeliveriesHeader = "x-merlin-deliveries";
inline constexpr const char* kRedeliveredHeader = "x-merlin-redelivered";

}  // namespace merlin::amqp_names
