#pragma once
/// `merlin collect` of a step whose samples are decided at run time (docs/collect.md,
/// "Loops and fan-out steps"): a step in a loop (`loop: back_to:`), whose iteration i is its
/// own instance, and a fan-out step (`samples_from:`), whose rows are a table an earlier step
/// wrote. Which iterations have rows, how many, and whether more may come, decided from what
/// the journals and the workspace say; and the keys that number every (iteration, sample) of
/// the collect in one range. Pure functions on plain values; no clock, no file.
#include <cstdint>
#include <optional>
#include <vector>

#include "merlin/core/study/ids.h"

namespace merlin::run::collect {

/// What the study's records say of one iteration of the collected step (its one instance).
struct IterationSeen {
  std::uint32_t iteration = 1;
  std::optional<std::uint64_t> recorded;    ///< a count record (a local run's journal)
  bool journaled = false;                   ///< a task of it started or finished
  bool finished_any = false;                ///< a task of it finished
  std::optional<std::uint64_t> table_rows;  ///< a fan-out step's: its table's rows, once copied
  /// The loop's deciders of this iteration finished and did not all ask for another.
  bool stop_after = false;
};

enum class IterationState {
  kNotYet,   ///< not released (yet): no rows
  kSkipped,  ///< its loop stopped before it (count 0): never any rows
  kRows,     ///< released: `count` rows
  kNoTable,  ///< a fan-out iteration released whose file could not be read: no rows
};

struct IterationRows {
  std::uint32_t iteration = 1;
  IterationState state = IterationState::kNotYet;
  std::uint64_t count = 0;
};

/// An iteration's rows. A fan-out step's come from its table (the copy the step ran from);
/// without one, a count record of 0 is a skipped iteration, and a record or a task of it is a
/// failed expansion (kNoTable). Another step's iteration 1 has `static_count` rows, as has a
/// later iteration with a count record above 0 or a task in the journals.
IterationRows iteration_rows(const IterationSeen& seen, bool fanout, std::uint64_t static_count);

/// Whether an iteration may still bring rows: one up to the loop's last (the first whose
/// decider stopped, a skipped one, or the bound) is not released yet, or is a failed
/// expansion whose one task has not finished. `seen` and `rows` are iterations 1..K in order.
bool more_to_come(const std::vector<IterationSeen>& seen, const std::vector<IterationRows>& rows);

/// The rows of one iteration in the collect's key range: keys [offset, offset + count).
struct Part {
  std::uint32_t iteration = 1;
  InstanceId instance;
  std::uint64_t count = 0;
  std::uint64_t offset = 0;
};

/// Numbers every (iteration, sample id) of a collect as one key, iteration by iteration in the
/// order they were added (an iteration's rows never change once it has a table, so keys stay
/// what they are as iterations are added). A step of one iteration added first: key = id.
class KeySpace {
 public:
  /// Adds an iteration's rows after the last key; false (nothing added) when it has rows
  /// already.
  bool add(std::uint32_t iteration, InstanceId instance, std::uint64_t count);
  bool has(std::uint32_t iteration) const;
  std::uint64_t size() const { return size_; }
  const std::vector<Part>& parts() const { return parts_; }
  /// The index in parts() of the part holding `key` (< size()).
  std::size_t part_index(std::uint64_t key) const;
  /// The key of sample `id` of `iteration`; nullopt when that iteration has no rows here or
  /// `id` is past them.
  std::optional<std::uint64_t> key_of(std::uint32_t iteration, std::uint64_t id) const;

 private:
  std::vector<Part> parts_;
  std::uint64_t size_ = 0;
};

}  // namespace merlin::run::collect
