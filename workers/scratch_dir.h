#pragma once
/// The file system side of node-local scratch (docs/staging.md, docs/security.md §4): the
/// user's private scratch dir `<root>/merlin-<uid>`, checked the way OpenSSH checks a
/// ControlPath directory, and directories below it made, opened and removed with *at() calls
/// that never follow a symbolic link. Nothing here follows a link below the private dir, so a
/// link planted there (by a step's leftover child) cannot send a removal or a copy elsewhere.
///
/// Errors: kNoSpace when the file system or quota is full (ENOSPC, EDQUOT), kUnavailable when
/// the scratch is not usable on this node (refused by the checks, read-only, no permission);
/// each names the path and says how to fix it.
#include <string>

#include "merlin/core/util/result.h"

namespace merlin {

/// An owned descriptor, closed on every path out.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_ = -1;
};

/// The error for a failed call on `path` (what was being done), with the code its errno
/// means for scratch: kNoSpace for ENOSPC/EDQUOT, kUnavailable otherwise.
Error scratch_error(const std::string& what, const std::string& path, int err);

/// Checks the directories `base` resolves to, from `/` down (the scratch root the user chose;
/// links in it are the user's own setting and are followed): each must be owned by root or
/// by this user, and one that others may write to must have the sticky bit (like /tmp), so
/// that nobody else can rename or replace what this user makes in it. kUnavailable naming the
/// first directory that fails, and how to fix it.
Result<void> check_scratch_base(const std::string& base);

/// Opens the user's private scratch dir `home` (`<root>/merlin-<uid>`, made 0700 when it
/// does not exist; its parent `root` is made when missing). Refused (kUnavailable) when it is
/// a symbolic link or not a directory, is not owned by this process's effective uid, or
/// others have any access to it (mode & 077): someone else may have planted it. Does not run
/// check_scratch_base (FileStager does, once per root).
Result<UniqueFd> open_scratch_home(const std::string& home);

/// Opens the directory `rel` ('/'-separated, relative) below the open directory `dir`,
/// making each missing component (0700) when `create`; no component may be a link, be other
/// than a directory, or belong to another user. `shown` is `dir`'s path, for messages.
Result<UniqueFd> open_dirs_beneath(int dir, const std::string& rel, const std::string& shown,
                                   bool create);

/// Removes `name` in the open directory `dir`, and everything below it when it is a
/// directory, without following any link (a link is removed, never what it points at).
/// Missing is fine. `shown` is the path of `name`, for messages.
Result<void> remove_beneath(int dir, const std::string& name, const std::string& shown);

/// Removes `name` in `dir` if it is a directory holding nothing but empty directories,
/// and every empty directory below it otherwise; links are never followed. Returns whether
/// `name` is gone.
bool prune_empty_beneath(int dir, const std::string& name);

/// `path` relative to `home` ("a/b" for home/a/b), or nullopt-like "" when `path` is not
/// strictly below `home`.
std::string path_below(const std::string& home, const std::string& path);

}  // namespace merlin
