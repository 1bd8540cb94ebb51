#pragma once
/// A small HTTP server for `merlin monitor --web`: one handler answers every GET with a status,
/// a content type and a body. cpp-httplib stays in httplib_server.cc; nothing here names it.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "adapters/web/http_limits.h"
#include "merlin/core/util/result.h"

namespace merlin::web {

struct HttpRequest {
  std::string method = "GET";
  std::string path;                            ///< decoded, without the query: "/api/status"
  std::map<std::string, std::string> query;    ///< decoded query parameters
  std::map<std::string, std::string> headers;  ///< names in lower case
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::map<std::string, std::string> headers;  ///< extra headers (WWW-Authenticate, ...)
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpServer {
 public:
  virtual ~HttpServer() = default;
  /// Binds `address:port` (port 0: a free port) and serves `handler` on threads of its own
  /// until `stop`, within the server's HttpLimits: one request per connection (answered with
  /// `Connection: close`), no request body. Returns the port bound. The handler may run on
  /// several threads at once; no thread waits on a client still sending its request.
  /// Errors: kUnavailable naming the address when it cannot be bound (taken, not local).
  virtual Result<int> start(const std::string& address, int port, HttpHandler handler) = 0;
  /// Stops serving and joins the threads, closing every connection held (answers being written
  /// included): it does not wait for clients. Idempotent.
  virtual void stop() = 0;
};

/// The cpp-httplib server.
std::unique_ptr<HttpServer> make_http_server(const HttpLimits& limits = {});

}  // namespace merlin::web
