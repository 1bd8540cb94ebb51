#include "adapters/broker/redis/redis_workers.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "adapters/broker/redis/redis_connection.h"

namespace merlin {
namespace {

constexpr const char* kWorkers = "merlin:workers";
constexpr const char* kStop = "merlin:workers:stop";

// KEYS: the heartbeat hash. ARGV: worker id. Stamps the worker with the server's clock (the
// brokers compare it with the same clock: no host's skew can make a live worker look dead).
constexpr const char* kStamp = R"lua(
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], ARGV[1], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
return 1
)lua";

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

// Tab-separated: seen, name, host, pid, spec name, study, slots, queues (comma-separated),
// batch job.
std::string encode_record(const WorkerRecord& w) {
  std::string queues;
  for (const auto& q : w.queues) queues += (queues.empty() ? "" : ",") + q;
  return std::to_string(now_ms()) + "\t" + w.name + "\t" + w.host + "\t" + std::to_string(w.pid) +
         "\t" + w.spec_name + "\t" + w.study + "\t" + std::to_string(w.slots) + "\t" + queues +
         "\t" + w.job;
}

bool decode_record(const std::string& id, const std::string& text, WorkerRecord* w) {
  auto f = split(text, '\t');
  if (f.size() < 7) return false;
  w->id = id;
  w->seen_ms = std::atoll(f[0].c_str());
  w->name = f[1];
  w->host = f[2];
  w->pid = std::atoi(f[3].c_str());
  w->spec_name = f[4];
  w->study = f[5];
  w->slots = std::atoi(f[6].c_str());
  w->queues = f.size() > 7 ? split(f[7], ',') : std::vector<std::string>{};
  w->job = f.size() > 8 ? f[8] : std::string();
  return true;
}

}  // namespace

RedisWorkerRegistry::RedisWorkerRegistry(RedisSettings settings)
    : settings_(std::move(settings)), beats_(settings_) {}

Result<bool> RedisWorkerRegistry::beat(const WorkerRecord& w) {
  auto c = beats_.acquire();
  if (!c) return c.error();
  auto r = (*c)->pipeline({{"HSET", kWorkers, w.id, encode_record(w)},
                           {"SISMEMBER", kStop, w.id},
                           {"EVAL", kStamp, "1", kRedisWorkerBeats, w.id}});
  if (!r) return r.error();
  for (const auto& reply : *r)
    if (reply.is_error()) return Error::runtime((*c)->describe(reply.text()));
  return (*r)[1].as_integer().value_or(0) == 1;
}

Result<void> RedisWorkerRegistry::remove(const std::string& id) {
  auto c = RedisConnection::open(settings_);
  if (!c) return c.error();
  auto r = (*c)->transaction(
      {{"HDEL", kWorkers, id}, {"HDEL", kRedisWorkerBeats, id}, {"SREM", kStop, id}});
  if (!r) return r.error();
  return ok();
}

Result<std::vector<WorkerRecord>> RedisWorkerRegistry::list(std::int64_t forget_after_ms) {
  auto c = RedisConnection::open(settings_);
  if (!c) return c.error();
  auto r = (*c)->command({"HGETALL", kWorkers});
  if (!r) return r.error();
  std::vector<WorkerRecord> out;
  RedisCommand gone{"HDEL", kWorkers};
  auto now = now_ms();
  for (std::size_t i = 0; i + 1 < r->elements.size(); i += 2) {
    WorkerRecord w;
    const auto& id = r->elements[i].text();
    if (!decode_record(id, r->elements[i + 1].text(), &w) || now - w.seen_ms > forget_after_ms) {
      gone.push_back(id);
      continue;
    }
    out.push_back(std::move(w));
  }
  if (gone.size() > 2) {
    auto d = (*c)->command(gone);
    if (!d) return d.error();
    gone[1] = kRedisWorkerBeats;
    d = (*c)->command(gone);
    if (!d) return d.error();
  }
  // Stop requests whose worker is gone (forgotten now or before) would linger forever.
  auto asked = (*c)->command({"SMEMBERS", kStop});
  if (!asked) return asked.error();
  RedisCommand stale{"SREM", kStop};
  for (const auto& e : asked->elements) {
    bool known = std::any_of(out.begin(), out.end(),
                             [&](const WorkerRecord& w) { return w.id == e.text(); });
    if (!known) stale.push_back(e.text());
  }
  if (stale.size() > 2) {
    auto d = (*c)->command(stale);
    if (!d) return d.error();
  }
  return out;
}

Result<void> RedisWorkerRegistry::request_stop(const std::vector<std::string>& ids) {
  if (ids.empty()) return ok();
  auto c = RedisConnection::open(settings_);
  if (!c) return c.error();
  RedisCommand add{"SADD", kStop};
  add.insert(add.end(), ids.begin(), ids.end());
  auto r = (*c)->command(add);
  if (!r) return r.error();
  return ok();
}

}  // namespace merlin
