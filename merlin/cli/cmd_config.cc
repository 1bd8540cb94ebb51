// `merlin config create|use|update-broker|update-backend`: Merlin's commands for the app.yaml
// that says where the broker is. `create` writes the Redis form (mode 0600), never over an
// existing file unless --force; `create` and `use` record the file in
// ~/.merlin/config_path.txt (beside the file with Merlin's hidden --test), as Merlin does, so
// that later commands read it (after an app.yaml in the working directory: Merlin's order);
// the updates set a block's keys as Merlin 1.13 does.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "merlin/cli/backends.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/config_help.h"
#include "merlin/core/spec/app_config.h"
#include "merlin/core/spec/app_update.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/path_expand.h"

namespace merlin::cli {
namespace {

// The names `config create --broker` takes, one per provider that has a template.
std::vector<std::string> config_names() {
  std::vector<std::string> out;
  for (const auto* p : broker_providers().all())
    if (!p->config_name.empty()) out.push_back(p->config_name);
  return out;
}

std::string config_names_text() {
  std::string out;
  for (const auto& n : config_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

struct CreateArgs {
  std::string task_server = "celery";
  std::string output;  ///< -o; empty: ~/.merlin/app.yaml
  /// a provider's config_name; default: the first provider's
  std::string broker = broker_providers().all().front()->config_name;
  bool force = false;
};

std::string merlin_home() { return expand_user("~/.merlin", process_environment()); }

// `written` as an absolute path, `~` expanded, `.` and `..` resolved in the text.
std::string absolute(const std::string& written) {
  std::string p = expand_user(written, process_environment());
  if (!p.empty() && p[0] != '/') p = current_dir() + "/" + p;
  return std::filesystem::path(p).lexically_normal().string();
}

Error system_error(const std::string& what, const std::string& path) {
  return Error::runtime("cannot " + what + " " + path + ": " + std::strerror(errno));
}

// ~/.merlin, made private when it is new (it holds password files).
Result<void> make_merlin_home() {
  std::string home = merlin_home();
  if (::mkdir(home.c_str(), 0700) != 0 && errno != EEXIST)
    return system_error("create the directory", home);
  return ok();
}

// Writes `text` to `path`, readable by its owner only. An existing file is replaced only when
// `replace`; otherwise it is kept and the result is false. The text goes to a private temp
// file first, then is linked (which fails on an existing file: no check-then-write race) or
// renamed into place.
Result<bool> write_private(const std::string& path, const std::string& text, bool replace) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto w = files::write_new_private(tmp, text);
  if (!w) return w.error();
  if (replace) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      auto e = system_error("write", path);
      ::unlink(tmp.c_str());
      return e;
    }
    return true;
  }
  int linked = ::link(tmp.c_str(), path.c_str());
  int link_errno = errno;
  ::unlink(tmp.c_str());
  if (linked == 0) return true;
  if (link_errno == EEXIST) return false;
  errno = link_errno;
  return system_error("write", path);
}

// The directory of Merlin's record of which app.yaml to read: ~/.merlin, or with --test (what
// Merlin's own test suite passes) the file's own directory.
std::string config_path_dir(const std::string& file, bool test) {
  return test ? file.substr(0, file.rfind('/')) : merlin_home();
}

Result<void> save_config_path(const std::string& file, bool test) {
  if (!test)
    if (auto made = make_merlin_home(); !made) return made;
  return files::write_atomic(config_path_dir(file, test) + "/config_path.txt", file);
}

// `config update-broker` and `update-backend` (Merlin 1.13's flags).
struct UpdateArgs {
  bool backend = false;
  std::string type, config_file, username, password_file, server, port, vhost, cert_reqs, db_num,
      encryption_key;
};

int update(const UpdateArgs& a) {
  const char* command = a.backend ? "config update-backend" : "config update-broker";
  const std::string path =
      a.config_file.empty() ? merlin_home() + "/app.yaml" : absolute(a.config_file);
  if (!files::exists(path))
    return report_error(Error::bad_input(std::string(command) + ": " + path +
                                         " does not exist (`merlin config create` writes one)"));
  auto text = files::read(path);
  if (!text) return report_error(text.error());
  // Merlin's rules, from the provider: the name it writes and the keys its flags may set (a
  // provider without `username` among them gets it empty); a flag for another key is ignored
  // with a note, as Merlin ignores it.
  const BrokerProvider* p = broker_providers().by_config_name(a.type);
  if (p == nullptr || p->update_name.empty())
    return report_error(Error::bad_input(std::string(command) + ": -t " + a.type +
                                         " is not a server this build configures"));
  const std::vector<std::pair<std::string, std::string>> given = {
      {"username", a.username}, {"password", a.password_file}, {"server", a.server},
      {"port", a.port},         {"db_num", a.db_num},          {"vhost", a.vhost},
      {"cert_reqs", a.cert_reqs}};
  auto takes = [&](const std::string& key) {
    return std::find(p->update_keys.begin(), p->update_keys.end(), key) != p->update_keys.end();
  };
  std::vector<spec::AppSetting> set = {{"name", p->update_name, false}};
  if (!takes("username")) set.push_back({"username", "", false});
  for (const auto& key : p->update_keys)
    for (const auto& [k, value] : given)
      if (k == key && !value.empty()) set.push_back({key, value, key == "port" || key == "db_num"});
  for (const auto& [key, value] : given)
    if (!value.empty() && !takes(key))
      std::fprintf(stderr, "%s: %s takes no %s here: ignored (as Merlin does)\n", command,
                   p->title.c_str(), key.c_str());
  if (a.backend && !a.encryption_key.empty())
    set.push_back({"encryption_key", a.encryption_key, false});
  const std::string block = a.backend ? "results_backend" : "broker";
  auto updated = spec::update_app_block(*text, path, block, set);
  if (!updated) return report_error(updated.error());
  auto written = write_private(path, *updated, true);
  if (!written) return report_error(written.error());
  std::string keys;
  for (const auto& s : set) keys += (keys.empty() ? "" : ", ") + s.key;
  std::fprintf(stderr, "%s: %s in %s set (%s); `merlin info` checks the connection\n", command,
               block.c_str(), path.c_str(), keys.c_str());
  return kExitOk;
}

int create(const CreateArgs& a, bool test) {
  if (a.task_server != "celery")
    return report_error(Error::bad_input("--task-server '" + a.task_server +
                                         "': celery is the only task server Merlin configures"));
  const BrokerProvider* provider = broker_providers().by_config_name(a.broker);
  if (provider == nullptr)
    return report_error(
        Error::bad_input("--broker '" + a.broker + "' is none of " + config_names_text()));
  auto made = make_merlin_home();
  if (!made) return report_error(made.error());
  const std::string path = a.output.empty() ? merlin_home() + "/app.yaml" : absolute(a.output);
  if (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0) {
    auto dirs = files::make_dirs(path.substr(0, slash));
    if (!dirs) return report_error(dirs.error());
  }
  auto written = write_private(path, provider->app_yaml, a.force);
  if (!written) return report_error(written.error());
  if (*written)
    std::fprintf(stderr, provider->created_note.c_str(), path.c_str());
  else
    std::fprintf(stderr, "%s exists and is left as it is (--force replaces it)\n", path.c_str());
  auto saved = save_config_path(path, test);
  if (!saved) return report_error(saved.error());
  return kExitOk;
}

int use(const std::string& file, bool test) {
  const std::string path = absolute(file);
  if (!files::exists(path))
    return report_error(Error::bad_input("config use: " + path + " does not exist"));
  auto config = spec::read_app_config(path);
  if (!config) return report_error(config.error());
  auto saved = save_config_path(path, test);
  if (!saved) return report_error(saved.error());
  std::fprintf(stderr, "commands now read %s (named in %s/config_path.txt)\n", path.c_str(),
               config_path_dir(path, test).c_str());
  return kExitOk;
}

}  // namespace

Command config_command() {
  return {
      "config",
      "Write the app.yaml that says where the broker is (create), choose one (use), or set "
      "its broker or results backend (update-broker, update-backend)",
      [](CLI::App& sub) -> std::function<int()> {
        sub.require_subcommand(1);
        auto chosen = std::make_shared<std::function<int()>>();
        auto test = std::make_shared<bool>(false);
        sub.add_flag("-t,--test", *test,
                     "Record the file in config_path.txt beside it, not in ~/.merlin (Merlin's "
                     "test suite uses this)");
        auto args = std::make_shared<CreateArgs>();
        auto* c = sub.add_subcommand("create", config_create_help(broker_providers()));
        offer_values(
            c->add_option("--task-server", args->task_server, "Merlin's task server: celery")
                ->capture_default_str(),
            {"celery"});
        c->add_option("-o,--output-file", args->output,
                      "The file to write (default ~/.merlin/app.yaml)");
        offer_values(c->add_option("--broker", args->broker, config_broker_help(broker_providers()))
                         ->capture_default_str(),
                     config_names());
        c->add_flag("--force", args->force, "Replace an existing file");
        c->callback([chosen, args, test] { *chosen = [args, test] { return create(*args, *test); }; });
        auto file = std::make_shared<std::string>();
        auto* u = sub.add_subcommand(
            "use", "Make commands read this app.yaml (recorded in ~/.merlin/config_path.txt)");
        u->add_option("config_file", *file, "The app.yaml to read from now on")->required();
        u->callback([chosen, file, test] { *chosen = [file, test] { return use(*file, *test); }; });
        for (bool backend : {false, true}) {
          auto ua = std::make_shared<UpdateArgs>();
          ua->backend = backend;
          auto* s = sub.add_subcommand(
              backend ? "update-backend" : "update-broker",
              backend ? "Set the results backend of an app.yaml (a Redis, for a RabbitMQ broker)"
                      : "Set the broker of an app.yaml: a Redis (written as rediss, TLS) or a "
                        "RabbitMQ server");
          // A results backend keeps progress itself: the providers that need none.
          std::vector<std::string> types;
          for (const auto* p : broker_providers().all())
            if (!p->update_name.empty() && (!backend || !p->needs_results_backend))
              types.push_back(p->config_name);
          offer_values(s->add_option("-t,--type", ua->type, "The server's kind")
                           ->required()
                           ->check(CLI::IsMember(types)),
                       types);
          s->add_option("--cf,--config-file", ua->config_file,
                        "The app.yaml to change (default ~/.merlin/app.yaml)");
          if (!backend) s->add_option("-u,--username", ua->username, "RabbitMQ's user name");
          if (backend) s->add_option("-u,--username", ua->username, "(Redis takes none: ignored)");
          s->add_option("--pf,--password-file", ua->password_file,
                        "The file holding the password (written as `password:`)");
          s->add_option("-s,--server", ua->server, "The server's host name or address");
          s->add_option("-p,--port", ua->port, "The server's port");
          if (!backend) s->add_option("-v,--vhost", ua->vhost, "RabbitMQ's virtual host");
          s->add_option("-d,--db-num", ua->db_num, "Redis's database number");
          s->add_option("-c,--cert-reqs", ua->cert_reqs,
                        "TLS: whether the server's certificate is checked (none, optional, "
                        "required)");
          if (backend)
            s->add_option("-e,--encryption-key", ua->encryption_key,
                          "Merlin's results encryption key file (kept in the file; not read "
                          "here)");
          s->footer("Exit codes: 0 written, 2 bad input (no such file, not YAML, a port that "
                    "is not a number). Comments in the file are not kept (as in Merlin).");
          s->callback([chosen, ua] { *chosen = [ua] { return update(*ua); }; });
        }
        return [chosen] { return *chosen ? (*chosen)() : kExitBadInput; };
      }};
}

}  // namespace merlin::cli
