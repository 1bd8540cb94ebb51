#include "adapters/broker/redis/redis_broker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "adapters/broker/redis/redis_error.h"
#include "adapters/broker/redis/redis_lua.h"
#include "merlin/core/util/log.h"

namespace merlin {
namespace {

using std::chrono::milliseconds;

std::int64_t system_ms() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "<stream key>|<stream id>": stream ids never hold '|', keys (queue names) may.
bool split_receipt(const std::string& receipt, std::string* stream, std::string* id) {
  auto bar = receipt.rfind('|');
  if (bar == std::string::npos) return false;
  *stream = receipt.substr(0, bar);
  *id = receipt.substr(bar + 1);
  return true;
}

}  // namespace

RedisBroker::RedisBroker(RedisSettings settings)
    : pool_(std::move(settings)),
      keys_(pool_.settings().study_key),
      take_script_(redis_lua::kTake),
      reclaim_script_(redis_lua::kReclaim),
      release_script_(redis_lua::kRelease),
      pending_script_(redis_lua::kPending),
      publish_script_(redis_lua::kPublish),
      streams_script_(redis_lua::kStreams),
      publish_at_script_(redis_lua::kPublishAt),
      dead_letter_script_(redis_lua::kDeadLetter),
      finish_script_(redis_lua::kFinish),
      finish_many_script_(redis_lua::kFinishMany),
      ack_script_(redis_lua::kAck),
      nonce_(std::random_device{}()) {}

std::string RedisBroker::unique_tag() {
  // Two delayed copies of one message must stay two members of the sorted set, even from
  // workers that were (wrongly) given the same consumer name: add a per-instance nonce.
  return settings().consumer + "-" + std::to_string(nonce_) + "-" + std::to_string(seq_++);
}

Result<void> RedisBroker::publish(const std::string& queue, const std::vector<TaskMessage>& msgs) {
  return publish_to(queue, msgs, false);
}

Result<void> RedisBroker::publish_first(const std::string& queue,
                                        const std::vector<TaskMessage>& msgs) {
  return publish_to(queue, msgs, true);
}

Result<void> RedisBroker::publish_to(const std::string& queue, const std::vector<TaskMessage>& msgs,
                                     bool first) {
  if (msgs.empty()) return ok();
  auto c = pool_.acquire();
  if (!c) return c.error();
  std::vector<std::string> args{keys_.prefix, queue};
  for (const auto& m : msgs) {
    args.push_back(std::to_string(first ? redis_lua::kFirstBucket
                                        : redis_lua::width_bucket(m.hi - m.lo)));
    args.push_back(encode(m));
  }
  auto r = publish_script_.run(**c, {}, args);  // a script: all or nothing
  if (!r) return r.error();
  return ok();
}

Result<void> RedisBroker::publish_at(const std::string& queue, const TaskMessage& msg,
                                     Clock::time_point due) {
  // The delayed set is ordered by wall-clock ms so that every host agrees; convert the
  // steady-clock due time at the call, rounding up so the message is never early.
  auto in = std::max(Clock::duration::zero(), due - Clock::now());
  auto due_ms = system_ms() + std::chrono::ceil<milliseconds>(in).count();
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = publish_at_script_.run(**c, {},
                                  {keys_.prefix, queue, std::to_string(due_ms),
                                   queue + "|" +
                                       std::to_string(redis_lua::width_bucket(msg.hi - msg.lo)) +
                                       "|" + unique_tag() + "|" + encode(msg)});
  if (!r) return r.error();
  return ok();
}

milliseconds RedisBroker::scan_every() const {
  auto every = settings().lease / 4;
  if (settings().dead_after.count() > 0) every = std::min(every, settings().dead_after / 4);
  return std::max(milliseconds(1), every);
}

Result<std::uint64_t> RedisBroker::reclaim(RedisConnection& c,
                                           const std::vector<std::string>& queues) {
  // Bounded work per script (the server does nothing else meanwhile), as many calls as it
  // takes: a node's worth of orphans comes back in one scan.
  constexpr int kPerCall = 256, kMaxCalls = 64;
  std::vector<std::string> args{keys_.prefix,
                                std::to_string(settings().lease.count()),
                                std::to_string(settings().dead_after.count()),
                                settings().consumer,
                                kRedisWorkerBeats,
                                std::to_string(kPerCall),
                                std::to_string(scan_every().count())};
  args.insert(args.end(), queues.begin(), queues.end());
  std::uint64_t moved = 0;
  for (int call = 0; call < kMaxCalls; ++call) {
    auto r = reclaim_script_.run(c, {}, args);
    if (!r) return r.error();
    const auto& e = r->elements;
    if (e.size() < 3) return Error::runtime(c.describe("unexpected reply from the reclaim script"));
    moved += static_cast<std::uint64_t>(std::max(0LL, e[0].as_integer().value_or(0)));
    if (e[1].as_integer().value_or(0) != 1) break;
  }
  if (moved > 0)
    log::info("queued again {} task(s) of dead workers or expired leases study={} consumer={}",
              moved, settings().study_key, settings().consumer);
  return moved;
}

Result<std::vector<RedisBroker::Taken>> RedisBroker::take_now(
    RedisConnection& c, const std::vector<std::string>& queues, std::size_t n,
    std::int64_t* next_due_ms) {
  auto now = system_ms();
  if (now - last_claim_ms_.load() >= scan_every().count()) {
    last_claim_ms_ = now;
    auto moved = reclaim(c, queues);
    if (!moved) return moved.error();
  }
  std::vector<std::string> args{keys_.prefix, std::to_string(now), settings().consumer,
                                std::to_string(n)};
  args.insert(args.end(), queues.begin(), queues.end());
  auto r = take_script_.run(c, {}, args);
  if (!r) return r.error();
  const auto& e = r->elements;
  if (e.size() < 2) return Error::runtime(c.describe("unexpected reply from the take script"));
  std::vector<Taken> out;
  if (e[0].as_integer().value_or(-1) < 0) {
    *next_due_ms = e[1].as_integer().value_or(-1);
    return out;
  }
  // Messages come in groups of 8 (the done bit last).
  constexpr std::size_t group = 8;
  if (e.size() % group != 0)
    return Error::runtime(c.describe("unexpected reply from the take script"));
  for (std::size_t k = 0; k < e.size(); k += group) {
    auto index = e[k].as_integer().value_or(-1);
    if (index < 0 || index >= static_cast<long long>(queues.size()))
      return Error::runtime(c.describe("unexpected reply from the take script"));
    Taken t{queues[index],
            e[k + 1].text(),
            e[k + 2].text(),
            e[k + 3].as_integer() == 1,
            e[k + 4].text(),
            static_cast<std::uint64_t>(e[k + 5].as_integer().value_or(0)),
            static_cast<std::uint32_t>(e[k + 6].as_integer().value_or(1))};
    t.sample_done = static_cast<int>(e[k + 7].as_integer().value_or(-1));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::optional<RedisBroker::Taken>> RedisBroker::take_blocking(
    RedisConnection& c, const std::vector<std::string>& queues, milliseconds block) {
  std::vector<std::string> args{keys_.prefix};
  args.insert(args.end(), queues.begin(), queues.end());
  auto listed = streams_script_.run(c, {}, args);
  if (!listed) return listed.error();
  std::vector<std::pair<std::string, std::size_t>> streams;  // key, queue index; in order
  for (std::size_t i = 0; i + 1 < listed->elements.size(); i += 2)
    streams.emplace_back(
        listed->elements[i].text(),
        static_cast<std::size_t>(listed->elements[i + 1].as_integer().value_or(0)));
  RedisCommand argv{"XREADGROUP", "GROUP", kRedisGroup, settings().consumer,
                    "COUNT",      "1",     "BLOCK",     std::to_string(block.count()),
                    "STREAMS"};
  for (const auto& s : streams) argv.push_back(s.first);
  for (std::size_t i = 0; i < streams.size(); ++i) argv.push_back(">");
  auto r = c.command(argv, block);
  if (!r) {
    // A group vanished (purge) under us: the take script recreates it on the next round.
    if (r.redis_code() == RedisErrorCode::kNoGroup) return std::optional<Taken>();
    return r.error();
  }
  std::vector<std::pair<std::size_t, Taken>> got;  // (position in `streams`, message)
  for (const auto& stream : r->elements) {
    if (stream.elements.size() < 2 || stream.elements[1].elements.empty()) continue;
    const auto& entry = stream.elements[1].elements[0];
    if (entry.elements.size() < 2) continue;
    auto it = std::find_if(streams.begin(), streams.end(),
                           [&](const auto& s) { return s.first == stream.elements[0].text(); });
    if (it == streams.end() || it->second >= queues.size()) continue;
    Taken t{queues[it->second], entry.elements[0].text(), "", false, it->first, 0, 1};
    const auto& fields = entry.elements[1].elements;
    for (std::size_t f = 0; f + 1 < fields.size(); f += 2) {
      if (fields[f].text() == "m") t.text = fields[f + 1].text();
      // 'd': delivered this often before kReclaim queued it again
      if (fields[f].text() == "d") {
        auto before = std::max(0LL, std::atoll(fields[f + 1].text().c_str()));
        t.redelivered = before > 0;
        t.deliveries = static_cast<std::uint32_t>(before + 1);
      }
    }
    got.emplace_back(static_cast<std::size_t>(it - streams.begin()), std::move(t));
  }
  if (got.empty()) return std::optional<Taken>();
  // Keep the first in the take order (queues as given; leaves, then narrow ranges); hand the
  // others back.
  std::stable_sort(got.begin(), got.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 1; i < got.size(); ++i) {
    const Taken& t = got[i].second;
    auto rel = release_script_.run(c, {t.stream}, {t.id, t.text, settings().consumer});
    if (!rel) return rel.error();
  }
  auto stops = c.command({"XLEN", keys_.halts()});  // the take script's sixth answer
  if (!stops) return stops.error();
  got.front().second.stop_notices = static_cast<std::uint64_t>(stops->as_integer().value_or(0));
  return std::optional<Taken>(std::move(got.front().second));
}

Result<void> RedisBroker::dead_letter(RedisConnection& c, const Taken& t) {
  log::error("dead-lettered an undecodable message queue={} id={} text=\"{}\" key={}", t.queue,
             t.id, t.text, keys_.dead());
  auto r = dead_letter_script_.run(c, {t.stream, keys_.dead()}, {t.id, t.queue, t.text});
  if (!r) return r.error();
  return ok();
}

Result<std::optional<Delivery>> RedisBroker::reserve(const std::vector<std::string>& queues,
                                                     milliseconds wait) {
  auto got = reserve_many(queues, 1, wait);
  if (!got) return got.error();
  if (got->empty()) return std::optional<Delivery>();
  return std::optional<Delivery>(std::move(got->front()));
}

Result<std::vector<Delivery>> RedisBroker::reserve_many(const std::vector<std::string>& queues,
                                                        std::size_t n, milliseconds wait) {
  std::vector<Delivery> out;
  if (queues.empty() || n == 0) return out;
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto deadline = Clock::now() + wait;
  while (out.empty()) {
    std::int64_t next_due = -1;
    auto t = take_now(**c, queues, n, &next_due);
    if (!t) return t.error();
    if (t->empty()) {
      auto now = Clock::now();
      if (now >= deadline) return out;
      auto block = std::chrono::ceil<milliseconds>(deadline - now);
      block = std::min(block, scan_every());  // the next scan for dead workers' tasks
      if (next_due >= 0)
        block = std::min(block, milliseconds(std::max<std::int64_t>(1, next_due - system_ms())));
      auto one = take_blocking(**c, queues, block);
      if (!one) return one.error();
      if (!*one) continue;
      t->push_back(std::move(**one));
    }
    for (auto& taken : *t) {
      auto m = decode(taken.text);
      if (m) {
        out.push_back(Delivery{taken.queue, *m, taken.stream + "|" + taken.id, taken.redelivered,
                               taken.stop_notices, taken.deliveries,
                               static_cast<std::int8_t>(m->is_leaf() ? taken.sample_done : -1)});
        continue;
      }
      auto d = dead_letter(**c, taken);
      if (!d) return d.error();
    }
  }
  return out;
}

Result<void> RedisBroker::ack(const Delivery& d) {
  std::string stream, id;
  if (!split_receipt(d.receipt, &stream, &id))
    return Error::runtime("redis broker: malformed receipt '" + d.receipt + "'");
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = ack_script_.run(**c, {stream}, {id});  // 0: the study was purged, nothing to forget
  if (!r) return r.error();
  return ok();
}

Result<FinishResult> RedisBroker::finish(const Delivery& d, const FinishRequest& req,
                                         StateStore& store) {
  return std::move(finish_many({{&d, &req}}, store).front());
}

std::vector<Result<FinishResult>> RedisBroker::finish_many(const std::vector<Finishing>& items,
                                                           StateStore& store) {
  std::vector<Result<FinishResult>> out(items.size(), Error::runtime("not finished"));
  // Items whose receipt or sample cannot go into the script get their error; the rest go
  // in one call, in order: kFinish for one leaf, kFinishMany (the same per leaf, counters and
  // acks grouped) for several.
  std::vector<std::size_t> sent;
  std::vector<std::vector<std::string>> leaf_args;  // per leaf sent: kFinish's ARGV after prefix
  std::vector<std::size_t> queue_counts;            // per leaf sent: queues of follow-ups
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Delivery& d = *items[i].delivery;
    const FinishRequest& req = *items[i].request;
    std::string stream, id;
    if (!split_receipt(d.receipt, &stream, &id)) {
      out[i] = Error::runtime("redis broker: malformed receipt '" + d.receipt + "'");
      continue;
    }
    if (req.sample > 0xFFFFFFFFull) {
      out[i] = Error::runtime("redis broker: sample " + std::to_string(req.sample) +
                              " is beyond the 2^32 samples a Redis bitmap holds");
      continue;
    }
    sent.push_back(i);
    std::vector<std::string> a{std::to_string(req.instance.v),
                               std::to_string(req.sample),
                               is_failure(req.outcome) ? "1" : "0",
                               std::isfinite(req.seconds) ? fmt::format("{}", req.seconds) : "0",
                               std::move(stream),
                               std::move(id),
                               req.hold_ack_at_zero ? "1" : "0"};
    for (const auto& [queue, msgs] : req.follow_ups) {
      a.push_back(queue);
      a.push_back(std::to_string(msgs.size()));
      for (const auto& m : msgs) {
        a.push_back(std::to_string(redis_lua::width_bucket(m.hi - m.lo)));
        a.push_back(encode(m));
      }
    }
    leaf_args.push_back(std::move(a));
    queue_counts.push_back(req.follow_ups.size());
  }
  std::vector<std::string> args{keys_.prefix};
  if (leaf_args.size() > 1) args.push_back(settings().consumer);  // kFinishMany's fencing
  for (std::size_t k = 0; k < leaf_args.size(); ++k) {
    auto& a = leaf_args[k];
    constexpr std::size_t kHead = 7;  // instance .. hold
    const bool many = leaf_args.size() > 1;
    args.insert(args.end(), std::make_move_iterator(a.begin()),
                std::make_move_iterator(a.begin() + kHead));
    if (many) args.push_back(std::to_string(queue_counts[k]));
    args.insert(args.end(), std::make_move_iterator(a.begin() + kHead),
                std::make_move_iterator(a.end()));
  }
  if (sent.empty()) return out;
  auto fail_sent = [&](const Error& e) {
    for (auto i : sent) out[i] = e;
    return out;
  };
  auto c = pool_.acquire();
  if (!c) return fail_sent(c.error());
  auto r = (sent.size() == 1 ? finish_script_ : finish_many_script_).run(**c, {}, args);
  if (!r) return fail_sent(r.error());
  if (r->elements.size() != 3 * sent.size())
    return fail_sent(Error::runtime((*c)->describe("unexpected finish reply")));
  for (std::size_t k = 0; k < sent.size(); ++k) {
    const std::size_t i = sent[k];
    const FinishRequest& req = *items[i].request;
    const auto newly = r->elements[3 * k].as_integer().value_or(0);
    if (newly == -2) {  // taken over by another worker: refused, nothing written
      FinishResult f;
      f.fenced = true;
      f.commit.remaining = static_cast<std::uint64_t>(
          std::max(0LL, r->elements[3 * k + 1].as_integer().value_or(0)));
      out[i] = f;
      continue;
    }
    if (newly < 0) {
      out[i] = Error::runtime("merlin: instance " + std::to_string(req.instance.v) +
                              " was not initialised");
      continue;
    }
    FinishResult f;
    f.commit.newly_done = newly == 1;
    f.commit.remaining = static_cast<std::uint64_t>(
        std::max(0LL, r->elements[3 * k + 1].as_integer().value_or(0)));
    f.acked = r->elements[3 * k + 2].as_integer().value_or(0) == 1;
    if (f.commit.newly_done)
      store.note_commit(req.instance, req.sample, req.outcome, req.seconds);
    out[i] = f;
  }
  return out;
}

Result<void> RedisBroker::release(const Delivery& d) {
  std::string stream, id;
  if (!split_receipt(d.receipt, &stream, &id))
    return Error::runtime("redis broker: malformed receipt '" + d.receipt + "'");
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = release_script_.run(**c, {stream}, {id, encode(d.message), settings().consumer});
  if (!r) return r.error();
  return ok();
}

// XCLAIM with JUSTID resets the entry's idle time and answers its id while it is pending; an
// entry acked, or taken over (queued again under a new id), is no longer pending: no id.
Result<bool> RedisBroker::extend_lease(const Delivery& d) {
  std::string stream, id;
  if (!split_receipt(d.receipt, &stream, &id))
    return Error::runtime("redis broker: malformed receipt '" + d.receipt + "'");
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->command({"XCLAIM", stream, kRedisGroup, settings().consumer, "0", id, "JUSTID"});
  if (!r && r.redis_code() == RedisErrorCode::kNoGroup) return true;  // purged: nothing to renew
  if (!r) return r.error();
  return !r->elements.empty();
}

Result<std::uint64_t> RedisBroker::pending(const std::vector<std::string>& queues) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  std::vector<std::string> args{keys_.prefix};
  args.insert(args.end(), queues.begin(), queues.end());
  auto r = pending_script_.run(**c, {}, args);
  if (!r) return r.error();
  return static_cast<std::uint64_t>(std::max(0LL, r->as_integer().value_or(0)));
}

}  // namespace merlin
