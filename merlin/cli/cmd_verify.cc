// `merlin verify`: the staged outputs of a workspace against their manifests' sizes and CRC32C.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <thread>

#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/staged_verify.h"
#include "merlin/core/util/plural.h"
#include "merlin/core/util/process_info.h"

namespace merlin::cli {
namespace {

struct VerifyArgs {
  std::string target;
  std::vector<std::string> steps;
  std::string format = "text";
  unsigned jobs = 0;
  std::string output_path;
};

std::string megabytes(std::uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return b;
}

int verify(const VerifyArgs& a) {
  if (a.format != "text" && a.format != "json")
    return report_error(Error::bad_input("verify: --format is text or json, not '" + a.format + "'"));
  auto at = run::open_for_status(a.target, current_dir(), a.output_path);
  if (!at) return report_error(at.error());
  run::VerifyOptions o;
  o.workspace = at->workspace;
  o.steps = a.steps;
  o.threads = a.jobs != 0 ? a.jobs : std::max(2u, std::min(8u, std::thread::hardware_concurrency()));
  auto progress = run::progress_on(stderr, "verifying ", std::chrono::milliseconds(250),
                                   std::chrono::seconds(10));
  o.progress = progress.get();
  auto r = run::verify_staged(o);
  if (!r) return report_error(r.error());
  // What should be there: every succeeded task of a staged step has manifest lines.
  auto expected =
      run::find_unrecorded(*at->study->graph, at->study->tokens.info_dir, r->listed, a.steps);
  if (!expected) return report_error(expected.error());
  const auto& lost = expected->unrecorded;
  if (a.format == "json") {
    std::fputs(run::verify_json(o.workspace, *r, *expected).c_str(), stdout);
  } else {
    for (const auto& f : r->findings) std::printf("%s\n", run::finding_line(o.workspace, f).c_str());
    for (const auto& t : lost) std::printf("%s\n", run::unrecorded_line(o.workspace, t).c_str());
  }
  if (r->malformed_lines != 0)
    std::fprintf(stderr,
                 "merlin verify: %s of the manifests could not be read and %s skipped (no "
                 "writer makes such lines: has a manifest been edited?)\n",
                 counted(r->malformed_lines, "line", "lines").c_str(),
                 r->malformed_lines == 1 ? "was" : "were");
  if (!expected->unchecked_steps.empty()) {
    std::string names;
    for (const auto& n : expected->unchecked_steps) names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr,
                 "merlin verify: not checked for lost manifest lines: %s (a loop or a fan-out "
                 "decides their task directories as it runs); their listed files are checked\n",
                 names.c_str());
  }
  if (r->files == 0 && lost.empty()) {
    std::fprintf(stderr,
                 "merlin verify: nothing to check in %s: no step has staged outputs "
                 "(stage_out with scratch:, docs/staging.md), or none has finished yet\n",
                 o.workspace.c_str());
    return kExitOk;
  }
  std::string scope = counted(r->files, "file", "files") + " (" + megabytes(r->bytes) + ") of " +
                      counted(r->samples, "sample", "samples") + " in " +
                      counted(r->steps.size(), "step", "steps");
  if (r->findings.empty() && lost.empty()) {
    std::fprintf(stderr, "merlin verify: %s: every one matches its manifest\n", scope.c_str());
    return kExitOk;
  }
  if (!r->findings.empty())
    std::fprintf(stderr, "merlin verify: %s: %s not match %s manifest%s\n", scope.c_str(),
                 counted(r->findings.size(), "does", "do").c_str(),
                 r->findings.size() == 1 ? "its" : "their", r->findings.size() == 1 ? "" : "s");
  if (!lost.empty())
    std::fprintf(stderr,
                 "merlin verify: %s of %s succeeded %s no manifest lines (lost: %s staged "
                 "files cannot be checked)\n",
                 counted(lost.size(), "task", "tasks").c_str(),
                 std::to_string(expected->tasks).c_str(), lost.size() == 1 ? "has" : "have",
                 lost.size() == 1 ? "its" : "their");
  return kExitFailed;
}

}  // namespace

Command verify_command() {
  return {
      "verify", "Check a workspace's staged outputs against their manifests (size and CRC32C)",
      [](CLI::App& sub) -> std::function<int()> {
        auto a = std::make_shared<VerifyArgs>();
        sub.footer(
            "A step with scratch: and stage_out: copies its outputs into the workspace and "
            "records each file's size and CRC32C in <workspace>/<step>/.merlin_staged/"
            "<host>.<pid>.tsv. This reads every file those manifests list (the newest line "
            "per sample and path) and prints one line for each that is missing, is not a "
            "regular file (a link is reported, never followed), or whose size or checksum "
            "differs. Every task of such a step that succeeded (as its journal says) must have "
            "manifest lines, at least one per stage_out pattern; a task without them is "
            "printed too (its lines were lost, so its files cannot be checked). A summary "
            "goes to stderr. CRC32C is the checksum of `gsutil hash -c` and Python's "
            "google-crc32c.\n\nExamples:\n  merlin verify study.yaml\n  merlin "
            "verify studies/sim_20260101-120000 --step simulate --format json\n\nExit codes: "
            "0 every file matches (or nothing is staged), 1 a file does not match, a "
            "succeeded task has no manifest lines, or a manifest cannot be read, 2 bad input "
            "(not a workspace, a step without manifests). See docs/staging.md.");
        sub.add_option("target", a->target, "A spec file (its newest workspace) or a workspace")
            ->required();
        offer(sub.add_option("--step", a->steps,
                             "Only this step's staged files (repeat for more); default: every "
                             "step that has staged some"),
              Completion::kNone);
        offer_values(sub.add_option("--format", a->format,
                                    "text: a line per file that does not match; json: the "
                                    "counts and every finding (docs/json-output.md)")
                         ->capture_default_str(),
                     {"text", "json"});
        sub.add_option("-j,--jobs", a->jobs, "Files read at once (default: the cores, 2 to 8)");
        sub.add_option("-o,--output-path", a->output_path,
                       "With a spec: look for its workspaces in this directory instead of "
                       "its OUTPUT_PATH");
        return [a] { return verify(*a); };
      }};
}

}  // namespace merlin::cli
