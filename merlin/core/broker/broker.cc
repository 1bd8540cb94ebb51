#include "merlin/core/broker/broker.h"

namespace merlin {

Result<std::vector<Delivery>> Broker::reserve_many(const std::vector<std::string>& queues,
                                                   std::size_t n, std::chrono::milliseconds wait) {
  std::vector<Delivery> out;
  if (n == 0) return out;
  auto d = reserve(queues, wait);
  if (!d) return d.error();
  if (*d) out.push_back(std::move(**d));
  return out;
}

Result<FinishResult> Broker::finish(const Delivery& d, const FinishRequest& r, StateStore& store) {
  FinishResult out;
  auto c = store.commit(r.instance, r.sample, r.outcome, r.seconds);
  if (!c) return c.error();
  out.commit = *c;
  if (c->newly_done)
    for (const auto& [queue, msgs] : r.follow_ups) {
      auto p = publish(queue, msgs);
      if (!p) return p.error();
    }
  if (r.hold_ack_at_zero && c->remaining == 0) return out;
  auto a = ack(d);
  if (!a) return a.error();
  out.acked = true;
  return out;
}

std::vector<Result<FinishResult>> Broker::finish_many(const std::vector<Finishing>& items,
                                                      StateStore& store) {
  std::vector<Result<FinishResult>> out;
  out.reserve(items.size());
  for (const auto& i : items) out.push_back(finish(*i.delivery, *i.request, store));
  return out;
}

}  // namespace merlin
