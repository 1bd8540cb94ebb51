#include "merlin/run/staged_verify.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "workers/scratch_dir.h"
#include "workers/staging_rules.h"
#include "merlin/core/util/crc32c.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/json_text.h"

namespace merlin::run {
namespace {

constexpr const char* kManifestDir = ".merlin_staged";

// One file to check: what each manifest that lists it says (the last line per manifest
// file; two workers may have staged one redelivered sample, each writing its own manifest,
// and the file is whichever renamed last: it must match one of them).
struct ToCheck {
  std::string step;
  std::uint64_t sample = 0;
  std::string path;
  std::vector<ManifestEntry> claims;
};

struct StepDir {
  std::string name;
  UniqueFd fd;
};

bool is_dir_no_follow(int at, const char* name) {
  struct stat st {};
  return ::fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> list_names(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') names.emplace_back(e->d_name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

bool leaves_dir(const std::string& rel) {
  if (rel.empty() || rel.front() == '/') return true;
  for (std::size_t at = 0; at <= rel.size();) {
    std::size_t end = rel.find('/', at);
    if (end == std::string::npos) end = rel.size();
    if (rel.compare(at, end - at, "..") == 0 && end - at == 2) return true;
    at = end + 1;
  }
  return false;
}

// Opens `rel` below the open directory `dir` without following any link on the way; sets
// `f`'s problem when it cannot. Only a regular file is opened (fstatat first: a device node
// is never opened).
UniqueFd open_staged(int dir, const std::string& rel, StagedFinding& f) {
  UniqueFd cur(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
  std::size_t at = 0;
  for (std::size_t end; (end = rel.find('/', at)) != std::string::npos; at = end + 1) {
    const std::string name = rel.substr(at, end - at);
    if (name.empty() || name == ".") continue;
    struct stat st {};
    if (::fstatat(cur.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      f.problem = errno == ENOENT ? StagedProblem::kMissing : StagedProblem::kUnreadable;
      f.detail = errno == ENOENT ? "" : rel.substr(0, end) + ": " + std::strerror(errno);
      return {};
    }
    if (!S_ISDIR(st.st_mode)) {
      f.problem = StagedProblem::kNotRegular;
      f.detail = rel.substr(0, end) + " on its path is " + describe_file_type(st.st_mode) +
                 ", not a directory";
      return {};
    }
    UniqueFd next(::openat(cur.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      f.problem = StagedProblem::kUnreadable;
      f.detail = rel.substr(0, end) + ": " + std::strerror(errno);
      return {};
    }
    cur = std::move(next);
  }
  const std::string base = rel.substr(at);
  struct stat st {};
  if (::fstatat(cur.get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    f.problem = errno == ENOENT ? StagedProblem::kMissing : StagedProblem::kUnreadable;
    if (errno != ENOENT) f.detail = std::strerror(errno);
    return {};
  }
  if (!S_ISREG(st.st_mode)) {
    f.problem = StagedProblem::kNotRegular;
    f.detail = describe_file_type(st.st_mode);
    return {};
  }
  UniqueFd fd(::openat(cur.get(), base.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat now {};
  if (!fd.valid() || ::fstat(fd.get(), &now) != 0) {
    f.problem = StagedProblem::kUnreadable;
    f.detail = std::strerror(errno);
    return {};
  }
  if (!S_ISREG(now.st_mode)) {  // replaced between the look and the open
    f.problem = StagedProblem::kNotRegular;
    f.detail = describe_file_type(now.st_mode);
    return {};
  }
  return fd;
}

// Checks one file: true when it matches one of its claims, else false with `f` filled in.
bool check_one(int step_fd, const ToCheck& c, std::vector<char>& buf, StagedFinding& f) {
  f.step = c.step;
  f.sample = c.sample;
  f.path = c.path;
  f.expected_size = c.claims.front().size;
  f.expected_crc32c = c.claims.front().crc32c;
  if (leaves_dir(c.path)) {
    f.problem = StagedProblem::kUnreadable;
    f.detail = "the manifest's path leaves the step's directory: not read";
    return false;
  }
  UniqueFd fd = open_staged(step_fd, c.path, f);
  if (!fd.valid()) return false;
  struct stat st {};
  ::fstat(fd.get(), &st);
  f.actual_size = static_cast<std::uint64_t>(st.st_size);
  auto same_size = std::find_if(c.claims.begin(), c.claims.end(),
                                [&](const ManifestEntry& e) { return e.size == f.actual_size; });
  if (same_size == c.claims.end()) {
    f.problem = StagedProblem::kSize;
    return false;
  }
  f.expected_crc32c = same_size->crc32c;
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  std::uint32_t crc = 0;
  std::uint64_t read = 0;
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      f.problem = StagedProblem::kUnreadable;
      f.detail = std::strerror(errno);
      return false;
    }
    if (n == 0) break;
    crc = crc32c_extend(crc, buf.data(), static_cast<std::size_t>(n));
    read += static_cast<std::uint64_t>(n);
  }
  f.actual_size = read;  // what was read, should it have changed meanwhile
  f.actual_crc32c = crc;
  for (const auto& e : c.claims) {
    if (e.size == read && e.crc32c == crc) return true;
  }
  f.problem = read == same_size->size ? StagedProblem::kChecksum : StagedProblem::kSize;
  return false;
}

std::string hex8(std::uint32_t v) {
  char b[9];
  std::snprintf(b, sizeof b, "%08" PRIx32, v);
  return b;
}

}  // namespace

const char* staged_problem_name(StagedProblem p) {
  switch (p) {
    case StagedProblem::kMissing: return "missing";
    case StagedProblem::kNotRegular: return "not a regular file";
    case StagedProblem::kSize: return "size differs";
    case StagedProblem::kChecksum: return "checksum differs";
    case StagedProblem::kUnreadable: return "unreadable";
  }
  return "unknown";
}

Result<VerifyReport> verify_staged(const VerifyOptions& o) {
  VerifyReport r;
  UniqueFd ws(::open(o.workspace.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!ws.valid())
    return Error::runtime("cannot open " + o.workspace + ": " + std::strerror(errno));
  std::vector<StepDir> steps;
  for (const auto& name : list_names(o.workspace)) {
    if (!is_dir_no_follow(ws.get(), name.c_str())) continue;
    UniqueFd fd(::openat(ws.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid() || !is_dir_no_follow(fd.get(), kManifestDir)) continue;
    steps.push_back({name, std::move(fd)});
  }
  if (!o.steps.empty()) {
    std::vector<std::string> have;
    for (const auto& s : steps) have.push_back(s.name);
    std::string unknown;
    for (const auto& want : o.steps) {
      if (std::find(have.begin(), have.end(), want) == have.end()) unknown += " '" + want + "'";
    }
    if (!unknown.empty()) {
      std::string choices;
      for (const auto& h : have) choices += (choices.empty() ? "" : ", ") + h;
      return Error::bad_input("no staging manifest for step" + unknown + " in " + o.workspace +
                              (have.empty() ? std::string(" (no step of it has staged outputs)")
                                            : " (steps with staged outputs: " + choices + ")"));
    }
    std::erase_if(steps, [&](const StepDir& s) {
      return std::find(o.steps.begin(), o.steps.end(), s.name) == o.steps.end();
    });
  }

  std::vector<ToCheck> work;
  std::vector<int> work_step;  // index into `steps` per item
  for (std::size_t si = 0; si < steps.size(); ++si) {
    const auto& s = steps[si];
    r.steps.push_back(s.name);
    const std::string dir = o.workspace + "/" + s.name + "/" + kManifestDir;
    std::map<std::pair<std::uint64_t, std::string>, ToCheck> files;
    for (const auto& name : list_names(dir)) {
      if (name.size() < 4 || name.compare(name.size() - 4, 4, ".tsv") != 0) continue;
      auto text = files::read(dir + "/" + name);
      if (!text) return text.error();
      std::size_t malformed = 0;
      for (auto& [key, e] : read_manifest(*text, &malformed)) {
        auto& c = files[key];
        c.claims.push_back(e);
      }
      r.malformed_lines += malformed;
    }
    std::set<std::uint64_t> samples;
    for (auto& [key, c] : files) {
      c.step = s.name;
      c.sample = key.first;
      c.path = key.second;
      samples.insert(key.first);
      r.bytes += c.claims.front().size;
      work.push_back(std::move(c));
      work_step.push_back(static_cast<int>(si));
    }
    r.samples += samples.size();
  }
  r.files = work.size();

  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::mutex mu;  // findings, progress
  auto run = [&] {
    std::vector<char> buf(1 << 20);
    for (std::size_t i; (i = next.fetch_add(1)) < work.size();) {
      StagedFinding f;
      bool good = check_one(steps[static_cast<std::size_t>(work_step[i])].fd.get(), work[i], buf, f);
      std::uint64_t n = done.fetch_add(1) + 1;
      std::lock_guard<std::mutex> lock(mu);
      if (!good) r.findings.push_back(std::move(f));
      if (o.progress != nullptr && o.progress->due()) o.progress->update(n, work.size());
    }
  };
  unsigned threads = std::max(1u, std::min<unsigned>(o.threads, static_cast<unsigned>(work.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
  if (o.progress != nullptr) {
    o.progress->update(done.load(), work.size());
    o.progress->finish();
  }
  for (auto& c : work) r.listed[c.step][c.sample].push_back(std::move(c.path));
  std::sort(r.findings.begin(), r.findings.end(), [](const StagedFinding& a, const StagedFinding& b) {
    return std::tie(a.step, a.path, a.sample) < std::tie(b.step, b.path, b.sample);
  });
  return r;
}

std::string finding_line(const std::string& workspace, const StagedFinding& f) {
  std::string line = workspace + "/" + f.step + "/" + f.path + " (sample " +
                     std::to_string(f.sample) + "): ";
  switch (f.problem) {
    case StagedProblem::kMissing:
      return line + "missing (the manifest says " + std::to_string(f.expected_size) + " bytes)";
    case StagedProblem::kNotRegular:
      return line + (f.detail.find(" on its path ") != std::string::npos
                         ? f.detail
                         : f.detail + ", not a regular file") +
             " (not read)";
    case StagedProblem::kSize:
      return line + std::to_string(f.actual_size) + " bytes, the manifest says " +
             std::to_string(f.expected_size);
    case StagedProblem::kChecksum:
      return line + "CRC32C " + hex8(f.actual_crc32c) + ", the manifest says " +
             hex8(f.expected_crc32c) + " (same size, " + std::to_string(f.actual_size) +
             " bytes)";
    case StagedProblem::kUnreadable:
      return line + "cannot read: " + f.detail;
  }
  return line;
}

std::string verify_json(const std::string& workspace, const VerifyReport& r,
                        const ExpectedReport& expected) {
  std::string out = "{\"workspace\": " + json_quoted(workspace) + ", \"steps\": [";
  for (std::size_t i = 0; i < r.steps.size(); ++i)
    out += (i ? ", " : "") + json_quoted(r.steps[i]);
  out += "], \"files\": " + std::to_string(r.files) + ", \"bytes\": " + std::to_string(r.bytes) +
         ", \"samples\": " + std::to_string(r.samples) +
         ", \"malformed_lines\": " + std::to_string(r.malformed_lines) +
         ", \"tasks_checked\": " + std::to_string(expected.tasks) + ", \"ok\": " +
         (r.findings.empty() && expected.unrecorded.empty() ? "true" : "false") +
         ", \"findings\": [";
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    const auto& f = r.findings[i];
    out += std::string(i ? ", " : "") + "{\"step\": " + json_quoted(f.step) +
           ", \"sample\": " + std::to_string(f.sample) + ", \"path\": " + json_quoted(f.path) +
           ", \"problem\": " + json_quoted(staged_problem_name(f.problem)) +
           ", \"expected_size\": " + std::to_string(f.expected_size) +
           ", \"expected_crc32c\": \"" + hex8(f.expected_crc32c) + "\"";
    if (f.problem == StagedProblem::kSize || f.problem == StagedProblem::kChecksum)
      out += ", \"actual_size\": " + std::to_string(f.actual_size);
    if (f.problem == StagedProblem::kChecksum)
      out += ", \"actual_crc32c\": \"" + hex8(f.actual_crc32c) + "\"";
    if (!f.detail.empty()) out += ", \"detail\": " + json_quoted(f.detail);
    out += "}";
  }
  out += "], \"unrecorded\": [";
  for (std::size_t i = 0; i < expected.unrecorded.size(); ++i) {
    const auto& t = expected.unrecorded[i];
    out += std::string(i ? ", " : "") + "{\"step\": " + json_quoted(t.step) +
           ", \"sample\": " + std::to_string(t.sample) + ", \"dir\": " + json_quoted(t.dir) +
           ", \"pattern\": " + json_quoted(t.pattern) + "}";
  }
  out += "], \"unchecked_steps\": [";
  for (std::size_t i = 0; i < expected.unchecked_steps.size(); ++i)
    out += (i ? ", " : "") + json_quoted(expected.unchecked_steps[i]);
  return out + "]}\n";
}

}  // namespace merlin::run
