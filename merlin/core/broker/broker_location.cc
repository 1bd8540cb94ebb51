#include "merlin/core/broker/broker_location.h"

#include "merlin/core/broker/broker_provider.h"

#include <cctype>
#include <charconv>
#include <optional>

namespace merlin {
namespace {

bool parse_int(std::string_view s, int lo, int hi, int* out) {
  if (s.empty()) return false;
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// The URL as it may be printed: whatever comes before its last '@' may hold a password, so
// it is masked whatever shape the rest has ("redis:/:pw@host" is no URL, but "pw" is still a
// password). Of a well-formed "scheme://user:password@" only the password goes; so does the
// value of a `?password=` option (redis-py reads one).
std::string masked(std::string_view url) {
  std::string out(url);
  auto at = url.rfind('@');
  if (at != std::string_view::npos) {
    auto scheme_end = url.find("://");
    std::string head = "***";
    if (scheme_end != std::string_view::npos && scheme_end < at) {
      auto userinfo = url.substr(scheme_end + 3, at - scheme_end - 3);
      auto colon = userinfo.find(':');
      head = std::string(url.substr(0, scheme_end + 3)) +
             (colon == std::string_view::npos ? "***"  // redis://secret@host: the password alone
                                              : std::string(userinfo.substr(0, colon)) + ":***");
    }
    out = head + std::string(url.substr(at));
  }
  auto q = out.find('?', at == std::string_view::npos ? 0 : out.rfind('@'));
  while (q != std::string::npos) {
    auto end = out.find('&', q + 1);
    if (out.compare(q + 1, 9, "password=") == 0)
      out.replace(q + 10, (end == std::string::npos ? out.size() : end) - q - 10, "***");
    q = out.find('&', q + 1);
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `%XX` escapes decoded (RFC 3986), as Celery and redis-py read a URL's user and password;
// nullopt for a '%' not followed by two hex digits.
std::optional<std::string> percent_decoded(std::string_view s) {
  auto hex = hex_digit;
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0) return std::nullopt;
    out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
    i += 2;
  }
  return out;
}

std::string lowered(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<CertReqs> parse_cert_reqs(std::string_view text) {
  std::string t = lowered(text);
  if (t.rfind("cert_", 0) == 0) t.erase(0, 5);
  if (t == "none") return CertReqs::kNone;
  if (t == "optional") return CertReqs::kOptional;
  if (t == "required") return CertReqs::kRequired;
  return std::nullopt;
}

std::string url_unquoted(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
        hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool BrokerLocation::needs_results_backend() const {
  return provider != nullptr && provider->needs_results_backend;
}

std::string BrokerLocation::display() const {
  std::string auth;
  if (!password.empty()) auth = username + ":***@";
  if (path == UrlPath::kSocketPath)
    return scheme + "://" + auth + socket_path + (db != 0 ? "?db=" + std::to_string(db) : "");
  const std::string shown_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  const std::string head = scheme + "://" + auth + shown_host + ":" + std::to_string(port) + "/";
  if (path == UrlPath::kVirtualHost) return head + (vhost == "/" ? "" : vhost);
  return head + std::to_string(db);
}

Result<BrokerLocation> parse_broker_url(std::string_view url, const BrokerProviders& providers) {
  // `hide`: a part of `url` (a view into it, after any '@') that may be a secret in the wrong
  // place, masked too.
  const std::string expected =
      providers.all().empty() ? std::string("scheme://host") : providers.all().front()->url_help;
  auto bad = [&](const std::string& what, std::string_view hide = {}) {
    std::string raw(url);
    if (!hide.empty())
      raw.replace(static_cast<std::size_t>(hide.data() - url.data()), hide.size(), "***");
    return Error::bad_input("broker URL '" + masked(raw) + "': " + what + " (expected " + expected +
                            ")");
  };
  BrokerLocation loc;
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return bad("no scheme");
  const std::string scheme = lowered(url.substr(0, scheme_end));  // urlparse lowers it too
  auto found = providers.by_scheme(scheme);
  if (!found)
    return bad(scheme.find_first_of("@:") == std::string::npos
                   ? "unknown scheme '" + scheme + "'"
                   : "unknown scheme");  // "p@ss://h": no scheme, but a secret may be in it
  apply_form(loc, *found);
  const bool vhost_path = loc.path == UrlPath::kVirtualHost;
  const bool socket = loc.path == UrlPath::kSocketPath;
  std::string_view rest = url.substr(scheme_end + 3);
  std::optional<std::string> query_user, query_password;
  // ?key=value&...: Celery's and redis-py's options, kept for whoever reads them.
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    std::string_view query = rest.substr(q + 1);
    rest = rest.substr(0, q);
    // "redis://:pa?ss@host": a '?' in the password ends the address here as in every URL
    // parser, and the rest of the password would be shown as an option's name.
    if (query.find('@') != std::string_view::npos)
      return bad("a '?' before the '@': write a '?' in the user or password as %3F");
    while (!query.empty()) {
      auto amp = query.find('&');
      auto item = query.substr(0, amp);
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
      if (item.empty()) continue;
      auto eq = item.find('=');
      std::string key(item.substr(0, eq));
      std::string value(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1));
      if (key == "db" || key == "virtual_host") {  // kombu's database of a socket URL
        if (!parse_int(value, 0, 1 << 20, &loc.db))
          return bad("database '" + value + "' is not a number");
        continue;
      }
      // Celery's TLS options (redis-py's names).
      auto& tls = loc.tls_settings;
      if (key == "ssl_cert_reqs") {
        auto reqs = parse_cert_reqs(url_unquoted(value));
        if (!reqs)
          return bad("ssl_cert_reqs '" + value +
                     "' is none of CERT_NONE, CERT_OPTIONAL, CERT_REQUIRED (or none, optional, "
                     "required)");
        tls.cert_reqs = *reqs;
      } else if (key == "ssl_ca_certs") {
        tls.ca_certs = url_unquoted(value);
      } else if (key == "ssl_certfile") {
        tls.certfile = url_unquoted(value);
      } else if (key == "ssl_keyfile") {
        tls.keyfile = url_unquoted(value);
      } else if (key == "password" || key == "username") {  // redis-py's query forms
        auto v = percent_decoded(value);
        if (!v) return bad("a '%' in the user or password is not followed by two hex digits");
        (key == "password" ? query_password : query_user) = *v;
      } else {
        loc.options.emplace_back(std::move(key), std::move(value));
      }
    }
  }
  const bool has_userinfo =
      rest.rfind('@') != std::string_view::npos || query_user || query_password;
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    auto userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    auto colon = userinfo.find(':');
    auto user = percent_decoded(colon == std::string_view::npos ? std::string_view()
                                                                : userinfo.substr(0, colon));
    auto pw =
        percent_decoded(colon == std::string_view::npos ? userinfo : userinfo.substr(colon + 1));
    if (!user || !pw) return bad("a '%' in the user or password is not followed by two hex digits");
    loc.username = *user;  // redis://secret@host: the password alone
    loc.password = *pw;
  }
  // As redis-py: a query's user and password win over the address's.
  if (query_user) loc.username = *query_user;
  if (query_password) loc.password = *query_password;
  if (socket) {
    auto path = percent_decoded(rest);
    if (!path || path->empty() || (*path)[0] != '/')
      return bad("a socket URL names an absolute path: " + loc.scheme + ":///path/to/redis.sock");
    loc.socket_path = *path;
    return loc;
  }
  std::string_view hostport = rest;
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    hostport = rest.substr(0, slash);
    auto db = rest.substr(slash + 1);
    if (vhost_path) {
      auto vhost = percent_decoded(db);
      if (!vhost) return bad("a '%' in the virtual host is not followed by two hex digits");
      loc.vhost = vhost->empty() ? "/" : *vhost;
    } else if (!db.empty() && !parse_int(db, 0, 1 << 20, &loc.db)) {
      return bad("database '" + std::string(db) + "' is not a number");
    }
  }
  std::string_view host = hostport;
  std::optional<std::string_view> port;
  if (!hostport.empty() && hostport[0] == '[') {  // IPv6: [::1]:6379
    auto close = hostport.find(']');
    if (close == std::string_view::npos) return bad("an IPv6 address without its ']'");
    host = hostport.substr(1, close - 1);
    auto after = hostport.substr(close + 1);
    if (!after.empty() && after[0] != ':') return bad("text after the IPv6 address's ']'");
    if (!after.empty()) port = after.substr(1);
  } else if (auto colon = hostport.rfind(':'); colon != std::string_view::npos) {
    port = hostport.substr(colon + 1);
    host = hostport.substr(0, colon);
    // "redis://:s3cret" is "redis://:s3cret@host" without its host: a password, not a port.
    if (!parse_int(*port, 1, 65535, &loc.port) && colon == 0)
      return bad("the port is not a number from 1 to 65535", *port);
  }
  if (port && !parse_int(*port, 1, 65535, &loc.port))
    return bad("port '" + std::string(*port) + "' is not a number from 1 to 65535");
  // A password for whichever server the default address reaches is never sent.
  if (host.empty() && has_userinfo)
    return bad("no host: a URL with a user or password must name the server they are for");
  if (!host.empty()) loc.host = std::string(host);
  return loc;
}

}  // namespace merlin
