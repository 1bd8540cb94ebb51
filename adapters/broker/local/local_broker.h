#pragma once
/// The in-process broker of `merlin run --local`: LIFO queues (a batch published together is
/// taken in its own order, before older messages: split children and a sample's next step go
/// depth-first, which keeps the queue small and finishes samples early), a delayed set ordered
/// by due time (due messages join the back), and reserved messages held until ack; a released
/// message goes back to the front. Thread-safe. The clock is injected for tests.
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <queue>
#include <set>

#include "merlin/core/broker/broker.h"

namespace merlin {

class LocalBroker : public Broker {
 public:
  using Now = std::function<Clock::time_point()>;
  explicit LocalBroker(Now now = [] { return Clock::now(); });

  Result<void> publish(const std::string& queue, const std::vector<TaskMessage>& msgs) override;
  Result<void> publish_at(const std::string& queue, const TaskMessage& msg,
                          Clock::time_point due) override;
  Result<std::optional<Delivery>> reserve(const std::vector<std::string>& queues,
                                          std::chrono::milliseconds wait) override;
  Result<void> ack(const Delivery& d) override;
  Result<void> release(const Delivery& d) override;
  Result<std::uint64_t> pending(const std::vector<std::string>& queues) override;

  /// Messages waiting per queue (not reserved, not delayed).
  std::map<std::string, std::uint64_t> depths();
  std::uint64_t reserved();
  /// Wakes every waiting `reserve` (used when stopping).
  void wake_all();
  /// Removes the messages of `queues` (of every queue when empty): waiting, delayed and
  /// reserved (a later ack or release of a removed one does nothing); returns how many. What a
  /// server's purge does (StudyRegistry::purge_queues), for an in-process study.
  std::uint64_t purge(const std::vector<std::string>& queues);

 private:
  struct Delayed {
    Clock::time_point due;
    std::uint64_t seq;
    std::string queue;
    TaskMessage msg;
    bool operator>(const Delayed& o) const { return due != o.due ? due > o.due : seq > o.seq; }
  };
  void move_due_locked(Clock::time_point now);
  std::optional<Delivery> take_locked(const std::vector<std::string>& queues);

  Now now_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::deque<TaskMessage>> queues_;
  std::priority_queue<Delayed, std::vector<Delayed>, std::greater<>> delayed_;
  std::map<std::uint64_t, Delivery> reserved_;
  std::uint64_t seq_ = 0;
};

}  // namespace merlin
