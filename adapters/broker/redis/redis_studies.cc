#include "adapters/broker/redis/redis_studies.h"

#include <algorithm>
#include <cstdlib>

#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_error.h"
#include "adapters/broker/redis/redis_lua.h"
#include "adapters/broker/redis/redis_purge.h"
#include "adapters/broker/redis/redis_script.h"

namespace merlin {
namespace {

constexpr const char* kStudiesKey = "merlin:studies";

Result<std::unique_ptr<RedisConnection>> connect(const RedisSettings& s) {
  return RedisConnection::open(s);
}

std::uint64_t as_count(const RedisReply& r) {
  return static_cast<std::uint64_t>(std::max(0LL, r.as_integer().value_or(0)));
}

}  // namespace

RedisStudies::RedisStudies(RedisSettings settings) : settings_(std::move(settings)) {}

Result<void> RedisStudies::enqueue(const StudyEnqueue& st) {
  auto c = connect(settings_);
  if (!c) return c.error();
  const auto& rec = st.record;
  std::vector<std::string> args{RedisKeys(rec.key).prefix, rec.key, rec.workspace, rec.name,
                                std::to_string(rec.created)};
  args.push_back(std::to_string(st.counts.size()));
  // A fan-out instance's count is unknown until its release (kSetCount): 'u'.
  auto text = [](std::uint64_t n) {
    return n == kCountUnknown ? std::string(redis_lua::kUnknownCount) : std::to_string(n);
  };
  for (auto n : st.counts) args.push_back(text(n));
  for (std::size_t i = 0; i < st.counts.size(); ++i)
    args.push_back(text(i < st.remaining.size() ? st.remaining[i] : st.counts[i]));
  args.push_back(std::to_string(st.done.size()));
  for (const auto& [inst, bitmap] : st.done) {
    args.push_back(std::to_string(inst));
    args.push_back(bitmap);
  }
  args.push_back(std::to_string(st.queues.size()));
  args.insert(args.end(), st.queues.begin(), st.queues.end());
  args.push_back(std::to_string(st.released.size()));
  for (auto i : st.released) args.push_back(std::to_string(i));
  for (const auto& [q, m] : st.messages) {
    args.push_back(q);
    args.push_back(std::to_string(redis_lua::width_bucket(m.hi - m.lo)));
    args.push_back(encode(m));
  }
  RedisScript script(redis_lua::kEnqueue);
  auto r = script.run(**c, {}, args);
  if (!r) {
    Error e = r.error();
    // The script's own refusal (redis_lua.cc kEnqueue): a study of that key is registered.
    if (r.redis_code() == RedisErrorCode::kExists) e.code = ErrorCode::kExists;
    return e;
  }
  return ok();
}

Result<std::vector<StudyRecord>> RedisStudies::list() { return list_keyed(""); }

Result<std::vector<StudyRecord>> RedisStudies::list_named(const std::string& name) {
  // A study's key is "<name>_<timestamp>" (its workspace's name): other studies' meta is not
  // read, which a worker's ACL user may not (docs/security.md).
  auto all = list_keyed(name + "_");
  if (!all) return all.error();
  std::erase_if(*all, [&](const StudyRecord& r) { return r.name != name; });
  return all;
}

Result<std::vector<StudyRecord>> RedisStudies::list_keyed(const std::string& key_prefix) {
  auto c = connect(settings_);
  if (!c) return c.error();
  auto keys = (*c)->command({"ZRANGE", kStudiesKey, "0", "-1", "WITHSCORES"});
  if (!keys) return keys.error();
  std::vector<StudyRecord> out;
  std::vector<RedisCommand> cmds;
  for (std::size_t i = 0; i + 1 < keys->elements.size(); i += 2) {
    StudyRecord r;
    r.key = keys->elements[i].text();
    if (r.key.rfind(key_prefix, 0) != 0) continue;
    r.created = keys->elements[i + 1].as_integer().value_or(0);
    cmds.push_back({"HMGET", RedisKeys(r.key).prefix + "meta", "workspace", "name", "purged"});
    out.push_back(std::move(r));
  }
  auto meta = (*c)->pipeline(cmds);
  if (!meta) return meta.error();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& m = (*meta)[i];
    if (m.elements.size() == 3) {
      out[i].workspace = m.elements[0].text();
      out[i].name = m.elements[1].text();
      out[i].purged = !m.elements[2].text().empty();
    }
  }
  return out;
}

Result<std::uint64_t> RedisStudies::pending(const std::string& study_key) {
  auto c = connect(settings_);
  if (!c) return c.error();
  RedisScript script(redis_lua::kStudyPending);
  auto r = script.run(**c, {}, {RedisKeys(study_key).prefix});
  if (!r) return r.error();
  return as_count(*r);
}

Result<std::vector<QueueStats>> RedisStudies::queue_stats(const std::string& study_key) {
  auto c = connect(settings_);
  if (!c) return c.error();
  RedisScript script(redis_lua::kQueueStats);
  auto r = script.run(**c, {}, {RedisKeys(study_key).prefix});
  if (!r) return r.error();
  std::vector<QueueStats> out;
  const auto& e = r->elements;
  for (std::size_t i = 0; i + 4 < e.size(); i += 5) {
    QueueStats q;
    q.queue = e[i].text();
    std::uint64_t len = as_count(e[i + 1]);
    q.reserved = as_count(e[i + 2]);
    q.consumers = as_count(e[i + 3]);
    q.delayed = as_count(e[i + 4]);
    q.queued = len - std::min(len, q.reserved);  // acked entries are deleted
    out.push_back(std::move(q));
  }
  std::sort(out.begin(), out.end(),
            [](const QueueStats& a, const QueueStats& b) { return a.queue < b.queue; });
  return out;
}

Result<std::uint64_t> RedisStudies::purge_queues(const std::string& study_key,
                                                 const std::vector<std::string>& queues) {
  auto c = connect(settings_);
  if (!c) return c.error();
  std::vector<std::string> args{RedisKeys(study_key).prefix};
  args.insert(args.end(), queues.begin(), queues.end());
  RedisScript script(redis_lua::kPurgeQueues);
  auto r = script.run(**c, {}, args);
  if (!r) return r.error();
  return as_count(*r);
}

Result<void> RedisStudies::set_purged(const std::string& study_key, bool purged) {
  auto c = connect(settings_);
  if (!c) return c.error();
  const std::string meta = RedisKeys(study_key).prefix + "meta";
  auto r = purged ? (*c)->command({"HSET", meta, "purged", "1"})
                  : (*c)->command({"HDEL", meta, "purged"});
  if (!r) return r.error();
  return ok();
}

Result<void> RedisStudies::clear_releases(const std::string& study_key) {
  auto c = connect(settings_);
  if (!c) return c.error();
  auto r = (*c)->command({"DEL", RedisKeys(study_key).released()});
  if (!r) return r.error();
  return ok();
}

Result<std::vector<std::uint32_t>> RedisStudies::running(const std::string& study_key,
                                                         std::size_t instances) {
  std::vector<std::uint32_t> out(instances, 0);
  auto c = connect(settings_);
  if (!c) return c.error();
  RedisKeys keys(study_key);
  auto queues = (*c)->command({"SMEMBERS", keys.queues()});
  if (!queues) return queues.error();
  for (const auto& q : queues->elements) {
    const std::string stream = keys.queue(q.text());
    auto pending = (*c)->command({"XPENDING", stream, kRedisGroup, "-", "+", "10000"});
    if (!pending) {
      if (pending.redis_code() == RedisErrorCode::kNoGroup) continue;
      return pending.error();
    }
    std::vector<RedisCommand> reads;
    for (const auto& p : pending->elements)
      if (!p.elements.empty()) {
        const std::string id = p.elements[0].text();
        reads.push_back({"XRANGE", stream, id, id});
      }
    if (reads.empty()) continue;
    auto got = (*c)->transaction(reads);
    if (!got) return got.error();
    for (const auto& r : *got) {
      if (r.elements.empty() || r.elements[0].elements.size() < 2) continue;
      const auto& fields = r.elements[0].elements[1].elements;
      for (std::size_t f = 0; f + 1 < fields.size(); f += 2) {
        if (fields[f].text() != "m") continue;
        auto m = decode(fields[f + 1].text());
        if (m && m->is_leaf() && m->instance.v < out.size()) out[m->instance.v]++;
      }
    }
  }
  return out;
}

Result<std::uint64_t> RedisStudies::reset_failed(const std::string& study_key,
                                                 std::size_t instances) {
  auto c = connect(settings_);
  if (!c) return c.error();
  RedisScript script(redis_lua::kResetFailed);
  auto r = script.run(**c, {}, {RedisKeys(study_key).prefix, std::to_string(instances)});
  if (!r) return r.error();
  return as_count(*r);
}

Result<std::uint64_t> RedisStudies::forget(const std::string& study_key) {
  RedisSettings s = settings_;
  s.study_key = study_key;
  auto n = purge_study(s);
  if (!n) return n;
  auto c = connect(settings_);
  if (!c) return c.error();
  auto r = (*c)->command({"ZREM", kStudiesKey, study_key});
  if (!r) return r.error();
  return *n;
}

Result<std::string> RedisStudies::server_version() {
  auto c = connect(settings_);
  if (!c) return c.error();
  auto r = (*c)->command({"INFO", "server"});
  if (!r) return r.error();
  const std::string& t = r->text();
  auto at = t.find("redis_version:");
  if (at == std::string::npos) return std::string("unknown");
  auto end = t.find_first_of("\r\n", at);
  return t.substr(at + 14, end - at - 14);
}

}  // namespace merlin
