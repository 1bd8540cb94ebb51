// `emit_with_overrides`: the spec re-emitted with `--vars` written in (Merlin's .partial.yaml).
#include <yaml-cpp/yaml.h>

#include <exception>

#include "merlin/core/spec/spec_loader.h"

namespace merlin::spec {
namespace {

// The env section ("variables", then "labels") that defines `key`, as load_spec resolves it.
const char* section_of(const YAML::Node& env, const std::string& key) {
  for (const char* section : {"variables", "labels"}) {
    const YAML::Node s = env[section];
    if (s.IsMap() && s[key].IsDefined()) return section;
  }
  return nullptr;
}

}  // namespace

Result<std::string> emit_with_overrides(
    std::string_view source_text, const std::vector<std::pair<std::string, std::string>>& vars) {
  try {
    YAML::Node root = YAML::Load(std::string(source_text));
    if (!root.IsMap()) return Error::bad_input("emit_with_overrides: the spec is not a map");
    for (const auto& [key, value] : vars) {
      const YAML::Node& const_root = root;  // const lookups never insert keys
      const YAML::Node env = const_root["env"];
      const char* section = env.IsMap() ? section_of(env, key) : nullptr;
      if (section == nullptr) {
        return Error::bad_input("--vars " + key + "=" + value + ": the spec has no variable '" +
                                key + "' in env.variables");
      }
      root["env"][section][key] = value;
    }
    YAML::Emitter out;
    out << root;
    if (!out.good()) return Error::runtime("cannot emit the spec: " + out.GetLastError());
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    return Error::bad_input("cannot re-emit the spec: " + e.msg);
  } catch (const std::exception& e) {
    return Error::runtime(std::string("cannot re-emit the spec: ") + e.what());
  }
}

}  // namespace merlin::spec
