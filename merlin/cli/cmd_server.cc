// `merlin server init|start|stop|status|restart|config`: Merlin's user-space Redis, here
// Debian's redis-server run from ./merlin_server (docs/server.md). The side effects are in
// adapters/server (LocalRedisServer); this file parses, wires and prints. No output shows
// the password.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "adapters/server/app_yaml_writer.h"
#include "adapters/server/local_redis_server.h"
#include "adapters/server/server_process.h"
#include "merlin/cli/backends.h"
#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/run/app_broker.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/path_expand.h"
#include "merlin/core/util/process_info.h"

namespace merlin::cli {
namespace {
using namespace merlin::server;

std::string home() { return expand_user("~", process_environment()); }

// ./merlin_server of the working directory (Merlin's `config_dir`), or MERLIN_SERVER_DIR.
ServerFiles server_files() {
  const char* dir = std::getenv("MERLIN_SERVER_DIR");
  std::string d = dir && *dir ? expand_user(dir, process_environment()) : "merlin_server";
  if (!d.empty() && d[0] != '/') d = current_dir() + "/" + d;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return {d};
}

LocalRedisServer make_server() { return LocalRedisServer(server_files(), server_probes()); }

std::string duration_text(long long s) {
  if (s < 60) return std::to_string(s) + " s";
  if (s < 3600) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  if (s < 86400) return std::to_string(s / 3600) + " h " + std::to_string(s / 60 % 60) + " min";
  return std::to_string(s / 86400) + " d " + std::to_string(s / 3600 % 24) + " h";
}

std::string bytes_text(long long b) {
  char buf[32];
  if (b < 1024) return std::to_string(b) + " B";
  if (b < 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  else if (b < 1024LL * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  return buf;
}

std::string list_text(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

int init() {
  auto server = make_server();
  auto created = server.init();
  if (!created) return report_error(created.error());
  // "... successful", Merlin's words, which its test suite and users' scripts look for.
  if (created->empty())
    std::printf("Merlin server initialization successful: the configuration in %s is "
                "complete, kept as it is.\n",
                server.files().dir.c_str());
  else
    std::printf("Merlin server initialization successful: %s written in %s.\n",
                list_text(*created).c_str(), server.files().dir.c_str());
  return kExitOk;
}

// Points Merlin's server app.yaml and the one commands read at the running server.
int point_app_yamls(const LocalRedisServer& server, const ProcessRecord& at) {
  const std::string pass = server.files().pass_file();
  auto own = point_app_yaml(server.files().app_yaml(), at.bind, at.port, pass);
  if (!own) return report_error(own.error());
  const std::string main_yaml = run::find_home_app_config(home());
  auto main = point_app_yaml(main_yaml, at.bind, at.port, pass);
  if (!main) return report_error(main.error());
  if (main->changed)
    std::printf(
        "%s now points at this server (broker and results_backend; the rest of the file "
        "is kept%s).\n",
        main_yaml.c_str(),
        main->backup.empty() ? "" : ("; its previous text is in " + main->backup).c_str());
  const std::string here = current_dir() + "/app.yaml";
  if (here != main_yaml && here != server.files().app_yaml() && files::exists(here))
    std::printf("note: commands run in %s read ./app.yaml first, which names its own broker\n",
                current_dir().c_str());
  if (const char* url = std::getenv("MERLIN_BROKER_URL"); url && *url)
    std::printf("note: MERLIN_BROKER_URL is set; it takes precedence over app.yaml\n");
  return kExitOk;
}

int start() {
  auto binary = find_redis_server();
  if (!binary) return report_error(binary.error());
  auto server = make_server();
  auto started = server.start(*binary);
  if (!started) return report_error(started.error());
  if (!started->address_problem.empty()) {
    std::fprintf(stderr, "merlin: %s\n", started->address_problem.c_str());
    return kExitAddressUnavailable;
  }
  const auto& r = started->record;
  if (!started->created.empty())
    std::printf("Merlin server initialized in %s (wrote %s).\n", server.files().dir.c_str(),
                list_text(started->created).c_str());
  if (started->already_running) {
    std::printf("Merlin server already running (pid %lld) on %s:%d.\n", r.pid, r.bind.c_str(),
                r.port);
  } else {
    std::printf("Server started with PID %lld.\n", r.pid);
    auto settings = server.settings();
    std::printf("Merlin server operating on \"%s\" and port \"%d\" (data in %s).\n", r.bind.c_str(),
                r.port,
                std::filesystem::path(settings ? server.files().resolve(settings->dir)
                                               : server.files().dir)
                    .lexically_normal()
                    .string()
                    .c_str());
  }
  return point_app_yamls(server, r);
}

int stop() {
  auto server = make_server();
  auto stopped = server.stop();
  if (!stopped) return report_error(stopped.error());
  if (*stopped)
    std::printf("Merlin server terminated.\n");
  else
    std::printf("There is no instance of merlin server running.\n");
  return kExitOk;
}

int status() {
  auto server = make_server();
  auto st = server.status();
  if (!st) return report_error(st.error());
  switch (st->state) {
    case ServerState::kNotInitialized:
      std::printf(
          "Merlin server has not been initialized (%s has no redis.conf); "
          "`merlin server init` or `merlin server start` does it, or run `merlin server` in "
          "the directory where it was initialized (or set MERLIN_SERVER_DIR to its "
          "merlin_server).\n",
          server.files().dir.c_str());
      if (const std::string old = home() + "/.merlin/server";
          old != server.files().dir && files::exists(old + "/redis.conf"))
        std::printf("note: %s holds a server configured by an earlier merlin, which kept it "
                    "there: MERLIN_SERVER_DIR=%s merlin server ... uses it.\n",
                    old.c_str(), old.c_str());
      return kExitFailed;
    case ServerState::kNotRunning:
      std::printf(
          "Merlin server is not running (configured for %s:%d; `merlin server start` "
          "starts it).\n",
          st->settings.bind.c_str(), st->settings.port);
      return kExitFailed;
    case ServerState::kNotAnswering:
      std::printf("Merlin server process %lld runs but does not answer: %s\n", st->record->pid,
                  st->problem.c_str());
      return kExitFailed;
    case ServerState::kRunning:
      break;
  }
  const auto& f = st->facts;
  std::printf("Merlin server is running.\n");
  std::printf("address:    %s:%d\n", st->record->bind.c_str(), st->record->port);
  std::printf("pid:        %lld\n", st->record->pid);
  std::printf("uptime:     %s\n", duration_text(f.uptime_seconds).c_str());
  std::printf("memory:     %s\n", bytes_text(f.used_memory).c_str());
  std::printf("keys:       %lld\n", f.keys);
  std::printf("version:    redis %s\n", f.version.c_str());
  std::printf("directory:  %s\n", server.files().dir.c_str());
  if (st->record->port != st->settings.port || st->record->bind != st->settings.bind)
    std::printf("note: redis.conf now says %s:%d; `merlin server restart` applies it\n",
                st->settings.bind.c_str(), st->settings.port);
  return kExitOk;
}

int restart() {
  auto server = make_server();
  auto stopped = server.stop();
  if (!stopped) return report_error(stopped.error());
  std::printf(*stopped ? "Merlin server terminated.\n"
                       : "Merlin server was not running; starting it.\n");
  return start();
}

struct ConfigArgs {
  ConfigChange change;
  std::string bind, directory, snapshot_file, append_mode, append_file, max_memory, password;
  int port = 0, snapshot_seconds = 0, snapshot_changes = 0;
  std::vector<std::string> add_user;  ///< NAME PASSWORD
  std::string remove_user;
  CLI::Option *o_bind, *o_port, *o_password, *o_dir, *o_ss, *o_sc, *o_sf, *o_am, *o_af, *o_mm,
      *o_add_user, *o_remove_user;
};

// --add-user / --remove-user: the users file (redis.users), applied at the next start.
int config_users(const ConfigArgs& a, const LocalRedisServer& server_files,
                 std::vector<std::string>& changed) {
  auto server = make_server();
  if (a.o_add_user->count()) {
    auto added = server.add_user(a.add_user[0], a.add_user[1]);
    if (!added) return report_error(added.error());
    if (*added) changed.push_back("user " + a.add_user[0]);
  }
  if (a.o_remove_user->count()) {
    auto removed = server.remove_user(a.remove_user);
    if (!removed) return report_error(removed.error());
    if (*removed)
      changed.push_back("user " + a.remove_user + " removed");
    else
      std::printf("Merlin server has no user %s (%s).\n", a.remove_user.c_str(),
                  server_files.files().users_file().c_str());
  }
  return kExitOk;
}

int config(ConfigArgs& a) {
  ConfigChange& c = a.change;
  if (a.o_bind->count()) c.bind = a.bind;
  if (a.o_port->count()) c.port = a.port;
  auto server = make_server();
  if (a.o_dir->count()) {
    // Kept as given (Merlin writes `dir ./config_dir`) when relative to the directory holding
    // the server's, where the server reads it from; made absolute when that is elsewhere.
    std::string d = expand_user(a.directory, process_environment());
    if (!d.empty() && d[0] != '/' && current_dir() != server.files().base())
      d = current_dir() + "/" + d;
    c.directory = d;
  }
  if (a.o_ss->count()) c.snapshot_seconds = a.snapshot_seconds;
  if (a.o_sc->count()) c.snapshot_changes = a.snapshot_changes;
  if (a.o_sf->count()) c.snapshot_file = a.snapshot_file;
  if (a.o_am->count()) c.append_mode = a.append_mode;
  if (a.o_af->count()) c.append_file = a.append_file;
  if (a.o_mm->count()) c.max_memory = a.max_memory;
  std::optional<std::string> password;
  if (a.o_password->count()) password = a.password;
  auto changed = server.configure(c, password);
  if (!changed) return report_error(changed.error());
  if (int rc = config_users(a, server, *changed); rc != kExitOk) return rc;
  if (changed->empty()) {
    std::printf("Merlin server config unchanged (%s).\n", server.files().redis_conf().c_str());
    return kExitOk;
  }
  std::printf("Merlin server config has changed (%s) in %s.\n", list_text(*changed).c_str(),
              server.files().dir.c_str());
  auto st = server.status();
  if (st && st->state == ServerState::kRunning)
    std::printf("Run 'merlin server restart' to apply it to the running server.\n");
  else
    std::printf("Run 'merlin server start' to start merlin server with it.\n");
  return kExitOk;
}

}  // namespace

Command server_command() {
  return {"server",
          "Run a Redis of your own for the distributed mode (init, start, stop, status, "
          "restart, config): its files in ./merlin_server, app.yaml pointed at it",
          [](CLI::App& sub) -> std::function<int()> {
            sub.require_subcommand(1);
            auto chosen = std::make_shared<std::function<int()>>();
            auto simple = [&](const char* name, const char* help, int (*act)()) {
              auto* s = sub.add_subcommand(name, help);
              s->callback([chosen, act] { *chosen = act; });
            };
            simple("init",
                   "Write the server's files in ./merlin_server (redis.conf, a new password in "
                   "redis.pass, redis.users, app.yaml), keeping those there; MERLIN_SERVER_DIR "
                   "names another directory",
                   init);
            simple("start",
                   "Start the server (init first if needed), wait until it answers, and point "
                   "app.yaml at it",
                   start);
            simple("stop", "Stop the server (it saves its data first)", stop);
            simple("status",
                   "Whether the server runs: address, pid, uptime, memory, keys (exit 1 when not "
                   "running)",
                   status);
            simple("restart", "Stop the server if it runs, then start it", restart);
            auto a = std::make_shared<ConfigArgs>();
            auto* c = sub.add_subcommand(
                "config", "Change the server's redis.conf or password (applied at the next start)");
            a->o_bind = c->add_option("--ipaddress,--bind", a->bind,
                                      "The IPv4 address to listen on (-ip works too; default "
                                      "127.0.0.1)");
            a->o_port = c->add_option("-p,--port", a->port, "The port to listen on (default 6379)");
            a->o_password = c->add_option(
                "--password", a->password,
                "A new password (-pwd works too; default: 64 random hex digits made by init)");
            a->o_dir = c->add_option("-d,--directory", a->directory,
                                     "Where the server keeps its data (RDB and AOF); a relative path is read from the directory holding merlin_server");
            a->o_ss = c->add_option("--snapshot-seconds", a->snapshot_seconds,
                                    "Seconds between snapshot checks (-ss; default 300)");
            a->o_sc = c->add_option("--snapshot-changes", a->snapshot_changes,
                                    "Changes that make a snapshot (-sc; default 100)");
            a->o_sf = c->add_option("--snapshot-file", a->snapshot_file,
                                    "The snapshot's file name (-sf; default dump.rdb)");
            a->o_am = c->add_option("--append-mode", a->append_mode,
                                    "When the append-only file is synced: always, everysec, no "
                                    "(-am; default everysec)");
            a->o_af = c->add_option("--append-file", a->append_file,
                                    "The append-only file's name (-af; default appendonly.aof)");
            a->o_mm = c->add_option("--max-memory", a->max_memory,
                                    "The memory the server may use, as 4gb (0: no limit); a full "
                                    "server refuses writes, never evicts");
            a->o_add_user = c->add_option("--add-user", a->add_user,
                                          "NAME PASSWORD: a user of its own (redis.users: every "
                                          "key and command), e.g. for a colleague; or its new "
                                          "password")
                                ->expected(2)
                                ->type_name("NAME PASSWORD");
            a->o_remove_user = c->add_option("--remove-user", a->remove_user,
                                             "NAME: take that user out of redis.users");
            // What the shell offers: names, not files, except for the data directory.
            offer_values(a->o_am, {"always", "everysec", "no"});
            offer(a->o_dir, Completion::kDirectory);
            for (auto* o : {a->o_bind, a->o_password, a->o_sf, a->o_af, a->o_mm, a->o_add_user,
                            a->o_remove_user})
              offer(o, Completion::kNone);
            c->callback([chosen, a] { *chosen = [a] { return config(*a); }; });
            return [chosen] { return *chosen ? (*chosen)() : kExitBadInput; };
          }};
}

/// Merlin's many-letter short flags of `merlin server config` as the long ones, which CLI11
/// can declare (as main.cc does for -lvl).
void server_short_flags(std::vector<std::string>& args) {
  static const std::pair<const char*, const char*> kFlags[] = {
      {"-ip", "--ipaddress"},        {"-pwd", "--password"},     {"-ss", "--snapshot-seconds"},
      {"-sc", "--snapshot-changes"}, {"-sf", "--snapshot-file"}, {"-am", "--append-mode"},
      {"-af", "--append-file"}};
  bool in_server = false;
  for (auto& a : args) {
    if (a == "server") in_server = true;
    if (!in_server) continue;
    for (const auto& [from, to] : kFlags)
      if (a == from) a = to;
  }
}

}  // namespace merlin::cli
