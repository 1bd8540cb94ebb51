#include <CLI/CLI.hpp>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/data_formats.h"
#include "merlin/run/stop_control.h"
#include "merlin/core/sampling/output_room.h"
#include "merlin/core/sampling/provenance.h"
#include "merlin/core/sampling/sample_writer.h"
#include "merlin/core/util/disk_space.h"
#include "merlin/core/util/version.h"

namespace merlin::cli {
namespace {

struct SampleArgs {
  std::string rows;  ///< -n as written: parse_rows reads it signed, so -5 is not 2^64-5
  std::string method = "uniform";
  std::vector<std::string> columns;
  int dims = 0;
  std::uint64_t seed = 0;
  bool no_scramble = false, header = false;
  std::string output;
};

// The sidecar FILE.json beside a .npy/.csv/.tab file: written under a temporary name and renamed.
Result<void> write_sidecar(const sampling::SampleDesign& d, const std::string& path,
                           std::uint64_t rows) {
  const std::string side = sampling::provenance_path(path);
  const std::string tmp = side + ".tmp." + std::to_string(::getpid());
  const std::string text = sampling::provenance_json(d, rows, merlin_version());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Error::runtime("cannot write " + side + ": " + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !written || std::rename(tmp.c_str(), side.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return Error::runtime("cannot write " + side + ": " + why);
  }
  return ok();
}

Result<std::uint64_t> write_hdf5(const sampling::SampleDesign& d, const std::string& path,
                                 const sampling::StopCheck& stopped) {
  if (auto c = sampling::check_design(d); !c) return c.error();
  std::vector<std::string> labels;
  for (std::size_t c = 0; c < d.columns.size(); ++c)
    labels.push_back(d.columns[c].name.empty() ? "x" + std::to_string(c) : d.columns[c].name);
  auto format = hdf5_dataset_format();
  if (!format) return Error::bad_input(no_hdf5_message(path));
  auto sink = format->create_matrix(path, "samples", labels);
  if (!sink) return sink.error();
  // Provenance as root attributes: the method, seed and scrambling, and the whole record as JSON.
  const bool scrambled = d.scramble && (d.method == sampling::Method::kSobol ||
                                        d.method == sampling::Method::kHalton);
  const std::uint64_t rows = sampling::design_rows(d);
  for (auto r : {(*sink)->set_attribute("sample_method", sampling::method_name(d.method)),
                 (*sink)->set_attribute("sample_seed", d.seed),
                 (*sink)->set_attribute("sample_rows", rows),
                 (*sink)->set_attribute("sample_scramble", scrambled ? "true" : "false"),
                 (*sink)->set_attribute("sample_provenance",
                                        sampling::provenance_json(d, rows, merlin_version()))})
    if (!r) return r.error();
  // On an error (an interrupt too) the sink is dropped, and with it its temporary file.
  auto n = sampling::write_sample_rows(
      d, [&](const double* v, std::uint64_t rows) { return (*sink)->append(v, rows); }, stopped,
      path);
  if (!n) return n.error();
  if (auto c = (*sink)->commit(); !c) return c.error();
  return *n;
}

int sample(const SampleArgs& a) {
  sampling::SampleDesign d;
  auto m = sampling::parse_method(a.method);
  if (!m) return report_error(m.error());
  d.method = *m;
  d.seed = a.seed;
  d.scramble = !a.no_scramble;
  for (const auto& text : a.columns) {
    auto c = sampling::parse_column(text);
    if (!c) return report_error(c.error());
    d.columns.push_back(*c);
  }
  if (!d.columns.empty() && a.dims > 0 && static_cast<std::size_t>(a.dims) != d.columns.size())
    return report_error(Error::bad_input("--dims " + std::to_string(a.dims) + " but " +
                                         std::to_string(d.columns.size()) + " --column given"));
  if (d.columns.empty())
    for (int i = 0; i < a.dims; ++i) d.columns.push_back({"x" + std::to_string(i), 0, 1, false});
  // -n: star and ccd have the rows their columns make, so it may be left out (and, given,
  // must say that number); every other method needs it.
  if (a.rows.empty()) {
    if (!sampling::sized_by_columns(d.method))
      return report_error(Error::bad_input("-n/--rows is required (only --method star and ccd, "
                                           "whose columns decide their rows, go without)"));
    d.rows = sampling::design_rows(d);
  } else {
    auto rows = sampling::parse_rows(a.rows);
    if (!rows) return report_error(rows.error());
    d.rows = *rows;
    if (sampling::sized_by_columns(d.method) && d.rows != sampling::design_rows(d))
      return report_error(Error::bad_input(
          std::string("--method ") + sampling::method_name(d.method) + " with " +
          std::to_string(d.columns.size()) + " columns has " +
          std::to_string(sampling::design_rows(d)) + " rows, not " + a.rows +
          " (leave -n out)"));
  }
  if (auto c = sampling::check_design(d); !c) return report_error(c.error());
  if (d.method == sampling::Method::kSobol && (d.rows & (d.rows - 1)) != 0)
    std::fprintf(stderr,
                 "warning: --method sobol with %llu rows, not a power of two: the balance "
                 "properties of Sobol points hold for N = 2^m rows\n",
                 static_cast<unsigned long long>(d.rows));
  // Refused before a byte is written when the file system cannot hold it (an unknown free
  // space, e.g. a missing directory, is left to the write to report).
  const std::string dir = std::filesystem::path(a.output).parent_path().string();
  if (auto avail = free_space(dir.empty() ? "." : dir); avail) {
    auto room = sampling::check_room(a.output, sampling::estimated_bytes(d, a.output), *avail);
    if (!room) return report_error(room.error());
  }
  // SIGINT and SIGTERM stop the writing between blocks; the temporary file is then removed.
  run::Interrupts::install({SIGINT, SIGTERM});
  const sampling::StopCheck stopped = [] { return run::Interrupts::count() > 0; };
  const auto start = std::chrono::steady_clock::now();
  auto n = is_hdf5_path(a.output) ? write_hdf5(d, a.output, stopped)
                                  : sampling::write_samples(d, a.output, {a.header, stopped});
  run::Interrupts::uninstall({SIGINT, SIGTERM});
  if (!n) return report_error(n.error());
  if (!is_hdf5_path(a.output))
    if (auto side = write_sidecar(d, a.output, *n); !side) return report_error(side.error());
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "wrote %s: %llu rows x %zu columns (%s) in %.2f s\n", a.output.c_str(),
               static_cast<unsigned long long>(*n), d.columns.size(),
               sampling::method_name(d.method), secs);
  return kExitOk;
}

}  // namespace

Command sample_command() {
  return {"sample",
          "Write a sample file (.npy, .csv, .tab, .h5) for a spec's merlin.samples: uniform, Latin "
          "hypercube (plain or maximin), Sobol, Halton, full grid, normal rows, or star and "
          "central composite designs",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<SampleArgs>();
            sub.add_option("-n,--rows", a->rows,
                           "Rows to write, 1 to 10^12 (grid: the most; k^d of them); star and "
                           "ccd: leave it out, their columns decide");
            sub.add_option(
                   "-o,--output", a->output,
                   "The file: .npy (float64, what merlin.samples.file reads), .csv, .tab, or .h5 "
                   "(HDF5: a dataset `samples` with a `column_labels` attribute)")
                ->required();
            offer_values(sub.add_option("-m,--method", a->method,
                           "uniform, lhs (Latin hypercube: each column stratified into n "
                           "intervals), sobol, halton (both scrambled unless --no-scramble), "
                           "grid (k points per column, ends included), normal (bounds are "
                           "the +-3 sigma range), maximin (a Latin hypercube with its rows "
                           "spread apart; at most 20000 rows), star (2d axial points: each "
                           "column at its bounds, the others centred), ccd (face-centred "
                           "central composite: 2^d corners, 2d axial points, the centre)")
                             ->capture_default_str(),
                         {"uniform", "lhs", "sobol", "halton", "grid", "normal", "maximin", "star",
                          "ccd"});
            sub.add_option("-c,--column", a->columns,
                           "NAME=LO:HI or NAME=LO:HI:log (uniform in log x), or a distribution: "
                           "NAME=normal:MU:SIGMA, lognormal:MU:SIGMA, truncnorm:MU:SIGMA:LO:HI, "
                           "beta:A:B[:LO:HI], choice:V1,V2,...; any may end in :round=STEP; one "
                           "per column, in order")
                ->take_all();
            sub.add_option("-d,--dims", a->dims, "Columns x0..x{d-1} in [0, 1] when no --column")
                ->check(CLI::Range(1, 1 << 16));
            sub.add_option("-s,--seed", a->seed, "Random seed: the same seed, the same rows")
                ->capture_default_str();
            sub.add_flag("--no-scramble", a->no_scramble,
                         "Sobol and Halton without randomisation (deterministic points); scrambled, "
                         "Sobol gets a linear matrix scrambling and a digital shift, Halton a "
                         "random permutation per digit position");
            sub.add_flag("--header", a->header, "csv/tab: a first line of column names");
            return [a] { return sample(*a); };
          }};
}

}  // namespace merlin::cli
