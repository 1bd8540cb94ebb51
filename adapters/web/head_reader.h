#pragma once
/// The front of the web server: one thread accepts connections on a listening socket and reads
/// each request head without blocking, within HttpLimits (a total deadline per head, a cap on
/// the connections held, a cap on a head's size), then hands the complete head on. No thread
/// of the server ever waits on a client that has not sent its whole request, so slow or idle
/// clients hold nothing but a slot of the table, and `stop` returns at once whatever they do.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adapters/web/connection_table.h"
#include "adapters/web/http_limits.h"
#include "merlin/core/util/result.h"

namespace merlin::web {

/// A connection whose request head arrived in full: its descriptor (non-blocking, owned by the
/// receiver from now on) and the bytes read so far (the head, and whatever followed it).
struct ReadyConnection {
  int fd = -1;
  std::string bytes;
};

class HeadReader {
 public:
  /// `listen_fd`: a bound, listening socket (not owned). `ready` is called on the reader's
  /// thread for each complete head; it must not block.
  HeadReader(int listen_fd, const HttpLimits& limits, std::function<void(ReadyConnection)> ready);
  ~HeadReader();

  /// Starts the thread. kRuntime when the wake-up pipe cannot be made.
  Result<void> start();
  /// A ready connection was answered: frees its slot. Call before closing its descriptor (the
  /// number may be reused as soon as it is closed). Thread-safe.
  void release(int fd);
  /// Closes every connection still waiting for its head and joins the thread; idempotent.
  void stop();

 private:
  void run();
  // Under mutex_: reads what `fd` sent; a complete head goes to `ready`.
  void read_from(int fd, std::vector<ReadyConnection>& ready);
  void accept_some(std::int64_t now_ms);
  void close_waiting(int fd, const char* reply);

  int listen_fd_;
  HttpLimits limits_;
  std::function<void(ReadyConnection)> ready_;
  std::mutex mutex_;
  ConnectionTable table_;
  std::map<int, std::string> heads_;  ///< connections waiting for their head: what came so far
  bool stopping_ = false;
  int wake_[2] = {-1, -1};
  std::thread thread_;
};

}  // namespace merlin::web
