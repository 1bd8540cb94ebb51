#pragma once
/// `/api/status`: a StudySnapshot as JSON (schema in docs/web-status.md): numbers as numbers,
/// lists as arrays, unknowns as null. nlohmann::json stays in status_json.cc.
#include <cstdint>
#include <string>

#include "merlin/core/report/study_snapshot.h"

namespace merlin::web {

/// Bumped when a field changes meaning or goes; new fields do not bump it.
inline constexpr int kStatusSchema = 1;

std::string status_json(const report::StudySnapshot& snapshot);

/// `/err/<path>` with each path segment percent-encoded.
std::string err_url(const std::string& err_file);

/// A lean workspace's task stderr: `/logs?step=<instance>&sample=<n>`, percent-encoded.
std::string lean_err_url(const std::string& instance, std::uint64_t sample);

}  // namespace merlin::web
