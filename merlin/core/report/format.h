#pragma once
/// Which writer a command's `--format` (or `--dump FILE`'s extension) picks, and the one call
/// that renders a table in it.
#include <string>

#include "merlin/core/report/table.h"
#include "merlin/core/util/result.h"

namespace merlin::report {

enum class Format { kTable, kJson, kCsv };

/// "table", "json" or "csv" → the format; anything else is bad input.
Result<Format> parse_format(const std::string& name);

/// Merlin's `--dump FILE`: CSV for a ".csv" file, JSON for ".json"; anything else is bad input
/// naming the file.
Result<Format> dump_format(const std::string& path);

/// `table` as aligned text, CSV (headers as the columns' headers) or JSON.
std::string render(const Table& table, Format format);

}  // namespace merlin::report
