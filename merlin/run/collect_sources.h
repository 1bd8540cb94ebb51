#pragma once
/// Where a collect's rows come from (collect_run.h): the collected step's iterations released
/// so far, numbered by key (collect_iterations.h), with their sample tables, task directories
/// and what the journals say of their samples. A step that neither loops nor fans out is one
/// iteration, its instance's samples, read as it always was (key = sample id).
///
/// observe() is called by the collect's thread alone; the getters are read by reader threads
/// between two observe() calls (they never run at the same time).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "merlin/core/samples/sample_table.h"
#include "merlin/run/collect_iterations.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/sample_outcomes.h"

namespace merlin::run {

/// One reading of the study's records.
struct CollectObservation {
  SampleOutcomes outcomes;     ///< by key: the samples finished, and which succeeded
  bool more_to_come = false;   ///< a later iteration may still bring rows (--follow waits)
  std::uint64_t no_table = 0;  ///< fan-out iterations released whose file was refused
};

class CollectSources {
 public:
  /// `study` and `node` (a collectable step of it) must outlive this object.
  CollectSources(const PreparedStudy& study, const StepNode& node);

  /// A loop or fan-out step: rows are (iteration, sample) pairs.
  bool iterated() const { return iterated_; }
  /// Reads what the journals appended since the last call (every journal from its start the
  /// first time, or when one was replaced or cut: journal_tail.h). Iterations released since the last call get the next keys
  /// (a fan-out iteration with its table: the copy its tasks ran from); a fan-out iteration
  /// whose file was refused is warned about once. Errors: a journal that cannot be read.
  Result<CollectObservation> observe();

  const collect::KeySpace& keys() const { return keys_; }
  const collect::Part& part(std::uint64_t key) const {
    return keys_.parts()[keys_.part_index(key)];
  }
  /// The task directory of `key`'s sample.
  std::string dir_of(std::uint64_t key) const;
  /// `key`'s sample row, `columns` values (NaN where its table has no such column).
  void inputs(std::uint64_t key, std::size_t columns, std::vector<double>& out) const;

 private:
  const PreparedStudy& study_;
  const StepNode& node_;
  bool iterated_ = false;
  std::uint32_t iterations_ = 1;  ///< the loop's bound (1 outside loops)
  collect::KeySpace keys_;
  std::vector<const samples::SampleTable*> tables_;  ///< per part of keys_
  std::vector<bool> warned_;                         ///< per iteration - 1: a refused file
  JournalTail tail_;                                  ///< each journal's offset read to
  SampleOutcomes outcomes_;                           ///< so far (a step without iterations)
  std::unordered_map<std::uint32_t, InstanceRecords> records_;  ///< so far (with iterations)
  std::uint64_t polls_ = 0, bytes_read_ = 0;                    ///< journal reads, in total
};

}  // namespace merlin::run
