#include "merlin/core/broker/broker_url_steps.h"

#include <cctype>
#include <charconv>

namespace merlin::broker_url {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const char* const kBadPercent = "a '%' in the user or password is not followed by two hex digits";

}  // namespace

std::optional<int> bounded_int(std::string_view s, int lo, int hi) {
  if (s.empty()) return std::nullopt;
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return std::nullopt;
  return v;
}

std::optional<std::string> percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || hex_digit(s[i + 1]) < 0 || hex_digit(s[i + 2]) < 0)
      return std::nullopt;
    out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
    i += 2;
  }
  return out;
}

std::string lowered(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Check split_scheme(std::string_view url, std::string& scheme, std::string_view& rest) {
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return Problem{"no scheme"};
  scheme = lowered(url.substr(0, scheme_end));  // urlparse lowers it too
  rest = url.substr(scheme_end + 3);
  return std::nullopt;
}

Check find_form(const std::string& scheme, const BrokerProviders& providers,
                BrokerProviders::Found& found) {
  auto f = providers.by_scheme(scheme);
  if (!f)
    return Problem{scheme.find_first_of("@:") == std::string::npos
                       ? "unknown scheme '" + scheme + "'"
                       : "unknown scheme"};  // "p@ss://h": no scheme, but a secret may be in it
  found = *f;
  return std::nullopt;
}

Check split_query(std::string_view rest, std::string_view& address, std::string_view& query) {
  address = rest;
  query = {};
  auto q = rest.find('?');
  if (q == std::string_view::npos) return std::nullopt;
  query = rest.substr(q + 1);
  address = rest.substr(0, q);
  // "redis://:pa?ss@host": a '?' in the password ends the address here as in every URL
  // parser, and the rest of the password would be shown as an option's name.
  if (query.find('@') != std::string_view::npos)
    return Problem{"a '?' before the '@': write a '?' in the user or password as %3F"};
  return std::nullopt;
}

// ?key=value&...: Celery's and redis-py's options, kept for whoever reads them.
Check read_query(std::string_view query, BrokerLocation& loc, QueryCredentials& credentials) {
  while (!query.empty()) {
    auto amp = query.find('&');
    auto item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (item.empty()) continue;
    auto eq = item.find('=');
    std::string key(item.substr(0, eq));
    std::string value(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1));
    if (key == "db" || key == "virtual_host") {  // kombu's database of a socket URL
      auto db = bounded_int(value, 0, 1 << 20);
      if (!db) return Problem{"database '" + value + "' is not a number"};
      loc.db = *db;
      continue;
    }
    // Celery's TLS options (redis-py's names).
    auto& tls = loc.tls_settings;
    if (key == "ssl_cert_reqs") {
      auto reqs = parse_cert_reqs(url_unquoted(value));
      if (!reqs)
        return Problem{"ssl_cert_reqs '" + value +
                       "' is none of CERT_NONE, CERT_OPTIONAL, CERT_REQUIRED (or none, optional, "
                       "required)"};
      tls.cert_reqs = *reqs;
    } else if (key == "ssl_ca_certs") {
      tls.ca_certs = url_unquoted(value);
    } else if (key == "ssl_certfile") {
      tls.certfile = url_unquoted(value);
    } else if (key == "ssl_keyfile") {
      tls.keyfile = url_unquoted(value);
    } else if (key == "password" || key == "username") {  // redis-py's query forms
      auto v = percent_decoded(value);
      if (!v) return Problem{kBadPercent};
      (key == "password" ? credentials.password : credentials.user) = *v;
    } else {
      loc.options.emplace_back(std::move(key), std::move(value));
    }
  }
  return std::nullopt;
}

Check read_userinfo(std::string_view& address, BrokerLocation& loc, bool& had) {
  auto at = address.rfind('@');
  had = at != std::string_view::npos;
  if (!had) return std::nullopt;
  auto userinfo = address.substr(0, at);
  address = address.substr(at + 1);
  auto colon = userinfo.find(':');
  auto user = percent_decoded(colon == std::string_view::npos ? std::string_view()
                                                              : userinfo.substr(0, colon));
  auto pw =
      percent_decoded(colon == std::string_view::npos ? userinfo : userinfo.substr(colon + 1));
  if (!user || !pw) return Problem{kBadPercent};
  loc.username = *user;  // redis://secret@host: the password alone
  loc.password = *pw;
  return std::nullopt;
}

Check read_socket_path(std::string_view address, BrokerLocation& loc) {
  auto path = percent_decoded(address);
  if (!path || path->empty() || (*path)[0] != '/')
    return Problem{"a socket URL names an absolute path: " + loc.scheme + ":///path/to/redis.sock"};
  loc.socket_path = *path;
  return std::nullopt;
}

Check read_path(std::string_view address, BrokerLocation& loc, std::string_view& hostport) {
  hostport = address;
  auto slash = address.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  hostport = address.substr(0, slash);
  auto db = address.substr(slash + 1);
  if (loc.path == UrlPath::kVirtualHost) {
    auto vhost = percent_decoded(db);
    if (!vhost) return Problem{"a '%' in the virtual host is not followed by two hex digits"};
    loc.vhost = vhost->empty() ? "/" : *vhost;
  } else if (!db.empty()) {
    auto n = bounded_int(db, 0, 1 << 20);
    if (!n) return Problem{"database '" + std::string(db) + "' is not a number"};
    loc.db = *n;
  }
  return std::nullopt;
}

Check read_host_port(std::string_view hostport, BrokerLocation& loc, std::string_view& host) {
  host = hostport;
  std::optional<std::string_view> port;
  if (!hostport.empty() && hostport[0] == '[') {  // IPv6: [::1]:6379
    auto close = hostport.find(']');
    if (close == std::string_view::npos) return Problem{"an IPv6 address without its ']'"};
    host = hostport.substr(1, close - 1);
    auto after = hostport.substr(close + 1);
    if (!after.empty() && after[0] != ':') return Problem{"text after the IPv6 address's ']'"};
    if (!after.empty()) port = after.substr(1);
  } else if (auto colon = hostport.rfind(':'); colon != std::string_view::npos) {
    port = hostport.substr(colon + 1);
    host = hostport.substr(0, colon);
    // "redis://:s3cret" is "redis://:s3cret@host" without its host: a password, not a port.
    if (colon == 0 && !bounded_int(*port, 1, 65535))
      return Problem{"the port is not a number from 1 to 65535", *port};
  }
  if (!port) return std::nullopt;
  auto n = bounded_int(*port, 1, 65535);
  if (!n) return Problem{"port '" + std::string(*port) + "' is not a number from 1 to 65535"};
  loc.port = *n;
  return std::nullopt;
}

}  // namespace merlin::broker_url
