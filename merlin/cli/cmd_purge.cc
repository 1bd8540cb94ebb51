#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/core/util/plural.h"
#include "merlin/run/dist_study.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct PurgeArgs {
  std::string spec;
  std::vector<std::string> vars, steps;
  bool force = false;
  BrokerFlags broker;
};

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

int purge(const PurgeArgs& a) {
  auto loaded = load_spec_with_vars(a.spec, a.vars);
  if (!loaded) return report_error(loaded.error());
  std::vector<std::string> queues;  // empty: every queue of the study
  for (const auto& step : a.steps) {
    const auto* s = loaded->spec.find_step(step);
    if (!s) return report_error(Error::bad_input("--steps: no step named '" + step + "'"));
    if (std::find(queues.begin(), queues.end(), s->run.task_queue) == queues.end())
      queues.push_back(s->run.task_queue);
  }
  auto loc = resolve_broker(a.broker);
  if (!loc) return report_error(loc.error());
  auto tokens = spec_tokens(loaded->spec);
  if (!tokens) return report_error(tokens.error());
  auto backend = open_backend(*loc);
  if (!backend) return report_error(backend.error());
  StudyRegistry& studies = (*backend)->studies();
  auto list = studies_named(studies, tokens->study_name);
  if (!list) return report_error(list.error());
  if (list->empty()) {
    std::fprintf(stderr, "nothing to purge: no study of this spec is queued on %s\n",
                 loc->display().c_str());
    return kExitOk;
  }
  std::string what = queues.empty() ? "every queue" : "queues " + joined(queues);
  if (!a.force) {
    if (!::isatty(0))
      return report_error(Error::bad_input("purge asks for confirmation; use -f to purge " + what +
                                           " of " + counted(list->size(), "study", "studies") +
                                           " without asking"));
    std::fprintf(stderr, "remove the queued, reserved and delayed tasks of %s of %s? [y/N] ",
                 what.c_str(), counted(list->size(), "study", "studies").c_str());
    std::string answer;
    std::getline(std::cin, answer);
    if (answer != "y" && answer != "Y" && answer != "yes") {
      std::fprintf(stderr, "nothing purged\n");
      return kExitOk;
    }
  }
  for (const auto& s : *list) {
    auto n = studies.purge_queues(s.key, queues);
    if (!n) return report_error(n.error());
    auto marked = studies.set_purged(s.key, true);  // not lost: removed on purpose
    if (!marked) return report_error(marked.error());
    std::printf("%s: removed %llu tasks (queued, reserved and delayed) from %s\n", s.key.c_str(),
                static_cast<unsigned long long>(*n), what.c_str());
  }
  return kExitOk;
}

}  // namespace

Command purge_command() {
  return {"purge",
          "Remove the tasks of a spec's queued studies from the broker (queued, reserved and "
          "delayed); progress already committed stays",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<PurgeArgs>();
            sub.add_option("spec", a->spec, "The study spec (YAML)");
            sub.add_flag("-f,--force", a->force, "Do not ask for confirmation");
            sub.add_option("--steps", a->steps, "Only the queues of these steps");
            sub.add_option("--vars", a->vars, "KEY=VALUE overrides used at `merlin run`");
            add_broker_flags(sub, a->broker);
            return [a] {
              reclaim_spec(a->vars, a->spec);
              return purge(*a);
            };
          }};
}

}  // namespace merlin::cli
