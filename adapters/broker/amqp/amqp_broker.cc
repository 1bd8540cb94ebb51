#include "adapters/broker/amqp/amqp_broker.h"

#include <thread>

namespace merlin {

AmqpBroker::AmqpBroker(AmqpSettings settings, std::string prefix)
    : settings_(std::move(settings)), prefix_(std::move(prefix)) {}

Result<AmqpConnection*> AmqpBroker::connection() {
  if (!conn_) {
    auto c = AmqpConnection::open(settings_);
    if (!c) return c.error();
    conn_ = std::move(*c);
    ++generation_;
  }
  return conn_.get();
}

void AmqpBroker::drop() {
  conn_.reset();
  declared_.clear();
  unacked_.clear();
}

std::optional<std::uint64_t> AmqpBroker::tag_of(const std::string& receipt) const {
  auto colon = receipt.find(':');
  if (!conn_ || colon == std::string::npos ||
      receipt.compare(0, colon, std::to_string(generation_)) != 0)
    return std::nullopt;
  return std::stoull(receipt.substr(colon + 1));
}

Result<void> AmqpBroker::declared(const std::string& name) {
  if (declared_.count(name)) return ok();
  auto c = connection();
  if (!c) return c.error();
  auto d = (*c)->declare_queue(name);
  if (!d) {
    drop();  // a failed channel is not reused
    return d;
  }
  declared_.insert(name);
  return ok();
}

Result<void> AmqpBroker::publish(const std::string& queue, const std::vector<TaskMessage>& msgs) {
  if (msgs.empty()) return ok();
  std::lock_guard lock(mu_);
  const std::string name = queue_name(queue);
  if (auto d = declared(name); !d) return d;
  std::vector<std::string> bodies;
  bodies.reserve(msgs.size());
  for (const auto& m : msgs) bodies.push_back(encode(m));
  auto p = conn_->publish(name, bodies);
  if (!p) drop();
  return p;
}

Result<void> AmqpBroker::publish_at(const std::string& queue, const TaskMessage&,
                                    Clock::time_point) {
  return Error::runtime("RabbitMQ broker: delayed messages (retry_delay) for queue " + queue +
                        " are not in this build yet (issue #11)");
}

Result<std::optional<Delivery>> AmqpBroker::take(const std::string& q) {
  const std::string name = queue_name(q);
  if (auto d = declared(name); !d) return d.error();
  while (true) {
    auto m = conn_->get(name);
    if (!m) {
      drop();
      return m.error();
    }
    if (!m->has_value()) return std::optional<Delivery>();
    auto msg = decode((*m)->body);
    if (!msg) {  // not a task message: dropped
      (void)conn_->reject((*m)->tag, false);
      continue;
    }
    unacked_[q]++;
    Delivery d{q, *msg, std::to_string(generation_) + ":" + std::to_string((*m)->tag),
               (*m)->redelivered};
    auto count = (*m)->headers.find("x-delivery-count");
    if (count != (*m)->headers.end()) d.deliveries = std::stoul(count->second) + 1;
    return std::optional<Delivery>(std::move(d));
  }
}

Result<std::optional<Delivery>> AmqpBroker::reserve(const std::vector<std::string>& queues,
                                                    std::chrono::milliseconds wait) {
  const auto deadline = Clock::now() + wait;
  auto pause = std::chrono::milliseconds(5);
  while (true) {
    {
      std::lock_guard lock(mu_);
      for (const auto& q : queues) {
        auto d = take(q);
        if (!d || d->has_value()) return d;
      }
    }
    if (Clock::now() >= deadline) return std::optional<Delivery>();
    // Polling, backing off to 100 ms: a consumer with prefetch replaces this next.
    std::this_thread::sleep_for(std::min(
        pause, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())));
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
}

Result<void> AmqpBroker::ack(const Delivery& d) {
  std::lock_guard lock(mu_);
  auto tag = tag_of(d.receipt);
  if (!tag) return ok();  // the connection that took it is gone: RabbitMQ redelivers it
  auto a = conn_->ack(*tag);
  if (!a) {
    drop();
    return a;
  }
  if (unacked_[d.queue] > 0) unacked_[d.queue]--;
  return ok();
}

Result<void> AmqpBroker::release(const Delivery& d) {
  std::lock_guard lock(mu_);
  auto tag = tag_of(d.receipt);
  if (!tag) return ok();  // already back in its queue: its connection is gone
  auto r = conn_->reject(*tag, true);
  if (!r) {
    drop();
    return r;
  }
  if (unacked_[d.queue] > 0) unacked_[d.queue]--;
  return ok();
}

Result<std::uint64_t> AmqpBroker::pending(const std::vector<std::string>& queues) {
  std::lock_guard lock(mu_);
  std::uint64_t n = 0;
  for (const auto& q : queues) {
    const std::string name = queue_name(q);
    if (auto d = declared(name); !d) return d.error();
    auto r = conn_->ready(name);
    if (!r) {
      drop();
      return r.error();
    }
    n += *r + unacked_[q];
  }
  return n;
}

}  // namespace merlin
