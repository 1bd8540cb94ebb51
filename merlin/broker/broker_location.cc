#include "merlin/broker/broker_location.h"

#include <charconv>

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

// The URL as it may be printed: the password part replaced.
std::string masked(std::string_view url) {
  auto scheme_end = url.find("://");
  auto at = url.rfind('@');
  if (scheme_end == std::string_view::npos || at == std::string_view::npos || at < scheme_end)
    return std::string(url);
  auto userinfo = url.substr(scheme_end + 3, at - scheme_end - 3);
  auto colon = userinfo.find(':');
  if (colon == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, scheme_end + 3)) + std::string(userinfo.substr(0, colon)) +
         ":***" + std::string(url.substr(at));
}

}  // namespace

std::string BrokerLocation::display() const {
  std::string auth;
  if (!password.empty()) auth = username + ":***@";
  return scheme + "://" + auth + host + ":" + std::to_string(port) + "/" + std::to_string(db);
}

Result<BrokerLocation> parse_broker_url(std::string_view url) {
  auto bad = [&](const std::string& what) {
    return Error::bad_input("broker URL '" + masked(url) + "': " + what +
                            " (expected redis://[:password@]host:port/db)");
  };
  BrokerLocation loc;
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return bad("no scheme");
  loc.scheme = std::string(url.substr(0, scheme_end));
  if (loc.scheme != "redis") return bad("unknown scheme '" + loc.scheme + "'");
  std::string_view rest = url.substr(scheme_end + 3);
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    auto userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    auto colon = userinfo.find(':');
    if (colon == std::string_view::npos) {
      loc.password = std::string(userinfo);  // redis://secret@host: the password alone
    } else {
      loc.username = std::string(userinfo.substr(0, colon));
      loc.password = std::string(userinfo.substr(colon + 1));
    }
  }
  std::string_view hostport = rest;
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    hostport = rest.substr(0, slash);
    auto db = rest.substr(slash + 1);
    if (!db.empty() && !parse_int(db, 0, 1 << 20, &loc.db))
      return bad("database '" + std::string(db) + "' is not a number");
  }
  if (auto colon = hostport.rfind(':'); colon != std::string_view::npos) {
    auto port = hostport.substr(colon + 1);
    if (!parse_int(port, 1, 65535, &loc.port))
      return bad("port '" + std::string(port) + "' is not a number from 1 to 65535");
    hostport = hostport.substr(0, colon);
  }
  if (!hostport.empty()) loc.host = std::string(hostport);
  return loc;
}

}  // namespace merlin
