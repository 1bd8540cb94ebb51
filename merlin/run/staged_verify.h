#pragma once
/// `merlin verify` (docs/staging.md, "Checking staged outputs"): every file the staging
/// manifests of a workspace list (`<ws>/<step>/.merlin_staged/*.tsv`, the last line per
/// sample and path) is read again, its size and CRC32C compared with the manifest's. Files
/// are opened below their step's directory without following a link on the way, so a link
/// planted in the workspace is reported, never read through.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/run/progress.h"
#include "merlin/run/staged_expected.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// What is wrong with one staged file.
enum class StagedProblem {
  kMissing,     ///< no file (or a directory on its path is missing)
  kNotRegular,  ///< a link, FIFO, directory, ... where the file was, or a link on its path
  kSize,        ///< its size differs from the manifest's
  kChecksum,    ///< same size, different CRC32C
  kUnreadable,  ///< open or read failed otherwise (permissions, I/O error)
};

/// "missing", "not a regular file", "size differs", "checksum differs", "unreadable".
const char* staged_problem_name(StagedProblem p);

struct StagedFinding {
  std::string step;         ///< the step's directory name under the workspace
  std::uint64_t sample = 0;
  std::string path;         ///< relative to the step's directory, as in the manifest
  StagedProblem problem = StagedProblem::kMissing;
  std::uint64_t expected_size = 0;
  std::uint32_t expected_crc32c = 0;
  std::uint64_t actual_size = 0;    ///< kSize, kChecksum
  std::uint32_t actual_crc32c = 0;  ///< kChecksum
  std::string detail;               ///< kNotRegular: what it is; kUnreadable: the error
};

struct VerifyOptions {
  std::string workspace;           ///< the study's directory
  std::vector<std::string> steps;  ///< only these step directories (empty: every one staged)
  unsigned threads = 4;            ///< files read at once
  Progress* progress = nullptr;    ///< files checked of all, while it runs (may be null)
};

struct VerifyReport {
  std::vector<std::string> steps;  ///< the step directories that have manifests, sorted
  std::uint64_t files = 0;         ///< files the manifests list (last line per sample, path)
  std::uint64_t bytes = 0;         ///< their sizes by the manifests
  std::uint64_t samples = 0;       ///< distinct (step, sample) pairs
  std::uint64_t malformed_lines = 0;  ///< whole manifest lines that do not parse
  std::vector<StagedFinding> findings;  ///< sorted by step, then path
  ListedPaths listed;                   ///< every path the manifests list, by step and sample
};

/// Reads the manifests and checks every file they list. kBadInput when `steps` names a step
/// directory without manifests (naming those that have some); kRuntime when a manifest
/// cannot be read. A workspace without manifests gives an empty report.
Result<VerifyReport> verify_staged(const VerifyOptions& options);

/// One finding as a line for people: `<ws>/<step>/<path> (sample N): size 118 bytes, the
/// manifest says 120`.
std::string finding_line(const std::string& workspace, const StagedFinding& f);

/// The report as JSON (docs/json-output.md): workspace, steps, counts, findings, and the
/// succeeded tasks without manifest lines (`expected`).
std::string verify_json(const std::string& workspace, const VerifyReport& r,
                        const ExpectedReport& expected);

}  // namespace merlin::run
