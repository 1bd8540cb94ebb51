// Entry points: file reading with a size cap, then read → overrides → validate → defaults.
#include "merlin/core/spec/spec_loader.h"

#include <filesystem>
#include <sstream>
#include <system_error>

#include "merlin/core/spec/diagnostic_list.h"
#include "merlin/core/spec/spec_defaults.h"
#include "merlin/core/spec/spec_reader.h"
#include "merlin/core/spec/spec_validator.h"
#include "merlin/core/spec/yaml_tree.h"
#include "merlin/core/util/files.h"

namespace merlin::spec {
namespace {

std::string too_big(const std::string& file, std::size_t size, std::size_t limit) {
  return file + ": the spec is " + std::to_string(size) + " bytes, more than the limit of " +
         std::to_string(limit) + " bytes; refused";
}

}  // namespace

Result<LoadedSpec> load_spec(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error::bad_input(
        path + ": cannot read the spec: " +
        (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  }
  auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error::bad_input(path + ": cannot read the spec: " + ec.message());
  if (size > options.max_file_bytes)
    return Error::bad_input(too_big(path, size, options.max_file_bytes));
  auto text = files::read(path);
  if (!text) return Error::bad_input(text.error().message);  // "cannot read PATH: why"
  return parse_spec(*text, path, options);
}

Result<LoadedSpec> parse_spec(std::string_view text, const std::string& file_name,
                              const LoadOptions& options) {
  if (text.size() > options.max_file_bytes) {
    return Error::bad_input(too_big(file_name, text.size(), options.max_file_bytes));
  }
  DiagnosticList diags(file_name);
  if (auto nul = text.find('\0'); nul != std::string_view::npos) {
    diags.error({}, "not a text file (a NUL byte at offset " + std::to_string(nul) + "); refused");
    return Error::bad_input(join_diagnostics(diags.sorted()));
  }
  LoadedSpec loaded;
  StudySpec& spec = loaded.spec;
  spec.path = file_name;
  spec.source_text = std::string(text);
  YamlLimits limits;
  limits.max_nodes = options.max_nodes;
  limits.max_alias_nodes = options.max_alias_nodes;
  std::optional<YamlNode> root = parse_yaml_tree(text, limits, diags);
  if (root) {
    read_spec(*root, spec, diags);
    apply_overrides(options.vars, spec, diags);
    validate_spec(spec, text, diags, options.strict_tokens);
    apply_defaults(spec, diags);
  }
  std::vector<Diagnostic> all = diags.sorted();
  if (diags.has_errors()) return Error::bad_input(join_diagnostics(all));
  for (auto& d : all)
    if (d.is_warning) loaded.warnings.push_back(std::move(d));
  return loaded;
}

}  // namespace merlin::spec
