#include "merlin/core/workspace/journal_tail.h"

#include <set>

#include "merlin/core/workspace/task_journals.h"

namespace merlin {

TailPlan decide_tail(const std::optional<JournalCursor>& before, const JournalFileState& now) {
  if (!before || before->offset == 0) return {TailAction::kReadFrom, 0};
  // Another file under the name (a journal moved away and made anew), or a file shorter than
  // what was read (cut): the records read before may not be there any more.
  if (before->device != now.device || before->inode != now.inode || now.size < before->offset)
    return {TailAction::kRebuild, 0};
  return {TailAction::kReadFrom, before->offset};
}

Result<TailRead> JournalTail::read(const std::string& info_dir, std::uint32_t instances,
                                   const std::function<void()>& on_reset,
                                   const std::function<void(const JournalRecord&)>& each,
                                   bool with_starts, const JournalCounts& on_count) {
  auto journals = study_journals(info_dir);
  if (!journals) return journals.error();
  TailRead out;
  const std::set<std::string> now(journals->begin(), journals->end());
  bool rebuild = false;
  for (const auto& [path, c] : cursors_)
    if (c.offset > 0 && !now.count(path)) rebuild = true;  // a journal read before is gone
  for (int pass = 0; pass < 2; ++pass) {
    if (rebuild) {
      cursors_.clear();
      if (started_ && on_reset) on_reset();
      out = TailRead{};
      out.rebuilt = started_;
      rebuild = false;
    }
    for (const auto& path : *journals) {
      auto it = cursors_.find(path);
      std::optional<JournalCursor> from;
      if (it != cursors_.end()) from = it->second;
      auto r = read_journal_range(path, instances, from, each, with_starts, on_count);
      if (!r) {
        cursors_.clear();
        return r.error();
      }
      out.bytes += r->bytes;
      if (r->rebuild) {
        rebuild = true;
        break;
      }
      out.records += r->records;
      out.journals++;
      cursors_[path] = r->cursor;
      started_ = true;
    }
    if (!rebuild) return out;
  }
  // Replaced again while it was read from the start: what was read is whole, the next poll
  // looks again.
  return out;
}

}  // namespace merlin
