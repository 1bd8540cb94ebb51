#include "adapters/broker/amqp/amqp_backend.h"

#include <algorithm>
#include <map>
#include <set>

#include "adapters/broker/amqp/amqp_broker.h"
#include "adapters/broker/amqp/amqp_names.h"

namespace merlin {

AmqpStudies::AmqpStudies(AmqpSettings settings, std::chrono::milliseconds retry_budget,
                         StudyRegistry& results, ReservationsOf reservations)
    : settings_(settings),
      retry_budget_(retry_budget),
      results_(results),
      reservations_(std::move(reservations)),
      session_(std::move(settings), retry_budget) {}

Result<void> AmqpStudies::enqueue(const StudyEnqueue& st) {
  const auto& key = st.record.key;
  auto known = results_.list();
  if (!known) return known.error();
  for (const auto& r : *known)
    if (r.key == key) {
      if (r.workspace == st.record.workspace) return ok();  // this very call, sent again
      return Error{ErrorCode::kExists, "study " + key + " is queued already"};
    }
  AmqpBroker broker(settings_, {key, "merlin-run", kDefaultLease, retry_budget_},
                    reservations_(key));
  auto queued = [&]() -> Result<void> {
    if (auto p = broker.prepare(st.queues); !p) return p;
    // One confirmed publish per run of messages to the same queue, in the study's order.
    std::size_t i = 0;
    while (i < st.messages.size()) {
      const std::string& q = st.messages[i].first;
      std::vector<TaskMessage> batch;
      for (; i < st.messages.size() && st.messages[i].first == q; ++i)
        batch.push_back(st.messages[i].second);
      if (auto p = broker.publish(q, batch); !p) return p;
    }
    StudyEnqueue registration = st;
    registration.messages.clear();
    return results_.enqueue(registration);
  }();
  // Nothing half-queued is left for workers to find (another study of that key is not ours).
  if (!queued && queued.error().code != ErrorCode::kExists) (void)forget(key);
  return queued;
}

Result<std::uint64_t> AmqpStudies::pending(const std::string& study_key) {
  auto table = reservations_(study_key);
  auto queues = table->queues();
  if (!queues) return queues.error();
  return AmqpBroker::count_pending(session_, study_key, *queues, *table);
}

Result<std::vector<QueueStats>> AmqpStudies::queue_stats(const std::string& study_key) {
  auto table = reservations_(study_key);
  auto queues = table->queues();
  if (!queues) return queues.error();
  auto held = table->all();
  if (!held) return held.error();
  std::map<std::string, QueueStats> by_queue;
  for (const auto& q : *queues) by_queue[q].queue = q;
  std::map<std::string, std::set<std::string>> holders;
  for (const auto& [id, res] : *held) {
    auto& s = by_queue[res.queue];
    s.queue = res.queue;
    s.reserved++;
    holders[res.queue].insert(id.substr(0, id.rfind('.', id.rfind('.') - 1)));
  }
  auto r = session_.run([&](AmqpConnection& c, std::uint64_t) -> Result<void> {
    for (auto& [q, s] : by_queue) {
      auto d = AmqpBroker::declare_pair(c, study_key, q);
      if (!d) return d.error();
      s.queued = d->ready;
      s.delayed = d->delayed;
    }
    return ok();
  });
  if (!r) return r.error();
  std::vector<QueueStats> out;
  for (auto& [q, s] : by_queue) {
    s.consumers = holders[q].size();
    out.push_back(s);
  }
  return out;
}

Result<std::vector<std::uint32_t>> AmqpStudies::running(const std::string& study_key,
                                                        std::size_t instances) {
  auto held = reservations_(study_key)->all();
  if (!held) return held.error();
  std::vector<std::uint32_t> out(instances, 0);
  for (const auto& [id, res] : *held) {
    auto m = decode(res.message);
    if (m && m->hi - m->lo == 1 && m->instance.v < instances) out[m->instance.v]++;
  }
  return out;
}

Result<std::uint64_t> AmqpStudies::purge_queues(const std::string& study_key,
                                                const std::vector<std::string>& queues) {
  auto table = reservations_(study_key);
  std::vector<std::string> names = queues;
  if (names.empty()) {
    auto all = table->queues();
    if (!all) return all.error();
    names = *all;
  }
  std::uint64_t n = 0;
  auto r = session_.run([&](AmqpConnection& c, std::uint64_t) -> Result<void> {
    n = 0;
    for (const auto& q : names) {
      if (auto d = AmqpBroker::declare_pair(c, study_key, q); !d) return d.error();
      for (const auto& name :
           {amqp_names::task_queue(study_key, q), amqp_names::delay_queue(study_key, q)}) {
        auto p = c.purge(name);
        if (!p) return p.error();
        n += *p;
      }
    }
    return ok();
  });
  if (!r) return r.error();
  auto held = table->all();
  if (!held) return held.error();
  for (const auto& [id, res] : *held) {
    if (std::find(names.begin(), names.end(), res.queue) == names.end()) continue;
    auto d = table->drop(id);
    if (!d) return d.error();
    if (*d) ++n;
  }
  return n;
}

Result<std::uint64_t> AmqpStudies::forget(const std::string& study_key) {
  auto queues = reservations_(study_key)->queues();
  if (!queues) return queues.error();
  std::uint64_t n = 0;
  auto r = session_.run([&](AmqpConnection& c, std::uint64_t) -> Result<void> {
    for (const auto& q : *queues)
      for (const auto& name :
           {amqp_names::task_queue(study_key, q), amqp_names::delay_queue(study_key, q)}) {
        auto d = c.delete_queue(name);
        if (!d) return d;
        ++n;
      }
    return ok();
  });
  if (!r) return r.error();
  auto f = results_.forget(study_key);
  if (!f) return f.error();
  return n + *f;
}

Result<std::string> AmqpStudies::server_version() {
  std::string v;
  auto r = session_.run([&](AmqpConnection& c, std::uint64_t) -> Result<void> {
    v = c.server_version();
    return ok();
  });
  if (!r) return r.error();
  return v;
}

AmqpBackend::AmqpBackend(AmqpSettings settings, std::chrono::milliseconds retry_budget,
                         std::unique_ptr<Backend> results, ReservationsOf reservations,
                         std::string location)
    : settings_(settings),
      retry_budget_(retry_budget),
      results_(std::move(results)),
      reservations_(reservations),
      studies_(std::move(settings), retry_budget, results_->studies(), reservations),
      location_(std::move(location)) {}

std::unique_ptr<Broker> AmqpBackend::broker(const std::string& study_key,
                                            const std::string& consumer,
                                            std::chrono::milliseconds lease) {
  return std::make_unique<AmqpBroker>(settings_,
                                      AmqpBrokerOptions{study_key, consumer, lease, retry_budget_},
                                      reservations_(study_key));
}

Result<std::string> AmqpBackend::server_version() {
  auto v = studies_.server_version();
  if (!v) return v.error();
  auto r = results_->server_version();
  if (!r) return r.error();
  return *v + "; results: " + *r;
}

}  // namespace merlin
