#pragma once
/// CSV (RFC 4180): a header line, then a line per row. A cell is written as text shows it
/// (cell_text: a null as the column's `null_text`, a list of strings joined by ',' in one
/// cell) and quoted when it holds a comma, a quote or a line break.
#include <string>

#include "merlin/core/report/table.h"

namespace merlin::report {

enum class CsvHeader {
  kHeaders,  ///< the columns' headers ("RETURN CODE")
  kKeys,     ///< their JSON member names ("return_code"): `merlin status`'s CSV
};

std::string to_csv(const Table& table, CsvHeader header = CsvHeader::kHeaders);

}  // namespace merlin::report
