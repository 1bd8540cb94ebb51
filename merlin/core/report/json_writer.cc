// The JSON writer of reports: nlohmann::json stays in this file (and the reader of per-sample
// outputs, merlin/core/data/json_output.cc).
#include "merlin/core/report/json_writer.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace merlin::report {
namespace {

// ordered_json: members keep the columns' order (nlohmann::json would sort them).
using Json = nlohmann::ordered_json;

Json json_of(const Value& v) {
  struct ToJson {
    Json operator()(std::monostate) const { return nullptr; }
    Json operator()(std::int64_t x) const { return x; }
    Json operator()(std::uint64_t x) const { return x; }
    Json operator()(double x) const { return std::isfinite(x) ? Json(x) : Json(nullptr); }
    Json operator()(bool x) const { return x; }
    Json operator()(const std::string& x) const { return x; }
    Json operator()(const StringList& x) const { return Json(x); }
  };
  return std::visit(ToJson{}, v);
}

Json row_json(const Table& t, const std::vector<Cell>& row) {
  Json o = Json::object();
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    o[key_of(t.columns[c])] = json_of(cell_at(row, c).value);
  return o;
}

Json table_json(const Table& t) {
  Json a = Json::array();
  for (const auto& row : t.rows) a.push_back(row_json(t, row));
  return a;
}

// Never throws: invalid UTF-8 is replaced, not an exception (nlohmann's default).
std::string dump(const Json& j, int indent) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

}  // namespace

std::string to_json(const Table& t) {
  if (t.rows.empty()) return "[]\n";
  std::string out = "[";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    out += r ? ",\n  " : "\n  ";
    out += dump(row_json(t, t.rows[r]), -1);
  }
  return out + "\n]\n";
}

std::string to_json(const std::vector<Member>& members) {
  Json o = Json::object();
  for (const auto& m : members) {
    if (const auto* table = std::get_if<Table>(&m.content))
      o[m.key] = table_json(*table);
    else
      o[m.key] = json_of(std::get<Cell>(m.content).value);
  }
  return dump(o, 2) + "\n";
}

}  // namespace merlin::report
