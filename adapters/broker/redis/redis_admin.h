#pragma once
/// Administration of one Redis server (`merlin server`): its INFO text and SHUTDOWN. No retry:
/// a server that does not answer is reported at once, the caller decides whether to wait.
#include <memory>
#include <string>

#include "merlin/core/util/result.h"

namespace merlin {

class RedisConnection;

class RedisAdmin {
 public:
  /// No connection is made until a call. `password` is sent with AUTH (the default user).
  RedisAdmin(std::string host, int port, std::string password);
  ~RedisAdmin();

  /// INFO's text (every default section). kUnavailable: nothing answers; kRuntime: an error
  /// reply (a wrong password: "WRONGPASS ...").
  Result<std::string> info();
  /// SHUTDOWN SAVE. Success is the server closing the connection; an error reply (it could not
  /// save) is kRuntime.
  Result<void> shutdown_save();

 private:
  Result<RedisConnection*> connection();

  std::string host_;
  int port_;
  std::string password_;
  std::unique_ptr<RedisConnection> conn_;
};

}  // namespace merlin
