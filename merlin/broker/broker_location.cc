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

// The URL as it may be printed: whatever comes before its last '@' may hold a password, so
// it is masked whatever shape the rest has ("redis:/:pw@host" is no URL, but "pw" is still a
// password). Of a well-formed "scheme://user:password@" only the password goes.
std::string masked(std::string_view url) {
  auto at = url.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  auto scheme_end = url.find("://");
  std::string head = "***";
  if (scheme_end != std::string_view::npos && scheme_end < at) {
    auto userinfo = url.substr(scheme_end + 3, at - scheme_end - 3);
    auto colon = userinfo.find(':');
    head = std::string(url.substr(0, scheme_end + 3)) +
           (colon == std::string_view::npos ? "***"  // redis://secret@host: the password alone
                                            : std::string(userinfo.substr(0, colon)) + ":***");
  }
  return head + std::string(url.substr(at));
}

}  // namespace

std::string BrokerLocation::display() const {
  std::string auth;
  if (!password.empty()) auth = username + ":***@";
  return scheme + "://" + auth + host + ":" + std::to_string(port) + "/" + std::to_string(db);
}

Result<BrokerLocation> parse_broker_url(std::string_view url) {
  // `hide`: a part of `url` (a view into it, after any '@') that may be a secret in the wrong
  // place, masked too. masked() keeps what follows the '@' as it is, so it sits as far from
  // the end of `shown` as from the end of `url`.
  auto bad = [&](const std::string& what, std::string_view hide = {}) {
    std::string shown = masked(url);
    if (!hide.empty()) {
      auto from_end = static_cast<std::size_t>(url.data() + url.size() - hide.data());
      if (from_end <= shown.size()) shown.replace(shown.size() - from_end, hide.size(), "***");
    }
    return Error::bad_input("broker URL '" + shown + "': " + what +
                            " (expected redis://[[user]:password@]host[:port][/db])");
  };
  BrokerLocation loc;
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return bad("no scheme");
  loc.scheme = std::string(url.substr(0, scheme_end));
  if (loc.scheme != "redis") return bad("unknown scheme '" + loc.scheme + "'");
  std::string_view rest = url.substr(scheme_end + 3);
  const bool has_userinfo = rest.rfind('@') != std::string_view::npos;
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
    if (!parse_int(port, 1, 65535, &loc.port)) {
      // "redis://:s3cret" is "redis://:s3cret@host" without its host: a password, not a port.
      if (colon == 0) return bad("the port is not a number from 1 to 65535", port);
      return bad("port '" + std::string(port) + "' is not a number from 1 to 65535");
    }
    hostport = hostport.substr(0, colon);
  }
  // A password for whichever server the default address reaches is never sent.
  if (hostport.empty() && has_userinfo)
    return bad("no host: a URL with a user or password must name the server they are for");
  if (!hostport.empty()) loc.host = std::string(hostport);
  return loc;
}

}  // namespace merlin
