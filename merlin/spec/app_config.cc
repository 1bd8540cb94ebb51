#include "merlin/spec/app_config.h"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "merlin/spec/diagnostic_list.h"
#include "merlin/spec/yaml_tree.h"
#include "merlin/workspace/files.h"

namespace merlin::spec {
namespace {

// `used`: the block's values matter here (the broker); the results backend is only looked at,
// so placeholders there (Merlin's template has `port: <server port>`) are no error.
void read_server(const YamlEntry& e, AppServer& out, bool used, std::vector<std::string>& ignored,
                 DiagnosticList& diags) {
  if (!e.value.is_map()) {
    diags.error(e.value.where, "'" + e.key + "' must be a map, got " + describe_kind(e.value));
    return;
  }
  out.present = true;
  for (const auto& f : e.value.entries) {
    static const char* const kUsed[] = {"name", "server", "username", "password", "port",
                                        "db_num"};
    if (std::find(std::begin(kUsed), std::end(kUsed), f.key) == std::end(kUsed) ||
        (!f.value.is_scalar() && !f.value.is_null())) {
      ignored.push_back(e.key + "." + f.key);  // encryption_key, cert_reqs, vhost, ...
      continue;
    }
    const std::string& v = f.value.scalar;
    if (f.key == "name") {
      out.name = v;
    } else if (f.key == "server") {
      out.server = v;
    } else if (f.key == "username") {
      out.username = v;
    } else if (f.key == "password") {
      out.password_file = v;
    } else if (f.key == "port" || f.key == "db_num") {
      int n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || p != v.data() + v.size() || n < 0) {
        if (!used) continue;
        diags.error(f.value.where,
                    "'" + e.key + "." + f.key + "' must be a number, got '" + v + "'");
        continue;
      }
      (f.key == "port" ? out.port : out.db) = n;
    }
  }
}

}  // namespace

Result<AppConfig> read_app_config(const std::string& path) {
  AppConfig config;
  auto text = files::read(path);
  if (!text) return config;
  config.path = path;
  DiagnosticList diags(path);
  auto root = parse_yaml_tree(*text, YamlLimits{}, diags);
  if (root && !root->is_null() && !root->is_map())
    diags.error(root->where, "the app config must be a map, got " + describe_kind(*root));
  if (root && root->is_map()) {
    for (const auto& e : root->entries) {
      if (e.key == "broker")
        read_server(e, config.broker, true, config.ignored, diags);
      else if (e.key == "results_backend")
        read_server(e, config.results_backend, false, config.ignored, diags);
      else
        config.ignored.push_back(e.key);  // celery, container, process, ...
    }
  }
  if (diags.has_errors()) return Error::bad_input(join_diagnostics(diags.sorted()));
  return config;
}

}  // namespace merlin::spec
