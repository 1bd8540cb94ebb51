#pragma once
/// A bounded multi-producer, multi-consumer queue: `push` waits while it is full, so producers
/// never run more than `capacity` items ahead of the consumer (memory stays bounded however
/// many items pass). `close` wakes everyone: pushes then fail, pops drain what is left.
/// `push_all` and `pop_all` move many items under one lock and one wake-up: with one item per
/// call, a consumer faster than its producers sleeps and is woken once per item (three to four
/// futex calls an item).
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace merlin::run {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity ? capacity : 1) {}

  /// Waits for room; false (the item dropped) once the queue is closed.
  bool push(T item) {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }

  /// Waits for room for all of `items` (or for an empty queue, when they are more than the
  /// capacity), then appends them in order and clears `items`; false (nothing appended) once
  /// the queue is closed.
  bool push_all(std::vector<T>& items) {
    if (items.empty()) return true;
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] {
      return closed_ || items_.empty() || items_.size() + items.size() <= capacity_;
    });
    if (closed_) return false;
    for (auto& item : items) items_.push_back(std::move(item));
    items.clear();
    not_empty_.notify_one();
    return true;
  }

  /// Waits for items, then moves the first `max` of them (all, by default) into `out` (cleared
  /// first); false once the queue is closed and empty.
  bool pop_all(std::vector<T>& out, std::size_t max = static_cast<std::size_t>(-1)) {
    out.clear();
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return false;
    while (!items_.empty() && out.size() < max) {
      out.push_back(std::move(items_.front()));
      items_.pop_front();
    }
    not_full_.notify_all();
    return true;
  }

  /// Waits for an item; nothing once the queue is closed and empty.
  std::optional<T> pop() {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }

  /// No more pushes; pops return what is left, then nothing.
  void close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<T> items_;
  std::size_t capacity_;
  bool closed_ = false;
};

}  // namespace merlin::run
