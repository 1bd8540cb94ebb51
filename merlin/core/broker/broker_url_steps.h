#pragma once
/// parse_broker_url's steps, left to right through
/// `scheme://[[user]:password@]host[:port][/path][?k=v&...]`: each a pure function that fills
/// its part of a location or says what is wrong. The words of a Problem are the user's
/// message; parse_broker_url adds the URL (masked) and the form expected.
#include <optional>
#include <string>
#include <string_view>

#include "merlin/core/broker/broker_location.h"
#include "merlin/core/broker/broker_provider.h"

namespace merlin::broker_url {

/// What is wrong with a URL. `hide`: a part of the URL (a view into it) that may be a secret
/// in the wrong place, masked in the message too.
struct Problem {
  std::string what;
  std::string_view hide{};
};
/// A step's answer: nothing, or what is wrong.
using Check = std::optional<Problem>;

/// `s` as an integer in [lo, hi]; nullopt for anything else (empty, signs, trailing text).
std::optional<int> bounded_int(std::string_view s, int lo, int hi);
/// `%XX` escapes decoded (RFC 3986), as Celery and redis-py read a URL's user and password;
/// nullopt for a '%' not followed by two hex digits.
std::optional<std::string> percent_decoded(std::string_view s);
/// ASCII lower case.
std::string lowered(std::string_view s);

/// "REDIS://h" is scheme "redis" (lowered, as urlparse does) and `rest` "h". "no scheme"
/// without a "://".
Check split_scheme(std::string_view url, std::string& scheme, std::string_view& rest);

/// The provider and form of `scheme`; "unknown scheme 'x'", or "unknown scheme" alone when the
/// scheme has a '@' or ':' (it may hold a secret: "p@ss://h").
Check find_form(const std::string& scheme, const BrokerProviders& providers,
                BrokerProviders::Found& found);

/// `rest` cut at its first '?': `address` before, `query` after (empty when none). A '@'
/// in the query is a '?' in the user or password: a problem.
Check split_query(std::string_view rest, std::string_view& address, std::string_view& query);

/// A query's user and password (redis-py's `?username=`/`?password=`), percent-decoded; they
/// win over the address's.
struct QueryCredentials {
  std::optional<std::string> user, password;
};

/// `k=v&...` into `loc`: `db` and `virtual_host` the database, the `ssl_*` options its TLS
/// settings, `username`/`password` into `credentials`, any other kept in `loc.options` as
/// written. Problems: a database that is no number, an unknown `ssl_cert_reqs`, a bad '%'.
Check read_query(std::string_view query, BrokerLocation& loc, QueryCredentials& credentials);

/// `[user[:password]@]` before the address's last '@' into `loc` (percent-decoded; no ':' is
/// the password alone), `address` left with what follows; `had` says whether there was one.
Check read_userinfo(std::string_view& address, BrokerLocation& loc, bool& had);

/// A socket URL's address: an absolute path, percent-decoded, into `loc.socket_path`.
Check read_socket_path(std::string_view address, BrokerLocation& loc);

/// The path after the address's first '/': a database number or (the form's UrlPath) a
/// virtual host ("" is "/") into `loc`; `hostport` is what comes before it.
Check read_path(std::string_view address, BrokerLocation& loc, std::string_view& hostport);

/// `host[:port]` or `[ipv6][:port]`: the port into `loc.port`, `host` the host's text (empty
/// when not given). ":secret" with no host is taken for a misplaced password and masked.
Check read_host_port(std::string_view hostport, BrokerLocation& loc, std::string_view& host);

}  // namespace merlin::broker_url
