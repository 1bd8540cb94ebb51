#pragma once
/// Group commit of a worker's slots: a slot that finishes a leaf while another slot's
/// Broker::finish_many call is under way queues its leaf; when that call returns, one of the
/// waiting slots sends every leaf queued meanwhile (up to the broker's finish_batch_limit) in
/// the next call and hands each slot its own result. Nothing waits for a batch to fill: a slot
/// alone is sent at once, so a worker of one slot pays what a plain `finish` costs. With a
/// limit of 1 (brokers that gain nothing from batches) each slot calls Broker::finish itself.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>

#include "merlin/core/broker/broker.h"

namespace merlin {

class FinishBatcher {
 public:
  FinishBatcher(Broker& broker, StateStore& store);
  /// Broker::finish(d, r, store), possibly in one call with other slots' leaves. Blocks until
  /// this leaf's result is known. Thread-safe.
  Result<FinishResult> finish(const Delivery& d, const FinishRequest& r);

  /// Calls made and leaves sent through finish_many so far.
  struct Counts {
    std::size_t calls = 0;
    std::size_t leaves = 0;
  };
  Counts counts() const;
  /// Leaves queued for the next call now (not yet sent).
  std::size_t waiting() const;

 private:
  struct Waiting {
    Broker::Finishing item;
    Result<FinishResult> result = Error::runtime("not finished");
    bool done = false;
  };
  Broker& broker_;
  StateStore& store_;
  const std::size_t limit_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Waiting*> queue_;  ///< guarded by mu_
  bool sending_ = false;        ///< a slot is in finish_many; guarded by mu_
  Counts counts_;               ///< guarded by mu_
};

}  // namespace merlin
