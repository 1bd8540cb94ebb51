#pragma once
/// A task message names work, it does not carry it: a sample range of one step instance.
/// A few dozen bytes, versioned; sample values are read by the worker from merlin_info/.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "merlin/core/study/ids.h"
#include "merlin/core/study/task_kind.h"

namespace merlin {

struct TaskMessage {
  static constexpr std::uint8_t kVersion = 1;
  InstanceId instance;
  SampleId lo = 0;            ///< first sample
  SampleId hi = 1;            ///< one past the last
  std::uint32_t attempt = 0;  ///< 0 for the first run; bumped by retry/restart
  TaskKind kind = TaskKind::kCmd;
  /// The range was released before all per-sample parents finished: each leaf checks its
  /// parents before running and is dropped if they are not done (their commit re-queues it).
  bool gated = false;

  bool is_leaf() const { return hi - lo <= 1; }
  friend bool operator==(const TaskMessage&, const TaskMessage&) = default;
};

/// "v1 <instance> <lo> <hi> <attempt> <kind> <gated>": compact, human-readable in redis-cli.
std::string encode(const TaskMessage& m);
/// Parses `encode`'s output; nullopt for garbage or another version (the caller dead-letters it).
std::optional<TaskMessage> decode(std::string_view text);

}  // namespace merlin
