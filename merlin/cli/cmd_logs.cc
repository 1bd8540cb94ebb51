// `merlin logs`: a task's stdout or stderr from a lean workspace's per-worker logs.
#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/run/step_log_lookup.h"
#include "merlin/core/util/process_info.h"

namespace merlin::cli {
namespace {

struct LogsArgs {
  std::string target;
  std::string step;
  std::uint64_t sample = 0;
  bool err = false;
  bool all_attempts = false;
  std::string output_path;
};

// Copies `length` bytes of `path` from `offset` to stdout, in blocks (any size of output).
Result<void> print_range(const std::string& path, std::uint64_t offset, std::uint64_t length) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::runtime("cannot read " + path + ": " + std::strerror(errno));
  std::vector<char> buf(64 * 1024);
  std::uint64_t done = 0;
  Result<void> r = ok();
  while (done < length) {
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), length - done));
    ssize_t n = ::pread(fd, buf.data(), want, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      r = Error::runtime(path + " is shorter than its index says (truncated?)");
      break;
    }
    std::fwrite(buf.data(), 1, static_cast<std::size_t>(n), stdout);
    done += static_cast<std::uint64_t>(n);
  }
  ::close(fd);
  std::fflush(stdout);
  return r;
}

int logs(const LogsArgs& a) {
  auto at = run::open_for_status(a.target, current_dir(), a.output_path);
  if (!at) return report_error(at.error());
  auto found = run::find_step_logs(*at->study, a.step, a.sample);
  if (!found) return report_error(found.error());
  if (found->attempts.empty())
    return report_error(Error::runtime("no output recorded for step '" + a.step + "' sample " +
                                       std::to_string(a.sample) + " in " + found->log_dir +
                                       " (not run yet, or its worker died while it ran)"));
  std::size_t first = a.all_attempts ? 0 : found->attempts.size() - 1;
  for (std::size_t i = first; i < found->attempts.size(); ++i) {
    const auto& t = found->attempts[i];
    if (a.all_attempts)
      std::printf("==== merlin: %s sample %llu attempt %u exit %d (worker %s) ====\n",
                  found->instance.c_str(), static_cast<unsigned long long>(a.sample),
                  t.record.attempt, t.record.exit_code, t.writer.c_str());
    std::fflush(stdout);
    auto p = a.err ? print_range(t.err_path, t.record.err_offset, t.record.err_length)
                   : print_range(t.out_path, t.record.out_offset, t.record.out_length);
    if (!p) return report_error(p.error());
  }
  return kExitOk;
}

}  // namespace

Command logs_command() {
  return {
      "logs", "Print a task's stdout (or --err: stderr) from a lean workspace's logs",
      [](CLI::App& sub) -> std::function<int()> {
        auto a = std::make_shared<LogsArgs>();
        sub.footer(
            "A lean workspace (merlin.layout: lean, or merlin run --lean) keeps no .out or "
            ".err per task: each worker process appends its steps' output to "
            "<instance dir>/.merlin_logs/<host>.<pid>.<n>.{out,err} with an index of where "
            "each sample's attempt is. This prints the newest attempt of one task exactly "
            "as the step wrote it, or with --all-attempts every attempt, each after a "
            "header line.\n\nExamples:\n  merlin logs study.yaml sim 17\n  merlin logs "
            "studies/demo_20260101-120000 sim/N.10 3 --err --all-attempts\n\nExit codes: "
            "0 printed, 1 nothing recorded for that task yet (or a log file is damaged), 2 "
            "bad input (not a workspace, not lean, unknown step, sample out of range). See "
            "docs/lean-workspace.md.");
        sub.add_option("target", a->target, "A spec file (its newest workspace) or a workspace")
            ->required();
        offer(sub.add_option("step", a->step,
                       "A step's name, or an instance's directory relative to the "
                       "workspace for a parameterised step (sim/N.10)")
                  ->required(),
              Completion::kNone);
        offer(sub.add_option("sample", a->sample, "The sample id (0 for an unsampled step)")
                  ->required(),
              Completion::kNone);
        sub.add_flag("--err", a->err, "stderr instead of stdout");
        sub.add_flag("--all-attempts", a->all_attempts,
                     "Every attempt (retries, restarts, redeliveries), oldest first, each "
                     "after a '==== merlin: ... ====' line");
        sub.add_option("-o,--output-path", a->output_path,
                       "With a spec: look for its workspaces in this directory instead of "
                       "its OUTPUT_PATH");
        return [a] { return logs(*a); };
      }};
}

}  // namespace merlin::cli
