#include "tests/fakes/fake_executor.h"

#include <string_view>

namespace merlin::testing {
namespace {

bool strip_suffix(std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  s.resize(s.size() - suffix.size());
  return true;
}

}  // namespace

FakeExecutor::Call FakeExecutor::identify(const RenderedTask& task) {
  Call c;
  std::string file = task.script_path.substr(task.script_path.rfind('/') + 1);
  strip_suffix(file, ".sh");
  strip_suffix(file, ".slurm");
  if (strip_suffix(file, ".restart")) c.kind = TaskKind::kRestart;
  c.name = file;
  for (const auto& [k, v] : task.env)
    if (k == "MERLIN_SAMPLE_ID") c.sample = std::stoull(v);
  c.script_text = task.script_text;
  return c;
}

void FakeExecutor::script(const std::string& name, std::uint64_t sample, std::vector<int> codes) {
  std::lock_guard lock(mu_);
  auto& q = scripted_[{name, sample}];
  q.insert(q.end(), codes.begin(), codes.end());
}

void FakeExecutor::script_all(const std::string& name, int code) {
  std::lock_guard lock(mu_);
  all_[name] = code;
}

Result<void> FakeExecutor::prepare(const RenderedTask&) {
  std::lock_guard lock(mu_);
  ++prepared_;
  return ok();
}

Result<ExecResult> FakeExecutor::run(const RenderedTask& task) {
  Call c = identify(task);
  std::lock_guard lock(mu_);
  ExecResult r;
  auto it = scripted_.find({c.name, c.sample});
  if (it != scripted_.end() && !it->second.empty()) {
    r.exit_code = it->second.front();
    it->second.pop_front();
  } else if (auto all = all_.find(c.name); all != all_.end()) {
    r.exit_code = all->second;
  }
  r.seconds = 0.5;
  calls_.push_back(std::move(c));
  if (r.exit_code == kNoSpace) {
    Error e = Error::runtime("cannot write " + task.script_path + ": No space left on device");
    e.code = ErrorCode::kNoSpace;
    return e;
  }
  if (r.exit_code == kTimedOut) {
    r.exit_code = 143;
    r.signal = 15;
    r.timed_out = true;
  }
  return r;
}

Result<void> FakeExecutor::mark_finished(const RenderedTask& task) {
  Call c = identify(task);
  std::lock_guard lock(mu_);
  finished_.push_back(std::move(c));
  return ok();
}

std::vector<FakeExecutor::Call> FakeExecutor::calls() const {
  std::lock_guard lock(mu_);
  return calls_;
}

std::vector<FakeExecutor::Call> FakeExecutor::calls_of(const std::string& name,
                                                       std::uint64_t sample) const {
  std::lock_guard lock(mu_);
  std::vector<Call> out;
  for (const auto& c : calls_)
    if (c.name == name && c.sample == sample) out.push_back(c);
  return out;
}

std::size_t FakeExecutor::count_of(const std::string& name) const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& c : calls_) n += c.name == name ? 1 : 0;
  return n;
}

std::map<std::pair<std::string, std::uint64_t>, int> FakeExecutor::run_counts() const {
  std::lock_guard lock(mu_);
  std::map<std::pair<std::string, std::uint64_t>, int> out;
  for (const auto& c : calls_) out[{c.name, c.sample}]++;
  return out;
}

std::vector<FakeExecutor::Call> FakeExecutor::finished() const {
  std::lock_guard lock(mu_);
  return finished_;
}

std::size_t FakeExecutor::prepared() const {
  std::lock_guard lock(mu_);
  return prepared_;
}

}  // namespace merlin::testing
