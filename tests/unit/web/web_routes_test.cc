// What `merlin monitor --web` answers, driven with fake requests: the page, the JSON, the
// token, /err/'s guard; and the JSON's fields and types.
#include "adapters/web/web_routes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "adapters/web/status_json.h"

namespace merlin::web {
namespace {
namespace fs = std::filesystem;

HttpRequest get(const std::string& path) {
  HttpRequest r;
  r.path = path;
  return r;
}

WebRoutes routes(const std::string& token, const std::string& ws = "/nonexistent") {
  WebRoutesOptions o;
  o.token = token;
  o.workspace = ws;
  return WebRoutes(o, [] { return std::string(R"({"schema":1})"); });
}

TEST(WebRoutes, ThePageAndTheJsonWithoutATokenOnLoopback) {
  auto r = routes("");
  auto page = r.handle(get("/"));
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("fetch(withToken(\"api/status\")"), std::string::npos)
      << "the page polls the API (relative: it works behind a path prefix too)";
  EXPECT_EQ(page.body.find("http://"), std::string::npos) << "nothing fetched from elsewhere";
  EXPECT_EQ(page.body.find("https://"), std::string::npos) << "nothing fetched from elsewhere";
  EXPECT_NE(page.headers["Content-Security-Policy"].find("default-src 'none'"), std::string::npos);
  auto api = r.handle(get("/api/status"));
  EXPECT_EQ(api.status, 200);
  EXPECT_EQ(api.content_type, "application/json");
  EXPECT_EQ(api.body, R"({"schema":1})");
  EXPECT_EQ(api.headers["Cache-Control"], "no-store");
}

TEST(WebRoutes, EveryPathNeedsTheTokenWhenOneIsSet) {
  auto r = routes("0123456789abcdef0123");
  for (const char* path : {"/", "/api/status", "/err/sim/sim.err", "/nope"}) {
    auto res = r.handle(get(path));
    EXPECT_EQ(res.status, 401) << path;
    EXPECT_EQ(res.body.find("0123456789abcdef0123"), std::string::npos) << "never tells it";
    EXPECT_EQ(res.headers["WWW-Authenticate"].rfind("Bearer", 0), 0u);
  }
  auto ok = get("/api/status");
  ok.query["token"] = "0123456789abcdef0123";
  EXPECT_EQ(r.handle(ok).status, 200);
  auto bearer = get("/api/status");
  bearer.headers["authorization"] = "Bearer 0123456789abcdef0123";
  EXPECT_EQ(r.handle(bearer).status, 200);
}

TEST(WebRoutes, UnknownPathsAreNotFound) {
  EXPECT_EQ(routes("").handle(get("/api/other")).status, 404);
}

TEST(WebRoutes, ErrServesTheTailOfAWorkspaceFileAndForbidsTraversal) {
  fs::path root = fs::temp_directory_path() / ("merlin-routes-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "ws/sim/03");
  std::ofstream(root / "ws/sim/03/sim.err") << "Traceback: it failed\n";
  std::ofstream(root / "outside.err") << "secret\n";
  auto r = routes("", (root / "ws").string());
  auto ok = r.handle(get("/err/sim/03/sim.err"));
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "Traceback: it failed\n");
  auto up = r.handle(get("/err/../outside.err"));
  EXPECT_EQ(up.status, 403);
  EXPECT_EQ(up.body.find("secret"), std::string::npos);
  EXPECT_EQ(r.handle(get("/err//etc/passwd")).status, 403);
  EXPECT_EQ(r.handle(get("/err/sim/04/sim.err")).status, 404);
  fs::remove_all(root);
}

TEST(WebRoutes, LogsServesALeanTasksStderrThroughTheCallbackOnly) {
  HttpRequest req = get("/logs");
  req.query = {{"step", "sim/N.10"}, {"sample", "17"}};
  EXPECT_EQ(routes("").handle(req).status, 404) << "no lean workspace: no /logs";
  WebRoutesOptions o;
  std::string asked;
  o.lean_err = [&](const std::string& step, std::uint64_t sample,
                   std::size_t) -> Result<std::string> {
    asked = step + "#" + std::to_string(sample);
    if (sample == 99) return Error::bad_input("sample 99 is beyond sim's 20 samples");
    return std::string("oops\n");
  };
  WebRoutes r(o, [] { return std::string("{}"); });
  auto ok = r.handle(req);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "oops\n");
  EXPECT_EQ(asked, "sim/N.10#17");
  req.query["sample"] = "99";
  EXPECT_EQ(r.handle(req).status, 404);
  for (const char* bad : {"", "-1", "1e3", "x", "123456789012345678901"}) {
    req.query["sample"] = bad;
    EXPECT_EQ(r.handle(req).status, 400) << bad;
  }
}

TEST(StatusJson, ALeanWorkspacesFailureLinksItsLogsAndNamesTheCommand) {
  report::StudySnapshot s;
  s.lean = true;
  report::FailureSnapshot f;
  f.step = "sim";
  f.sample = 3;
  f.instance = "sim/N.10";
  f.logs_command = "merlin logs /w sim/N.10 3 --err";
  s.failures.push_back(f);
  auto j = nlohmann::json::parse(status_json(s));
  EXPECT_TRUE(j["failures"][0]["err_file"].is_null());
  EXPECT_EQ(j["failures"][0]["err_url"], "/logs?step=sim%2FN.10&sample=3");
  EXPECT_EQ(j["failures"][0]["logs_command"], "merlin logs /w sim/N.10 3 --err");
}

TEST(StatusJson, NumbersArraysAndNullsWhereTheSchemaSaysSo) {
  report::StudySnapshot s;
  s.study_name = "demo";
  s.workspace = "/w/demo_1";
  s.distributed = true;
  s.broker = "redis://127.0.0.1:6379/0";
  s.taken_at_ms = 1'700'000'000'500;
  report::StepSnapshot step;
  step.status.step = "sim";
  step.status.total = 10;
  step.status.done = 4;
  step.status.failed = 1;
  step.status.running = 2;
  step.status.queued = 3;
  step.status.mean_seconds = 1.5;
  step.rate = 0.25;
  step.eta = 20.0;
  s.steps.push_back(step);
  report::StepSnapshot unknown;
  unknown.status.step = "post";
  s.steps.push_back(unknown);
  s.totals = step;
  s.totals.status.step = "total";
  s.failed_total = 1;
  report::FailureSnapshot f;
  f.step = "sim";
  f.sample = 7;
  f.dir = "sim/07";
  f.return_code = "MERLIN_SOFT_FAIL";
  f.ended_at = 1'700'000'000;
  f.err_file = "sim/07/sim value.err";
  s.failures.push_back(f);
  report::WorkerSnapshot w;
  w.name = "simworkers";
  w.host = "node1";
  w.pid = 42;
  w.queues = {"sim_q", "post_q"};
  w.concurrency = 4;
  w.heartbeat_age = 0.8;
  s.workers.push_back(w);
  s.throughput = {{1'700'000'000'000, 3}, {1'700'000'000'500, 5}};

  auto j = nlohmann::json::parse(status_json(s));
  EXPECT_EQ(j["schema"], kStatusSchema);
  EXPECT_EQ(j["study"]["name"], "demo");
  EXPECT_TRUE(j["study"]["distributed"].is_boolean());
  EXPECT_DOUBLE_EQ(j["updated_at"].get<double>(), 1'700'000'000.5);
  EXPECT_TRUE(j["error"].is_null());
  ASSERT_TRUE(j["steps"].is_array());
  const auto& sim = j["steps"][0];
  EXPECT_EQ(sim["step"], "sim");
  for (const char* k : {"total", "done", "failed", "running", "queued", "instances"})
    EXPECT_TRUE(sim[k].is_number_integer()) << k;
  EXPECT_EQ(sim["done"], 4);
  EXPECT_DOUBLE_EQ(sim["rate_per_second"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(sim["eta_seconds"].get<double>(), 20.0);
  EXPECT_TRUE(j["steps"][1]["eta_seconds"].is_null()) << "no rate yet: ETA unknown";
  EXPECT_EQ(j["totals"]["total"], 10);
  const auto& fail = j["failures"][0];
  EXPECT_EQ(fail["sample"], 7);
  EXPECT_EQ(fail["return_code"], "MERLIN_SOFT_FAIL");
  EXPECT_EQ(fail["err_url"], "/err/sim/07/sim%20value.err");
  EXPECT_TRUE(fail["worker"].is_null());
  EXPECT_TRUE(fail["logs_command"].is_null());
  const auto& worker = j["workers"][0];
  EXPECT_EQ(worker["queues"], nlohmann::json({"sim_q", "post_q"}));
  EXPECT_EQ(worker["concurrency"], 4);
  EXPECT_TRUE(worker["batch_job"].is_null()) << "outside a batch job";
  EXPECT_TRUE(worker["heartbeat_age_seconds"].is_number_float());
  ASSERT_EQ(j["throughput"].size(), 2u);
  EXPECT_EQ(j["throughput"][1]["finished"], 5);
  EXPECT_DOUBLE_EQ(j["throughput"][1]["time"].get<double>(), 1'700'000'000.5);
  EXPECT_EQ(j["searches"], nlohmann::json::array()) << "no tune: step";
}

TEST(StatusJson, SearchesAreTheObjectsStatusWrites) {
  report::StudySnapshot s;
  report::Table board;
  board.columns = {{.header = "RANK", .key = "rank"}, {.header = "VALUE", .key = "value"}};
  board.rows = {{std::uint64_t{1}, 0.25}};
  s.searches.push_back({{"step", "search"}, {"labels", nullptr}, {"leaderboard", board}});
  auto j = nlohmann::json::parse(status_json(s));
  ASSERT_EQ(j["searches"].size(), 1u);
  EXPECT_EQ(j["searches"][0]["step"], "search");
  EXPECT_TRUE(j["searches"][0]["labels"].is_null());
  EXPECT_EQ(j["searches"][0]["leaderboard"][0]["rank"], 1);
  EXPECT_DOUBLE_EQ(j["searches"][0]["leaderboard"][0]["value"].get<double>(), 0.25);
}

}  // namespace
}  // namespace merlin::web
