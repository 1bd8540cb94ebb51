#include "merlin/core/broker/broker_location.h"

#include "merlin/core/broker/broker_provider.h"
#include "merlin/core/broker/broker_url_steps.h"

namespace merlin {
namespace {

using broker_url::lowered;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
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
  using broker_url::Check;
  const std::string expected =
      providers.all().empty() ? std::string("scheme://host") : providers.all().front()->url_help;
  auto bad = [&](const broker_url::Problem& p) {
    std::string raw(url);
    if (!p.hide.empty())
      raw.replace(static_cast<std::size_t>(p.hide.data() - url.data()), p.hide.size(), "***");
    return Error::bad_input("broker URL '" + masked(raw) + "': " + p.what + " (expected " +
                            expected + ")");
  };
  BrokerLocation loc;
  std::string scheme;
  std::string_view rest, address, query, hostport, host;
  BrokerProviders::Found found{};
  broker_url::QueryCredentials from_query;
  bool had_userinfo = false;
  if (Check c = broker_url::split_scheme(url, scheme, rest)) return bad(*c);
  if (Check c = broker_url::find_form(scheme, providers, found)) return bad(*c);
  apply_form(loc, found);
  if (Check c = broker_url::split_query(rest, address, query)) return bad(*c);
  if (Check c = broker_url::read_query(query, loc, from_query)) return bad(*c);
  if (Check c = broker_url::read_userinfo(address, loc, had_userinfo)) return bad(*c);
  // As redis-py: a query's user and password win over the address's.
  if (from_query.user) loc.username = *from_query.user;
  if (from_query.password) loc.password = *from_query.password;
  if (loc.path == UrlPath::kSocketPath) {
    if (Check c = broker_url::read_socket_path(address, loc)) return bad(*c);
    return loc;
  }
  if (Check c = broker_url::read_path(address, loc, hostport)) return bad(*c);
  if (Check c = broker_url::read_host_port(hostport, loc, host)) return bad(*c);
  // A password for whichever server the default address reaches is never sent.
  if (host.empty() && (had_userinfo || from_query.user || from_query.password))
    return bad({"no host: a URL with a user or password must name the server they are for"});
  if (!host.empty()) loc.host = std::string(host);
  return loc;
}

}  // namespace merlin
