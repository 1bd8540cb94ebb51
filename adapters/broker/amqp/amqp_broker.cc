#include "adapters/broker/amqp/amqp_broker.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <thread>

#include "adapters/broker/amqp/amqp_names.h"
#include "merlin/core/broker/worker_registry.h"
#include "merlin/core/util/log.h"

namespace merlin {
namespace {

std::string random_tag() {
  std::random_device rd;
  std::uniform_int_distribution<std::uint64_t> dist;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(dist(rd)));
  return buf;
}

std::int64_t header(const AmqpMessage& m, const char* name, std::int64_t otherwise) {
  auto it = m.headers.find(name);
  if (it == m.headers.end()) return otherwise;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return otherwise;
  }
}

}  // namespace

AmqpBroker::AmqpBroker(AmqpSettings settings, AmqpBrokerOptions options,
                       std::unique_ptr<ReservationTable> held)
    : options_(std::move(options)),
      session_(std::move(settings), options_.retry_budget),
      held_(std::move(held)),
      id_prefix_(options_.consumer + "." + random_tag() + "."),
      wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

AmqpBroker::~AmqpBroker() {
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

Result<AmqpBroker::Depth> AmqpBroker::declare_pair(AmqpConnection& c, const std::string& study,
                                                   const std::string& queue) {
  const std::string name = amqp_names::task_queue(study, queue);
  Depth out;
  // The delay queue is read first: a message that comes due between the two reads moves from
  // it to the task queue and is then counted in both (an over-count for one read) instead of
  // in neither. (Nothing is published to the pair before both are declared, so a delay queue
  // never dead-letters to a task queue that is not there yet.)
  AmqpQueueOptions delay;
  delay.dead_letter_to = name;
  auto d = c.declare_queue(amqp_names::delay_queue(study, queue), delay);
  if (!d) return d.error();
  out.delayed = *d;
  AmqpQueueOptions task;
  task.max_priority = amqp_names::kMaxPriority;
  auto t = c.declare_queue(name, task);
  if (!t) return t.error();
  out.ready = *t;
  return out;
}

Result<void> AmqpBroker::record(const std::string& queue) {
  {
    std::lock_guard lock(mu_);
    if (recorded_.count(queue)) return ok();
  }
  if (auto a = held_->add_queue(queue); !a) return a;
  std::lock_guard lock(mu_);
  recorded_.insert(queue);
  return ok();
}

Result<void> AmqpBroker::prepare(const std::vector<std::string>& queues) {
  for (const auto& q : queues)
    if (auto r = record(q); !r) return r;
  return session_.run([&](AmqpConnection& c, std::uint64_t gen) -> Result<void> {
    for (const auto& q : queues)
      if (auto d = declare(c, gen, q); !d) return d;
    return ok();
  });
}

Result<void> AmqpBroker::declare(AmqpConnection& c, std::uint64_t generation,
                                 const std::string& queue) {
  {
    std::lock_guard lock(mu_);
    if (declared_on_ != generation) {
      declared_.clear();
      declared_on_ = generation;
    }
    if (declared_.count(queue)) return ok();
  }
  if (auto d = declare_pair(c, options_.study_key, queue); !d) return d.error();
  std::lock_guard lock(mu_);
  if (declared_on_ == generation) declared_.insert(queue);
  return ok();
}

Result<void> AmqpBroker::send(const std::string& queue, const std::vector<std::string>& bodies,
                              const AmqpPublishOptions& options) {
  if (auto r = record(queue); !r) return r;
  const bool delayed = options.expiration_ms.has_value();
  return session_.run([&](AmqpConnection& c, std::uint64_t gen) -> Result<void> {
    if (auto d = declare(c, gen, queue); !d) return d;
    auto p = c.publish(delayed ? amqp_names::delay_queue(options_.study_key, queue)
                               : amqp_names::task_queue(options_.study_key, queue),
                       bodies, options);
    if (c.has_pending_frames()) wake();  // deliveries came in while it waited for confirms
    return p;
  });
}

Result<void> AmqpBroker::publish(const std::string& queue, const std::vector<TaskMessage>& msgs) {
  if (msgs.empty()) return ok();
  std::vector<std::string> bodies;
  AmqpPublishOptions o;
  bodies.reserve(msgs.size());
  o.priorities.reserve(msgs.size());
  for (const auto& m : msgs) {
    bodies.push_back(encode(m));
    o.priorities.push_back(amqp_names::depth_priority(m.hi - m.lo));
  }
  return send(queue, bodies, o);
}

Result<void> AmqpBroker::publish_raw(const std::string& queue, const std::string& text) {
  AmqpPublishOptions o;
  o.priorities = {static_cast<std::uint8_t>(amqp_names::kMaxPriority)};  // served before tasks
  return send(queue, {text}, o);
}

Result<void> AmqpBroker::publish_at(const std::string& queue, const TaskMessage& msg,
                                    Clock::time_point due) {
  AmqpPublishOptions o;
  o.priorities = {amqp_names::depth_priority(msg.hi - msg.lo)};
  o.expiration_ms =
      std::chrono::ceil<std::chrono::milliseconds>(due - Clock::now()).count();
  return send(queue, {encode(msg)}, o);
}

Result<void> AmqpBroker::take_over_expired() {
  {
    std::lock_guard lock(mu_);
    // A quarter of the lease, and of the default dead-after time: dead holders' reservations
    // (the table tells them by heartbeat) are found within that of their death being known.
    const auto every =
        std::max(std::min(options_.lease, kDefaultDeadAfter) / 4, std::chrono::milliseconds(20));
    if (Clock::now() - last_takeover_ < every) return ok();
    last_takeover_ = Clock::now();
  }
  auto expired = held_->take_expired(options_.lease.count(), 100);
  if (!expired) return expired.error();
  for (const auto& [id, r] : *expired) {
    AmqpPublishOptions o;
    if (auto m = decode(r.message)) o.priorities = {amqp_names::depth_priority(m->hi - m->lo)};
    o.headers[amqp_names::kDeliveriesHeader] = r.deliveries;
    o.headers[amqp_names::kRedeliveredHeader] = 1;
    if (auto p = send(r.queue, {r.message}, o); !p) return p;
    if (auto d = held_->drop(id); !d) return d.error();
    log::warn(
        "task taken over queue={} deliveries={}: its worker died (no heartbeat) or did "
        "not renew it within the lease ({} ms)",
        r.queue, r.deliveries, options_.lease.count());
  }
  return ok();
}

Result<std::optional<Delivery>> AmqpBroker::take(const std::string& queue, const AmqpMessage& m,
                                                 std::uint64_t generation) {
  // If the connection that got it is gone, RabbitMQ queued the message again already.
  auto settle = [&](bool requeue, bool is_ack) -> Result<void> {
    auto r = session_.run_on(generation, [&](AmqpConnection& c) {
      return is_ack ? c.ack(m.tag) : c.reject(m.tag, requeue);
    });
    if (!r) return r.error();
    return ok();
  };
  auto msg = decode(m.body);
  if (!msg) {  // not a task message: dropped, so it cannot block the queue
    log::warn("dropped a message that is no task message queue={} bytes={}", queue,
              m.body.size());
    if (auto r = settle(false, false); !r) return r.error();
    return std::optional<Delivery>();
  }
  Delivery d;
  d.queue = queue;
  d.message = *msg;
  d.receipt = id_prefix_ + std::to_string(++seq_);
  d.deliveries = static_cast<std::uint32_t>(header(m, amqp_names::kDeliveriesHeader, 0)) + 1;
  d.redelivered = m.redelivered || header(m, amqp_names::kRedeliveredHeader, 0) != 0;
  auto h = held_->hold(d.receipt, {queue, m.body, d.deliveries, options_.consumer},
                       options_.lease.count());
  if (!h) {
    (void)settle(true, false);  // back to the queue: it is recorded nowhere else
    return h.error();
  }
  d.stop_notices = *h;
  if (auto a = settle(true, true); !a)
    log::warn("ack to RabbitMQ failed after the reservation was recorded queue={}: the "
              "message will be delivered twice (committed once) error=\"{}\"",
              queue, a.error().message);
  return std::optional<Delivery>(std::move(d));
}

Result<void> AmqpBroker::gather(AmqpConnection& c, std::uint64_t generation,
                                const std::vector<std::string>& queues, std::size_t n,
                                bool subscribe, Waiting& w,
                                std::vector<std::pair<std::string, AmqpMessage>>& picked) {
  if (w.on != generation) w.on = 0;  // that connection closed, and its subscriptions with it
  std::vector<AmqpMessage> got;
  auto drain = [&]() -> Result<void> {
    while (true) {
      auto m = c.next(std::chrono::milliseconds(0));
      if (!m) return m.error();
      if (!*m) return ok();
      got.push_back(std::move(**m));
    }
  };
  auto unsubscribe = [&]() -> Result<void> {
    for (const auto& q : queues)
      if (auto x = c.cancel(amqp_names::task_queue(options_.study_key, q)); !x) return x;
    w.on = 0;
    return drain();  // what was pushed before the broker confirmed
  };
  if (w.on) {
    if (auto d = drain(); !d) return d;
  } else {
    for (const auto& q : queues) {
      if (auto d = declare(c, generation, q); !d) return d;
      const std::string name = amqp_names::task_queue(options_.study_key, q);
      while (got.size() < n) {
        auto m = c.get(name);
        if (!m) return m.error();
        if (!*m) break;
        (*m)->queue = name;
        got.push_back(std::move(**m));
      }
    }
    if (got.empty() && subscribe) {  // nothing ready: wait for RabbitMQ to push
      if (auto p = c.prefetch(static_cast<std::uint16_t>(std::min<std::size_t>(n, 1000))); !p)
        return p;
      for (const auto& q : queues)
        if (auto x = c.consume(amqp_names::task_queue(options_.study_key, q)); !x) return x;
      w.on = generation;
      if (auto d = drain(); !d) return d;
    }
  }
  if (w.on && (!got.empty() || !subscribe))
    if (auto u = unsubscribe(); !u) return u;
  for (const auto& q : queues) {
    const std::string name = amqp_names::task_queue(options_.study_key, q);
    for (auto& m : got)
      if (picked.size() < n && !m.queue.empty() && m.queue == name) {
        picked.emplace_back(q, std::move(m));
        m.queue.clear();
      }
  }
  for (const auto& m : got)  // more than asked for, or of a queue not asked for: back
    if (!m.queue.empty())
      if (auto r = c.reject(m.tag, true); !r) return r;
  w.fd = c.socket_fd();
  return ok();
}

void AmqpBroker::wake() {
  if (wake_fd_ >= 0) (void)!::write(wake_fd_, "\1\0\0\0\0\0\0\0", 8);
}

void AmqpBroker::wait_readable(int fd, std::chrono::milliseconds for_) {
  pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  const int n = wake_fd_ >= 0 ? 2 : 1;
  if (::poll(fds, n, static_cast<int>(for_.count())) > 0 && n == 2 && (fds[1].revents & POLLIN)) {
    std::uint64_t v;
    (void)!::read(wake_fd_, &v, sizeof v);
  }
}

Result<std::optional<Delivery>> AmqpBroker::reserve(const std::vector<std::string>& queues,
                                                    std::chrono::milliseconds wait) {
  auto got = reserve_many(queues, 1, wait);
  if (!got) return got.error();
  if (got->empty()) return std::optional<Delivery>();
  return std::optional<Delivery>(std::move(got->front()));
}

Result<std::vector<Delivery>> AmqpBroker::reserve_many(const std::vector<std::string>& queues,
                                                      std::size_t n,
                                                      std::chrono::milliseconds wait) {
  std::vector<Delivery> out;
  if (queues.empty() || n == 0) return out;
  const auto deadline = Clock::now() + wait;
  Waiting w;
  while (true) {
    if (auto t = take_over_expired(); !t) {
      if (w.on)  // leaves no subscription behind to be pushed messages nobody asks for
        (void)session_.run([&](AmqpConnection& c, std::uint64_t gen) -> Result<void> {
          std::vector<std::pair<std::string, AmqpMessage>> none;
          if (auto g = gather(c, gen, queues, 0, false, w, none); !g) return g;
          return ok();
        });
      return t.error();
    }
    const bool more_time = Clock::now() < deadline;
    std::vector<std::pair<std::string, AmqpMessage>> picked;
    std::uint64_t on = 0;
    auto r = session_.run([&](AmqpConnection& c, std::uint64_t gen) -> Result<void> {
      picked.clear();
      on = gen;
      return gather(c, gen, queues, n, more_time, w, picked);
    });
    if (!r) return r.error();  // a failed connection's subscriptions ended with it
    for (std::size_t i = 0; i < picked.size(); ++i) {
      auto d = take(picked[i].first, picked[i].second, on);
      if (!d) {
        // The rest go back to their queues; those taken are reserved and returned.
        (void)session_.run_on(on, [&](AmqpConnection& c) -> Result<void> {
          for (std::size_t k = i + 1; k < picked.size(); ++k)
            if (auto j = c.reject(picked[k].second.tag, true); !j) return j;
          return ok();
        });
        if (out.empty()) return d.error();
        return out;
      }
      if (*d) out.push_back(std::move(**d));
    }
    if (!out.empty()) return out;
    if (!picked.empty()) continue;  // only garbage, dropped: look again at once
    if (!more_time) return out;
    // Subscribed: a push wakes the poll. 50 ms at most, so that expired reservations are
    // looked for, and a push read into the connection by another call is not missed for long.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    wait_readable(w.fd, std::clamp(left, std::chrono::milliseconds(0),
                                   std::chrono::milliseconds(50)));
  }
}

Result<void> AmqpBroker::ack(const Delivery& d) {
  auto r = held_->drop(d.receipt);
  if (!r) return r.error();
  return ok();
}

Result<void> AmqpBroker::release(const Delivery& d) {
  auto h = held_->held(d.receipt);
  if (!h) return h.error();
  if (!*h) return ok();  // acked, or taken over by another worker: it owns the message now
  AmqpPublishOptions o;
  o.priorities = {amqp_names::depth_priority(d.message.hi - d.message.lo)};
  o.headers[amqp_names::kDeliveriesHeader] = d.deliveries - 1;  // it did not run
  if (d.redelivered) o.headers[amqp_names::kRedeliveredHeader] = 1;
  if (auto p = send(d.queue, {encode(d.message)}, o); !p) return p;
  auto r = held_->drop(d.receipt);
  if (!r) return r.error();
  return ok();
}

Result<FinishResult> AmqpBroker::finish(const Delivery& d, const FinishRequest& r,
                                        StateStore& store) {
  if (!held_->commits_progress()) return Broker::finish(d, r, store);
  // Nothing to publish after the commit: it ends the reservation too (one round trip).
  bool follows = false;
  for (const auto& [queue, msgs] : r.follow_ups) follows = follows || !msgs.empty();
  auto c = held_->commit_held(d.receipt, r.instance, r.sample, r.outcome, r.seconds, !follows,
                              r.hold_ack_at_zero);
  if (!c) return c.error();
  FinishResult out;
  if (!*c) {  // taken over by another worker: refused, nothing written
    out.fenced = true;
    return out;
  }
  out.commit = (*c)->commit;
  if (out.commit.newly_done) {
    store.note_commit(r.instance, r.sample, r.outcome, r.seconds);
    for (const auto& [queue, msgs] : r.follow_ups)
      if (auto p = publish(queue, msgs); !p) return p.error();
  }
  if ((*c)->ended) {
    out.acked = true;
    return out;
  }
  if (r.hold_ack_at_zero && out.commit.remaining == 0) return out;
  if (auto a = ack(d); !a) return a.error();
  out.acked = true;
  return out;
}

Result<bool> AmqpBroker::extend_lease(const Delivery& d) {
  // A worker whose slots are all busy makes no other call. What it read is for a reserve
  // waiting on the socket meanwhile: wake it.
  if (session_.keep_alive()) wake();
  return held_->renew(d.receipt, options_.lease.count());
}

Result<std::uint64_t> AmqpBroker::count_pending(AmqpSession& session, const std::string& study,
                                                const std::vector<std::string>& queues,
                                                ReservationTable& held) {
  std::uint64_t n = 0;
  auto r = session.run([&](AmqpConnection& c, std::uint64_t) -> Result<void> {
    n = 0;
    for (const auto& q : queues) {
      auto d = declare_pair(c, study, q);
      if (!d) return d.error();
      n += d->ready + d->delayed;
    }
    return ok();
  });
  if (!r) return r.error();
  auto reserved = held.count();
  if (!reserved) return reserved.error();
  return n + *reserved;
}

Result<std::uint64_t> AmqpBroker::pending(const std::vector<std::string>& queues) {
  return count_pending(session_, options_.study_key, queues, *held_);
}

}  // namespace merlin
