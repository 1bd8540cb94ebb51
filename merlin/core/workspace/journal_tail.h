#pragma once
/// Reading task journals again and again (`merlin collect --follow` polls them): each journal's
/// byte offset is remembered, with the file's identity, so a poll reads only the records
/// appended since. A journal replaced (another inode), truncated below the offset or removed
/// makes the next poll start over: the caller drops what it derived and every journal is read
/// from its start.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "merlin/core/workspace/journal.h"

namespace merlin {

/// Which file a journal was, and how far it has been read (the end of its last whole record).
struct JournalCursor {
  std::uint64_t device = 0, inode = 0;
  std::uint64_t offset = 0;  ///< 0: nothing read yet (the header is read first)
};

/// What a journal's file is now.
struct JournalFileState {
  std::uint64_t device = 0, inode = 0, size = 0;
};

enum class TailAction {
  kReadFrom,  ///< read from `offset` (0: the start)
  kRebuild,   ///< the file was replaced or truncated: read every journal again from its start
};

struct TailPlan {
  TailAction action = TailAction::kReadFrom;
  std::uint64_t offset = 0;
};

/// Decides how to read a journal now, given its cursor (none: never read). Pure.
TailPlan decide_tail(const std::optional<JournalCursor>& before, const JournalFileState& now);

/// One journal read from an offset (read_journal_range).
struct JournalRange {
  bool rebuild = false;        ///< not read: `plan` said kRebuild for the file opened
  std::uint64_t records = 0;   ///< records handed to the callbacks
  std::uint64_t bytes = 0;     ///< bytes read from the file (the header included)
  JournalCursor cursor;        ///< where the next read starts (the file it was)
};

/// read_journal from `from` on (nullopt: the start): opens the file, decides with decide_tail
/// against what it opened, and reads the whole records after the offset (a torn last record
/// is left for the next read). A missing file is an empty journal (cursor at 0). Errors as
/// read_journal.
Result<JournalRange> read_journal_range(const std::string& path, std::uint32_t instances,
                                        const std::optional<JournalCursor>& from,
                                        const std::function<void(const JournalRecord&)>& each,
                                        bool with_starts = false,
                                        const JournalCounts& on_count = {});

/// What one poll of a study's journals read.
struct TailRead {
  std::uint64_t bytes = 0;     ///< bytes read, every journal's
  std::uint64_t records = 0;   ///< records handed on
  std::uint32_t journals = 0;  ///< journals looked at
  bool rebuilt = false;        ///< `on_reset` was called and every journal read from its start
};

/// The cursors of one study's journals (study_journals). Not thread-safe.
class JournalTail {
 public:
  /// Reads what every journal of `info_dir` appended since the last call. When one was
  /// replaced, truncated or removed, calls `on_reset` (drop what was derived) and reads all of
  /// them from their start. Errors as read_journal (the cursors are then forgotten: the next
  /// call starts over after an `on_reset`).
  Result<TailRead> read(const std::string& info_dir, std::uint32_t instances,
                        const std::function<void()>& on_reset,
                        const std::function<void(const JournalRecord&)>& each,
                        bool with_starts = false, const JournalCounts& on_count = {});

 private:
  std::map<std::string, JournalCursor> cursors_;
  bool started_ = false;  ///< a read succeeded: on_reset is needed before reading anew
};

}  // namespace merlin
