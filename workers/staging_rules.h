#pragma once
/// The pure parts of staging outputs (docs/staging.md): which scratch files a step's
/// `stage_out` patterns select, the temporary names copies are written under, and the
/// manifest's line format and reading. No I/O here; FileStager does the file work.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace merlin {

/// What the worker does with a step's scratch once the step has returned.
enum class ScratchAction {
  kNone,               ///< the step has no scratch: commit as before
  kStageThenCommit,    ///< a success: hand it to the stager, which commits after the copy
  kRequeue,            ///< retried or restarted: the next attempt makes its scratch afresh
  kKeepForInspection,  ///< failed: commit the failure, leave the scratch dir and log its path
};

/// Pure: from whether the task has a scratch dir and the return-code decision's parts.
ScratchAction scratch_action(bool has_scratch, bool success, bool requeue);

/// What `stage_out` selects among the files of a task's scratch dir.
struct OutputSelection {
  std::vector<std::string> files;      ///< relative paths, sorted, each once
  std::vector<std::string> unmatched;  ///< patterns that matched no file, in spec order
};

/// Matches each pattern against each relative path with shell glob rules (fnmatch with
/// FNM_PATHNAME | FNM_PERIOD: `*` stops at `/` and skips hidden files), so `*.npy` means the
/// top directory's .npy files and `out/*.json` those of `out/`.
OutputSelection select_outputs(const std::vector<std::string>& patterns,
                               const std::vector<std::string>& files);

/// A scratch entry a pattern may match that is not a regular file (a link, a FIFO, ...).
struct NotRegular {
  std::string path;   ///< relative to the scratch dir
  unsigned mode = 0;  ///< its st_mode (lstat: a link is a link)
};

/// "a symbolic link", "a FIFO", "a socket", "a device", "a directory" or "not a regular file",
/// from an st_mode.
std::string describe_file_type(unsigned mode);

/// The error text for `stage_out` patterns that selected no regular file in `scratch_dir`:
/// each pattern quoted, and for each entry it matched that is not a regular file, what it is
/// and that it is not staged (links are never staged; write the file itself).
std::string unmatched_message(const std::vector<std::string>& unmatched,
                              const std::vector<NotRegular>& others,
                              const std::string& scratch_dir);

/// The name a copy of `base` is written under before its rename, in the same directory:
/// `.<base>.merlin-tmp.<host>.<pid>` (hidden, and unique per process so that two workers
/// staging one redelivered task never write one file).
std::string temp_name(std::string_view base, std::string_view host, long pid);

/// The host and pid of a temp_name, or nullopt when `name` is none.
std::optional<std::pair<std::string, long>> parse_temp_name(std::string_view name);

/// One manifest entry: a staged file of one sample.
struct ManifestEntry {
  std::uint64_t sample = 0;
  std::string path;  ///< relative to the step's workspace dir, e.g. "X.1/00/03/result.json"
  std::uint64_t size = 0;
  std::uint32_t crc32c = 0;
};

/// `<sample>\t<path>\t<size>\t<crc32c as 8 hex digits>\n`; `\`, tab and newline in the path
/// are written `\\`, `\t`, `\n`.
std::string format_manifest_line(const ManifestEntry& e);

/// The entries of manifest text, the last line per (sample, path) winning (a retried or
/// redelivered task appends again). A last line without its newline (a torn write after a
/// crash) is skipped; so is a whole line that does not parse, counted in `*malformed` when
/// given (no writer makes one: `merlin verify` reports them).
std::map<std::pair<std::uint64_t, std::string>, ManifestEntry> read_manifest(
    std::string_view text, std::size_t* malformed = nullptr);

/// The record a succeeded scratch step leaves in its scratch dir until its outputs are staged
/// (`.merlin_succeeded`): a worker that dies between the step and the end of its staging
/// leaves it, and the task's next run on the node stages the outputs instead of running the
/// step again (docs/staging.md, "Re-staging instead of re-running").
inline constexpr const char* kSuccessRecordName = ".merlin_succeeded";
struct SuccessRecord {
  std::string boot_id;  ///< the node's boot (/proc/sys/kernel/random/boot_id) when written
  double seconds = 0;   ///< how long the step ran
  bool write_finished = true;  ///< MERLIN_FINISHED is written when the outputs are staged
};

/// `merlin-succeeded 1\nboot <id>\nseconds <s>\nfinished <0|1>\n`.
std::string format_success_record(const SuccessRecord& r);

/// The record in `text` when it is whole and was written on the boot `boot_id` (a reboot may
/// have lost the step's outputs from the page cache while the record reached the disk: the
/// step runs again); nullopt otherwise, and always for an empty `boot_id`.
std::optional<SuccessRecord> parse_success_record(std::string_view text, std::string_view boot_id);

}  // namespace merlin
