// FinishBatcher: slots finishing while another slot's call is under way go in the next call
// together; each gets its own result; a broker that takes one at a time is called per slot.
#include "workers/finish_batcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "adapters/broker/local/local_state_store.h"

namespace merlin::testing {
namespace {

// finish_many answers each leaf with its sample as the remaining count (so a result can be
// told apart), records the batch sizes, and holds its first call until `release` (so that the
// other slots queue up behind it).
class BatchingBroker : public Broker {
 public:
  explicit BatchingBroker(std::size_t limit) : limit_(limit) {}
  Result<void> publish(const std::string&, const std::vector<TaskMessage>&) override {
    return ok();
  }
  Result<void> publish_at(const std::string&, const TaskMessage&, Clock::time_point) override {
    return ok();
  }
  Result<std::optional<Delivery>> reserve(const std::vector<std::string>&,
                                          std::chrono::milliseconds) override {
    return std::optional<Delivery>();
  }
  Result<void> ack(const Delivery&) override { return ok(); }
  Result<void> release(const Delivery&) override { return ok(); }
  Result<std::uint64_t> pending(const std::vector<std::string>&) override { return 0ull; }
  Result<FinishResult> finish(const Delivery&, const FinishRequest& r, StateStore&) override {
    std::lock_guard lock(mu_);
    singles_++;
    FinishResult f;
    f.commit.remaining = r.sample;
    return f;
  }
  std::vector<Result<FinishResult>> finish_many(const std::vector<Finishing>& items,
                                                StateStore&) override {
    {
      std::unique_lock lock(mu_);
      batches_.push_back(items.size());
      in_first_ = batches_.size() == 1;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_ || batches_.size() > 1; });
    }
    std::vector<Result<FinishResult>> out;
    for (const auto& i : items) {
      if (i.request->sample == 13) {
        out.push_back(Error::runtime("sample 13 refused"));
        continue;
      }
      FinishResult f;
      f.commit.remaining = i.request->sample;
      out.push_back(f);
    }
    return out;
  }
  std::size_t finish_batch_limit() const override { return limit_; }

  void wait_first_call() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return in_first_; });
  }
  void release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  std::vector<std::size_t> batches() {
    std::lock_guard lock(mu_);
    return batches_;
  }
  int singles() {
    std::lock_guard lock(mu_);
    return singles_;
  }

 private:
  const std::size_t limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::size_t> batches_;
  bool in_first_ = false, released_ = false;
  int singles_ = 0;
};

struct Slot {
  Delivery d;
  FinishRequest r;
  Result<FinishResult> got = Error::runtime("not run");
};

// Slot 0 finishes alone and its call is held; the other slots finish meanwhile and queue
// behind it; then the call is let go and every slot's finish returns. Samples from `first`.
// False when the others never all queued up.
bool finish_behind_a_held_call(BatchingBroker& broker, FinishBatcher& batcher,
                               std::vector<Slot>& slots, SampleId first) {
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i].r.sample = first + i;
  std::thread held([&] { slots[0].got = batcher.finish(slots[0].d, slots[0].r); });
  broker.wait_first_call();  // slot 0 alone is sent at once, and held there
  std::vector<std::thread> rest;
  for (std::size_t i = 1; i < slots.size(); ++i)
    rest.emplace_back([&, i] { slots[i].got = batcher.finish(slots[i].d, slots[i].r); });
  // None can finish while the first is held: watch the queue fill.
  for (int spin = 0; spin < 2000 && batcher.waiting() < slots.size() - 1; ++spin)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const bool queued = batcher.waiting() == slots.size() - 1;
  broker.release();
  held.join();
  for (auto& t : rest) t.join();
  return queued;
}

TEST(FinishBatcher, SlotsThatFinishDuringACallGoTogetherInTheNextOne) {
  BatchingBroker broker(64);
  LocalStateStore store({100});
  FinishBatcher batcher(broker, store);
  std::vector<Slot> slots(9);
  ASSERT_TRUE(finish_behind_a_held_call(broker, batcher, slots, 10)) << "eight queued";
  EXPECT_EQ(broker.batches(), (std::vector<std::size_t>{1, 8})) << "one call for the eight";
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].r.sample == 13) {
      ASSERT_FALSE(slots[i].got.ok()) << "its own error, not its neighbours'";
      EXPECT_EQ(slots[i].got.error().message, "sample 13 refused");
      continue;
    }
    ASSERT_TRUE(slots[i].got.ok()) << i;
    EXPECT_EQ(slots[i].got->commit.remaining, slots[i].r.sample) << "each slot gets its own result";
  }
  EXPECT_EQ(batcher.counts().calls, 2u);
  EXPECT_EQ(batcher.counts().leaves, 9u);
}

TEST(FinishBatcher, ACallCarriesNoMoreThanTheBrokersLimit) {
  BatchingBroker broker(3);
  LocalStateStore store({100});
  FinishBatcher batcher(broker, store);
  std::vector<Slot> slots(8);
  ASSERT_TRUE(finish_behind_a_held_call(broker, batcher, slots, 20)) << "seven queued";
  auto batches = broker.batches();
  std::size_t sum = 0;
  for (auto n : batches) {
    EXPECT_LE(n, 3u);
    sum += n;
  }
  EXPECT_EQ(sum, 8u) << "every leaf sent once";
  EXPECT_EQ(batches.size(), 4u) << "1, then 7 queued in calls of at most 3";
  for (auto& s : slots) {
    ASSERT_TRUE(s.got.ok());
    EXPECT_EQ(s.got->commit.remaining, s.r.sample);
  }
}

TEST(FinishBatcher, ABrokerOfLimitOneIsCalledBySlotsDirectly) {
  BatchingBroker broker(1);
  LocalStateStore store({100});
  FinishBatcher batcher(broker, store);
  Slot s;
  s.r.sample = 7;
  auto got = batcher.finish(s.d, s.r);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->commit.remaining, 7u);
  EXPECT_EQ(broker.singles(), 1);
  EXPECT_TRUE(broker.batches().empty());
}

}  // namespace
}  // namespace merlin::testing
