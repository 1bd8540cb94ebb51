#include "adapters/broker/redis/redis_state_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "adapters/broker/redis/redis_lua.h"

namespace merlin {
namespace {

// HGETALL as (instance index, value text) pairs; fields that are not instance numbers are
// skipped.
template <typename F>
void for_each_field(const RedisReply& r, F&& f) {
  for (std::size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    const auto& k = r.elements[i].text();
    std::uint32_t inst = 0;
    auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), inst);
    if (ec == std::errc() && p == k.data() + k.size()) f(inst, r.elements[i + 1].text());
  }
}

std::uint64_t to_u64(const std::string& s) {
  std::uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// A commit script's {newly done (1/0), remaining, ...} reply.
CommitResult commit_result_of(const RedisReply& r) {
  CommitResult out;
  out.newly_done = r.elements[0].as_integer().value_or(0) == 1;
  out.remaining = static_cast<std::uint64_t>(std::max(0LL, r.elements[1].as_integer().value_or(0)));
  return out;
}

// Shortest text that reads back as the same double (HINCRBYFLOAT rejects nan/inf).
std::string fmt_seconds(double s) { return std::isfinite(s) ? fmt::format("{}", s) : "0"; }

}  // namespace

RedisStateStore::RedisStateStore(RedisSettings settings)
    : pool_(std::move(settings)),
      keys_(pool_.settings().study_key),
      commit_script_(redis_lua::kCommit),
      set_count_script_(redis_lua::kSetCount),
      forget_count_script_(redis_lua::kForgetCount),
      tune_commit_script_(redis_lua::kTuneCommit),
      tune_pending_script_(redis_lua::kTunePending) {}

void RedisStateStore::set_tuned(InstanceId id, const tune::TuneShape& shape) {
  std::lock_guard lock(tuned_mu_);
  tuned_.try_emplace(id.v, shape);
}

std::optional<tune::TuneShape> RedisStateStore::tuned(InstanceId id) {
  std::lock_guard lock(tuned_mu_);
  auto it = tuned_.find(id.v);
  if (it == tuned_.end()) return std::nullopt;
  return it->second;
}

Result<CommitResult> RedisStateStore::commit_trial(InstanceId id, SampleId task, Outcome outcome,
                                                   double seconds, double value) {
  auto shape = tuned(id);
  if (!shape) return commit(id, task, outcome, seconds);
  if (task >= shape->tasks() || shape->tasks() > 0xFFFFFFFFull)
    return Error::runtime("redis state store: task " + std::to_string(task) + " of tuned instance " +
                          std::to_string(id.v) + " is outside its " +
                          std::to_string(shape->tasks()) + " tasks");
  auto c = pool_.acquire();
  if (!c) return c.error();
  const bool has = std::isfinite(value);
  std::vector<std::string> args = {keys_.prefix,
                                   std::to_string(id.v),
                                   std::to_string(task),
                                   is_failure(outcome) ? "1" : "0",
                                   fmt_seconds(seconds),
                                   has ? "1" : "0",
                                   has ? fmt::format("{}", shape->maximize ? -value : value) : "0",
                                   has ? fmt::format("{}", value) : "nan",
                                   std::to_string(shape->trials),
                                   std::to_string(shape->rungs),
                                   fmt::format("{}", shape->eta)};
  for (auto f : shape->bracket_first) args.push_back(std::to_string(f));
  auto r = tune_commit_script_.run(**c, {}, args);
  if (!r) return r.error();
  if (r->elements.size() != 3) return Error::runtime((*c)->describe("unexpected tune commit reply"));
  CommitResult out = commit_result_of(*r);
  for (const auto& e : r->elements[2].elements)
    if (auto n = e.as_integer(); n && *n >= 0) out.promoted.push_back(static_cast<SampleId>(*n));
  std::sort(out.promoted.begin(), out.promoted.end());
  return out;
}

Result<std::vector<SampleId>> RedisStateStore::pending_promotions(InstanceId id) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  const std::string base = keys_.prefix + "tune:" + std::to_string(id.v) + ":";
  auto r = tune_pending_script_.run(**c, {base + "promoted", keys_.done(id.v)}, {});
  if (!r) return r.error();
  std::vector<SampleId> out;
  for (const auto& e : r->elements)
    if (auto n = e.as_integer(); n && *n >= 0) out.push_back(static_cast<SampleId>(*n));
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<tune::TrialStanding>> RedisStateStore::standings(InstanceId id) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  const std::string base = keys_.prefix + "tune:" + std::to_string(id.v) + ":";
  auto r = (*c)->pipeline(
      {{"HGETALL", base + "meta"}, {"HGETALL", base + "v"}, {"HGETALL", base + "stop"}});
  if (!r) return r.error();
  for (const auto& reply : *r)
    if (reply.is_error()) return Error::runtime((*c)->describe(reply.text()));
  std::uint64_t trials = 0;
  const auto& meta = (*r)[0].elements;
  for (std::size_t i = 0; i + 1 < meta.size(); i += 2)
    if (meta[i].text() == "trials") trials = to_u64(meta[i + 1].text());
  if (trials == 0)
    if (auto shape = tuned(id)) trials = shape->trials;
  std::vector<tune::TrialStanding> out(trials);
  for (std::uint32_t t = 0; t < trials; ++t) {
    out[t].trial = t;
    out[t].value = std::numeric_limits<double>::quiet_NaN();
    out[t].running = true;
  }
  if (trials == 0) return out;
  const auto& v = (*r)[1].elements;
  for (std::size_t i = 0; i + 1 < v.size(); i += 2) {
    const std::uint64_t task = to_u64(v[i].text());
    const auto t = static_cast<std::uint32_t>(task % trials);
    const int rung = static_cast<int>(task / trials);
    if (rung <= out[t].rung) continue;
    out[t].rung = rung;
    const std::string& text = v[i + 1].text();
    out[t].value = text == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                 : std::strtod(text.c_str(), nullptr);
  }
  const auto& stop = (*r)[2].elements;
  for (std::size_t i = 0; i + 1 < stop.size(); i += 2) {
    const std::uint64_t t = to_u64(stop[i].text());
    if (t < trials) {
      out[t].stopped = true;
      out[t].running = false;
    }
  }
  return out;
}

Result<void> RedisStateStore::forget_count(InstanceId id) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = forget_count_script_.run(**c,
                                    {keys_.total(), keys_.remaining(), keys_.failed(), keys_.secs(),
                                     keys_.done(id.v), keys_.failed_bits(id.v)},
                                    {std::to_string(id.v)});
  if (!r) return r.error();
  return ok();
}

Result<std::uint64_t> RedisStateStore::set_count(InstanceId id, std::uint64_t count) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = set_count_script_.run(**c, {keys_.total(), keys_.remaining()},
                                 {std::to_string(id.v), std::to_string(count)});
  if (!r) return r.error();
  auto n = r->as_integer();
  if (!n || *n < 0) return Error::runtime((*c)->describe("unexpected set-count reply"));
  return static_cast<std::uint64_t>(*n);
}

Result<CommitResult> RedisStateStore::commit(InstanceId id, SampleId sample, Outcome outcome,
                                             double seconds) {
  if (tuned(id))  // a tuned task without a result
    return commit_trial(id, sample, outcome, seconds, std::numeric_limits<double>::quiet_NaN());
  if (sample > 0xFFFFFFFFull)
    return Error::runtime("redis state store: sample " + std::to_string(sample) +
                          " is beyond the 2^32 samples a Redis bitmap holds");
  auto c = pool_.acquire();
  if (!c) return c.error();
  bool failed = is_failure(outcome);
  auto r = commit_script_.run(
      **c,
      {keys_.done(id.v), keys_.remaining(), keys_.failed(), keys_.secs(), keys_.failed_bits(id.v)},
      {std::to_string(id.v), std::to_string(sample), failed ? "1" : "0", fmt_seconds(seconds)});
  if (!r) return r.error();
  if (r->elements.size() != 2) return Error::runtime((*c)->describe("unexpected commit reply"));
  return commit_result_of(*r);
}

Result<bool> RedisStateStore::is_done(InstanceId id, SampleId sample) {
  if (sample > 0xFFFFFFFFull) return false;
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->command({"GETBIT", keys_.done(id.v), std::to_string(sample)});
  if (!r) return r.error();
  return r->as_integer().value_or(0) == 1;
}

Result<bool> RedisStateStore::is_complete(InstanceId id) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->command({"HGET", keys_.remaining(), std::to_string(id.v)});
  if (!r) return r.error();
  auto n = r->as_integer();
  return n.has_value() && *n <= 0;
}

Result<bool> RedisStateStore::claim_release(InstanceId id) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->command({"HSETNX", keys_.released(), std::to_string(id.v), "1"});
  if (!r) return r.error();
  return r->as_integer().value_or(0) == 1;
}

Result<std::vector<InstanceProgress>> RedisStateStore::progress() {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->pipeline({{"HGETALL", keys_.total()},
                           {"HGETALL", keys_.remaining()},
                           {"HGETALL", keys_.failed()},
                           {"HGETALL", keys_.secs()}});
  if (!r) return r.error();
  for (const auto& reply : *r)
    if (reply.is_error()) return Error::runtime((*c)->describe(reply.text()));
  std::vector<InstanceProgress> out;
  for_each_field((*r)[0], [&](std::uint32_t i, const std::string& v) {
    if (i >= out.size()) out.resize(i + 1);
    if (v == redis_lua::kUnknownCount) {  // a fan-out instance not released yet
      out[i].count_known = false;
      return;
    }
    out[i].total = to_u64(v);
    out[i].done = out[i].total;  // until `remaining` says otherwise
  });
  for_each_field((*r)[1], [&](std::uint32_t i, const std::string& v) {
    if (i < out.size()) out[i].done = out[i].total - std::min(out[i].total, to_u64(v));
  });
  for_each_field((*r)[2], [&](std::uint32_t i, const std::string& v) {
    if (i < out.size()) out[i].failed = to_u64(v);
  });
  for_each_field((*r)[3], [&](std::uint32_t i, const std::string& v) {
    if (i < out.size()) out[i].seconds = std::strtod(v.c_str(), nullptr);
  });
  return out;
}

Result<SampleBits> RedisStateStore::sample_bits(InstanceId id) {
  auto c = pool_.acquire();
  if (!c) return c.error();
  auto r = (*c)->pipeline({{"GET", keys_.done(id.v)}, {"GET", keys_.failed_bits(id.v)}});
  if (!r) return r.error();
  for (const auto& reply : *r)
    if (reply.is_error()) return Error::runtime((*c)->describe(reply.text()));
  return SampleBits{(*r)[0].text(), (*r)[1].text()};
}

}  // namespace merlin
