#include "merlin/core/server/redis_conf.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "merlin/core/server/append_fsync.h"

namespace merlin::server {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The directive name of a line ("" for blank lines and comments) and its value.
std::pair<std::string, std::string> split_directive(std::string_view line) {
  std::string_view t = trim(line);
  if (t.empty() || t.front() == '#') return {};
  std::size_t end = 0;
  while (end < t.size() && !std::isspace(static_cast<unsigned char>(t[end]))) ++end;
  std::string_view value = trim(t.substr(end));
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  return {lower(t.substr(0, end)), std::string(value)};
}

std::optional<long long> to_number(std::string_view s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool valid_ipv4(std::string_view ip) {
  int parts = 0;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = ip.find('.', start);
    std::string_view part = ip.substr(start, dot == std::string_view::npos ? ip.npos : dot - start);
    if (part.empty() || part.size() > 3) return false;
    auto n = to_number(part);
    if (!n || *n > 255) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts == 4;
}

bool plain_file_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isgraph(static_cast<unsigned char>(c)) && c != '"' && c != '\'';
         });
}

bool memory_size(std::string_view s) {
  std::string l = lower(s);
  std::size_t digits = 0;
  while (digits < l.size() && std::isdigit(static_cast<unsigned char>(l[digits]))) ++digits;
  if (digits == 0) return false;
  std::string unit = l.substr(digits);
  return unit.empty() || unit == "b" || unit == "k" || unit == "kb" || unit == "m" ||
         unit == "mb" || unit == "g" || unit == "gb";
}

// A value Redis reads back as one word: quoted when it holds a space.
std::string conf_value(const std::string& v) {
  return v.find(' ') == std::string::npos ? v : "\"" + v + "\"";
}

}  // namespace

RedisConf RedisConf::parse(std::string_view text) {
  RedisConf conf;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    conf.lines_.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return conf;
}

std::optional<std::string> RedisConf::get(std::string_view key) const {
  const std::string k = lower(key);
  std::optional<std::string> found;
  for (const auto& line : lines_) {
    auto [name, value] = split_directive(line);
    if (name == k) found = value;
  }
  return found;
}

void RedisConf::set(std::string_view key, std::string_view value) {
  const std::string k = lower(key);
  const std::string line = std::string(key) + " " + std::string(value);
  bool done = false;
  std::vector<std::string> kept;
  for (auto& l : lines_) {
    if (split_directive(l).first != k) {
      kept.push_back(std::move(l));
    } else if (!done) {
      kept.push_back(line);
      done = true;
    }
  }
  if (!done) {
    while (!kept.empty() && kept.back().empty()) kept.pop_back();
    kept.push_back(line);
  }
  lines_ = std::move(kept);
}

void RedisConf::erase(std::string_view key) {
  const std::string k = lower(key);
  std::erase_if(lines_, [&](const std::string& l) { return split_directive(l).first == k; });
}

std::string RedisConf::text() const {
  std::string out;
  for (const auto& l : lines_) out += l + "\n";
  return out;
}

Result<ServerSettings> read_settings(const RedisConf& conf, const std::string& conf_path) {
  ServerSettings s;
  auto need = [&](const char* key) -> Result<std::string> {
    auto v = conf.get(key);
    if (!v || v->empty())
      return Error::bad_input(conf_path + ": no `" + key +
                              "` line (run `merlin server init` after moving the file away to "
                              "get a new one)");
    return *v;
  };
  auto bind = need("bind");
  if (!bind) return bind.error();
  s.bind = std::string(trim(bind->substr(0, bind->find(' '))));
  if (s.bind.front() == '-') s.bind.erase(0, 1);  // "-::1": Redis's "if available" mark
  auto port = need("port");
  if (!port) return port.error();
  auto n = to_number(*port);
  if (!n || *n < 1 || *n > 65535)
    return Error::bad_input(conf_path + ": port '" + *port +
                            "' is no port number (1 to 65535); set one with `merlin server "
                            "config --port N`");
  s.port = static_cast<int>(*n);
  auto dir = need("dir");
  if (!dir) return dir.error();
  s.dir = *dir;
  auto users = need("aclfile");
  if (!users) return users.error();
  s.users_file = *users;
  s.log_file = conf.get("logfile").value_or("");
  return s;
}

std::string default_redis_conf(const std::string& dir, const std::string& users_file, int port) {
  return "# redis.conf of `merlin server` (written by `merlin server init`; change it with\n"
         "# `merlin server config`, then `merlin server restart`). Started in the foreground\n"
         "# by `merlin server start`, its output in redis.log beside this file.\n"
         "bind 127.0.0.1\n"
         "protected-mode yes\n"
         "port " +
         std::to_string(port) +
         "\n"
         "tcp-backlog 511\n"
         "timeout 0\n"
         "tcp-keepalive 300\n"
         "daemonize no\n"
         "loglevel notice\n"
         "logfile \"\"\n"
         "databases 16\n"
         "always-show-logo no\n"
         "# the password: the default user of the users file (aclfile), also in redis.pass\n"
         "aclfile " +
         conf_value(users_file) +
         "\n"
         "# data: an RDB snapshot every 300 s when 100 keys changed, and the append-only file\n"
         "dir " +
         conf_value(dir) +
         "\n"
         "save 300 100\n"
         "stop-writes-on-bgsave-error no\n"
         "rdbcompression yes\n"
         "rdbchecksum yes\n"
         "dbfilename dump.rdb\n"
         "appendonly yes\n"
         "appendfilename \"appendonly.aof\"\n"
         "appendfsync everysec\n"
         "aof-use-rdb-preamble yes\n"
         "# merlin's keys are a study's state: never evicted (a full server refuses writes)\n"
         "maxmemory 0\n"
         "maxmemory-policy noeviction\n"
         "lua-time-limit 5000\n"
         "slowlog-log-slower-than 10000\n"
         "slowlog-max-len 128\n";
}

std::string users_file_text(const std::string& password) {
  return "user default on >" + password + " ~* &* +@all\n";
}

Result<void> check_user_name(std::string_view name) {
  if (name.empty() || name.size() > 64)
    return Error::bad_input("a user name has 1 to 64 characters");
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '@' && c != '-')
      return Error::bad_input("user name '" + std::string(name) +
                              "': only letters, digits and _ . @ - are taken");
  return ok();
}

namespace {

// Whether `line` is the users file's line of `user` ("user NAME ...").
bool is_line_of(std::string_view line, std::string_view user) {
  const std::string head = "user " + std::string(user);
  return line.substr(0, head.size()) == head &&
         (line.size() == head.size() || line[head.size()] == ' ');
}

// Calls `each(line)` for each line of `text` (without its newline).
template <typename F>
void for_lines(std::string_view text, F each) {
  while (!text.empty()) {
    auto nl = text.find('\n');
    each(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

}  // namespace

std::string users_with(std::string_view text, std::string_view user, std::string_view password) {
  const std::string mine =
      "user " + std::string(user) + " on >" + std::string(password) + " ~* &* +@all";
  std::string out;
  bool placed = false;
  for_lines(text, [&](std::string_view line) {
    if (is_line_of(line, user)) {
      if (!placed) out += mine + "\n";
      placed = true;
    } else if (!line.empty()) {
      out += std::string(line) + "\n";
    }
  });
  if (!placed) out += mine + "\n";
  return out;
}

std::string users_without(std::string_view text, std::string_view user, bool* found) {
  std::string out;
  *found = false;
  for_lines(text, [&](std::string_view line) {
    if (is_line_of(line, user))
      *found = true;
    else if (!line.empty())
      out += std::string(line) + "\n";
  });
  return out;
}

Result<void> check_password(std::string_view password) {
  if (password.empty() || password.size() > 512)
    return Error::bad_input("the password must have 1 to 512 characters");
  for (char c : password) {
    if (!std::isgraph(static_cast<unsigned char>(c)) || c == '#' || c == '"' || c == '\'' ||
        c == '\\')
      return Error::bad_input(
          "the password may not hold spaces, control characters or any of # \" ' \\");
  }
  return ok();
}

std::string password_from_file(std::string_view text) {
  std::string_view first = text.substr(0, text.find('\n'));
  return std::string(trim(first));
}

Result<void> check_change(const ConfigChange& c) {
  std::string problems;
  auto bad = [&](const std::string& m) { problems += (problems.empty() ? "" : "\n") + m; };
  if (c.bind && !valid_ipv4(*c.bind))
    bad("--ipaddress '" + *c.bind + "' is no IPv4 address (as 127.0.0.1 or this node's)");
  if (c.port && (*c.port < 1 || *c.port > 65535))
    bad("--port " + std::to_string(*c.port) + " is not between 1 and 65535");
  if (c.directory && c.directory->empty()) bad("--directory may not be empty");
  if (c.directory && c.directory->find_first_of("\"'\n") != std::string::npos)
    bad("--directory may not hold quotes or newlines");
  if (c.snapshot_seconds && *c.snapshot_seconds < 1) bad("--snapshot-seconds must be at least 1");
  if (c.snapshot_changes && *c.snapshot_changes < 1) bad("--snapshot-changes must be at least 1");
  if (c.snapshot_file && !plain_file_name(*c.snapshot_file))
    bad("--snapshot-file '" + *c.snapshot_file + "' must be a file name (no '/', no spaces)");
  if (c.append_file && !plain_file_name(*c.append_file))
    bad("--append-file '" + *c.append_file + "' must be a file name (no '/', no spaces)");
  if (c.append_mode && !parse_append_fsync(*c.append_mode))
    bad("--append-mode '" + *c.append_mode + "' is none of " + std::string(kAppendFsyncNames));
  if (c.max_memory && !memory_size(*c.max_memory))
    bad("--max-memory '" + *c.max_memory + "' is no size (0 for none, or as 512mb, 4gb)");
  if (!problems.empty()) return Error::bad_input(problems);
  return ok();
}

std::vector<std::string> apply_change(RedisConf& conf, const ConfigChange& c) {
  std::vector<std::string> changed;
  auto put = [&](const char* key, const std::string& value, bool quoted = false) {
    if (conf.get(key) == value) return;
    conf.set(key, quoted ? "\"" + value + "\"" : conf_value(value));
    changed.push_back(std::string(key) + " " + value);
  };
  if (c.bind) put("bind", *c.bind);
  if (c.port) put("port", std::to_string(*c.port));
  if (c.directory) put("dir", *c.directory);
  if (c.snapshot_seconds || c.snapshot_changes) {
    // `save` holds pairs; `merlin server config` keeps one pair, as Merlin's does.
    std::string seconds = "300", changes = "100";
    if (auto save = conf.get("save")) {
      auto first = std::string(trim(*save));
      auto space = first.find(' ');
      if (space != std::string::npos) {
        seconds = first.substr(0, space);
        auto rest = std::string(trim(first.substr(space)));
        changes = rest.substr(0, rest.find(' '));
      }
    }
    if (c.snapshot_seconds) seconds = std::to_string(*c.snapshot_seconds);
    if (c.snapshot_changes) changes = std::to_string(*c.snapshot_changes);
    const std::string pair = seconds + " " + changes;
    if (conf.get("save") != pair) {
      conf.set("save", pair);
      changed.push_back("save " + pair);
    }
  }
  if (c.snapshot_file) put("dbfilename", *c.snapshot_file);
  if (auto mode = c.append_mode ? parse_append_fsync(*c.append_mode) : std::nullopt)
    put("appendfsync", std::string(append_fsync_name(*mode)));
  // Quoted, as Redis's own redis.conf and Merlin write it.
  if (c.append_file) put("appendfilename", *c.append_file, true);
  if (c.max_memory) put("maxmemory", lower(*c.max_memory));
  return changed;
}

}  // namespace merlin::server
