#pragma once
/// JSON for programs (docs/json-output.md): the one JSON writer of merlin's reports. Types come
/// from the cells, never from their text: integers and doubles are numbers, booleans are
/// booleans, lists are arrays of strings, null is `null` (and so is a NaN or infinite double).
/// Strings are UTF-8 as given (control characters escaped); bytes that are not valid UTF-8
/// become U+FFFD. The library behind it (nlohmann::json) stays in json_writer.cc.
#include <string>
#include <variant>
#include <vector>

#include "merlin/core/report/table.h"

namespace merlin::report {

/// An array of objects, one per row, members named by the columns (key_of) in column order:
/// "[\n  {...},\n  {...}\n]\n", one row per line; "[]\n" for no rows.
std::string to_json(const Table& table);

/// A member of a JSON object: a value, or a table (an array of row objects, as above).
struct Member {
  std::string key;
  std::variant<Cell, Table> content;
};

/// One object of these members in their order, indented by two spaces, ending in "\n".
/// For documents that hold more than one table (the web monitor's /api/status).
std::string to_json(const std::vector<Member>& members);

}  // namespace merlin::report
