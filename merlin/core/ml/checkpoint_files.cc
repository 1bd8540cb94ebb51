#include "merlin/core/ml/checkpoint_files.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include <fmt/format.h>

namespace merlin::ml {

std::string checkpoint_name(int epoch) { return fmt::format("epoch-{:06d}.ckpt", epoch); }

std::string checkpoint_temp_name(int epoch, long pid) {
  return fmt::format(".{}.tmp.{}", checkpoint_name(epoch), pid);
}

std::optional<int> checkpoint_epoch(const std::string& name) {
  const std::string prefix = "epoch-", suffix = ".ckpt";
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const char* b = name.data() + prefix.size();
  const char* e = name.data() + name.size() - suffix.size();
  int epoch = 0;
  auto [p, ec] = std::from_chars(b, e, epoch);
  if (ec != std::errc() || p != e || epoch < 0) return std::nullopt;
  return epoch;
}

Result<std::vector<CheckpointFile>> list_checkpoints(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<CheckpointFile> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto epoch = checkpoint_epoch(it->path().filename().string()))
      out.push_back({it->path().string(), *epoch});
  }
  if (ec) return Error::runtime("cannot read checkpoint directory " + dir + ": " + ec.message());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.epoch < b.epoch; });
  return out;
}

std::vector<CheckpointFile> checkpoints_beyond(const std::vector<CheckpointFile>& all, int keep) {
  if (static_cast<int>(all.size()) <= keep) return {};
  return {all.begin(), all.end() - keep};
}

}  // namespace merlin::ml
