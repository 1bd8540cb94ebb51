#include "adapters/broker/amqp/amqp_session.h"

#include <algorithm>
#include <thread>

namespace merlin {

Result<void> AmqpSession::connect() {
  if (conn_) return ok();
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + retry_budget_;
  auto pause = std::chrono::milliseconds(50);
  while (true) {
    auto c = AmqpConnection::open(settings_);
    if (c) {
      conn_ = std::move(*c);
      ++generation_;
      return ok();
    }
    if (c.error().code != ErrorCode::kUnavailable || Clock::now() + pause > deadline)
      return c.error();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
}

Result<void> AmqpSession::run(const Op& op) {
  std::lock_guard lock(mu_);
  for (int attempt = 0;; ++attempt) {
    const bool fresh = !conn_;
    if (auto c = connect(); !c) return c;
    auto r = op(*conn_, generation_);
    if (r) return r;
    conn_.reset();
    if (fresh || attempt > 0) return r;
  }
}

Result<bool> AmqpSession::run_on(std::uint64_t generation,
                                 const std::function<Result<void>(AmqpConnection&)>& op) {
  std::lock_guard lock(mu_);
  if (!conn_ || generation_ != generation) return false;
  auto r = op(*conn_);
  if (!r) {
    conn_.reset();
    return r.error();
  }
  return true;
}

bool AmqpSession::keep_alive() {
  std::lock_guard lock(mu_);
  if (!conn_) return false;
  if (!conn_->keep_alive()) {
    conn_.reset();
    return false;
  }
  return conn_->has_pending_frames();
}

}  // namespace merlin
