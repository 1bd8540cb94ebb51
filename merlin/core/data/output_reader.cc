#include "merlin/core/data/output_reader.h"

#include <filesystem>

namespace merlin::data {

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

Result<OutputKind> output_kind(const std::string& file) {
  const std::string ext = std::filesystem::path(file).extension().string();
  if (ext == ".json") return OutputKind::kJson;
  if (ext == ".npy") return OutputKind::kNpy;
  if (ext == ".csv") return OutputKind::kCsv;
  return Error::bad_input("--file " + file +
                          ": merlin collect reads .json, .npy and .csv outputs, not '" + ext + "'");
}

std::string output_stem(const std::string& file) {
  return std::filesystem::path(file).stem().string();
}

Result<void> parse_output(OutputKind kind, const std::string& stem, std::string_view text,
                          SampleFields& out) {
  switch (kind) {
    case OutputKind::kJson:
      return parse_json_output(stem, text, out);
    case OutputKind::kNpy:
      return parse_npy_output(stem, text, out);
    case OutputKind::kCsv:
      return parse_csv_output(stem, text, out);
  }
  return Error::bad_input("unknown output kind");
}

}  // namespace merlin::data
