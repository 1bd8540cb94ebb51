#include "merlin/run/app_broker.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/path_expand.h"

namespace merlin::run {
namespace {

using spec::AppValue;

std::string expand_home(const std::string& path) {
  return expand_user(path, process_environment());
}

std::string trimmed(std::string s) {
  const char* ws = " \t\r\n\v\f";  // Python's str.strip()
  s.erase(0, s.find_first_not_of(ws));
  s.erase(s.find_last_not_of(ws) + 1);
  return s;
}

// "file:line:col: " for a value of `file`.
std::string at(const std::string& file, const AppValue& v) {
  if (!v.where.known()) return file + ": ";
  return file + ":" + std::to_string(v.where.line) + ":" + std::to_string(v.where.column) + ": ";
}

bool is_password(const std::string& key) {
  return key.size() >= 9 && key.compare(key.size() - 9, 9, ".password") == 0;
}

// The value's text, or bad input when it is no scalar or still a placeholder of Merlin's
// template. Never quotes a password.
Result<std::string> text_of(const std::string& file, const std::string& key, const AppValue& v,
                            const std::string& what) {
  if (!v.scalar)
    return Error::bad_input(at(file, v) + key + " must be a single value, not a list or a map");
  const std::string& t = v.text;
  if (t.size() >= 2 && t.front() == '<' && t.back() == '>')
    return Error::bad_input(at(file, v) + key + " is still the placeholder " +
                            (is_password(key) ? "of Merlin's template" : "'" + t + "'") +
                            ": write " + what + " there");
  return t;
}

Result<int> number_of(const std::string& file, const std::string& key, const AppValue& v, int lo,
                      int hi, const std::string& what) {
  auto t = text_of(file, key, v, what);
  if (!t) return t.error();
  int n = 0;
  auto [p, ec] = std::from_chars(t->data(), t->data() + t->size(), n);
  if (ec != std::errc() || p != t->data() + t->size() || n < lo || n > hi)
    return Error::bad_input(at(file, v) + key + " must be " + what + ", got '" + *t + "'");
  return n;
}

// Merlin's `password`: the name of a file holding it (looked for under ~/.merlin first, then
// as a path), which only its owner (and group) may read; or, when no such file exists, the
// password itself. The value is never put in a message: it may be the secret.
Result<std::string> app_password(const std::string& file, const std::string& key,
                                 const AppValue& v) {
  auto written = text_of(file, key, v, "the path of a file holding the password");
  if (!written) return written.error();
  std::vector<std::string> candidates;
  if (!written->empty() && written->front() != '/' && written->front() != '~')
    candidates.push_back(expand_home("~/.merlin/" + *written));
  candidates.push_back(expand_home(*written));
  for (const auto& path : candidates) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG) continue;
      return Error::bad_input(at(file, v) + key +
                              ": cannot read the file it names: " + std::strerror(errno));
    }
    if (st.st_mode & S_IROTH) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return Error::bad_input(at(file, v) + key + " file " + path +
                              " is readable by everyone (mode " + mode + "); run: chmod 600 " +
                              path);
    }
    auto text = files::read(path);
    if (!text) return text.error();
    return trimmed(text->substr(0, text->find('\n')));  // Merlin reads its first line
  }
  // The password is in app.yaml itself: say so, and how far it is exposed there.
  struct stat own {};
  if (::stat(file.c_str(), &own) == 0 && (own.st_mode & (S_IRGRP | S_IROTH))) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(own.st_mode & 07777));
    log::warn(
        "{}{} names no file, so its value is used as the password itself (as Merlin does), "
        "and {} is mode {}, readable by {}: run chmod 600 {}, or better put the password in a "
        "file only you can read and name that file",
        at(file, v), key, file, mode, own.st_mode & S_IROTH ? "everyone" : "its group", file);
  } else {
    log::warn(
        "{}{} names no file, so its value is used as the password itself (as Merlin does); "
        "better put the password in a file only you can read (chmod 600) and name that file",
        at(file, v), key);
  }
  return url_unquoted(trimmed(*written));
}

// One server block ("broker" or "results_backend") as a location, as Merlin reads it;
// `results`: the block names a results backend (no broker that needs one itself).
Result<BrokerLocation> read_app_server(const std::string& file, const spec::AppServer& b,
                                       const std::string& block, bool results,
                                       const BrokerProviders& providers,
                                       std::vector<spec::IgnoredKey>& unused) {
  auto k = [&](const char* key) { return block + "." + key; };
  const SourceOf source{LocationSource::kAppYaml, file};
  BrokerLocation loc = providers.default_location();
  loc.source = source;
  if (b.url.given) {  // Merlin's get_connection_string: the URL and nothing else
    auto url = text_of(file, k("url"), b.url, "the server's URL");
    if (!url) return url.error();
    auto parsed = parse_broker_url(*url, providers);
    if (!parsed)
      return Error{parsed.error().code, at(file, b.url) + k("url") + ": " + parsed.error().message};
    loc = *parsed;
    loc.source = source;
    const std::pair<const char*, const AppValue*> others[] = {
        {"name", &b.name},         {"server", &b.server},     {"port", &b.port},
        {"db_num", &b.db_num},     {"username", &b.username}, {"password", &b.password},
        {"path", &b.path},         {"vhost", &b.vhost},       {"cert_reqs", &b.cert_reqs},
        {"ca_certs", &b.ca_certs}, {"certfile", &b.certfile}, {"keyfile", &b.keyfile}};
    for (const auto& [key, v] : others)
      if (v->given)
        unused.push_back({k(key), k("url") + " is used in their place, as Merlin does"});
    return loc;
  }
  if (b.name.given && !b.name.scalar)
    return Error::bad_input(at(file, b.name) + k("name") +
                            " must be a single value, such as redis");
  const std::string& name = b.name.text;
  auto found = providers.by_app_name(name);
  if (found && results && found->provider->needs_results_backend)
    return Error::bad_input(at(file, b.name) + k("name") + " '" + name +
                            "': the results backend is a " + providers.all().front()->title + " (" +
                            providers.app_names_text(true) + ")");
  if (!found)
    return Error::bad_input(at(file, b.name) + k("name") + " '" + name + "' is none of " +
                            providers.app_names_text(results));
  apply_form(loc, *found);
  const bool vhost_path = loc.path == UrlPath::kVirtualHost;
  const bool socket = loc.path == UrlPath::kSocketPath;
  if (socket) {
    const AppValue& where = b.path.given ? b.path : b.server;
    if (!where.given)
      return Error::bad_input(file + ": " + k("path") + ": a " + loc.scheme +
                              " server is reached through its socket's path");
    auto path = text_of(file, b.path.given ? k("path") : k("server"), where, "the socket's path");
    if (!path) return path.error();
    loc.socket_path = expand_home(*path);
    if (b.path.given && b.server.given)
      unused.push_back({k("server"), "a " + loc.scheme + " server is reached through its path"});
  } else if (b.server.given) {
    auto server = text_of(file, k("server"), b.server, "the server's host name");
    if (!server) return server.error();
    if (!server->empty()) loc.host = *server;
  }
  if (b.port.given) {
    auto port = number_of(file, k("port"), b.port, 1, 65535, "a port number (1 to 65535)");
    if (!port) return port.error();
    if (socket)
      unused.push_back({k("port"), "a " + loc.scheme + " server has no port"});
    else
      loc.port = *port;
  }
  if (b.db_num.given) {
    if (vhost_path) {
      unused.push_back({k("db_num"), "a Redis database number; RabbitMQ has vhosts"});
    } else {
      auto db = number_of(file, k("db_num"), b.db_num, 0, 1 << 20, "a database number (0 or more)");
      if (!db) return db.error();
      loc.db = *db;
    }
  }
  if (b.username.given) {
    auto user =
        text_of(file, k("username"), b.username,
                "the " + found->provider->title + (vhost_path ? " user" : " ACL user (or '')"));
    if (!user) return user.error();
    loc.username = *user;
  }
  if (b.password.given) {
    auto pw = app_password(file, k("password"), b.password);
    if (!pw) return pw.error();
    loc.password = *pw;
  }
  if (b.vhost.given) {
    if (vhost_path) {
      auto vhost =
          text_of(file, k("vhost"), b.vhost, "the " + found->provider->title + " virtual host");
      if (!vhost) return vhost.error();
      loc.vhost = vhost->empty() ? "/" : *vhost;
    } else {
      unused.push_back(
          {k("vhost"),
           "RabbitMQ's virtual host; a Redis server has none (db_num picks its database)"});
    }
  }
  struct TlsKey {
    const char* key;
    const AppValue* value;
    std::string* path;  // nullptr: cert_reqs
  } tls_keys[] = {{"cert_reqs", &b.cert_reqs, nullptr},
                  {"ca_certs", &b.ca_certs, &loc.tls_settings.ca_certs},
                  {"certfile", &b.certfile, &loc.tls_settings.certfile},
                  {"keyfile", &b.keyfile, &loc.tls_settings.keyfile}};
  for (const auto& t : tls_keys) {
    if (!t.value->given) continue;
    if (!loc.tls) {
      unused.push_back({k(t.key), "a TLS setting, which a plain (non-TLS) server does not use"});
      continue;
    }
    auto text = text_of(file, k(t.key), *t.value, "a value");
    if (!text) return text.error();
    if (t.path) {
      *t.path = expand_home(*text);
    } else if (auto reqs = parse_cert_reqs(*text)) {
      loc.tls_settings.cert_reqs = *reqs;
    } else {  // Merlin leaves such a value unset too
      unused.push_back({k(t.key), "'" + *text + "' is none of none, optional, required"});
    }
  }
  return loc;
}

}  // namespace

std::string find_app_config(const std::string& cwd, const std::string& home) {
  std::string here = cwd + "/app.yaml";
  if (files::exists(here)) return here;
  return find_home_app_config(home);
}

std::string find_home_app_config(const std::string& home) {
  std::string merlin_home = home + "/.merlin";
  if (auto named = files::read(merlin_home + "/config_path.txt")) {
    std::string path = trimmed(*named);
    if (!path.empty() && files::exists(path)) return path;
  }
  return merlin_home + "/app.yaml";
}

Result<BrokerLocation> app_broker(const spec::AppConfig& config,
                                  std::vector<spec::IgnoredKey>& unused,
                                  const BrokerProviders& providers) {
  return read_app_server(config.path, config.broker, "broker", false, providers, unused);
}

Result<BrokerLocation> app_results_backend(const spec::AppConfig& config,
                                           std::vector<spec::IgnoredKey>& unused,
                                           const BrokerProviders& providers) {
  return read_app_server(config.path, config.results_backend, "results_backend", true, providers,
                         unused);
}

std::string unused_keys_note(const std::vector<spec::IgnoredKey>& unused) {
  std::vector<std::pair<std::string, std::string>> groups;  // why -> keys
  for (const auto& k : unused) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == k.why; });
    if (it == groups.end())
      groups.push_back({k.why, k.key});
    else
      it->second += ", " + k.key;
  }
  std::string out;
  for (const auto& [why, keys] : groups) out += (out.empty() ? "" : "; ") + keys + " (" + why + ")";
  return out;
}

}  // namespace merlin::run
