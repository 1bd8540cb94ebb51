#pragma once
/// What `merlin monitor --web` answers: `/` the status page, `/api/status` the JSON,
/// `/err/<path>` the tail of a task's `.err` inside the workspace; 401 without the token when
/// one is set, 404 for anything else. Decisions only: the JSON comes from a callback (the
/// refresher's latest snapshot), so tests drive it with fake requests.
#include <cstddef>
#include <functional>
#include <string>

#include "adapters/web/http_server.h"
#include "merlin/core/util/result.h"

namespace merlin::web {

struct WebRoutesOptions {
  std::string token;      ///< required on every request when not empty
  std::string workspace;  ///< the only directory `/err/` serves from
  std::size_t err_tail_bytes = 64 * 1024;
  /// `/logs?step=S&sample=N` (a lean workspace): the stderr of the task's newest attempt, the
  /// last `err_tail_bytes` of it. Null: `/logs` is not served. Called on the server's threads.
  std::function<Result<std::string>(const std::string& step, std::uint64_t sample,
                                    std::size_t max_bytes)>
      lean_err;
};

class WebRoutes {
 public:
  /// `status_json`: the current `/api/status` body; called on the server's threads.
  WebRoutes(WebRoutesOptions options, std::function<std::string()> status_json);

  HttpResponse handle(const HttpRequest& request) const;

 private:
  HttpResponse err_tail(const std::string& relative) const;
  HttpResponse lean_err(const HttpRequest& request) const;

  WebRoutesOptions options_;
  std::function<std::string()> status_json_;
};

/// The page at `/`: one HTML document with its CSS and JavaScript inline (nothing fetched from
/// elsewhere), polling `/api/status`.
const std::string& status_page_html();

}  // namespace merlin::web
