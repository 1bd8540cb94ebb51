// merlin-train: the surrogate trainer (docs/training.md). Wires the HDF5 reader, the MPI
// communicator and the torch trainer; the decisions live in merlin/core/ml.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <variant>

#include "adapters/data/hdf5/hdf5_columns.h"
#include "adapters/ml/mpi/mpi_communicator.h"
#include "adapters/ml/torch/surrogate.h"
#include "merlin/core/ml/metrics_log.h"
#include "merlin/core/ml/model_card.h"
#include "merlin/core/ml/train_options.h"
#include "merlin/core/ml/train_report.h"
#include "merlin/core/ml/training_set.h"
#include "merlin/core/samples/sample_table.h"

namespace {

using namespace merlin;

int exit_code(const Error& e) { return e.code == ErrorCode::kBadInput ? 2 : 1; }

int fail(const Error& e) {
  std::cerr << "merlin-train: error: " << e.message << "\n";
  return exit_code(e);
}

Result<void> write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << text;
    if (!f.flush()) return Error::runtime("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return Error::runtime("cannot rename " + tmp + " to " + path);
  return ok();
}

using Clock = std::chrono::steady_clock;

Result<void> train_on_rank(const ml::TrainOptions& o, ml::Communicator& comm,
                           Clock::time_point started) {
  const bool leader = comm.rank() == 0;
  // Every rank reads the index (ids, status, inputs); the targets only of its own rows.
  auto index = hdf5::read_dataset_index(o.data, o.inputs, o.targets);
  if (!index) return index.error();
  auto read_targets = [&](const std::vector<std::uint64_t>& rows) {
    return hdf5::read_dataset_targets(o.data, o.targets, rows);
  };
  auto set = ml::make_training_set(*index, read_targets, o, comm);
  if (!set) return set.error();
  if (leader)
    std::cout << "merlin-train ranks=" << comm.size() << " train_rows=" << set->train_rows_total
              << " val_rows=" << set->val_rows_total << " inputs=" << set->n_in
              << " targets=" << set->n_out << " data=" << o.data << std::endl;
  // --metrics: rank 0 appends each epoch's line (the file is opened before the first epoch, so
  // a bad path fails before any training).
  std::optional<ml::MetricsLog> metrics;
  if (leader && !o.metrics_file.empty()) {
    auto m = ml::MetricsLog::open(o.metrics_file);
    if (!m) return m.error();
    metrics.emplace(std::move(*m));
  }
  torchml::EpochFn on_epoch;
  if (metrics)
    on_epoch = [&](const ml::EpochRecord& rec) {
      return metrics->append(ml::metrics_line(rec, set->card.target_names));
    };
  auto outcome = torchml::train_surrogate(
      *set, o, comm, [](const std::string& line) { std::cout << line << std::endl; }, started,
      on_epoch);
  if (!outcome) return outcome.error();
  if (!leader) return ok();
  ml::RunFacts facts;
  facts.ranks = comm.size();
  facts.train_rows = set->train_rows_total;
  facts.val_rows = set->val_rows_total;
  facts.targets = set->card.target_names;
  facts.baseline_rmse = set->baseline_rmse;
  facts.target_error = o.target_error;
  facts.resumed_from_epoch = outcome->resumed_from_epoch;
  facts.saved_epoch = outcome->saved_epoch;
  facts.stopped_at_target = outcome->stopped_at_target;
  auto card = set->card;
  card.saved_epoch = outcome->saved_epoch;
  if (outcome->saved_epoch > 0)
    card.saved_val_rmse =
        ml::worst_rmse(outcome->history[static_cast<std::size_t>(outcome->saved_epoch - 1)]);
  const auto dir = std::filesystem::path(o.out);
  if (auto r = write_file((dir / "model.json").string(), ml::model_card_json(card)); !r) return r;
  // The process's whole time, up to the report (model.pt and model.json written).
  facts.process_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  const auto report = ml::report_json(outcome->history, facts);
  if (auto r = write_file((dir / "report.json").string(), report); !r) return r;
  const auto s = ml::summarize(outcome->history, facts);
  std::cout << "done epochs=" << s.epochs << " final_val_rmse=" << s.final_val_rmse
            << " best_val_rmse=" << s.best_val_rmse << " saved_epoch=" << outcome->saved_epoch
            << " baseline_val_rmse="
            << ml::json_number(set->baseline_rmse.empty() ? 0 : set->baseline_rmse[0])
            << " seconds_to_target="
            << (s.seconds_to_target ? ml::json_number(*s.seconds_to_target) : "null")
            << " total_seconds=" << s.total_seconds
            << " epoch_seconds_total=" << s.epoch_seconds_total
            << " samples_per_second=" << s.samples_per_second
            << " report=" << (dir / "report.json").string() << std::endl;
  return ok();
}

Result<void> predict(const ml::PredictOptions& o) {
  auto table = samples::open_sample_table(o.inputs);
  if (!table) return table.error();
  const std::size_t rows = (*table)->rows(), columns = (*table)->columns();
  std::vector<double> x;
  x.reserve(rows * columns);
  for (std::size_t r = 0; r < rows; ++r) {
    for (const auto& v : (*table)->row_values(r)) {
      try {
        x.push_back(std::stod(v));
      } catch (const std::exception&) {
        return Error::bad_input(o.inputs + ": row " + std::to_string(r + 1) + ": '" + v +
                                "' is not a number");
      }
    }
  }
  ml::ModelCard card;
  auto y = torchml::predict_surrogate(o.model, x, columns, &card);
  if (!y) return y.error();
  std::string text;
  for (std::size_t j = 0; j < card.target_names.size(); ++j)
    text += (j ? "," : "") + card.target_names[j];
  text += "\n";
  const std::size_t n_out = card.target_names.size();
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < n_out; ++j)
      text += (j ? "," : "") + ml::json_number((*y)[r * n_out + j]);
    text += "\n";
  }
  if (o.out.empty()) {
    std::cout << text;
    return ok();
  }
  return write_file(o.out, text);
}

}  // namespace

int main(int argc, char** argv) {
  // First: time to accuracy counts from here (MPI start-up, data reading and set-up included).
  const auto started = Clock::now();
  std::vector<std::string> args(argv + 1, argv + argc);
  auto cmd = ml::parse_train_command(args);
  if (!cmd) return fail(cmd.error());
  if (auto* help = std::get_if<ml::HelpRequest>(&*cmd)) {
    std::cout << help->text;
    return 0;
  }
  if (auto* p = std::get_if<ml::PredictOptions>(&*cmd)) {
    auto r = predict(*p);
    return r ? 0 : fail(r.error());
  }
  const auto& o = std::get<ml::TrainOptions>(*cmd);
  auto comm = mpi::make_communicator(&argc, &argv);
  if (!comm) return fail(comm.error());
  auto r = train_on_rank(o, **comm, started);
  if (!r) {
    const int code = fail(r.error());
    // Another rank may be waiting in a collective for this one: end them all.
    (*comm)->abort_all(code);
    return code;
  }
  return 0;
}
