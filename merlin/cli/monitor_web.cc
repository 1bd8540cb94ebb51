#include "merlin/cli/monitor_web.h"

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "adapters/web/http_server.h"
#include "adapters/web/status_json.h"
#include "adapters/web/web_access.h"
#include "adapters/web/web_routes.h"
#include "merlin/cli/backends.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/run_record.h"
#include "merlin/run/step_log_lookup.h"
#include "merlin/run/study_watch.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/process_info.h"

namespace merlin::cli {
using namespace merlin::run;

void add_web_flags(CLI::App& sub, WebFlags& f) {
  auto* web =
      sub.add_flag("--web", f.on,
                   "Also serve a live status page and /api/status over HTTP (docs/web-status.md)");
  sub.add_option("--port", f.port, "--web: the port (0: a free one, printed)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535))
      ->needs(web);
  sub.add_option("--bind", f.bind,
                 "--web: the address to listen on (not empty); anything but loopback requires a "
                 "token "
                 "(generated unless --token gives one)")
      ->capture_default_str()
      ->needs(web);
  sub.add_option("--token", f.token,
                 "--web: require this token on every request (`auto`: generate one); printed "
                 "once in the URL to open")
      ->envname("MERLIN_MONITOR_TOKEN");
  sub.add_option("--refresh", f.refresh_seconds, "--web: seconds between refreshes")
      ->capture_default_str()
      ->check(CLI::Range(0.2, 3600.0))
      ->needs(web);
  sub.add_flag("--keep-serving", f.keep_serving,
               "--web: keep serving after the study's work is done, until interrupted")
      ->needs(web);
}

namespace {

// `dir` made absolute against the current directory, without `.` parts or a trailing slash.
std::string absolute_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(dir, ec);
  if (ec) return dir;
  p = p.lexically_normal();
  std::string out = p.string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace

struct WebSession::State {
  WebFlags flags;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<StudyWatch> watch;
  std::unique_ptr<web::HttpServer> server;
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  /// The latest /api/status body. Only the refresher makes it (one broker poll for every
  /// viewer); the server's threads take the pointer under `mutex`, held for nothing longer, so
  /// requests are answered from it whatever the broker or other clients are doing.
  std::shared_ptr<const std::string> json;
  std::optional<StudySnapshot> last;  ///< the latest good snapshot (the refresher's alone)
  std::thread refresher;

  static std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  void publish(std::string body) {
    auto next = std::make_shared<const std::string>(std::move(body));
    std::lock_guard lock(mutex);
    json = std::move(next);
  }

  std::shared_ptr<const std::string> latest() {
    std::lock_guard lock(mutex);
    return json;
  }

  // One refresh: a new snapshot, or the last one marked with the error (the page says so).
  void refresh_once() {
    auto snap = watch->refresh(now_ms());
    if (snap) {
      publish(web::status_json(*snap));
      last = std::move(*snap);
      return;
    }
    log::warn("monitor --web: refresh failed: {}", snap.error().message);
    if (!last) return;
    StudySnapshot marked = *last;
    marked.error = snap.error().message;
    publish(web::status_json(marked));
  }

  void refresh_loop() {
    const auto every = std::chrono::duration<double>(flags.refresh_seconds);
    std::unique_lock lock(mutex);
    while (!wake.wait_for(lock, every, [this] { return stopping; })) {
      lock.unlock();
      refresh_once();
      lock.lock();
    }
  }
};

WebSession::WebSession(std::unique_ptr<State> state) : state_(std::move(state)) {}

WebSession::~WebSession() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  if (state_->server) state_->server->stop();  // closes what clients hold, waits for none
  if (state_->refresher.joinable()) state_->refresher.join();
}

bool WebSession::distributed() const { return state_->backend != nullptr; }

Result<std::unique_ptr<WebSession>> WebSession::open(const std::string& target,
                                                     const std::string& output_path,
                                                     const BrokerFlags& broker,
                                                     const WebFlags& flags) {
  if (flags.bind.empty())
    return Error::bad_input(
        "--bind: an empty address; give the address to listen on: 127.0.0.1 (the default, this "
        "host only), 0.0.0.0 or :: (every interface, with a token), or one of this host's");
  auto state = std::make_unique<State>();
  state->flags = flags;
  const bool loopback = web::is_loopback(flags.bind);
  if (flags.token == "auto" || (flags.token.empty() && !loopback)) {
    auto t = web::generate_token();
    if (!t) return t.error();
    state->flags.token = *t;
  } else if (!flags.token.empty() && flags.token.size() < 16) {
    return Error::bad_input("--token: at least 16 characters (or `auto` for a generated one)");
  }
  auto at = open_for_status(target, current_dir(), output_path);
  if (!at) return at.error();
  // The page and /api/status name the workspace absolute (docs/web-status.md), however given.
  at->workspace = absolute_dir(at->workspace);
  std::string broker_display;
  if (is_broker_workspace(at->workspace)) {
    auto loc = resolve_broker(broker);
    if (!loc) return loc.error();
    auto b = open_backend(*loc);
    if (!b) return b.error();
    state->backend = std::move(*b);
    broker_display = loc->display();
  }
  state->watch = std::make_unique<StudyWatch>(std::move(at->study), at->workspace,
                                              state->backend.get(), broker_display);
  // The first snapshot before serving: a wrong broker or workspace is an error at start.
  auto first = state->watch->refresh(State::now_ms());
  if (!first) return first.error();
  state->json = std::make_shared<const std::string>(web::status_json(*first));
  state->last = std::move(*first);
  return std::unique_ptr<WebSession>(new WebSession(std::move(state)));
}

Result<std::string> WebSession::serve() {
  State& s = *state_;
  web::WebRoutesOptions ro;
  ro.token = s.flags.token;
  ro.workspace = s.watch->workspace();
  if (s.watch->lean()) {
    // The watch's study is read only once made: the server's threads may look into it.
    const PreparedStudy* study = &s.watch->study();
    ro.lean_err = [study](const std::string& step, std::uint64_t sample,
                          std::size_t max_bytes) -> Result<std::string> {
      auto found = find_step_logs(*study, step, sample);
      if (!found) return found.error();
      if (found->attempts.empty())
        return Error::runtime("no output recorded for " + step + " sample " +
                              std::to_string(sample) + " yet");
      const auto& last = found->attempts.back();
      return web::range_tail(last.err_path, last.record.err_offset, last.record.err_length,
                             max_bytes);
    };
  }
  auto routes = std::make_shared<web::WebRoutes>(ro, [&s] { return *s.latest(); });
  s.server = web::make_http_server();
  auto port = s.server->start(s.flags.bind, s.flags.port,
                              [routes](const web::HttpRequest& r) { return routes->handle(r); });
  if (!port) return port.error();
  s.refresher = std::thread([&s] { s.refresh_loop(); });
  std::string host = s.flags.bind;
  if (host == "0.0.0.0" || host == "::") {  // any address: name the host to open
    char name[256] = {};
    host = gethostname(name, sizeof name - 1) == 0 ? name : "localhost";
  }
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  std::string url = "http://" + host + ":" + std::to_string(*port) + "/";
  if (!s.flags.token.empty()) url += "?token=" + s.flags.token;
  return url;
}

}  // namespace merlin::cli
