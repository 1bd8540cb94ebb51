#pragma once
/// What a training run reports: one record per epoch (logged as it ends, kept in checkpoints so
/// a resumed run reports the whole history) and the time-to-accuracy summary of report.json.
#include <optional>
#include <string>
#include <vector>

namespace merlin::ml {

struct EpochRecord {
  int epoch = 0;                 ///< 1-based
  double train_loss = 0;         ///< mean MSE of the epoch's steps, standardised units, all ranks
  std::vector<double> val_rmse;  ///< per target, in target units, over all validation rows
  double seconds = 0;            ///< wall time of this epoch (training and validation)
  double lr = 0;                 ///< the rate of the epoch's last step
  /// Seconds from the start of the process that ran this epoch (its first line of main) to the
  /// epoch's end: reading the data, setting up and the epochs before it included.
  double since_start = 0;
};

/// The epoch's validation error that --target-error is compared with: the largest of its
/// targets' RMSEs (every target must be within the bound).
double worst_rmse(const EpochRecord& r);

/// "epoch=3/50 train_loss=0.0123 val_rmse=1.23 seconds=0.051 lr=0.002" (one val_rmse per
/// target, named, when there are several).
std::string epoch_line(const EpochRecord& r, int epochs, const std::vector<std::string>& targets);

/// One line of --metrics (no newline), the epoch's record as a tuned step reads it
/// (docs/tuning.md): `{"budget": 3, "value": 1.23, "train_loss": 0.0123, "lr": 0.002,
/// "seconds": 0.051}`. `value` is worst_rmse; with several targets `val_rmse` names each.
/// Non-finite numbers are null.
std::string metrics_line(const EpochRecord& r, const std::vector<std::string>& targets);

struct RunFacts {
  int ranks = 1;
  std::size_t train_rows = 0;  ///< rows trained on per epoch, all ranks together
  std::size_t val_rows = 0;
  std::vector<std::string> targets;
  std::vector<double> baseline_rmse;  ///< per target: predicting the training mean
  std::optional<double> target_error;
  std::optional<int> resumed_from_epoch;
  std::optional<double> process_seconds;  ///< from the start of the process to the report
  std::optional<int> saved_epoch;         ///< the epoch whose weights model.pt holds
  bool stopped_at_target = false;         ///< --stop-at-target ended the run early
};

struct TrainSummary {
  int epochs = 0;
  double best_val_rmse = 0;  ///< worst_rmse of the best epoch
  int best_epoch = 0;
  double final_val_rmse = 0;
  /// Seconds from the process start to the end of the first epoch with worst_rmse <= target
  /// (its since_start: of the earlier process when a resumed run reached it before resuming).
  std::optional<double> seconds_to_target;
  std::optional<double> epoch_seconds_to_target;  ///< the epochs' own seconds summed until then
  std::optional<int> epoch_to_target;
  double total_seconds = 0;        ///< facts.process_seconds; the epochs' sum without it
  double epoch_seconds_total = 0;  ///< the epochs' own seconds summed (no data reading, setup)
  double samples_per_second = 0;   ///< train rows × epochs / epoch_seconds_total
};

/// Summarises a history (precondition: not empty).
TrainSummary summarize(const std::vector<EpochRecord>& history, const RunFacts& facts);

/// report.json: ranks, epochs, rows, targets, best/final val RMSE (and per target), best and
/// saved epoch, the baseline RMSE, target error, seconds (from process start and summed over
/// epochs) and epoch to target (null when not reached), whether the run stopped at the target,
/// total seconds (both ways), samples per second, resumed_from_epoch, and the history.
std::string report_json(const std::vector<EpochRecord>& history, const RunFacts& facts);

/// A JSON string literal of `s` (quotes and escapes).
std::string json_string(const std::string& s);

/// A JSON number, or null for NaN/inf (JSON has no such numbers).
std::string json_number(double x);

}  // namespace merlin::ml
