#include "merlin/run/app_broker.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "merlin/run/app_server_reading.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/path_expand.h"

namespace merlin::run {
namespace {

std::string expand_home(const std::string& path) {
  return expand_user(path, process_environment());
}

std::string trimmed(std::string s) {
  const char* ws = " \t\r\n\v\f";  // Python's str.strip()
  s.erase(0, s.find_first_not_of(ws));
  s.erase(s.find_last_not_of(ws) + 1);
  return s;
}

// Merlin's `password`: the name of a file holding it (looked for under ~/.merlin first, then
// as a path), which only its owner (and group) may read; or, when no such file exists, the
// password itself. The value is never put in a message: it may be the secret. `file`: the
// app.yaml, whose own mode the warning names.
Result<std::string> app_password(const std::string& file, const std::string& at,
                                 const std::string& key, const std::string& written) {
  std::vector<std::string> candidates;
  if (!written.empty() && written.front() != '/' && written.front() != '~')
    candidates.push_back(expand_home("~/.merlin/" + written));
  candidates.push_back(expand_home(written));
  for (const auto& path : candidates) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG) continue;
      return Error::bad_input(at + key +
                              ": cannot read the file it names: " + std::strerror(errno));
    }
    if (st.st_mode & S_IROTH) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return Error::bad_input(at + key + " file " + path + " is readable by everyone (mode " +
                              mode + "); run: chmod 600 " + path);
    }
    auto text = files::read(path);
    if (!text) return text.error();
    return trimmed(text->substr(0, text->find('\n')));  // Merlin reads its first line
  }
  // The password is in app.yaml itself: say so, and how far it is exposed there.
  struct stat own {};
  if (::stat(file.c_str(), &own) == 0 && (own.st_mode & (S_IRGRP | S_IROTH))) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(own.st_mode & 07777));
    log::warn(
        "{}{} names no file, so its value is used as the password itself (as Merlin does), "
        "and {} is mode {}, readable by {}: run chmod 600 {}, or better put the password in a "
        "file only you can read and name that file",
        at, key, file, mode, own.st_mode & S_IROTH ? "everyone" : "its group", file);
  } else {
    log::warn(
        "{}{} names no file, so its value is used as the password itself (as Merlin does); "
        "better put the password in a file only you can read (chmod 600) and name that file",
        at, key);
  }
  return url_unquoted(trimmed(written));
}

AppServerEdge edge_of(const std::string& file) {
  return {expand_home,
          [file](const std::string& at, const std::string& key, const std::string& written) {
            return app_password(file, at, key, written);
          }};
}

}  // namespace

std::string find_app_config(const std::string& cwd, const std::string& home) {
  std::string here = cwd + "/app.yaml";
  if (files::exists(here)) return here;
  return find_home_app_config(home);
}

std::string find_home_app_config(const std::string& home) {
  std::string merlin_home = home + "/.merlin";
  if (auto named = files::read(merlin_home + "/config_path.txt")) {
    std::string path = trimmed(*named);
    if (!path.empty() && files::exists(path)) return path;
  }
  return merlin_home + "/app.yaml";
}

Result<BrokerLocation> app_broker(const spec::AppConfig& config,
                                  std::vector<spec::IgnoredKey>& unused,
                                  const BrokerProviders& providers) {
  return read_app_server(config.path, config.broker, "broker", false, providers,
                         edge_of(config.path), unused);
}

Result<BrokerLocation> app_results_backend(const spec::AppConfig& config,
                                           std::vector<spec::IgnoredKey>& unused,
                                           const BrokerProviders& providers) {
  return read_app_server(config.path, config.results_backend, "results_backend", true, providers,
                         edge_of(config.path), unused);
}

std::string unused_keys_note(const std::vector<spec::IgnoredKey>& unused) {
  struct Group {
    const spec::IgnoredKey* first;  // its reason
    std::string keys;
  };
  std::vector<Group> groups;
  for (const auto& k : unused) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.first->why == k.why && g.first->detail == k.detail;
    });
    if (it == groups.end())
      groups.push_back({&k, k.key});
    else
      it->keys += ", " + k.key;
  }
  std::string out;
  for (const auto& g : groups)
    out += (out.empty() ? "" : "; ") + g.keys + " (" + spec::why_text(*g.first) + ")";
  return out;
}

}  // namespace merlin::run
