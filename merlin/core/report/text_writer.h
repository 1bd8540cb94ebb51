#pragma once
/// Aligned text for people: a header line, then a line per row; columns two spaces apart,
/// as wide as their widest cell (counted in characters, not bytes), numbers right-aligned
/// (Column::align); no trailing spaces.
#include <string>

#include "merlin/core/report/table.h"

namespace merlin::report {

std::string to_text(const Table& table);

}  // namespace merlin::report
