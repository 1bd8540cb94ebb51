#include "adapters/broker/local/local_broker.h"

#include <algorithm>

namespace merlin {

LocalBroker::LocalBroker(Now now) : now_(std::move(now)) {}

Result<void> LocalBroker::publish(const std::string& queue, const std::vector<TaskMessage>& msgs) {
  if (msgs.empty()) return ok();
  {
    std::lock_guard lock(mu_);
    auto& q = queues_[queue];
    // Newest first, LIFO-ish: splitting a wide range pushes its children to the front so the
    // study proceeds depth-first and the queue stays O(levels × L) instead of O(samples).
    for (auto it = msgs.rbegin(); it != msgs.rend(); ++it) q.push_front(*it);
  }
  if (msgs.size() == 1)
    cv_.notify_one();
  else
    cv_.notify_all();
  return ok();
}

Result<void> LocalBroker::publish_at(const std::string& queue, const TaskMessage& msg,
                                     Clock::time_point due) {
  {
    std::lock_guard lock(mu_);
    delayed_.push({due, seq_++, queue, msg});
  }
  cv_.notify_all();
  return ok();
}

void LocalBroker::move_due_locked(Clock::time_point now) {
  while (!delayed_.empty() && delayed_.top().due <= now) {
    auto d = delayed_.top();
    delayed_.pop();
    queues_[d.queue].push_back(d.msg);
  }
}

std::optional<Delivery> LocalBroker::take_locked(const std::vector<std::string>& queues) {
  for (const auto& name : queues) {
    auto it = queues_.find(name);
    if (it == queues_.end() || it->second.empty()) continue;
    Delivery d{name, it->second.front(), std::to_string(seq_)};
    it->second.pop_front();
    reserved_.emplace(seq_++, d);
    return d;
  }
  return std::nullopt;
}

Result<std::optional<Delivery>> LocalBroker::reserve(const std::vector<std::string>& queues,
                                                     std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  auto deadline = Clock::now() + wait;
  while (true) {
    move_due_locked(now_());
    if (auto d = take_locked(queues)) return d;
    auto real_now = Clock::now();
    if (real_now >= deadline) return std::optional<Delivery>();
    auto until = deadline;
    if (!delayed_.empty()) until = std::min(until, real_now + (delayed_.top().due - now_()));
    cv_.wait_until(lock, until);
  }
}

Result<void> LocalBroker::ack(const Delivery& d) {
  std::lock_guard lock(mu_);
  reserved_.erase(std::stoull(d.receipt));
  cv_.notify_all();  // a waiter may be deciding whether the study is finished
  return ok();
}

Result<void> LocalBroker::release(const Delivery& d) {
  {
    std::lock_guard lock(mu_);
    if (reserved_.erase(std::stoull(d.receipt)) == 0) return ok();
    queues_[d.queue].push_front(d.message);
  }
  cv_.notify_one();
  return ok();
}

Result<std::uint64_t> LocalBroker::pending(const std::vector<std::string>& queues) {
  std::lock_guard lock(mu_);
  auto wanted = [&](const std::string& q) {
    return std::find(queues.begin(), queues.end(), q) != queues.end();
  };
  std::uint64_t n = reserved_.size();
  auto delayed = delayed_;
  for (; !delayed.empty(); delayed.pop()) n += wanted(delayed.top().queue) ? 1 : 0;
  for (const auto& [name, q] : queues_) n += wanted(name) ? q.size() : 0;
  return n;
}

std::uint64_t LocalBroker::purge(const std::vector<std::string>& queues) {
  std::lock_guard lock(mu_);
  auto wanted = [&](const std::string& q) {
    return queues.empty() || std::find(queues.begin(), queues.end(), q) != queues.end();
  };
  std::uint64_t n = 0;
  for (auto& [name, q] : queues_)
    if (wanted(name)) {
      n += q.size();
      q.clear();
    }
  decltype(delayed_) kept;
  for (; !delayed_.empty(); delayed_.pop()) {
    if (wanted(delayed_.top().queue))
      ++n;
    else
      kept.push(delayed_.top());
  }
  delayed_ = std::move(kept);
  for (auto it = reserved_.begin(); it != reserved_.end();) {
    if (wanted(it->second.queue)) {
      it = reserved_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  cv_.notify_all();  // a waiter may be deciding whether the study is finished
  return n;
}

std::map<std::string, std::uint64_t> LocalBroker::depths() {
  std::lock_guard lock(mu_);
  std::map<std::string, std::uint64_t> out;
  for (const auto& [name, q] : queues_) out[name] = q.size();
  return out;
}

std::uint64_t LocalBroker::reserved() {
  std::lock_guard lock(mu_);
  return reserved_.size();
}

void LocalBroker::wake_all() { cv_.notify_all(); }

}  // namespace merlin
