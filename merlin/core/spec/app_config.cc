#include "merlin/core/spec/app_config.h"

#include <cctype>
#include <utility>

#include "merlin/core/spec/diagnostic_list.h"
#include "merlin/core/spec/yaml_tree.h"
#include "merlin/core/util/files.h"

namespace merlin::spec {
namespace {

// The value of `node` as an AppValue; a null (`password:` left empty) is not given.
AppValue value_of(const YamlNode& node) {
  AppValue v;
  v.where = node.where;
  if (node.is_null()) return v;
  v.given = true;
  v.scalar = node.is_scalar();
  if (v.scalar) v.text = node.scalar;
  return v;
}

std::string lowered(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The keys of a server block Merlin reads (configfile.py, broker.py, results_backend.py).
AppValue* field(AppServer& s, const std::string& key) {
  std::pair<const char*, AppValue*> fields[] = {
      {"name", &s.name},           {"url", &s.url},           {"server", &s.server},
      {"port", &s.port},           {"db_num", &s.db_num},     {"username", &s.username},
      {"password", &s.password},   {"path", &s.path},         {"vhost", &s.vhost},
      {"cert_reqs", &s.cert_reqs}, {"ca_certs", &s.ca_certs}, {"certfile", &s.certfile},
      {"keyfile", &s.keyfile},
  };
  for (auto& [name, v] : fields)
    if (key == name) return v;
  return nullptr;
}

// `used`: the broker, whose shape matters and whose unknown keys are named; the results
// backend is only kept.
void read_server(const YamlEntry& e, AppServer& out, bool used, std::vector<IgnoredKey>& ignored,
                 DiagnosticList& diags) {
  if (!e.value.is_map() && !e.value.is_null()) {
    // Not describe_kind: a scalar here may be a URL with its password.
    if (used)
      diags.error(e.value.where, "'" + e.key + "' must be a map (name, server, port, ...), got " +
                                     (e.value.is_scalar() ? "a single value" : "a list"));
    return;
  }
  out.present = true;
  out.where = e.key_where;
  for (const auto& f : e.value.entries) {
    if (AppValue* v = field(out, f.key)) {
      *v = value_of(f.value);
      if (f.key == "name") v->text = lowered(v->text);
    } else if (used) {
      ignored.push_back({e.key + "." + f.key, f.key == "ssl_protocol"
                                                  ? IgnoredWhy::kTlsProtocol
                                                  : IgnoredWhy::kNotAServerKey});
    }
  }
}

// Why a top-level block other than broker and results_backend is not used.
IgnoredWhy why_block(const std::string& key) {
  if (key == "celery") return IgnoredWhy::kCelerySettings;
  if (key == "container" || key == "process") return IgnoredWhy::kServerSettings;
  return IgnoredWhy::kNotAnAppYamlKey;
}

}  // namespace

Result<AppConfig> read_app_config(const std::string& path) {
  auto text = files::read(path);
  if (!text) return AppConfig{};
  return parse_app_config(*text, path);
}

Result<AppConfig> parse_app_config(std::string_view text, const std::string& path) {
  AppConfig config;
  config.path = path;
  DiagnosticList diags(path);
  auto root = parse_yaml_tree(text, YamlLimits{}, diags);
  if (root && !root->is_null() && !root->is_map())
    diags.error(root->where, "the app config must be a map, got " + describe_kind(*root));
  if (root && root->is_map()) {
    for (const auto& e : root->entries) {
      if (e.key == "broker") {
        read_server(e, config.broker, true, config.ignored, diags);
      } else if (e.key == "results_backend") {
        read_server(e, config.results_backend, false, config.ignored, diags);
      } else if (e.key == "scratch") {
        if (e.value.is_scalar())
          config.scratch = e.value.scalar;
        else if (!e.value.is_null())
          diags.error(e.value.where, "'scratch' must be a path, got " + describe_kind(e.value));
      } else {
        config.ignored.push_back({e.key, why_block(e.key)});
      }
    }
  }
  if (diags.has_errors()) return Error::bad_input(join_diagnostics(diags.sorted()));
  return config;
}

}  // namespace merlin::spec
