#include "merlin/run/app_server_reading.h"

#include <charconv>
#include <utility>

namespace merlin::run {
namespace {

using spec::AppValue;

std::string at(const std::string& file, const AppValue& v) { return app_value_at(file, v); }

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

}  // namespace

std::string app_value_at(const std::string& file, const spec::AppValue& v) {
  if (!v.where.known()) return file + ": ";
  return file + ":" + std::to_string(v.where.line) + ":" + std::to_string(v.where.column) + ": ";
}

namespace {

// One block's reading, step by step in the order Merlin reads its keys: what the steps share.
struct BlockReading {
  const std::string& file;
  const spec::AppServer& b;
  const std::string& block;
  const AppServerEdge& edge;
  std::vector<spec::IgnoredKey>& unused;

  std::string k(const char* key) const { return block + "." + key; }

  // Merlin's get_connection_string: the URL and nothing else; every other key given is unused.
  Result<BrokerLocation> from_url(const BrokerProviders& providers, const SourceOf& source) {
    auto url = text_of(file, k("url"), b.url, "the server's URL");
    if (!url) return url.error();
    auto parsed = parse_broker_url(*url, providers);
    if (!parsed)
      return Error{parsed.error().code, at(file, b.url) + k("url") + ": " + parsed.error().message};
    BrokerLocation loc = *parsed;
    loc.source = source;
    const std::pair<const char*, const AppValue*> others[] = {
        {"name", &b.name},         {"server", &b.server},     {"port", &b.port},
        {"db_num", &b.db_num},     {"username", &b.username}, {"password", &b.password},
        {"path", &b.path},         {"vhost", &b.vhost},       {"cert_reqs", &b.cert_reqs},
        {"ca_certs", &b.ca_certs}, {"certfile", &b.certfile}, {"keyfile", &b.keyfile}};
    for (const auto& [key, v] : others)
      if (v->given) unused.push_back({k(key), spec::IgnoredWhy::kUrlInPlace, k("url")});
    return loc;
  }

  // `name`: the provider and form it means; a results backend only of those keeping progress.
  Result<BrokerProviders::Found> form(const BrokerProviders& providers, bool results) const {
    if (b.name.given && !b.name.scalar)
      return Error::bad_input(at(file, b.name) + k("name") +
                              " must be a single value, such as redis");
    const std::string& name = b.name.text;
    auto found = providers.by_app_name(name);
    if (found && results && found->provider->needs_results_backend)
      return Error::bad_input(at(file, b.name) + k("name") + " '" + name +
                              "': the results backend is a " + providers.all().front()->title +
                              " (" + providers.app_names_text(true) + ")");
    if (!found)
      return Error::bad_input(at(file, b.name) + k("name") + " '" + name + "' is none of " +
                              providers.app_names_text(results));
    return *found;
  }

  // `path` or `server` (a socket's path, or the host), `port`, `db_num`.
  Result<void> address(BrokerLocation& loc) {
    const bool socket = loc.path == UrlPath::kSocketPath;
    if (socket) {
      const AppValue& where = b.path.given ? b.path : b.server;
      if (!where.given)
        return Error::bad_input(file + ": " + k("path") + ": a " + loc.scheme +
                                " server is reached through its socket's path");
      auto path = text_of(file, b.path.given ? k("path") : k("server"), where, "the socket's path");
      if (!path) return path.error();
      loc.socket_path = edge.expand_home(*path);
      if (b.path.given && b.server.given)
        unused.push_back({k("server"), spec::IgnoredWhy::kSocketHasPath, loc.scheme});
    } else if (b.server.given) {
      auto server = text_of(file, k("server"), b.server, "the server's host name");
      if (!server) return server.error();
      if (!server->empty()) loc.host = *server;
    }
    if (b.port.given) {
      auto port = number_of(file, k("port"), b.port, 1, 65535, "a port number (1 to 65535)");
      if (!port) return port.error();
      if (socket)
        unused.push_back({k("port"), spec::IgnoredWhy::kSocketHasNoPort, loc.scheme});
      else
        loc.port = *port;
    }
    if (b.db_num.given) {
      if (loc.path == UrlPath::kVirtualHost) {
        unused.push_back({k("db_num"), spec::IgnoredWhy::kRedisDatabase});
      } else {
        auto db =
            number_of(file, k("db_num"), b.db_num, 0, 1 << 20, "a database number (0 or more)");
        if (!db) return db.error();
        loc.db = *db;
      }
    }
    return ok();
  }

  // `username`, then `password` (through the edge: a file, or the value itself).
  Result<void> credentials(BrokerLocation& loc, const std::string& title) {
    if (b.username.given) {
      auto user = text_of(
          file, k("username"), b.username,
          "the " + title + (loc.path == UrlPath::kVirtualHost ? " user" : " ACL user (or '')"));
      if (!user) return user.error();
      loc.username = *user;
    }
    if (b.password.given) {
      auto written =
          text_of(file, k("password"), b.password, "the path of a file holding the password");
      if (!written) return written.error();
      auto pw = edge.password(at(file, b.password), k("password"), *written);
      if (!pw) return pw.error();
      loc.password = *pw;
    }
    return ok();
  }

  // `vhost`: a virtual host's form takes it ("" is "/"); any other names it unused.
  Result<void> vhost(BrokerLocation& loc, const std::string& title) {
    if (!b.vhost.given) return ok();
    if (loc.path != UrlPath::kVirtualHost) {
      unused.push_back({k("vhost"), spec::IgnoredWhy::kRabbitmqVhost});
      return ok();
    }
    auto vhost = text_of(file, k("vhost"), b.vhost, "the " + title + " virtual host");
    if (!vhost) return vhost.error();
    loc.vhost = vhost->empty() ? "/" : *vhost;
    return ok();
  }

  // `cert_reqs`, `ca_certs`, `certfile`, `keyfile`: a TLS form's settings; unused otherwise.
  Result<void> tls(BrokerLocation& loc) {
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
        unused.push_back({k(t.key), spec::IgnoredWhy::kTlsOfPlainServer});
        continue;
      }
      auto text = text_of(file, k(t.key), *t.value, "a value");
      if (!text) return text.error();
      if (t.path) {
        *t.path = edge.expand_home(*text);
      } else if (auto reqs = parse_cert_reqs(*text)) {
        loc.tls_settings.cert_reqs = *reqs;
      } else {  // Merlin leaves such a value unset too
        unused.push_back({k(t.key), spec::IgnoredWhy::kUnknownCertReqs, *text});
      }
    }
    return ok();
  }
};

}  // namespace

Result<BrokerLocation> read_app_server(const std::string& file, const spec::AppServer& b,
                                       const std::string& block, bool results,
                                       const BrokerProviders& providers, const AppServerEdge& edge,
                                       std::vector<spec::IgnoredKey>& unused) {
  BlockReading r{file, b, block, edge, unused};
  const SourceOf source{LocationSource::kAppYaml, file};
  if (b.url.given) return r.from_url(providers, source);
  auto found = r.form(providers, results);
  if (!found) return found.error();
  BrokerLocation loc = providers.default_location();
  loc.source = source;
  apply_form(loc, *found);
  const std::string& title = found->provider->title;
  if (auto a = r.address(loc); !a) return a.error();
  if (auto c = r.credentials(loc, title); !c) return c.error();
  if (auto v = r.vhost(loc, title); !v) return v.error();
  if (auto t = r.tls(loc); !t) return t.error();
  return loc;
}

}  // namespace merlin::run
