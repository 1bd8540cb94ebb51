#include "merlin/cli/completion_hints.h"

#include <CLI/CLI.hpp>

namespace merlin::cli {
namespace {

// The validator's name carries the hint: "complete:<kind>[:<v1>,<v2>...]". Its description
// stays empty, so CLI11 adds nothing to the type shown in --help (our formatter shows values).
constexpr const char* kPrefix = "complete:";

CLI::Option* attach(CLI::Option* opt, const std::string& name) {
  CLI::Validator v([](std::string&) { return std::string(); }, "", name);
  return opt->check(v);
}

bool is_number_type(const std::string& type) {
  for (const char* t : {"INT", "UINT", "FLOAT", "NUMBER"})
    if (type.rfind(t, 0) == 0) return true;
  return false;
}

}  // namespace

const char* completion_kind_word(Completion kind) {
  switch (kind) {
    case Completion::kNone:
      return "none";
    case Completion::kFile:
      return "file";
    case Completion::kDirectory:
      return "dir";
    case Completion::kSpec:
      return "spec";
    case Completion::kValues:
      return "values";
  }
  return "none";
}

CLI::Option* offer_values(CLI::Option* opt, std::vector<std::string> values) {
  std::string name = std::string(kPrefix) + "values:";
  for (size_t i = 0; i < values.size(); ++i) name += (i ? "," : "") + values[i];
  return attach(opt, name);
}

CLI::Option* offer(CLI::Option* opt, Completion kind) {
  return attach(opt, std::string(kPrefix) + completion_kind_word(kind));
}

std::vector<std::string> parse_value_set(const std::string& text) {
  std::vector<std::string> out;
  if (text.size() < 3 || text.front() != '{' || text.back() != '}') return out;
  std::string cur;
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    if (text[i] == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (text[i] != ' ' || !cur.empty()) {
      cur += text[i];
    }
  }
  out.push_back(cur);
  return out;
}

bool takes_value(const CLI::Option& opt) {
  // A flag expects no value (CLI11's add_flag: expected(0)); its type size says nothing.
  return opt.get_expected_max() > 0 && opt.get_type_size_max() > 0;
}

CompletionHint completion_hint(CLI::Option& opt) {
  CompletionHint set_hint;
  for (int i = 0;; ++i) {
    CLI::Validator* v = nullptr;
    try {
      v = opt.get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      break;
    }
    const std::string& name = v->get_name();
    if (name.rfind(kPrefix, 0) == 0) {
      std::string rest = name.substr(std::string(kPrefix).size());
      if (rest.rfind("values:", 0) == 0)
        return {Completion::kValues, parse_value_set("{" + rest.substr(7) + "}")};
      for (auto k :
           {Completion::kNone, Completion::kFile, Completion::kDirectory, Completion::kSpec})
        if (rest == completion_kind_word(k)) return {k, {}};
    }
    auto values = parse_value_set(v->get_description());
    if (!values.empty() && set_hint.values.empty()) set_hint = {Completion::kValues, values};
  }
  if (!set_hint.values.empty()) return set_hint;
  if (!takes_value(opt)) return {};
  std::string type = opt.get_type_name();
  if (is_number_type(type)) return {};
  if (!opt.nonpositional()) return {Completion::kSpec, {}};
  return {Completion::kFile, {}};
}

}  // namespace merlin::cli
