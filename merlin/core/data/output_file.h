#pragma once
/// Reading one sample's output file (`result.json`, `field.npy`) for `merlin collect`. The file
/// is outside input: whatever the sample's step left under that name. Only a regular file is
/// read (a link is followed only to one), never a device (/dev/zero never ends), a FIFO (it
/// would block forever), a socket or a directory, and never more than a cap.
#include <cstdint>
#include <string>

#include "merlin/core/data/dataset_sink.h"

namespace merlin::data {

/// The per-file cap's default (`merlin collect --max-output-size`): 16 MiB.
constexpr std::uint64_t kDefaultMaxOutputBytes = std::uint64_t{16} << 20;

/// What became of reading one file.
struct OutputFileRead {
  SampleStatus status = SampleStatus::kOk;  ///< kOk, kMissing (no such file) or kMalformed
  std::string problem;                      ///< why not kOk, without the file's name
};

/// Reads the file at `path` whole into `out` (cleared first). Not a regular file → kMalformed,
/// "not a regular file (a FIFO); ...", without opening it for reading when it is seen to be
/// one before; more than `max_bytes` bytes → kMalformed naming the size and the option that
/// raises the cap. Opened O_NONBLOCK and checked again with fstat after opening, so a file
/// swapped for a FIFO between the two looks blocks nothing. Thread-safe.
OutputFileRead read_output_file(const std::string& path, std::uint64_t max_bytes, std::string& out);

/// The same for `path` taken from the directory open as `dir_fd` (AT_FDCWD: the working
/// directory): the kernel walks only the path's components below it.
OutputFileRead read_output_file_at(int dir_fd, const std::string& path, std::uint64_t max_bytes,
                                   std::string& out);

/// One directory held open, for reads of the files below it (samples of one leaf directory
/// share their parent: their files are looked up from it instead of from the root). One per
/// thread; not thread-safe.
class HeldDirectory {
 public:
  HeldDirectory() = default;
  HeldDirectory(const HeldDirectory&) = delete;
  HeldDirectory& operator=(const HeldDirectory&) = delete;
  ~HeldDirectory();
  /// A descriptor of `dir` (opened when it is not the one held, which is then closed), or -1
  /// when it cannot be opened (then read by the whole path; the read says what is wrong).
  int open(const std::string& dir);

 private:
  std::string dir_;
  int fd_ = -1;
};

}  // namespace merlin::data
