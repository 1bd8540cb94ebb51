// The HttpServer on cpp-httplib (Debian's libcpp-httplib-dev, header-only): the one file that
// includes httplib.h.
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <thread>

#include "adapters/web/http_server.h"

namespace merlin::web {
namespace {

// Connections served at once: the page polls every few seconds, so a handful is plenty.
constexpr std::size_t kThreads = 4;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

class HttplibServer final : public HttpServer {
 public:
  ~HttplibServer() override { stop(); }

  Result<int> start(const std::string& address, int port, HttpHandler handler) override {
    server_.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
    // httplib's default sets SO_REUSEPORT, which would let a second server share a port that
    // is taken: SO_REUSEADDR only, so a taken port is an error.
    server_.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    if (address.find(':') != std::string::npos) server_.set_address_family(AF_INET6);
    server_.Get(".*", [handler](const httplib::Request& req, httplib::Response& res) {
      HttpRequest r;
      r.method = req.method;
      r.path = req.path;
      for (const auto& [k, v] : req.params) r.query.emplace(k, v);
      for (const auto& [k, v] : req.headers) r.headers.emplace(lower(k), v);
      HttpResponse out = handler(r);
      res.status = out.status;
      for (const auto& [k, v] : out.headers) res.set_header(k, v);
      res.set_content(out.body, out.content_type.c_str());
    });
    int bound = port;
    if (port == 0)
      bound = server_.bind_to_any_port(address);
    else if (!server_.bind_to_port(address, port))
      bound = -1;
    if (bound < 0) {
      if (port == 0)
        return Error::unavailable("cannot listen on " + address +
                                  ": no free port, or the address is not one of this host's");
      return Error::unavailable("cannot listen on " + address + ":" + std::to_string(port) +
                                ": the port is taken or the address is not one of this host's "
                                "(another --port, or --port 0 for a free one)");
    }
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    return bound;
  }

  void stop() override {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }

 private:
  httplib::Server server_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<HttpServer> make_http_server() { return std::make_unique<HttplibServer>(); }

}  // namespace merlin::web
