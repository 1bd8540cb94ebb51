#include "merlin/core/study/study_tokens.h"

#include <ctime>
#include <filesystem>

#include "merlin/core/spec/field_checks.h"
#include "merlin/core/study/substitute.h"
#include "merlin/core/util/visible_text.h"

namespace merlin {
namespace fs = std::filesystem;

namespace {

std::string absolute_from(const std::string& base, const std::string& p) {
  fs::path path(p.empty() ? "." : p);
  if (path.is_relative()) path = fs::path(base) / path;
  return path.lexically_normal().string();
}

std::string strip_trailing_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

std::string StudyTokens::substitute(std::string_view text) const {
  return merlin::substitute(text, values);
}

std::string format_timestamp(long long t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

Result<StudyTokens> resolve_study_tokens(const spec::StudySpec& spec,
                                         const StudyTokenOptions& options) {
  StudyTokens t;
  auto& v = t.values;
  fs::path spec_path = fs::path(absolute_from(options.cwd, spec.path));
  t.spec_root = options.spec_root_override.empty() ? spec_path.parent_path().string()
                                                   : options.spec_root_override;
  t.spec_stem =
      options.spec_stem_override.empty() ? spec_path.stem().string() : options.spec_stem_override;
  v["SPECROOT"] = t.spec_root;
  v["MERLIN_TIMESTAMP"] = options.timestamp;
  for (const auto& c : spec::return_code_tokens()) v[c.name] = std::to_string(c.value);

  // Variables in file order, each may use the earlier ones (Maestro's rule).
  for (const auto& var : spec.variables) v[var.name] = merlin::substitute(var.value, v);
  auto out = v.find("OUTPUT_PATH");
  std::string output = out == v.end() ? "." : out->second;
  if (options.environment) output = expand_path(output, options.environment);
  t.output_path = strip_trailing_slash(absolute_from(options.cwd, output));
  v["OUTPUT_PATH"] = t.output_path;

  t.study_name = merlin::substitute(spec.name, v);
  if (auto why = spec::unsafe_dir_name_reason(t.study_name, spec::kMaxStudyNameBytes); !why.empty())
    return Error::bad_input(
        spec.path + ":" + std::to_string(spec.name_where.line) + ":" +
        std::to_string(spec.name_where.column) + ": " +
        visible_text("study name '" + t.study_name + "' cannot be a directory name: " + why));
  v["STUDY_NAME"] = t.study_name;
  t.workspace = options.workspace_override.empty()
                    ? t.output_path + "/" + t.study_name + "_" + options.timestamp
                    : strip_trailing_slash(absolute_from(options.cwd, options.workspace_override));
  t.info_dir = t.workspace + "/merlin_info";
  v["MERLIN_WORKSPACE"] = t.workspace;
  v["MERLIN_INFO"] = t.info_dir;
  v["MERLIN_SPEC_ORIGINAL_TEMPLATE"] = t.info_dir + "/" + t.spec_stem + ".orig.yaml";
  v["MERLIN_SPEC_EXECUTED_RUN"] = t.info_dir + "/" + t.spec_stem + ".partial.yaml";
  v["MERLIN_SPEC_ARCHIVED_COPY"] = t.info_dir + "/" + t.spec_stem + ".expanded.yaml";

  // A second pass lets variables use workspace tokens ($(MERLIN_INFO)/samples.npy is common).
  for (const auto& var : spec.variables) v[var.name] = merlin::substitute(var.value, v);
  v["OUTPUT_PATH"] = t.output_path;
  for (const auto& label : spec.labels) v[label.name] = merlin::substitute(label.value, v);
  return t;
}

}  // namespace merlin
