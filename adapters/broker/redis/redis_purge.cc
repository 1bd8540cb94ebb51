#include "adapters/broker/redis/redis_purge.h"

#include "adapters/broker/redis/redis_connection.h"

namespace merlin {
namespace {

// SCAN MATCH is a glob: the study key's own glob characters must match literally.
std::string glob_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '*' || ch == '?' || ch == '[' || ch == ']' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

Result<std::uint64_t> purge_study(const RedisSettings& settings) {
  auto c = RedisConnection::open(settings);
  if (!c) return c.error();
  auto pattern = glob_escape(RedisKeys(settings.study_key).prefix) + "*";
  std::uint64_t removed = 0;
  std::string cursor = "0";
  do {
    auto r = (*c)->command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
    if (!r) return r.error();
    if (r->elements.size() != 2) return Error::runtime((*c)->describe("unexpected SCAN reply"));
    cursor = r->elements[0].text();
    RedisCommand unlink{"UNLINK"};
    for (const auto& k : r->elements[1].elements) unlink.push_back(k.text());
    if (unlink.size() > 1) {
      auto u = (*c)->command(unlink);
      if (!u) return u.error();
      removed += static_cast<std::uint64_t>(u->as_integer().value_or(0));
    }
  } while (cursor != "0");
  return removed;
}

}  // namespace merlin
