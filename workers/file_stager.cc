#include "workers/file_stager.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include "merlin/util/crc32c.h"

namespace merlin {
namespace {
namespace fs = std::filesystem;

// Closes a descriptor on every path out.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

Error io_error(const std::string& what, const std::string& path, int err = errno) {
  return Error::runtime(what + " " + path + ": " + std::strerror(err));
}

std::string this_host() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

Result<void> make_dirs(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error::runtime("cannot create " + dir + ": " + ec.message());
  return ok();
}

Result<void> fsync_dir(const std::string& dir) {
  Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.fd < 0) return io_error("cannot open", dir);
  if (::fsync(d.fd) != 0 && errno != EINVAL) return io_error("cannot fsync", dir);
  return ok();
}

struct Copied {
  std::uint64_t size = 0;
  std::uint32_t crc = 0;
};

// Copies `from` to `tmp`, fsyncs it and renames it to `to`, with the checksum of the bytes
// written. On failure `tmp` is removed: the workspace holds the old file or the new one.
Result<Copied> copy_durably(const std::string& from, const std::string& tmp, const std::string& to,
                            const struct stat* keep_times = nullptr) {
  Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) return io_error("cannot read", from);
  struct stat st {};
  if (::fstat(in.fd, &st) != 0) return io_error("cannot stat", from);
  Copied c;
  {
    Fd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 0777));
    if (out.fd < 0) return io_error("cannot create", tmp);
    auto fail = [&](const std::string& what, const std::string& path) {
      int err = errno;
      ::unlink(tmp.c_str());
      return io_error(what, path, err);
    };
    thread_local std::vector<char> buf(1 << 20);
    for (;;) {
      ssize_t n = ::read(in.fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail("cannot read", from);
      if (n == 0) break;
      c.crc = crc32c_extend(c.crc, buf.data(), static_cast<std::size_t>(n));
      c.size += static_cast<std::uint64_t>(n);
      for (ssize_t done = 0; done < n;) {
        ssize_t w = ::write(out.fd, buf.data() + done, static_cast<std::size_t>(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return fail("cannot write", tmp);
        done += w;
      }
    }
    if (keep_times) {
      struct timespec times[2] = {keep_times->st_atim, keep_times->st_mtim};
      ::futimens(out.fd, times);
    }
    if (::fsync(out.fd) != 0) return fail("cannot fsync", tmp);
    int fd = out.fd;
    out.fd = -1;
    if (::close(fd) != 0) return fail("cannot write", tmp);
  }
  if (::rename(tmp.c_str(), to.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return io_error("cannot rename " + tmp + " to", to, err);
  }
  return c;
}

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string parent_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

bool tidy_study_scratch(const std::string& dir) {
  std::error_code ec;
  fs::remove_all(dir + "/stage_in", ec);
  std::vector<fs::path> dirs;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec)) dirs.push_back(it->path());
  // Deepest first: a directory is empty once its empty children are gone.
  std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) {
    return a.native().size() > b.native().size();
  });
  for (const auto& d : dirs) ::rmdir(d.c_str());
  ::rmdir(dir.c_str());
  return !fs::exists(dir, ec);
}

FileStager::FileStager(FileStagerOptions options)
    : host_(options.host.empty() ? this_host() : options.host),
      pid_(options.pid != 0 ? options.pid : static_cast<long>(::getpid())) {}

std::string FileStager::manifest_path(const std::string& step_dir) const {
  return step_dir + "/.merlin_staged/" + host_ + "." + std::to_string(pid_) + ".tsv";
}

Result<void> FileStager::prepare(const RenderedTask& task) {
  std::error_code ec;
  fs::remove_all(task.scratch_dir, ec);  // a previous attempt's leftovers
  if (ec)
    return Error::runtime("cannot clear the scratch dir " + task.scratch_dir + ": " + ec.message());
  auto d = make_dirs(task.scratch_dir);
  if (!d) return Error::runtime("scratch not usable: " + d.error().message);
  // Writable and not full: a directory can be made in a read-only tree by nobody, but a
  // full file system still lets mkdir through, so a probe file is written.
  const std::string probe = task.scratch_dir + "/.merlin-probe";
  {
    Fd f(::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (f.fd < 0) return io_error("scratch not writable: cannot create", probe);
    if (::write(f.fd, "x", 1) != 1) return io_error("scratch not writable: cannot write", probe);
  }
  ::unlink(probe.c_str());
  for (const auto& src : task.stage_in) {
    auto r = stage_in_file(task, src);
    if (!r) return r;
  }
  return ok();
}

Result<void> FileStager::stage_in_file(const RenderedTask& task, const std::string& source) {
  auto d = make_dirs(task.stage_in_dir);
  if (!d) return Error::runtime("stage_in: " + d.error().message);
  struct stat src {};
  if (::stat(source.c_str(), &src) != 0) return io_error("stage_in: cannot read", source);
  const std::string name = base_name(source);
  const std::string copy = task.stage_in_dir + "/" + name;
  {
    // One copier per node: slots and worker processes of the node take turns; the others find
    // the copy made (same size and mtime) and only link it.
    const std::string lock_path = task.stage_in_dir + "/.lock";
    Fd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (lock.fd < 0) return io_error("stage_in: cannot open", lock_path);
    while (::flock(lock.fd, LOCK_EX) != 0)
      if (errno != EINTR) return io_error("stage_in: cannot lock", lock_path);
    struct stat have {};
    bool same = ::stat(copy.c_str(), &have) == 0 && have.st_size == src.st_size &&
                have.st_mtim.tv_sec == src.st_mtim.tv_sec &&
                have.st_mtim.tv_nsec == src.st_mtim.tv_nsec;
    if (!same) {
      auto c = copy_durably(source, temp_name(name, host_, pid_), copy, &src);
      if (!c) return Error::runtime("stage_in: " + c.error().message);
    }
  }
  const std::string link = task.scratch_dir + "/" + name;
  if (::symlink(copy.c_str(), link.c_str()) != 0 && errno != EEXIST)
    return io_error("stage_in: cannot link " + copy + " as", link);
  return ok();
}

void FileStager::remove_stale_temps(const std::string& dir) const {
  // Temp files of this host's processes that died mid-copy (kill -9): nobody renames them.
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    auto t = parse_temp_name(e.path().filename().string());
    if (!t || t->first != host_) continue;
    if (t->second != pid_ && ::kill(static_cast<pid_t>(t->second), 0) != 0 && errno == ESRCH)
      fs::remove(e.path(), ec);
  }
}

Result<StageOutReport> FileStager::stage_out(const RenderedTask& task) {
  std::vector<std::string> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(task.scratch_dir, ec), end;
  if (ec)
    return Error::runtime("cannot list the scratch dir " + task.scratch_dir + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Error::runtime("cannot list " + task.scratch_dir + ": " + ec.message());
    // Regular files only: stage_in links and what they point at are not outputs.
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    files.push_back(fs::relative(it->path(), task.scratch_dir, ec).string());
  }
  auto sel = select_outputs(task.stage_out, files);
  if (!sel.unmatched.empty()) {
    std::string pats;
    for (const auto& p : sel.unmatched) pats += (pats.empty() ? "'" : ", '") + p + "'";
    return Error::runtime("stage_out pattern " + pats + " matched no file in " + task.scratch_dir);
  }
  remove_stale_temps(task.dir);
  StageOutReport report;
  std::string lines;
  std::vector<std::string> dirs;
  for (const auto& rel : sel.files) {
    const std::string to = task.dir + "/" + rel;
    const std::string dir = parent_of(to);
    if (dir != task.dir) {
      auto d = make_dirs(dir);
      if (!d) return d.error();
      remove_stale_temps(dir);
    }
    auto c = copy_durably(task.scratch_dir + "/" + rel,
                          dir + "/" + temp_name(base_name(rel), host_, pid_), to);
    if (!c) return c.error();
    // The file's directory, and each one above it up to the task dir (a subdirectory made
    // here is an entry of its parent, which must be durable too).
    for (std::string p = dir;; p = parent_of(p)) {
      if (std::find(dirs.begin(), dirs.end(), p) == dirs.end()) dirs.push_back(p);
      if (p.size() <= task.dir.size()) break;
    }
    ManifestEntry e;
    e.sample = task.sample;
    e.path = task.rel_dir.empty() ? rel : task.rel_dir + "/" + rel;
    e.size = c->size;
    e.crc32c = c->crc;
    lines += format_manifest_line(e);
    report.bytes += c->size;
    report.files.push_back(std::move(e));
  }
  // The renames are durable once their directories are.
  for (const auto& dir : dirs) {
    auto f = fsync_dir(dir);
    if (!f) return f.error();
  }
  if (!lines.empty()) {
    auto m = append_manifest(task, lines);
    if (!m) return m.error();
  }
  return report;
}

Result<void> FileStager::append_manifest(const RenderedTask& task, const std::string& lines) {
  const std::string path = manifest_path(task.step_dir);
  // Process-wide: every Worker of a `run-workers` process (one per worker entry) has its own
  // FileStager, and they share this process's manifest of a step.
  static std::mutex manifest_mu;
  std::lock_guard lock(manifest_mu);
  auto d = make_dirs(parent_of(path));
  if (!d) return d;
  Fd f(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (f.fd < 0) return io_error("cannot open the manifest", path);
  // One write per task: O_APPEND keeps it whole against this process's other writes, and a
  // crash can only tear the last line, which readers skip.
  for (std::size_t done = 0; done < lines.size();) {
    ssize_t w = ::write(f.fd, lines.data() + done, lines.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return io_error("cannot append to the manifest", path);
    done += static_cast<std::size_t>(w);
  }
  if (::fdatasync(f.fd) != 0) return io_error("cannot fsync the manifest", path);
  return ok();
}

Result<void> FileStager::clean(const RenderedTask& task) {
  std::error_code ec;
  fs::remove_all(task.scratch_dir, ec);
  if (ec)
    return Error::runtime("cannot remove the scratch dir " + task.scratch_dir + ": " +
                          ec.message());
  return ok();
}

}  // namespace merlin
