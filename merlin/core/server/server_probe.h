#pragma once
/// What `merlin server` asks the Redis it runs, behind a small interface: the real one speaks
/// to Redis through adapters/broker/redis (made by merlin/cli/backends.cc), tests may fake it.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "merlin/core/util/result.h"

namespace merlin::server {

/// A few fields of Redis's INFO.
struct ServerFacts {
  long long pid = 0;             ///< process_id
  long long uptime_seconds = 0;  ///< uptime_in_seconds
  long long used_memory = 0;     ///< used_memory, bytes
  std::string version;           ///< redis_version
  long long keys = 0;            ///< keys of every database (the `keys=` of INFO keyspace)
  bool loading = false;          ///< still reading its AOF/RDB
};

/// Reads INFO's text ("# Server\r\nredis_version:7.0.15\r\n..."); fields not there stay 0.
ServerFacts parse_info(std::string_view info);

class ServerProbe {
 public:
  virtual ~ServerProbe() = default;
  /// INFO, with the password: kUnavailable when nothing answers, kRuntime when the server
  /// refuses (wrong password, another program on the port). A server still loading its data
  /// answers with `loading` set.
  virtual Result<ServerFacts> facts() = 0;
  /// SHUTDOWN SAVE: writes the snapshot and exits. The reply is the connection closing.
  virtual Result<void> shutdown() = 0;
};

/// Makes a probe for host:port with the password (no connection is made until a call).
using ProbeFactory = std::function<std::unique_ptr<ServerProbe>(const std::string& host, int port,
                                                                const std::string& password)>;

}  // namespace merlin::server
