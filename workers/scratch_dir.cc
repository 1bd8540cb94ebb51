#include "workers/scratch_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "workers/staging_rules.h"

namespace merlin {
namespace {

constexpr const char* kHowToFix =
    "; remove it if it is not yours, or set MERLIN_SCRATCH (or the step's scratch:) to a "
    "directory of your own";

std::string octal(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

Error refused(const std::string& path, const std::string& why) {
  return {ErrorCode::kUnavailable, "scratch " + path + " refused: " + why + kHowToFix, false};
}

// Why `name` in `dir` could not be opened as a directory without following a link (Linux
// says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW, so lstat tells them apart).
Error not_a_dir(int dir, const std::string& name, const std::string& shown, int err) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return scratch_error("cannot open", shown, err);
  if (S_ISLNK(st.st_mode)) return refused(shown, "it is a symbolic link");
  if (!S_ISDIR(st.st_mode))
    return refused(shown, "it is " + describe_file_type(st.st_mode) + ", not a directory");
  return scratch_error("cannot open", shown, err);
}

// The subdirectory `name` of `dir`, never through a link; checked to be ours.
Result<UniqueFd> open_child_dir(int dir, const std::string& name, const std::string& shown) {
  UniqueFd fd(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return not_a_dir(dir, name, shown, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return scratch_error("cannot stat", shown, errno);
  if (st.st_uid != ::geteuid())
    return refused(shown, "it is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " +
                              std::to_string(::geteuid()) + ")");
  return fd;
}

}  // namespace

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Error scratch_error(const std::string& what, const std::string& path, int err) {
  const bool full = err == ENOSPC || err == EDQUOT;
  return {full ? ErrorCode::kNoSpace : ErrorCode::kUnavailable,
          "scratch not usable: " + what + " " + path + ": " + std::strerror(err), false};
}

Result<void> check_scratch_base(const std::string& base) {
  char resolved[PATH_MAX];
  if (::realpath(base.c_str(), resolved) == nullptr)
    return scratch_error("cannot resolve", base, errno);
  // From the resolved path up to `/`: each directory must be root's or ours, and one others
  // may write to needs the sticky bit, else they could rename our private dir away and put
  // theirs in its place between our check and the step's use of the path.
  for (std::string dir = resolved;;) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return scratch_error("cannot stat", dir, errno);
    const std::string shown = dir == base ? dir : dir + " (above the scratch root " + base + ")";
    if (st.st_uid != 0 && st.st_uid != ::geteuid())
      return refused(shown, "it is owned by uid " + std::to_string(st.st_uid) +
                                ", neither root nor you (uid " + std::to_string(::geteuid()) + ")");
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
      return refused(shown, "mode " + octal(st.st_mode) +
                                " lets others write to it without the sticky bit (chmod +t or "
                                "chmod go-w it)");
    if (dir == "/") break;
    auto slash = dir.find_last_of('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return ok();
}

Result<UniqueFd> open_scratch_home(const std::string& home) {
  const std::string root = std::filesystem::path(home).parent_path().string();
  std::error_code ec;
  std::filesystem::create_directories(root, ec);  // the user's chosen root: links followed
  if (ec) return scratch_error("cannot create", root, ec.value());
  if (::mkdir(home.c_str(), 0700) != 0 && errno != EEXIST)
    return scratch_error("cannot create", home, errno);
  UniqueFd fd(::open(home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return not_a_dir(AT_FDCWD, home, home, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return scratch_error("cannot stat", home, errno);
  if (st.st_uid != ::geteuid())
    return refused(home, "it is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " +
                             std::to_string(::geteuid()) + ")");
  if ((st.st_mode & 077) != 0)
    return refused(home, "mode " + octal(st.st_mode) +
                             " gives others access; it must be 0700 (chmod 700 it if it is yours "
                             "and nobody else could have written to it)");
  return fd;
}

Result<UniqueFd> open_dirs_beneath(int dir, const std::string& rel, const std::string& shown,
                                   bool create) {
  UniqueFd cur(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
  if (!cur.valid()) return scratch_error("cannot open", shown, errno);
  std::string path = shown;
  for (std::size_t at = 0; at < rel.size();) {
    std::size_t end = rel.find('/', at);
    if (end == std::string::npos) end = rel.size();
    const std::string name = rel.substr(at, end - at);
    at = end + 1;
    if (name.empty() || name == ".") continue;
    path += "/" + name;
    if (name == "..") return refused(path, "'..' leaves the scratch dir");
    if (create && ::mkdirat(cur.get(), name.c_str(), 0700) != 0 && errno != EEXIST)
      return scratch_error("cannot create", path, errno);
    auto next = open_child_dir(cur.get(), name, path);
    if (!next) return next.error();
    cur = std::move(*next);
  }
  return cur;
}

Result<void> remove_beneath(int dir, const std::string& name, const std::string& shown) {
  // Not a directory (a file, a link, a FIFO): unlinked itself, never followed.
  if (::unlinkat(dir, name.c_str(), 0) == 0 || errno == ENOENT) return ok();
  if (errno != EISDIR && errno != EPERM) return scratch_error("cannot remove", shown, errno);
  UniqueFd sub(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!sub.valid()) {
    if (errno == ELOOP || errno == ENOTDIR) {  // replaced meanwhile: remove what is there now
      if (::unlinkat(dir, name.c_str(), 0) == 0 || errno == ENOENT) return ok();
    }
    return scratch_error("cannot open", shown, errno);
  }
  DIR* d = ::fdopendir(sub.get());
  if (d == nullptr) return scratch_error("cannot list", shown, errno);
  sub.release();  // owned by `d` now
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.emplace_back(e->d_name);
  }
  Result<void> r = ok();
  for (const auto& n : names) {
    r = remove_beneath(::dirfd(d), n, shown + "/" + n);
    if (!r) break;
  }
  ::closedir(d);
  if (!r) return r;
  if (::unlinkat(dir, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
    return scratch_error("cannot remove", shown, errno);
  return ok();
}

bool prune_empty_beneath(int dir, const std::string& name) {
  UniqueFd sub(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!sub.valid()) return errno == ENOENT;
  DIR* d = ::fdopendir(sub.get());
  if (d == nullptr) return false;
  sub.release();
  std::vector<std::string> dirs;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
      dirs.emplace_back(e->d_name);
  }
  for (const auto& n : dirs) prune_empty_beneath(::dirfd(d), n);
  ::closedir(d);
  return ::unlinkat(dir, name.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT;
}

std::string path_below(const std::string& home, const std::string& path) {
  if (path.size() <= home.size() + 1 || path.compare(0, home.size(), home) != 0 ||
      path[home.size()] != '/')
    return "";
  return path.substr(home.size() + 1);
}

}  // namespace merlin
