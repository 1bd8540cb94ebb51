#include "adapters/web/web_routes.h"

#include "adapters/web/web_access.h"

namespace merlin::web {
namespace {

HttpResponse text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

}  // namespace

WebRoutes::WebRoutes(WebRoutesOptions options, std::function<std::string()> status_json)
    : options_(std::move(options)), status_json_(std::move(status_json)) {}

HttpResponse WebRoutes::handle(const HttpRequest& request) const {
  HttpResponse r;
  if (!token_accepted(request, options_.token)) {
    r = text(401,
             "401 Unauthorized: this monitor needs its token: open the URL `merlin monitor --web` "
             "printed (http://HOST:PORT/?token=...), or send `Authorization: Bearer TOKEN`\n");
    r.headers["WWW-Authenticate"] = "Bearer realm=\"merlin monitor\"";
  } else if (request.path == "/" || request.path == "/index.html") {
    r.content_type = "text/html; charset=utf-8";
    r.body = status_page_html();
    // Nothing but the page's own inline code, and requests back to this server.
    r.headers["Content-Security-Policy"] =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        "connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'";
  } else if (request.path == "/api/status") {
    r.content_type = "application/json";
    r.body = status_json_();
  } else if (request.path.rfind("/err/", 0) == 0) {
    r = err_tail(request.path.substr(5));
  } else if (request.path == "/logs" && options_.lean_err) {
    r = lean_err(request);
  } else {
    r = text(404, "404 Not Found: " + request.path + " (try /, /api/status)\n");
  }
  r.headers["Cache-Control"] = "no-store";
  r.headers["X-Content-Type-Options"] = "nosniff";
  return r;
}

HttpResponse WebRoutes::err_tail(const std::string& relative) const {
  auto path = err_file_in(options_.workspace, relative);
  if (!path)
    return text(path.error().code == ErrorCode::kBadInput ? 403 : 404,
                std::string(path.error().code == ErrorCode::kBadInput ? "403 Forbidden: "
                                                                      : "404 Not Found: ") +
                    path.error().message + "\n");
  auto tail = file_tail(*path, options_.err_tail_bytes);
  if (!tail) return text(404, "404 Not Found: " + tail.error().message + "\n");
  return text(200, std::move(*tail));
}

HttpResponse WebRoutes::lean_err(const HttpRequest& request) const {
  auto step = request.query.find("step");
  auto sample = request.query.find("sample");
  if (step == request.query.end() || sample == request.query.end() || sample->second.empty() ||
      sample->second.size() > 19 ||
      sample->second.find_first_not_of("0123456789") != std::string::npos)
    return text(400, "400 Bad Request: /logs?step=STEP&sample=N (N a sample id)\n");
  auto out = options_.lean_err(step->second, std::stoull(sample->second), options_.err_tail_bytes);
  if (!out) return text(404, "404 Not Found: " + out.error().message + "\n");
  return text(200, std::move(*out));
}

}  // namespace merlin::web
