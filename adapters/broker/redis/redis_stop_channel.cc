#include "adapters/broker/redis/redis_stop_channel.h"

#include <cstdlib>

#include "adapters/broker/redis/redis_connection.h"

namespace merlin {
namespace {

Result<std::unique_ptr<RedisConnection>> connect(const RedisSettings& s) {
  return RedisConnection::open(s);
}

}  // namespace

RedisStopChannel::RedisStopChannel(RedisSettings settings) : settings_(std::move(settings)) {}

Result<void> RedisStopChannel::halt(const std::string& study_key, const StudyHalt& h) {
  auto c = connect(settings_);
  if (!c) return c.error();
  auto r = (*c)->command({"XADD", RedisKeys(study_key).halts(), "*", "queue", h.queue, "step",
                          h.step, "by", h.by, "all", h.all ? "1" : "0"});
  if (!r) return r.error();
  return ok();
}

Result<std::string> RedisStopChannel::clock_mark() {
  auto c = connect(settings_);
  if (!c) return c.error();
  auto r = (*c)->command({"TIME"});
  if (!r) return r.error();
  if (r->elements.size() != 2) return Error::runtime((*c)->describe("unexpected TIME reply"));
  long long sec = std::strtoll(r->elements[0].text().c_str(), nullptr, 10);
  long long usec = std::strtoll(r->elements[1].text().c_str(), nullptr, 10);
  return std::to_string(sec * 1000 + usec / 1000) + "-0";
}

Result<std::vector<StudyHalt>> RedisStopChannel::halts_since(const std::string& study_key,
                                                         std::string& mark) {
  auto c = connect(settings_);
  if (!c) return c.error();
  auto r = (*c)->command({"XRANGE", RedisKeys(study_key).halts(), "(" + mark, "+"});
  if (!r) return r.error();
  std::vector<StudyHalt> out;
  for (const auto& entry : r->elements) {
    if (entry.elements.size() != 2) continue;
    mark = entry.elements[0].text();
    StudyHalt h;
    const auto& fields = entry.elements[1].elements;
    for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
      const std::string f = fields[i].text(), v = fields[i + 1].text();
      if (f == "queue") h.queue = v;
      if (f == "step") h.step = v;
      if (f == "by") h.by = v;
      if (f == "all") h.all = v == "1";
    }
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace merlin
