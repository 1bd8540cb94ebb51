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

struct Member;
/// A JSON object: its members in their order.
using Object = std::vector<Member>;

/// A member of a JSON object: a value, a table (an array of row objects, as above), or an
/// array of objects (`merlin status`' searches, each with its own table).
struct Member {
  std::string key;
  std::variant<Cell, Table, std::vector<Object>> content;
};

/// One object of these members in their order, ending in "\n": a member per line, indented by
/// two spaces per level; a table's rows one per line, as to_json(Table) writes them; an array
/// of objects one member per line. For documents that hold more than one table (`merlin
/// status`: its steps and its searches).
std::string to_json(const Object& members);

}  // namespace merlin::report
