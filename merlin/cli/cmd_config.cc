// `merlin config create` and `merlin config use`: Merlin's commands for the app.yaml that says
// where the broker is. `create` writes the Redis form (mode 0600), never over an existing file
// unless --force; both record the file in ~/.merlin/config_path.txt, as Merlin does, so that
// later commands read it (after an app.yaml in the working directory: Merlin's order).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "merlin/cli/backends.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/config_help.h"
#include "merlin/core/spec/app_config.h"
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

std::string absolute(const std::string& written) {
  std::string p = expand_user(written, process_environment());
  return p.empty() || p[0] == '/' ? p : current_dir() + "/" + p;
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

// Merlin's record of which app.yaml to read.
Result<void> save_config_path(const std::string& file) {
  auto made = make_merlin_home();
  if (!made) return made;
  return files::write_atomic(merlin_home() + "/config_path.txt", file);
}

int create(const CreateArgs& a) {
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
  auto saved = save_config_path(path);
  if (!saved) return report_error(saved.error());
  return kExitOk;
}

int use(const std::string& file) {
  const std::string path = absolute(file);
  if (!files::exists(path))
    return report_error(Error::bad_input("config use: " + path + " does not exist"));
  auto config = spec::read_app_config(path);
  if (!config) return report_error(config.error());
  auto saved = save_config_path(path);
  if (!saved) return report_error(saved.error());
  std::fprintf(stderr, "commands now read %s (named in %s/config_path.txt)\n", path.c_str(),
               merlin_home().c_str());
  return kExitOk;
}

}  // namespace

Command config_command() {
  return {
      "config", "Write the app.yaml that says where the broker is (create), or choose one (use)",
      [](CLI::App& sub) -> std::function<int()> {
        sub.require_subcommand(1);
        auto chosen = std::make_shared<std::function<int()>>();
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
        c->callback([chosen, args] { *chosen = [args] { return create(*args); }; });
        auto file = std::make_shared<std::string>();
        auto* u = sub.add_subcommand(
            "use", "Make commands read this app.yaml (recorded in ~/.merlin/config_path.txt)");
        u->add_option("config_file", *file, "The app.yaml to read from now on")->required();
        u->callback([chosen, file] { *chosen = [file] { return use(*file); }; });
        for (const char* name : {"update-broker", "update-backend"}) {
          auto* s = sub.add_subcommand(name, "(not in this build: edit app.yaml instead)");
          s->prefix_command();  // every argument after it is left alone
          s->fallthrough(false);
          s->allow_extras();
          std::string n = name;
          s->callback([chosen, n] {
            *chosen = [n] {
              std::fprintf(stderr,
                           "merlin: 'config %s' is not in this build; edit the file that "
                           "`merlin info` names (docs/merlin-compatibility.md lists its "
                           "keys)\n",
                           n.c_str());
              return kExitFailed;
            };
          });
        }
        return [chosen] { return *chosen ? (*chosen)() : kExitBadInput; };
      }};
}

}  // namespace merlin::cli
