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

namespace {

std::string object_text(const Object& members, std::size_t indent);

std::string member_text(const Member& m, std::size_t indent) {
  const std::string pad(indent + 2, ' ');
  if (const auto* table = std::get_if<Table>(&m.content)) {
    if (table->rows.empty()) return "[]";
    std::string out = "[";
    for (std::size_t r = 0; r < table->rows.size(); ++r)
      out += (r ? ",\n" : "\n") + pad + dump(row_json(*table, table->rows[r]), -1);
    return out + "\n" + std::string(indent, ' ') + "]";
  }
  if (const auto* objects = std::get_if<std::vector<Object>>(&m.content)) {
    if (objects->empty()) return "[]";
    std::string out = "[";
    for (std::size_t i = 0; i < objects->size(); ++i)
      out += (i ? ",\n" : "\n") + pad + object_text((*objects)[i], indent + 2);
    return out + "\n" + std::string(indent, ' ') + "]";
  }
  return dump(json_of(std::get<Cell>(m.content).value), -1);
}

std::string object_text(const Object& members, std::size_t indent) {
  if (members.empty()) return "{}";
  const std::string pad(indent + 2, ' ');
  std::string out = "{";
  for (std::size_t i = 0; i < members.size(); ++i)
    out += (i ? ",\n" : "\n") + pad + dump(Json(members[i].key), -1) + ": " +
           member_text(members[i], indent + 2);
  return out + "\n" + std::string(indent, ' ') + "}";
}

}  // namespace

std::string to_json(const Object& members) { return object_text(members, 0) + "\n"; }

}  // namespace merlin::report
