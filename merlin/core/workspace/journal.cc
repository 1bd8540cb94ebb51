#include "merlin/core/workspace/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>
#include <algorithm>

#include "merlin/core/util/io_error.h"
#include "merlin/core/workspace/journal_tail.h"

namespace merlin {
namespace {

constexpr char kMagic[8] = {'M', 'R', 'L', 'N', 'J', 'R', 'N', '1'};
constexpr std::size_t kHeader = 16;  // magic + uint32 instances + 4 reserved
// uint32 instance, uint32 epoch seconds, uint64 sample, u8 outcome, u8 started, u8 kind (0 a
// task, 1 a fan-out count in the sample field, 2 a trial's result), 1 pad, f32 seconds.
// Journals written before the time, the started flag and the kind have zeros there. A trial
// result record has no time or seconds: its f64 value takes their bytes (4..8 and 20..24).
constexpr std::size_t kRecord = 24;

void pack(const JournalRecord& r, unsigned char* b) {
  std::memset(b, 0, kRecord);
  std::memcpy(b, &r.instance.v, 4);
  std::memcpy(b + 4, &r.at, 4);
  std::memcpy(b + 8, &r.sample, 8);
  b[16] = static_cast<unsigned char>(r.outcome);
  b[17] = r.started ? 1 : 0;
  b[18] = r.count ? 1 : r.trial ? 2 : 0;
  std::memcpy(b + 20, &r.seconds, 4);
  if (r.trial) {
    unsigned char v[8];
    std::memcpy(v, &r.value, 8);
    std::memcpy(b + 4, v, 4);
    std::memcpy(b + 20, v + 4, 4);
  }
}

std::string errno_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

}  // namespace

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Result<void> JournalWriter::open(const std::string& path, std::uint32_t instances) {
  path_ = path;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) return Error::runtime(errno_text("cannot open journal", path));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Error::runtime(errno_text("cannot stat journal", path));
  if (static_cast<std::size_t>(st.st_size) < kHeader) {
    // New, or a header torn by a crash: start afresh (no record can have followed it).
    if (st.st_size > 0 && ::ftruncate(fd_, 0) != 0)
      return Error::runtime(errno_text("cannot repair journal", path));
    unsigned char h[kHeader] = {};
    std::memcpy(h, kMagic, 8);
    std::memcpy(h + 8, &instances, 4);
    ssize_t n = ::write(fd_, h, kHeader);
    if (n != static_cast<ssize_t>(kHeader)) {
      int e = n < 0 ? errno : ENOSPC;  // a short write: the device filled up
      (void)::ftruncate(fd_, 0);       // no torn header left behind
      return write_error(path, e);
    }
  } else if ((st.st_size - kHeader) % kRecord != 0) {
    // A torn record from a crash: cut it so new records stay aligned.
    off_t good = static_cast<off_t>(kHeader + (st.st_size - kHeader) / kRecord * kRecord);
    if (::ftruncate(fd_, good) != 0)
      return Error::runtime(errno_text("cannot repair journal", path));
  }
  return ok();
}

Result<void> JournalWriter::append(const JournalRecord& r) {
  unsigned char b[kRecord];
  JournalRecord stamped = r;
  if (stamped.at == 0 && !stamped.trial) stamped.at = static_cast<std::uint32_t>(std::time(nullptr));
  pack(stamped, b);
  std::lock_guard lock(mu_);
  // Where this record starts: one writer per file (under mu_), so nothing else moves the end.
  const off_t end = ::lseek(fd_, 0, SEEK_END);
  std::size_t written = 0;
  errno = 0;
  while (written < kRecord) {
    // After a short write the next one fails and says why (ENOSPC, EDQUOT, EFBIG).
    ssize_t n = ::write(fd_, b + written, kRecord - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  if (written == kRecord) return ok();
  // Nothing or part of the record was written (a full disk, a quota): cut what was, so the
  // journal ends on a whole record and the next append is aligned. Readers skip a torn tail
  // anyway; this keeps it from being followed by good records.
  const int e = errno != 0 ? errno : ENOSPC;
  if (written > 0 && end >= 0) (void)::ftruncate(fd_, end);
  return write_error(path_, e);
}

namespace {

// Decodes the whole records of `b` (n bytes, starting on a record boundary) in order.
std::uint64_t decode_records(const unsigned char* b, std::size_t n, std::uint32_t instances,
                             const std::function<void(const JournalRecord&)>& each,
                             bool with_starts, const JournalCounts& on_count,
                             const JournalValues& on_value) {
  std::uint64_t count = 0;
  for (std::size_t at = 0; at + kRecord <= n; at += kRecord) {
    JournalRecord r;
    std::memcpy(&r.instance.v, b + at, 4);
    std::memcpy(&r.at, b + at + 4, 4);
    std::memcpy(&r.sample, b + at + 8, 8);
    r.outcome = static_cast<Outcome>(b[at + 16]);
    r.started = b[at + 17] != 0;
    r.count = b[at + 18] == 1;
    std::memcpy(&r.seconds, b + at + 20, 4);
    if (r.instance.v >= instances || (r.started && !with_starts)) continue;
    if (r.count) {
      if (on_count) {
        on_count(r.instance, r.sample);
        ++count;
      }
      continue;
    }
    if (b[at + 18] == 2) {  // a trial's result
      if (on_value) {
        unsigned char v[8];
        std::memcpy(v, b + at + 4, 4);
        std::memcpy(v + 4, b + at + 20, 4);
        std::memcpy(&r.value, v, 8);
        on_value(r.instance, r.sample, r.value);
        ++count;
      }
      continue;
    }
    each(r);
    ++count;
  }
  return count;
}

// Reads `n` bytes at `at` (short only at the end of the file).
ssize_t pread_full(int fd, unsigned char* b, std::size_t n, off_t at) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t k = ::pread(fd, b + got, n - got, at + static_cast<off_t>(got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return -1;
    if (k == 0) break;
    got += static_cast<std::size_t>(k);
  }
  return static_cast<ssize_t>(got);
}

Result<JournalRange> read_range(const std::string& path, std::uint32_t instances,
                                const std::optional<JournalCursor>& from,
                                const std::function<void(const JournalRecord&)>& each,
                                bool with_starts, const JournalCounts& on_count,
                                const JournalValues& on_value) {
  JournalRange out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      out.rebuild = from && from->offset > 0;  // it was there before
      return out;
    }
    return Error::runtime(errno_text("cannot open journal", path));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::runtime(errno_text("cannot stat journal", path));
  const JournalFileState now{static_cast<std::uint64_t>(st.st_dev),
                             static_cast<std::uint64_t>(st.st_ino),
                             static_cast<std::uint64_t>(st.st_size)};
  const TailPlan plan = decide_tail(from, now);
  if (plan.action == TailAction::kRebuild) {
    out.rebuild = true;
    return out;
  }
  out.cursor = {now.device, now.inode, plan.offset};
  if (now.size < kHeader) return out;  // empty, or a header still being written
  unsigned char h[kHeader];
  if (pread_full(fd, h, kHeader, 0) != static_cast<ssize_t>(kHeader))
    return Error::runtime(errno_text("cannot read journal", path));
  out.bytes += kHeader;
  std::uint32_t recorded = 0;
  std::memcpy(&recorded, h + 8, 4);
  if (std::memcmp(h, kMagic, 8) != 0 || recorded != instances)
    return Error::runtime(path + ": not a journal of this study (" + std::to_string(recorded) +
                          " step instances recorded, the spec now has " +
                          std::to_string(instances) + ")");
  std::uint64_t at = std::max<std::uint64_t>(plan.offset, kHeader);
  // Whole records only: a torn (or half-written) last one is read when it is whole.
  const std::uint64_t end = kHeader + (now.size - kHeader) / kRecord * kRecord;
  constexpr std::size_t kBlock = kRecord * 43690;  // ~1 MiB
  std::vector<unsigned char> buf;
  while (at < end) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end - at));
    buf.resize(want);
    const ssize_t got = pread_full(fd, buf.data(), want, static_cast<off_t>(at));
    if (got < 0) return Error::runtime(errno_text("cannot read journal", path));
    const std::size_t whole = static_cast<std::size_t>(got) / kRecord * kRecord;
    out.bytes += static_cast<std::uint64_t>(got);
    out.records +=
        decode_records(buf.data(), whole, instances, each, with_starts, on_count, on_value);
    at += whole;
    if (whole < want) break;  // the file got shorter while read
  }
  out.cursor.offset = at;
  return out;
}

}  // namespace

Result<JournalRange> read_journal_range(const std::string& path, std::uint32_t instances,
                                        const std::optional<JournalCursor>& from,
                                        const std::function<void(const JournalRecord&)>& each,
                                        bool with_starts, const JournalCounts& on_count) {
  return read_range(path, instances, from, each, with_starts, on_count, {});
}

Result<std::uint64_t> read_journal(const std::string& path, std::uint32_t instances,
                                   const std::function<void(const JournalRecord&)>& each,
                                   bool with_starts, const JournalCounts& on_count,
                                   const JournalValues& on_value) {
  auto r = read_range(path, instances, std::nullopt, each, with_starts, on_count, on_value);
  if (!r) return r.error();
  return r->records;
}

}  // namespace merlin
