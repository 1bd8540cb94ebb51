// `merlin collect`: a sampled step's per-sample outputs into one HDF5 dataset.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/data_formats.h"
#include "merlin/run/collect_run.h"
#include "merlin/util/process_info.h"

namespace merlin::cli {
namespace {

struct CollectArgs {
  run::CollectOptions o;
  std::string poll = "1s";
  bool no_progress = false;
};

// "500ms", "2s", "1.5" (seconds).
Result<std::chrono::milliseconds> parse_poll(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  std::string unit = end ? end : "";
  double ms = unit == "ms"                    ? v
              : (unit == "s" || unit.empty()) ? v * 1000
              : unit == "m"                   ? v * 60000
                                              : -1;
  if (end == text.c_str() || ms <= 0)
    return Error::bad_input("--poll " + text + ": a time such as 500ms, 2s or 1m");
  return std::chrono::milliseconds(static_cast<long long>(ms));
}

int collect(CollectArgs& a) {
  auto poll = parse_poll(a.poll);
  if (!poll) return report_error(poll.error());
  a.o.poll = *poll;
  a.o.progress = !a.no_progress;
  if (a.o.threads == 0)
    a.o.threads = std::max(2u, std::min(8u, std::thread::hardware_concurrency()));
  if (!is_hdf5_path(a.o.output))
    return report_error(
        Error::bad_input("-o " + a.o.output + ": merlin collect writes HDF5 (.h5 or .hdf5)"));
  auto format = hdf5_dataset_format();
  if (!format) return report_error(Error::bad_input(no_hdf5_message(a.o.output)));
  auto sum = run::collect_outputs(a.o, *format, current_dir());
  if (!sum) return report_error(sum.error());
  std::fprintf(stderr, "%s\n", run::collect_summary_text(*sum).c_str());
  const bool all_ok = sum->ok == sum->written && sum->unwritten == 0;
  return all_ok ? kExitOk : kExitFailed;
}

}  // namespace

Command collect_command() {
  return {
      "collect",
      "Gather a sampled step's per-sample output files (.json, .npy, .csv) into one HDF5 "
      "dataset: a row per sample, appended as samples finish",
      [](CLI::App& sub) -> std::function<int()> {
        auto a = std::make_shared<CollectArgs>();
        sub.footer(
            "Reads which samples finished (and whether they failed) from the study's task "
            "journals, each sample's files from its directory, and appends one row per "
            "sample to the file: /sample_ids, /status (1 ok, 0 missing output, 2 failed, 3 "
            "malformed), /inputs and /fields/<name>. Samples already in the file are "
            "skipped, so running it again appends only new ones. Exit codes: 0 every row "
            "written is ok, 1 some rows are not (they are written, with their status) or "
            "nothing could be written, 2 bad input (workspace, step, files, output). See "
            "docs/collect.md.");
        offer(sub.add_option("workspace", a->o.workspace, "The study's workspace directory")
                  ->required(),
              Completion::kDirectory);
        sub.add_option("--step", a->o.step, "The sampled step whose outputs to collect")
            ->required();
        sub.add_option("-f,--file", a->o.files,
                       "An output file of each sample, relative to its directory (repeat): "
                       ".json (numbers, arrays, objects: a field per key), .npy (an array), "
                       ".csv (a header and one row: a field per column)")
            ->required();
        sub.add_option("-o,--output", a->o.output, "The HDF5 file (.h5): made, or appended to")
            ->required();
        sub.add_flag("--follow", a->o.follow,
                     "Keep appending as samples finish, until every sample of the step has "
                     "finished");
        sub.add_option("--poll", a->poll, "--follow: how often to look for new samples")
            ->capture_default_str();
        sub.add_option("-j,--threads", a->o.threads, "Reader threads (default: the cores, 2 to 8)");
        sub.add_option("--batch", a->o.batch_rows, "Rows per append (each is flushed)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
        sub.add_flag("--no-progress", a->no_progress, "No progress line on stderr");
        return [a] { return collect(*a); };
      }};
}

}  // namespace merlin::cli
