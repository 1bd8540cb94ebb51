#pragma once
/// A small table printer for the broker commands (queue-info, query-workers): aligned columns,
/// or JSON (an array of objects; cells that are whole numbers stay numbers) or CSV.
#include <string>
#include <vector>

#include "merlin/run/status_report.h"

namespace merlin::cli {

using run::StatusFormat;

using TableRow = std::vector<std::string>;

std::string format_table(const TableRow& header, const std::vector<TableRow>& rows,
                         StatusFormat format);

/// "table", "json" or "csv" → the format; anything else is bad input.
Result<StatusFormat> parse_format(const std::string& name);

/// Merlin's `--dump FILE`: CSV for a ".csv" file, JSON for ".json"; anything else is bad input
/// naming the file.
Result<StatusFormat> dump_format(const std::string& path);

}  // namespace merlin::cli
