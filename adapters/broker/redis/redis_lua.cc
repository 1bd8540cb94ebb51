#include "adapters/broker/redis/redis_lua.h"

#include "adapters/broker/redis/redis_settings.h"

namespace merlin::redis_lua {
namespace {

// Shared by the scripts that place or find messages (see redis_lua.h). Keys are computed
// from the study prefix (standalone Redis only). A message's width bucket comes from C++
// (width_bucket): the scripts never parse the message text, but for the take script's done check (it
// reads the head "v1 <instance> <lo> <hi>" and answers "unknown" when that does not parse).
const char* const kLib = R"lua(
local function stream_of(prefix, q, bucket)
  local b = tonumber(bucket) or 0
  if b == 0 then return prefix .. 'q:' .. q end
  redis.call('ZADD', prefix .. 'b:' .. q, b, b)
  return prefix .. 'w:' .. b .. ':' .. q
end
-- In the order they are taken: bucket -1 (Broker::publish_first: a search's promotions), then
-- single samples, then ranges, narrowest first (the set's scores are the buckets).
local function streams_of(prefix, q)
  local out, single = {}, prefix .. 'q:' .. q
  for _, b in ipairs(redis.call('ZRANGE', prefix .. 'b:' .. q, 0, -1)) do
    if single and tonumber(b) > 0 then
      out[#out + 1] = single
      single = nil
    end
    out[#out + 1] = prefix .. 'w:' .. b .. ':' .. q
  end
  if single then out[#out + 1] = single end
  return out
end
-- An entry's message and how often it was delivered before it was queued again (field 'd',
-- written by kReclaim; absent: never).
local function entry_of(fields)
  local body, d = '', 0
  for i = 1, #fields, 2 do
    if fields[i] == 'm' then body = fields[i + 1]
    elseif fields[i] == 'd' then d = tonumber(fields[i + 1]) or 0 end
  end
  return body, d
end
local function group_info(s)
  local ok, groups = pcall(redis.call, 'XINFO', 'GROUPS', s)
  if not ok then return 0, 0 end
  for _, g in ipairs(groups) do
    local f = {}
    for k = 1, #g, 2 do f[g[k]] = g[k + 1] end
    if f['name'] == GROUP then return f['pending'], f['consumers'] end
  end
  return 0, 0
end
)lua";

// The consumer group's name, from kRedisGroup: the scripts and XREADGROUP agree on it.
std::string with_lib(const char* body) {
  return "local GROUP = '" + std::string(kRedisGroup) + "'\n" + kLib + body;
}

}  // namespace

// ARGV: prefix, now (epoch ms), consumer, count (at most this many messages), queue names...
// Returns, per message taken (leaves first then the narrowest ranges, up to count), the group
// {queue index (0-based), stream id, text, 1 when delivered before (taken over from a dead
// worker or an expired lease) else 0, stream key, length of the study's halts Stream, times
// delivered, the sample's done bit for a single-sample message (1/0: the worker's done check,
// answered here) or -1 for a range}, flattened; or {-1, next due ms or ''}. Taking over is
// kReclaim's: it queues such messages again, with their count.
const std::string kTake = with_lib(R"lua(
local prefix, now, consumer = ARGV[1], ARGV[2], ARGV[3]
local group = GROUP
local delayed = prefix .. 'delayed'
for _, member in ipairs(redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, 100)) do
  -- "<queue>|<bucket>|<tag>|<message>" (members written before buckets: "<queue>|<tag>|<message>")
  local q, bucket, body = string.match(member, '^(.*)|(%d+)|[^|]*|([^|]*)$')
  if not q then
    bucket = '0'
    q, body = string.match(member, '^(.*)|[^|]*|([^|]*)$')
  end
  if q then
    redis.call('XADD', stream_of(prefix, q, bucket), '*', 'm', body)
    redis.call('HINCRBY', prefix .. 'delayed_n', q, -1)
  else
    redis.call('XADD', prefix .. 'dead', '*', 'm', member)
  end
  redis.call('ZREM', delayed, member)
end
local function stops() return redis.call('XLEN', prefix .. 'halts') end
-- A single-sample message's done bit (0/1), -1 for a range. Reads only the head of the text
-- ("v1 <instance> <lo> <hi> ...", merlin/core/broker/task_message.cc); -1 if it does not parse.
local function done_of(text)
  local inst, lo, hi = string.match(text, '^v1 (%d+) (%d+) (%d+) ')
  if not inst or tonumber(hi) - tonumber(lo) ~= 1 then return -1 end
  return redis.call('GETBIT', prefix .. 'done:' .. inst, lo)
end
local want = tonumber(ARGV[4]) or 1
local out = {}
for i = 5, #ARGV do
  for _, s in ipairs(streams_of(prefix, ARGV[i])) do
    local left = want - #out / 8
    local ok, r = pcall(redis.call, 'XREADGROUP', 'GROUP', group, consumer, 'COUNT', left,
                        'STREAMS', s, '>')
    if not ok then
      redis.call('XGROUP', 'CREATE', s, group, '0', 'MKSTREAM')
      r = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', left, 'STREAMS', s, '>')
    end
    if r and r[1] then
      for _, e in ipairs(r[1][2]) do
        local n = #out
        local text, before = entry_of(e[2])
        out[n + 1], out[n + 2], out[n + 3], out[n + 4] = i - 5, e[1], text, before > 0 and 1 or 0
        out[n + 5], out[n + 6], out[n + 7], out[n + 8] = s, 0, before + 1, done_of(text)
      end
      if #out >= 8 * want then break end
    end
  end
  if #out >= 8 * want then break end
end
if #out > 0 then
  local halts = stops()
  for k = 6, #out, 8 do out[k] = halts end
  return out
end
local nxt = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
return {-1, nxt[2] or ''}
)lua");

// ARGV: prefix, lease (ms), dead after (ms; 0: never), this consumer, heartbeat hash, max
// messages to move, scan interval (ms), queue names... Queues again, at the back of their
// Stream, every pending message of the queues' Streams that is idle past the lease or held by
// a dead consumer: one whose heartbeat (the hash's value, the server's epoch ms, written by
// RedisWorkerRegistry) is older than `dead after` by the server's clock. A consumer without a
// heartbeat is never dead here (its messages wait for their lease). A dead consumer holding
// nothing more leaves the group. The new entry carries the times delivered so far in field
// 'd' (kTake counts on from it). A queue is scanned by one process per interval (below).
// Returns {messages moved, 1 if it stopped at `max` (call again) else 0, consumers dropped}.
const std::string kReclaim = with_lib(R"lua(
local prefix, lease, dead_after = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local me, beats, budget = ARGV[4], ARGV[5], tonumber(ARGV[6])
local interval = tonumber(ARGV[7])
-- One scanner per queue and interval: the first process to come holds the queue's scan for
-- `interval` ms (its further calls of this scan go on); the others' calls cost one GET. So the
-- study's scans stay a few per interval whatever the number of worker processes, instead of
-- every process walking every consumer (O(processes^2) per interval).
local function may_scan(q)
  local key = prefix .. 'scan:' .. q
  local holder = redis.call('GET', key)
  if not holder then
    redis.call('SET', key, me, 'PX', interval)
    return true
  end
  return holder == me
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local moved, dropped, more = 0, 0, 0
local dead = {}
local function is_dead(name)
  if dead_after <= 0 or name == me then return false end
  if dead[name] == nil then
    local seen = tonumber(redis.call('HGET', beats, name) or '')
    dead[name] = seen ~= nil and now - seen > dead_after
  end
  return dead[name]
end
-- p: XPENDING's extended entries {id, consumer, idle, times delivered}.
local function requeue(s, p)
  for _, x in ipairs(p) do
    local e = redis.call('XRANGE', s, x[1], x[1])
    redis.call('XACK', s, GROUP, x[1])
    redis.call('XDEL', s, x[1])
    if e[1] then
      local body, before = entry_of(e[1][2])
      redis.call('XADD', s, '*', 'm', body, 'd', before + x[4])
      moved = moved + 1
    end
    budget = budget - 1
  end
end
for i = 8, #ARGV do
  for _, s in ipairs(may_scan(ARGV[i]) and streams_of(prefix, ARGV[i]) or {}) do
    if budget <= 0 then return {moved, 1, dropped} end
    local ok, consumers = pcall(redis.call, 'XINFO', 'CONSUMERS', s, GROUP)
    if ok then
      for _, c in ipairs(consumers) do
        local f = {}
        for k = 1, #c, 2 do f[c[k]] = c[k + 1] end
        if is_dead(f['name']) then
          local held = tonumber(f['pending']) or 0
          if held > 0 and budget > 0 then
            local p = redis.call('XPENDING', s, GROUP, '-', '+', budget, f['name'])
            requeue(s, p)
            held = held - #p
          end
          if held <= 0 then
            redis.call('XGROUP', 'DELCONSUMER', s, GROUP, f['name'])
            dropped = dropped + 1
          else
            more = 1
          end
        end
      end
      if budget > 0 and lease > 0 then
        local p = redis.call('XPENDING', s, GROUP, 'IDLE', lease, '-', '+', budget)
        requeue(s, p)
        if budget <= 0 then more = 1 end
      end
    end
  end
end
return {moved, more, dropped}
)lua");

// KEYS: stream. ARGV: id, text, consumer. Returns 1 if re-queued, 0 if it was no longer
// pending for this consumer (acked, or taken over by another worker: not ours to give back).
const std::string kRelease = with_lib(R"lua(
local ok, p = pcall(redis.call, 'XPENDING', KEYS[1], GROUP, ARGV[1], ARGV[1], 1, ARGV[3])
if not ok or not p[1] then return 0 end
redis.call('XACK', KEYS[1], GROUP, ARGV[1])
redis.call('XDEL', KEYS[1], ARGV[1])
redis.call('XADD', KEYS[1], '*', 'm', ARGV[2])
return 1
)lua");

// ARGV: prefix, queue names... After XDEL on ack a Stream's length is queued + in flight.
const std::string kPending = with_lib(R"lua(
local prefix = ARGV[1]
local named, n = {}, 0
for i = 2, #ARGV do
  local q = ARGV[i]
  if not named[q] then
    named[q] = true
    for _, s in ipairs(streams_of(prefix, q)) do n = n + redis.call('XLEN', s) end
    n = n + tonumber(redis.call('HGET', prefix .. 'delayed_n', q) or '0')
  end
end
for _, q in ipairs(redis.call('SMEMBERS', prefix .. 'queues')) do
  if not named[q] then
    for _, s in ipairs(streams_of(prefix, q)) do
      local ok, r = pcall(redis.call, 'XPENDING', s, GROUP)
      if ok then n = n + r[1] end
    end
  end
end
return n
)lua");

// KEYS: done bitmap, remaining, failed, secs hashes, failed bitmap. ARGV: instance, sample,
// failed ('1'/'0'), seconds. Returns {newly done (1/0), remaining}.
const std::string kCommit = R"lua(
local left = redis.call('HGET', KEYS[2], ARGV[1])
if not left then
  return redis.error_reply('merlin: instance ' .. ARGV[1] .. ' was not initialised')
end
if redis.call('SETBIT', KEYS[1], ARGV[2], 1) == 1 then return {0, tonumber(left)} end
local rem = redis.call('HINCRBY', KEYS[2], ARGV[1], -1)
if ARGV[3] == '1' then
  redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
  redis.call('SETBIT', KEYS[5], ARGV[2], 1)
end
if tonumber(ARGV[4]) ~= 0 then redis.call('HINCRBYFLOAT', KEYS[4], ARGV[1], ARGV[4]) end
return {1, rem}
)lua";

// ARGV: prefix, instance, sample, failed ('1'/'0'), seconds, stream, id, hold ('1'/'0'), then
// per queue of follow-ups: queue, n, then n (width bucket, message) pairs. Commit as kCommit;
// if the commit is new, appends the follow-ups; then acks (XACK + XDEL) the delivery unless
// `hold` and the instance's remaining count is 0 (the worker releases whole dependents first).
// Returns {newly done (1/0), remaining, acked (1/0)}. Resent after a lost reply: the commit is
// seen as a duplicate, nothing is appended twice, the ack is a no-op.
// Fencing: an entry leaves the group's pending list only by its holder's ack or by a takeover
// (expired lease, dead holder), which queues the message again under a new id. So a delivery
// no longer pending whose sample is not committed was taken over: its holder's late commit is
// refused, {-2, remaining, 0}, and nothing is written. The ack comes first when it cannot be
// held (the instance has more than one sample left): XACK answers whether the entry was
// pending, at no extra cost. For the instance's last sample with `hold`, XPENDING asks.
const std::string kFinish = with_lib(R"lua(
local prefix, inst, sample = ARGV[1], ARGV[2], ARGV[3]
local stream, id = ARGV[6], ARGV[7]
local remaining = prefix .. 'remaining'
local left = redis.call('HGET', remaining, inst)
if not left then
  return redis.error_reply('merlin: instance ' .. inst .. ' was not initialised')
end
left = tonumber(left)
local done = prefix .. 'done:' .. inst
local may_hold = ARGV[8] == '1' and left <= 1
local grouped, held
if may_hold then
  grouped, held = pcall(redis.call, 'XPENDING', stream, GROUP, id, id, 1)
  held = grouped and held[1] ~= nil
else
  grouped, held = pcall(redis.call, 'XACK', stream, GROUP, id)
  held = grouped and held == 1
end
if not held and redis.call('GETBIT', done, sample) == 0 then return {-2, left, 0} end
local newly, rem = 0, left
if redis.call('SETBIT', done, sample, 1) == 0 then
  newly = 1
  rem = redis.call('HINCRBY', remaining, inst, -1)
  if ARGV[4] == '1' then
    redis.call('HINCRBY', prefix .. 'failed', inst, 1)
    redis.call('SETBIT', prefix .. 'fail:' .. inst, sample, 1)
  end
  if tonumber(ARGV[5]) ~= 0 then redis.call('HINCRBYFLOAT', prefix .. 'secs', inst, ARGV[5]) end
  local i = 9
  while i + 1 <= #ARGV do
    local q, n = ARGV[i], tonumber(ARGV[i + 1])
    redis.call('SADD', prefix .. 'queues', q)
    for j = 0, n - 1 do
      redis.call('XADD', stream_of(prefix, q, ARGV[i + 2 + 2 * j]), '*', 'm', ARGV[i + 3 + 2 * j])
    end
    i = i + 2 + 2 * n
  end
end
if may_hold and rem == 0 then return {newly, rem, 0} end
if may_hold then grouped = pcall(redis.call, 'XACK', stream, GROUP, id) end
if grouped then redis.call('XDEL', stream, id) end
return {newly, rem, 1}
)lua");

// ARGV: prefix, consumer, then per finished leaf: instance, sample, failed ('1'/'0'), seconds,
// stream, id, hold ('1'/'0'), number of follow-up queues, then per queue: queue, n, n (width
// bucket, message) pairs. Each leaf in order as kFinish, with its reply. The counters of an
// instance move once per call (one HINCRBY each of remaining, failed and seconds) and the acks
// once per Stream (one XACK and one XDEL with every id), so a batch costs one SETBIT per leaf
// plus a few commands. Each leaf's remaining count is the one it would get had the leaves come
// one call each. A leaf of an instance that was never initialised gets {-1, 0, 0} and nothing
// is written for it (the others go on). Fencing as kFinish, with one XPENDING per Stream
// first: this consumer's entries pending between the batch's lowest and highest id (at most
// what the worker process holds), so a leaf no longer pending whose sample is not committed
// gets {-2, remaining, 0}. (XCLAIM JUSTID would answer the same but cost 6 us per task: it is
// a write, propagated per id.) Resent after a lost reply: the commits are seen as duplicates,
// nothing is appended twice, the acks are no-ops.
// Returns {newly done (1/0, -1 or -2), remaining, acked (1/0)} per leaf, flattened.
const std::string kFinishMany = with_lib(R"lua(
local prefix, me = ARGV[1], ARGV[2]
local remaining = prefix .. 'remaining'
-- Which deliveries are still pending, per Stream.
local ids_of, held = {}, {}
local i = 3
while i + 7 <= #ARGV do
  local stream, id, nq = ARGV[i + 4], ARGV[i + 5], tonumber(ARGV[i + 7])
  i = i + 8
  for _ = 1, nq do i = i + 2 + 2 * tonumber(ARGV[i + 1]) end
  if not ids_of[stream] then ids_of[stream] = {} end
  local l = ids_of[stream]
  l[#l + 1] = id
end
local function before(a, b)  -- Stream ids, 'ms-seq'
  local am, as = string.match(a, '(%d+)-(%d+)')
  local bm, bs = string.match(b, '(%d+)-(%d+)')
  am, bm = tonumber(am), tonumber(bm)
  if am ~= bm then return am < bm end
  return tonumber(as) < tonumber(bs)
end
for s, ids in pairs(ids_of) do
  held[s] = {}
  local lo, hi = ids[1], ids[1]
  for k = 2, #ids do
    if before(ids[k], lo) then lo = ids[k] end
    if before(hi, ids[k]) then hi = ids[k] end
  end
  local ok, got = pcall(redis.call, 'XPENDING', s, GROUP, lo, hi, 1000000, me)
  if ok then
    for _, e in ipairs(got) do held[s][e[1]] = true end
  end
end
local left, dec, fails, secs, secs_text, order = {}, {}, {}, {}, {}, {}
local acks, streams, queued = {}, {}, {}
local out = {}
i = 3
while i + 7 <= #ARGV do
  local inst, sample, failed, sec = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local stream, id, hold, nq = ARGV[i + 4], ARGV[i + 5], ARGV[i + 6], tonumber(ARGV[i + 7])
  i = i + 8
  local first_q = i
  for _ = 1, nq do i = i + 2 + 2 * tonumber(ARGV[i + 1]) end
  if left[inst] == nil then
    left[inst] = tonumber(redis.call('HGET', remaining, inst) or '') or false
    dec[inst], fails[inst], secs[inst] = 0, 0, 0
    order[#order + 1] = inst
  end
  if not left[inst] then
    out[#out + 1], out[#out + 2], out[#out + 3] = -1, 0, 0
  elseif not held[stream][id] and redis.call('GETBIT', prefix .. 'done:' .. inst, sample) == 0 then
    out[#out + 1], out[#out + 2], out[#out + 3] = -2, left[inst] - dec[inst], 0
  else
    local newly = 0
    if redis.call('SETBIT', prefix .. 'done:' .. inst, sample, 1) == 0 then
      newly = 1
      dec[inst] = dec[inst] + 1
      if failed == '1' then
        fails[inst] = fails[inst] + 1
        redis.call('SETBIT', prefix .. 'fail:' .. inst, sample, 1)
      end
      local d = tonumber(sec) or 0
      if d ~= 0 then
        -- one leaf's seconds go as given (no float formatting); several, as their sum
        if secs[inst] == 0 then secs_text[inst] = sec else secs_text[inst] = nil end
        secs[inst] = secs[inst] + d
      end
      local j = first_q
      for _ = 1, nq do
        local q, n = ARGV[j], tonumber(ARGV[j + 1])
        if not queued[q] then
          redis.call('SADD', prefix .. 'queues', q)
          queued[q] = true
        end
        for k = 0, n - 1 do
          local bucket, body = ARGV[j + 2 + 2 * k], ARGV[j + 3 + 2 * k]
          redis.call('XADD', stream_of(prefix, q, bucket), '*', 'm', body)
        end
        j = j + 2 + 2 * n
      end
    end
    local rem = left[inst] - dec[inst]
    local acked = 1
    if hold == '1' and rem == 0 then
      acked = 0
    else
      if not acks[stream] then
        acks[stream] = {}
        streams[#streams + 1] = stream
      end
      local a = acks[stream]
      a[#a + 1] = id
    end
    out[#out + 1], out[#out + 2], out[#out + 3] = newly, rem, acked
  end
end
for _, inst in ipairs(order) do
  if left[inst] and dec[inst] > 0 then
    redis.call('HINCRBY', remaining, inst, -dec[inst])
    if fails[inst] > 0 then redis.call('HINCRBY', prefix .. 'failed', inst, fails[inst]) end
    if secs[inst] ~= 0 then
      redis.call('HINCRBYFLOAT', prefix .. 'secs', inst,
                 secs_text[inst] or string.format('%.17g', secs[inst]))
    end
  end
end
for _, s in ipairs(streams) do
  local ids = acks[s]
  if #ids == 1 then
    if pcall(redis.call, 'XACK', s, GROUP, ids[1]) then redis.call('XDEL', s, ids[1]) end
  elseif pcall(redis.call, 'XACK', s, GROUP, unpack(ids)) then
    redis.call('XDEL', s, unpack(ids))
  end
end
return out
)lua");

// KEYS: stream. ARGV: id. XACK + XDEL in one call; 0 when the group is gone (purged study).
const std::string kAck = with_lib(R"lua(
if not pcall(redis.call, 'XACK', KEYS[1], GROUP, ARGV[1]) then return 0 end
redis.call('XDEL', KEYS[1], ARGV[1])
return 1
)lua");

// KEYS: total, remaining hashes. ARGV: instance, count. Records a fan-out instance's count
// if its total is still 'u' (docs/fanout.md); returns the recorded count (the first caller's).
const std::string kSetCount = R"lua(
local t = redis.call('HGET', KEYS[1], ARGV[1])
if t and t ~= 'u' then return tonumber(t) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return tonumber(ARGV[2])
)lua";

// KEYS: total, remaining, failed, secs hashes, done bitmap, failed bitmap. ARGV: instance.
// The instance's count becomes 'u' again and its progress goes (docs/fanout.md: a fan-out
// instance whose file could not be read is expanded again by restart).
const std::string kForgetCount = R"lua(
redis.call('HSET', KEYS[1], ARGV[1], 'u')
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[5], KEYS[6])
return 1
)lua";

// Restart: every failed sample becomes unfinished again (done and failed bits cleared, the
// counters moved back), so that it runs again. ARGV: prefix, number of instances. Returns the
// number of samples reset. O(failed samples).
const std::string kResetFailed = R"lua(
local prefix, n = ARGV[1], tonumber(ARGV[2])
local reset = 0
for i = 0, n - 1 do
  local f = tonumber(redis.call('HGET', prefix .. 'failed', i) or '0')
  if f > 0 then
    local bits, done = prefix .. 'fail:' .. i, prefix .. 'done:' .. i
    local from = 0
    while true do
      local pos = redis.call('BITPOS', bits, 1, math.floor(from / 8), -1)
      if pos < 0 then break end
      if pos >= from then
        redis.call('SETBIT', bits, pos, 0)
        if redis.call('SETBIT', done, pos, 0) == 1 then
          redis.call('HINCRBY', prefix .. 'remaining', i, 1)
        end
        redis.call('HINCRBY', prefix .. 'failed', i, -1)
        reset = reset + 1
      end
      from = pos + 1
    end
  end
end
return reset
)lua";

// ARGV: prefix, queue, then (width bucket, message) pairs. Returns the number appended.
const std::string kPublish = with_lib(R"lua(
local prefix, q = ARGV[1], ARGV[2]
redis.call('SADD', prefix .. 'queues', q)
for i = 3, #ARGV - 1, 2 do
  redis.call('XADD', stream_of(prefix, q, ARGV[i]), '*', 'm', ARGV[i + 1])
end
return (#ARGV - 2) / 2
)lua");

// ARGV: prefix, queue, due (epoch ms), member ("<queue>|<width bucket>|<unique tag>|<message>").
// Returns 1 if
// added, 0 if the member was there already: the count moves only with the set, so a resent
// call (its first reply lost) changes nothing.
const std::string kPublishAt = R"lua(
local prefix, q = ARGV[1], ARGV[2]
redis.call('SADD', prefix .. 'queues', q)
if redis.call('ZADD', prefix .. 'delayed', ARGV[3], ARGV[4]) == 0 then return 0 end
redis.call('HINCRBY', prefix .. 'delayed_n', q, 1)
return 1
)lua";

// KEYS: stream, dead-letter stream. ARGV: id, queue, text. Moves a pending message to the
// dead letters; 0 (nothing done) if it is no longer pending (already moved: a resent call).
const std::string kDeadLetter = with_lib(R"lua(
if redis.call('XACK', KEYS[1], GROUP, ARGV[1]) == 0 then return 0 end
redis.call('XADD', KEYS[2], '*', 'queue', ARGV[2], 'id', ARGV[1], 'm', ARGV[3])
redis.call('XDEL', KEYS[1], ARGV[1])
return 1
)lua");

// ARGV: prefix, queue names... Returns {stream key, queue index (0-based)} pairs, flattened,
// each queue's leaves first then its narrowest ranges.
const std::string kStreams = with_lib(R"lua(
local out = {}
for i = 2, #ARGV do
  for _, s in ipairs(streams_of(ARGV[1], ARGV[i])) do
    out[#out + 1] = s
    out[#out + 1] = i - 2
  end
end
return out
)lua");

// ARGV: prefix, study key, workspace, name, created, n instances, counts..., remaining...
// (both 'u' for a fan-out instance: its total stays 'u' and it has no remaining until
// kSetCount),
// n bitmaps, (instance, done bitmap) pairs..., n queues, queues..., n released, released...,
// then (queue, width bucket, message) triples. Fails with the error code EXISTS, changing
// nothing, if the study is registered already for another workspace; returns 0, changing
// nothing, if it is registered for this one (this very call, resent after its reply was lost).
// A new study has remaining = counts and no
// bitmaps; a study rebuilt from its workspace's markers (restart after the broker lost it)
// brings what was done.
const std::string kEnqueue = with_lib(R"lua(
local prefix, key = ARGV[1], ARGV[2]
if redis.call('ZSCORE', 'merlin:studies', key) then
  if redis.call('HGET', prefix .. 'meta', 'workspace') == ARGV[3] then return 0 end
  return redis.error_reply('EXISTS study ' .. key .. ' is queued already')
end
local i = 6
local n = tonumber(ARGV[i])
for inst = 0, n - 1 do
  redis.call('HSET', prefix .. 'total', inst, ARGV[i + 1 + inst])
  if ARGV[i + 1 + n + inst] ~= 'u' then
    redis.call('HSET', prefix .. 'remaining', inst, ARGV[i + 1 + n + inst])
  end
end
i = i + 1 + 2 * n
n = tonumber(ARGV[i])
for j = 0, n - 1 do
  redis.call('SET', prefix .. 'done:' .. ARGV[i + 1 + 2 * j], ARGV[i + 2 + 2 * j])
end
i = i + 1 + 2 * n
n = tonumber(ARGV[i])
for j = 1, n do
  local s = prefix .. 'q:' .. ARGV[i + j]
  redis.call('SADD', prefix .. 'queues', ARGV[i + j])
  if redis.call('EXISTS', s) == 0 then
    redis.call('XGROUP', 'CREATE', s, GROUP, '0', 'MKSTREAM')
  end
end
i = i + 1 + n
n = tonumber(ARGV[i])
for j = 1, n do redis.call('HSET', prefix .. 'released', ARGV[i + j], 1) end
i = i + 1 + n
while i + 2 <= #ARGV do
  redis.call('SADD', prefix .. 'queues', ARGV[i])
  redis.call('XADD', stream_of(prefix, ARGV[i], ARGV[i + 1]), '*', 'm', ARGV[i + 2])
  i = i + 3
end
redis.call('HSET', prefix .. 'meta', 'workspace', ARGV[3], 'name', ARGV[4], 'created', ARGV[5])
redis.call('ZADD', 'merlin:studies', ARGV[5], key)
return 1
)lua");

// ARGV: prefix. After XDEL on ack a Stream's length is queued + in flight.
const std::string kStudyPending = with_lib(R"lua(
local prefix = ARGV[1]
local n = 0
for _, q in ipairs(redis.call('SMEMBERS', prefix .. 'queues')) do
  for _, s in ipairs(streams_of(prefix, q)) do n = n + redis.call('XLEN', s) end
  n = n + tonumber(redis.call('HGET', prefix .. 'delayed_n', q) or '0')
end
return n
)lua");

// ARGV: prefix. Returns {queue, in streams, pending, consumers, delayed} per queue, flattened.
const std::string kQueueStats = with_lib(R"lua(
local prefix = ARGV[1]
local out = {}
for _, q in ipairs(redis.call('SMEMBERS', prefix .. 'queues')) do
  local len, pending, consumers = 0, 0, 0
  for _, s in ipairs(streams_of(prefix, q)) do
    len = len + redis.call('XLEN', s)
    local p, c = group_info(s)
    pending = pending + p
    if c > consumers then consumers = c end
  end
  local delayed = tonumber(redis.call('HGET', prefix .. 'delayed_n', q) or '0')
  out[#out + 1] = q
  out[#out + 1] = len
  out[#out + 1] = pending
  out[#out + 1] = consumers
  out[#out + 1] = delayed
end
return out
)lua");

// ARGV: prefix, queue names... (none: every queue of the study). Returns messages removed.
// A worker still running a removed message finds its group gone at ack (harmless).
const std::string kPurgeQueues = with_lib(R"lua(
local prefix = ARGV[1]
local queues = {}
if #ARGV > 1 then
  for i = 2, #ARGV do queues[ARGV[i]] = true end
else
  for _, q in ipairs(redis.call('SMEMBERS', prefix .. 'queues')) do queues[q] = true end
end
local n = 0
for q in pairs(queues) do
  for _, s in ipairs(streams_of(prefix, q)) do
    n = n + redis.call('XLEN', s)
    redis.call('DEL', s)
  end
  redis.call('DEL', prefix .. 'b:' .. q)
  redis.call('XGROUP', 'CREATE', prefix .. 'q:' .. q, GROUP, '0', 'MKSTREAM')
  redis.call('HDEL', prefix .. 'delayed_n', q)
end
local delayed = prefix .. 'delayed'
for _, member in ipairs(redis.call('ZRANGE', delayed, 0, -1)) do
  local q = string.match(member, '^(.*)|[^|]*|[^|]*$')
  if q and queues[q] then
    redis.call('ZREM', delayed, member)
    n = n + 1
  end
end
return n
)lua");

}  // namespace merlin::redis_lua

namespace merlin::redis_lua {

// A tuned instance's commit (docs/tuning.md): the commit of kCommit, then the RungBook's
// rules (merlin/core/tune/rung_book.h) on keys under `<prefix>tune:<inst>:`: per bracket b
// and rung k the trials finished (set m:b:k), ranked by their result (zset r:b:k, score the
// result, negated for `mode: max`, member the trial zero-padded to 10 digits so that ties go
// to the lower trial), promoted (set p:b:k); the closed rungs (hash closed, "b:k"); every
// result (hash v, task -> value), the stopped trials (hash stop), the promoted tasks (set
// promoted) and the shape (hash meta: trials, rungs). The first commit also marks the tasks
// below each later bracket's first rung done.
// ARGV: prefix, instance, task, failed ('1'/'0'), seconds, has a result ('1'/'0'), score,
// value text, trials, rungs, eta, then each bracket's first trial (ascending, from 0).
// Returns {newly done (1/0), remaining, {promoted tasks}}. Run twice (a resend after a lost
// reply), the second finds the done bit set and changes nothing.
const std::string kTuneCommit = R"lua(
local prefix, inst, task = ARGV[1], ARGV[2], tonumber(ARGV[3])
local remaining = prefix .. 'remaining'
local left = redis.call('HGET', remaining, inst)
if not left then
  return redis.error_reply('merlin: instance ' .. inst .. ' was not initialised')
end
local T, R, eta = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local firsts = {}
for i = 12, #ARGV do firsts[#firsts + 1] = tonumber(ARGV[i]) end
local base = prefix .. 'tune:' .. inst .. ':'
local done = prefix .. 'done:' .. inst
local rem = tonumber(left)
local function finish(id)
  if redis.call('SETBIT', done, id, 1) == 0 then rem = redis.call('HINCRBY', remaining, inst, -1) end
end
local function bracket_end(b) if b < #firsts then return firsts[b + 1] end return T end
if redis.call('HSETNX', base .. 'meta', 'trials', T) == 1 then
  redis.call('HSET', base .. 'meta', 'rungs', R)
  for b = 2, #firsts do
    for t = firsts[b], bracket_end(b) - 1 do
      for k = 0, b - 2 do finish(k * T + t) end
    end
  end
end
if redis.call('SETBIT', done, task, 1) == 1 then return {0, rem, {}} end
rem = redis.call('HINCRBY', remaining, inst, -1)
if ARGV[4] == '1' then
  redis.call('HINCRBY', prefix .. 'failed', inst, 1)
  redis.call('SETBIT', prefix .. 'fail:' .. inst, task, 1)
end
if tonumber(ARGV[5]) ~= 0 then redis.call('HINCRBYFLOAT', prefix .. 'secs', inst, ARGV[5]) end
local t, k = task % T, math.floor(task / T)
local b = 1
while b < #firsts and firsts[b + 1] <= t do b = b + 1 end
local first = b - 1  -- bracket b (1-based) starts at rung b - 1
local function key(kind, kk) return base .. kind .. ':' .. (b - 1) .. ':' .. kk end
redis.call('HSET', base .. 'v', task, ARGV[8])
redis.call('SADD', key('m', k), t)
if ARGV[6] == '1' then redis.call('ZADD', key('r', k), ARGV[7], string.format('%010d', t)) end
local promoted = {}
local function promote(kk, trial)
  if redis.call('SADD', key('p', kk), trial) == 1 then
    local id = (kk + 1) * T + trial
    redis.call('SADD', base .. 'promoted', id)
    promoted[#promoted + 1] = id
  end
end
if k + 1 < R then
  local top = math.floor(redis.call('SCARD', key('m', k)) / eta + 1e-9)
  if top > 0 then
    for _, m in ipairs(redis.call('ZRANGE', key('r', k), 0, top - 1)) do promote(k, tonumber(m)) end
  end
end
local closed = base .. 'closed'
for kk = k, R - 1 do
  if redis.call('HEXISTS', closed, (b - 1) .. ':' .. kk) == 0 then
    if kk > first and redis.call('HEXISTS', closed, (b - 1) .. ':' .. (kk - 1)) == 0 then break end
    local entered = redis.call('SCARD', key('p', kk - 1))
    if kk == first then entered = bracket_end(b) - firsts[b] end
    if redis.call('SCARD', key('m', kk)) < entered then break end
    redis.call('HSET', closed, (b - 1) .. ':' .. kk, 1)
    local last = kk + 1 == R
    if not last and redis.call('SCARD', key('p', kk)) == 0 then
      local best = redis.call('ZRANGE', key('r', kk), 0, 0)
      if #best > 0 then promote(kk, tonumber(best[1])) end
    end
    for _, m in ipairs(redis.call('SMEMBERS', key('m', kk))) do
      if last or redis.call('SISMEMBER', key('p', kk), m) == 0 then
        redis.call('HSET', base .. 'stop', m, 1)
        for above = kk + 1, R - 1 do finish(above * T + tonumber(m)) end
      end
    end
  end
end
return {1, rem, promoted}
)lua";

// KEYS: the promoted set, the done bitmap. The promoted tasks whose done bit is 0.
const std::string kTunePending = R"lua(
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('GETBIT', KEYS[2], id) == 0 then out[#out + 1] = id end
end
return out
)lua";

}  // namespace merlin::redis_lua
