#include "merlin/core/spec/app_update.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <exception>

namespace merlin::spec {

Result<std::string> update_app_block(std::string_view text, const std::string& path,
                                     const std::string& block,
                                     const std::vector<AppSetting>& settings) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Error::bad_input(path + ":" + std::to_string(e.mark.line + 1) + ":" +
                            std::to_string(e.mark.column + 1) + ": not YAML: " + e.msg);
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) return Error::bad_input(path + ": the top level is not a map of keys");
  const YAML::Node& const_root = root;  // lookups that insert nothing
  if (const_root[block].IsDefined() && !const_root[block].IsNull() && !const_root[block].IsMap())
    return Error::bad_input(path + ": '" + block + "' is not a map of keys");
  if (!const_root[block].IsDefined() || const_root[block].IsNull())
    root[block] = YAML::Node(YAML::NodeType::Map);
  YAML::Node b = root[block];
  for (const auto& s : settings) {
    if (s.integer) {
      long long v = 0;
      auto [end, ec] = std::from_chars(s.value.data(), s.value.data() + s.value.size(), v);
      if (ec != std::errc() || end != s.value.data() + s.value.size())
        return Error::bad_input(block + "." + s.key + ": '" + s.value + "' is not a whole number");
      b[s.key] = v;
    } else {
      b[s.key] = s.value;
    }
  }
  YAML::Emitter out;
  out << root;
  if (!out.good()) return Error::runtime("cannot write " + path + ": " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace merlin::spec
