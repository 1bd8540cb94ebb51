#include <CLI/CLI.hpp>

#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/local_run.h"

namespace merlin::cli {

int finish_local_run(const PreparedStudy& s, const LocalRunResult& r);

namespace {

struct RestartArgs {
  std::string workspace;
  int jobs = 0;
  bool no_progress = false;
};

int restart(const RestartArgs& a) {
  auto reopened = reopen_options(a.workspace, current_dir());
  if (!reopened) return report_error(reopened.error());
  PrepareOptions po = *reopened;
  auto s = prepare_study(po);
  if (!s) return report_error(s.error());
  int jobs = a.jobs > 0 ? a.jobs : core_count();
  auto r = run_local(**s, {jobs, true, !a.no_progress});
  if (!r) return report_error(r.error());
  return finish_local_run(**s, *r);
}

}  // namespace

Command restart_command() {
  return {
      "restart", "Finish an interrupted local run without re-running finished tasks",
      [](CLI::App& sub) -> std::function<int()> {
        auto a = std::make_shared<RestartArgs>();
        sub.add_option("workspace", a->workspace, "The study's workspace directory")->required();
        sub.add_option("-j,--jobs", a->jobs, "Concurrent tasks (default: number of cores)");
        sub.add_flag("--no-progress", a->no_progress, "No progress lines on stderr");
        return [a] { return restart(*a); };
      }};
}

}  // namespace merlin::cli
