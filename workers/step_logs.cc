#include "workers/step_logs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <vector>

#include "merlin/core/util/files.h"
#include "merlin/core/util/io_error.h"
#include "merlin/core/workspace/log_index.h"

namespace merlin {
namespace {

// Instances whose logs stay open at once; past it all are closed (a study with many
// parameter combinations must not run out of descriptors).
constexpr std::size_t kMaxOpenInstances = 64;

Error sys_error(const std::string& what, const std::string& path) {
  return io_error(what, path, errno);  // a full disk is ErrorCode::kNoSpace
}

Result<void> write_all_at(int fd, std::string_view bytes, std::uint64_t at,
                          const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(at));
    if (n < 0) {
      if (errno == EINTR) continue;
      return sys_error("cannot write", path);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
    at += static_cast<std::uint64_t>(n);
  }
  return ok();
}

// Copies `len` bytes of `src` from 0 to `dst` at `at`: in the kernel when it can, else in
// 64 KiB blocks (memory bounded either way).
Result<void> copy_range(int src, std::uint64_t len, int dst, std::uint64_t at,
                        const std::string& path) {
  loff_t in = 0, out = static_cast<loff_t>(at);
  bool kernel = true;
  std::vector<char> buf;
  while (static_cast<std::uint64_t>(in) < len) {
    std::size_t want = static_cast<std::size_t>(len - static_cast<std::uint64_t>(in));
    if (kernel) {
      ssize_t n = ::copy_file_range(src, &in, dst, &out, want, 0);
      if (n > 0) continue;
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) break;  // the capture shrank (cannot happen: it is ours)
      if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
        return sys_error("cannot write", path);
      kernel = false;
      buf.resize(64 * 1024);
    }
    ssize_t r = ::pread(src, buf.data(), std::min(want, buf.size()), in);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return sys_error("cannot read the capture for", path);
    if (r == 0) break;
    auto w = write_all_at(dst, std::string_view(buf.data(), static_cast<std::size_t>(r)),
                          static_cast<std::uint64_t>(out), path);
    if (!w) return w;
    in += r;
    out += r;
  }
  return ok();
}

std::uint64_t size_of(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string default_log_writer() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  return std::string(host) + "." + std::to_string(::getpid());
}

StepLogs::StepLogs(StepLogsOptions options) : options_(std::move(options)) {
  if (options_.capture_dir.empty()) {
    const char* t = std::getenv("TMPDIR");
    options_.capture_dir = t && *t ? t : "/tmp";
  }
}

StepLogs::~StepLogs() {
  std::lock_guard lock(mu_);
  close_all();
}

void StepLogs::close_all() {
  for (auto& [dir, f] : open_) {
    for (int fd : {f.out, f.err, f.index})
      if (fd >= 0) ::close(fd);
  }
  open_.clear();
}

Result<int> StepLogs::capture_file() const {
  int fd = ::open(options_.capture_dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // No O_TMPFILE there (some file systems): a named file, unlinked at once.
  std::string name = options_.capture_dir + "/merlin-capture-XXXXXX";
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return sys_error("cannot make a capture file in", options_.capture_dir);
  ::unlink(name.c_str());
  return fd;
}

Result<StepLogs::Files*> StepLogs::files_of(const std::string& instance_dir) {
  auto it = open_.find(instance_dir);
  if (it != open_.end()) return &it->second;
  if (open_.size() >= kMaxOpenInstances) close_all();
  const std::string dir = log_dir_of(instance_dir);
  auto made = files::make_dirs(dir);
  if (!made) return made.error();
  const std::string base = dir + "/" + options_.writer;
  Files f;
  auto open_one = [&](const std::string& path, int& fd, std::uint64_t& end) -> Result<void> {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return sys_error("cannot open", path);
    end = size_of(fd);
    return ok();
  };
  Result<void> r = open_one(base + ".out", f.out, f.out_end);
  if (r) r = open_one(base + ".err", f.err, f.err_end);
  if (r) r = open_one(base + ".index", f.index, f.index_end);
  if (r && f.index_end < kLogIndexMagic.size()) {
    r = write_all_at(f.index, kLogIndexMagic, 0, base + ".index");
    f.index_end = kLogIndexMagic.size();
  } else if (r) {
    // A torn record of an earlier process with our pid: later records must stay aligned.
    f.index_end -= (f.index_end - kLogIndexMagic.size()) % kLogIndexRecordSize;
  }
  if (!r) {
    for (int fd : {f.out, f.err, f.index})
      if (fd >= 0) ::close(fd);
    return r.error();
  }
  return &open_.emplace(instance_dir, f).first->second;
}

Result<void> StepLogs::append(const std::string& instance_dir, const Attempt& a, int out_fd,
                              int err_fd) {
  const std::string marker = "==== merlin: sample " + std::to_string(a.sample) + " attempt " +
                             std::to_string(a.attempt) + " exit " + std::to_string(a.exit_code) +
                             " " + utc_now() + " ====\n";
  const std::uint64_t out_len = size_of(out_fd), err_len = size_of(err_fd);
  auto ends_in_newline = [](int fd, std::uint64_t len) {
    char c = '\n';
    return len == 0 || (::pread(fd, &c, 1, static_cast<off_t>(len - 1)) == 1 && c == '\n');
  };
  const bool out_nl = ends_in_newline(out_fd, out_len), err_nl = ends_in_newline(err_fd, err_len);

  std::lock_guard lock(mu_);
  auto f = files_of(instance_dir);
  if (!f) return f.error();
  Files& files = **f;
  const std::string base = log_dir_of(instance_dir) + "/" + options_.writer;
  LogIndexRecord rec;
  rec.sample = a.sample;
  rec.attempt = a.attempt;
  rec.exit_code = a.exit_code;
  struct Stream {
    int src, dst;
    std::uint64_t len;
    bool newline;
    std::uint64_t* end;
    std::uint64_t* offset;
    std::string path;
  };
  for (Stream s :
       {Stream{out_fd, files.out, out_len, out_nl, &files.out_end, &rec.out_offset, base + ".out"},
        Stream{err_fd, files.err, err_len, err_nl, &files.err_end, &rec.err_offset,
               base + ".err"}}) {
    auto w = write_all_at(s.dst, marker, *s.end, s.path);
    if (!w) return w;
    *s.offset = *s.end + marker.size();
    auto c = copy_range(s.src, s.len, s.dst, *s.offset, s.path);
    if (!c) return c;
    *s.end = *s.offset + s.len;
    if (!s.newline) {  // the next marker starts a line of its own
      auto nl = write_all_at(s.dst, "\n", *s.end, s.path);
      if (!nl) return nl;
      *s.end += 1;
    }
  }
  rec.out_length = out_len;
  rec.err_length = err_len;
  rec.end_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  // The record last: it never points at bytes not yet written.
  auto w = write_all_at(files.index, encode_log_record(rec), files.index_end, base + ".index");
  if (!w) return w;
  files.index_end += kLogIndexRecordSize;
  return ok();
}

}  // namespace merlin
