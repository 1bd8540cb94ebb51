#pragma once
/// Where a study's Redis lives and how this process names itself there. Every key of a study
/// is "merlin:<study_key>:...", so several studies share one server (and `purge_study` drops
/// exactly one). Standalone Redis only: the Lua scripts touch keys they compute themselves,
/// which Redis Cluster does not allow.
#include <chrono>
#include <cstdint>
#include <string>

#include "merlin/core/broker/broker.h"
#include "merlin/core/broker/broker_location.h"
#include "merlin/core/broker/worker_registry.h"

namespace merlin {

struct RedisSettings {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string socket_path;  ///< a Unix socket instead of host:port when not empty
  /// rediss://: TLS to host:port (docs/tls.md), verified as `tls_settings` say (the chain and
  /// the name unless cert_reqs is none).
  bool tls = false;
  BrokerTls tls_settings;
  std::string username;  ///< ACL user (Redis 6+); empty: AUTH with the password alone
  std::string password;  ///< empty: no AUTH
  /// Where the password was given (MERLIN_BROKER_URL, --broker, an app.yaml): a refused AUTH
  /// names it, so the user knows which one to fix. Empty: not said.
  std::string password_source;
  int db = 0;            ///< SELECTed after connecting
  std::string study_key = "default";
  std::string consumer = "worker";  ///< unique per worker process (consumer-group member name)
  /// A reserved message idle this long is taken over by another worker (`extend_lease` renews).
  std::chrono::milliseconds lease = kDefaultLease;
  /// A consumer whose heartbeat (RedisWorkerRegistry) is older than this by the server's
  /// clock is dead: the messages it holds are queued again at once, whatever their lease.
  /// 0: only leases. Consumers with no heartbeat wait for their lease.
  std::chrono::milliseconds dead_after = kDefaultDeadAfter;
  std::chrono::milliseconds connect_timeout{2'000};
  /// How long one reply may take before the connection is given up as lost and the command
  /// retried (blocking reads add their wait to it).
  std::chrono::milliseconds command_timeout = kDefaultReplyTimeout;
  /// How long a command is retried (exponential backoff, 50 ms doubling to 1 s) while the
  /// server cannot be reached or does not answer, from its first failure, before it fails
  /// with kUnavailable.
  std::chrono::milliseconds reconnect_budget = kDefaultRetryBudget;
  /// Connections a pool or registry opens retry within reconnect_budget too (a worker
  /// mid-run); false: the first connect fails fast (a command's first contact).
  bool retry_first_connect = false;

  std::string address() const {
    if (!socket_path.empty()) return "unix:" + socket_path;
    return std::string(tls ? "rediss://" : "") +
           (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
           std::to_string(port);
  }
};

/// The key names of one study, in one place.
struct RedisKeys {
  std::string prefix;  ///< "merlin:<study_key>:"
  explicit RedisKeys(const std::string& study_key) : prefix("merlin:" + study_key + ":") {}

  std::string queue(const std::string& q) const { return prefix + "q:" + q; }  ///< a Stream
  std::string queues() const { return prefix + "queues"; }        ///< set of queue names seen
  std::string delayed() const { return prefix + "delayed"; }      ///< zset by due epoch ms
  std::string delayed_n() const { return prefix + "delayed_n"; }  ///< hash queue -> delayed count
  std::string dead() const { return prefix + "dead"; }            ///< Stream of undecodable text
  std::string done(std::uint32_t instance) const {
    return prefix + "done:" + std::to_string(instance);  ///< bitmap by sample id
  }
  std::string failed_bits(std::uint32_t instance) const {
    return prefix + "fail:" + std::to_string(instance);  ///< bitmap of the failed samples
  }
  std::string total() const { return prefix + "total"; }          ///< hash inst -> samples
  std::string remaining() const { return prefix + "remaining"; }  ///< hash inst -> not done
  std::string failed() const { return prefix + "failed"; }        ///< hash inst -> failures
  std::string secs() const { return prefix + "secs"; }            ///< hash inst -> run seconds
  std::string released() const { return prefix + "released"; }    ///< hash inst -> 1 once
  std::string halts() const { return prefix + "halts"; }  ///< Stream of step-requested stops
  /// Reservations of a broker that keeps them here (merlin/core/broker/reservations.h): hash id ->
  /// "deliveries\nqueue\nmessage", and a sorted set id -> lease end (server epoch ms).
  std::string held() const { return prefix + "held"; }
  std::string held_until() const { return prefix + "held_until"; }
  std::string held_by() const { return prefix + "held_by"; }  ///< hash id -> holder consumer
};

/// Hash worker id (= its consumer name) -> its last heartbeat, the server's epoch ms: whether
/// a consumer is alive, free of the hosts' clocks.
inline constexpr const char* kRedisWorkerBeats = "merlin:workers:beat";

/// The consumer group every worker of a study joins.
inline constexpr const char* kRedisGroup = "workers";

}  // namespace merlin
