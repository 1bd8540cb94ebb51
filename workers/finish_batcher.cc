#include "workers/finish_batcher.h"

#include <algorithm>
#include <vector>

namespace merlin {

FinishBatcher::FinishBatcher(Broker& broker, StateStore& store)
    : broker_(broker),
      store_(store),
      limit_(std::max<std::size_t>(1, broker.finish_batch_limit())) {}

Result<FinishResult> FinishBatcher::finish(const Delivery& d, const FinishRequest& r) {
  if (limit_ == 1) return broker_.finish(d, r, store_);
  Waiting me{{&d, &r}};
  std::unique_lock lock(mu_);
  queue_.push_back(&me);
  while (!me.done) {
    if (sending_) {
      cv_.wait(lock);
      continue;
    }
    // Nobody is sending: this slot sends what is queued, its own leaf among the first
    // `limit_` or not (then it goes round again).
    sending_ = true;
    std::vector<Waiting*> batch;
    while (!queue_.empty() && batch.size() < limit_) {
      batch.push_back(queue_.front());
      queue_.pop_front();
    }
    lock.unlock();
    std::vector<Broker::Finishing> items;
    items.reserve(batch.size());
    for (const auto* w : batch) items.push_back(w->item);
    auto results = broker_.finish_many(items, store_);
    lock.lock();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      batch[i]->result = i < results.size() ? std::move(results[i])
                                            : Result<FinishResult>(Error::runtime(
                                                  "broker answered fewer finishes than sent"));
      batch[i]->done = true;
    }
    counts_.calls++;
    counts_.leaves += batch.size();
    sending_ = false;
    cv_.notify_all();
  }
  return std::move(me.result);
}

FinishBatcher::Counts FinishBatcher::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

std::size_t FinishBatcher::waiting() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

}  // namespace merlin
