#include "workers/file_stager.h"

#include <dirent.h>
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

#include "merlin/core/util/crc32c.h"

namespace merlin {
namespace {
namespace fs = std::filesystem;

// The code a failed write means: a full file system or quota is kNoSpace (docs/cli.md, exit
// 4 in a local run), anything else kRuntime.
Error io_error(const std::string& what, const std::string& path, int err = errno) {
  return {err == ENOSPC || err == EDQUOT ? ErrorCode::kNoSpace : ErrorCode::kRuntime,
          what + " " + path + ": " + std::strerror(err), false};
}

// This boot of the node, or "" when the kernel does not say (then nothing is re-staged).
std::string this_boot_id() {
  UniqueFd f(::open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC));
  char buf[64] = {};
  ssize_t n = f.valid() ? ::read(f.get(), buf, sizeof buf - 1) : -1;
  std::string id(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

std::string this_host() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

Result<void> make_dirs(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error("cannot create", dir, ec.value());
  return ok();
}

Result<void> fsync_dir(const std::string& dir) {
  UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d.valid()) return io_error("cannot open", dir);
  if (::fsync(d.get()) != 0 && errno != EINVAL) return io_error("cannot fsync", dir);
  return ok();
}

struct Copied {
  std::uint64_t size = 0;
  std::uint32_t crc = 0;
};

// Copies the open regular file `in` (`from`, for messages) to `tmp` in the directory `dir`
// (`dir_shown`), fsyncs it and renames it to `to` there, with the checksum of the bytes
// written. Neither name is followed if it is a link. On failure `tmp` is removed: the
// directory holds the old file or the new one.
Result<Copied> copy_durably(int in, const std::string& from, int dir, const std::string& dir_shown,
                            const std::string& tmp, const std::string& to, const struct stat& st,
                            bool keep_times) {
  Copied c;
  const std::string tmp_shown = dir_shown + "/" + tmp;
  {
    UniqueFd out(::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                          st.st_mode & 0777));
    if (!out.valid()) return io_error("cannot create", tmp_shown);
    auto fail = [&](const std::string& what, const std::string& path) {
      int err = errno;
      ::unlinkat(dir, tmp.c_str(), 0);
      return io_error(what, path, err);
    };
    thread_local std::vector<char> buf(1 << 20);
    for (;;) {
      ssize_t n = ::read(in, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail("cannot read", from);
      if (n == 0) break;
      c.crc = crc32c_extend(c.crc, buf.data(), static_cast<std::size_t>(n));
      c.size += static_cast<std::uint64_t>(n);
      for (ssize_t done = 0; done < n;) {
        ssize_t w = ::write(out.get(), buf.data() + done, static_cast<std::size_t>(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return fail("cannot write", tmp_shown);
        done += w;
      }
    }
    if (keep_times) {
      struct timespec times[2] = {st.st_atim, st.st_mtim};
      ::futimens(out.get(), times);
    }
    if (::fsync(out.get()) != 0) return fail("cannot fsync", tmp_shown);
    if (::close(out.release()) != 0) return fail("cannot write", tmp_shown);
  }
  if (::renameat(dir, tmp.c_str(), dir, to.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dir, tmp.c_str(), 0);
    return io_error("cannot rename " + tmp_shown + " to", dir_shown + "/" + to, err);
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

// The entries below the open directory `dir` (`prefix` their relative path so far): regular
// files to `files`, anything else but directories to `others`. Directories are entered
// through their descriptors, never through a link.
Result<void> list_scratch(int dir, const std::string& prefix, const std::string& shown,
                          std::vector<std::string>& files, std::vector<NotRegular>& others) {
  UniqueFd dup(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
  DIR* d = dup.valid() ? ::fdopendir(dup.get()) : nullptr;
  if (d == nullptr) return io_error("cannot list", shown);
  dup.release();
  std::vector<std::string> subdirs;
  Result<void> r = ok();
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone
    const std::string rel = prefix + e->d_name;
    if (S_ISREG(st.st_mode))
      files.push_back(rel);
    else if (S_ISDIR(st.st_mode))
      subdirs.emplace_back(e->d_name);
    else
      others.push_back({rel, static_cast<unsigned>(st.st_mode)});
  }
  for (const auto& sub : subdirs) {
    UniqueFd fd(::openat(::dirfd(d), sub.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) continue;  // replaced by a link meanwhile: not entered
    r = list_scratch(fd.get(), prefix + sub + "/", shown + "/" + sub, files, others);
    if (!r) break;
  }
  ::closedir(d);
  return r;
}

// Opens the regular file `rel` below `scratch` for reading: no link is followed on the way,
// a FIFO does not block the open, and anything but a regular file is refused, naming what
// it is. Checked at open time, since the step's leftover children may change the tree after
// it was listed.
Result<UniqueFd> open_output(int scratch, const std::string& scratch_dir, const std::string& rel,
                             struct stat& st) {
  const std::string shown = scratch_dir + "/" + rel;
  const std::string parent = rel.find('/') == std::string::npos ? "" : parent_of(rel);
  auto dir = open_dirs_beneath(scratch, parent, scratch_dir, false);
  if (!dir) return Error::runtime("stage_out: " + dir.error().message);
  const std::string name = base_name(rel);
  UniqueFd fd(::openat(dir->get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ELOOP)
      return Error::runtime("stage_out: " + shown +
                            " is a symbolic link: links are not staged (write the file itself)");
    return io_error("stage_out: cannot read", shown);
  }
  if (::fstat(fd.get(), &st) != 0) return io_error("stage_out: cannot stat", shown);
  if (!S_ISREG(st.st_mode))
    return Error::runtime("stage_out: " + shown + " is " + describe_file_type(st.st_mode) +
                          ", not a regular file: not staged");
  return fd;
}

}  // namespace

bool tidy_study_scratch(const std::string& dir) {
  const std::string home = parent_of(dir);
  UniqueFd h(::open(home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!h.valid()) return errno == ENOENT;
  const std::string name = base_name(dir);
  if (auto study = open_dirs_beneath(h.get(), name, home, false)) {
    if (auto r = remove_beneath(study->get(), "stage_in", dir + "/stage_in"); !r) return false;
  } else {
    struct stat st {};
    return ::fstatat(h.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
  }
  return prune_empty_beneath(h.get(), name);
}

FileStager::FileStager(FileStagerOptions options)
    : host_(options.host.empty() ? this_host() : options.host),
      pid_(options.pid != 0 ? options.pid : static_cast<long>(::getpid())),
      boot_id_(options.boot_id.empty() ? this_boot_id() : options.boot_id),
      before_copy_(std::move(options.before_copy)) {}

std::string FileStager::manifest_path(const std::string& step_dir) const {
  return step_dir + "/.merlin_staged/" + host_ + "." + std::to_string(pid_) + ".tsv";
}

Result<UniqueFd> FileStager::open_home(const RenderedTask& task) {
  // The root first: nothing is made in a root that others could tamper with.
  const std::string root = parent_of(task.scratch_home);
  bool checked;
  {
    std::lock_guard lock(checked_mu_);
    checked = checked_roots_.count(root) > 0;
  }
  if (!checked) {
    std::error_code ec;
    fs::create_directories(root, ec);  // the user's chosen root: links in it are followed
    if (ec) return scratch_error("cannot create", root, ec.value());
    auto b = check_scratch_base(root);
    if (!b) return b.error();
    std::lock_guard lock(checked_mu_);
    checked_roots_.insert(root);
  }
  return open_scratch_home(task.scratch_home);
}

Result<void> FileStager::prepare(const RenderedTask& task) {
  auto home = open_home(task);
  if (!home) return home.error();
  const std::string rel = path_below(task.scratch_home, task.scratch_dir);
  if (rel.empty())
    return Error::bad_input("scratch dir " + task.scratch_dir + " is not below " +
                            task.scratch_home);
  // The task's parent dirs, then the task dir made afresh (a previous attempt's leftovers go,
  // links among them removed, never followed).
  const std::string name = base_name(rel);
  const std::string parent_rel = rel.find('/') == std::string::npos ? "" : parent_of(rel);
  auto parent = open_dirs_beneath(home->get(), parent_rel, task.scratch_home, true);
  if (!parent) return parent.error();
  auto rm = remove_beneath(parent->get(), name, task.scratch_dir);
  if (!rm) return rm;
  auto dir = open_dirs_beneath(parent->get(), name, parent_of(task.scratch_dir), true);
  if (!dir) return dir.error();
  // Writable and not full: a full file system still lets mkdir through, so a probe file is
  // written, and removed whatever happened.
  const char* probe = ".merlin-probe";
  const std::string probe_shown = task.scratch_dir + "/" + probe;
  {
    UniqueFd f(
        ::openat(dir->get(), probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!f.valid()) return scratch_error("cannot create", probe_shown, errno);
    int err = 0;
    if (::write(f.get(), "x", 1) != 1) err = errno != 0 ? errno : ENOSPC;
    ::unlinkat(dir->get(), probe, 0);
    if (err != 0) return scratch_error("cannot write", probe_shown, err);
  }
  for (const auto& src : task.stage_in) {
    auto r = stage_in_file(task, home->get(), dir->get(), src);
    if (!r) return r;
  }
  return ok();
}

Result<void> FileStager::stage_in_file(const RenderedTask& task, int home, int scratch,
                                       const std::string& source) {
  const std::string rel = path_below(task.scratch_home, task.stage_in_dir);
  auto sdir = open_dirs_beneath(home, rel, task.scratch_home, true);
  if (!sdir) return sdir.error();
  // The source is the user's input: a link to it is followed, but only a regular file is
  // read (a FIFO would block the slot forever).
  UniqueFd in(::open(source.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!in.valid())
    return Error::runtime("stage_in: cannot read " + source + ": " + std::strerror(errno));
  struct stat src {};
  if (::fstat(in.get(), &src) != 0) return io_error("stage_in: cannot stat", source);
  if (!S_ISREG(src.st_mode))
    return Error::runtime("stage_in: " + source + " is " + describe_file_type(src.st_mode) +
                          ", not a regular file");
  const std::string name = base_name(source);
  const std::string copy = task.stage_in_dir + "/" + name;
  {
    // One copier per node: slots and worker processes of the node take turns; the others find
    // the copy made (same size and mtime) and only link it.
    const std::string lock_path = task.stage_in_dir + "/.lock";
    UniqueFd lock(::openat(sdir->get(), ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!lock.valid()) return scratch_error("cannot open", lock_path, errno);
    while (::flock(lock.get(), LOCK_EX) != 0)
      if (errno != EINTR) return scratch_error("cannot lock", lock_path, errno);
    struct stat have {};
    bool same = ::fstatat(sdir->get(), name.c_str(), &have, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISREG(have.st_mode) && have.st_size == src.st_size &&
                have.st_mtim.tv_sec == src.st_mtim.tv_sec &&
                have.st_mtim.tv_nsec == src.st_mtim.tv_nsec;
    if (!same) {
      auto c = copy_durably(in.get(), source, sdir->get(), task.stage_in_dir,
                            temp_name(name, host_, pid_), name, src, true);
      if (!c) return Error{c.error().code, "stage_in: " + c.error().message, false};
    }
  }
  if (::symlinkat(copy.c_str(), scratch, name.c_str()) != 0 && errno != EEXIST)
    return scratch_error("cannot link " + copy + " as", task.scratch_dir + "/" + name, errno);
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
  UniqueFd scratch(
      ::open(task.scratch_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!scratch.valid()) return io_error("cannot list the scratch dir", task.scratch_dir);
  std::vector<std::string> files;
  std::vector<NotRegular> others;  // links (stage_in's among them), FIFOs, sockets, devices
  auto l = list_scratch(scratch.get(), "", task.scratch_dir, files, others);
  if (!l) return l.error();
  std::erase(files, std::string(kSuccessRecordName));  // ours, not the step's
  auto sel = select_outputs(task.stage_out, files);
  if (!sel.unmatched.empty())
    return Error::runtime(unmatched_message(sel.unmatched, others, task.scratch_dir));
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
    if (before_copy_) before_copy_(task.scratch_dir + "/" + rel);
    struct stat st {};
    auto in = open_output(scratch.get(), task.scratch_dir, rel, st);
    if (!in) return in.error();
    UniqueFd out_dir(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!out_dir.valid()) return io_error("cannot open", dir);
    auto c = copy_durably(in->get(), task.scratch_dir + "/" + rel, out_dir.get(), dir,
                          temp_name(base_name(rel), host_, pid_), base_name(rel), st, false);
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
  auto d = make_dirs(parent_of(path));
  if (!d) return d;
  UniqueFd f(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!f.valid()) return io_error("cannot open the manifest", path);
  // Every Worker of a `run-workers` process (one per worker entry) has its own FileStager and
  // they share this process's manifest of a step: a lock on the file, not on the process, keeps
  // a task's lines together even when a short write needs a second one. Released at close.
  while (::flock(f.get(), LOCK_EX) != 0)
    if (errno != EINTR) return io_error("cannot lock the manifest", path);
  // One write per task: O_APPEND keeps it whole against this process's other writes, and a
  // crash can only tear the last line, which readers skip.
  for (std::size_t done = 0; done < lines.size();) {
    ssize_t w = ::write(f.get(), lines.data() + done, lines.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return io_error("cannot append to the manifest", path);
    done += static_cast<std::size_t>(w);
  }
  if (::fdatasync(f.get()) != 0) return io_error("cannot fsync the manifest", path);
  return ok();
}

Result<void> FileStager::record_success(const RenderedTask& task, double seconds,
                                        bool write_finished) {
  if (boot_id_.empty()) return ok();  // it could never be read back
  const std::string text = format_success_record({boot_id_, seconds, write_finished});
  const std::string shown = task.scratch_dir + "/" + kSuccessRecordName;
  UniqueFd dir(::open(task.scratch_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) return io_error("cannot open", task.scratch_dir);
  // Not fsynced: the record names this boot, and after a reboot it is not believed.
  UniqueFd f(::openat(dir.get(), kSuccessRecordName,
                      O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!f.valid()) return io_error("cannot create", shown);
  if (::write(f.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return io_error("cannot write", shown);
  return ok();
}

std::optional<SuccessRecord> FileStager::success_record(const RenderedTask& task) {
  // The common case, no record, costs one lstat; a record found is then opened the careful
  // way: below the checked private dir, no link followed, only a small regular file read.
  struct stat st {};
  const std::string path = task.scratch_dir + "/" + kSuccessRecordName;
  if (boot_id_.empty() || ::fstatat(AT_FDCWD, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return std::nullopt;
  auto home = open_home(task);
  if (!home) return std::nullopt;
  const std::string rel = path_below(task.scratch_home, task.scratch_dir);
  if (rel.empty()) return std::nullopt;
  auto dir = open_dirs_beneath(home->get(), rel, task.scratch_home, false);
  if (!dir) return std::nullopt;
  UniqueFd f(::openat(dir->get(), kSuccessRecordName,
                      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!f.valid() || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 4096)
    return std::nullopt;
  char buf[4097];
  ssize_t n = ::read(f.get(), buf, sizeof buf);
  if (n <= 0) return std::nullopt;
  return parse_success_record(std::string_view(buf, static_cast<std::size_t>(n)), boot_id_);
}

void FileStager::drop_success_record(const RenderedTask& task) {
  UniqueFd dir(::open(task.scratch_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.valid()) ::unlinkat(dir.get(), kSuccessRecordName, 0);
}

Result<void> FileStager::clean(const RenderedTask& task) {
  auto home = open_home(task);
  if (!home) return home.error();
  const std::string rel = path_below(task.scratch_home, task.scratch_dir);
  const std::string parent_rel = rel.find('/') == std::string::npos ? "" : parent_of(rel);
  auto parent = open_dirs_beneath(home->get(), parent_rel, task.scratch_home, false);
  if (!parent) return parent.error();
  auto r = remove_beneath(parent->get(), base_name(rel), task.scratch_dir);
  if (!r)
    return Error::runtime("cannot remove the scratch dir " + task.scratch_dir + ": " +
                          r.error().message);
  return ok();
}

}  // namespace merlin
