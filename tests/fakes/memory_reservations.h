#pragma once
/// An in-memory ReservationTable for unit tests of brokers that keep their reservations beside
/// the progress (AmqpBroker): this process's steady clock stands in for the server's.
#include <chrono>
#include <map>
#include <mutex>
#include <set>

#include "merlin/core/broker/reservations.h"

namespace merlin::testing {

class MemoryReservations : public ReservationTable {
 public:
  Result<std::uint64_t> hold(const std::string& id, const Reservation& r,
                             std::int64_t lease_ms) override {
    std::lock_guard lock(mu_);
    held_[id] = {r, now() + lease_ms};
    return stops;
  }
  Result<bool> renew(const std::string& id, std::int64_t lease_ms) override {
    std::lock_guard lock(mu_);
    auto it = held_.find(id);
    if (it == held_.end()) return false;
    it->second.until = now() + lease_ms;
    return true;
  }
  Result<bool> drop(const std::string& id) override {
    std::lock_guard lock(mu_);
    return held_.erase(id) == 1;
  }
  Result<bool> held(const std::string& id) override {
    std::lock_guard lock(mu_);
    return held_.count(id) == 1;
  }
  Result<std::vector<std::pair<std::string, Reservation>>> take_expired(std::int64_t lease_ms,
                                                                        std::size_t max) override {
    std::lock_guard lock(mu_);
    std::vector<std::pair<std::string, Reservation>> out;
    for (auto& [id, e] : held_) {
      if (out.size() >= max) break;
      if (e.until > now()) continue;
      e.until = now() + lease_ms;
      out.emplace_back(id, e.r);
    }
    return out;
  }
  Result<std::vector<std::pair<std::string, Reservation>>> all() override {
    std::lock_guard lock(mu_);
    std::vector<std::pair<std::string, Reservation>> out;
    for (const auto& [id, e] : held_) out.emplace_back(id, e.r);
    return out;
  }
  Result<std::uint64_t> count() override {
    std::lock_guard lock(mu_);
    return held_.size();
  }
  Result<void> add_queue(const std::string& queue) override {
    std::lock_guard lock(mu_);
    queues_.insert(queue);
    return ok();
  }
  Result<std::vector<std::string>> queues() override {
    std::lock_guard lock(mu_);
    return std::vector<std::string>(queues_.begin(), queues_.end());
  }

  std::uint64_t stops = 0;  ///< what hold reports as the stop count

 private:
  static std::int64_t now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  struct Entry {
    Reservation r;
    std::int64_t until = 0;
  };
  std::mutex mu_;
  std::map<std::string, Entry> held_;
  std::set<std::string> queues_;
};

}  // namespace merlin::testing
