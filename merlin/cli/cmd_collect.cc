// `merlin collect`: a sampled step's per-sample outputs into one HDF5 dataset.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/data_formats.h"
#include "merlin/run/collect_run.h"
#include "merlin/core/util/process_info.h"

namespace merlin::cli {
namespace {

struct CollectArgs {
  run::CollectOptions o;
  std::string poll = "1s";
  std::string max_output_size = "16M";
  std::string compression = "gzip:4";
  bool no_progress = false;
};

// "16M", "64K", "1G", "1.5M" (K, M, G: powers of 1024; an optional "iB" or "B"), "4096".
Result<std::uint64_t> parse_size(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  std::string unit = end ? end : "";
  for (const char* tail : {"iB", "B"})
    if (unit.size() > std::strlen(tail) && unit.ends_with(tail)) {
      unit.resize(unit.size() - std::strlen(tail));
      break;
    }
  const double scale = unit.empty()                 ? 1
                       : unit == "K" || unit == "k" ? 1024.0
                       : unit == "M"                ? 1024.0 * 1024
                       : unit == "G"                ? 1024.0 * 1024 * 1024
                                                    : -1;
  const double bytes = v * scale;
  if (end == text.c_str() || scale < 0 || !(bytes >= 1) || bytes > 1e18)
    return Error::bad_input("--max-output-size " + text +
                            ": a size such as 16M, 512K or 2G (bytes, powers of 1024)");
  return static_cast<std::uint64_t>(bytes);
}

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
  auto cap = parse_size(a.max_output_size);
  if (!cap) return report_error(cap.error());
  a.o.max_output_bytes = *cap;
  auto compression = data::parse_compression(a.compression);
  if (!compression) return report_error(compression.error());
  a.o.compression = *compression;
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
  const bool all_ok = sum->ok == sum->written && sum->unwritten == 0 &&
                      sum->rewritten_ok == sum->rewritten && sum->no_table == 0;
  return all_ok ? kExitOk : kExitFailed;
}

}  // namespace

Command collect_command() {
  return {"collect",
          "Gather a sampled step's per-sample output files (.json, .npy, .csv) into one HDF5 "
          "dataset: a row per sample, appended as samples finish",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<CollectArgs>();
            sub.footer(
                "Reads which samples finished (and whether they failed) from the study's task "
                "journals, each sample's files from its directory, and appends one row per "
                "sample to the file: /sample_ids, /status (1 ok, 0 missing output, 2 failed, 3 "
                "malformed), /inputs and /fields/<name>; a step in a loop or with samples_from "
                "gathers every iteration found so far, with an /iteration column. A new file takes "
                "its fields from the lowest sample id whose files all read. Samples already in the file are "
                "skipped, so running it again appends only new ones, and rewrites rows that "
                "were not ok whose sample now reads otherwise (repaired by merlin restart). "
                "Output files are read only when they are regular files of at most "
                "--max-output-size; others make their sample malformed. Exit codes: 0 every "
                "row written is ok, 1 some rows are not (they are written, with their status) "
                "or nothing could be written, or an iteration's samples_from file could not "
                "be read, 2 bad input (workspace, step, files, output, an "
                "existing output that is not ours or is damaged). See docs/collect.md.");
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
            sub.add_option("-j,--threads", a->o.threads,
                           "Reader threads (default: the cores, 2 to 8)");
            sub.add_option("--batch", a->o.batch_rows, "Rows per append (each is flushed)")
                ->capture_default_str()
                ->check(CLI::PositiveNumber);
            sub.add_option("--max-output-size", a->max_output_size,
                           "The largest output file read (16M, 512K, 2G); a larger one makes its "
                           "sample malformed")
                ->capture_default_str();
            sub.add_option("--compression", a->compression,
                           "How a new file's fields are compressed: none, gzip[:1-9] or lz4 "
                           "(lz4 files need HDF5's LZ4 plugin to be read, e.g. "
                           "hdf5-filter-plugin)")
                ->capture_default_str();
            sub.add_flag("--no-progress", a->no_progress, "No progress line on stderr");
            return [a] { return collect(*a); };
          }};
}

}  // namespace merlin::cli
