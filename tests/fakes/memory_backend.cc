#include "tests/fakes/memory_backend.h"

#include <algorithm>

namespace merlin::testing {
namespace {

using Shared = MemoryBackend::Shared;

Error no_study(const std::string& key) { return Error::runtime("memory backend: no study " + key); }

// Handles on a study's shared broker and store.
class SharedBroker : public Broker {
 public:
  explicit SharedBroker(std::shared_ptr<LocalBroker> b) : b_(std::move(b)) {}
  Result<void> publish(const std::string& q, const std::vector<TaskMessage>& m) override {
    return b_->publish(q, m);
  }
  Result<void> publish_at(const std::string& q, const TaskMessage& m,
                          Clock::time_point due) override {
    return b_->publish_at(q, m, due);
  }
  Result<std::optional<Delivery>> reserve(const std::vector<std::string>& qs,
                                          std::chrono::milliseconds wait) override {
    return b_->reserve(qs, wait);
  }
  Result<void> ack(const Delivery& d) override { return b_->ack(d); }
  Result<void> release(const Delivery& d) override { return b_->release(d); }
  Result<std::uint64_t> pending(const std::vector<std::string>& qs) override {
    return b_->pending(qs);
  }

 private:
  std::shared_ptr<LocalBroker> b_;
};

class SharedStore : public StateStore {
 public:
  explicit SharedStore(std::shared_ptr<LocalStateStore> s) : s_(std::move(s)) {}
  Result<CommitResult> commit(InstanceId i, SampleId x, Outcome o, double secs) override {
    return s_->commit(i, x, o, secs);
  }
  Result<bool> is_done(InstanceId i, SampleId x) override { return s_->is_done(i, x); }
  Result<bool> is_complete(InstanceId i) override { return s_->is_complete(i); }
  Result<bool> claim_release(InstanceId i) override { return s_->claim_release(i); }
  Result<std::uint64_t> set_count(InstanceId i, std::uint64_t n) override {
    return s_->set_count(i, n);
  }
  Result<void> forget_count(InstanceId i) override { return s_->forget_count(i); }
  Result<std::vector<InstanceProgress>> progress() override { return s_->progress(); }
  Result<SampleBits> sample_bits(InstanceId i) override { return s_->sample_bits(i); }

 private:
  std::shared_ptr<LocalStateStore> s_;
};

class MemoryStudies : public StudyRegistry {
 public:
  explicit MemoryStudies(std::shared_ptr<Shared> s) : s_(std::move(s)) {}

  Result<void> enqueue(const StudyEnqueue& st) override {
    std::lock_guard lock(s_->mu);
    if (s_->studies.count(st.record.key))
      return Error{ErrorCode::kExists, "study " + st.record.key + " is queued already"};
    MemoryBackend::Study study;
    study.record = st.record;
    study.queues = st.queues;
    study.broker = std::make_shared<LocalBroker>(s_->now);
    study.store = std::make_shared<LocalStateStore>(st.counts);
    for (auto i : st.released) (void)study.store->claim_release(InstanceId{i});
    for (const auto& [q, m] : st.messages) {
      if (auto p = study.broker->publish(q, {m}); !p) return p;
      if (std::find(study.queues.begin(), study.queues.end(), q) == study.queues.end())
        study.queues.push_back(q);
    }
    s_->studies.emplace(st.record.key, std::move(study));
    return ok();
  }
  Result<std::vector<StudyRecord>> list() override {
    std::lock_guard lock(s_->mu);
    std::vector<StudyRecord> out;
    for (const auto& [k, st] : s_->studies) out.push_back(st.record);
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.created < b.created; });
    return out;
  }
  Result<std::uint64_t> pending(const std::string& key) override {
    auto st = find(key);
    if (!st) return st.error();
    return st->broker->pending(st->queues);
  }
  Result<std::vector<QueueStats>> queue_stats(const std::string& key) override {
    auto st = find(key);
    if (!st) return st.error();
    std::vector<QueueStats> out;
    for (const auto& q : st->queues) {
      auto p = st->broker->pending({q});
      if (!p) return p.error();
      QueueStats s;
      s.queue = q;
      s.queued = *p;  // the in-process broker tells no finer
      out.push_back(s);
    }
    return out;
  }
  Result<std::vector<std::uint32_t>> running(const std::string&, std::size_t n) override {
    return std::vector<std::uint32_t>(n, 0);
  }
  Result<std::uint64_t> purge_queues(const std::string& key,
                                     const std::vector<std::string>& queues) override {
    auto st = find(key);
    if (!st) return st.error();
    return st->broker->purge(queues);
  }
  Result<void> set_purged(const std::string& key, bool purged) override {
    std::lock_guard lock(s_->mu);
    auto it = s_->studies.find(key);
    if (it == s_->studies.end()) return no_study(key);
    it->second.record.purged = purged;
    return ok();
  }
  Result<void> clear_releases(const std::string& key) override {
    auto st = find(key);
    if (!st) return st.error();
    st->store->clear_releases();
    return ok();
  }
  Result<std::uint64_t> reset_failed(const std::string& key, std::size_t) override {
    auto st = find(key);
    if (!st) return st.error();
    return st->store->reset_failed();
  }
  Result<std::uint64_t> forget(const std::string& key) override {
    std::lock_guard lock(s_->mu);
    return s_->studies.erase(key);
  }

 private:
  Result<MemoryBackend::Study> find(const std::string& key) {
    std::lock_guard lock(s_->mu);
    auto it = s_->studies.find(key);
    if (it == s_->studies.end()) return no_study(key);
    return it->second;
  }
  std::shared_ptr<Shared> s_;
};

class MemoryWorkers : public WorkerRegistry {
 public:
  explicit MemoryWorkers(std::shared_ptr<Shared> s) : s_(std::move(s)) {}
  Result<bool> beat(const WorkerRecord& w) override {
    std::lock_guard lock(s_->mu);
    s_->workers[w.id] = w;
    return s_->stop_requests[w.id];
  }
  Result<void> remove(const std::string& id) override {
    std::lock_guard lock(s_->mu);
    s_->workers.erase(id);
    return ok();
  }
  Result<std::vector<WorkerRecord>> list(std::int64_t) override {
    std::lock_guard lock(s_->mu);
    std::vector<WorkerRecord> out;
    for (const auto& [id, w] : s_->workers) out.push_back(w);
    return out;
  }
  Result<void> request_stop(const std::vector<std::string>& ids) override {
    std::lock_guard lock(s_->mu);
    for (const auto& id : ids) s_->stop_requests[id] = true;
    return ok();
  }

 private:
  std::shared_ptr<Shared> s_;
};

// Halts in order; a mark is how many there were.
class MemoryStops : public StopChannel {
 public:
  explicit MemoryStops(std::shared_ptr<Shared> s) : s_(std::move(s)) {}
  Result<void> halt(const std::string& key, const StudyHalt& h) override {
    std::lock_guard lock(s_->mu);
    auto it = s_->studies.find(key);
    if (it == s_->studies.end()) return no_study(key);
    it->second.halts.push_back(h);
    return ok();
  }
  Result<std::string> clock_mark() override { return std::string("0"); }
  Result<std::vector<StudyHalt>> halts_since(const std::string& key, std::string& mark) override {
    std::lock_guard lock(s_->mu);
    auto it = s_->studies.find(key);
    if (it == s_->studies.end()) return std::vector<StudyHalt>();
    const auto& all = it->second.halts;
    std::size_t from = std::min<std::size_t>(std::stoull(mark.empty() ? "0" : mark), all.size());
    mark = std::to_string(all.size());
    return std::vector<StudyHalt>(all.begin() + static_cast<std::ptrdiff_t>(from), all.end());
  }

 private:
  std::shared_ptr<Shared> s_;
};

}  // namespace

MemoryBackend::MemoryBackend(LocalBroker::Now now)
    : shared_(std::make_shared<Shared>()),
      studies_(std::make_unique<MemoryStudies>(shared_)),
      workers_(std::make_unique<MemoryWorkers>(shared_)),
      stops_(std::make_unique<MemoryStops>(shared_)) {
  shared_->now = std::move(now);
}

std::unique_ptr<Broker> MemoryBackend::broker(const std::string& key, const std::string&,
                                              std::chrono::milliseconds) {
  std::lock_guard lock(shared_->mu);
  auto it = shared_->studies.find(key);
  if (it == shared_->studies.end())
    return std::make_unique<SharedBroker>(std::make_shared<LocalBroker>());
  return std::make_unique<SharedBroker>(it->second.broker);
}

std::unique_ptr<StateStore> MemoryBackend::store(const std::string& key) {
  std::lock_guard lock(shared_->mu);
  auto it = shared_->studies.find(key);
  if (it == shared_->studies.end())
    return std::make_unique<SharedStore>(
        std::make_shared<LocalStateStore>(std::vector<std::uint64_t>{}));
  return std::make_unique<SharedStore>(it->second.store);
}

bool MemoryBackend::stop_requested(const std::string& id) {
  std::lock_guard lock(shared_->mu);
  return shared_->stop_requests[id];
}

std::vector<WorkerRecord> MemoryBackend::workers_seen() {
  std::lock_guard lock(shared_->mu);
  std::vector<WorkerRecord> out;
  for (const auto& [id, w] : shared_->workers) out.push_back(w);
  return out;
}

}  // namespace merlin::testing
