#include "adapters/server/local_redis_server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "adapters/server/server_process.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/secret.h"
#include "merlin/core/util/process_info.h"

namespace merlin::server {
namespace {

using Clock = std::chrono::steady_clock;

Error system_error(const std::string& what, const std::string& path) {
  return Error::runtime("cannot " + what + " " + path + ": " + std::strerror(errno));
}

std::size_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size) : 0;
}

}  // namespace

Result<void> write_private_file(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  ::unlink(tmp.c_str());  // left by a process that died with this pid
  auto w = files::write_new_private(tmp, text);
  if (!w) return w;
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto e = system_error("write", path);
    ::unlink(tmp.c_str());
    return e;
  }
  return ok();
}

LocalRedisServer::LocalRedisServer(ServerFiles files, ProbeFactory probes)
    : files_(std::move(files)), probes_(std::move(probes)) {}

Result<std::vector<std::string>> LocalRedisServer::init() {
  std::vector<std::string> created;
  mode_t old_mask = ::umask(077);  // directories made here (~/.merlin too): the owner's only
  auto made = files::make_dirs(files_.dir);
  ::umask(old_mask);
  if (!made) return made.error();
  if (::chmod(files_.dir.c_str(), 0700) != 0) return system_error("make private", files_.dir);
  auto ensure = [&](const std::string& path, auto make) -> Result<void> {
    if (files::exists(path)) {
      if (::chmod(path.c_str(), 0600) != 0) return system_error("make private", path);
      return ok();
    }
    auto text = make();
    if (!text) return text.error();
    auto w = write_private_file(path, *text);
    if (!w) return w;
    created.push_back(path.substr(path.rfind('/') + 1));
    return ok();
  };
  auto r = ensure(files_.pass_file(), [] { return random_secret(); });
  if (!r) return r.error();
  r = ensure(files_.users_file(), [&]() -> Result<std::string> {
    auto pw = password();
    if (!pw) return pw.error();
    return users_file_text(*pw);
  });
  if (!r) return r.error();
  r = ensure(files_.redis_conf(), [&]() -> Result<std::string> {
    return default_redis_conf(files_.dir, files_.users_file(), 6379);
  });
  if (!r) return r.error();
  r = ensure(files_.merlin_config(),
             [&]() -> Result<std::string> { return merlin_server_yaml(files_); });
  if (!r) return r.error();
  for (const auto& path : {files_.log_file(), files_.process_file(), files_.app_yaml()})
    if (files::exists(path)) ::chmod(path.c_str(), 0600);
  // A redis.conf without requirepass (an earlier build's): redis.pass's password goes there.
  if (auto conf = read_conf(); conf && !conf->get("requirepass"))
    if (auto pw = password())
      if (auto set = set_password(*pw); !set) return set.error();
  return created;
}

Result<RedisConf> LocalRedisServer::read_conf() const {
  auto text = files::read(files_.redis_conf());
  if (!text) return text.error();
  return RedisConf::parse(*text);
}

Result<ServerSettings> LocalRedisServer::settings() const {
  auto conf = read_conf();
  if (!conf) return conf.error();
  return read_settings(*conf, files_.redis_conf());
}

Result<std::string> LocalRedisServer::password() const {
  auto text = files::read(files_.pass_file());
  if (!text) return text.error();
  std::string pw = password_from_file(*text);
  if (auto c = check_password(pw); !c)
    return Error::bad_input(files_.pass_file() + ": " + c.error().message +
                            " (set one with `merlin server config --password`)");
  return pw;
}

Result<ServerStatus> LocalRedisServer::status() {
  ServerStatus s;
  if (!files::exists(files_.redis_conf())) return s;
  auto settings = this->settings();
  if (!settings) return settings.error();
  s.settings = *settings;
  s.state = ServerState::kNotRunning;
  auto pf = files::read(files_.process_file());
  if (!pf) return s;
  auto record = parse_process_file(*pf);
  if (!record || !redis_alive(record->pid) || !started_here(*record, files_.redis_conf()))
    return s;  // gone, or the pid now belongs to another program or another Redis
  s.record = record;
  auto pw = password();
  if (!pw) return pw.error();
  // Ask where it was started: a port changed since by `merlin server config` is not yet its.
  auto probe = probes_(record->bind.empty() ? s.settings.bind : record->bind,
                       record->port ? record->port : s.settings.port, *pw);
  auto facts = probe->facts();
  if (!facts) {
    s.state = ServerState::kNotAnswering;
    s.problem = facts.error().message;
    return s;
  }
  s.facts = *facts;
  s.state = ServerState::kRunning;
  return s;
}

Result<StartResult> LocalRedisServer::start(const std::string& redis_server, double wait_seconds) {
  StartResult result;
  auto created = init();
  if (!created) return created.error();
  result.created = *created;
  auto st = status();
  if (!st) return st.error();
  if (st->state == ServerState::kRunning) {
    result.already_running = true;
    result.record = *st->record;
    return result;
  }
  if (st->state == ServerState::kNotAnswering)
    return Error::runtime("the redis-server of " + files_.process_file() + " (pid " +
                          std::to_string(st->record->pid) + ") runs but does not answer (" +
                          st->problem + "); `merlin server stop` ends it");
  ::unlink(files_.process_file().c_str());  // a stale record
  const ServerSettings& s = st->settings;
  if (auto f = follow_requirepass(); !f) return f.error();
  auto pw = password();
  if (!pw) return pw.error();
  const std::string data_dir = files_.resolve(s.dir);
  if (::mkdir(data_dir.c_str(), 0700) != 0 && errno != EEXIST)
    return system_error("create the data directory", data_dir);
  auto problem = check_port_free(s.bind, s.port);
  if (!problem) return problem.error();
  if (!problem->empty()) {
    result.address_problem = *problem;
    return result;
  }

  const std::string log = files_.log_file();
  const std::size_t log_offset = file_size(log);
  mode_t old_mask = ::umask(077);  // the RDB, the AOF and the log: the owner's only
  // Started in base(): a relative `dir` in redis.conf is read from there (Redis then moves
  // into its `dir`, so the directory it starts in is not held busy).
  auto pid = spawn_server({redis_server, files_.redis_conf()}, log, files_.base());
  ::umask(old_mask);
  if (!pid) return pid.error();
  ::chmod(log.c_str(), 0600);

  auto probe = probes_(s.bind, s.port, *pw);
  Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(wait_seconds));
  std::string last_problem = "no answer yet";
  while (true) {
    int status = 0;
    if (::waitpid(*pid, &status, WNOHANG) == *pid) {
      std::string tail = log_tail(log, log_offset);
      if (tail.find("Address already in use") != std::string::npos) {
        result.address_problem = "port " + std::to_string(s.port) +
                                 " is in use (taken by another program as the server started): "
                                 "choose a free one with `merlin server config --port N`, then "
                                 "`merlin server start`";
        return result;
      }
      return Error::runtime("redis-server exited as it started; the end of " + log + ":\n" + tail);
    }
    auto facts = probe->facts();
    if (facts && !facts->loading) break;
    if (facts) {
      last_problem = "loading its data";
      deadline = std::max<Clock::time_point>(
          deadline, Clock::now() + std::chrono::seconds(5));  // progressing
    } else {
      last_problem = facts.error().message;
    }
    if (Clock::now() > deadline) {
      ::kill(*pid, SIGTERM);
      return Error::runtime("redis-server (pid " + std::to_string(*pid) +
                            ") did not answer within " +
                            std::to_string(static_cast<int>(wait_seconds)) + " s (" + last_problem +
                            ") and was stopped; see " + log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  result.record = {*pid, host_name(), s.bind, s.port, now_epoch()};
  auto w = write_private_file(files_.process_file(), format_process_file(result.record));
  if (!w) return w.error();
  return result;
}

Result<bool> LocalRedisServer::stop(double wait_seconds) {
  auto st = status();
  if (!st) return st.error();
  if (st->state == ServerState::kNotInitialized) return false;
  if (st->state == ServerState::kNotRunning) {
    ::unlink(files_.process_file().c_str());
    return false;
  }
  const long long pid = st->record->pid;
  if (st->state == ServerState::kRunning) {
    auto pw = password();
    if (!pw) return pw.error();
    auto probe = probes_(st->record->bind, st->record->port, *pw);
    auto down = probe->shutdown();
    if (!down)
      return Error::runtime("the server (pid " + std::to_string(pid) + ") refused to shut down: " +
                            down.error().message + "; see " + files_.log_file());
  } else {
    ::kill(static_cast<pid_t>(pid), SIGTERM);  // Redis saves on SIGTERM too
  }
  auto deadline = Clock::now() + std::chrono::duration<double>(wait_seconds);
  while (redis_alive(pid)) {
    if (Clock::now() > deadline)
      return Error::runtime("the server (pid " + std::to_string(pid) + ") still runs " +
                            std::to_string(static_cast<int>(wait_seconds)) +
                            " s after it was asked to stop (saving a large data set?); see " +
                            files_.log_file());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::unlink(files_.process_file().c_str());
  return true;
}

Result<std::vector<std::string>> LocalRedisServer::configure(
    const ConfigChange& change, const std::optional<std::string>& new_password) {
  if (auto c = check_change(change); !c) return c.error();
  if (new_password)
    if (auto c = check_password(*new_password); !c) return c.error();
  auto created = init();
  if (!created) return created.error();
  auto conf = read_conf();
  if (!conf) return conf.error();
  auto changed = apply_change(*conf, change);
  if (!changed.empty()) {
    auto w = write_private_file(files_.redis_conf(), conf->text());
    if (!w) return w.error();
  }
  if (new_password) {
    auto set = set_password(*new_password);
    if (!set) return set.error();
    if (*set) changed.push_back("password");
  }
  return changed;
}

Result<bool> LocalRedisServer::set_password(const std::string& pw) {
  bool changed = false;
  auto old = password();
  if (!old || *old != pw) {
    auto w = write_private_file(files_.pass_file(), pw + "\n");
    if (!w) return w.error();
    changed = true;
  }
  // The default user's line only: users added with --add-user stay.
  auto users = read_users();
  const std::string text = users ? users_with(*users, "default", pw) : users_file_text(pw);
  if (!users || text != *users) {
    auto w = write_private_file(files_.users_file(), text);
    if (!w) return w.error();
    changed = true;
  }
  auto conf = read_conf();
  if (!conf) return conf.error();
  if (conf->get("requirepass") != pw) {
    conf->set("requirepass", pw);
    auto w = write_private_file(files_.redis_conf(), conf->text());
    if (!w) return w.error();
    changed = true;
  }
  return changed;
}

Result<void> LocalRedisServer::follow_requirepass() {
  auto conf = read_conf();
  if (!conf) return conf.error();
  auto pw = password();
  const auto wanted = conf->get("requirepass");
  const std::string next = wanted && !wanted->empty() ? *wanted : pw ? *pw : "";
  if (next.empty()) return ok();  // a missing or bad redis.pass: start reports it
  if (auto c = check_password(next); !c)
    return Error::bad_input(files_.redis_conf() + ": requirepass: " + c.error().message +
                            " (set one with `merlin server config --password`)");
  auto set = set_password(next);
  if (!set) return set.error();
  return ok();
}

Result<std::string> LocalRedisServer::read_users() const {
  auto text = files::read(files_.users_file());
  if (!text) return Error::runtime("cannot read " + files_.users_file() + ": " + text.error().message);
  return text;
}

Result<bool> LocalRedisServer::add_user(const std::string& user, const std::string& password) {
  if (auto c = check_user_name(user); !c) return c.error();
  if (user == "default")
    return Error::bad_input("the default user's password is set with --password");
  if (auto c = check_password(password); !c) return c.error();
  auto created = init();
  if (!created) return created.error();
  auto users = read_users();
  if (!users) return users.error();
  const std::string text = users_with(*users, user, password);
  if (text == *users) return false;
  auto w = write_private_file(files_.users_file(), text);
  if (!w) return w.error();
  return true;
}

Result<bool> LocalRedisServer::remove_user(const std::string& user) {
  if (auto c = check_user_name(user); !c) return c.error();
  if (user == "default")
    return Error::bad_input("the default user cannot be removed: clients and `merlin` log in as it");
  auto created = init();
  if (!created) return created.error();
  auto users = read_users();
  if (!users) return users.error();
  bool found = false;
  const std::string text = users_without(*users, user, &found);
  if (!found) return false;
  auto w = write_private_file(files_.users_file(), text);
  if (!w) return w.error();
  return true;
}

}  // namespace merlin::server
