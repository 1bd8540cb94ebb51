#pragma once
/// The local run's journal: one fixed-size binary record per committed sample, appended to
/// `merlin_info/merlin.journal` before the commit returns. `merlin restart` replays it to skip
/// finished work; `merlin status` sums it. A torn last record (a crash mid-write) is ignored.
/// write(2) without fsync: survives a killed process, not a lost machine.
#include <cstdint>
#include <functional>
#include <string>

#include "merlin/broker/state_store.h"
#include "merlin/study/ids.h"
#include "merlin/util/result.h"

namespace merlin {

struct JournalRecord {
  InstanceId instance;
  SampleId sample = 0;
  Outcome outcome = Outcome::kSuccess;
  float seconds = 0;
};

class JournalWriter {
 public:
  JournalWriter() = default;
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  ~JournalWriter();

  /// Opens (creating with a header if new) the journal at `path` for appending.
  Result<void> open(const std::string& path, std::uint32_t instances);
  /// Appends one record. Not thread-safe: callers serialise (the state store's lock).
  Result<void> append(const JournalRecord& r);

 private:
  int fd_ = -1;
  std::string path_;
};

/// Reads every complete record of the journal at `path`, in order. A missing file is an empty
/// journal. Errors: a file that is not a journal, or one written for another instance count.
Result<std::uint64_t> read_journal(const std::string& path, std::uint32_t instances,
                                   const std::function<void(const JournalRecord&)>& each);

}  // namespace merlin
