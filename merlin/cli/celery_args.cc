#include "merlin/cli/celery_args.h"

#include <charconv>
#include <sstream>

#include "merlin/cli/cli_util.h"

namespace merlin::cli {
namespace {

Result<int> positive(const std::string& text) {
  long long v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < 1 || v > kMaxSlots)
    return Error::bad_input("worker args: --concurrency must be a whole number from 1 to " +
                            std::to_string(kMaxSlots) + ", got '" + text + "'");
  return static_cast<int>(v);
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
    bool is_concurrency = true;
    if (w == "--concurrency" || w == "-c") {
      if (i + 1 >= words.size()) return Error::bad_input("worker args: " + w + " needs a number");
      value = words[++i];
    } else if (w.rfind("--concurrency=", 0) == 0) {
      value = w.substr(14);
    } else if (w.size() > 2 && w.rfind("-c", 0) == 0 && w[2] >= '0' && w[2] <= '9') {
      value = w.substr(2);
    } else {
      is_concurrency = false;
    }
    if (!is_concurrency) {
      out.ignored.push_back(w);
      continue;
    }
    auto n = positive(value);
    if (!n) return n.error();
    out.concurrency = *n;
  }
  return out;
}

}  // namespace merlin::cli
