// merlin-broker-load: `merlin run-workers` with steps that run nothing, so that what limits a
// fleet of workers is the broker path alone (reserve, done check, commit, follow-ups, ack, the
// task journal), not process starts. The same options as run-workers, and the same code but
// the executor: each task "runs" in no time and exits 0; no directory, script or
// MERLIN_FINISHED is written. For tests/bench/redis_load_bench.sh; not installed.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "merlin/cli/command.h"
#include "merlin/core/util/log.h"
#include "workers/step_executor.h"

namespace {

class NullExecutor : public merlin::StepExecutor {
 public:
  merlin::Result<void> prepare(const merlin::RenderedTask&) override { return merlin::ok(); }
  merlin::Result<merlin::ExecResult> run(const merlin::RenderedTask&) override {
    return merlin::ExecResult{};
  }
  merlin::Result<void> mark_finished(const merlin::RenderedTask&) override {
    return merlin::ok();
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace merlin;
  CLI::App app{"merlin-broker-load: `merlin run-workers SPEC ...` whose steps run nothing "
               "(a benchmark of the broker path; tests/bench/redis_load_bench.sh)"};
  app.name("merlin-broker-load");
  std::string level = "warn";
  app.add_option("--log-level", level, "debug, info, warn, error or off")->capture_default_str();
  const auto command = cli::run_workers_command(
      [](std::chrono::milliseconds) { return std::make_unique<NullExecutor>(); });
  auto* sub = app.add_subcommand(command.name, command.help);
  auto action = command.setup(*sub);
  app.require_subcommand(1);
  app.fallthrough();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInput;
  }
  log::set_level(log::parse_level(level));
  return action();
}
