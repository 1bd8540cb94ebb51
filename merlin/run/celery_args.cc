#include "merlin/run/celery_args.h"

#include <charconv>
#include <sstream>
#include <string_view>

#include "merlin/run/slots.h"

namespace merlin::run {
namespace {

Result<int> positive(const std::string& text) {
  long long v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < 1 || v > kMaxSlots)
    return Error::bad_input("worker args: --concurrency must be a whole number from 1 to " +
                            std::to_string(kMaxSlots) + ", got '" + text + "'");
  return static_cast<int>(v);
}

// Celery worker flags other than the concurrency: their spellings, whether a value follows,
// and whether ignoring them changes nothing a study does (silent) or would surprise (warned).
struct Flag {
  std::string_view short_name, long_name;
  bool takes_value;
  bool silent;
};
constexpr Flag kFlags[] = {
    {"-l", "--loglevel", true, true},  // our log level is --log-level / -v
    {"-O", "", true, true},            // -O fair: how prefetched tasks are handed out
    {"", "--prefetch-multiplier", true, true},
    {"-n", "--hostname", true, true},  // workers are named after the spec's worker and host
    {"-E", "--task-events", false, true},
    {"", "--events", false, true},
    {"", "--without-gossip", false, true},
    {"", "--without-mingle", false, true},
    {"", "--without-heartbeat", false, true},
    {"", "--heartbeat-interval", true, true},
    {"", "--max-tasks-per-child", true, true},
    {"", "--max-memory-per-child", true, true},
    {"", "--pidfile", true, true},
    {"-Q", "--queues", true, false},  // queues come from the steps a worker serves
    {"-X", "--exclude-queues", true, false},
    {"", "--autoscale", true, false},
    {"-P", "--pool", true, false},
    {"", "--time-limit", true, false},
    {"", "--soft-time-limit", true, false},
    {"-f", "--logfile", true, false},
    {"-B", "--beat", false, false},
    {"-D", "--detach", false, false},
    {"", "--purge", false, false},
};

// The flag `w` names, and whether its value is attached ("--loglevel=INFO", "-lINFO").
const Flag* find_flag(const std::string& w, bool& attached) {
  attached = false;
  for (const auto& f : kFlags) {
    if (w == f.long_name || w == f.short_name) return &f;
    if (!f.takes_value) continue;
    if (!f.long_name.empty() && w.size() > f.long_name.size() && w.starts_with(f.long_name) &&
        w[f.long_name.size()] == '=') {
      attached = true;
      return &f;
    }
    if (!f.short_name.empty() && w.size() > 2 && w.starts_with(f.short_name)) {
      attached = true;
      return &f;
    }
  }
  return nullptr;
}

}  // namespace

Result<CeleryArgs> parse_celery_args(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  CeleryArgs out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    std::string value;
    if (w == "--concurrency" || w == "-c") {
      if (i + 1 >= words.size()) return Error::bad_input("worker args: " + w + " needs a number");
      value = words[++i];
    } else if (w.rfind("--concurrency=", 0) == 0) {
      value = w.substr(14);
    } else if (w.size() > 2 && w.rfind("-c", 0) == 0 && w[2] >= '0' && w[2] <= '9') {
      value = w.substr(2);
    } else {
      bool attached = false;
      const Flag* f = find_flag(w, attached);
      std::string flag = w;
      if (f && f->takes_value && !attached && i + 1 < words.size()) flag += " " + words[++i];
      if (!f || !f->silent) out.ignored.push_back(flag);
      continue;
    }
    auto n = positive(value);
    if (!n) return n.error();
    out.concurrency = *n;
  }
  return out;
}

}  // namespace merlin::run
