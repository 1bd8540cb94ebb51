#include "merlin/run/collect_iterations.h"

#include <algorithm>

namespace merlin::run::collect {

IterationRows iteration_rows(const IterationSeen& seen, bool fanout, std::uint64_t static_count) {
  IterationRows r{seen.iteration, IterationState::kNotYet, 0};
  if (fanout) {
    // The table is the copy the step's tasks were rendered from: its rows are the step's.
    if (seen.table_rows) {
      r.state = IterationState::kRows;
      r.count = *seen.table_rows;
    } else if (seen.recorded && *seen.recorded == 0) {
      r.state = IterationState::kSkipped;
    } else if (seen.recorded || seen.journaled) {
      r.state = IterationState::kNoTable;  // released, but its file was refused
    }
    return r;
  }
  if (seen.recorded && *seen.recorded == 0) {
    r.state = IterationState::kSkipped;
  } else if (seen.iteration <= 1 || seen.recorded || seen.journaled) {
    r.state = IterationState::kRows;
    r.count = static_count;
  }
  return r;
}

bool more_to_come(const std::vector<IterationSeen>& seen, const std::vector<IterationRows>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    switch (rows[i].state) {
      case IterationState::kSkipped:
        return false;  // the loop stopped before it: so did every later iteration
      case IterationState::kNotYet:
        return true;
      case IterationState::kNoTable:
        if (!seen[i].finished_any) return true;  // its one failing task is to come
        break;
      case IterationState::kRows:
        break;
    }
    if (seen[i].stop_after) return false;
  }
  return false;
}

bool KeySpace::add(std::uint32_t iteration, InstanceId instance, std::uint64_t count) {
  if (has(iteration)) return false;
  parts_.push_back({iteration, instance, count, size_});
  size_ += count;
  return true;
}

bool KeySpace::has(std::uint32_t iteration) const {
  return std::any_of(parts_.begin(), parts_.end(),
                     [&](const Part& p) { return p.iteration == iteration; });
}

std::size_t KeySpace::part_index(std::uint64_t key) const {
  // The last part starting at or before `key` (an empty part shares its offset with the next).
  auto it = std::upper_bound(parts_.begin(), parts_.end(), key,
                             [](std::uint64_t k, const Part& p) { return k < p.offset; });
  std::size_t i = static_cast<std::size_t>(it - parts_.begin()) - 1;
  return i;
}

std::optional<std::uint64_t> KeySpace::key_of(std::uint32_t iteration, std::uint64_t id) const {
  for (const auto& p : parts_)
    if (p.iteration == iteration) {
      if (id < p.count) return p.offset + id;
      return std::nullopt;
    }
  return std::nullopt;
}

}  // namespace merlin::run::collect
