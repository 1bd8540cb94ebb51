#include "merlin/core/report/format.h"

#include "merlin/core/report/csv_writer.h"
#include "merlin/core/report/json_writer.h"
#include "merlin/core/report/text_writer.h"

namespace merlin::report {

Result<Format> parse_format(const std::string& name) {
  if (name == "table") return Format::kTable;
  if (name == "json") return Format::kJson;
  if (name == "csv") return Format::kCsv;
  return Error::bad_input("--format: table, json or csv, got '" + name + "'");
}

Result<Format> dump_format(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  if (ext == ".csv") return Format::kCsv;
  if (ext == ".json") return Format::kJson;
  return Error::bad_input("--dump " + path + ": the file must end in .csv or .json");
}

std::string render(const Table& table, Format format) {
  switch (format) {
    case Format::kJson:
      return to_json(table);
    case Format::kCsv:
      return to_csv(table);
    case Format::kTable:
      break;
  }
  return to_text(table);
}

}  // namespace merlin::report
