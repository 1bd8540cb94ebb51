#pragma once
/// Redis as a kind of broker: its URL forms (redis://, rediss:// over TLS, redis+socket:// and
/// unix:// for a Unix socket), its app.yaml names, its template, and opening a RedisBackend.
#include "merlin/core/broker/broker_provider.h"

namespace merlin {

inline constexpr BrokerKind kRedisKind{"redis"};

/// Everything but `open`: pure data, what parsing a URL or app.yaml needs.
BrokerProvider redis_provider_description();

/// The provider with `open` (a RedisBackend on the location's server; no server is contacted).
const BrokerProvider& redis_provider();

}  // namespace merlin
