#include "adapters/broker/redis/redis_reservations.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "adapters/broker/redis/redis_lua.h"

namespace merlin {
namespace {

// The server's clock in ms, inside a script (Redis replicates scripts by their effects).
constexpr const char* kNow = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
)lua";

// KEYS: as kCommit, then held, held_until, held_by. ARGV: as kCommit, then the reservation
// id, end ('1'/'0'), keep at zero ('1'/'0'). Fencing: a reservation no longer held whose sample
// is not committed was taken over; nothing is written and the reply is {-2, remaining}. Else
// kCommit, then with `end` the reservation is dropped unless `keep at zero` and the remaining
// count is 0; the reply's third element says whether it was. Built on first use:
// redis_lua::kCommit is a global of another file, not yet made while this file's globals are.
const std::string& commit_held_script() {
  static const std::string script = R"lua(
if redis.call('HEXISTS', KEYS[6], ARGV[5]) == 0 and redis.call('GETBIT', KEYS[1], ARGV[2]) == 0 then
  return {-2, tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')}
end
local function commit()
)lua" + redis_lua::kCommit + R"lua(
end
local r = commit()
if r.err then return r end
r[3] = 0
if ARGV[6] == '1' and not (ARGV[7] == '1' and tonumber(r[2]) == 0) then
  redis.call('HDEL', KEYS[6], ARGV[5])
  redis.call('ZREM', KEYS[7], ARGV[5])
  redis.call('HDEL', KEYS[8], ARGV[5])
  r[3] = 1
end
return r
)lua";
  return script;
}

// KEYS: held, held_until, halts, held_by. ARGV: id, record, lease ms, holder ('' unknown).
const std::string kHold = std::string(kNow) + R"lua(
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], ARGV[1], ARGV[4]) end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
return redis.call('XLEN', KEYS[3])
)lua";

// KEYS: held, held_until. ARGV: id, lease ms.
const std::string kRenew = std::string(kNow) + R"lua(
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
return 1
)lua";

// KEYS: held, held_until, held_by. ARGV: lease ms, max, dead after ms (0: never), heartbeat
// hash (worker id -> the server's epoch ms of its last beat). Takes the expired reservations,
// then those (still within their lease) of holders whose heartbeat is older than dead after;
// a holder without a heartbeat is not dead. Returns {id, record, ...}.
const std::string kTakeExpired = std::string(kNow) + R"lua(
local out = {}
local max, dead_after = tonumber(ARGV[2]), tonumber(ARGV[3])
-- Extended and no longer the dead holder's: no other caller takes it too.
local function take(id)
  local rec = redis.call('HGET', KEYS[1], id)
  if rec then
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), id)
    table.insert(out, id)
    table.insert(out, rec)
  else
    redis.call('ZREM', KEYS[2], id)
  end
  redis.call('HDEL', KEYS[3], id)
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, max)) do
  take(id)
end
if dead_after > 0 and #out < 2 * max then
  local dead = {}
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. now, '+inf')) do
    if #out >= 2 * max then break end
    local holder = redis.call('HGET', KEYS[3], id)
    if holder then
      if dead[holder] == nil then
        local seen = tonumber(redis.call('HGET', ARGV[4], holder) or '')
        dead[holder] = seen ~= nil and now - seen > dead_after
      end
      if dead[holder] then take(id) end
    end
  end
end
return out
)lua";

std::string record_of(const Reservation& r) {
  return std::to_string(r.deliveries) + "\n" + r.queue + "\n" + r.message;
}

std::optional<Reservation> parse_record(const std::string& text) {
  auto a = text.find('\n');
  if (a == std::string::npos) return std::nullopt;
  auto b = text.find('\n', a + 1);
  if (b == std::string::npos) return std::nullopt;
  Reservation r;
  auto [p, ec] = std::from_chars(text.data(), text.data() + a, r.deliveries);
  if (ec != std::errc() || p != text.data() + a) return std::nullopt;
  r.queue = text.substr(a + 1, b - a - 1);
  r.message = text.substr(b + 1);
  return r;
}

// {id, record, id, record, ...} as pairs, skipping records that do not parse.
std::vector<std::pair<std::string, Reservation>> pairs_of(const RedisReply& r) {
  std::vector<std::pair<std::string, Reservation>> out;
  for (std::size_t i = 0; i + 1 < r.elements.size(); i += 2)
    if (auto rec = parse_record(r.elements[i + 1].text()))
      out.emplace_back(r.elements[i].text(), std::move(*rec));
  return out;
}

}  // namespace

RedisReservations::RedisReservations(RedisSettings settings)
    : pool_(std::move(settings)),
      keys_(pool_.settings().study_key),
      hold_(kHold),
      renew_(kRenew),
      take_expired_(kTakeExpired),
      commit_held_(commit_held_script()) {}

Result<std::optional<ReservationTable::HeldCommit>> RedisReservations::commit_held(
    const std::string& id, InstanceId instance, SampleId sample, Outcome outcome, double seconds,
    bool end, bool keep_at_zero) {
  if (sample > 0xFFFFFFFFull)
    return Error::runtime("redis reservations: sample " + std::to_string(sample) +
                          " is beyond the 2^32 samples a Redis bitmap holds");
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = commit_held_.run(
      **c,
      {keys_.done(instance.v), keys_.remaining(), keys_.failed(), keys_.secs(),
       keys_.failed_bits(instance.v), keys_.held(), keys_.held_until(), keys_.held_by()},
      {std::to_string(instance.v), std::to_string(sample), is_failure(outcome) ? "1" : "0",
       std::isfinite(seconds) ? fmt::format("{}", seconds) : "0", id, end ? "1" : "0",
       keep_at_zero ? "1" : "0"});
  if (!r) return r.error();
  const auto newly = r->elements.empty() ? 0 : r->elements[0].as_integer().value_or(0);
  if (newly == -2 && r->elements.size() == 2) return std::optional<HeldCommit>();
  if (r->elements.size() != 3) return Error::runtime((*c)->describe("unexpected commit reply"));
  HeldCommit out;
  out.commit.newly_done = newly == 1;
  out.commit.remaining =
      static_cast<std::uint64_t>(std::max(0LL, r->elements[1].as_integer().value_or(0)));
  out.ended = r->elements[2].as_integer().value_or(0) == 1;
  return std::optional<HeldCommit>(out);
}

Result<std::uint64_t> RedisReservations::hold(const std::string& id, const Reservation& r,
                                              std::int64_t lease_ms) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto reply = hold_.run(**c, {keys_.held(), keys_.held_until(), keys_.halts(), keys_.held_by()},
                         {id, record_of(r), std::to_string(lease_ms), r.holder});
  if (!reply) return reply.error();
  return static_cast<std::uint64_t>(std::max(0LL, reply->as_integer().value_or(0)));
}

Result<bool> RedisReservations::renew(const std::string& id, std::int64_t lease_ms) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto reply = renew_.run(**c, {keys_.held(), keys_.held_until()}, {id, std::to_string(lease_ms)});
  if (!reply) return reply.error();
  return reply->as_integer().value_or(0) == 1;
}

Result<bool> RedisReservations::drop(const std::string& id) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->pipeline({{"HDEL", keys_.held(), id},
                           {"ZREM", keys_.held_until(), id},
                           {"HDEL", keys_.held_by(), id}});
  if (!r) return r.error();
  return (*r)[0].as_integer().value_or(0) == 1;
}

Result<bool> RedisReservations::held(const std::string& id) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->command({"HEXISTS", keys_.held(), id});
  if (!r) return r.error();
  return r->as_integer().value_or(0) == 1;
}

Result<std::vector<std::pair<std::string, Reservation>>> RedisReservations::take_expired(
    std::int64_t lease_ms, std::size_t max) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r =
      take_expired_.run(**c, {keys_.held(), keys_.held_until(), keys_.held_by()},
                        {std::to_string(lease_ms), std::to_string(max),
                         std::to_string(pool_.settings().dead_after.count()), kRedisWorkerBeats});
  if (!r) return r.error();
  return pairs_of(*r);
}

Result<std::vector<std::pair<std::string, Reservation>>> RedisReservations::all() {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->command({"HGETALL", keys_.held()});
  if (!r) return r.error();
  return pairs_of(*r);
}

Result<std::uint64_t> RedisReservations::count() {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->command({"HLEN", keys_.held()});
  if (!r) return r.error();
  return static_cast<std::uint64_t>(std::max(0LL, r->as_integer().value_or(0)));
}

Result<void> RedisReservations::add_queue(const std::string& queue) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->command({"SADD", keys_.queues(), queue});
  if (!r) return r.error();
  return ok();
}

Result<std::vector<std::string>> RedisReservations::queues() {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->command({"SMEMBERS", keys_.queues()});
  if (!r) return r.error();
  std::vector<std::string> out;
  for (const auto& e : r->elements) out.push_back(e.text());
  return out;
}

}  // namespace merlin
