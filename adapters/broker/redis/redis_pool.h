#pragma once
/// Connections for many threads: `acquire` hands one out (opening a new one when all are busy)
/// and the handle gives it back when it goes out of scope. A worker's slots each hold one
/// while they block in XREADGROUP, so the pool grows to the number of concurrent callers.
/// Thread-safe.
#include <memory>
#include <mutex>
#include <vector>

#include "adapters/broker/redis/redis_connection.h"

namespace merlin {

class RedisPool {
 public:
  explicit RedisPool(RedisSettings settings) : settings_(std::move(settings)) {}

  class Handle {
   public:
    Handle(RedisPool* pool, std::unique_ptr<RedisConnection> c) : pool_(pool), c_(std::move(c)) {}
    Handle(Handle&&) = default;
    ~Handle() {
      if (c_) pool_->give_back(std::move(c_));
    }
    RedisConnection* operator->() { return c_.get(); }
    RedisConnection& operator*() { return *c_; }

   private:
    RedisPool* pool_;
    std::unique_ptr<RedisConnection> c_;
  };

  /// A connection for the caller's exclusive use; kUnavailable if a new one cannot connect.
  Result<Handle> acquire() {
    {
      std::lock_guard lock(mu_);
      if (!free_.empty()) {
        auto c = std::move(free_.back());
        free_.pop_back();
        return Handle(this, std::move(c));
      }
    }
    auto c = RedisConnection::open(settings_);
    if (!c) return c.error();
    return Handle(this, std::move(*c));
  }

  const RedisSettings& settings() const { return settings_; }

 private:
  void give_back(std::unique_ptr<RedisConnection> c) {
    std::lock_guard lock(mu_);
    free_.push_back(std::move(c));
  }

  RedisSettings settings_;
  std::mutex mu_;
  std::vector<std::unique_ptr<RedisConnection>> free_;
};

}  // namespace merlin
